// contractor view: the page's script. Everything it needs comes from this server:
// the class list (/api/classes), live events (/api/events, server-sent events), the
// diagram (SVG drawn by Graphviz on the server), source text and exports.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
};

// Everything the page knows about the current run.
const view = {
  run: null,
  target: null,
  className: "",
  source: "",
  tips: {},               // SVG element id -> tooltip text
  edges: {},              // SVG element id -> {source, target}
  transitions: 0,
  states: 0,
  running: false,
  zoom: { scale: 1, x: 0, y: 0, moved: false },
  selected: null,
  hasDiagram: false,
};

// ---- the class chooser -------------------------------------------------------------
async function loadClasses() {
  const list = $("#class-list");
  try {
    const data = await (await fetch("/api/classes")).json();
    list.replaceChildren();
    if (!data.classes.length) list.append(el("li", { class: "muted" }, "no class with contracts or raise guards here"));
    for (const c of data.classes) {
      const item = el("button", { class: "class-item", type: "button", "data-target": c.target, title: c.target,
        onclick: () => analyse(c.target) }, c.name, el("small", {}, `${c.path}:${c.line}`));
      const badges = el("small", {});
      for (const e of c.evidence) badges.append(el("span", { class: "badge" }, e));
      item.append(badges);
      list.append(el("li", {}, item));
    }
    markActive();
  } catch (err) {
    list.replaceChildren(el("li", { class: "muted" }, `cannot list classes: ${err}`));
  }
}

function filterClasses() {
  const needle = $("#class-filter").value.toLowerCase();
  for (const item of document.querySelectorAll(".class-item")) {
    item.parentElement.hidden = needle && !item.dataset.target.toLowerCase().includes(needle);
  }
}

function markActive() {
  for (const item of document.querySelectorAll(".class-item")) {
    item.classList.toggle("active", item.dataset.target === view.target);
  }
}

async function analyse(target) {
  const response = await fetch("/api/run", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ target }) });
  if (!response.ok) setProgress(`cannot start: ${(await response.json()).error}`, "failed");
}

// ---- events -----------------------------------------------------------------------
function connect() {
  const source = new EventSource("/api/events");
  source.onmessage = (message) => queue(JSON.parse(message.data));
}

// Events are applied in batches, once per animation frame: a big class sends thousands
// of transitions, and one DOM update per event would freeze the page.
let pending = [];
function queue(ev) {
  pending.push(ev);
  if (pending.length === 1) requestAnimationFrame(flush);
}

function flush() {
  const batch = pending;
  pending = [];
  const lastDiagram = batch.map((ev) => ev.type).lastIndexOf("diagram");
  batch.forEach((ev, n) => { if (ev.type !== "diagram" || n === lastDiagram) handle(ev); });
  flushRows();
}

// Table rows wait in fragments until the end of the batch; beyond ROW_LIMIT rows a table
// says how many it leaves out (the exports have them all).
const ROW_LIMIT = 1000;
const rows = { states: null, transitions: null };
function addRow(table, row, total, flash) {
  if (total > ROW_LIMIT) return;
  if (!rows[table]) rows[table] = document.createDocumentFragment();
  if (flash && total <= 200) row.classList.add("new");
  rows[table].append(row);
}

function clearRows() {
  rows.states = rows.transitions = null;
  $("#states tbody").replaceChildren();
  $("#transitions tbody").replaceChildren();
}

function flushRows() {
  for (const table of ["states", "transitions"]) {
    const body = $(`#${table} tbody`);
    if (rows[table]) body.append(rows[table]);
    rows[table] = null;
    const total = table === "states" ? view.states : view.transitions;
    let more = body.querySelector("tr.more");
    if (total > ROW_LIMIT) {
      if (!more) more = el("tr", { class: "more" }, el("td", { colspan: 5 }));
      more.firstChild.textContent = `… and ${total - ROW_LIMIT} more (export JSON for all)`;
      body.append(more);
    } else if (more) more.remove();
  }
}

function handle(ev) {
  if (ev.type === "run") return startRun(ev);
  if (ev.run !== view.run) return;  // a stopped run's last words
  const handlers = { model: onModel, state: onState, init: onInit, transition: onTransition, progress: onProgress,
    diagram: onDiagram, done: onDone, error: onError, stopping: () => setProgress("stopping…", "running") };
  (handlers[ev.type] || (() => {}))(ev);
}

function startRun(ev) {
  Object.assign(view, { run: ev.run, target: ev.target, className: "", source: "", tips: {}, edges: {},
    transitions: 0, states: 0, running: true, selected: null, hasDiagram: false });
  view.zoom.moved = false;
  document.body.dataset.status = "running";
  $("#class-title").textContent = ev.target;
  clearRows();
  $("#canvas").replaceChildren();
  $("#canvas").dataset.redraws = 0;
  $("#diagram-empty").hidden = false;
  setIssues("#findings", [], "#finding-count");
  setIssues("#unknowns", [], "#unknown-count");
  setAlways([]);
  $("#stop").disabled = false;
  setExports(false);
  updateCounts();
  setProgress(ev.reason === "chosen" ? "reading the class…" : `${ev.reason}: analysing again…`, "running");
  markActive();
}

