// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The operator's page. Two sources, both from this daemon: /status (positions, players, alerts and whether
// they are acknowledged, links, reserves), fetched every few seconds and soon after every /ws event; and
// /ws (moves with their clocks, provisional moves, links, alerts), which starts with the current state of
// every board. While either fails the page says "not live" and greys everything: nothing stale may look
// current. The token lives in sessionStorage only: it goes in an Authorization header, never in a URL.
"use strict";

const TOKEN_KEY = "eboardd.token";
const STATUS_EVERY_MS = 2000;
const STATUS_AFTER_EVENT_MS = 150;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 5000;
const SVG_NS = "http://www.w3.org/2000/svg";
const GLYPHS = { k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };

const page = {
  status: null,
  statusOk: false,
  wsOpen: false,
  ws: null,
  wsAttempt: 0,
  reconnectTimer: null,
  statusTimer: null,
  needsToken: false,
  right: null, // "read" or "control" once the token was accepted
  boards: new Map(), // id -> what /ws told: moves, provisional, last clock, link
  cards: new Map(), // id -> the hall's card elements
  matchNodes: new Map(),
  failedNodes: new Map(),
  filter: "",
  flipped: new Set(),
  renderQueued: false,
  dirtyAll: true,
  dirtyBoards: new Set(),
  layoutKey: "",
  boardKeys: new Map(), // id -> what of /status its card shows, as JSON
  // Counts the /ws connections opened and closed: a /status answer counts only if no connection opened or
  // closed while it was on its way (else it may be the previous daemon's, shown as live).
  epoch: 0,
  statusSeq: 0,
  statusAdopted: 0,
  knownAlerts: null, // "board#number" of the open alerts last seen
  audio: null,
};

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function authHeaders(extra) {
  const h = Object.assign({}, extra || {});
  if (token()) h.Authorization = "Bearer " + token();
  return h;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

// ---- the live state -------------------------------------------------------------------------------------

function boardState(id) {
  let b = page.boards.get(id);
  if (!b) {
    b = { moves: [], provisional: null, clock: null, link: null };
    page.boards.set(id, b);
  }
  return b;
}

function isLive() {
  return page.wsOpen && page.statusOk;
}

function onEvent(e) {
  if (!e || typeof e.board !== "string") return;
  const b = boardState(e.board);
  switch (e.type) {
    case "move":
      // A ply told again (a new game, or the snapshot after a reconnect) replaces what followed it.
      b.moves = b.moves.filter((m) => m.ply < e.ply);
      b.moves.push(e);
      if (b.provisional && b.provisional.ply <= e.ply) b.provisional = null;
      if (e.clock) b.clock = { white: e.clock.white, black: e.clock.black, t: e.t, ply: e.ply };
      break;
    case "provisional":
      b.provisional = e;
      break;
    case "link":
      b.link = e;
      break;
    // Alerts: /status tells which are open and acknowledged; the refresh below fetches it.
    default:
      break;
  }
  markDirty(e.board);
  scheduleStatus(STATUS_AFTER_EVENT_MS);
}

// ---- /status ---------------------------------------------------------------------------------------------

async function fetchStatus() {
  page.statusTimer = null;
  const epoch = page.epoch;
  const wasOk = page.statusOk;
  // Answers may overtake one another: an older one than the last adopted is dropped.
  const seq = ++page.statusSeq;
  try {
    const res = await fetch("/status", { headers: authHeaders(), cache: "no-store" });
    if (res.status === 401 || res.status === 403) {
      page.needsToken = true;
      page.statusOk = false;
    } else if (!res.ok) {
      page.statusOk = false;
    } else {
      const s = await res.json();
      if (seq < page.statusAdopted) return;
      page.statusAdopted = seq;
      page.needsToken = false;
      adoptStatus(s);
      noticeNewAlerts(s);
      page.statusOk = epoch === page.epoch;
      if (!page.statusOk) scheduleStatus(0);
    }
  } catch (err) {
    page.statusOk = false;
  }
  // Live or not changes every card (the clocks); else the header only, and the cards adoptStatus marked.
  markDirty(wasOk !== page.statusOk ? undefined : null);
  scheduleStatus(STATUS_EVERY_MS);
}

function scheduleStatus(ms) {
  if (page.statusTimer !== null) {
    if (ms >= STATUS_EVERY_MS) return; // one is coming sooner
    clearTimeout(page.statusTimer);
  }
  page.statusTimer = setTimeout(fetchStatus, ms);
}

function adoptStatus(s) {
  const before = page.status;
  page.status = s;
  // Redraw what changed only: the hall's layout when boards, matches or failed boards did, else the cards
  // whose game, alerts, link or reserves did (journal counters change at every move and show nowhere).
  const layout = JSON.stringify([
    (s.boards || []).map((b) => b.id),
    (s.matches || []).map((m) => [m.name, m.boards, m.running, m.result]),
    s.failed_boards || {},
  ]);
  if (layout !== page.layoutKey) markDirty();
  page.layoutKey = layout;
  for (const b of s.boards || []) {
    const m = (s.matches || []).find((x) => (x.boards || []).includes(b.id));
    const key = JSON.stringify([b.game, b.control, b.link_state, m ? (m.games || []).find((g) => g.id === b.id) : null]);
    if (page.boardKeys.get(b.id) !== key) markDirty(b.id);
    page.boardKeys.set(b.id, key);
  }
  // A new game (its number changed): what /ws told of the old one goes.
  for (const b of s.boards || []) {
    const old = before && (before.boards || []).find((o) => o.id === b.id);
    if (old && old.game && b.game && old.game.number !== b.game.number) {
      const st = boardState(b.id);
      st.moves = [];
      st.provisional = null;
      st.clock = null;
    }
  }
}

// A short tone when an alert appears that was not open before (not at the first look, nor again after a
// reconnection), unless muted; the choice is kept in localStorage (it is no secret).
function noticeNewAlerts(s) {
  const open = new Set();
  for (const b of s.boards || []) for (const a of openAlerts(b)) open.add(b.id + "#" + a.number);
  const fresh = page.knownAlerts !== null && [...open].some((k) => !page.knownAlerts.has(k));
  page.knownAlerts = open;
  if (fresh) beep();
}

function soundOn() {
  return localStorage.getItem("eboardd.sound") !== "off";
}

function beep() {
  if (!soundOn()) return;
  try {
    page.audio = page.audio || new AudioContext();
    const ctx = page.audio;
    if (ctx.state === "suspended") ctx.resume();
    for (const [start, freq] of [[0, 880], [0.25, 660]]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.25, ctx.currentTime + start);
      gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + start + 0.22);
      osc.connect(gain).connect(ctx.destination);
      osc.start(ctx.currentTime + start);
      osc.stop(ctx.currentTime + start + 0.23);
    }
  } catch (err) {
    /* no audio here: the colour and the title still tell */
  }
}

