// The operator console in headless Chromium (run by scripts/test.d/console.sh).
//
// Against examples/codeserver (CODESERVER_URL, CODESERVER_TOKEN): every
// page loads with no console error (CSP violations included), the Tools
// page lists exactly the tools tools/list answers, a call made to /mcp
// shows in the Calls table within 2 s without a reload, the charts draw,
// a phone-sized window needs no sideways scrolling, a browser without
// credentials gets 401. Against examples/codeserver in its default mode
// (ANONYMOUS_URL: anonymous loopback callers hold the diagnostics grants),
// another site's page (localhost against 127.0.0.1) can neither start a
// CPU profile with an <img> nor open a page (403), while the Process
// page's own form takes one. Against
// console/internal/demohost (DEMOHOST_URL,
// OPERATOR_TOKEN, USER_TOKEN): a principal without
// diagnostics.console.read gets 403, and the operator cancels a running
// task with the Tasks page's button. A screenshot of each page goes to
// SCREENSHOT_DIR.
"use strict";
const { chromium } = require("playwright-core");
const fs = require("fs");
const os = require("os");
const path = require("path");

const env = process.env;
const CHROMIUM = env.CHROMIUM || "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const SHOTS = env.SCREENSHOT_DIR;

let failures = 0;
function check(ok, what, detail) {
  if (ok) {
    console.log("  ✓ " + what);
  } else {
    failures++;
    console.log("  ✗ " + what + (detail !== undefined ? ": " + detail : ""));
  }
}

// mcp posts a JSON-RPC request to base/mcp with a bearer token.
async function mcp(base, token, body, headers) {
  const r = await fetch(base + "/mcp", {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
      "Authorization": "Bearer " + token }, headers || {}),
    body: JSON.stringify(body),
  });
  const text = await r.text();
  try { return JSON.parse(text); } catch (e) { throw new Error("/mcp answered " + r.status + ": " + text.slice(0, 200)); }
}

// browser launches Chromium with a fresh profile; creds are HTTP Basic
// credentials, or none.
async function browser(creds, viewport) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "console-chromium-"));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: viewport || { width: 1280, height: 900 },
    httpCredentials: creds, acceptDownloads: false,
  });
  const close = async () => { await ctx.close(); fs.rmSync(dir, { recursive: true, force: true }); };
  return { ctx, close };
}

// watch records the console errors and uncaught exceptions of page.
function watch(page) {
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text() + " (" + m.location().url + ")"); });
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

async function shot(page, name) {
  const file = path.join(SHOTS, name);
  // caret "initial": Playwright's default hides the caret with an
  // injected style, which the console's CSP rightly refuses.
  await page.screenshot({ path: file, fullPage: true, caret: "initial" });
  console.log("    screenshot " + file);
}

// chartsDrawn counts the charts' lines that have points and a visible size.
function chartsDrawn(page) {
  return page.$$eval("svg polyline", (ls) => ls.filter((l) => {
    const b = l.getBBox();
    return (l.getAttribute("points") || "").split(" ").length >= 1 && (b.width > 0 || b.height > 0);
  }).length);
}

