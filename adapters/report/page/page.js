// The report page: builds the rows of the questions on view from the embedded data blob.
// Every text from the data goes in through textContent or an attribute, never as markup.
// State lives in the URL hash (task=, status=, only=spec|mllm, s<i>=right|wrong|none, q=,
// page=, eager=1, open=<idx>: its first image in the large view), so a link or a headless browser opens the page filtered; counts, the image
// loads and the time to the first rows are written into #page-status for tests to read.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("page-data").textContent);
  var SYSTEMS = DATA.systems, QUESTIONS = DATA.questions, PAGE_SIZE = DATA.page_size || 50;
  var SPEC = [], MLLM = [];
  SYSTEMS.forEach(function (s, i) { (s.kind === "mllm" ? MLLM : SPEC).push(i); });
  var SVG = "http://www.w3.org/2000/svg";
  var status = document.getElementById("page-status");
  var counters = {requested: 0, loaded: 0, failed: 0};
  var started = performance.now();

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]);
    return parent;
  }
  function short(sys) { return sys.short || sys.name; }
  function pct(x) { return x === null || x === undefined ? "-" : (100 * x).toFixed(1); }
  function fmt(v) {
    if (v === null || v === undefined) return "-";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)));
    if (Array.isArray(v)) return "[" + v.map(fmt).join(", ") + "]";
    if (typeof v === "object") return Object.keys(v).map(function (k) { return k + ": " + fmt(v[k]); }).join(", ");
    return String(v);
  }

  // ---- per-question flags, once: right/wrong per system, statuses, the two contrasts
  var FLAGS = QUESTIONS.map(function (q) {
    var ok = q.answers.map(function (a) { return a ? a.ok : undefined; });
    var statuses = {};
    q.answers.forEach(function (a) { if (a) statuses[a.status] = true; });
    var spec = SPEC.map(function (i) { return ok[i]; }).filter(function (v) { return v === true || v === false; });
    var mllm = MLLM.map(function (i) { return ok[i]; }).filter(function (v) { return v === true || v === false; });
    var some = function (xs) { return xs.some(function (v) { return v; }); };
    var none = function (xs) { return xs.length > 0 && xs.every(function (v) { return !v; }); };
    var text = (q.idx + " " + (q.text || "")).toLowerCase();
    return {ok: ok, statuses: statuses, text: text,
            spec: some(spec) && none(mllm), mllm: some(mllm) && none(spec)};
  });

  function readState() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ""));
    var state = {task: params.get("task") || "", status: params.get("status") || "", only: params.get("only") || "",
                 q: params.get("q") || "", page: Math.max(1, parseInt(params.get("page") || "1", 10) || 1),
                 eager: params.get("eager") === "1", open: params.get("open") || "", systems: {}};
    SYSTEMS.forEach(function (_, i) { var v = params.get("s" + i); if (v) state.systems[i] = v; });
    return state;
  }
  function writeState(state) {
    var params = new URLSearchParams();
    ["task", "status", "only", "q"].forEach(function (k) { if (state[k]) params.set(k, state[k]); });
    Object.keys(state.systems).forEach(function (i) { if (state.systems[i]) params.set("s" + i, state.systems[i]); });
    if (state.page > 1) params.set("page", state.page);
    if (state.eager) params.set("eager", "1");
    if (state.open) params.set("open", state.open);
    location.hash = params.toString();
  }
  function matches(i, state) {
    var q = QUESTIONS[i], f = FLAGS[i];
    if (state.task && q.task !== state.task) return false;
    if (state.status && !f.statuses[state.status]) return false;
    if (state.only === "spec" && !f.spec) return false;
    if (state.only === "mllm" && !f.mllm) return false;
    if (state.q && f.text.indexOf(state.q.toLowerCase()) < 0) return false;
    for (var s in state.systems) {
      var want = state.systems[s], ok = f.ok[s];
      if (want === "right" && ok !== true) return false;
      if (want === "wrong" && ok !== false) return false;
      if (want === "none" && ok !== undefined) return false;
    }
    return true;
  }

  // ---- summary: notes, plots, the per-task table
  function summary() {
    var notes = document.getElementById("notes");
    (DATA.notes || []).forEach(function (n) { add(notes, el("span", "note", n)); });
    var plots = document.getElementById("plots");
    (DATA.plots || []).forEach(function (p) {
      var img = el("img", "plot"); img.alt = p.alt || p.src; track(img); img.src = p.src;
      img.addEventListener("click", function () { openViewer(p.src, null, p.alt || p.src); });
      add(plots, img);
    });
    var t = DATA.table, table = el("table", "summary");
    var head = add(el("tr"), el("th", null, "system"));
    t.tasks.forEach(function (task) {
      var th = el("th", "task-head", task.replace(/_/g, " "));
      th.title = "show only " + task;
      th.addEventListener("click", function () { var s = readState(); s.task = task; s.page = 1; writeState(s); });
      add(head, th);
    });
    add(head, el("th", null, "macro"));
    add(table, add(el("thead"), head));
    var body = el("tbody");
    t.rows.forEach(function (row) {
      var tr = add(el("tr", row.kind), el("th", null, row.name));
      t.tasks.forEach(function (task) {
        var c = row.cells[task], td = el("td", null, c ? pct(c.acc) : "");
        if (c && c.n) td.title = "n=" + c.n + (c.lo !== undefined && c.lo !== null ? ", 95% CI " + pct(c.lo) + "-" + pct(c.hi) : "");
        add(tr, td);
      });
      add(body, add(tr, el("td", null, pct(row.macro))));
    });
    add(document.getElementById("table"), add(table, body), el("p", "caption", "accuracy % per task (hover: n and 95% CI); click a task to filter"));
  }

  // ---- filters
  function select(name, label, options, value, onChange) {
    var wrap = el("label", "filter"), sel = el("select");
    sel.name = name;
    options.forEach(function (o) { var opt = el("option", null, o[1]); opt.value = o[0]; add(sel, opt); });
    sel.value = value;
    sel.addEventListener("change", function () { onChange(sel.value); });
    return add(wrap, el("span", null, label), sel);
  }
  function filters(state) {
    var box = document.getElementById("filters");
    box.textContent = "";
    var change = function (apply) { return function (v) { var s = readState(); apply(s, v); s.page = 1; writeState(s); }; };
    add(box, select("task", "task", [["", "all tasks"]].concat(DATA.tasks.map(function (t) { return [t, t]; })),
                    state.task, change(function (s, v) { s.task = v; })));
    var seen = {};
    QUESTIONS.forEach(function (q) { q.answers.forEach(function (a) { if (a) seen[a.status] = true; }); });
    add(box, select("status", "status", [["", "any status"]].concat(Object.keys(seen).sort().map(function (k) {
      return [k, "some system: " + k]; })), state.status, change(function (s, v) { s.status = v; })));
    if (SPEC.length && MLLM.length) {
      add(box, select("only", "contrast", [["", "-"], ["spec", "specialist right, all MLLMs wrong"],
                                           ["mllm", "an MLLM right, all specialists wrong"]],
                      state.only, change(function (s, v) { s.only = v; })));
    }
    SYSTEMS.forEach(function (sys, i) {
      add(box, select("s" + i, sys.name, [["", "any"], ["right", "right"], ["wrong", "wrong"], ["none", "not answered"]],
                      state.systems[i] || "", change(function (s, v) { s.systems[i] = v; })));
    });
    var search = el("input"); search.type = "search"; search.placeholder = "id or text"; search.value = state.q;
    search.addEventListener("change", function () { var s = readState(); s.q = search.value; s.page = 1; writeState(s); });
    add(box, add(el("label", "filter"), el("span", null, "search"), search));
  }

  // ---- images, markers, viewer
  function track(img) {
    counters.requested++;
    img.addEventListener("load", function () {
      img.setAttribute("data-natural-width", img.naturalWidth);
      if (img.naturalWidth > 0) counters.loaded++; else counters.failed++;
      report();
    });
    img.addEventListener("error", function () { counters.failed++; img.setAttribute("data-failed", "1"); report(); });
  }
  function markerLayer(marks, w, h) {
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 " + w + " " + h);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("class", "marks");
    var unit = Math.max(w, h) / 100;
    Object.keys(marks).forEach(function (label) {
      var m = marks[label], shape;
      if (m.box) {
        shape = document.createElementNS(SVG, "rect");
        shape.setAttribute("x", m.box[0]); shape.setAttribute("y", m.box[1]);
        shape.setAttribute("width", m.box[2] - m.box[0]); shape.setAttribute("height", m.box[3] - m.box[1]);
      } else {
        shape = document.createElementNS(SVG, "circle");
        shape.setAttribute("cx", m.xy[0]); shape.setAttribute("cy", m.xy[1]); shape.setAttribute("r", 1.8 * unit);
      }
      shape.setAttribute("class", "mark" + (m.source ? " unusual" : ""));
      var tip = document.createElementNS(SVG, "title");
      tip.textContent = label + " at (" + m.xy.map(function (v) { return v.toFixed(1); }).join(", ") + ")" +
        (m.confidence !== undefined ? ", confidence " + m.confidence : "") + (m.source ? ", placed by " + m.source : "");
      shape.appendChild(tip);
      var text = document.createElementNS(SVG, "text");
      var x = m.box ? m.box[0] : m.xy[0] + 2.2 * unit, y = m.box ? m.box[1] - unit : m.xy[1] - 2.2 * unit;
      text.setAttribute("x", x); text.setAttribute("y", y); text.setAttribute("font-size", 4.5 * unit);
      text.setAttribute("class", "mark-label");
      text.textContent = label;
      svg.appendChild(shape); svg.appendChild(text);
    });
    return svg;
  }
  function framed(src, image, marks, className, eager) {
    var frame = el("div", "frame " + className), img = el("img");
    img.alt = image ? image.key : "evidence";
    img.loading = eager ? "eager" : "lazy";
    img.decoding = "async";
    track(img);
    img.src = src;
    add(frame, img);
    if (marks && image) frame.appendChild(markerLayer(marks, image.w, image.h));
    return frame;
  }
  var viewer = document.getElementById("viewer");
  function openViewer(src, image, caption, marks) {
    viewer.textContent = "";
    var box = el("div", "viewer-box");
    add(box, framed(src, image, marks, "large", true), el("p", "caption", caption));
    add(viewer, box);
    viewer.hidden = false;
  }
  viewer.addEventListener("click", function () { viewer.hidden = true; viewer.textContent = ""; });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") viewer.hidden = true; });

  // ---- one question
  function verdict(a) {
    if (!a) return ["none", "-"];
    if (a.ok === true) return ["right", "right"];
    if (a.ok === false) return ["wrong", "wrong"];
    return ["unscored", "unscored"];
  }
  function detailsTable(a) {
    var table = el("table", "details");
    var rows = [["scores", a.scores]].concat(Object.keys(a.details || {}).map(function (k) { return [k, a.details[k]]; }));
    if (a.tie) rows.push(["tie", "best score shared; the earliest letter chosen"]);
    rows.forEach(function (r) { add(table, add(el("tr"), el("th", null, r[0]), el("td", null, fmt(r[1])))); });
    return table;
  }
  function answerRow(q, a, i, eager) {
    var sys = SYSTEMS[i], v = verdict(a);
    var tr = add(el("tr", "answer " + v[0]), el("th", null, sys.name));
    add(tr, el("td", "pred", a.pred || "-"), el("td", "verdict " + v[0], v[1]));
    var st = el("td", "status " + a.status, a.status);
    if (a.error) add(st, el("div", "error", a.error));
    if (a.form && a.form !== a.status) add(st, el("div", "form", "read as: " + a.form));
    add(tr, st, el("td", "sec", a.sec === undefined || a.sec === null ? "" : a.sec.toFixed(3) + " s"));
    var more = el("td", "more");
    if (sys.kind === "mllm") {
      var raw = add(el("details"), el("summary", null, "raw answer"), el("pre", "raw", a.raw === null ? "(no prediction)" : a.raw));
      raw.open = a.raw !== null && a.raw.length <= 200;  // short answers in view, long ones folded
      add(more, raw);
    } else {
      if (a.rule) add(more, el("div", "rule", a.rule + (a.who && a.who !== sys.name ? " (" + a.who + ")" : "")));
      if (a.scores && (Object.keys(a.scores).length || Object.keys(a.details || {}).length)) add(more, detailsTable(a));
      (a.evidence || []).forEach(function (e) {
        var f = framed(e.src, null, null, "evidence", eager);
        f.title = e.name + ": click for a larger view";
        f.addEventListener("click", function () { openViewer(e.src, null, q.idx + ": " + e.name + " (" + sys.name + ")"); });
        add(more, add(el("figure", "ev"), f, el("figcaption", null, e.name)));
      });
    }
    return add(tr, more);
  }
  function openFirstImage(q) {
    var image = (q.images || [])[0];
    if (!image) return;
    var marks = q.markers ? q.markers[image.key] : null;
    openViewer(image.full, image, q.idx + " " + image.key + " (" + image.w + "x" + image.h + ")" +
               (q.markers_from ? "; markers " + q.markers_from : ""), marks);
  }
  function questionCard(i, eager) {
    var q = QUESTIONS[i], card = el("article", "q");
    card.id = "q-" + q.idx;
    card.setAttribute("data-idx", q.idx);
    var head = add(el("header"), el("code", "idx", q.idx), el("span", "task", q.task),
                   el("span", "gold", "gold: " + (q.gold || "hidden")));
    q.answers.forEach(function (a, s) {
      if (!a) return;
      var v = verdict(a), badge = el("span", "badge " + v[0], short(SYSTEMS[s]) + ": " + (a.pred || "-"));
      badge.title = SYSTEMS[s].name + ": " + v[1] + ", " + a.status;
      add(head, badge);
    });
    add(card, head);
    var body = el("div", "body"), images = el("div", "images");
    (q.images || []).forEach(function (image) {
      var marks = q.markers ? q.markers[image.key] : null;
      var fig = el("figure"), f = framed(image.thumb, image, marks, "thumb", eager);
      f.title = "click for a larger view";
      f.addEventListener("click", function () {
        openViewer(image.full, image, q.idx + " " + image.key + " (" + image.w + "x" + image.h + ")" +
                   (q.markers_from ? "; markers " + q.markers_from : ""), marks);
      });
      add(images, add(fig, f, el("figcaption", null, image.key)));
    });
    if (q.note) add(images, el("p", "note", q.note));
    if (q.markers_from && q.images && q.images.length) add(images, el("p", "caption", "markers " + q.markers_from));
    var text = add(el("div", "text"), el("p", "question", q.text || ""));
    if (q.choices) {
      var list = el("ol", "choices");
      q.choices.forEach(function (c, k) {
        var letter = String.fromCharCode(65 + k), li = el("li", letter === q.gold ? "gold" : null);
        add(li, el("span", "letter", "(" + letter + ")"), el("span", null, " " + c));
        var who = [];
        q.answers.forEach(function (a, s) { if (a && a.pred === letter) who.push(short(SYSTEMS[s])); });
        if (who.length) add(li, el("span", "who", who.join(", ")));
        add(list, li);
      });
      add(text, list);
    }
    add(body, images, text);
    var table = el("table", "answers");
    add(table, add(el("tr"), el("th", null, "system"), el("th", null, "choice"), el("th", null, ""),
                   el("th", null, "status"), el("th", null, "time"), el("th", null, "why")));
    q.answers.forEach(function (a, s) { if (a) add(table, answerRow(q, a, s, eager)); });
    return add(card, body, table);
  }

  // ---- counts, pager, render
  function report() {
    status.setAttribute("data-requested", counters.requested);
    status.setAttribute("data-loaded", counters.loaded);
    status.setAttribute("data-failed", counters.failed);
  }
  function counts(shown) {
    var n = document.getElementById("count-shown");
    n.textContent = shown.length; n.setAttribute("data-count", shown.length);
    document.getElementById("count-total").textContent = QUESTIONS.length;
    var byTask = {}, tasks = document.getElementById("task-counts");
    shown.forEach(function (i) { byTask[QUESTIONS[i].task] = (byTask[QUESTIONS[i].task] || 0) + 1; });
    tasks.textContent = "";
    DATA.tasks.forEach(function (t) {
      var chip = el("span", "chip", t + ": " + (byTask[t] || 0));
      chip.setAttribute("data-task", t); chip.setAttribute("data-count", byTask[t] || 0);
      add(tasks, chip);
    });
    var box = document.getElementById("system-counts"), table = el("table", "system-counts");
    box.textContent = "";
    add(table, add(el("tr"), el("th", null, "on the questions shown"), el("th", null, "right"),
                   el("th", null, "wrong"), el("th", null, "not answered"), el("th", null, "accuracy %")));
    SYSTEMS.forEach(function (sys, s) {
      var right = 0, wrong = 0, missing = 0;
      shown.forEach(function (i) { var ok = FLAGS[i].ok[s]; if (ok === true) right++; else if (ok === false) wrong++; else missing++; });
      var tr = add(el("tr"), el("th", null, sys.name), el("td", null, right), el("td", null, wrong), el("td", null, missing),
                   el("td", null, right + wrong ? pct(right / (right + wrong)) : "-"));
      tr.setAttribute("data-system", s); tr.setAttribute("data-right", right); tr.setAttribute("data-wrong", wrong);
      add(table, tr);
    });
    add(box, table);
  }
  function pager(id, page, pages) {
    var nav = document.getElementById(id);
    nav.textContent = "";
    var go = function (p) { return function () { var s = readState(); s.page = p; writeState(s); }; };
    var prev = el("button", null, "previous"), next = el("button", null, "next");
    prev.disabled = page <= 1; next.disabled = page >= pages;
    prev.addEventListener("click", go(page - 1)); next.addEventListener("click", go(page + 1));
    add(nav, prev, el("span", "page", "page " + page + " of " + pages), next);
  }
  function render() {
    var state = readState();
    filters(state);
    var shown = [];
    for (var i = 0; i < QUESTIONS.length; i++) if (matches(i, state)) shown.push(i);
    counts(shown);
    var pages = Math.max(1, Math.ceil(shown.length / PAGE_SIZE)), page = Math.min(state.page, pages);
    pager("pager-top", page, pages); pager("pager-bottom", page, pages);
    var main = document.getElementById("questions");
    main.textContent = "";
    shown.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).forEach(function (k) { add(main, questionCard(k, state.eager)); });
    if (!shown.length) add(main, el("p", "empty", "no question matches these filters"));
    if (state.open) {
      var asked = QUESTIONS.findIndex(function (q) { return q.idx === state.open; });
      if (asked >= 0) openFirstImage(QUESTIONS[asked]);
    }
    report();
    if (status.getAttribute("data-ready") === "0") {
      status.setAttribute("data-render-ms", (performance.now() - started).toFixed(1));
      status.setAttribute("data-ready", "1");
    }
  }
  summary();
  window.addEventListener("hashchange", render);
  render();
})();
