// Measures a compliance report page as Chromium lays it out, for bin/report-screenshot --check:
// an option such as --at must read left to right, an identifier (a <code>, or a hyphenated word
// such as tx-00008 or P-256) must stay on one line, and every table must fit inside <main> or
// scroll inside a box that does. Appends the findings, as JSON, in a pre element with the id layout-check.
(function () {
  var main = document.querySelector("main") || document.body;
  var bounds = main.getBoundingClientRect();
  var out = { width: document.documentElement.clientWidth, options: 0, reversed: [], broken: [], overflowing: [], outsideMain: [] };
  function skipped(node) { return !node.parentElement || node.parentElement.closest("script, style") !== null; }
  // Options: in each "--x", the first dash is left of the letter (reversed in an RTL run otherwise).
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (var n = walker.nextNode(); n; n = walker.nextNode()) {
    if (skipped(n)) continue;
    for (var i = n.data.indexOf("--"); i >= 0; i = n.data.indexOf("--", i + 2)) {
      if (!/[a-z]/.test(n.data.charAt(i + 2))) continue;
      var r = document.createRange();
      r.setStart(n, i); r.setEnd(n, i + 1);
      var dash = r.getBoundingClientRect();
      r.setStart(n, i + 2); r.setEnd(n, i + 3);
      var letter = r.getBoundingClientRect();
      if (dash.width === 0) continue;
      out.options += 1;
      if (!(dash.left < letter.left)) out.reversed.push(n.data.substr(i, 16));
    }
  }
  // Identifiers: one line box each.
  document.querySelectorAll("code").forEach(function (c) {
    if (c.getClientRects().length > 1) out.broken.push(c.textContent);
  });
  var words = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  var identifier = /[A-Za-z0-9][A-Za-z0-9._:\/-]*-[A-Za-z0-9._:\/-]*[A-Za-z0-9]/g;
  for (var t = words.nextNode(); t; t = words.nextNode()) {
    if (skipped(t) || t.parentElement.closest("svg, code")) continue;
    var m;
    identifier.lastIndex = 0;
    while ((m = identifier.exec(t.data)) !== null) {
      var range = document.createRange();
      range.setStart(t, m.index); range.setEnd(t, m.index + m[0].length);
      var lines = {};
      Array.prototype.forEach.call(range.getClientRects(), function (rect) { if (rect.width > 0) lines[Math.round(rect.top)] = true; });
      if (Object.keys(lines).length > 1) out.broken.push(m[0]);
    }
  }
  // Tables: the table, or the scrolling box around it, within <main>.
  document.querySelectorAll("table").forEach(function (t) {
    var box = t;
    for (var p = t.parentElement; p && p !== main; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") { box = p; break; }
    }
    var b = box.getBoundingClientRect();
    if (b.width > 0 && (b.left < bounds.left - 0.5 || b.right > bounds.right + 0.5)) {
      var head = t.querySelector("th");
      out.overflowing.push({ table: (t.className || "") + " " + (head ? head.textContent : ""), left: Math.round(b.left), right: Math.round(b.right), mainLeft: Math.round(bounds.left), mainRight: Math.round(bounds.right) });
    }
  });
  // Markup: every section inside <main> (a stray closing tag ends it early).
  document.querySelectorAll("section").forEach(function (section) {
    if (!main.contains(section)) out.outsideMain.push(section.id);
  });
  var pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