function statusBoard(id) {
  return page.status ? (page.status.boards || []).find((b) => b.id === id) : undefined;
}

function matchOf(id) {
  if (!page.status) return undefined;
  return (page.status.matches || []).find((m) => (m.boards || []).includes(id));
}

function openAlerts(sb) {
  const alerts = (sb && sb.control && sb.control.alerts) || [];
  return alerts.filter((a) => !a.acknowledged);
}

// ---- /ws -------------------------------------------------------------------------------------------------

async function connect() {
  page.reconnectTimer = null;
  let protocols = [];
  if (token()) {
    // A browser cannot put a header on a WebSocket: the token buys a single-use ticket, offered as a
    // subprotocol.
    try {
      const res = await fetch("/auth/ticket", {
        method: "POST",
        headers: authHeaders({ "Content-Type": "application/json" }),
        body: "{}",
      });
      if (res.ok) {
        const t = await res.json();
        page.right = t.right;
        protocols = [t.protocol];
      } else if (res.status === 401) {
        page.right = "refused";
        showNotice("The daemon refused the token: sign out and type it again.");
      }
    } catch (err) {
      return retry();
    }
  }
  let ws;
  try {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = protocols.length ? new WebSocket(scheme + location.host + "/ws", protocols) : new WebSocket(scheme + location.host + "/ws");
  } catch (err) {
    return retry();
  }
  page.ws = ws;
  ws.onopen = () => {
    page.wsOpen = true;
    page.epoch++;
    page.statusOk = false; // until /status is fetched again
    page.wsAttempt = 0;
    // The snapshot that follows tells every board again, from its first move.
    for (const b of page.boards.values()) {
      b.moves = [];
      b.provisional = null;
      b.clock = null;
      b.link = null;
    }
    scheduleStatus(0);
    markDirty();
  };
  ws.onmessage = (m) => {
    for (const line of String(m.data).split("\n")) {
      if (!line.trim()) continue;
      try {
        onEvent(JSON.parse(line));
      } catch (err) {
        /* not JSON: ignored */
      }
    }
  };
  ws.onclose = () => {
    if (page.ws !== ws) return;
    page.ws = null;
    page.wsOpen = false;
    page.epoch++;
    page.statusOk = false;
    markDirty();
    retry();
  };
}

