// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Runs lichess' own DGT board page (lila's ui/dgt play.ts, unmodified, bundled outside this tree: its
// code is AGPL and is never part of eboardd) under Node, against eboardd's LiveChess listener, with a
// stand-in of the lichess Board API that plays the other side of one game and records what the page posts.
//
// The bundle (LILA_DGT_BUNDLE) is a script that sets globalThis.lilaDgtPlay to play.ts's default export.
// What a browser gives the page is given here: a document with the two elements it writes its log into,
// localStorage (the LiveChess URL), fetch with lichess' origin (the stand-in's), and WebSocket (Node's,
// --experimental-websocket). Nothing of the page is changed.
//
// usage: node --experimental-websocket lila_dgt_runner.mjs LIVECHESS_WS_URL COLOR "SAN SAN ..." RESULT OUT.json
//   COLOR: white or black, the side the page plays (the stand-in plays the other); RESULT: the PGN result.
// Prints "ATTACHED" when the page has sent its setup (the board may start), "DONE" when the game is whole.
// CHESSOPS_DIR names chessops' package folder (to read the SAN of the game into UCI).
import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

const [liveChessUrl, color, sanText, result, outPath] = process.argv.slice(2);
const chessops = process.env.CHESSOPS_DIR;
const { Chess, castlingSide, normalizeMove } = await import(pathToFileURL(join(chessops, 'dist/esm/chess.js')).href);
const { parseSan } = await import(pathToFileURL(join(chessops, 'dist/esm/san.js')).href);
const { parseUci, makeUci, makeSquare, squareRank } = await import(pathToFileURL(join(chessops, 'dist/esm/util.js')).href);

// Castling as lichess writes it in a game's moves (e1g1), whatever form it was given in.
function standardUci(pos, move) {
  const side = castlingSide(pos, move);
  if (!side) return makeUci(move);
  const rank = squareRank(move.from) + 1;
  return makeSquare(move.from) + (side === 'h' ? 'g' : 'c') + rank;
}

const expected = [];
{
  const pos = Chess.default();
  for (const san of sanText.split(' ').filter(Boolean)) {
    const m = parseSan(pos, san);
    if (!m) throw new Error(`the game's move ${san} does not replay`);
    expected.push(standardUci(pos, m));
    pos.play(m);
  }
}

// The lichess Board API stand-in: one game, "g1", the page's user against an opponent who plays the
// game's moves of the other side as soon as it is their turn (once the page attached the game).
const me = { id: 'eboardtester', username: 'EboardTester' };
const opponent = { id: 'opponent', name: 'Opponent', title: null, rating: 1500 };
const moves = []; // standard UCI, as lichess sends them
const game = Chess.default();
const posted = []; // what the page posted, in order
const wrong = []; // posted moves that were not the game's next one (lichess takes any legal move)
const refused = []; // posted moves lichess would refuse (not its turn, illegal)
let diverged = false;
let attached = 0;
let liveChessConnections = 0;
const streams = new Set();
const myTurn = () => (moves.length % 2 === 0 ? 'white' : 'black') === color;
const finished = () => moves.length >= expected.length;