async function codeserver() {
  const base = env.CODESERVER_URL, token = env.CODESERVER_TOKEN;
  console.log("codeserver at " + base);
  const { ctx, close } = await browser({ username: "operator", password: token });
  try {
    const page = await ctx.newPage();
    const errors = watch(page);

    // Tools: exactly the tools of tools/list.
    let resp = await page.goto(base + "/console/");
    check(resp.status() === 200, "Tools page answers 200 after HTTP Basic", resp.status());
    const listed = await mcp(base, token, { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const want = (listed.result.tools || []).map((t) => t.name).sort();
    const shown = (await page.$$eval("tr[id^='tool-']", (trs) => trs.map((tr) => tr.id.slice(5)))).sort();
    check(want.length > 10 && JSON.stringify(shown) === JSON.stringify(want), "Tools page lists the " + want.length + " tools of tools/list",
      "shown " + shown.length + ": " + shown.join(","));
    await page.click("#tool-code_search summary");
    check(await page.isVisible("#tool-code_search table.schema"), "a tool's details show its input schema as a table");
    await shot(page, "tools.png");
    // Who may call: the Authorizer's answer for grants typed in the form.
    await page.fill("input[name=as]", "bob");
    await page.fill("input[name=grants]", "demo.*");
    await Promise.all([page.waitForURL(/grants=/), page.click("form.filters button")]);
    const verdicts = await page.$$eval("tr[id^='tool-']", (trs) => trs.map((tr) => ({
      yes: !!tr.querySelector(".yes"), perm: tr.children[2].textContent.trim() })));
    const wrong = verdicts.filter((v) => v.yes !== (v.perm.startsWith("demo.") || v.perm === "(none)"));
    check(verdicts.length === want.length && verdicts.some((v) => v.yes) && verdicts.some((v) => !v.yes) && wrong.length === 0,
      "\"who may call\" with grants demo.* allows exactly the demo.* tools and those needing no permission", JSON.stringify(wrong));
    await shot(page, "tools-who-may-call.png");
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === "mcp_console");
    check(session && session.httpOnly && session.path === "/console/" && !session.value.includes(token),
      "HTTP Basic sets an HttpOnly session cookie for /console/ that does not show the token");

    // Calls: a call to /mcp appears within 2 s, without a reload.
    await page.goto(base + "/console/calls?tool=echo");
    const rows = () => page.$$eval("#calls tbody tr", (trs) => trs.filter((tr) => tr.textContent.includes("echo")).length);
    const before = await rows();
    const marker = "browser-marker-" + Math.random().toString(36).slice(2);
    const t0 = Date.now();
    const echoed = await mcp(base, token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: marker } } });
    check(echoed.result && !echoed.result.isError, "echo answered");
    let appeared = false;
    try {
      await page.waitForFunction((n) => Array.from(document.querySelectorAll("#calls tbody tr"))
        .filter((tr) => tr.textContent.includes("echo")).length > n, before, { timeout: 2000, polling: 50 });
      appeared = true;
    } catch (e) { /* timed out */ }
    check(appeared, "the call appears in the Calls table within 2 s (" + (Date.now() - t0) + " ms) without a reload");
    check(!(await page.content()).includes(marker), "the Calls page does not show the call's argument");
    await page.goto(base + "/console/calls");
    check(await chartsDrawn(page) >= 3, "the Calls page draws its charts", await chartsDrawn(page));
    await shot(page, "calls.png");

    // Tasks and Process.
    resp = await page.goto(base + "/console/tasks");
    check(resp.status() === 200, "Tasks page answers 200");
    await shot(page, "tasks.png");
    resp = await page.goto(base + "/console/process");
    check(resp.status() === 200, "Process page answers 200");
    check(await chartsDrawn(page) >= 3, "the Process page draws its charts", await chartsDrawn(page));
    check(await page.isVisible("a[href='profile?kind=heap']"), "the Process page links to the heap profile");
    await shot(page, "process.png");

    // A phone.
    const phone = await ctx.newPage();
    const phoneErrors = watch(phone);
    await phone.setViewportSize({ width: 390, height: 844 });
    for (const p of ["", "calls", "process"]) {
      await phone.goto(base + "/console/" + p);
      const wide = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      check(wide <= 1, "on a 390 px phone, /console/" + p + " needs no sideways scrolling", wide + " px too wide");
    }
    await shot(phone, "calls-phone.png");
    check(errors.length === 0 && phoneErrors.length === 0, "no console errors on any page", errors.concat(phoneErrors).join(" | "));
  } finally {
    await close();
  }

  // Without credentials Chromium itself cancels the Basic challenge
  // (ERR_INVALID_AUTH_CREDENTIALS); the context's own requests see it.
  const anon = await browser(undefined);
  try {
    const resp = await anon.ctx.request.get(base + "/console/");
    check(resp.status() === 401 && /^Basic /.test(resp.headers()["www-authenticate"] || ""), "a request without credentials gets 401 and a Basic challenge", resp.status());
  } finally {
    await anon.close();
  }
}

