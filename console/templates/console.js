// Refreshes the page's main content every data-refresh seconds while the
// box is ticked and the tab is visible; the page works the same without it.
(function () {
  var main = document.getElementById("main");
  var secs = parseInt(main && main.dataset.refresh, 10);
  if (!secs) return;
  var live = document.getElementById("live"), box = document.getElementById("live-on");
  live.hidden = false;
  var busy = false;
  function busyForm() {
    var a = document.activeElement;
    return a && a.form && (a.tagName === "INPUT" || a.tagName === "SELECT");
  }
  setInterval(function () {
    if (busy || !box.checked || document.hidden || busyForm() || main.querySelector("details[open]")) return;
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) return;
        // Only <main> is parsed: the page's own <style> and <script> carry
        // the nonce of another answer, which this page's CSP refuses.
        var i = html.indexOf("<main"), j = html.lastIndexOf("</main>");
        if (i < 0 || j < i) return;
        var next = new DOMParser().parseFromString("<!doctype html><body>" + html.slice(i, j + 7), "text/html").getElementById("main");
        if (next) main.replaceChildren.apply(main, Array.prototype.slice.call(next.childNodes));
      })
      .catch(function () {})
      .then(function () { busy = false; });
  }, secs * 1000);
})();
