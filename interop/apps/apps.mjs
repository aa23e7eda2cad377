// The MCP Apps views of examples/codeserver in headless Chromium, through
// a minimal host built on @modelcontextprotocol/ext-apps's AppBridge
// (host.js) and the spec's sandbox proxy (sandbox.html) on another origin
// (run by scripts/test.d/apps.sh).
//
// Env: CODESERVER_URL and CODESERVER_TOKEN (the server), HOST_PORT and
// SANDBOX_PORT (the host page is served at http://localhost:HOST_PORT, the
// proxy at http://127.0.0.1:SANDBOX_PORT), SCREENSHOT_DIR, CHROMIUM.
//
// Checks: tools/list names a ui:// view for runtime_profile,
// runtime_goroutines and code_definition; each view is self-contained
// (at most 160 KiB, no outside URL) and is its page file with the parts
// all views share (internal/viewkit: theme, bridge, source renderer) put
// in, each once, while no page file holds a copy of a part; the flame
// graph of a CPU profile taken while the server burns CPU in burnCPU shows
// burnCPU, search finds it, a click on it makes the view call
// code_definition through the host and its source appears; the definition
// view links identifiers and following one shows its definition; the
// goroutine view shows groups and opens a frame's source; the metrics view
// draws charts; no Content-Security-Policy violation and no console error
// anywhere. Screenshots, light and dark, go to SCREENSHOT_DIR.
import { build } from "esbuild";
import { chromium } from "playwright-core";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const env = process.env;
const CS = env.CODESERVER_URL, TOKEN = env.CODESERVER_TOKEN || "";
const HOST_PORT = +env.HOST_PORT, SANDBOX_PORT = +env.SANDBOX_PORT;
const HOST = `http://localhost:${HOST_PORT}`, SANDBOX = `http://127.0.0.1:${SANDBOX_PORT}`;
const SHOTS = env.SCREENSHOT_DIR;
const CHROMIUM = env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let failures = 0, passes = 0;
function check(ok, what, detail) {
  if (ok) { passes++; console.log("  ✓ " + what); }
  else { failures++; console.log("  ✗ " + what + (detail !== undefined ? ": " + detail : "")); }
  return ok;
}

// The host page's bundle: AppBridge and the MCP client, for the browser.
const bundle = (await build({ entryPoints: [path.join(here, "host.js")], bundle: true, format: "esm", platform: "browser",
  write: false, logLevel: "error", target: "chrome120" })).outputFiles[0].text;
const indexHTML = fs.readFileSync(path.join(here, "index.html"), "utf8").replace("__SANDBOX_URL__", SANDBOX + "/sandbox.html");
const sandboxHTML = fs.readFileSync(path.join(here, "sandbox.html"), "utf8").replace("__HOST_ORIGIN__", HOST);

// The parts every view shares, one copy each (internal/viewkit), and the
// views' page files, which name them by marker lines; assemble puts the
// parts in as viewkit.Page does.
const root = path.join(here, "..", "..");
const parts = [["theme", "theme.css"], ["bridge", "bridge.js"], ["source", "source.js"]].map(([name, f]) =>
  ({ name, text: fs.readFileSync(path.join(root, "internal", "viewkit", f), "utf8") }));
const pageFiles = {};
for (const dir of ["runtimetools/views", "codetools/views"]) {
  for (const f of fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith(".html"))) {
    pageFiles[f.replace(/\.html$/, "")] = { path: `${dir}/${f}`, text: fs.readFileSync(path.join(root, dir, f), "utf8") };
  }
}
const assemble = (text) => parts.reduce((t, p) => t.replace(`/* viewkit: ${p.name} */\n`, () => p.text), text);
const longLines = (text) => text.split("\n").map((l) => l.trim()).filter((l) => l.length >= 40);

// cspOf builds the view's Content-Security-Policy from its _meta.ui.csp as
// SEP-1865 ("CSP Construction from Metadata") does; an origin must be one.
function cspOf(q) {
  let csp = {};
  try { csp = q ? JSON.parse(q) : {}; } catch { csp = {}; }
  const list = (k) => (Array.isArray(csp[k]) ? csp[k] : []).filter((d) => /^(https?|wss?):\/\/[a-z0-9.*-]+(:\d+)?$/i.test(d)).join(" ");
  const res = list("resourceDomains"), con = list("connectDomains"), fr = list("frameDomains"), base = list("baseUriDomains");
  return [`default-src 'none'`, `script-src 'self' 'unsafe-inline' ${res}`, `style-src 'self' 'unsafe-inline' ${res}`,
    `connect-src 'self' ${con}`, `img-src 'self' data: ${res}`, `font-src 'self' ${res}`, `media-src 'self' data: ${res}`,
    `frame-src ${fr || "'none'"}`, `object-src 'none'`, `base-uri ${base || "'self'"}`].map((s) => s.trim()).join("; ");
}

