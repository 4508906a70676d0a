// The battle page: draws the session's state (GET /api/sessions/{id}, then server-sent events) and sends the
// GM's clicks to the API. Legal squares and targets are the server's legal list, never worked out here.
"use strict";

const SIDE_COLOURS = ["#3cc850", "#dc3c3c", "#4678e6", "#e6c832"];
const CELL = 34;
const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const sid = params.get("session");
let state = null;          // the last state drawn
let selected = null;       // unit id whose legal decisions are shown (the acting unit, once clicked)
let squareAction = null;   // which action's squares are highlighted
let placing = null;        // unit id being placed by a click on the map
let gmUnit = null;         // the unit of the GM panel

function el(tag, attrs = {}, text = "") {
  const svg = ["svg", "rect", "circle", "text", "g", "line", "title"].includes(tag);
  const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  if (text !== "") e.textContent = text;
  return e;
}

function toast(text, error = false) {
  const t = $("toast");
  if (!text) { t.hidden = true; return; }
  t.textContent = text; t.className = error ? "error" : ""; t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, error ? 9000 : 4000);
}

async function api(path, body, method = "POST") {
  const res = await fetch(path, {method, headers: {"Content-Type": "application/json"},
                                 body: body === undefined ? undefined : JSON.stringify(body)});
  let data = null;
  try { data = await res.json(); } catch (e) { data = {error: res.statusText}; }
  if (!res.ok) {
    toast(`${data.error || res.statusText}` + (data.fix ? `\n(${data.fix})` : ""), true);
    return null;
  }
  return data;
}

async function act(path, body) {
  hideMenu();
  const data = await api(`/api/sessions/${sid}/${path}`, body || {});
  if (data && data.version !== undefined) {
    draw(data, true);
    if (data.messages && data.messages.length) toast(data.messages.map((m) => m.trim()).join("\n"));
  }
  return data;
}

const play = (d) => act("decision", {decision: d});

// ---- the lobby ------------------------------------------------------------------------------------------
async function lobby() {
  $("lobby").hidden = false;
  const list = await api("/api/sessions", undefined, "GET") || [];
  const ul = $("sessions");
  ul.replaceChildren();
  for (const s of list) {
    const li = el("li");
    li.append(el("a", {href: s.url}, `${s.name} (${s.ruleset})`), ` round ${s.round}` + (s.winner ? `, ${s.winner}` : ""));
    ul.append(li);
  }
  if (!list.length) ul.append(el("li", {class: "dim"}, "none yet"));
  $("create").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(ev.target);
    const body = {encounter: f.get("encounter"), npcs: f.get("npcs"), pcs: f.get("pcs"), dice: f.get("dice"),
                  seed: Number(f.get("seed") || 0)};
    const s = await api("/api/sessions", body);
    if (s) location.search = `?session=${s.id}`;
  });
}

// ---- the table --------------------------------------------------------------------------------------------
function connect() {
  const es = new EventSource(`/api/sessions/${sid}/events`);
  es.addEventListener("state", (ev) => { $("link").classList.add("on"); draw(JSON.parse(ev.data)); });
  es.onerror = () => { $("link").classList.remove("on"); };
}

function draw(s, own = false) {
  if (state && s.version < state.version && !own) return;
  const turnChanged = !state || !s.actor || !state.actor || s.actor.id !== state.actor.id || s.round !== state.round;
  const changed = !state || s.version !== state.version;
  state = s;
  if (turnChanged) squareAction = null;
  if (changed) selected = null;  // a decision was played (or the state corrected): click the unit again
  document.title = `${s.name} - Tactician`;
  $("title").textContent = `${s.name}`;
  $("round").textContent = `${s.ruleset.name} - round ${s.round}` + (s.ruleset.phases.length > 1 ? `, ${s.phase}` : "") +
    (s.winner ? ` - ${s.winner === "draw" ? "a draw" : s.winner + " won"}` : "");
  drawMap(); drawTurn(); drawAct(); drawOrder(); drawGM(); drawLog();
}

function sideColour(side) {
  const i = state.sides.indexOf(side);
  return SIDE_COLOURS[(i < 0 ? 0 : i) % SIDE_COLOURS.length];
}