function onModel(ev) {
  view.className = ev.class;
  view.source = ev.source;
  $("#class-title").textContent = `${ev.class} (${ev.source})`;
  setProgress("exploring…", "running");
}

function onState(ev) {
  view.tips[ev.element] = ev.tooltip;
  view.states += 1;
  addStateRow(ev.id, ev.enabled, "", false, view.states, true);
  updateCounts();
}

function onInit(ev) {
  view.tips[ev.element] = ev.tooltip;
  view.edges[ev.element] = { source: null, target: ev.target };
}

function onTransition(ev) {
  view.tips[ev.element] = ev.tooltip;
  view.edges[ev.element] = { source: ev.source, target: ev.target };
  view.transitions += 1;
  addTransitionRow(ev, ev.index, true);
  updateCounts();
}

function onProgress(ev) {
  if (view.running) setProgress(`exploring… ${ev.states} states, ${ev.transitions} transitions, ${ev.seconds} s`, "running");
}

function onError(ev) {
  view.running = false;
  document.body.dataset.status = "failed";
  $("#stop").disabled = true;
  setProgress(ev.message, "failed");
}

function onDone(ev) {
  const ts = ev.typestate;
  view.running = false;
  view.tips = ev.tooltips;
  view.className = ts.class;
  view.source = ts.source;
  clearRows();
  ts.states.forEach((s, n) => addStateRow(s.id, marked(s), s.invariant, s.initial, n + 1, false));
  ts.transitions.forEach((t, n) => addTransitionRow(t, n, false));
  view.states = ts.states.length;
  view.transitions = ts.transitions.length;
  updateCounts();
  setIssues("#findings", ts.findings.map(findingItem), "#finding-count");
  setIssues("#unknowns", ts.unknowns.map(unknownItem), "#unknown-count");
  setAlways(ev.always_enabled);
  $("#stop").disabled = true;
  setExports(true);
  const may = ts.transitions.filter((t) => t.certainty === "may").length;
  const what = `${ts.states.length} states, ${ts.transitions.length} transitions (${may} may)`;
  setProgress(ev.status === "done" ? `done: ${what} in ${ev.seconds} s`
    : `stopped: PARTIAL, ${what} found in ${ev.seconds} s`, ev.status);
  document.body.dataset.status = ev.status;
}

// ---- tables and lists -------------------------------------------------------------
// a state's enabled methods, an undecided one (may be enabled) as `m?`
function marked(s) {
  const undecided = new Set(s.undecided || []);
  return s.enabled.map((m) => (undecided.has(m) ? `${m}?` : m));
}

function addStateRow(id, enabled, invariant, initial, n, flash) {
  const row = el("tr", { id: `row-state-${id}`, onclick: () => select(id) },
    el("td", {}, id + (initial ? " (initial)" : "")),
    el("td", {}, enabled.length ? enabled.join(", ") : "none (stuck)"),
    el("td", {}, el("code", {}, invariant || "…")));
  addRow("states", row, n, flash);
}

function addTransitionRow(t, index, flash) {
  const detail = t.certainty === "may" ? (t.reason || "undecided") : witnessText(t.witness, t.method);
  const row = el("tr", { id: `row-transition-${index}`, onclick: () => select(t.source) },
    el("td", {}, t.source), el("td", {}, t.method), el("td", {}, t.target),
    el("td", { class: t.certainty }, t.certainty), el("td", { class: "witness" }, detail));
  addRow("transitions", row, index + 1, flash);
}

function value(v) {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return `'${v}'`;
  if (Array.isArray(v)) return `[${v.map(value).join(", ")}]`;
  if (v && typeof v === "object" && Object.keys(v).length === 1 && "__float__" in v) return `float('${v.__float__}')`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `'${k}': ${value(x)}`).join(", ")}}`;
  return String(v);
}

function assignments(obj) {
  return Object.entries(obj || {}).map(([k, v]) => `${k}=${value(v)}`).join(", ");
}

function witnessText(w, method) {
  if (!w) return "";
  const parts = [];
  if (w.fields) parts.push(`before: ${assignments(w.fields)}`);
  parts.push(`${method}(${assignments(w.args)})`);
  if (w.after && w.fields) {
    const changed = Object.fromEntries(Object.entries(w.after).filter(([k, v]) => JSON.stringify(w.fields[k]) !== JSON.stringify(v)));
    parts.push(`changed: ${assignments(changed) || "nothing"}`);
  } else if (w.after) parts.push(`after: ${assignments(w.after)}`);
  return parts.join("; ");
}

function lineLink(line) {
  return el("a", { href: `#L${line}`, class: "line-link", onclick: (e) => { e.preventDefault(); showSource(line); } },
    `line ${line}`);
}

