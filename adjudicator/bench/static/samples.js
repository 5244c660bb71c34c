// The per-sample table of report.html (adjudicator/bench/report_samples.py): sorting, filters,
// message texts shown on demand, and the human column. Reads the page's data island
// (the JSON script element #sample-data): {run_id, rows: {rowId: {field: value}},
// fields: {name: field}, prompts: {sha256: text}, human: {rowId: {call, comment}}}.
// Only ever writes text (textContent, input values), never markup.
(function () {
  "use strict";
  var island = document.getElementById("sample-data");
  var table = document.getElementById("sample-table");
  if (!island || !table) return;
  var data = JSON.parse(island.textContent);
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  var filter = document.getElementById("sample-filter"), count = document.getElementById("sample-count");
  var mode = document.getElementById("sample-filter-mode");
  var selects = Array.prototype.slice.call(document.querySelectorAll(".sample-select"));

  // ---- filter expressions: `p > 0.6`, `escalated and wrong`, `status = failed or not correct` ----
  // Grammar: expr := and ("or" and)*; and := not ("and" not)*; not := "not" not | "(" expr ")" | field [op value]
  // ops: > >= < <= = == != ~ (contains). A bare field is true when its value is true, a non-zero number or a
  // non-empty text. Names: every row field (samples.jsonl), a column heading, or a word of ALIASES.
  var ALIASES = {
    wrong: function (r) { return r.correct === false; },
    right: function (r) { return r.correct === true; },
    ok: function (r) { return r.status === "ok"; },
    partial: function (r) { return r.status === "partial"; },
    failed: function (r) { return r.status === "failed"; },
    agreed: function (r) { return r.human === "agree"; },
    disagreed: function (r) { return r.human === "disagree"; },
    annotated: function (r) { return r.human === "agree" || r.human === "disagree"; }
  };
  var TOKEN = /\s*(>=|<=|!=|==|[=<>~()]|"[^"]*"|'[^']*'|[^\s=<>!~()"']+)\s*/y;

  function tokens(text) {
    var out = [], m;
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < text.length) {
      m = TOKEN.exec(text);
      if (m === null) throw new Error("cannot read " + text.slice(TOKEN.lastIndex));
      out.push(m[1]);
    }
    return out;
  }
  function fieldOf(word) {
    var w = String(word).toLowerCase().replace(/\s+/g, "_");
    if (Object.prototype.hasOwnProperty.call(data.fields, w)) return data.fields[w];
    return null;
  }
  function parse(text) {
    var t = tokens(text), i = 0;
    function peek() { return t[i]; }
    function word(w) { return t[i] !== undefined && t[i].toLowerCase() === w; }
    function orExp() {
      var left = andExp();
      while (word("or")) { i++; left = (function (a, b) { return function (r) { return a(r) || b(r); }; })(left, andExp()); }
      return left;
    }
    function andExp() {
      var left = notExp();
      while (word("and")) { i++; left = (function (a, b) { return function (r) { return a(r) && b(r); }; })(left, notExp()); }
      return left;
    }
    function notExp() {
      if (word("not")) { i++; var inner = notExp(); return function (r) { return !inner(r); }; }
      if (peek() === "(") { i++; var e = orExp(); if (peek() !== ")") throw new Error("a ')' is missing"); i++; return e; }
      var name = peek();
      if (name === undefined) throw new Error("the expression ends too early");
      var field = fieldOf(name);
      i++;
      var op = peek();
      if (op !== undefined && /^(>=|<=|!=|==|=|<|>|~)$/.test(op)) {
        if (field === null) throw new Error("no column named " + name);
        i++;
        var value = peek();
        if (value === undefined) throw new Error("a value is missing after " + op);
        i++;
        return compare(field, op, value.replace(/^["']|["']$/g, ""));
      }
      if (field !== null) return function (r) { return truthy(r[field]); };
      var alias = ALIASES[String(name).toLowerCase()];
      if (alias) return alias;
      throw new Error("no column named " + name);
    }
    if (!t.length) return null;
    var fn = orExp();
    if (i < t.length) throw new Error("unexpected " + t[i]);
    return fn;
  }
  function truthy(v) {
    if (v === null || v === undefined || v === false || v === "") return false;
    if (typeof v === "number") return v !== 0;
    return true;
  }
  function asValue(text) {
    var low = text.toLowerCase();
    if (low === "true" || low === "yes") return true;
    if (low === "false" || low === "no") return false;
    if (low === "null" || low === "none" || low === "—") return null;
    if (text !== "" && !isNaN(Number(text))) return Number(text);
    return low;
  }
  function compare(field, op, text) {
    var want = asValue(text);
    return function (r) {
      var v = r[field];
      if (op === "~") return v !== null && v !== undefined && String(v).toLowerCase().indexOf(String(text).toLowerCase()) >= 0;
      if (v === undefined) v = null;
      if (op === "=" || op === "==" || op === "!=") {
        var same;
        if (want === null || v === null) same = want === v;
        else if (typeof want === "boolean") same = (typeof v === "boolean" ? v : truthy(v)) === want;
        else if (typeof want === "number") same = typeof v === "number" ? v === want : Number(v) === want;
        else same = String(v).toLowerCase() === want;
        return op === "!=" ? !same : same;
      }
      if (v === null || want === null) return false;
      var a = v, b = want;
      if (typeof b === "number" || typeof a === "number") { a = Number(a); b = Number(b); if (isNaN(a) || isNaN(b)) return false; }
      else { a = String(a).toLowerCase(); b = String(b); }
      if (op === ">") return a > b;
      if (op === ">=") return a >= b;
      if (op === "<") return a < b;
      return a <= b;
    };
  }

  function apply() {
    var q = filter.value.trim(), n = 0, test = null, note = "";
    if (q) {
      try { test = parse(q); note = "expression"; }
      catch (e) { test = null; note = "text search (" + e.message + ")"; }
    }
    var low = q.toLowerCase();
    rows.forEach(function (tr) {
      var r = data.rows[tr.dataset.target] || {};
      var ok = !q || (test ? test(r) : tr.textContent.toLowerCase().indexOf(low) >= 0);
      selects.forEach(function (s) {
        if (!s.value) return;
        var cell = tr.querySelector('td[data-col="' + s.dataset.col + '"]');
        if (!cell || cell.textContent !== s.value) ok = false;
      });
      tr.hidden = !ok;
      if (ok) n += 1;
    });
    count.textContent = n + " shown";
    if (mode) mode.textContent = note;
    return n;
  }
  filter.addEventListener("input", apply);
  selects.forEach(function (s) { s.addEventListener("change", apply); });

  // ---- sorting ----
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    function sort() {
      var dir = th.dataset.dir === "asc" ? -1 : 1, num = th.dataset.kind === "num";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (o) { delete o.dataset.dir; });
      th.dataset.dir = dir === 1 ? "asc" : "desc";
      rows.sort(function (a, b) {
        var x = a.cells[col].dataset.v, y = b.cells[col].dataset.v;
        if (x === "" || y === "") return (x === "") - (y === "");  // blanks last either way
        if (num) return dir * (parseFloat(x) - parseFloat(y));
        return dir * x.localeCompare(y);
      });
      rows.forEach(function (tr) { body.appendChild(tr); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
  });
  rows.forEach(function (tr) {
    tr.addEventListener("click", function (e) {
      if (e.target.tagName === "A") return;
      location.hash = tr.dataset.target;
    });
  });

  // ---- message texts, shown when a message is opened (each distinct text is in the page once) ----
  function fill(details) {
    var pre = details.querySelector("pre.message-text");
    if (!pre || pre.dataset.filled) return;
    var text = data.prompts[details.dataset.sha];
    pre.textContent = text === undefined ? "(the text is not in this run's prompts/ folder)" : text;
    pre.dataset.filled = "1";
  }
  Array.prototype.forEach.call(document.querySelectorAll("details.message"), function (d) {
    d.addEventListener("toggle", function () { if (d.open) fill(d); });
    if (d.open) fill(d);
  });

  // ---- the human column: agree / disagree and a comment per row, kept in this browser until exported ----
  var storeKey = "adjudicator-human:" + data.run_id;
  var local = {};
  try { local = JSON.parse(window.localStorage.getItem(storeKey) || "{}"); } catch (e) { local = {}; }
  function current(id) { return local[id] || data.human[id] || {call: "", comment: ""}; }
  function save() { try { window.localStorage.setItem(storeKey, JSON.stringify(local)); } catch (e) { /* storage off: kept until the page closes */ } }
  function show(id) {
    var h = current(id), cell = table.querySelector('tr[data-target="' + id + '"] td[data-col="human"]');
    if (data.rows[id]) { data.rows[id].human = h.call || null; data.rows[id].human_comment = h.comment || null; }
    if (cell) { cell.textContent = (h.call || "") + (h.comment ? " ✎" : ""); cell.dataset.v = h.call || ""; }
    var n = document.getElementById("human-count");
    if (n) n.textContent = String(annotations().length);
  }
  function annotations() {
    var out = [];
    Object.keys(data.rows).forEach(function (id) {
      var h = current(id), r = data.rows[id];
      if (h.call === "agree" || h.call === "disagree") out.push({sample_id: r.sample_id, arm: r.arm, call: h.call, comment: h.comment || "", annotator: h.annotator || "", at: h.at || ""});
    });
    return out;
  }
  function humanJSON() { return JSON.stringify({schema_version: 1, run_id: data.run_id, annotations: annotations()}, null, 2) + "\n"; }
  Array.prototype.forEach.call(document.querySelectorAll("div.human"), function (box) {
    var id = box.dataset.row, sel = box.querySelector("select"), text = box.querySelector("textarea");
    var h = current(id);
    sel.value = h.call || "";
    text.value = h.comment || "";
    function changed() {
      local[id] = {call: sel.value, comment: text.value, at: new Date().toISOString().replace(/\.\d+Z$/, "Z")};
      save();
      show(id);
    }
    sel.addEventListener("change", changed);
    text.addEventListener("change", changed);
    show(id);
  });
  var exportButton = document.getElementById("human-export");
  if (exportButton) exportButton.addEventListener("click", function () {
    var url = URL.createObjectURL(new Blob([humanJSON()], {type: "application/json"}));
    var a = document.createElement("a");
    a.href = url; a.download = "human.json";
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  });
  var clearButton = document.getElementById("human-clear");
  if (clearButton) clearButton.addEventListener("click", function () {
    local = {}; save();
    Array.prototype.forEach.call(document.querySelectorAll("div.human"), function (box) {
      var h = current(box.dataset.row);
      box.querySelector("select").value = h.call || ""; box.querySelector("textarea").value = h.comment || "";
      show(box.dataset.row);
    });
  });

  window.benchViewer = {apply: apply, humanJSON: humanJSON, parse: parse};
})();
