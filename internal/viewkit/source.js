/* source: begin (the same in every view that shows source; the browser suite checks it) */
// renderSource draws the "source" view data of a code_definition result
// (docs/views.md): one row per line, its number, the server's tokens as
// classes and its links as buttons; link(a, l) wires a link. Without view
// data, the text content is shown as it is.
var TOKEN_CLASS = { keyword: "k", string: "s", comment: "c", number: "n" };
function renderSource(r, link) {
  var v = bridge.view(r), out = document.createDocumentFragment();
  if (!v || v.view !== "source" || !Array.isArray(v.lines)) {
    var texts = ((r && r.content) || []).filter(function (c) { return c.type === "text"; });
    out.appendChild(document.createTextNode(texts.length > 1 ? texts.slice(1).map(function (c) { return c.text; }).join("\n") : bridge.text(r)));
    return out;
  }
  var byLine = {};
  function at(i) { return byLine[i] || (byLine[i] = { tokens: [], links: [] }); }
  (v.tokens || []).forEach(function (t) { at(t[0]).tokens.push(t); });
  (v.links || []).forEach(function (l) { at(l.line).links.push(l); });
  v.lines.forEach(function (text, i) {
    var row = document.createElement("span"), n = document.createElement("span");
    row.className = "row"; n.className = "ln"; n.textContent = v.line ? v.line + i : "";
    row.appendChild(n);
    var cls = new Array(text.length), lk = new Array(text.length), marks = byLine[i] || { tokens: [], links: [] };
    marks.tokens.forEach(function (t) { for (var c = t[1]; c < t[1] + t[2] && c < text.length; c++) cls[c] = TOKEN_CLASS[v.classes[t[3]]] || ""; });
    marks.links.forEach(function (l) { for (var c = l.col; c < l.col + l.len && c < text.length; c++) lk[c] = l; });
    var start = 0;
    for (var c = 1; c <= text.length; c++) {
      if (c < text.length && cls[c] === cls[start] && lk[c] === lk[start]) continue;
      var piece = text.slice(start, c), l = lk[start], e;
      if (l && link) {
        e = document.createElement("a"); e.href = "#"; e.className = "id " + (l.how || "") + (cls[start] ? " " + cls[start] : "");
        e.dataset.id = l.id; e.dataset.how = l.how || ""; e.title = (l.how === "declaration" ? "callers of " : l.how + ": ") + l.id;
        e.textContent = piece; link(e, l);
      } else if (cls[start]) { e = document.createElement("span"); e.className = cls[start]; e.textContent = piece; }
      else e = document.createTextNode(piece);
      row.appendChild(e);
      start = c;
    }
    out.appendChild(row);
  });
  return out;
}
/* source: end */
