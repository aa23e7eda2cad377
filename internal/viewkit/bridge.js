/* bridge: begin (the same in every view of this repository; the browser suite checks it) */
// A small MCP Apps client (SEP-1865, 2026-01-26): JSON-RPC 2.0 over
// postMessage with the host, which alone is trusted (event.source).
var bridge = (function () {
  var next = 1, pending = {}, handlers = {}, ctx = {};
  function post(m) { window.parent.postMessage(Object.assign({ jsonrpc: "2.0" }, m), "*"); }
  function request(method, params) {
    var id = next++;
    return new Promise(function (resolve, reject) {
      pending[id] = { resolve: resolve, reject: reject };
      post({ id: id, method: method, params: params || {} });
    });
  }
  function notify(method, params) { post({ method: method, params: params || {} }); }
  function on(method, fn) { handlers[method] = fn; }
  function theme(c) {
    if (!c) return;
    Object.assign(ctx, c);
    var root = document.documentElement;
    if (c.theme === "light" || c.theme === "dark") { root.dataset.theme = c.theme; root.style.colorScheme = c.theme; }
    var vars = c.styles && c.styles.variables;
    for (var k in vars || {}) if (/^--[a-z0-9-]+$/.test(k) && typeof vars[k] === "string") root.style.setProperty(k, vars[k]);
    var fonts = c.styles && c.styles.css && c.styles.css.fonts;
    if (typeof fonts === "string") {
      var s = document.getElementById("host-fonts") || document.head.appendChild(document.createElement("style"));
      s.id = "host-fonts"; s.textContent = fonts;
    }
  }
  window.addEventListener("message", function (e) {
    var m = e.data;
    if (e.source !== window.parent || !m || m.jsonrpc !== "2.0") return;
    if (m.method === undefined && pending[m.id]) {
      var p = pending[m.id]; delete pending[m.id];
      if (m.error) p.reject(new Error(m.error.message || "error " + m.error.code)); else p.resolve(m.result);
      return;
    }
    if (m.method === "ui/notifications/host-context-changed") theme(m.params);
    var h = handlers[m.method], out;
    if (m.id === undefined) { if (h) h(m.params || {}); return; }
    try { out = h ? h(m.params || {}) : m.method === "ping" || m.method === "ui/resource-teardown" ? {} : undefined; }
    catch (err) { out = undefined; }
    Promise.resolve(out).then(function (r) {
      if (r === undefined) post({ id: m.id, error: { code: -32601, message: "method not found" } });
      else post({ id: m.id, result: r });
    });
  });
  var last = "";
  function size() {
    // The body's own height, so that the frame shrinks with its content.
    var w = Math.ceil(document.documentElement.scrollWidth), h = Math.ceil(document.body.getBoundingClientRect().height);
    if (w + "x" + h !== last) { last = w + "x" + h; notify("ui/notifications/size-changed", { width: w, height: h }); }
  }
  function start(name) {
    return request("ui/initialize", { appInfo: { name: name, version: "1" }, appCapabilities: { availableDisplayModes: ["inline"] }, protocolVersion: "2026-01-26" })
      .then(function (r) {
        theme(r && r.hostContext);
        notify("ui/notifications/initialized");
        if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
        return r;
      });
  }
  // callTool calls a tool of the server through the host; a result with
  // isError rejects with its text.
  function callTool(name, args) {
    return request("tools/call", { name: name, arguments: args || {} }).then(function (r) {
      if (r && r.isError) throw new Error(text(r) || name + " failed");
      return r;
    });
  }
  function text(r) { return ((r && r.content) || []).filter(function (c) { return c.type === "text"; }).map(function (c) { return c.text; }).join("\n"); }
  function view(r) { var v = r && r._meta && r._meta["embedmcp/view"]; return v && typeof v === "object" ? v : null; }
  return { start: start, on: on, callTool: callTool, notify: notify, text: text, view: view, context: ctx };
})();
/* bridge: end */