function legalBy() {
  // the legal decisions by square and by target, from the server's list
  const squares = new Map(), targets = new Map(), others = [];
  for (const d of state.legal.decisions) {
    const dec = d.decision;
    if (dec.square) {
      if (squareAction && dec.action !== squareAction) continue;
      const k = dec.square.join(",");
      if (!squares.has(k)) squares.set(k, []);
      squares.get(k).push(d);
    } else if (dec.target !== null) {
      if (!targets.has(dec.target)) targets.set(dec.target, []);
      targets.get(dec.target).push(d);
    } else others.push(d);
  }
  return {squares, targets, others};
}

function squareActions() {
  const seen = [];
  for (const d of state.legal.decisions) if (d.decision.square && !seen.includes(d.action)) seen.push(d.action);
  return seen;
}

function drawMap() {
  const m = state.map, svg = $("map");
  svg.replaceChildren();
  svg.setAttribute("width", m.width * CELL + 24); svg.setAttribute("height", m.height * CELL + 24);
  svg.classList.toggle("placing", placing !== null);
  const g = el("g", {transform: "translate(20,20)"});
  svg.append(g);
  for (let x = 0; x < m.width; x++) g.append(el("text", {x: x * CELL + CELL / 2 - 4, y: -6, fill: "#777"}, String(x)));
  for (let y = 0; y < m.height; y++) g.append(el("text", {x: -18, y: y * CELL + CELL / 2 + 4, fill: "#777"}, String(y)));
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      const kind = m.kinds[m.rows[y][x]];
      g.append(el("rect", {class: `sq t-${kind}`, x: x * CELL, y: y * CELL, width: CELL, height: CELL,
                           "data-x": x, "data-y": y, onclick: () => squareClicked(x, y)}));
    }
  }
  const by = selected !== null ? legalBy() : null;
  if (by) {
    for (const [k, ds] of by.squares) {
      const [x, y] = k.split(",").map(Number);
      g.append(el("rect", {class: "hl", x: x * CELL + 2, y: y * CELL + 2, width: CELL - 4, height: CELL - 4,
                           "data-x": x, "data-y": y, onclick: (ev) => choose(ds, ev)},
                  ));
    }
  }
  const prop = state.proposal;
  if (prop) {
    prop.alternatives.forEach((a, i) => mark(g, a.decision, "alt", String(i + 1)));
    mark(g, prop.decision, "prop", "");
  }
  const drawn = [...state.units].sort((a, b) => (a.down === b.down ? 0 : a.down ? -1 : 1));
  for (const u of drawn) g.append(unitShape(u, by));
}

function mark(g, dec, cls, label) {
  let x = null, y = null;
  if (dec.square) [x, y] = dec.square;
  else if (dec.target !== null) [x, y] = state.units[dec.target].pos;
  else return;
  const inset = cls === "prop" ? 1 : 5;
  g.append(el("rect", {class: cls, x: x * CELL + inset, y: y * CELL + inset, width: CELL - 2 * inset,
                       height: CELL - 2 * inset}));
  if (label) g.append(el("text", {class: "altn", x: x * CELL + 3, y: y * CELL + 11}, label));
}

function unitShape(u, by) {
  const [x, y] = u.pos, cx = x * CELL + CELL / 2, cy = y * CELL + CELL / 2 - 2;
  const grp = el("g", {class: "unit" + (u.down ? " down" : ""), "data-id": u.id, "data-name": u.name,
                       onclick: (ev) => unitClicked(u, ev)});
  grp.append(el("title", {}, `${u.name} (${u.side}) ${Math.max(0, u.hp)}/${u.max_hp} HP`));
  grp.append(el("circle", {class: "body", cx, cy, r: CELL / 2 - 5, fill: sideColour(u.side), stroke: "#000"}));
  grp.append(el("text", {x: cx - 4, y: cy + 5, fill: "#000"}, u.down ? "x" : u.marker));
  if (u.acting) grp.append(el("circle", {class: "ring", cx, cy, r: CELL / 2 - 2}));
  if (by && by.targets.has(u.id)) grp.append(el("circle", {class: "target", cx, cy, r: CELL / 2 - 1}));
  const frac = u.max_hp > 0 ? Math.max(0, Math.min(1, u.hp / u.max_hp)) : 0;
  grp.append(el("rect", {class: "hpbg", x: x * CELL + 4, y: y * CELL + CELL - 5, width: CELL - 8, height: 4}));
  grp.append(el("rect", {class: "hpfg" + (frac <= .25 ? " low" : frac <= .5 ? " mid" : ""), x: x * CELL + 4,
                         y: y * CELL + CELL - 5, width: (CELL - 8) * frac, height: 4}));
  return grp;
}

