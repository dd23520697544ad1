#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""An engine's order of a waiting gap, journaled: a restart without the engine shows it as it was (issue 30).

One corpus game on an `eboardctl sim` DGT board with its clock, read by one eboardd with [gaps] ranker =
"stockfish". The board is unplugged between two moves while a few opening plies are played whose orders the
gap search cannot tell apart, and plugged in again; the game then stops (the sim plays only a few plies more).
As an arbiter meets it across a restart:

1. one `moves-missed` alert (in the rules' order, as it goes out at once); /status's `control.missed_gap` then
   comes to show the engine's order (`ranked_by` "engine"), which differs from the alert's in this window (the
   moves played first, where the rules put them second; were they alike, only `ranked_by` would tell a
   journaled order from a ranking done again);
2. eboardd stopped (SIGTERM) and started again with ranker = "rules": /status shows the same gap in the
   engine's order, `ranked_by` "engine", no engine runs, and `eboardctl status` says whose order it is;
3. `eboardctl recover BOARD N`, N the number of the moves played in that order, settles it with them: the
   game is the corpus game's.

usage: daemon_gap_engine_order_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R] [--first P]
                                       [--length L] [--engine PATH]
exit 77 (skipped) without the corpus in SHARED_DIR or without the engine
"""
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from daemon_gap_past_bound_test import run_window, start_sim  # noqa: E402
from daemon_gap_past_bound_test import eboardctl as past_bound_eboardctl  # noqa: E402
from daemon_gap_test import children_of  # noqa: E402

TOKEN = "gap-engine-order-control-token"
BOARD = "A"
AFTER = 2  # plies played after the gap, then the game stops


def main():
    ap = ep.arg_parser(game=3, speed=6.0)
    ap.add_argument("--first", type=int, default=3, help="the gap's first ply")
    ap.add_argument("--length", type=int, default=4, help="plies played while the board is away")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.set_defaults(style="tidy")
    a = ap.parse_args()
    if not os.access(a.engine, os.X_OK):
        print(f"skipped: {a.engine} is not installed")
        return ep.SKIP
    return run_window("daemon-gap-engine-order", ap, a, AFTER, run)


def eboardctl(a, d, *args):
    return past_bound_eboardctl(a, d, *args, token=TOKEN)


def write_config(d, link, ranker, engine):
    with open(d.config, "w") as f:
        f.write(f'state_dir = "{d.state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
                f'[gaps]\nranker = "{ranker}"\n' + (f'engine = "{engine}"\n' if ranker == "stockfish" else "")
                + f'\n[[board]]\nid = "{BOARD}"\nport = "{link}"\nprotocol = "dgt"\n')


def sans_of(gap):
    return [[ep.strip_san(m) for m in c["san"]] for c in gap["candidates"]]


def ucis_of(gap):
    return [c["uci"] for c in gap["candidates"]]


def run(h, a, pgn, expected):
    started = time.time()
    sim, link, sim_log, plan = start_sim(h, a, pgn, len(expected))
    d = ep.Daemon(h, a.eboardd, link, board=BOARD, clock_rate=a.speed)
    write_config(d, link, "stockfish", a.engine)
    d.start()
    ws = ep.WebSocket(d.port)

    # 1. The gap: its alert in the rules' order, then the engine's on /status.
    def gap_alert():
        return next((e for e in ws.snapshot() if e.get("type") == "alert" and e.get("code") == "moves-missed"),
                    None)
    alert = ep.wait_until(gap_alert, plan[len(expected)][2] / 1000 / a.speed + 20, "the gap's moves-missed alert")
    first = alert["first_ply"]
    gap = ep.wait_until(lambda: (g := d.board_status()["control"].get("missed_gap")) and
                        g.get("ranked_by") == "engine" and g, 30, "/status missed_gap in the engine's order")
    engine_order = sans_of(gap)
    truth = expected[first - 1:first - 1 + len(engine_order[0])]
    # The alert's candidates: UCI lists, in the rules' order.
    rules_order = alert.get("candidates", [])[:len(engine_order)]
    print(f"gap from ply {first} ({truth}): the rules' order {rules_order}\n  the engine's {engine_order}",
          flush=True)
    h.check(truth in engine_order, f"the moves played {truth} are not among the candidates {engine_order}")
    h.check(rules_order, f"the moves-missed alert lists no candidates: {alert}")
    # Where the engine ranks as the rules do (a gap read a ply longer on a loaded machine may be such a one),
    # the order after the restart proves nothing; ranked_by still does (ranker = "rules" cannot say "engine").
    if ucis_of(gap)[:len(rules_order)] == rules_order:
        print("the engine ranked this gap as the rules do: only ranked_by tells the journaled order", flush=True)

    # 2. The game over (the sim plays no more), eboardd stopped and started with the rules' ranker.
    game_end = started + plan[len(expected)][2] / 1000 / a.speed + 1
    time.sleep(max(0.0, game_end - time.time()))
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    write_config(d, link, "rules", a.engine)
    d.start()
    again = ep.wait_until(lambda: (g := d.board_status()["control"].get("missed_gap")) and
                          g.get("first_ply") == first and g, 15, "/status missed_gap after the restart")
    h.check(again.get("ranked_by") == "engine",
            f"after a restart without the engine the gap is ranked by {again.get('ranked_by')!r}, not 'engine'")
    h.check(sans_of(again) == engine_order,
            f"after a restart the gap's order is {sans_of(again)}, not the engine's {engine_order}")
    h.check(not children_of(d.proc.pid), "eboardd runs an engine with ranker = \"rules\"")
    status = eboardctl(a, d, "status")
    h.check(status.returncode == 0 and "in the engine's order" in status.stdout,
            "eboardctl status does not say the list is in the engine's order")

    # 3. The arbiter's number, in the order shown, settles it with the moves played.
    r = eboardctl(a, d, "recover", BOARD, str(engine_order.index(truth) + 1 if truth in engine_order else 1))
    h.check(r.returncode == 0, f"eboardctl recover failed: {r.stderr}")
    final = ep.wait_until(lambda: (g := d.game()) and len(g["moves"]) >= len(expected) and g, 15,
                          "the game's moves after the recover")
    h.check(final["moves"] == expected, f"/games.pgn moves differ from the corpus game:\n  {final['moves']}\n  "
                                        f"{expected}")
    h.check(d.board_status()["control"].get("missed_gap") is None, "/status: the gap is still waiting")
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    sim.terminate()


if __name__ == "__main__":
    sys.exit(main())