function retry() {
  if (page.reconnectTimer !== null) return;
  const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** page.wsAttempt);
  page.wsAttempt++;
  page.reconnectTimer = setTimeout(connect, delay);
}

function reconnectNow() {
  if (page.ws) {
    const ws = page.ws;
    page.ws = null;
    page.wsOpen = false;
    ws.close();
  }
  if (page.reconnectTimer !== null) clearTimeout(page.reconnectTimer);
  page.reconnectTimer = null;
  page.wsAttempt = 0;
  connect();
  scheduleStatus(0);
}

// ---- drawing ---------------------------------------------------------------------------------------------

// The piece placement of a FEN (or X-FEN with a [pocket]): square name -> piece letter.
function placement(fen) {
  const out = {};
  const rows = String(fen || "").split(" ")[0].split("[")[0].split("/");
  for (let r = 0; r < 8 && r < rows.length; r++) {
    let file = 0;
    for (const ch of rows[r]) {
      if (ch >= "1" && ch <= "8") file += Number(ch);
      else if (/[kqrbnp]/i.test(ch) && file < 8) out["abcdefgh"[file++] + (8 - r)] = ch;
    }
  }
  return out;
}

function sideToMove(fen) {
  return String(fen || "").split(" ")[1] === "b" ? "black" : "white";
}

function drawBoard(fen, lastUci, flipped, label) {
  const svg = svgEl("svg", { viewBox: "0 0 80 80", class: "board", role: "img", "aria-label": label });
  const from = lastUci && /^[a-h][1-8]/.test(lastUci) ? lastUci.slice(0, 2) : null;
  const to = lastUci ? (lastUci.match(/([a-h][1-8])(?:[qrbn])?$/) || [])[1] : null;
  const pieces = placement(fen);
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const file = flipped ? 7 - col : col;
      const rank = flipped ? row + 1 : 8 - row;
      const sq = "abcdefgh"[file] + rank;
      const dark = (file + rank) % 2 === 1; // a1 is dark
      let fill = dark ? "#a27c55" : "#e8dcc0";
      if (sq === from || sq === to) fill = dark ? "#c9a640" : "#ecd77a";
      svg.append(svgEl("rect", { x: col * 10, y: row * 10, width: 10, height: 10, fill }));
      const p = pieces[sq];
      if (p) {
        const white = p === p.toUpperCase();
        const t = svgEl("text", {
          x: col * 10 + 5,
          y: row * 10 + 8.6,
          "text-anchor": "middle",
          "font-size": 9,
          fill: white ? "#ffffff" : "#000000",
          stroke: white ? "#000000" : "#ffffff",
          "stroke-width": white ? 0.45 : 0.2,
          "paint-order": "stroke",
          "data-square": sq,
          "data-piece": p,
        });
        t.textContent = GLYPHS[p.toLowerCase()];
        svg.append(t);
      }
    }
  }
  return svg;
}

function reserveText(letters, color) {
  const counts = {};
  for (const ch of String(letters || "").toLowerCase()) counts[ch] = (counts[ch] || 0) + 1;
  const parts = [];
  for (const p of "qrbnp") if (counts[p]) parts.push(GLYPHS[p] + (counts[p] > 1 ? "\u00d7" + counts[p] : ""));
  return (color === "white" ? "White reserve: " : "Black reserve: ") + (parts.length ? parts.join(" ") : "none");
}

function clockText(ms) {
  if (ms === null || ms === undefined) return "\u2013:\u2013\u2013";
  const neg = ms < 0;
  ms = Math.max(0, ms);
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  let text = h ? h + ":" + String(m).padStart(2, "0") + ":" + String(s).padStart(2, "0") : m + ":" + String(s).padStart(2, "0");
  if (!h && ms < 10000) text += "." + Math.floor((ms % 1000) / 100);
  return neg ? "0:00" : text;
}

// Both clocks now: the last reading, minus the time since it for the side whose lever is down (the side
// to move), while the game runs, the board is online and the page is live.
function clocksNow(id) {
  const b = boardState(id);
  const sb = statusBoard(id);
  if (!b.clock) return { white: null, black: null, running: null };
  const running = b.clock.ply % 2 === 1 ? "black" : "white";
  const over = sb && sb.game && sb.game.result && sb.game.result !== "*";
  const offline = linkState(id) === "offline";
  const adjourned = sb && sb.control && sb.control.adjourned;
  const ticking = isLive() && !over && !offline && !adjourned;
  const out = { white: b.clock.white, black: b.clock.black, running: ticking ? running : null };
  if (ticking) out[running] = b.clock[running] - Math.max(0, Date.now() - b.clock.t);
  return out;
}