function listen(handler, port) {
  const s = http.createServer(handler);
  return new Promise((resolve, reject) => { s.once("error", reject); s.listen(port, "127.0.0.1", () => resolve(s)); });
}

// The host's server: the page, its bundle, and /mcp proxied to codeserver
// with the bearer token (the page never sees it).
const hostServer = await listen(async (req, res) => {
  const url = new URL(req.url, HOST);
  if (url.pathname === "/") { res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }); res.end(indexHTML); return; }
  if (url.pathname === "/host.js") { res.writeHead(200, { "Content-Type": "text/javascript" }); res.end(bundle); return; }
  if (url.pathname !== "/mcp") { res.writeHead(404); res.end(); return; }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const headers = {};
  for (const h of ["content-type", "accept", "mcp-session-id", "mcp-protocol-version", "last-event-id"]) if (req.headers[h]) headers[h] = req.headers[h];
  if (TOKEN) headers.authorization = "Bearer " + TOKEN;
  try {
    const r = await fetch(CS + "/mcp", { method: req.method, headers, body: req.method === "POST" ? Buffer.concat(chunks) : undefined });
    const out = {};
    r.headers.forEach((v, k) => { if (["content-type", "mcp-session-id", "mcp-protocol-version"].includes(k)) out[k] = v; });
    res.writeHead(r.status, out);
    if (r.body) for await (const c of r.body) res.write(c);
    res.end();
  } catch (e) { res.writeHead(502); res.end(String(e)); }
}, HOST_PORT);
const sandboxServer = await listen((req, res) => {
  const url = new URL(req.url, SANDBOX);
  if (url.pathname !== "/sandbox.html") { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": cspOf(url.searchParams.get("csp")),
    "Cache-Control": "no-store" });
  res.end(sandboxHTML);
}, SANDBOX_PORT);

async function direct(name, args) {
  const r = await fetch(CS + "/mcp", { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream",
    Authorization: "Bearer " + TOKEN, "MCP-Protocol-Version": "2025-11-25" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }) });
  return r.json();
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "apps-chromium-"));
const ctx = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: FLAGS,
  viewport: { width: 1100, height: 900 } });
const errors = [];
const page = await ctx.newPage();
page.on("console", (m) => {
  const where = m.location().url || "?";
  // The client's GET /mcp (a stream for server messages) answered 405: a
  // server without that stream, as Streamable HTTP allows.
  if (m.type() !== "error" || (where === HOST + "/mcp" && /status of 405/.test(m.text()))) return;
  errors.push(m.text() + " (" + where + ")");
});
page.on("pageerror", (e) => errors.push(String(e)));

// view is the frame of the view: the inner frame of the sandbox proxy.
const view = () => page.frameLocator("#view").frameLocator("iframe");
const sandboxFrame = () => page.frames().find((f) => f.url().startsWith(SANDBOX));
async function violations() {
  const f = sandboxFrame();
  const inSandbox = f ? await f.evaluate(() => window.violations || []) : [];
  return inSandbox.concat(await page.evaluate(() => window.host.log.violations));
}
// shot fits the window to the page first: a full-page screenshot leaves
// the parts of an out-of-process frame outside the window blank.
async function shot(name) {
  const file = path.join(SHOTS, name);
  const h = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 1100, height: Math.min(Math.max(h, 400), 2400) });
  await page.waitForTimeout(150);
  await page.screenshot({ path: file });
  await page.setViewportSize({ width: 1100, height: 900 });
  console.log("    screenshot " + file);
}
const viewCalls = () => page.evaluate(() => window.host.log.viewCalls.map((c) => c.name + " " + JSON.stringify(c.arguments)));
async function waitCall(name, since) {
  for (let i = 0; i < 100; i++) {
    const calls = await viewCalls();
    const hit = calls.slice(since).find((c) => c.startsWith(name + " "));
    if (hit) return hit;
    await page.waitForTimeout(100);
  }
  return null;
}
async function open(name, args, theme) {
  return page.evaluate(([n, a, t]) => window.host.open(n, a, t), [name, args, theme]);
}

