// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An independent PGN reader for the process tests: chessops (npm, installed by .ci/deps outside the source
// tree; CHESSOPS_DIR names its package folder). Reads the PGN file given, prints one JSON line per game: its tags, its
// mainline moves as written, and how many of them chessops replays from the start. A bughouse board is
// replayed as crazyhouse (chessops has no bughouse) up to the move eboardd marks as the first its board
// alone cannot replay; every move before it must replay. Exit 1 on a game chessops cannot read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.CHESSOPS_DIR;
const { parsePgn, startingPosition } = await import(pathToFileURL(join(dir, 'dist/esm/pgn.js')).href);
const { parseSan } = await import(pathToFileURL(join(dir, 'dist/esm/san.js')).href);

const text = readFileSync(process.argv[2], 'utf8');
const games = parsePgn(text);
let failed = false;
for (const game of games) {
  const tags = Object.fromEntries(game.headers);
  const headers = new Map(game.headers);
  if ((headers.get('Variant') || '').toLowerCase() === 'bughouse') headers.set('Variant', 'Crazyhouse');
  const moves = [];
  const comments = [];
  for (const node of game.moves.mainline()) {
    moves.push(node.san);
    comments.push((node.comments || []).join(' ').replace(/\s+/g, ' '));
  }
  let replayed = 0;
  let partner_mark = -1;
  let error = null;
  const start = startingPosition(headers);
  if (start.isErr) {
    error = 'start: ' + start.error.message;
  } else {
    const pos = start.value;
    for (let i = 0; i < moves.length; i++) {
      if (comments[i].includes('this board alone cannot be replayed')) {
        partner_mark = i;
        break;
      }
      const move = parseSan(pos, moves[i]);
      if (!move) {
        error = `move ${i + 1} ${moves[i]} does not replay`;
        break;
      }
      pos.play(move);
      replayed++;
    }
  }
  if (start.isErr) failed = true;
  console.log(JSON.stringify({ tags, moves, replayed, partner_mark, error }));
}
process.exit(failed ? 1 : 0);