function linkState(id) {
  const b = boardState(id);
  if (b.link) return b.link.state;
  const sb = statusBoard(id);
  if (sb && sb.link_state) return sb.link_state.state;
  return "unknown";
}

function lastMoveText(id) {
  const b = boardState(id);
  const m = b.moves[b.moves.length - 1];
  if (!m) return "no move yet";
  const n = Math.ceil(m.ply / 2) + (m.ply % 2 ? ". " : "... ");
  return n + m.san + (m.illegal ? " (illegal)" : "") + (m.recovered ? " (recovered)" : "");
}

function boardLabel(id, fen) {
  return "Board " + id + ": position " + (fen || "unknown") + "; last move " + lastMoveText(id);
}

function tag(sb, name) {
  return (sb && sb.game && sb.game.tags && sb.game.tags[name]) || "";
}

// ---- the hall --------------------------------------------------------------------------------------------

function makeCard(id) {
  const c = {};
  c.root = el("article", { class: "card", "data-board": id });
  c.title = el("a", { href: "#board/" + encodeURIComponent(id) }, "Board " + id);
  c.link = el("span", { class: "link unknown" }, "link ?");
  c.boardHolder = el("div", { class: "board-holder" });
  c.top = el("div", { class: "player" }, el("span", { class: "name" }), el("span", { class: "clock" }));
  c.bottom = el("div", { class: "player" }, el("span", { class: "name" }), el("span", { class: "clock" }));
  c.reserveTop = el("div", { class: "reserve" });
  c.reserveBottom = el("div", { class: "reserve" });
  c.last = el("div", { class: "last" });
  c.result = el("div", { class: "result" });
  c.alerts = el("div", { class: "alerts-line", role: "alert" });
  c.root.append(el("div", { class: "card-head" }, c.title, c.link), c.top, c.reserveTop, c.boardHolder, c.reserveBottom, c.bottom, c.last, c.result, c.alerts);
  c.drawn = null;
  return c;
}

function updateCard(c, id, flipped) {
  c.flipped = flipped;
  const sb = statusBoard(id);
  const fen = sb && sb.game ? sb.game.fen : "";
  const last = sb && sb.game ? sb.game.last_move || "" : "";
  const key = fen + "|" + last + "|" + flipped + "|" + lastMoveText(id);
  c.root.dataset.fen = fen;
  c.root.dataset.ply = sb && sb.game ? sb.game.ply : "";
  if (c.drawn !== key) {
    c.boardHolder.replaceChildren(drawBoard(fen, last, flipped, boardLabel(id, fen)));
    c.drawn = key;
  }
  const ls = linkState(id);
  c.link.className = "link " + (ls === "online" || ls === "offline" ? ls : "unknown");
  c.link.textContent = ls === "unknown" ? "link ?" : ls;
  const round = tag(sb, "Round");
  c.root.dataset.round = round;
  c.title.textContent = "Board " + id + (round ? " \u00b7 R" + round : "");
  const [topSide, bottomSide] = flipped ? ["white", "black"] : ["black", "white"];
  c.top.dataset.side = topSide;
  c.bottom.dataset.side = bottomSide;
  c.top.firstChild.textContent = tag(sb, topSide === "white" ? "White" : "Black") || (topSide === "white" ? "White" : "Black");
  c.bottom.firstChild.textContent = tag(sb, bottomSide === "white" ? "White" : "Black") || (bottomSide === "white" ? "White" : "Black");
  const m = matchOf(id);
  const g = m && (m.games || []).find((x) => x.id === id);
  c.reserveTop.textContent = g && g.reserves ? reserveText(g.reserves[topSide], topSide) : "";
  c.reserveBottom.textContent = g && g.reserves ? reserveText(g.reserves[bottomSide], bottomSide) : "";
  c.reserveTop.hidden = c.reserveBottom.hidden = !g;
  c.last.textContent = "Last move: " + lastMoveText(id);
  const result = sb && sb.game && sb.game.result !== "*" ? sb.game.result + (sb.game.reason ? " (" + sb.game.reason + ")" : "") : "";
  c.result.textContent = result;
  const open = openAlerts(sb);
  c.root.classList.toggle("has-alert", open.length > 0);
  c.root.dataset.openAlerts = open.length;
  c.alerts.textContent = open.length ? open.length + " open alert" + (open.length > 1 ? "s" : "") + ": " + open.map((a) => a.code).join(", ") : "";
  c.root.setAttribute("aria-label", boardLabel(id, fen) + (open.length ? "; " + open.length + " open alerts" : ""));
  updateClocks(c, id);
}

