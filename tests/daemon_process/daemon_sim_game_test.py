#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The real eboardd on a real pseudo-terminal, played by the real `eboardctl sim` (issue 6).

One corpus game is played by simulated hands on an emulated DGT board and clock (`eboardctl sim --pgn`);
eboardd reads it through its configuration, like a board on /dev/ttyUSB0. While the game runs, /games.pgn is
polled: every answer is a prefix of the corpus game and it grows move by move. At the end /games.pgn holds
exactly the corpus game's moves, each with a [%clk] comment, and the WebSocket /ws has streamed one `move`
event per ply (ply, uci, san), in order, no duplicate, and no `alert`.

usage: daemon_sim_game_test.py EBOARDD EBOARD SHARED_DIR [--game N] [--speed R]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


def main():
    ap = ep.arg_parser(game=141, speed=6.0)  # 30 plies: checks, captures, a promotion (bxa8=Q)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]

    with ep.Harness("daemon-sim-game") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, expected):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style)
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed).start()
    ws = ep.WebSocket(d.port)
    length = sim.length_s() or 300
    print(f"game {a.game}: {len(expected)} plies, {length:.0f} s of game time at {a.speed}x; "
          f"eboardd on port {d.port}", flush=True)

    # Poll /games.pgn while the game runs: each answer a prefix of the corpus game, never shrinking.
    seen_lengths = []
    deadline = time.time() + length / a.speed + 30
    moves = []
    while time.time() < deadline:
        g = d.game()
        if not h.check(g is not None, "/games.pgn has no game for board A"):
            break
        moves = g["moves"]
        if not h.check(moves == expected[:len(moves)],
                       f"/games.pgn moves {moves} are not a prefix of the corpus game {expected}"):
            break
        if not seen_lengths or seen_lengths[-1] != len(moves):
            h.check(not seen_lengths or len(moves) > seen_lengths[-1],
                    f"/games.pgn went back from {seen_lengths[-1:]} to {len(moves)} moves")
            seen_lengths.append(len(moves))
        if len(moves) >= len(expected):
            break
        time.sleep(0.1)
    print(f"/games.pgn grew through {len(seen_lengths)} distinct lengths: {seen_lengths}", flush=True)
    h.check(len(moves) == len(expected), f"/games.pgn reached {len(moves)} of {len(expected)} plies in time")
    # Move by move: with a move every ~0.7 s and a poll every 0.1 s, most plies are seen one at a time.
    h.check(len(seen_lengths) >= len(expected) // 2,
            f"/games.pgn did not grow move by move while the game ran: {seen_lengths}")

    ep.wait_until(lambda: len(ws.moves()) >= len(expected), 15, f"{len(expected)} move events on /ws")
    time.sleep(0.5)  # nothing more should come: the game is over
    ep.check_final_game(h, d, expected)
    events = ws.snapshot()
    ws_moves = [e for e in events if e.get("type") == "move"]
    ep.check_ws_moves(h, ws_moves, expected, "/ws")
    h.check(len(ws_moves) == len(expected), f"/ws: {len(ws_moves)} move events for {len(expected)} plies")
    h.check(all("clock" in m for m in ws_moves), "/ws: a move event without its clock")
    alerts = [e for e in events if e.get("type") == "alert"]
    h.check(not alerts, f"/ws: {len(alerts)} alerts in a clean game: {alerts[:3]}")
    h.check(all(e.get("board") == "A" for e in events), "/ws: an event of another board")
    h.check(not ws.errors, f"/ws: protocol errors {ws.errors}")
    st = d.board_status()
    h.check(st["link"] == "connected" and st["source"]["port"]["transport"] == "pty",
            f"/status: board A {st['link']} on {st['source'].get('port')}")
    h.check("opened directly as a terminal" in d.log_text(), "the log does not say the pty was opened directly")
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    kinds = {}
    for e in events:
        kinds[e.get("type")] = kinds.get(e.get("type"), 0) + 1
    print(f"{len(expected)} plies on /games.pgn and /ws, events {kinds}, in {h.elapsed():.1f} s",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
