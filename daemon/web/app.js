// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The operator's page. Two sources, both from this daemon: /ws (moves with their clocks, provisional moves,
// links, alerts, results), which starts with the current state of every board, and /status (positions,
// players, alerts and whether they are acknowledged, reserves, gaps, adjournments). /ws events are applied
// to the page's model as they come (a move is played on the board drawn, its clock read), and only the
// board they concern is redrawn, once per frame; /status is fetched when the connection (re)opens, when
// an event tells something only /status details (an alert, a result, a bughouse capture), at most once a
// second, and every STATUS_EVERY_MS anyway. While either fails the page says "not live" and greys
// everything: nothing stale may look current. The token lives in sessionStorage only: it goes in an
// Authorization header, never in a URL.
"use strict";

const TOKEN_KEY = "eboardd.token";
const STATUS_EVERY_MS = 10000;
const STATUS_MIN_GAP_MS = 1000;
const RECONNECT_MIN_MS = 500;
const RECONNECT_MAX_MS = 5000;
const SVG_NS = "http://www.w3.org/2000/svg";
const GLYPHS = { k: "\u265a", q: "\u265b", r: "\u265c", b: "\u265d", n: "\u265e", p: "\u265f" };
const FILES = "abcdefgh";
const MAX_CANDIDATES_SHOWN = 12; // a long gap may have hundreds: the arbiter then types the moves