function updateClocks(c, id) {
  const now = clocksNow(id);
  for (const row of [c.top, c.bottom]) {
    const side = row.dataset.side;
    const clock = row.lastChild;
    clock.textContent = clockText(now[side]);
    clock.classList.toggle("running", now.running === side);
    clock.classList.toggle("low", now[side] !== null && now[side] < 30000);
  }
}

function matches(id) {
  const f = page.filter.trim().toLowerCase();
  if (!f) return true;
  const sb = statusBoard(id);
  const m = matchOf(id);
  const hay = ["board " + id, id, "r" + tag(sb, "Round"), "round " + tag(sb, "Round"), tag(sb, "White"), tag(sb, "Black"), m ? m.name : ""];
  return hay.some((h) => String(h).toLowerCase().includes(f));
}

function renderHall() {
  const hall = document.getElementById("hall");
  const s = page.status;
  const ids = s ? (s.boards || []).map((b) => b.id) : [];
  const inMatch = new Map();
  for (const m of (s && s.matches) || []) if (m.running !== false) for (const id of m.boards || []) inMatch.set(id, m);
  const wanted = [];
  const seenMatch = new Set();
  for (const id of ids) {
    const m = inMatch.get(id);
    if (m) {
      if (seenMatch.has(m.name)) continue;
      seenMatch.add(m.name);
      let node = page.matchNodes.get(m.name);
      if (!node) {
        node = { root: el("section", { class: "match", "data-match": m.name }), title: el("h2", {}), boards: el("div", { class: "match-boards" }) };
        node.root.append(node.title, node.boards);
        page.matchNodes.set(m.name, node);
      }
      node.title.textContent = "Bughouse match " + m.name + (m.result && m.result !== "*" ? " \u00b7 " + m.result + " (team White " + m.boards[0] + " + Black " + m.boards[1] + ")" : "");
      const roots = m.boards.map((bid) => cardFor(bid).root);
      // Put back only when changed: moving a node takes the keyboard focus away from a link in it.
      if (roots.length !== node.boards.children.length || roots.some((r, i) => node.boards.children[i] !== r)) node.boards.replaceChildren(...roots);
      // Partners side by side: White on A and Black on B sit on the same side, so B is drawn turned round.
      m.boards.forEach((bid, i) => updateCard(cardFor(bid), bid, i === 1));
      node.root.hidden = !m.boards.some(matches);
      wanted.push(node.root);
    } else {
      const c = cardFor(id);
      updateCard(c, id, false);
      c.root.hidden = !matches(id);
      wanted.push(c.root);
    }
  }
  // Boards of the configuration that did not start: the arbiter must see them too.
  for (const [id, why] of Object.entries((s && s.failed_boards) || {})) {
    if (ids.includes(id)) continue;
    const key = id + "|" + why;
    let node = page.failedNodes.get(key);
    if (!node) {
      node = el("article", { class: "card failed", "data-board": id, "data-failed": "true" }, el("div", { class: "card-head" }, el("strong", {}, "Board " + id), el("span", { class: "link offline" }, "not started")), el("p", {}, why));
      page.failedNodes.set(key, node);
    }
    node.hidden = !matches(id);
    wanted.push(node);
  }
  for (const [id, c] of page.cards) if (!ids.includes(id)) page.cards.delete(id);
  const same = wanted.length === hall.children.length && wanted.every((n, i) => hall.children[i] === n);
  if (!same) hall.replaceChildren(...wanted);
}

function cardFor(id) {
  let c = page.cards.get(id);
  if (!c) {
    c = makeCard(id);
    page.cards.set(id, c);
  }
  return c;
}

// ---- one board -------------------------------------------------------------------------------------------