function state() {
  const s = { type: 'gameState', moves: moves.join(' '), wtime: 5400000, btime: 5400000, winc: 30000, binc: 30000,
    wdraw: false, bdraw: false, status: 'started' };
  if (finished() || diverged) {
    if (result === '1/2-1/2') s.status = 'draw';
    else { s.status = 'resign'; s.winner = result === '1-0' ? 'white' : 'black'; }
  }
  return s;
}
function gameFull() {
  const white = color === 'white' ? { id: me.id, name: me.username, title: null, rating: 1500 } : opponent;
  const black = color === 'black' ? { id: me.id, name: me.username, title: null, rating: 1500 } : opponent;
  return { id: 'g1', variant: { key: 'standard', name: 'Standard', short: 'Std' }, clock: { initial: 5400000, increment: 30000 },
    speed: 'classical', perf: { name: 'Classical' }, rated: false, createdAt: Date.now(), white, black,
    initialFen: 'startpos', type: 'gameFull', state: state() };
}
function push() {
  const line = JSON.stringify(state()) + '\n';
  for (const res of streams) res.write(line);
}
function play(uci) {
  const m = normalizeMove(game, parseUci(uci));
  moves.push(standardUci(game, m));
  game.play(m);
}
function opponentPlays() {
  if (!attached || diverged || finished() || myTurn()) return;
  play(expected[moves.length]);
  push();
  if (finished()) done();
}
let doneSent = false;
function done() {
  if (doneSent) return;
  doneSent = true;
  setTimeout(() => {
    console.log('DONE');
    finish(0);
  }, 3000);
}

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://stand-in');
  if (req.method === 'GET' && url.pathname === '/api/account') {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    return res.end(JSON.stringify({ ...me, perfs: {} }));
  }
  if (req.method === 'GET' && url.pathname === '/api/stream/event') {
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    res.write(JSON.stringify({ type: 'gameStart', game: { id: 'g1' } }) + '\n');
    const keep = setInterval(() => res.write('\n'), 3000);
    return req.on('close', () => clearInterval(keep));
  }
  if (req.method === 'GET' && url.pathname === '/api/board/game/stream/g1') {
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
    res.write(JSON.stringify(gameFull()) + '\n');
    streams.add(res);
    const keep = setInterval(() => res.write('\n'), 3000);
    return req.on('close', () => {
      clearInterval(keep);
      streams.delete(res);
    });
  }
  const mm = url.pathname.match(/^\/api\/board\/game\/g1\/move\/([a-h][1-8][a-h][1-8][qrbn]?)$/);
  if (req.method === 'POST' && mm) {
    const uci = mm[1];
    posted.push(uci);
    const move = parseUci(uci);
    const m = move && normalizeMove(game, move);
    if (!myTurn() || finished() || diverged || !m || !game.isLegal(m)) {
      refused.push({ uci, ply: moves.length });
      res.writeHead(400, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ error: 'Not your turn, or game already over' }));
    }
    const ply = moves.length;
    play(uci);
    if (moves[ply] !== expected[ply]) {
      wrong.push({ ply, posted: moves[ply], expected: expected[ply] });
      diverged = true;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
    push();
    if (finished() || diverged) done();
    else setTimeout(opponentPlays, 100);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ error: 'Not found' }));
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}`;

function finish(code) {
  const out = { color, moves, expected, posted, wrong, refused, attached, liveChessConnections,
    complete: moves.length === expected.length && moves.every((m, i) => m === expected[i]) };
  writeFileSync(outPath, JSON.stringify(out));
  process.exit(code);
}

// What a browser gives the page.
const element = () => ({ innerHTML: '', scrollHeight: 0, clientHeight: 0, scrollTop: 0 });
const elements = new Map();
globalThis.document = { getElementById: id => elements.get(id) ?? (elements.set(id, element()), elements.get(id)) };
const storage = { 'dgt-livechess-url': liveChessUrl, 'dgt-verbose': 'false', 'dgt-speech-synthesis': 'false' };
globalThis.localStorage = { getItem: k => (k in storage ? storage[k] : null) };
const nodeFetch = globalThis.fetch;
globalThis.fetch = (input, init) => nodeFetch(typeof input === 'string' && input.startsWith('/') ? origin + input : input, init);
const NodeWebSocket = globalThis.WebSocket;
globalThis.WebSocket = class extends NodeWebSocket {
  constructor(url, protocols) {
    super(url, protocols);
    ++liveChessConnections;
    console.info(`[runner] LiveChess connection ${liveChessConnections}`);
  }
  send(data) {
    // The page attaches a lichess game with a setup call: the board may start, the opponent may play.
    if (typeof data === 'string' && data.includes('"method":"setup"')) {
      ++attached;
      if (attached === 1) console.info('ATTACHED');
      setTimeout(opponentPlays, 500);
    }
    super.send(data);
  }
};

const bundle = readFileSync(process.env.LILA_DGT_BUNDLE, 'utf8');
vm.runInThisContext(bundle, { filename: process.env.LILA_DGT_BUNDLE });
setTimeout(() => finish(1), Number(process.env.LILA_DGT_TIMEOUT_S || 600) * 1000);
globalThis.lilaDgtPlay('stand-in-token');
