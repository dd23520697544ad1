#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""lichess' own DGT board page (lila's ui/dgt, unmodified) follows a game longer than [http] ws_max_lifetime_s
through eboardd's LiveChess listener, from each side, with every move right (issue 26).

The page runs under Node (lila_dgt_runner.mjs) against a stand-in of the lichess Board API that plays the other
side; eboardd reads the real board (`eboardctl sim`, a corpus game of 75 plies with castling both ways and a
promotion) and serves the page through [livechess] with control = true, as a hall sets it for the page. The game
lasts longer than [http] ws_max_lifetime_s (60 s): the page must post exactly its side's moves, in order, the game
on the stand-in must end whole, and the page must never have had to reconnect to LiveChess.

lila's code is AGPL and stays out of this tree: LILA_DGT_BUNDLE names a script, built elsewhere, that sets
globalThis.lilaDgtPlay to the default export of lila's ui/dgt/src/play.ts (README: "lichess' DGT board page").

usage: lila_dgt_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--colors white,black]
exit 77 (skipped) without LILA_DGT_BUNDLE, chessops, a Node with WebSocket, or the corpus
"""
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LIFETIME_S = 60
# chessops (and so the page) writes castling as the king taking its rook; lichess takes both forms.
CASTLING = {"e1h1": "e1g1", "e1a1": "e1c1", "e8h8": "e8g8", "e8a8": "e8c8"}


def chessops_dir():
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    d = os.environ.get("CHESSOPS_DIR") or os.path.join(cache, "eboardd", "node", "node_modules", "chessops")
    return d if os.path.isfile(os.path.join(d, "dist", "esm", "chess.js")) else None


def skip(why):
    print(f"skipped: {why}")
    sys.exit(ep.SKIP)


def main():
    ap = ep.arg_parser(game=62, speed=2.0)
    ap.add_argument("--colors", default="white,black")
    a = ap.parse_args()
    bundle = os.environ.get("LILA_DGT_BUNDLE", "")
    if not bundle or not os.path.isfile(bundle):
        skip("LILA_DGT_BUNDLE does not name a bundle of lila's ui/dgt play.ts")
    if not chessops_dir():
        skip("chessops is absent (.ci/deps installs it)")
    probe = subprocess.run(["node", "--experimental-websocket", "-e", "process.exit(typeof WebSocket === 'function' ? 0 : 1)"],
                           capture_output=True)
    if probe.returncode != 0:
        skip("this Node has no WebSocket client")
    pgn = ep.corpus_file(a.shared)
    corpus = ep.corpus_game(pgn, a.game)
    with ep.Harness("lila_dgt") as h:
        try:
            for color in a.colors.split(","):
                one_side(h, a, pgn, corpus, color, bundle)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def one_side(h, a, pgn, corpus, color, bundle):
    expected = corpus["moves"]
    result = corpus["tags"].get("Result", "*")
    device = os.path.join(h.dir, f"dgt-{color}")  # the sim's link: the game starts once the page attached
    d = ep.Daemon(h, a.eboardd, device, clock_rate=a.speed)
    d.state = os.path.join(h.dir, f"state-{color}")
    os.makedirs(d.state, exist_ok=True)
    text = open(d.config).read().replace(os.path.join(h.dir, "state"), d.state)
    text = text.replace("[http]\n", f"[http]\nws_max_lifetime_s = {LIFETIME_S}\n", 1)
    with open(d.config, "w") as f:
        f.write(text + '\n[livechess]\nlisten = "127.0.0.1:0"\ncontrol = true\n')
    d.start()
    lc = open(os.path.join(d.state, "eboardd.livechess")).read().strip()
    out = os.path.join(h.dir, f"lila-{color}.json")
    log = h.log_path(f"lila-{color}")
    runner = subprocess.Popen(
        ["node", "--experimental-websocket", "--no-warnings", os.path.join(HERE, "lila_dgt_runner.mjs"),
         f"ws://{lc}/api/v1.0", color, " ".join(expected), result, out],
        stdout=open(log, "ab"), stderr=subprocess.STDOUT,
        env=dict(os.environ, CHESSOPS_DIR=chessops_dir(), LILA_DGT_BUNDLE=bundle, LILA_DGT_TIMEOUT_S="400"))
    h.procs.append(runner)
    ep.wait_until(lambda: "ATTACHED" in open(log, errors="replace").read() or runner.poll() is not None, 60,
                  "lichess' page attaching its game to the board")
    # Real time, at the pace of the corpus game's clocks: several minutes, well past the lifetime.
    started = time.time()
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, link_name=f"dgt-{color}")
    print(f"{color}: game {a.game}, {len(expected)} plies, {sim.length_s() or 0:.0f} s of game time at {a.speed}x",
          flush=True)
    try:
        runner.wait(timeout=420)
    except subprocess.TimeoutExpired:
        runner.kill()
    lasted = time.time() - started
    r = json.load(open(out)) if os.path.exists(out) else {}
    print(f"{color}: {len(r.get('moves', []))} of {len(expected)} plies on the stand-in in {lasted:.0f} s; the page "
          f"posted {len(r.get('posted', []))}, LiveChess connections {r.get('liveChessConnections')}", flush=True)
    mine = [m for i, m in enumerate(r.get("expected", [])) if (i % 2 == 0) == (color == "white")]
    h.check(r.get("complete") is True, f"{color}: the game on the stand-in is not the board's: "
                                       f"{len(r.get('moves', []))} plies, wrong {r.get('wrong')}")
    posted = [CASTLING.get(m, m) for m in r.get("posted", [])]
    h.check(posted == mine, f"{color}: the page posted {posted}, its side's moves are {mine}")
    h.check(not r.get("refused") and not r.get("wrong"), f"{color}: refused {r.get('refused')}, wrong {r.get('wrong')}")
    h.check(r.get("liveChessConnections") == 1, f"{color}: the page connected to LiveChess "
                                                 f"{r.get('liveChessConnections')} times")
    h.check(lasted > LIFETIME_S, f"{color}: the game lasted {lasted:.0f} s, not past the {LIFETIME_S} s lifetime")
    final = d.game()
    h.check(final is not None and [ep.strip_san(m) for m in final["moves"]] == [ep.strip_san(m) for m in expected],
            f"{color}: /games.pgn has {final and len(final['moves'])} plies")
    h.check(d.board_status()["game"]["number"] == 1, f"{color}: the page's setup began another game")
    h.check(d.stop() == 0, f"{color}: SIGTERM")


if __name__ == "__main__":
    sys.exit(main())