function renderBoardView(id) {
  const view = document.getElementById("board-view");
  const sb = statusBoard(id);
  if (!sb) {
    page.skeleton = null;
    view.replaceChildren(el("p", {}, page.status ? "No board " + id + " here. " : "Loading\u2026 "), el("a", { href: "#" }, "Back to the hall"));
    return;
  }
  const b = boardState(id);
  const flipped = page.flipped.has(id);
  const fen = sb.game ? sb.game.fen : "";
  const m = matchOf(id);
  const g = m && (m.games || []).find((x) => x.id === id);
  const now = clocksNow(id);
  const [topSide, bottomSide] = flipped ? ["white", "black"] : ["black", "white"];
  const playerRow = (side) =>
    el(
      "div",
      { class: "player", "data-side": side },
      el("span", { class: "name" }, (side === "white" ? "White: " : "Black: ") + (tag(sb, side === "white" ? "White" : "Black") || "?")),
      el("span", { class: "clock" + (now.running === side ? " running" : "") }, clockText(now[side]))
    );

  const left = el(
    "section",
    { class: "large", "data-board": id, "data-fen": fen },
    el("h2", {}, "Board " + id + (m ? " \u00b7 match " + m.name : "") + (tag(sb, "Round") ? " \u00b7 round " + tag(sb, "Round") : "")),
    el("p", {}, el("a", { href: "#" }, "\u2190 The hall"), " ", el("span", { class: "link " + linkState(id) }, "link " + linkState(id)),
      " ", el("button", { type: "button", onclick: () => { if (flipped) page.flipped.delete(id); else page.flipped.add(id); markDirty(); } }, "Flip board")),
    playerRow(topSide),
    g ? el("div", { class: "reserve" }, reserveText(g.reserves[topSide], topSide)) : null,
    drawBoard(fen, sb.game ? sb.game.last_move : "", flipped, boardLabel(id, fen)),
    g ? el("div", { class: "reserve" }, reserveText(g.reserves[bottomSide], bottomSide)) : null,
    playerRow(bottomSide),
    el("p", {}, "To move: " + sideToMove(fen) + ". FEN: ", el("code", {}, fen))
  );
  if (m) {
    // The partner board, small, turned as a player of this board's bottom side sees their partner's.
    const partner = m.boards.find((x) => x !== id);
    const ps = statusBoard(partner);
    const pg = (m.games || []).find((x) => x.id === partner);
    const pfen = ps && ps.game ? ps.game.fen : "";
    const pflip = !flipped;
    const [pTop, pBottom] = pflip ? ["white", "black"] : ["black", "white"];
    const small = el(
      "div",
      { class: "partner", "data-board": partner, "data-fen": pfen },
      el("p", {}, "Partner board: ", el("a", { href: "#board/" + encodeURIComponent(partner) }, "Board " + partner), " (" + linkState(partner) + ")"),
      pg ? el("div", { class: "reserve" }, reserveText(pg.reserves[pTop], pTop)) : null,
      drawBoard(pfen, ps && ps.game ? ps.game.last_move : "", pflip, boardLabel(partner, pfen)),
      pg ? el("div", { class: "reserve" }, reserveText(pg.reserves[pBottom], pBottom)) : null
    );
    left.append(small);
  }

  // The right column is kept between renders, so a field being typed in keeps its focus and text.
  let sk = page.skeleton;
  if (!sk || sk.id !== id || !view.contains(sk.right)) {
    sk = { id, left: el("div", {}), result: el("div", {}), provisional: el("div", {}), alerts: el("div", {}), moves: el("div", {}), actions: el("div", {}) };
    sk.right = el("section", {}, sk.result, sk.provisional, el("h2", {}, "Alerts"), sk.alerts, el("h2", {}, "Moves"), sk.moves, el("h2", {}, "Arbiter"), sk.actions);
    page.skeleton = sk;
    view.replaceChildren(sk.left, sk.right);
  }
  sk.left.replaceChildren(left);
  sk.result.replaceChildren(sb.game && sb.game.result !== "*" ? el("p", { class: "result" }, "Result " + sb.game.result + (sb.game.reason ? " (" + sb.game.reason + ")" : "")) : "");
  const p = b.provisional;
  sk.provisional.replaceChildren(
    p ? el("p", { class: "provisional", "data-provisional": p.uci }, "Being played, not completed (no clock press yet): " + Math.ceil(p.ply / 2) + (p.ply % 2 ? ". " : "... ") + p.san) : ""
  );
  sk.alerts.replaceChildren(alertList(id, sb));
  sk.moves.replaceChildren(moveTable(b.moves));
  const box = actions(id);
  if (sk.actions.firstChild !== box) sk.actions.replaceChildren(box);
}

function moveCell(m) {
  if (!m) return el("td", {});
  const cls = "move" + (m.recovered ? " recovered" : "") + (m.illegal ? " illegal" : "");
  const td = el("td", { class: cls, "data-ply": m.ply }, m.san);
  if (m.illegal) td.append(el("span", { class: "mark illegal", title: "an illegal move that stood (FIDE A.4.2)" }, "illegal"));
  if (m.recovered) td.append(el("span", { class: "mark recovered", title: "found after a gap, not seen being made" }, "recovered"));
  if (m.clock) {
    const mover = m.ply % 2 ? "white" : "black";
    td.append(el("span", { class: "clk" }, "[" + clockText(m.clock[mover]) + "]"));
  }
  return td;
}