try {
  await page.goto(HOST + "/");
  await page.waitForFunction(() => window.host);
  const tools = await page.evaluate(() => window.host.connect());
  const viewOf = Object.fromEntries(tools.map((t) => [t.name, t.view]));
  for (const t of ["runtime_profile", "runtime_goroutines", "code_definition"]) {
    check(/^ui:\/\//.test(viewOf[t] || ""), `tools/list: ${t} names a ui:// view`, viewOf[t]);
  }

  // Every view: self-contained, bounded, its page file with the shared
  // parts put in (one copy of each, in internal/viewkit).
  const uris = [...new Set(Object.values(viewOf).filter(Boolean))];
  for (const uri of uris) {
    const v = await page.evaluate((u) => window.host.readView(u), uri);
    const bytes = Buffer.byteLength(v.html);
    const outside = v.html.match(/\b(?:https?:|wss?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[/"')\s]/gi);
    check(bytes <= 160 * 1024 && !outside && !/<(?:script|link|img)[^>]+(?:src|href)=/i.test(v.html),
      `${uri}: ${bytes} bytes, inline script and style only, no outside URL`, outside && outside.join(" "));
    const file = pageFiles[uri.replace(/^.*\//, "")];
    if (!check(!!file, `${uri}: a page file of that name`, Object.keys(pageFiles).join(" "))) continue;
    const n = Object.fromEntries(parts.map((p) => [p.name, v.html.split(p.text).length - 1]));
    check(n.theme === 1 && n.bridge === 1 && n.source <= 1 && !v.html.includes("/* viewkit:") && v.html === assemble(file.text),
      `${uri}: is ${file.path} with the shared parts put in, theme and bridge once, source renderer ${n.source ? "once" : "not"}`,
      JSON.stringify(n));
  }
  for (const file of Object.values(pageFiles)) {
    const copied = parts.flatMap((p) => longLines(p.text).filter((l) => file.text.includes(l)).map((l) => `${p.name}: ${l}`));
    check(copied.length === 0 && !/\/\* (?:theme|bridge|source): begin/.test(file.text),
      `${file.path}: names the shared parts by their markers, holds no copy of them`, copied[0]);
  }

  // runtime_profile: a CPU profile while the server burns CPU in burnCPU.
  console.log("runtime_profile (flame graph)");
  const burning = direct("burn", { ms: 4000 });
  await new Promise((r) => setTimeout(r, 300));
  const prof = await open("runtime_profile", { kind: "cpu", seconds: 2 }, "light");
  await burning;
  check(!prof.isError, "runtime_profile answers", prof.isError);
  const hot = view().locator(".f", { hasText: "burnCPU" }).first();
  await hot.waitFor({ timeout: 10000 }).catch(() => {});
  check(await hot.count() > 0, "the flame graph shows burnCPU");
  await view().locator("#q").fill("burnCPU");
  const found = await view().locator("#found").textContent();
  check(/^[1-9]\d* frames? match/.test(found), "searching burnCPU finds it", found);
  await shot("profile-search-light.png");
  await view().locator("#q").fill("");
  let since = (await viewCalls()).length;
  await hot.click();
  const call = await waitCall("code_definition", since);
  check(call && call.includes("burnCPU"), "a click on burnCPU makes the view call code_definition through the host", call);
  const src = view().locator("#srctext");
  await src.filter({ hasText: "func burnCPU" }).waitFor({ timeout: 10000 }).catch(() => {});
  check((await src.textContent()).includes("func burnCPU"), "the source of burnCPU appears");
  since = (await viewCalls()).length;
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("Enter");
  const parent = await waitCall("code_definition", since);
  check(parent && parent.includes("newBurn"), "from the keyboard, ArrowUp then Enter opens the caller (newBurn.func1)", parent);
  await hot.click();
  await src.filter({ hasText: "func burnCPU" }).waitFor({ timeout: 10000 }).catch(() => {});
  await shot("profile-source-light.png");
  await page.evaluate(() => window.host.setTheme("dark"));
  await page.waitForTimeout(200);
  const bg = await view().locator("body").evaluate((b) => getComputedStyle(b).backgroundColor);
  check(bg === "rgb(28, 27, 25)", "the host's dark theme reaches the view (its background variable)", bg);
  await shot("profile-source-dark.png");

  // code_definition: the source with links; follow one, then list the
  // callers of the declared name.
  console.log("code_definition (source)");
  const def = await open("code_definition", { name: "main.run" }, "light");
  check(!def.isError, "code_definition answers");
  const links = view().locator("#code a.id");
  await links.first().waitFor({ timeout: 10000 }).catch(() => {});
  const n = await links.count();
  check(n > 5, "identifiers of the source are links", n);
  check(await view().locator("#code .k").count() > 5 && await view().locator("#code .ln").count() > 10, "the source is highlighted, with line numbers");
  await shot("definition-light.png");
  since = (await viewCalls()).length;
  const target = view().locator("#code a.id", { hasText: /^newServer$/ }).first();
  check(await target.count() > 0, "the call of newServer is a link");
  await target.click();
  const follow = await waitCall("code_definition", since);
  check(follow && follow.includes("newServer"), "following it calls code_definition through the host", follow);
  await view().locator("#code", { hasText: "func newServer" }).waitFor({ timeout: 10000 }).catch(() => {});
  check((await view().locator("#code").textContent()).includes("func newServer"), "the definition of newServer appears");
  since = (await viewCalls()).length;
  await view().locator("#code a.id.declaration").first().click();
  const refs = await waitCall("code_references", since);
  check(refs && refs.includes("callers"), "its declared name calls code_references (callers) through the host", refs);
  await view().locator("#refsout li a").first().waitFor({ timeout: 10000 }).catch(() => {});
  check((await view().locator("#refsout").textContent()).includes("codeserver.run"), "its callers are listed (run)");
  await page.evaluate(() => window.host.setTheme("dark"));
  await page.waitForTimeout(200);
  await shot("definition-dark.png");
  since = (await viewCalls()).length;
  await view().locator("#back").focus();
  await page.keyboard.press("Enter");
  const back = await waitCall("code_definition", since);
  check(back && back.includes("main.run"), "Back, from the keyboard, returns to run", back);

  // runtime_goroutines: groups, states, counts; a frame opens its source.
  console.log("runtime_goroutines (stack groups)");
  const gor = await open("runtime_goroutines", {}, "dark");
  check(!gor.isError, "runtime_goroutines answers");
  const groups = view().locator(".group");
  await groups.first().waitFor({ timeout: 10000 }).catch(() => {});
  check(await groups.count() > 2, "the goroutine view shows stack groups", await groups.count());
  await shot("goroutines-dark.png");
  since = (await viewCalls()).length;
  const frameLink = view().locator(".group a.frame", { hasText: "main.run" }).first();
  await frameLink.click();
  const gcall = await waitCall("code_definition", since);
  check(gcall && gcall.includes("main.run"), "a click on a frame calls code_definition through the host", gcall);
  await view().locator("#srctext", { hasText: "func run" }).waitFor({ timeout: 10000 }).catch(() => {});
  check((await view().locator("#srctext").textContent()).includes("func run"), "the frame's source appears");
  await page.evaluate(() => window.host.setTheme("light"));
  await page.waitForTimeout(200);
  await shot("goroutines-light.png");

  // runtime_metrics: the console's charts.
  if (viewOf.runtime_metrics) {
    console.log("runtime_metrics (charts)");
    const met = await open("runtime_metrics", {}, "light");
    check(!met.isError, "runtime_metrics answers");
    await view().locator("svg polyline").first().waitFor({ timeout: 10000 }).catch(() => {});
    check(await view().locator("svg polyline").count() >= 3, "the metrics view draws the charts", await view().locator("svg polyline").count());
    since = (await viewCalls()).length;
    const sampled = await waitCall("runtime_metrics", since);
    check(sampled && sampled.includes("/sched/goroutines:goroutines"), "the view samples runtime_metrics through the host", sampled);
    let pts = "";
    for (let i = 0; i < 100 && pts.split(" ").length < 3; i++) {
      await page.waitForTimeout(100);
      pts = await view().locator("svg polyline").first().getAttribute("points");
    }
    check(pts.split(" ").length >= 3, "a chart's line grows with the samples (three points)", pts);
    await shot("metrics-light.png");
    await page.evaluate(() => window.host.setTheme("dark"));
    await page.waitForTimeout(200);
    await shot("metrics-dark.png");
  }

  const v = await violations();
  check(v.length === 0, "no Content-Security-Policy violation (securitypolicyviolation) in the host, the proxy or a view", v.join("; "));
  // The watch can fail: an image from another origin, which the view's
  // policy (img-src 'self' data:) refuses, is reported.
  await sandboxFrame().evaluate((src) => {
    const img = document.querySelector("iframe").contentDocument.createElement("img");
    img.src = src;
    document.querySelector("iframe").contentDocument.body.appendChild(img);
  }, HOST + "/favicon.ico");
  await page.waitForTimeout(300);
  const control = (await violations()).filter((x) => x.startsWith("view: img-src"));
  check(control.length === 1, "control: an image from another origin is refused and reported as a violation", (await violations()).join("; "));
  errors.splice(0, errors.length, ...errors.filter((e) => !e.includes("favicon.ico")));
  const refused = await page.evaluate(() => window.host.log.refused);
  check(refused.length === 0, "no view called a tool it may not", refused.join(","));
  check(errors.length === 0, "no console error in any frame", errors.slice(0, 5).join(" | "));
} catch (e) {
  check(false, "the browser test ran to its end", e.stack || String(e));
} finally {
  await ctx.close();
  fs.rmSync(dir, { recursive: true, force: true });
  hostServer.close(); sandboxServer.close();
}
console.log(`apps: ${passes} checks passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