function findingItem(f) {
  const item = el("li", {}, el("span", { class: "badge" }, f.kind), " ", f.message);
  if (f.counterexample) item.append(el("div", { class: "muted" }, `counterexample: ${witnessText(f.counterexample, f.method || "call")}`));
  if (f.line) item.append(" ", lineLink(f.line));
  if (f.state) {
    item.append(" ", el("a", { href: `#state-${f.state}`, class: "state-link",
      onclick: (e) => { e.preventDefault(); select(f.state); } }, `state ${f.state}`));
  }
  return item;
}

function unknownItem(u) {
  return el("li", {}, el("code", {}, u.construct), ` in ${u.method}${u.detail ? `: ${u.detail}` : ""} `, lineLink(u.line));
}

function setIssues(sel, items, countSel) {
  const list = $(sel);
  list.replaceChildren(...(items.length ? items : [el("li", { class: "muted" }, "none")]));
  $(countSel).textContent = items.length;
}

function setAlways(methods) {
  for (const node of document.querySelectorAll(".always-list")) node.textContent = methods.length ? methods.join(", ") : "none";
}

function updateCounts() {
  $("#state-count").textContent = view.states;
  $("#transition-count").textContent = view.transitions;
}

function setProgress(text, status) {
  const line = $("#progress");
  line.textContent = text;
  line.className = `progress ${status || ""}`;
}

function setExports(on) {
  for (const link of document.querySelectorAll("a.export")) link.classList.toggle("disabled", !on);
  $("#export-png").disabled = !on;
}

async function showSource(line) {
  const pre = $("#source");
  const response = await fetch(`/api/source?path=${encodeURIComponent(view.source)}`);
  if (!response.ok) { pre.textContent = `cannot show ${view.source}`; return; }
  const lines = (await response.text()).split("\n");
  pre.classList.remove("muted");
  pre.replaceChildren(...lines.map((text, n) => el("span", { class: `line${n + 1 === line ? " target" : ""}`,
    id: `L${n + 1}`, "data-n": n + 1 }, text)));
  $("#source-name").textContent = `${view.source}:${line}`;
  const target = document.getElementById(`L${line}`);
  if (target) target.scrollIntoView({ block: "center" });
}

// ---- the diagram: insertion, selection, tooltips ------------------------------------
function onDiagram(ev) {
  const canvas = $("#canvas");
  canvas.innerHTML = ev.svg;
  const svg = canvas.querySelector("svg");
  if (!svg) return;
  // Our tooltips replace the browser's (Graphviz writes <title> and xlink:title).
  for (const title of svg.querySelectorAll("title")) title.remove();
  for (const a of svg.querySelectorAll("a")) a.removeAttribute("xlink:title");
  view.hasDiagram = true;
  canvas.dataset.redraws = Number(canvas.dataset.redraws || 0) + 1;
  $("#diagram-empty").hidden = true;
  $("#export-svg").classList.remove("disabled");
  if (!view.zoom.moved) fit(); else applyZoom();
  if (view.selected) select(view.selected);
}

function select(stateId) {
  view.selected = stateId;
  const canvas = $("#canvas");
  for (const node of canvas.querySelectorAll(".selected, .hl")) node.classList.remove("selected", "hl");
  for (const row of document.querySelectorAll("tr.hl")) row.classList.remove("hl");
  const node = document.getElementById(`state-${stateId}`);
  if (node) node.classList.add("selected");
  for (const [id, edge] of Object.entries(view.edges)) {
    if (edge.source !== stateId && edge.target !== stateId) continue;
    const g = document.getElementById(id);
    if (g) g.classList.add("hl");
    const row = document.getElementById(`row-${id}`);
    if (row) row.classList.add("hl");
  }
  const row = document.getElementById(`row-state-${stateId}`);
  if (row) { row.classList.add("hl"); row.scrollIntoView({ block: "nearest" }); }
}

function setupDiagramEvents() {
  const canvas = $("#canvas");
  const tip = $("#tooltip");
  canvas.addEventListener("mousemove", (e) => {
    const g = e.target.closest("g.node, g.edge");
    const text = g && view.tips[g.id];
    if (!text) { tip.hidden = true; return; }
    tip.textContent = text;
    tip.hidden = false;
    const x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    const y = Math.min(e.clientY + 14, window.innerHeight - tip.offsetHeight - 8);
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  });
  canvas.addEventListener("mouseleave", () => { tip.hidden = true; });
  canvas.addEventListener("click", (e) => {
    if (view.zoom.dragged) return;
    const g = e.target.closest("g.node, g.edge");
    if (!g) return;
    if (g.classList.contains("node") && g.id.startsWith("state-")) select(g.id.slice("state-".length));
    else if (view.edges[g.id] && view.edges[g.id].source) select(view.edges[g.id].source);
  });
}

