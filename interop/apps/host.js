// A minimal MCP Apps host page (bundled for the browser by apps.mjs): an
// MCP client over Streamable HTTP (the page's own /mcp, which apps.mjs
// proxies to the server) and, for each view, the SDK's AppBridge talking to
// the spec's sandbox proxy, served from another origin, through a
// PostMessageTransport. window.host is what the browser test drives.
import {
  AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, buildAllowAttribute, getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const info = { name: "embedmcp-apps-test-host", version: "1.0.0" };
const sandboxURL = document.body.dataset.sandbox;
// Host style variables (SEP-1865 names), as a host would pass them.
const variables = {
  light: {
    "--color-background-primary": "#fbfbfa", "--color-background-secondary": "#f1f0ec", "--color-text-primary": "#1f1e1c",
    "--color-text-secondary": "#5f5c55", "--color-border-primary": "#d6d3cb", "--color-text-info": "#1f5fbf",
    "--color-ring-primary": "#1f5fbf", "--font-sans": "system-ui, sans-serif", "--border-radius-sm": "6px",
  },
  dark: {
    "--color-background-primary": "#1c1b19", "--color-background-secondary": "#262522", "--color-text-primary": "#ecebe6",
    "--color-text-secondary": "#a9a59b", "--color-border-primary": "#3d3b36", "--color-text-info": "#8db4ff",
    "--color-ring-primary": "#8db4ff", "--font-sans": "system-ui, sans-serif", "--border-radius-sm": "6px",
  },
};

const log = { viewCalls: [], refused: [], violations: [], messages: [] };
document.addEventListener("securitypolicyviolation", (e) => log.violations.push(`${e.violatedDirective} ${e.blockedURI} (host page)`));

let client;
let tools = new Map();
let current = null;

async function connect() {
  client = new Client(info, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  return [...tools.values()].map((t) => ({ name: t.name, view: getToolUiResourceUri(t) || "", visibility: t._meta?.ui?.visibility || null }));
}

function hostContext(theme) {
  document.documentElement.dataset.theme = theme;
  return { theme, styles: { variables: variables[theme] }, displayMode: "inline", availableDisplayModes: ["inline"], platform: "web",
    locale: "en-US", containerDimensions: { maxHeight: 4000 } };
}

// readView reads a tool's view as a host does: resources/read, one content
// of the MCP Apps MIME type.
async function readView(uri) {
  const res = await client.readResource({ uri });
  if (res.contents.length !== 1) throw new Error(`${uri}: ${res.contents.length} contents`);
  const c = res.contents[0];
  if (c.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`${uri}: MIME type ${c.mimeType}`);
  return { html: c.text ?? atob(c.blob), ui: c._meta?.ui ?? {} };
}

// open calls a tool as the agent would and shows its result in the tool's
// view; it resolves when the view has been handed the result.
async function open(name, args, theme) {
  const tool = tools.get(name);
  if (!tool) throw new Error(`unknown tool ${name}`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`${name} names no view`);
  const resultPromise = client.callTool({ name, arguments: args });
  const { html, ui } = await readView(uri);

  if (current) await current.close();
  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.title = `${name} view`;
  frame.setAttribute("sandbox", "allow-scripts allow-same-origin allow-forms");
  const url = new URL(sandboxURL);
  if (ui.csp) url.searchParams.set("csp", JSON.stringify(ui.csp));
  const proxyReady = new Promise((resolve) => {
    const l = (e) => {
      if (e.source === frame.contentWindow && e.data?.method === "ui/notifications/sandbox-proxy-ready") {
        window.removeEventListener("message", l);
        resolve();
      }
    };
    window.addEventListener("message", l);
  });
  frame.src = url.href;
  document.getElementById("views").replaceChildren(frame);
  document.getElementById("viewname").textContent = `${name} → ${uri}`;
  await proxyReady;

  const bridge = new AppBridge(null, info, { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: hostContext(theme) });
  // A view may call the server's tools whose visibility includes "app"
  // (all by default), and only those (SEP-1865, Visibility).
  bridge.oncalltool = async (params) => {
    const t = tools.get(params.name);
    const vis = t?._meta?.ui?.visibility;
    if (!t || (Array.isArray(vis) && !vis.includes("app"))) {
      log.refused.push(params.name);
      throw new Error(`tool ${params.name} is not callable by views`);
    }
    log.viewCalls.push({ name: params.name, arguments: params.arguments ?? {} });
    return client.callTool(params);
  };
  bridge.onreadresource = (params) => client.readResource(params);
  bridge.onloggingmessage = (p) => log.messages.push(p);
  bridge.onsizechange = ({ height }) => { if (height) frame.style.height = `${Math.min(height, 4000)}px`; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await bridge.sendSandboxResourceReady({ html, csp: ui.csp, permissions: ui.permissions });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  const result = await resultPromise;
  await bridge.sendToolResult(result);
  current = { bridge, theme, close: async () => { try { await bridge.teardownResource({}); } catch {} await bridge.close(); } };
  const text = (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  return { isError: !!result.isError, textBytes: new TextEncoder().encode(text).length, htmlBytes: new TextEncoder().encode(html).length, html };
}

// setTheme switches the host's theme; the view hears of it through
// ui/notifications/host-context-changed.
function setTheme(theme) {
  current.bridge.setHostContext(hostContext(theme));
}

window.host = { connect, open, setTheme, log, readView };
document.getElementById("state").textContent = "ready";