function unitClicked(u, ev) {
  ev.stopPropagation();
  if (placing !== null) { squareClicked(u.pos[0], u.pos[1]); return; }
  const by = selected !== null ? legalBy() : null;
  if (by && by.targets.has(u.id)) { choose(by.targets.get(u.id), ev); return; }
  if (state.actor && u.id === state.actor.id && ["gm", "proposal"].includes(state.waiting_for)) {
    selected = selected === u.id ? null : u.id;
    if (selected !== null && !squareAction) squareAction = squareActions()[0] || null;
    drawMap(); drawModes();
    return;
  }
  gmUnit = u.id; drawGM();
}

function squareClicked(x, y) {
  if (placing === null) return;
  const uid = placing;
  placing = null;
  act("place", {unit: uid, square: [x, y]});
}

function odds(est) {
  if (!est || !(est.hit_chance || est.expected_damage)) return "";
  return `hit ${Math.round(est.hit_chance * 100)}%, expected damage ${est.expected_damage.toFixed(1)}` +
         (est.kill_chance ? `, kill ${Math.round(est.kill_chance * 100)}%` : "");
}

function choose(ds, ev) {
  if (ev) ev.stopPropagation();
  if (ds.length === 1) { play(ds[0].decision); return; }
  const menu = $("menu");
  menu.replaceChildren();
  for (const d of ds) {
    const o = odds(d.estimate);
    menu.append(el("button", {onclick: () => play(d.decision), title: d.command}, d.text + (o ? ` (${o})` : "")));
  }
  menu.append(el("button", {onclick: hideMenu}, "cancel"));
  menu.style.left = `${(ev && ev.clientX) || 100}px`; menu.style.top = `${(ev && ev.clientY) || 100}px`;
  menu.hidden = false;
}

function hideMenu() { $("menu").hidden = true; }

function drawModes() {
  const box = $("modes");
  box.replaceChildren();
  if (selected === null) {
    if (state.actor && ["gm", "proposal"].includes(state.waiting_for))
      box.append(el("span", {class: "dim"}, `Click ${state.actor.name} on the map for the squares and targets of ` +
                                             `${state.waiting_for === "gm" ? "its" : "another"} decision.`));
    return;
  }
  for (const a of squareActions()) {
    const name = state.legal.decisions.find((d) => d.action === a).name;
    box.append(el("button", {class: a === squareAction ? "on" : "", "data-action": a,
                             onclick: () => { squareAction = a; drawMap(); drawModes(); }}, name));
  }
}

function drawTurn() {
  const box = $("turn"), a = state.actor;
  box.replaceChildren(el("h2", {}, "Acting"));
  if (!a) { box.append(el("div", {class: "dim"}, state.winner ? "The battle is over." : "Nobody is acting.")); return; }
  const bar = el("span", {class: "bar"}); const b = el("b");
  b.style.width = `${Math.max(0, Math.min(100, 100 * a.hp / a.max_hp))}%`; bar.append(b);
  const head = el("div", {class: "row"});
  head.append(el("strong", {style: `color:${sideColour(a.side)}`}, a.name), el("span", {class: "dim"}, a.side), bar,
              `${Math.max(0, a.hp)}/${a.max_hp} HP`);
  box.append(head, el("div", {}, `Left: ${a.left}`));
  if (a.conditions.length) box.append(el("div", {class: "dim"}, a.conditions.join(", ")));
}

function decisionList(ds, label) {
  const ul = el("ul", {class: "decisions"});
  for (const d of ds) {
    const o = odds(d.estimate);
    const li = el("li");
    li.append(el("button", {title: d.command, "data-command": d.command, onclick: () => play(d.decision)},
                 d.text + (o ? `  (${o})` : "") + (d.probability !== undefined ? `  p=${d.probability.toFixed(2)}` : "")));
    ul.append(li);
  }
  if (label) { const wrap = el("div"); wrap.append(el("div", {class: "dim"}, label), ul); return wrap; }
  return ul;
}