const page = {
  status: null,
  statusById: new Map(), // board id -> its entry of /status
  matchById: new Map(), // board id -> its match of /status
  statusOk: false,
  clockSaid: {}, // "<board>#<alert>" -> the clock's answer to the penalty applied from that alert
  wsOpen: false,
  ws: null,
  wsAttempt: 0,
  reconnectTimer: null,
  statusTimer: null,
  statusDue: 0, // when the pending fetch fires (performance.now())
  lastFetch: -Infinity,
  needsToken: false,
  right: null, // "read" or "control" once the token was accepted
  boards: new Map(), // id -> the model: what /status and /ws told of the board
  cards: new Map(), // id -> the hall's card
  viewCards: new Map(), // id -> the cards of the match view
  matchNodes: new Map(),
  failedNodes: new Map(),
  filter: "",
  flipped: new Map(), // id -> the operator's choice (else the board's own orientation)
  renderQueued: false,
  dirtyAll: true,
  dirtyBoards: new Set(),
  layoutKey: "",
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

// ---- positions ---------------------------------------------------------------------------------------------

// The piece placement of a FEN (or X-FEN with a [pocket]): square name -> piece letter.
function placement(fen) {
  const out = {};
  const rows = String(fen || "").split(" ")[0].split("[")[0].split("/");
  for (let r = 0; r < 8 && r < rows.length; r++) {
    let file = 0;
    for (const ch of rows[r]) {
      if (ch >= "1" && ch <= "8") file += Number(ch);
      else if (/[kqrbnp]/i.test(ch) && file < 8) out[FILES[file++] + (8 - r)] = ch;
    }
  }
  return out;
}

function sideOf(fen) {
  return String(fen || "").split(" ")[1] === "b" ? "black" : "white";
}

function placementText(pieces) {
  const rows = [];
  for (let rank = 8; rank >= 1; rank--) {
    let row = "";
    let empty = 0;
    for (const f of FILES) {
      const p = pieces[f + rank];
      if (p) {
        if (empty) row += empty;
        empty = 0;
        row += p;
      } else empty++;
    }
    rows.push(row + (empty ? empty : ""));
  }
  return rows.join("/");
}

// Plays a move in UCI (a drop "N@f3", a promotion "e7e8q", castling as the king's two-square step or, in
// Chess960, as the king taking its own rook) on a placement. Only what the board shows: no legality.
function playUci(pos, uci) {
  const p = pos.pieces;
  const white = pos.side === "white";
  const drop = /^([PNBRQK])@([a-h][1-8])$/i.exec(uci);
  if (drop) {
    p[drop[2]] = white ? drop[1].toUpperCase() : drop[1].toLowerCase();
  } else {
    const m = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/.exec(uci);
    if (!m) return false;
    const [, from, to, promo] = m;
    const piece = p[from];
    if (!piece) return false;
    const target = p[to];
    const kind = piece.toLowerCase();
    const rank = from[1];
    if (kind === "k" && target && target.toLowerCase() === "r" && (target === target.toUpperCase()) === white) {
      // Chess960 castling: the king "takes" its rook.
      const kingside = to[0] > from[0];
      delete p[from];
      delete p[to];
      p[(kingside ? "g" : "c") + rank] = piece;
      p[(kingside ? "f" : "d") + rank] = target;
    } else if (kind === "k" && Math.abs(FILES.indexOf(to[0]) - FILES.indexOf(from[0])) === 2) {
      const kingside = to[0] > from[0];
      const rookFrom = (kingside ? "h" : "a") + rank;
      const rookTo = (kingside ? "f" : "d") + rank;
      delete p[from];
      p[to] = piece;
      if (p[rookFrom]) {
        p[rookTo] = p[rookFrom];
        delete p[rookFrom];
      }
    } else {
      if (kind === "p" && from[0] !== to[0] && !target) delete p[to[0] + from[1]]; // en passant
      delete p[from];
      p[to] = promo ? (white ? promo.toUpperCase() : promo) : piece;
    }
  }
  pos.side = white ? "black" : "white";
  return true;
}

// ---- the live state -----------------------------------------------------------------------------------------

function boardState(id) {
  let b = page.boards.get(id);
  if (!b) {
    // moves: as /ws told them; pos: what is drawn (the /status position and the moves told since).
    b = { moves: [], provisional: null, clock: null, link: null, base: null, pos: null, arrival: null };
    page.boards.set(id, b);
  }
  return b;
}

function isLive() {
  return page.wsOpen && page.statusOk;
}

// The position drawn: /status's, then the moves /ws told after it, in order.
function rebuildPosition(b) {
  if (!b.base) {
    b.pos = null;
    return;
  }
  b.pos = { pieces: placement(b.base.fen), side: sideOf(b.base.fen), ply: b.base.ply, last: b.base.last, fen: b.base.fen };
  for (const m of b.moves) if (m.ply === b.pos.ply + 1) playMove(b, m);
}

function playMove(b, m) {
  if (!playUci(b.pos, m.uci)) return false;
  b.pos.ply = m.ply;
  b.pos.last = m.uci;
  b.pos.fen = null; // placementText on demand
  return true;
}

function fenOf(b) {
  if (!b.pos) return "";
  if (!b.pos.fen) b.pos.fen = placementText(b.pos.pieces) + " " + (b.pos.side === "white" ? "w" : "b");
  return b.pos.fen;
}

function onEvent(e, arrival) {
  if (!e || typeof e.board !== "string") return;
  const b = boardState(e.board);
  switch (e.type) {
    case "move": {
      const known = b.moves.find((m) => m.ply === e.ply);
      // A ply told again (a new game, or the snapshot after a reconnect) replaces what followed it.
      b.moves = b.moves.filter((m) => m.ply < e.ply);
      b.moves.push(e);
      if (b.provisional && b.provisional.ply <= e.ply) b.provisional = null;
      if (e.clock) b.clock = { white: e.clock.white, black: e.clock.black, t: e.t, ply: e.ply };
      if (b.pos && e.ply === b.pos.ply + 1) {
        if (!playMove(b, e)) needStatus();
      } else if (b.pos && e.ply <= b.pos.ply) {
        // Told already (the same move), or in the position /status gave; else the game changed under us.
        const published = b.base ? b.base.published : 0;
        if (known ? known.uci !== e.uci : e.ply <= published) needStatus();
      } else {
        needStatus(); // a ply missed: /status has the position
      }
      // Reserves change with captures and drops: /status has them.
      if (page.matchById.has(e.board)) needStatus();
      break;
    }
    case "provisional":
      b.provisional = e;
      break;
    case "link":
      b.link = e;
      break;
    default:
      // Alerts (their numbers and acknowledgement), results, claims, match pauses: /status tells them.
      needStatus();
      break;
  }
  // For the benchmark (web_bench.py): when the first move not drawn yet arrived.
  if (arrival !== undefined && e.type === "move" && b.arrival === null) b.arrival = arrival;
  markDirty(e.board);
}

// ---- /status ---------------------------------------------------------------------------------------------

async function fetchStatus() {
  page.statusTimer = null;
  page.lastFetch = performance.now();
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
  const due = performance.now() + ms;
  if (page.statusTimer !== null) {
    if (page.statusDue <= due) return; // one is coming sooner
    clearTimeout(page.statusTimer);
  }
  page.statusDue = due;
  page.statusTimer = setTimeout(fetchStatus, ms);
}

// Something only /status details changed: fetched soon, but not more than once a second.
function needStatus() {
  scheduleStatus(Math.max(0, page.lastFetch + STATUS_MIN_GAP_MS - performance.now()));
}

function adoptStatus(s) {
  page.status = s;
  page.statusById = new Map((s.boards || []).map((b) => [b.id, b]));
  page.matchById = new Map();
  for (const m of s.matches || []) for (const id of m.boards || []) page.matchById.set(id, m);
  // Redraw what changed only: the hall's layout when boards, matches or failed boards did, else the cards
  // whose game, alerts, link or reserves did (journal counters change at every move and show nowhere).
  const layout = JSON.stringify([
    (s.boards || []).map((b) => b.id),
    (s.matches || []).map((m) => [m.name, m.boards, m.running, m.result]),
    s.failed_boards || {},
  ]);
  if (layout !== page.layoutKey) markDirty();
  page.layoutKey = layout;
  for (const sb of s.boards || []) {
    const b = boardState(sb.id);
    const g = sb.game || {};
    const m = page.matchById.get(sb.id);
    const key = JSON.stringify([g.result, g.reason, g.tags, sb.control, sb.link_state, sb.source && sb.source.rotated, m ? (m.games || []).find((x) => x.id === sb.id) : null]);
    if (b.statusKey !== key) markDirty(sb.id);
    b.statusKey = key;
    // A new game (its number changed): what /ws told of the old one goes.
    if (b.base && b.base.number !== g.number) {
      b.moves = [];
      b.provisional = null;
      b.clock = null;
    }
    // The clock as the daemon last read it, with whose runs: newer than the last move's reading (a clock
    // stopped or started, a press without a move), it wins.
    const cn = g.clock_now;
    if (cn && (!b.clock || cn.read > b.clock.t)) b.clock = { white: cn.white, black: cn.black, t: cn.read, ply: g.ply || 0, running: cn.running };
    const base = { number: g.number, ply: g.ply || 0, published: g.published_ply || 0, fen: g.fen || "", last: g.last_move || "" };
    // The page may be ahead of /status (moves told since it was made): then it keeps its position.
    if (!b.base || !b.pos || base.number !== b.base.number || base.ply > b.pos.ply || base.ply < b.base.ply || (base.ply === b.pos.ply && base.fen !== b.base.fen)) {
      const before = b.pos ? fenOf(b) : null;
      b.base = base;
      rebuildPosition(b);
      if (fenOf(b) !== before) markDirty(sb.id);
    } else {
      b.base = base;
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
    page.beeps = (page.beeps || 0) + 1;
  } catch (err) {
    /* no audio here: the colour and the title still tell */
  }
}

function statusBoard(id) {
  return page.statusById.get(id);
}

function matchOf(id) {
  return page.matchById.get(id);
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
    const arrival = performance.now();
    for (const line of String(m.data).split("\n")) {
      if (!line.trim()) continue;
      let e;
      try {
        e = JSON.parse(line);
      } catch (err) {
        continue; // not JSON: ignored
      }
      onEvent(e, arrival);
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

// An SVG board made once; update() touches only the squares whose piece or highlight changed.
function makeBoardSvg() {
  const svg = svgEl("svg", { viewBox: "0 0 80 80", class: "board", role: "img" });
  const squares = [];
  for (let i = 0; i < 64; i++) {
    const rect = svgEl("rect", { x: (i % 8) * 10, y: Math.floor(i / 8) * 10, width: 10, height: 10 });
    const text = svgEl("text", { x: (i % 8) * 10 + 5, y: Math.floor(i / 8) * 10 + 8.6, "text-anchor": "middle", "font-size": 9, "paint-order": "stroke" });
    svg.append(rect, text);
    squares.push({ rect, text, fill: "", piece: "", sq: "" });
  }
  return { svg, squares, label: "" };
}

function updateBoardSvg(bs, pieces, lastUci, flipped, label) {
  const from = lastUci && /^[a-h][1-8]/.test(lastUci) ? lastUci.slice(0, 2) : null;
  const to = lastUci ? (lastUci.match(/([a-h][1-8])(?:[qrbn])?$/) || [])[1] : null;
  for (let i = 0; i < 64; i++) {
    const row = Math.floor(i / 8);
    const col = i % 8;
    const file = flipped ? 7 - col : col;
    const rank = flipped ? row + 1 : 8 - row;
    const sq = FILES[file] + rank;
    const dark = (file + rank) % 2 === 1; // a1 is dark
    let fill = dark ? "#a27c55" : "#e8dcc0";
    if (sq === from || sq === to) fill = dark ? "#c9a640" : "#ecd77a";
    const s = bs.squares[i];
    if (s.fill !== fill) s.rect.setAttribute("fill", (s.fill = fill));
    const p = pieces[sq] || "";
    if (s.piece !== p || s.sq !== sq) {
      s.piece = p;
      s.sq = sq;
      if (p) {
        const white = p === p.toUpperCase();
        s.text.setAttribute("fill", white ? "#ffffff" : "#000000");
        s.text.setAttribute("stroke", white ? "#000000" : "#ffffff");
        s.text.setAttribute("stroke-width", white ? 0.45 : 0.2);
        s.text.setAttribute("data-square", sq);
        s.text.setAttribute("data-piece", p);
        s.text.textContent = GLYPHS[p.toLowerCase()];
      } else {
        s.text.removeAttribute("data-square");
        s.text.removeAttribute("data-piece");
        s.text.textContent = "";
      }
    }
  }
  if (bs.label !== label) bs.svg.setAttribute("aria-label", (bs.label = label));
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

// Both clocks now: the last reading, minus the time since it for the side whose clock runs, while the
// game runs, the board is online and the page is live. /status tells the last reading and whose clock runs
// (game.clock_now, the lever); a move on /ws tells the reading at its press, from which the clock of the
// side that did not move runs.
function clocksNow(id) {
  const b = boardState(id);
  const sb = statusBoard(id);
  if (!b.clock) return { white: null, black: null, running: null };
  const running = b.clock.running !== undefined ? b.clock.running : b.clock.ply % 2 === 1 ? "black" : "white";
  const over = sb && sb.game && sb.game.result && sb.game.result !== "*";
  // A board without a device has no clock that runs: its times are the ones typed after a move.
  const offline = linkState(id) === "offline" || linkState(id) === "none";
  const adjourned = sb && sb.control && sb.control.adjourned;
  const m = matchOf(id);
  const paused = m && m.paused;
  const ticking = isLive() && !over && !offline && !adjourned && !paused;
  const out = { white: b.clock.white, black: b.clock.black, running: ticking ? running : null };
  if (ticking && running) out[running] = b.clock[running] - Math.max(0, Date.now() - b.clock.t);
  return out;
}

// Why a board's link is down (the driver's words), or "".
function linkReason(id) {
  const b = boardState(id);
  if (b.link) return b.link.state === "offline" ? b.link.reason || "" : "";
  const sb = statusBoard(id);
  return sb && sb.link_state && sb.link_state.state === "offline" ? sb.link_state.reason || "" : "";
}

// "online", "offline", "unknown", or "none": a board without a device (its moves typed), never offline.
function linkState(id) {
  const sb = statusBoard(id);
  if (sb && sb.woodless) return "none";
  const b = boardState(id);
  if (b.link) return b.link.state;
  if (sb && sb.link_state) return sb.link_state.state;
  return "unknown";
}

// The link in words: "link online", "link offline", "link unknown", or "no device" for a board without wood.
function linkText(id) {
  const ls = linkState(id);
  return ls === "none" ? "no device" : "link " + ls;
}

function lastMoveText(id) {
  const b = boardState(id);
  const m = b.moves[b.moves.length - 1];
  if (!m || (b.pos && m.ply !== b.pos.ply)) return b.pos && b.pos.last ? b.pos.last : "no move yet";
  const n = Math.ceil(m.ply / 2) + (m.ply % 2 ? ". " : "... ");
  return n + m.san + (m.illegal ? " (illegal)" : "") + (m.recovered ? " (recovered)" : "");
}

function boardLabel(id, fen) {
  return "Board " + id + ": position " + (fen || "unknown") + "; last move " + lastMoveText(id);
}

function tag(sb, name) {
  return (sb && sb.game && sb.game.tags && sb.game.tags[name]) || "";
}

// The board turned round: the operator's choice, else as the physical board stands (set up rotated, with
// Black at the connector's side, it is seen from Black's side).
function flippedOf(id) {
  if (page.flipped.has(id)) return page.flipped.get(id);
  const sb = statusBoard(id);
  return !!(sb && sb.source && sb.source.rotated);
}

// ---- the hall --------------------------------------------------------------------------------------------

function makeCard(id, large) {
  const c = {};
  c.root = el("article", { class: "card" + (large ? " large-card" : ""), "data-board": id, tabindex: 0 });
  c.title = el("a", { href: "#board/" + encodeURIComponent(id), tabindex: -1 }, "Board " + id);
  c.link = el("span", { class: "link unknown" }, "link ?");
  c.board = makeBoardSvg();
  c.top = el("div", { class: "player" }, el("span", { class: "name" }), el("span", { class: "clock" }));
  c.bottom = el("div", { class: "player" }, el("span", { class: "name" }), el("span", { class: "clock" }));
  c.reserveTop = el("div", { class: "reserve" });
  c.reserveBottom = el("div", { class: "reserve" });
  c.last = el("div", { class: "last" });
  c.result = el("div", { class: "result" });
  c.alerts = el("div", { class: "alerts-line", role: "alert" });
  c.offline = el("div", { class: "offline-reason" });
  c.root.append(el("div", { class: "card-head" }, c.title, c.link), c.offline, c.top, c.reserveTop, el("div", { class: "board-holder" }, c.board.svg), c.reserveBottom, c.bottom, c.last, c.result, c.alerts);
  // The card is one stop of the tab order; Enter opens the board.
  c.root.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && ev.target === c.root) location.hash = "#board/" + encodeURIComponent(id);
  });
  c.root.addEventListener("click", (ev) => {
    if (!ev.target.closest("a")) location.hash = "#board/" + encodeURIComponent(id);
  });
  return c;
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

function updateCard(c, id, flipped) {
  c.flipped = flipped;
  const b = boardState(id);
  const sb = statusBoard(id);
  const fen = fenOf(b);
  if (c.root.dataset.fen !== fen) c.root.dataset.fen = fen;
  c.root.dataset.ply = b.pos ? b.pos.ply : "";
  const label = boardLabel(id, fen);
  updateBoardSvg(c.board, b.pos ? b.pos.pieces : {}, b.pos ? b.pos.last : "", flipped, label);
  const ls = linkState(id);
  c.link.className = "link " + (ls === "online" || ls === "offline" || ls === "none" ? ls : "unknown");
  setText(c.link, ls === "unknown" ? "link ?" : ls === "none" ? "no device" : ls);
  c.root.classList.toggle("offline", ls === "offline");
  c.root.classList.toggle("woodless", ls === "none");
  const why = ls === "offline" ? linkReason(id) : "";
  setText(c.offline, ls === "offline" ? "Offline" + (why ? ": " + why : " (no reason given)") : "");
  const round = tag(sb, "Round");
  c.root.dataset.round = round;
  setText(c.title, "Board " + id + (round ? " \u00b7 R" + round : ""));
  const [topSide, bottomSide] = flipped ? ["white", "black"] : ["black", "white"];
  c.top.dataset.side = topSide;
  c.bottom.dataset.side = bottomSide;
  setText(c.top.firstChild, tag(sb, topSide === "white" ? "White" : "Black") || (topSide === "white" ? "White" : "Black"));
  setText(c.bottom.firstChild, tag(sb, bottomSide === "white" ? "White" : "Black") || (bottomSide === "white" ? "White" : "Black"));
  const m = matchOf(id);
  const g = m && (m.games || []).find((x) => x.id === id);
  setText(c.reserveTop, g && g.reserves ? reserveText(g.reserves[topSide], topSide) : "");
  setText(c.reserveBottom, g && g.reserves ? reserveText(g.reserves[bottomSide], bottomSide) : "");
  c.reserveTop.hidden = c.reserveBottom.hidden = !g;
  setText(c.last, "Last move: " + lastMoveText(id));
  const result = sb && sb.game && sb.game.result !== "*" ? sb.game.result + (sb.game.reason ? " (" + sb.game.reason + ")" : "") : "";
  setText(c.result, result);
  const open = openAlerts(sb);
  c.root.classList.toggle("has-alert", open.length > 0);
  c.root.dataset.openAlerts = open.length;
  setText(c.alerts, open.length ? open.length + " open alert" + (open.length > 1 ? "s" : "") + ": " + open.map((a) => a.code).join(", ") : "");
  c.root.setAttribute("aria-label", label + (open.length ? "; " + open.length + " open alerts" : ""));
  updateClocks(c, id);
  if (b.arrival !== null) {
    if (window.eboarddBench) window.eboarddBench.push(performance.now() - b.arrival);
    b.arrival = null;
  }
}

function updateClocks(c, id) {
  const now = clocksNow(id);
  for (const row of [c.top, c.bottom]) {
    const side = row.dataset.side;
    const clock = row.lastChild;
    setText(clock, clockText(now[side]));
    clock.classList.toggle("running", now.running === side);
    clock.classList.toggle("low", now[side] !== null && now[side] < 30000);
  }
}

function matches(id) {
  const f = page.filter.trim().toLowerCase();
  if (!f) return true;
  const sb = statusBoard(id);
  const m = matchOf(id);
  const hay = ["board " + id, id, "r" + tag(sb, "Round"), "round " + tag(sb, "Round"), tag(sb, "White"), tag(sb, "Black"), tag(sb, "Event"), tag(sb, "Section"), m ? m.name : ""];
  return hay.some((h) => String(h).toLowerCase().includes(f));
}

function matchTitle(m) {
  return "Bughouse match " + m.name + (m.result && m.result !== "*" ? " \u00b7 " + m.result + " (team White " + m.boards[0] + " + Black " + m.boards[1] + ")" : "");
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
        node.link = el("a", { href: "#match/" + encodeURIComponent(m.name) }, "");
        node.title.append(node.link);
        node.root.append(node.title, node.boards);
        page.matchNodes.set(m.name, node);
      }
      setText(node.link, matchTitle(m));
      const roots = m.boards.map((bid) => cardFor(bid).root);
      // Put back only when changed: moving a node takes the keyboard focus away from a link in it.
      if (roots.length !== node.boards.children.length || roots.some((r, i) => node.boards.children[i] !== r)) node.boards.replaceChildren(...roots);
      // Partners side by side: White on A and Black on B sit on the same side, so B is drawn turned round.
      m.boards.forEach((bid, i) => updateCard(cardFor(bid), bid, i === 1));
      node.root.hidden = !m.boards.some(matches);
      wanted.push(node.root);
    } else {
      const c = cardFor(id);
      updateCard(c, id, flippedOf(id));
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
  for (const id of [...page.cards.keys()]) if (!ids.includes(id)) page.cards.delete(id);
  const same = wanted.length === hall.children.length && wanted.every((n, i) => hall.children[i] === n);
  if (!same) hall.replaceChildren(...wanted);
}

function cardFor(id) {
  let c = page.cards.get(id);
  if (!c) {
    c = makeCard(id, false);
    page.cards.set(id, c);
  }
  return c;
}

// One hall card after a /ws event: itself only.
function updateHallCard(id) {
  const c = page.cards.get(id);
  if (!c) return;
  const m = matchOf(id);
  updateCard(c, id, m && m.running !== false ? m.boards[1] === id : flippedOf(id));
}

// ---- a match -----------------------------------------------------------------------------------------------

// Both boards large, side by side, with the four reserves; each links to its board's page.
function renderMatchView(name) {
  const view = document.getElementById("match-view");
  const m = page.status ? (page.status.matches || []).find((x) => x.name === name) : undefined;
  if (!m) {
    page.viewCards.clear();
    page.matchView = null;
    view.replaceChildren(el("p", {}, page.status ? "No match " + name + " here. " : "Loading\u2026 "), el("a", { href: "#" }, "Back to the hall"));
    return;
  }
  if (page.matchView !== name || !view.querySelector(".match-boards")) {
    page.viewCards.clear();
    page.matchView = name;
    const boards = el("div", { class: "match-boards" });
    for (const bid of m.boards) {
      const c = makeCard(bid, true);
      page.viewCards.set(bid, c);
      boards.append(c.root);
    }
    page.matchTitle = el("h2", {});
    view.replaceChildren(el("p", {}, el("a", { href: "#" }, "\u2190 The hall")), page.matchTitle, boards);
  }
  view.dataset.match = name;
  setText(page.matchTitle, matchTitle(m) + (m.paused ? " \u00b7 paused" : ""));
  m.boards.forEach((bid, i) => updateCard(page.viewCards.get(bid), bid, i === 1));
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
  const flipped = flippedOf(id);
  const fen = fenOf(b);
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
  const big = makeBoardSvg();
  updateBoardSvg(big, b.pos ? b.pos.pieces : {}, b.pos ? b.pos.last : "", flipped, boardLabel(id, fen));
  const rotated = !!(sb.source && sb.source.rotated);
  const left = el(
    "section",
    { class: "large", "data-board": id, "data-fen": fen, "data-flipped": String(flipped) },
    el("h2", {}, "Board " + id, m ? el("span", {}, " \u00b7 ", el("a", { href: "#match/" + encodeURIComponent(m.name) }, "match " + m.name)) : "", tag(sb, "Round") ? " \u00b7 round " + tag(sb, "Round") : ""),
    el("p", {}, el("a", { href: "#" }, "\u2190 The hall"), " ", el("span", { class: "link " + linkState(id) }, linkText(id)),
      " ", el("button", { type: "button", class: "flip", "aria-pressed": String(flipped), onclick: () => { page.flipped.set(id, !flipped); markDirty(); } }, "Flip board"),
      rotated ? el("span", { class: "note" }, " (the board is set up rotated)") : ""),
    playerRow(topSide),
    g ? el("div", { class: "reserve", "data-side": topSide }, reserveText(g.reserves[topSide], topSide)) : null,
    big.svg,
    g ? el("div", { class: "reserve", "data-side": bottomSide }, reserveText(g.reserves[bottomSide], bottomSide)) : null,
    playerRow(bottomSide),
    el("p", {}, "To move: " + (b.pos ? b.pos.side : "?") + ". FEN: ", el("code", {}, (sb.game && sb.game.ply === (b.pos && b.pos.ply) ? sb.game.fen : fen)))
  );
  let partnerBox = null;
  if (m) {
    // The partner board, small, turned as a player of this board's bottom side sees their partner's.
    const partner = m.boards.find((x) => x !== id);
    const pb = boardState(partner);
    const pg = (m.games || []).find((x) => x.id === partner);
    const pfen = fenOf(pb);
    const pflip = !flipped;
    const [pTop, pBottom] = pflip ? ["white", "black"] : ["black", "white"];
    const small = makeBoardSvg();
    updateBoardSvg(small, pb.pos ? pb.pos.pieces : {}, pb.pos ? pb.pos.last : "", pflip, boardLabel(partner, pfen));
    partnerBox = el(
      "div",
      { class: "partner", "data-board": partner, "data-fen": pfen },
      el("p", {}, "Partner board: ", el("a", { href: "#board/" + encodeURIComponent(partner) }, "Board " + partner), " (" + linkState(partner) + ")"),
      pg ? el("div", { class: "reserve" }, reserveText(pg.reserves[pTop], pTop)) : null,
      small.svg,
      pg ? el("div", { class: "reserve" }, reserveText(pg.reserves[pBottom], pBottom)) : null
    );
  }

  // The right column is kept between renders, so a field being typed in keeps its focus and text.
  let sk = page.skeleton;
  if (!sk || sk.id !== id || !view.contains(sk.right)) {
    sk = { id, left: el("div", { class: "board-side" }), partner: el("div", { class: "partner-holder" }), result: el("div", {}), provisional: el("div", {}), state: el("div", {}), alerts: el("div", {}), moves: el("div", {}), actions: el("div", {}) };
    // Beside the board on a wide screen: the partner board first (its reserves in sight with the board's),
    // then the alerts; on a phone (one column) the partner board goes last (style.css), the alerts first.
    sk.right = el("section", { class: "board-info" }, sk.partner, sk.result, sk.provisional, sk.state, el("h2", {}, "Alerts"), sk.alerts, el("h2", {}, "Moves"), sk.moves, el("h2", {}, "Arbiter"), sk.actions);
    page.skeleton = sk;
    sk.stateKey = null;
    view.replaceChildren(sk.left, sk.right);
  }
  sk.left.replaceChildren(left);
  sk.partner.replaceChildren(partnerBox || "");
  sk.result.replaceChildren(sb.game && sb.game.result !== "*" ? el("p", { class: "result" }, "Result " + sb.game.result + (sb.game.reason ? " (" + sb.game.reason + ")" : "")) : "");
  const p = b.provisional;
  sk.provisional.replaceChildren(
    p ? el("p", { class: "provisional", "data-provisional": p.uci }, "Being played, not completed (no clock press yet): " + Math.ceil(p.ply / 2) + (p.ply % 2 ? ". " : "... ") + p.san) : ""
  );
  // The adjournment, the missed gap and a recovered gap still open to correction, with their actions: redrawn
  // only when they change.
  const ctl = sb.control || {};
  const stateKey = JSON.stringify([ctl.adjourned, ctl.missed_gap, ctl.recovered_gap, canControl()]);
  if (sk.stateKey !== stateKey) {
    sk.stateKey = stateKey;
    sk.state.replaceChildren(gameState(id, ctl));
  }
  sk.alerts.replaceChildren(alertList(id, sb));
  const jump = page.jumpTo;
  if (jump && jump.board === id) {
    page.jumpTo = null;
    const li = sk.alerts.querySelector('li[data-alert="' + jump.number + '"]');
    if (li) {
      li.classList.add("jumped");
      li.scrollIntoView({ block: "center" });
    }
  }
  sk.moves.replaceChildren(moveTable(b.moves));
  const box = actions(id);
  if (sk.actions.firstChild !== box) sk.actions.replaceChildren(box);
}

function gameState(id, ctl) {
  const out = el("div", {});
  const dis = !canControl();
  if (ctl.adjourned) {
    const a = ctl.adjourned;
    out.append(
      el("div", { class: "adjourned", "data-adjourned": "true" },
        el("h2", {}, "Adjourned"),
        el("p", {}, (a.sealed_by === "white" ? "White" : "Black") + " sealed move " + a.move_number + (a.clock ? "; clocks White " + clockText(a.clock.white) + ", Black " + clockText(a.clock.black) : "") + (a.since ? " \u00b7 " + new Date(a.since).toLocaleTimeString() : "")),
        el("button", { type: "button", class: "resume", disabled: dis, onclick: () => confirm("Resume the game on board " + id + "? The sealed move is played.") && act(id, "resume", {}) }, "Resume"))
    );
  }
  if (ctl.missed_gap) {
    const gap = ctl.missed_gap;
    const list = el("ol", { class: "candidates" });
    const all = gap.candidates || [];
    const shown = Math.min(all.length, MAX_CANDIDATES_SHOWN);
    const total = Math.max(gap.candidates_total || 0, all.length);
    // The share of those not shown, when every one shown has its share (the rules' order).
    const firsts = all.slice(0, shown);
    const restShare = firsts.length && firsts.every((c) => typeof c.share === "number") ? Math.max(0, 1 - firsts.reduce((a, c) => a + c.share, 0)) : null;
    for (const c of firsts) {
      list.append(
        el("li", { "data-candidate": c.number },
          el("span", {}, (c.san || []).join(" ") + " "),
          typeof c.share === "number" ? el("span", { class: "share", title: "how sure the ranking is of it, among the sequences listed and not" }, shareText(c.share) + " ") : "",
          el("button", { type: "button", class: "recover", disabled: dis, onclick: () => confirm("Take candidate " + c.number + " as the moves played on board " + id + "?") && act(id, "recover", { candidate: c.number }) }, "Take candidate " + c.number))
      );
    }
    const typed = el("input", { type: "text", class: "gap-moves", placeholder: "the moves played, e.g. g7g6 f2f3", "aria-label": "The gap's moves as played", size: 28 });
    const side = el("select", { "aria-label": "Side to move in the adopted position" }, el("option", { value: "" }, "side: the clock's"), el("option", { value: "white" }, "White to move"), el("option", { value: "black" }, "Black to move"));
    out.append(
      el("div", { class: "missed-gap", "data-missed-gap": "true" },
        el("h2", {}, "Moves missed"),
        el("p", {}, gap.past_bound
          ? "Moves were made from ply " + gap.first_ply + " while the board was not followed, more than the search reaches (the moves since are held back until the gap's moves are given): type the moves played."
          : gap.length_unknown
            ? "Moves were made from ply " + gap.first_ply + " while the board was not followed, how many is not known" + (gap.last_ply ? ": " + (gap.last_ply - gap.first_ply + 1) + " plies or more" : "") + " (the moves since are held back until the gap is settled). The shortest sequences that explain the position (or type the moves played, of any number):"
            : "Plies " + gap.first_ply + "\u2013" + gap.last_ply + " were made while the board was not followed." + (gap.length_uncertain ? " The clock counts no presses: a longer sequence, with a piece's detour, may be the one played; typed below, it puts every later move at its ply." : "") + " The sequences that explain the position:"),
        list,
        total > shown ? el("p", {}, "\u2026 and " + (total - shown) + " less likely" + (restShare !== null ? ", " + shareText(restShare) + " together" : "") + " (the likeliest are listed first): type the moves played instead.") : "",
        el("form", { class: "actions", onsubmit: (ev) => {
          ev.preventDefault();
          if (typed.value.trim() && confirm("Record " + typed.value.trim() + " as the moves played on board " + id + "?")) act(id, "recover", { moves: typed.value.trim() });
        } }, typed, el("button", { type: "submit", class: "recover-moves", disabled: dis }, "Recover these moves")),
        el("div", { class: "actions" }, "Or follow the game from what the board shows:", side,
          el("button", { type: "button", class: "adopt", disabled: dis, onclick: () => confirm("Adopt the position board " + id + " shows?") && act(id, "adopt", side.value ? { side: side.value } : {}) }, "Adopt position")))
    );
  }
  if (ctl.recovered_gap && !ctl.missed_gap) {
    const gap = ctl.recovered_gap;
    const typed = el("input", { type: "text", class: "gap-moves", placeholder: "the moves played, e.g. g1f3 b8c6 f3g1", "aria-label": "The recovered gap's moves as played", size: 28 });
    out.append(
      el("div", { class: "recovered-gap", "data-recovered-gap": "true" },
        el("h2", {}, "Gap recovered"),
        el("p", {}, "Plies " + gap.first_ply + "\u2013" + gap.last_ply + " were recovered after the board was not followed, as the one sequence that explains the position. The clock counts no presses: a longer sequence, with a piece's detour, may be the one played; typed here, it puts every later move at its ply."),
        el("form", { class: "actions", onsubmit: (ev) => {
          ev.preventDefault();
          if (typed.value.trim() && confirm("Record " + typed.value.trim() + " as the moves played on board " + id + "?")) act(id, "recover", { moves: typed.value.trim() });
        } }, typed, el("button", { type: "submit", class: "recover-moves", disabled: dis }, "Correct the gap's moves")))
    );
  }
  return out;
}

// A candidate's share (0 to 1) as the page shows it: "42 %", "<1 %", ">99 %".
function shareText(share) {
  const pct = share * 100;
  return pct < 0.5 ? "<1 %" : pct > 99.5 ? ">99 %" : Math.round(pct) + " %";
}

function moveCell(m) {
  if (!m) return el("td", {});
  const cls = "move" + (m.recovered ? " recovered" : "") + (m.illegal ? " illegal" : "");
  const td = el("td", { class: cls, "data-ply": m.ply }, m.san);
  if (m.illegal) td.append(el("span", { class: "mark illegal", title: "an illegal move that stood (FIDE A.4.2)" }, "illegal"));
  if (m.recovered) td.append(el("span", { class: "mark recovered", title: "found after a gap, not seen being made" }, "recovered"));
  if (m.clock) {
    const mover = m.ply % 2 ? "white" : "black";
    td.append(el("span", { class: "clk", title: "%clk: the mover's clock after the move" }, "[" + clockText(m.clock[mover]) + "]"));
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
    // What the arbiter usually does (the daemon's table, from the rules), and the 7.5.5 penalty as one click.
    if (a.action) li.append(el("p", { class: "alert-action" }, "Usual action: " + a.action));
    if (a.proposed_clock && !a.acknowledged) li.append(penaltyButton(id, sb, a));
    if (!a.acknowledged)
      li.append(" ", el("button", { type: "button", class: "ack", disabled: !canControl(), onclick: () => act(id, "ack", { alert: a.number }) }, "Acknowledge"));
    ul.append(li);
  }
  return ul;
}

// FIDE 7.5.5 (or the profile's bonus) proposed with an illegal-move alert: the time added to the opponent's
// clock as it stands (POST /control/<id>/clock, the clock's confirmation awaited). The answer stays beside the
// button across the list's redraws (page.clockSaid).
function penaltyButton(id, sb, a) {
  const p = a.proposed_clock;
  const who = p.add_to === "white" ? "White" : "Black";
  const key = id + "#" + a.number;
  const clock = (sb.control && sb.control.clock) || {};
  const box = el("div", { class: "penalty", "data-penalty": key });
  const minutes = clockText(p.add_ms).replace(/^0:0?/, "");
  box.append(el("span", {}, "Proposed (" + (a.penalty || "penalty") + "): " + who + " " + clockText(p[p.add_to]) + " (+" + minutes + "), " + (who === "White" ? "Black " + clockText(p.black) : "White " + clockText(p.white)) + " at the press. "));
  const button = el("button", { type: "button", class: "apply-penalty", disabled: !canControl() || !clock.settable, title: clock.settable ? "" : clock.why || "", onclick: () => {
    if (!confirm("Add " + minutes + " to " + who + "'s clock on board " + id + " (" + (a.penalty || "FIDE 7.5.5") + ")? The clock's other side is left as it is.")) return;
    page.clockSaid[key] = { ok: true, words: "Sending to the clock\u2026" };
    sayNear(button, page.clockSaid[key]);
    act(id, "clock", { add_ms: p.add_ms, side: p.add_to }, button).then((said) => {
      page.clockSaid[key] = said;
      scheduleStatus(0);
    });
  } }, "Give " + who + " +" + minutes);
  box.append(button);
  if (page.clockSaid[key]) box.append(el("span", { class: "said", role: "status", "data-ok": String(page.clockSaid[key].ok) }, page.clockSaid[key].words));
  else if (!clock.settable && clock.why) box.append(el("span", { class: "said", "data-ok": "false" }, "Set the clock by hand: " + clock.why));
  return box;
}

// The clock's times set from the desk (a reinstated position, an adjournment's resumption): both times, by
// colour, or by side of the clock while nobody knows which is White's.
function clockActions(id, dis) {
  const by = el("select", { class: "clock-by", "aria-label": "Times given for" }, el("option", { value: "colour" }, "White / Black"), el("option", { value: "side" }, "Left / Right"));
  const first = el("input", { type: "text", class: "clock-first", placeholder: "h:mm:ss", "aria-label": "White's (or the left) time", size: 8 });
  const second = el("input", { type: "text", class: "clock-second", placeholder: "h:mm:ss", "aria-label": "Black's (or the right) time", size: 8 });
  const button = el("button", { type: "button", class: "set-clock", disabled: dis, onclick: () => {
    const names = by.value === "colour" ? ["white", "black"] : ["left", "right"];
    if (!first.value.trim() || !second.value.trim()) {
      sayNear(button, { ok: false, words: "Give both times (h:mm:ss)." });
      return;
    }
    if (!confirm("Set the clock of board " + id + " to " + names[0] + " " + first.value.trim() + ", " + names[1] + " " + second.value.trim() + "?")) return;
    sayNear(button, { ok: true, words: "Sending to the clock\u2026" });
    act(id, "clock", { [names[0]]: first.value.trim(), [names[1]]: second.value.trim() }, button);
  } }, "Set clock");
  return el("div", { class: "actions clock-actions" }, "Clock:", by, first, second, button);
}

// Kept from one render to the next (a FEN being typed must survive the moves coming in).
function actions(id) {
  const sbw = statusBoard(id);
  const woodless = !!(sbw && sbw.woodless);
  const key = id + "|" + canControl() + "|" + woodless;
  if (page.actions && page.actions.key === key) return page.actions.box;
  const box = el("div", {});
  page.actions = { key, box };
  if (!canControl()) box.append(el("p", { class: "control-note" }, controlOff() ? "Control is off (no http.token in the daemon's configuration): nothing can be changed from here." : "Sign in with the control token to act."));
  const dis = !canControl();
  const fen = el("input", { type: "text", class: "fen", placeholder: "FEN (empty: the initial position)", "aria-label": "FEN of the new game", size: 30 });
  if (woodless) {
    // A board without wood: the arbiter types its moves (SAN or UCI), with the clocks after the last if known.
    const typed = el("input", { type: "text", class: "typed-moves", placeholder: "moves, e.g. e4 e5 Nf3 (or e2e4)", "aria-label": "Moves to play", size: 26, autocomplete: "off" });
    const clkW = el("input", { type: "text", class: "typed-clock-white", placeholder: "White clock h:mm:ss", "aria-label": "White's clock after the move", size: 9 });
    const clkB = el("input", { type: "text", class: "typed-clock-black", placeholder: "Black clock h:mm:ss", "aria-label": "Black's clock after the move", size: 9 });
    box.append(
      el("form", { class: "actions typed", onsubmit: (ev) => {
        ev.preventDefault();
        const moves = typed.value.trim().split(/[\s,]+/).filter((m) => m && !/^\d+\.+$/.test(m));
        if (!moves.length) return;
        const clock = clkW.value.trim() && clkB.value.trim() ? { white: clkW.value.trim(), black: clkB.value.trim() } : null;
        const body = clock && moves.length === 1 ? { move: moves[0], clock } : { moves };
        typed.value = "";
        act(id, "moves", body);
      } }, "No device: type the moves", typed, clkW, clkB, el("button", { type: "submit", class: "play-moves", disabled: dis }, "Play"))
    );
  }
  box.append(
    el("div", { class: "actions" },
      el("button", { type: "button", disabled: dis, onclick: () => confirm("Draw by agreement on board " + id + "?") && act(id, "draw", {}) }, "Draw"),
      el("button", { type: "button", disabled: dis, onclick: () => confirm("White resigns on board " + id + "?") && act(id, "resign", { side: "white" }) }, "White resigns"),
      el("button", { type: "button", disabled: dis, onclick: () => confirm("Black resigns on board " + id + "?") && act(id, "resign", { side: "black" }) }, "Black resigns")),
    el("div", { class: "actions" }, fen,
      el("button", { type: "button", class: "new-game", disabled: dis, onclick: () => confirm("Start a new game on board " + id + "?") && act(id, "new-game", fen.value.trim() ? { fen: fen.value.trim() } : {}) }, "New game / set up position"))
  );
  // Players and tags: the two players, the round, and any other tag by name.
  const white = el("input", { type: "text", class: "tag-white", placeholder: "White", "aria-label": "White player", size: 14 });
  const black = el("input", { type: "text", class: "tag-black", placeholder: "Black", "aria-label": "Black player", size: 14 });
  const round = el("input", { type: "text", class: "tag-round", placeholder: "Round", "aria-label": "Round", size: 5 });
  const tagName = el("input", { type: "text", placeholder: "Tag (e.g. Event)", "aria-label": "Other tag's name", size: 12 });
  const tagValue = el("input", { type: "text", placeholder: "value", "aria-label": "Other tag's value", size: 14 });
  box.append(
    el("form", { class: "actions", onsubmit: (ev) => {
      ev.preventDefault();
      const tags = {};
      if (white.value.trim()) tags.White = white.value.trim();
      if (black.value.trim()) tags.Black = black.value.trim();
      if (round.value.trim()) tags.Round = round.value.trim();
      if (tagName.value.trim()) tags[tagName.value.trim()] = tagValue.value.trim();
      act(id, "tags", tags);
    } }, white, black, round, tagName, tagValue, el("button", { type: "submit", class: "set-tags", disabled: dis }, "Set players and tags"))
  );
  const side = el("select", { "aria-label": "Side promoting" }, el("option", { value: "white" }, "White"), el("option", { value: "black" }, "Black"));
  const piece = el("select", { "aria-label": "Promotion piece" }, ...[["q", "queen"], ["r", "rook"], ["b", "bishop"], ["n", "knight"]].map(([v, n]) => el("option", { value: v }, n)));
  box.append(
    el("div", { class: "actions" }, "Next promotion:", side, piece,
      el("button", { type: "button", disabled: dis, onclick: () => act(id, "promotion", { side: side.value, piece: piece.value }) }, "Set promotion piece"))
  );
  box.append(resultForm(id, dis));
  if (!woodless) box.append(clockActions(id, dis));  // a board without wood has no clock to set
  // Adjourning: the player on move seals his move (never shown until the resumption).
  const sealer = el("select", { "aria-label": "Side sealing" }, el("option", { value: "white" }, "White"), el("option", { value: "black" }, "Black"));
  const sealed = el("input", { type: "password", class: "sealed", placeholder: "sealed move (e.g. Nf3)", "aria-label": "The sealed move", size: 12, autocomplete: "off" });
  box.append(
    el("div", { class: "actions" }, "Adjourn:", sealer, sealed,
      el("button", { type: "button", class: "adjourn", disabled: dis, onclick: () => {
        const body = { side: sealer.value, sealed: sealed.value.trim() };
        sealed.value = "";
        act(id, "adjourn", body);
      } }, "Adjourn"),
      el("button", { type: "button", class: "resume", disabled: dis, onclick: () => confirm("Resume the game on board " + id + "? The sealed move is played.") && act(id, "resume", {}) }, "Resume"))
  );
  return box;
}

// The arbiter's result (POST /control/<id>/result): a decision, a forfeit, a flag seen, on the current game
// or an earlier one of the round (its number); on a game over already it corrects the record.
function resultForm(id, dis) {
  const code = el("select", { class: "arbiter-result", "aria-label": "Result" },
    ...[["1-0", "1-0"], ["0-1", "0-1"], ["1/2-1/2", "\u00bd-\u00bd"], ["+/-", "+/\u2212 forfeit (White wins)"], ["-/+", "\u2212/+ forfeit (Black wins)"], ["-/-", "\u2212/\u2212 double forfeit"]].map(([v, n]) => el("option", { value: v }, n)));
  const kind = el("select", { class: "arbiter-kind", "aria-label": "Kind of result" },
    el("option", { value: "" }, "by its result"), el("option", { value: "decision" }, "decision"), el("option", { value: "flag" }, "flag seen"), el("option", { value: "forfeit" }, "forfeit"));
  const rule = el("input", { type: "text", class: "arbiter-rule", placeholder: "FIDE article (e.g. 6.7.1)", "aria-label": "FIDE article", size: 10 });
  const game = el("input", { type: "number", class: "arbiter-game", min: 1, placeholder: "game (current)", "aria-label": "Game number (empty: the current game)", size: 6 });
  const reason = el("input", { type: "text", class: "arbiter-reason", placeholder: "reason (goes into the record)", "aria-label": "Reason", size: 28, required: true });
  return el("form", { class: "actions result-form", onsubmit: (ev) => {
    ev.preventDefault();
    const body = { result: code.value, reason: reason.value.trim() };
    if (kind.value) body.kind = kind.value;
    if (rule.value.trim()) body.rule = rule.value.trim();
    if (game.value.trim()) body.game = Number(game.value);
    const which = body.game ? "game " + body.game : "the current game";
    if (confirm("Enter " + code.value + " on board " + id + ", " + which + "? A result given or corrected is final: the record is rewritten (the earlier version kept) and signed again.")) act(id, "result", body);
  } }, "Arbiter's result:", code, kind, rule, game, reason, el("button", { type: "submit", class: "give-result", disabled: dis }, "Enter result"));
}

// The words for a result entered, from the daemon's answer.
function resultWords(text) {
  try {
    const a = JSON.parse(text);
    return (a.corrected ? "Result of game " + a.game + " corrected to " : "Result of game " + a.game + ": ") + a.code + " (" + a.kind + ", art. " + a.rule + ")" + (a.corrected ? "; was " + a.previous + ", kept beside it." : ".") + (a.signed ? " Signed again." : "") +
      (a.match ? " Bughouse match " + a.match.name + (a.match.number ? " (" + a.match.number + ")" : "") + ": " + a.match.result + " for the team of White A and Black B." : "");
  } catch (err) {
    return "Result recorded.";
  }
}

function canControl() {
  return !!token() && page.right === "control";
}

// The daemon has no control token (/status http.control "off"): no sign-in can give control.
function controlOff() {
  return !!(page.status && page.status.http && page.status.http.control === "off");
}

function showAnswer(text) {
  const answer = document.getElementById("answer");
  answer.hidden = false;
  document.getElementById("answer-text").textContent = text;
}

// What an action did, in words, from its path and the daemon's answer (the raw answer stays in the details).
const DONE = { ack: "Alert acknowledged.", draw: "Draw recorded.", resign: "Resignation recorded.", "new-game": "New game started.", tags: "Players and tags set.", promotion: "Promotion piece set.", adjourn: "Game adjourned.", resume: "Game resumed.", recover: "Moves recovered.", adopt: "Position adopted.", moves: "Moves played.", clock: "The clock confirmed the times." };

function answerWords(method, path, status, text) {
  if (status === null) return { ok: false, words: "No answer from the daemon: is it running?" };
  let why = "";
  try {
    why = JSON.parse(text).error || "";
  } catch (err) {
    why = "";
  }
  if (status >= 200 && status < 300) {
    if (method === "DELETE") return { ok: true, words: "Board removed." };
    if (path === "/boards") return { ok: true, words: "Board added." };
    if (path.endsWith("/result")) return { ok: true, words: resultWords(text) };
    return { ok: true, words: DONE[path.split("/").pop()] || "Done." };
  }
  if (status === 401) return { ok: false, words: "Refused: sign in with the control token." };
  if (path.endsWith("/clock") && (status === 502 || status === 503 || status === 504)) return { ok: false, words: "Not set: " + why };
  return { ok: false, words: "Refused" + (why ? ": " + why : " (" + status + ")") };
}

// The answer beside what asked for it (the button or the form's button), as a short sentence.
function sayNear(near, said) {
  if (!near || !near.isConnected) return;
  let out = near.nextElementSibling;
  if (!out || !out.classList.contains("said")) {
    out = el("span", { class: "said", role: "status" });
    near.after(out);
  }
  out.dataset.ok = String(said.ok);
  out.textContent = said.words;
}

// Requests asked so far: an answer is shown only if nothing was asked after it (a control is answered once
// its effect is durable, so two answers in flight may come in either order).
let asked = 0;

async function request(method, path, body, near) {
  const mine = ++asked;
  if (near === undefined) {
    // The control clicked or submitted: a button, or the submit button of the form typed in.
    const a = document.activeElement;
    near = a && a.tagName === "BUTTON" ? a : a && a.form ? a.form.querySelector("button[type=submit]") : null;
  }
  let text;
  let status = null;
  let reply = "";
  try {
    const init = { method, headers: authHeaders(body === undefined ? {} : { "Content-Type": "application/json" }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(path, init);
    status = res.status;
    reply = await res.text();
    text = method + " " + path + " \u2192 " + res.status + "\n" + reply;
  } catch (err) {
    text = method + " " + path + ": no answer (" + err + ")";
  }
  const said = answerWords(method, path, status, reply);
  if (mine === asked) {
    showAnswer(said.words + "\n" + text);
    sayNear(near, said);
  }
  scheduleStatus(0);
  return said;
}

function act(id, action, body, near) {
  return request("POST", "/control/" + encodeURIComponent(id) + "/" + action, body, near);
}

// ---- the operator's panel: ports -----------------------------------------------------------------------------

function renderPorts() {
  const list = document.getElementById("ports-list");
  const s = page.status;
  const rows = [];
  for (const b of (s && s.boards) || []) rows.push([b.id, b.device || (b.woodless ? "(no device: moves typed)" : ""), (linkState(b.id) === "none" ? "no device" : linkState(b.id)) + (linkReason(b.id) ? " (" + linkReason(b.id) + ")" : "")]);
  for (const [id, why] of Object.entries((s && s.failed_boards) || {})) rows.push([id, "", "not started: " + why]);
  const key = JSON.stringify([rows, canControl()]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(
    ...rows.map(([id, dev, state]) =>
      el("li", { "data-board": id, class: state.startsWith("online") ? "" : "down" }, "Board " + id + (dev ? " on " + dev : "") + " \u00b7 " + state + " ",
        el("button", { type: "button", class: "remove-board", disabled: !canControl(), onclick: () => confirm("Stop and forget board " + id + " (until a reload)?") && request("DELETE", "/boards/" + encodeURIComponent(id)) }, "Remove"))
    )
  );
  document.getElementById("add-board-button").disabled = !canControl();
}

// ---- page --------------------------------------------------------------------------------------------------

function showNotice(text) {
  const n = document.getElementById("notice");
  n.textContent = text || "";
  n.hidden = !text;
}

// What changed: one board (a /ws event: only its card is redrawn, which keeps a hall of hundreds of boards
// cheap at blitz pace), or everything (no argument). Drawn once per frame.
function markDirty(board) {
  if (typeof board === "string") page.dirtyBoards.add(board);
  else if (board !== null) page.dirtyAll = true; // null: the header only (live, alert count, title)
  if (page.renderQueued) return;
  page.renderQueued = true;
  requestAnimationFrame(render);
}

// The open alerts in the hall's order; the next is the one after the last jumped to (round and round).
function nextOpenAlert() {
  const all = [];
  for (const b of (page.status && page.status.boards) || []) for (const a of openAlerts(b)) all.push({ board: b.id, number: a.number, code: a.code });
  if (!all.length) return null;
  const i = page.lastJump ? all.findIndex((x) => x.board === page.lastJump.board && x.number === page.lastJump.number) : -1;
  return all[(i + 1) % all.length];
}

function route() {
  const m = location.hash.match(/^#(board|match)\/(.+)$/);
  return m ? { kind: m[1], id: decodeURIComponent(m[2]) } : { kind: "hall", id: null };
}

function render() {
  page.renderQueued = false;
  const live = isLive();
  const liveEl = document.getElementById("live");
  liveEl.dataset.live = String(live);
  setText(liveEl, live ? "live" : page.needsToken ? "not live: reading needs a token" : page.wsOpen ? "not live: no status" : "not live: reconnecting\u2026");
  document.body.classList.toggle("stale", !live);
  let open = 0;
  for (const b of (page.status && page.status.boards) || []) open += openAlerts(b).length;
  const total = document.getElementById("alert-total");
  total.dataset.count = String(open);
  setText(total, open ? open + " open alert" + (open > 1 ? "s" : "") : "");
  const next = nextOpenAlert();
  total.href = next ? "#board/" + encodeURIComponent(next.board) : "#";
  total.title = next ? "Go to the next open alert: board " + next.board + ", #" + next.number + " " + next.code : "";
  const title = (open ? "(" + open + ") " : "") + (live ? "" : "[not live] ") + "eboardd";
  if (document.title !== title) document.title = title;
  if (page.needsToken && !token()) showNotice("Reading this daemon needs a token: sign in above.");
  else if (!page.needsToken) showNotice("");
  const signedIn = !!token();
  const off = controlOff() && !signedIn;
  document.getElementById("control-off").hidden = !off;
  document.getElementById("signin").hidden = signedIn || off;
  document.getElementById("signed-in").hidden = !signedIn;
  setText(document.getElementById("right"), !signedIn ? "" : page.right === "refused" ? "Token refused" : "Signed in (" + (page.right || "checking") + ")");
  const r = route();
  if (document.body.dataset.view !== r.kind) document.body.dataset.view = r.kind;
  document.getElementById("hall").hidden = r.kind !== "hall";
  document.getElementById("ports").hidden = r.kind !== "hall";
  document.getElementById("board-view").hidden = r.kind !== "board";
  document.getElementById("match-view").hidden = r.kind !== "match";
  const all = page.dirtyAll;
  const some = page.dirtyBoards;
  page.dirtyAll = false;
  page.dirtyBoards = new Set();
  if (r.kind === "board") {
    const m = matchOf(r.id);
    if (all || some.has(r.id) || (m && m.boards.some((x) => some.has(x)))) renderBoardView(r.id);
  } else if (r.kind === "match") {
    if (all || page.matchView !== r.id) renderMatchView(r.id);
    else for (const b of some) if (page.viewCards.has(b)) updateCard(page.viewCards.get(b), b, page.viewCards.get(b).flipped);
  } else if (all) {
    renderHall();
    renderPorts();
  } else {
    for (const b of some) updateHallCard(b);
  }
  // What was not drawn (another view) counts as shown: its time would only measure the switch of views.
  for (const b of some) boardState(b).arrival = null;
}

function tick() {
  if (!isLive()) return;
  const r = route();
  if (r.kind === "hall") {
    for (const [bid, c] of page.cards) updateClocks(c, bid);
  } else if (r.kind === "match") {
    for (const [bid, c] of page.viewCards) updateClocks(c, bid);
  } else {
    const now = clocksNow(r.id);
    for (const row of document.querySelectorAll("#board-view .large > .player")) {
      const side = row.dataset.side;
      setText(row.lastChild, clockText(now[side]));
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
  document.getElementById("alert-total").addEventListener("click", (ev) => {
    const next = nextOpenAlert();
    if (!next) return ev.preventDefault();
    page.lastJump = page.jumpTo = next;
    if (location.hash === "#board/" + encodeURIComponent(next.board)) {
      ev.preventDefault();
      page.skeleton = null;
      markDirty();
    }
  });
  document.getElementById("filter").addEventListener("input", (ev) => {
    page.filter = ev.target.value;
    markDirty();
  });
  document.getElementById("add-board").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const id = f.elements["board-id"].value.trim();
    const port = f.elements["board-port"].value.trim();
    const protocol = f.elements["board-protocol"].value;
    // A board without a device has no port; a board with one needs it (the daemon says so too).
    request("POST", "/boards", protocol === "none" ? { id, protocol } : { id, port, protocol });
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
  window.addEventListener("hashchange", () => {
    page.skeleton = null;
    page.matchView = null;
    markDirty();
  });
  setInterval(tick, 200);
  connect();
  fetchStatus();
  markDirty();
}

init();