function moveTable(moves) {
  const table = el("table", { class: "moves" }, el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "White"), el("th", {}, "Black"))));
  const body = el("tbody", {});
  const byPly = new Map(moves.map((m) => [m.ply, m]));
  const maxPly = moves.length ? moves[moves.length - 1].ply : 0;
  for (let n = 1; 2 * n - 1 <= maxPly; n++) body.append(el("tr", {}, el("td", {}, n + "."), moveCell(byPly.get(2 * n - 1)), moveCell(byPly.get(2 * n))));
  table.append(body);
  if (!moves.length) return el("p", {}, "No move yet.");
  return table;
}

function alertList(id, sb) {
  const alerts = (sb.control && sb.control.alerts) || [];
  if (!alerts.length) return el("p", {}, "No alert in this game.");
  const ul = el("ul", { class: "alerts" });
  for (const a of alerts) {
    const when = a.t ? new Date(a.t).toLocaleTimeString() : "";
    const li = el(
      "li",
      { class: a.acknowledged ? "acknowledged" : "open", "data-alert": a.number, "data-code": a.code },
      el("strong", {}, "#" + a.number + " " + a.code),
      " \u00b7 " + a.side + ", ply " + a.ply + (when ? " \u00b7 " + when : "") + (a.acknowledged ? " \u00b7 acknowledged" : ""),
      el("br"),
      a.detail || ""
    );
    if (!a.acknowledged)
      li.append(" ", el("button", { type: "button", class: "ack", disabled: !canControl(), onclick: () => act(id, "ack", { alert: a.number }) }, "Acknowledge"));
    ul.append(li);
  }
  return ul;
}

// Kept from one render to the next (a FEN being typed must survive the moves coming in).
function actions(id) {
  const key = id + "|" + canControl();
  if (page.actions && page.actions.key === key) return page.actions.box;
  const box = el("div", {});
  page.actions = { key, box };
  if (!canControl()) box.append(el("p", {}, "Sign in with the control token to act."));
  const fen = el("input", { type: "text", placeholder: "FEN (empty: the initial position)", "aria-label": "FEN of the new game", size: 30 });
  const dis = !canControl();
  box.append(
    el("div", { class: "actions" },
      el("button", { type: "button", disabled: dis, onclick: () => confirm("Draw by agreement on board " + id + "?") && act(id, "draw", {}) }, "Draw"),
      el("button", { type: "button", disabled: dis, onclick: () => confirm("White resigns on board " + id + "?") && act(id, "resign", { side: "white" }) }, "White resigns"),
      el("button", { type: "button", disabled: dis, onclick: () => confirm("Black resigns on board " + id + "?") && act(id, "resign", { side: "black" }) }, "Black resigns")),
    el("div", { class: "actions" }, fen,
      el("button", { type: "button", disabled: dis, onclick: () => confirm("Start a new game on board " + id + "?") && act(id, "new-game", fen.value.trim() ? { fen: fen.value.trim() } : {}) }, "New game"))
  );
  const white = el("input", { type: "text", placeholder: "White", "aria-label": "White player", size: 14 });
  const black = el("input", { type: "text", placeholder: "Black", "aria-label": "Black player", size: 14 });
  box.append(
    el("div", { class: "actions" }, white, black,
      el("button", { type: "button", disabled: dis, onclick: () => {
        const tags = {};
        if (white.value.trim()) tags.White = white.value.trim();
        if (black.value.trim()) tags.Black = black.value.trim();
        act(id, "tags", tags);
      } }, "Set players"))
  );
  const side = el("select", { "aria-label": "Side promoting" }, el("option", { value: "white" }, "White"), el("option", { value: "black" }, "Black"));
  const piece = el("select", { "aria-label": "Promotion piece" }, ...[["q", "queen"], ["r", "rook"], ["b", "bishop"], ["n", "knight"]].map(([v, n]) => el("option", { value: v }, n)));
  box.append(
    el("div", { class: "actions" }, "Next promotion:", side, piece,
      el("button", { type: "button", disabled: dis, onclick: () => act(id, "promotion", { side: side.value, piece: piece.value }) }, "Set promotion piece"))
  );
  return box;
}

function canControl() {
  return !!token() && page.right === "control";
}