function drawAct() {
  const box = $("act");
  box.replaceChildren();
  drawModes();
  const w = state.waiting_for;
  if (w === "question" && state.question.kind === "reaction") {
    // a unit of the GM's side may react (an attack of opportunity): one button an answer, the usual one first
    const q = state.question;
    box.append(el("h2", {}, "Reaction"));
    for (const line of q.shown) box.append(el("div", {class: "dim"}, line));
    if (q.refused) box.append(el("div", {style: "color:var(--bad)"}, q.refused));
    const ask = q.prompt + (q.options.length === 2 ? ": take it?" : ":");
    box.append(el("div", {class: "question", id: "reaction"}, ask));
    const row = el("div", {class: "row", id: "reactions"});
    q.labels.forEach((label, i) => {
      const last = i === q.labels.length - 1;
      const text = q.options.length === 2 ? (last ? "Let it pass" : "Take it") : label;
      row.append(el("button", {class: i === 0 ? "primary" : last ? "warn" : "", "data-choice": i, title: label,
                               onclick: () => act("reaction", {choice: i})}, text));
    });
    box.append(row, el("button", {onclick: () => act("undo")}, "Take it back"));
    return;
  }
  if (w === "question") {
    const q = state.question;
    box.append(el("h2", {}, "Roll"));
    for (const line of q.shown) box.append(el("div", {class: "dim"}, line));
    if (q.refused) box.append(el("div", {style: "color:var(--bad)"}, q.refused));
    const form = el("form", {class: "row", id: "diceform"});
    const input = el("input", {id: "faces", placeholder: "faces: 4, or several: 4 2 6", autocomplete: "off"});
    form.append(el("span", {class: "question"}, q.prompt), input, el("button", {type: "submit", class: "primary"}, "Roll"));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const faces = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
      if (!faces.length || faces.some((f) => !Number.isInteger(f))) { toast("type whole numbers", true); return; }
      act("dice", {faces});
    });
    box.append(form, el("button", {onclick: () => act("undo")}, "Take it back"));
    setTimeout(() => input.focus(), 0);
    return;
  }
  if (w === "over" || !state.actor) {
    box.append(el("h2", {}, "Result"), el("div", {}, state.winner ? (state.winner === "draw" ? "A draw." :
                                                                      `${state.winner} won.`) : "Nobody is acting."));
    return;
  }
  const others = state.legal.decisions.filter((d) => !d.decision.square);
  const squares = squareActions().map((a) => {
    const ds = state.legal.decisions.filter((d) => d.action === a);
    return `${ds[0].word} X Y: ${ds[0].name} (${ds.length} squares)`;
  });
  if (w === "proposal") {
    const p = state.proposal;
    box.append(el("h2", {}, `${p.actor} proposes`));
    box.append(el("div", {class: "question", id: "proposal"}, `${p.text}`),
               el("div", {class: "odds"}, `${p.command}, p=${p.probability.toFixed(2)}` +
                                          (odds(p.estimate) ? `; ${odds(p.estimate)}` : "")));
    for (const t of p.tactics) box.append(el("div", {class: "dim"}, `tactics: ${t}`));
    const row = el("div", {class: "row"});
    row.append(el("button", {class: "primary", id: "accept", onclick: () => act("accept")}, "Accept"),
               el("button", {class: "warn", id: "veto", onclick: () => act("veto")}, "Veto (next best)"));
    box.append(row);
    if (p.alternatives.length) box.append(decisionList(p.alternatives, "Also considered (numbered on the map):"));
    if (p.vetoed.length) box.append(el("div", {class: "dim"}, "Vetoed: " + p.vetoed.map((v) => v.command).join(", ")));
    const more = el("details");
    more.append(el("summary", {}, "Pick another legal decision"), decisionList(others));
    for (const s of squares) more.append(el("div", {class: "dim"}, s + " - click the unit, then a square"));
    box.append(more);
    return;
  }
  box.append(el("h2", {}, `${state.actor.name}'s turn`));
  box.append(decisionList(others));
  for (const s of squares) box.append(el("div", {class: "dim"}, s + " - click the unit, then a square"));
}