// ---- zoom and pan -----------------------------------------------------------------
function naturalSize() {
  const svg = $("#canvas svg");
  if (!svg) return null;
  const box = svg.viewBox.baseVal;
  const toPx = (attr, fallback) => {
    const raw = svg.getAttribute(attr) || "";
    const n = parseFloat(raw);
    if (!n) return fallback;
    return raw.endsWith("pt") ? n * 4 / 3 : n;
  };
  return { width: toPx("width", box.width), height: toPx("height", box.height) };
}

function applyZoom() {
  const { scale, x, y } = view.zoom;
  const canvas = $("#canvas");
  canvas.style.transform = `translate(${x}px, ${y}px) scale(${scale})`;
  canvas.dataset.scale = scale.toFixed(3);
  $("#zoom-level").textContent = `${Math.round(scale * 100)}%`;
}

function fit() {
  const size = naturalSize();
  const box = $("#diagram").getBoundingClientRect();
  if (!size || !box.width) return;
  const pad = 16;
  const scale = Math.min((box.width - 2 * pad) / size.width, (box.height - 2 * pad) / size.height, 2);
  view.zoom.scale = Math.max(scale, 0.05);
  view.zoom.x = (box.width - size.width * view.zoom.scale) / 2;
  view.zoom.y = (box.height - size.height * view.zoom.scale) / 2;
  applyZoom();
}

function zoomAt(factor, cx, cy) {
  const z = view.zoom;
  const scale = Math.min(Math.max(z.scale * factor, 0.05), 10);
  z.x = cx - (cx - z.x) * (scale / z.scale);
  z.y = cy - (cy - z.y) * (scale / z.scale);
  z.scale = scale;
  z.moved = true;
  applyZoom();
}

function zoomCentre(factor) {
  const box = $("#diagram").getBoundingClientRect();
  zoomAt(factor, box.width / 2, box.height / 2);
}

function setupZoom() {
  const diagram = $("#diagram");
  diagram.addEventListener("wheel", (e) => {
    e.preventDefault();
    const box = diagram.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });
  let drag = null;
  diagram.addEventListener("mousedown", (e) => {
    if (e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, zx: view.zoom.x, zy: view.zoom.y };
    view.zoom.dragged = false;
  });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (!view.zoom.dragged && Math.hypot(dx, dy) < 4) return;
    view.zoom.dragged = true;
    diagram.classList.add("dragging");
    view.zoom.x = drag.zx + dx;
    view.zoom.y = drag.zy + dy;
    view.zoom.moved = true;
    applyZoom();
  });
  window.addEventListener("mouseup", () => {
    drag = null;
    diagram.classList.remove("dragging");
    setTimeout(() => { view.zoom.dragged = false; }, 0);
  });
  $("#zoom-in").addEventListener("click", () => zoomCentre(1.25));
  $("#zoom-out").addEventListener("click", () => zoomCentre(0.8));
  $("#zoom-fit").addEventListener("click", () => { view.zoom.moved = false; fit(); });
  $("#zoom-reset").addEventListener("click", () => { Object.assign(view.zoom, { scale: 1, x: 0, y: 0, moved: true }); applyZoom(); });
  window.addEventListener("resize", () => { if (!view.zoom.moved) fit(); });
}

// ---- PNG export: the SVG drawn onto a canvas in the page -----------------------------
async function exportPng() {
  const svg = $("#canvas svg");
  const size = naturalSize();
  if (!svg || !size) return;
  const copy = svg.cloneNode(true);
  copy.setAttribute("width", size.width);
  copy.setAttribute("height", size.height);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const text = new XMLSerializer().serializeToString(copy);
  const image = new Image();
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  await image.decode();
  const scale = 2;
  const canvas = el("canvas", { width: Math.ceil(size.width * scale), height: Math.ceil(size.height * scale) });
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "white";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.scale(scale, scale);
  ctx.drawImage(image, 0, 0, size.width, size.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  const link = el("a", { href: URL.createObjectURL(blob), download: `${view.className || "typestate"}.typestate.png` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// ---- start ------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("#class-filter").addEventListener("input", filterClasses);
  $("#target-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const target = $("#target-input").value.trim();
    if (target) analyse(target);
  });
  $("#stop").addEventListener("click", () => fetch("/api/stop", { method: "POST" }));
  $("#export-png").addEventListener("click", exportPng);
  setupZoom();
  setupDiagramEvents();
  applyZoom();
  loadClasses();
  connect();
});