// crossSite: another site's page reaches nothing of the console, and the
// CPU profile starts only from the Process page's form (a same-origin POST
// carrying the CSRF token).
async function crossSite() {
  const base = env.ANONYMOUS_URL; // no credentials needed: the attack of a page the developer opens
  const other = base.replace("127.0.0.1", "localhost"); // another site: its host differs
  console.log("codeserver without a token at " + base + ", another site at " + other);
  const { ctx, close } = await browser(undefined);
  try {
    const page = await ctx.newPage();
    await page.goto(other + "/not-the-console"); // a page of the other site, without a CSP
    // An <img> that would start a 60 s CPU profile: refused at once.
    const img = await page.evaluate((src) => new Promise((done) => {
      const i = new Image();
      i.onload = () => done("loaded");
      i.onerror = () => done("refused");
      setTimeout(() => done("still pending after 3 s"), 3000);
      i.src = src;
    }), base + "/console/profile?kind=cpu&seconds=60");
    check(img === "refused", "an <img> on another site's page cannot start a CPU profile", img);
    // A link from the other site to a console page: 403.
    const [nav] = await Promise.all([page.waitForNavigation(), page.evaluate((href) => {
      const a = document.createElement("a");
      a.href = href;
      document.body.appendChild(a);
      a.click();
    }, base + "/console/process")]);
    check(nav && nav.status() === 403 && (await page.textContent("body")).includes("another site"),
      "a link from another site's page to a console page gets 403", nav && nav.status());
    // The Process page's own form takes a CPU profile at once: the
    // profiler is free, nothing above started one.
    await page.goto(base + "/console/process");
    const errors = watch(page);
    const button = page.locator("form[action=profile] button", { hasText: "cpu, 5 s" });
    check(await button.count() === 1, "the Process page offers a 5 s CPU profile as a form");
    const t0 = Date.now();
    const [resp] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/console/profile") && r.request().method() === "POST", { timeout: 20000 }),
      button.click(),
    ]);
    check(resp.status() === 200 && /^attachment/.test(resp.headers()["content-disposition"] || ""),
      "the form's POST (CSRF token, same origin) answers the profile after " + (Date.now() - t0) + " ms", resp.status());
    check(errors.length === 0, "no console errors on the Process page's form", errors.join(" | "));
  } finally {
    await close();
  }
}

async function demohost() {
  const base = env.DEMOHOST_URL;
  console.log("demohost at " + base);
  const user = await browser({ username: "user", password: env.USER_TOKEN });
  try {
    const page = await user.ctx.newPage();
    for (const p of ["", "calls", "tasks", "process"]) {
      const resp = await page.goto(base + "/console/" + p);
      check(resp.status() === 403, "a principal without diagnostics.console.read gets 403 on /console/" + p, resp.status());
    }
  } finally {
    await user.close();
  }

  const op = await browser({ username: "operator", password: env.OPERATOR_TOKEN });
  try {
    const page = await op.ctx.newPage();
    const errors = watch(page);
    const created = await mcp(base, env.OPERATOR_TOKEN, { jsonrpc: "2.0", id: 3, method: "tools/call", params: {
      name: "wait", arguments: { seconds: 300 }, _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { name: "browsertest", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } } },
    { "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait" });
    const id = created.result && created.result.taskId;
    check(!!id, "a task was started", JSON.stringify(created).slice(0, 200));
    await page.goto(base + "/console/tasks");
    const row = page.locator("#tasks tbody tr", { hasText: id });
    check(await row.count() === 1 && (await row.textContent()).includes("working"), "the Tasks page lists the working task");
    await shot(page, "tasks-working.png");
    await Promise.all([page.waitForURL(/tasks\?cancelled=/), row.locator("button", { hasText: "Cancel" }).click()]);
    check((await page.textContent("main")).includes("was cancelled"), "the Cancel button cancels the task (CSRF-protected POST)");
    const got = await mcp(base, env.OPERATOR_TOKEN, { jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId: id, _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "browsertest", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } } } } },
    { "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tasks/get", "Mcp-Name": id });
    check(got.result && got.result.status === "cancelled", "tasks/get says cancelled", JSON.stringify(got).slice(0, 200));
    await shot(page, "tasks-cancelled.png");
    check(errors.length === 0, "no console errors on the demohost's pages", errors.join(" | "));
  } finally {
    await op.close();
  }
}

(async () => {
  try {
    await codeserver();
    await crossSite();
    await demohost();
  } catch (e) {
    failures++;
    console.log("  ✗ " + (e && e.stack || e));
  }
  console.log(failures === 0 ? "console browser test: all passed" : "console browser test: " + failures + " failed");
  process.exit(failures === 0 ? 0 : 1);
})();