function drawOrder() {
  const ol = $("order");
  ol.replaceChildren();
  for (const o of state.order) {
    ol.append(el("li", {class: (o.acting ? "acting" : "") + (o.active ? "" : " out")},
                 `${o.name} (${o.initiative})`));
  }
}

function drawGM() {
  const sel = $("unit");
  if (gmUnit === null || gmUnit >= state.units.length) gmUnit = state.actor ? state.actor.id : 0;
  sel.replaceChildren();
  for (const u of state.units) {
    const o = el("option", {value: u.id}, `${u.marker} ${u.name} ${Math.max(0, u.hp)}/${u.max_hp}` +
                                           (u.dead ? " dead" : u.down ? " down" : ""));
    if (u.id === gmUnit) o.selected = true;
    sel.append(o);
  }
  const u = state.units[gmUnit];
  if (!u) return;
  if (document.activeElement !== $("hp")) $("hp").value = u.hp;
  const conds = $("conds");
  conds.replaceChildren();
  for (const c of u.conditions) {
    const on = c === "down" ? u.down : c === "dead" ? u.dead : !!u.flags[c];
    const box = el("input", {type: "checkbox", "data-condition": c});
    box.checked = on;
    box.addEventListener("change", () => act("condition", {unit: u.id, condition: c, on: box.checked}));
    const label = el("label"); label.append(box, c); conds.append(label);
  }
  const nums = $("numbers");
  nums.replaceChildren();
  for (const [k, v] of Object.entries(u.numbers)) {
    const input = el("input", {type: "number", value: v, style: "width:4em", title: k});
    input.addEventListener("change", () => act("set", {unit: u.id, key: k, value: Number(input.value)}));
    const label = el("label"); label.append(`${k} `, input); nums.append(label);
  }
  const summary = Object.entries(u.summary).filter(([k, v]) => v !== "" && !(Array.isArray(v) && !v.length))
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(", ") : v}`).join("; ");
  nums.append(el("div", {class: "dim"}, summary));
  $("undo").title = state.undo ? `take back: ${state.undo}` : "nothing to undo";
  $("download").href = `/api/sessions/${sid}/save`;
}

function drawLog() {
  const box = $("log");
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 20;
  box.replaceChildren();
  for (const e of state.log) {
    if (e.kind === "title") continue;
    if (e.kind === "block") { const d = el("details"); d.append(el("summary", {class: "dim"}, "map"), el("pre", {}, e.text)); box.append(d); continue; }
    box.append(el("div", {class: e.kind}, e.text));
  }
  if (atEnd) box.scrollTop = box.scrollHeight;
}

function setup() {
  $("table").hidden = false;
  $("unit").addEventListener("change", (ev) => { gmUnit = Number(ev.target.value); drawGM(); });
  $("sethp").addEventListener("click", () => act("hp", {unit: gmUnit, hp: Number($("hp").value)}));
  $("place").addEventListener("click", () => { placing = gmUnit; drawMap();
    toast(`Click the square to put ${state.units[gmUnit].name} on.`); });
  $("undo").addEventListener("click", () => act("undo"));
  $("commandform").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const line = $("command").value.trim();
    if (!line) return;
    if (await act("command", {line})) $("command").value = "";
  });
  document.addEventListener("click", (ev) => { if (!$("menu").contains(ev.target)) hideMenu(); });
  const key = $("key");
  for (const [k, c] of [["wall", "#8d8d8d"], ["low cover", "#7a6128"], ["heavy cover", "#b8902c"],
                        ["difficult", "#1f4a5c"], ["door", "#8c3c8c"], ["open door", "#5a325a"], ["window", "#3c5aa0"]]) {
    const s = el("span"); const i = el("i"); i.style.background = c; s.append(i, k); key.append(s);
  }
  const legend = el("span"); legend.textContent = "orange: proposed, blue dashed: alternatives"; key.append(legend);
  api(`/api/sessions/${sid}`, undefined, "GET").then((s) => { if (s) draw(s); });
  connect();
}

if (sid) setup(); else lobby();
