#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Millennium ChessLink boards through the real eboardd (issue 13): corpus games replay exactly.

Each game is played by simulated hands on an emulated Millennium board on its own pseudo-terminal
(`eboardctl sim --protocol millennium`: 38400 7O1 with the parity in bit 7 and checked on what it reads,
automatic reports as --reports leaves them at power-up until eboardd sets them, no clock), and one
eboardd reads them all, each a [[board]] with protocol = "millennium". The board has no clock: eboardd
completes a move when the board has rested on it for settle_ms (game time) or when the other side begins its
reply. At the end every board's game on /games.pgn is exactly its corpus game, /ws streamed one `move` per
ply in order with no clock in it, and no alert came.

usage: millennium_sim_test.py EBOARDD EBOARDCTL SHARED_DIR [--games 141,12 | 1-128] [--speed R]
       [--reports every-scan|on-change|off]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


def main():
    ap = ep.arg_parser(game=141, speed=6.0)
    ap.add_argument("--games", default="141,12", help="corpus games, one board each: numbers and ranges (1-128)")
    ap.add_argument("--settle-ms", type=int, default=1500)
    ap.add_argument("--reports", default="every-scan", choices=["every-scan", "on-change", "off"],
                    help="the emulated boards' automatic reports at power-up (eboardd must set them)")
    ap.add_argument("--reports-off-at", default="",
                    help="seconds of game time, comma-separated, at which another program turns each board's "
                         "reports off (eboardd must notice the silence, ask again and set them again)")
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    games = []
    for part in a.games.split(","):  # numbers and ranges: 141,12 or 1-128
        first, _, last = part.partition("-")
        games += range(int(first), int(last or first) + 1)
    count = len(ep.corpus_games(pgn))
    if not games or min(games) < 1 or max(games) > count:
        ap.error(f"--games: the corpus {os.path.basename(pgn)} has games 1 to {count}")
    empty = [g for g in games if not ep.corpus_game(pgn, g)["moves"]]
    if empty:
        print(f"corpus games without moves, left out: {empty}", flush=True)
    games = [g for g in games if g not in empty]
    with ep.Harness("millennium-sim") as h:
        try:
            run(h, a, pgn, games)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, games):
    # Board ids are letters while there are few (A, B, ...), else M1, M2, ...
    ids = [chr(ord("A") + i) if len(games) <= 26 else f"M{i + 1}" for i in range(len(games))]
    sims = []
    for i, g in enumerate(games):
        sims.append(ep.Sim(h, a.eboardctl, pgn, g, a.speed, style=a.style, seed=i + 1,
                           extra=("--protocol", "millennium", "--reports", a.reports,
                                  *[x for at in a.reports_off_at.split(",") if at
                                    for x in ("--reports-off-at", at)]),
                           link_name=f"millennium-{ids[i]}",
                           linger=a.speed * 300))  # 5 minutes: every board is still there at the end
    settle = f"settle_ms = {a.settle_ms}\n"
    more = "".join(f'\n[[board]]\nid = "{ids[i]}"\nport = "{sims[i].device}"\nprotocol = "millennium"\n{settle}'
                   for i in range(1, len(games)))
    d = ep.Daemon(h, a.eboardd, sims[0].device, board=ids[0], clock_rate=a.speed, protocol="millennium",
                  more_boards=settle + more).start(timeout=15 + len(games) / 4)
    ws = ep.WebSocket(d.port)
    expected = {ids[i]: ep.corpus_game(pgn, g)["moves"] for i, g in enumerate(games)}
    # The sims share one log: the longest game announced there sets the wait.
    lengths = [float(x) for x in re.findall(r"game length ([\d.]+) s", open(sims[0].log, errors="replace").read())]
    length = max(lengths) if len(lengths) == len(sims) else 600
    print(f"games {games} on Millennium boards {ids}: {[len(expected[b]) for b in ids]} plies, "
          f"{length:.0f} s of game time at {a.speed}x; eboardd on port {d.port}", flush=True)

    def board_games():
        out = {}
        for g in ep.parse_pgn(d.get("/games.pgn")[1]):
            out[g["tags"].get("Board")] = g["moves"]
        return out

    deadline = time.time() + length / a.speed + 30
    seen = {}
    while time.time() < deadline:
        seen = board_games()
        for b in ids:
            moves = seen.get(b, [])
            if moves != expected[b][:len(moves)]:
                raise ep.TestFailure(f"board {b}: /games.pgn moves {moves} are not a prefix of {expected[b]}")
        if all(len(seen.get(b, [])) >= len(expected[b]) for b in ids):
            break
        time.sleep(0.2)
    for b in ids:
        h.check(seen.get(b) == expected[b],
                f"board {b}: /games.pgn has {len(seen.get(b, []))} of {len(expected[b])} plies: {seen.get(b)}")

    # The boards' own account: reports set again to on change (3) by eboardd, no byte without parity.
    ends = re.findall(r"E2ROM at the end of the script: reports (\d+), scan time (\d+); (\d+) bytes without",
                      open(sims[0].log, errors="replace").read())
    h.check(len(ends) == len(sims) and all(e == ("3", "20", "0") for e in ends),
            f"the boards' E2ROM and parity at the end (want reports 3, scan time 20, 0 bad bytes each): {ends}")
    if a.reports_off_at:
        offs = open(sims[0].log, errors="replace").read().count("turned the board's automatic reports off")
        h.check(offs == len(sims) * len(a.reports_off_at.split(",")),
                f"{offs} reports turned off during the games: each time must fall within every game")

    total = sum(len(expected[b]) for b in ids)
    ep.wait_until(lambda: len(ws.moves()) >= total, 15, f"{total} move events on /ws")
    time.sleep(0.5)
    events = ws.settled()
    for b in ids:
        moves = [e for e in events if e.get("type") == "move" and e.get("board") == b]
        ep.check_ws_moves(h, moves, expected[b], f"/ws board {b}")
        h.check(all("clock" not in m for m in moves), f"/ws board {b}: a move with a clock, from a clockless board")
    alerts = [e for e in events if e.get("type") == "alert"]
    h.check(not alerts, f"/ws: {len(alerts)} alerts in clean games: {alerts[:3]}")
    h.check(not ws.errors, f"/ws: protocol errors {ws.errors}")
    for b in ids:
        st = next((x for x in d.status()["boards"] if x["id"] == b), None)
        h.check(st is not None and st["link"] == "connected" and st["source"]["protocol"] == "millennium",
                f"/status: board {b}: {st and st.get('link')} {st and st.get('source')}")
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    kinds = {}
    for e in events:
        kinds[e.get("type")] = kinds.get(e.get("type"), 0) + 1
    print(f"{total} plies on {len(ids)} Millennium boards, exactly; events {kinds}, in {h.elapsed():.1f} s",
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