async function act(id, action, body) {
  const path = "/control/" + encodeURIComponent(id) + "/" + action;
  let text;
  try {
    const res = await fetch(path, { method: "POST", headers: authHeaders({ "Content-Type": "application/json" }), body: JSON.stringify(body) });
    text = "POST " + path + " \u2192 " + res.status + "\n" + (await res.text());
  } catch (err) {
    text = "POST " + path + ": no answer (" + err + ")";
  }
  const answer = document.getElementById("answer");
  answer.hidden = false;
  document.getElementById("answer-text").textContent = text;
  scheduleStatus(0);
}

// ---- page --------------------------------------------------------------------------------------------------

function showNotice(text) {
  const n = document.getElementById("notice");
  n.textContent = text || "";
  n.hidden = !text;
}

// What changed: one board (a /ws event: only its card is redrawn, which keeps a hall of hundreds of boards
// cheap at blitz pace), or everything (no argument).
function markDirty(board) {
  if (typeof board === "string") page.dirtyBoards.add(board);
  else if (board !== null) page.dirtyAll = true; // null: the header only (live, alert count, title)
  if (page.renderQueued) return;
  page.renderQueued = true;
  requestAnimationFrame(render);
}

function route() {
  const m = location.hash.match(/^#board\/(.+)$/);
  return m ? decodeURIComponent(m[1]) : null;
}

function render() {
  page.renderQueued = false;
  const live = isLive();
  const liveEl = document.getElementById("live");
  liveEl.dataset.live = String(live);
  liveEl.textContent = live ? "live" : page.needsToken ? "not live: reading needs a token" : page.wsOpen ? "not live: no status" : "not live: reconnecting\u2026";
  document.body.classList.toggle("stale", !live);
  let open = 0;
  for (const b of (page.status && page.status.boards) || []) open += openAlerts(b).length;
  const total = document.getElementById("alert-total");
  total.dataset.count = String(open);
  total.textContent = open ? open + " open alert" + (open > 1 ? "s" : "") : "";
  document.title = (open ? "(" + open + ") " : "") + (live ? "" : "[not live] ") + "eboardd";
  if (page.needsToken && !token()) showNotice("Reading this daemon needs a token: sign in above.");
  else if (!page.needsToken) showNotice("");
  const signedIn = !!token();
  document.getElementById("signin").hidden = signedIn;
  document.getElementById("signed-in").hidden = !signedIn;
  document.getElementById("right").textContent = !signedIn ? "" : page.right === "refused" ? "Token refused" : "Signed in (" + (page.right || "checking") + ")";
  const id = route();
  document.getElementById("hall").hidden = id !== null;
  document.getElementById("board-view").hidden = id === null;
  const all = page.dirtyAll;
  const some = [...page.dirtyBoards];
  page.dirtyAll = false;
  page.dirtyBoards.clear();
  if (id !== null) renderBoardView(id);
  else if (all) renderHall();
  else for (const b of some) if (page.cards.has(b)) updateCard(page.cards.get(b), b, page.cards.get(b).flipped);
}

function tick() {
  if (!isLive()) return;
  const id = route();
  if (id === null) {
    for (const [bid, c] of page.cards) updateClocks(c, bid);
  } else {
    for (const row of document.querySelectorAll("#board-view .player")) {
      const now = clocksNow(id);
      const side = row.dataset.side;
      row.lastChild.textContent = clockText(now[side]);
      row.lastChild.classList.toggle("running", now.running === side);
    }
  }
}

function init() {
  document.getElementById("signin").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const input = document.getElementById("token");
    const t = input.value.trim();
    input.value = "";
    if (!t) return;
    sessionStorage.setItem(TOKEN_KEY, t);
    page.right = null;
    reconnectNow();
    markDirty();
  });
  document.getElementById("signout").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    page.right = null;
    reconnectNow();
    markDirty();
  });
  document.getElementById("filter").addEventListener("input", (ev) => {
    page.filter = ev.target.value;
    markDirty();
  });
  const sound = document.getElementById("sound");
  const showSound = () => {
    sound.textContent = soundOn() ? "Sound on" : "Sound off";
    sound.setAttribute("aria-pressed", String(soundOn()));
  };
  sound.addEventListener("click", () => {
    localStorage.setItem("eboardd.sound", soundOn() ? "off" : "on");
    showSound();
    if (soundOn()) beep(); // and the click lets the browser play sound from now on
  });
  showSound();
  window.addEventListener("hashchange", () => markDirty());
  setInterval(tick, 200);
  connect();
  fetchStatus();
  markDirty();
}

init();
