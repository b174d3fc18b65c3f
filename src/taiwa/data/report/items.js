// taiwa report: the item view (issue 43). Plain JavaScript, no library, no network.
// The runs' items are one gzip-compressed JSON document (base64) in <script id="taiwa-items">,
// decoded by the browser's DecompressionStream. Per run: columns for the list (metric values,
// state bits, flags, splits; one array per system) and one JSON string per item, parsed only
// when the item is opened. Every text from data goes in as a text node (never as markup).
// Deep links: report.html#RUN/ITEM opens one item.
(function () {
  "use strict";
  const BIT = { present: 1, failed: 2, skipped: 4, repaired: 8, imputed: 16, flagged: 32 };
  const STATES = ["failed", "repaired", "imputed", "flagged"];
  const PAGE = 200;
  const views = {};

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "cls") node.className = v;
      else if (k === "on") for (const [ev, f] of Object.entries(v)) node.addEventListener(ev, f);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  function num(v, binary) {
    if (v === null || v === undefined) return "–";
    if (binary) return v >= 1 ? "✓" : "✗";
    if (Number.isInteger(v)) return String(v);
    return String(Math.round(v * 1000) / 1000);
  }

  function option(value, label, selected) {
    return el("option", { value: value, selected: selected || null }, label);
  }

  function select(name, label, items) {
    const s = el("select", { "data-f": name, "aria-label": label });
    for (const [value, text] of items) s.append(option(value, text));
    return el("label", { cls: "f" }, label + " ", s);
  }

  // ---------------------------------------------------------------- blocks
  function marked(text, marks) {
    if (!marks || !marks.length) return [text];
    const out = [];
    let at = 0;
    for (const [s, e, m] of [...marks].sort((a, b) => a[0] - b[0])) {
      if (s < at) continue;
      if (s > at) out.push(text.slice(at, s));
      out.push(el("mark", { cls: "m-" + m, "data-mark": m }, text.slice(s, e)));
      at = e;
    }
    if (at < text.length) out.push(text.slice(at));
    return out;
  }

  function block(b) {
    const title = el("div", { cls: "blk-t" }, b.t);
    if (b.k === "text") {
      return el("div", { cls: "blk", "data-kind": "text" }, title,
        b.x ? el("div", { cls: "blk-x" }, marked(b.x, b.m)) : null);
    }
    if (b.k === "turns") {
      const notes = b.turns.some((t) => t[2]);
      const rows = b.turns.map(([who, text, note, marks, mark]) =>
        el("tr", { cls: mark ? "m-" + mark : null, "data-mark": mark || null },
          el("td", { cls: "who" }, who), el("td", { cls: "l pre" }, marked(text, marks)),
          notes ? el("td", { cls: "note" }, note) : null));
      return el("div", { cls: "blk", "data-kind": "turns" }, title,
        el("table", { cls: "ev" }, el("tbody", {}, rows)));
    }
    if (b.k === "table") {
      const head = el("tr", {}, b.head.map((h) => el("th", {}, h)));
      const rows = b.rows.map((r, i) =>
        el("tr", { cls: b.marks[i] ? "m-" + b.marks[i] : null, "data-mark": b.marks[i] || null },
          r.map((c) => el("td", { cls: "l" }, c))));
      return el("div", { cls: "blk", "data-kind": "table" }, title,
        el("table", { cls: "ev" }, el("thead", {}, head), el("tbody", {}, rows)),
        b.cap ? el("div", { cls: "muted" }, b.cap) : null);
    }
    if (b.k === "align") {
      const cell = (c, text) => el("td", { cls: "m-" + c[0], "data-op": c[0] }, text);
      const rows = [
        el("tr", {}, el("th", {}, b.top), b.cols.map((c) => cell(c, c[1] || "—"))),
        el("tr", {}, el("th", {}, b.bottom), b.cols.map((c) => cell(c, c[2] || "—"))),
        el("tr", {}, el("th", {}, "edit"), b.cols.map((c) => cell(c, c[0]))),
        el("tr", { cls: "cost" }, el("th", {}, "cost"),
          b.cols.map((c) => el("td", { cls: "m-" + c[0], "data-op": c[0], "data-cost": c[3] },
            num(c[3])))),
      ];
      const totals = b.totals.map(([k, v]) => el("span", { cls: "m-" + k, "data-total": k,
        "data-value": v }, `${k} ${num(v)}`));
      return el("div", { cls: "blk", "data-kind": "align" }, title,
        el("div", { cls: "table" }, el("table", { cls: "ev align" }, el("tbody", {}, rows))),
        el("div", { cls: "muted" }, "recorded breakdown: ", totals.flatMap((t, i) =>
          i ? [" · ", t] : [t])));
    }
    return el("div", { cls: "blk" }, title, JSON.stringify(b));
  }

  function calls(list) {
    if (!list || !list.length) return null;
    return el("ul", { cls: "calls" }, list.map(([stage, attempts, cached, tin, tout, retries]) =>
      el("li", { "data-stage": stage }, `${stage}: ${cached ? "cached" : "called"}, `
        + `${attempts} attempt${attempts === 1 ? "" : "s"}, tokens `
        + (tin === null ? "not counted" : `${tin} in / ${tout} out`)
        + `, ${retries} retr${retries === 1 ? "y" : "ies"}`)));
  }

  // ---------------------------------------------------------------- one item
  async function unpack(text) {
    const bin = atob(text.trim());
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  async function itemDoc(v, i) {
    const k = Math.floor(i / v.run.chunk);
    if (!v.chunks[k]) {
      const node = document.querySelector(
        `script.taiwa-item-chunk[data-run="${CSS.escape(v.run.key)}"][data-chunk="${k}"]`);
      v.chunks[k] = unpack(node.textContent).then((text) => JSON.parse(text));
    }
    return (await v.chunks[k])[i - k * v.run.chunk];
  }

  async function detail(v, i) {
    const run = v.run;
    const d = await itemDoc(v, i);
    const id = run.ids[i];
    const parts = [el("h5", {}, "item ", el("code", {}, id), " ",
      el("a", { href: "#" + encodeURIComponent(run.key) + "/" + encodeURIComponent(id),
        cls: "muted" }, "link"))];
    parts.push(...d.item.map(block));
    if (d.prompt.length) {
      parts.push(el("details", { cls: "prompt" }, el("summary", {}, "prompt the systems were asked",
        run.prompt_note ? el("span", { cls: "muted" }, ` (${run.prompt_note})`) : null),
        d.prompt.map(([role, text]) => el("div", { cls: "msg" }, el("b", {}, role + ": "),
          el("span", { cls: "pre" }, text)))));
    }
    run.systems.forEach((name, k) => {
      const s = d.sys[name];
      if (!s) return;
      const bits = run.st[k][i];
      const marks = STATES.filter((st) => bits & BIT[st]).concat(bits & BIT.skipped ? ["skipped"] : []);
      const vals = run.metrics.map((m) => `${m.label} ${num(run.m[m.name][k][i], m.binary)}`);
      const groups = run.splits.map((sp) => {
        const g = run.sp[sp.name][k][i];
        return g < 0 ? null : `${sp.label}: ${sp.values[g]}`;
      }).filter((x) => x);
      const flags = run.flags.filter((f, b) => run.fl[k][i] & (1 << b)).map((f) => f.text);
      parts.push(el("div", { cls: "sys", "data-system": name },
        el("h6", {}, name, " ", marks.map((m) => el("span", { cls: "st st-" + m }, m))),
        vals.length || groups.length ? el("div", { cls: "muted" }, [...vals, ...groups].join(" · ")) : null,
        s.reply !== null ? el("div", { cls: "reply pre" }, s.reply) : null,
        s.error ? el("div", { cls: "err" }, s.error) : null,
        flags.length ? el("ul", { cls: "flags" }, flags.map((f) => el("li", {}, "⚑ " + f))) : null,
        s.blocks.map(block), calls(s.calls)));
    });
    parts.push(...d.across.map(block));
    if (d.calls.length) parts.push(el("div", { cls: "blk-t" }, "calls across systems"), calls(d.calls));
    v.detail.replaceChildren(...parts);
    v.detail.dataset.item = id;
  }

  // ---------------------------------------------------------------- the list
  function value(v, k, i) {
    const m = v.metric;
    return m ? v.run.m[m.name][k][i] : null;
  }

  function passes(v, f, k, i) {
    const run = v.run;
    const bits = run.st[k][i];
    if (!(bits & BIT.present)) return false;
    for (const st of STATES) if (f[st] && !(bits & BIT[st])) return false;
    if (v.metric && (f.lo !== null || f.hi !== null)) {
      const x = value(v, k, i);
      if (x === null || (f.lo !== null && x < f.lo) || (f.hi !== null && x > f.hi)) return false;
    }
    if (f.flag) {
      const bit = run.flags.findIndex((x) => x.code === f.flag);
      if (!(run.fl[k][i] & (1 << bit))) return false;
    }
    for (const sp of run.splits) {
      const want = f["split:" + sp.name];
      if (want !== "" && run.sp[sp.name][k][i] !== Number(want)) return false;
    }
    return true;
  }

  function diff(v, a, b, i) {
    const x = value(v, a, i), y = value(v, b, i);
    if (x === null || y === null) return null;
    return (x - y) * (v.metric.dir === "lower" ? -1 : 1);
  }

  function relation(v, f, i) {
    if (!f.rel || !v.metric) return true;
    const a = v.sysIndex[f.a], b = v.sysIndex[f.b];
    if (a === undefined || b === undefined) return true;
    const x = value(v, a, i), y = value(v, b, i);
    if (x === null || y === null) return false;
    const d = diff(v, a, b, i);
    if (f.rel === "a-better") return d > 0;
    if (f.rel === "b-better") return d < 0;
    if (f.rel === "same") return d === 0;
    if (f.rel === "a-wrong-b-right") return x === 0 && y === 1;
    if (f.rel === "a-right-b-wrong") return x === 1 && y === 0;
    return true;
  }

  function read(v) {
    const f = {};
    for (const c of v.controls.querySelectorAll("[data-f]")) {
      f[c.dataset.f] = c.type === "checkbox" ? c.checked : c.value;
    }
    f.lo = f.lo === "" || f.lo === undefined ? null : Number(f.lo);
    f.hi = f.hi === "" || f.hi === undefined ? null : Number(f.hi);
    return f;
  }

  function refresh(v) {
    const run = v.run, f = read(v);
    v.metric = run.metrics.find((m) => m.name === f.metric) || null;
    const lanes = f.system === "" ? run.systems.map((_, k) => k) : [v.sysIndex[f.system]];
    const text = (f.q || "").trim().toLowerCase();
    const keep = [];
    for (let i = 0; i < run.ids.length; i++) {
      if (text && !run.ids[i].toLowerCase().includes(text)
          && !run.titles[i].toLowerCase().includes(text)) continue;
      if (!lanes.some((k) => passes(v, f, k, i))) continue;
      if (!relation(v, f, i)) continue;
      keep.push(i);
    }
    const a = v.sysIndex[f.a], b = v.sysIndex[f.b];
    const key = (i) => {
      if (f.sort === "score") return value(v, lanes[0], i);
      if (f.sort === "diff" && v.metric && a !== undefined && b !== undefined) return diff(v, a, b, i);
      return null;
    };
    if (f.sort !== "order" && v.metric) {
      const sign = f.dir === "asc" ? 1 : -1;
      keep.sort((i, j) => {
        const x = key(i), y = key(j);
        if (x === null || y === null) return (x === null) - (y === null) || i - j;
        return sign * (x - y) || i - j;
      });
    }
    v.order = keep;
    v.shown = PAGE;
    v.filter = f;
    list(v);
  }

  function list(v) {
    const run = v.run, f = v.filter;
    const a = v.sysIndex[f.a], b = v.sysIndex[f.b];
    const compare = v.metric && a !== undefined && b !== undefined && a !== b;
    const head = el("tr", {}, el("th", {}, "item"), el("th", { cls: "l" }, "item text"),
      run.systems.map((s) => el("th", {}, s)), compare ? el("th", {}, `${f.a} − ${f.b}`) : null);
    const rows = v.order.slice(0, v.shown).map((i) => {
      const id = run.ids[i];
      const cells = run.systems.map((s, k) => {
        const bits = run.st[k][i];
        if (!(bits & BIT.present)) return el("td", {}, "");
        const marks = [bits & BIT.failed ? "✗" : "", bits & BIT.repaired ? "↻" : "",
          bits & BIT.imputed ? "≈" : "", bits & BIT.flagged ? "⚑" : ""].join("");
        const x = value(v, k, i);
        return el("td", { "data-system": s, "data-value": x === null ? "" : x },
          v.metric ? num(x, v.metric.binary) : "", marks ? el("span", { cls: "st" }, " " + marks) : null);
      });
      const x = compare ? value(v, a, i) : null, y = compare ? value(v, b, i) : null;
      const d = x === null || y === null ? null : x - y;
      return el("tr", { "data-item": id, cls: v.detail.dataset.item === id ? "open" : null },
        el("td", { cls: "l" }, el("a", { href: "#" + encodeURIComponent(run.key) + "/"
          + encodeURIComponent(id) }, id)),
        el("td", { cls: "l t" }, run.titles[i].length > 80 ? run.titles[i].slice(0, 79) + "…"
          : run.titles[i]),
        cells, compare ? el("td", {}, num(d)) : null);
    });
    v.count.textContent = `${v.order.length} of ${run.ids.length} items`
      + (v.order.length > v.shown ? `, the first ${v.shown} listed` : "");
    v.table.replaceChildren(el("thead", {}, head), el("tbody", {}, rows));
    v.more.hidden = v.order.length <= v.shown;
  }

  function setup(div, run) {
    const v = { run: run, div: div, sysIndex: {}, metric: null, order: [], shown: PAGE, chunks: {} };
    run.systems.forEach((s, k) => { v.sysIndex[s] = k; });
    const systems = run.systems.map((s) => [s, s]);
    const c = el("div", { cls: "controls" });
    c.append(select("system", "system", [["", "any"], ...systems]));
    if (run.metrics.length) {
      c.append(select("metric", "metric", run.metrics.map((m) => [m.name, m.label])));
      c.append(el("label", { cls: "f" }, "from ", el("input", { "data-f": "lo", type: "number",
        step: "any", size: 5 })), el("label", { cls: "f" }, "to ", el("input", { "data-f": "hi",
        type: "number", step: "any", size: 5 })));
    }
    for (const st of STATES) {
      c.append(el("label", { cls: "f" }, el("input", { type: "checkbox", "data-f": st }), " " + st));
    }
    if (run.flags.length) {
      c.append(select("flag", "flag", [["", "any"], ...run.flags.map((x) => [x.code, x.text])]));
    }
    for (const sp of run.splits) {
      c.append(select("split:" + sp.name, sp.label, [["", "any"],
        ...sp.values.map((x, k) => [String(k), x])]));
    }
    if (run.metrics.length && run.systems.length > 1) {
      c.append(el("br"));
      c.append(select("a", "A", systems), select("b", "B", systems));
      c.append(select("rel", "show", [["", "all items"], ["a-better", "A better than B"],
        ["b-better", "B better than A"], ["same", "A same as B"],
        ["a-wrong-b-right", "A wrong, B right"], ["a-right-b-wrong", "A right, B wrong"]]));
      c.querySelector('[data-f="b"]').selectedIndex = 1;
    }
    c.append(select("sort", "sort by", [["order", "item order"], ["score", "score (system above)"],
      ...(run.systems.length > 1 ? [["diff", "A − B (paired difference, A ahead first)"]] : [])]));
    c.append(select("dir", "", [["desc", "highest first"], ["asc", "lowest first"]]));
    c.append(el("label", { cls: "f" }, "find ", el("input", { "data-f": "q", type: "search",
      placeholder: "id or text", size: 14 })));
    c.addEventListener("input", () => refresh(v));
    c.addEventListener("change", () => refresh(v));
    v.controls = c;
    v.count = el("p", { cls: "muted count" });
    v.table = el("table", { cls: "items-list" });
    v.more = el("button", { type: "button", on: { click: () => { v.shown += PAGE; list(v); } } },
      `show ${PAGE} more`);
    v.detail = el("div", { cls: "item-detail", id: "item-" + run.key });
    const notes = run.notes.map((n) => el("p", { cls: "muted" }, n));
    div.replaceChildren(c, ...notes, v.count, el("div", { cls: "table" }, v.table), v.more, v.detail);
    views[run.key] = v;
    refresh(v);
  }

  async function route() {
    const hash = decodeURIComponent(location.hash.slice(1));
    const cut = hash.indexOf("/");
    if (cut < 0) return;
    const v = views[hash.slice(0, cut)];
    if (!v) return;
    if (!v.index) v.index = new Map(v.run.ids.map((id, i) => [id, i]));
    const i = v.index.get(hash.slice(cut + 1));
    if (i === undefined) {
      v.detail.replaceChildren(el("p", { cls: "err" }, `no item ${hash.slice(cut + 1)} in this run`));
      return;
    }
    v.detail.dataset.item = v.run.ids[i];
    list(v);
    await detail(v, i);
    v.detail.scrollIntoView();
    window.taiwaItems.opened = v.run.ids[i];
  }

  async function load() {
    const marks = { start: performance.now() };
    const node = document.getElementById("taiwa-items");
    if (!node) return;
    const text = await unpack(node.textContent);
    marks.gunzip = performance.now();
    const data = JSON.parse(text);
    marks.parse = performance.now();
    for (const div of document.querySelectorAll("div.items[data-run]")) {
      if (data[div.dataset.run]) setup(div, data[div.dataset.run]);
    }
    marks.ready = performance.now();
    window.taiwaItems = { ready: marks.ready, marks: marks, views: views, opened: null };
    window.addEventListener("hashchange", () => route().catch(report));
    await route();
  }

  function report(e) { console.error("taiwa item view: " + e); }

  load().catch(report);
})();
