#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""kill -9 of the real eboardd, again and again, while `eboardctl sim` keeps playing (issue 6).

One corpus game is played on an emulated DGT board and clock (`eboardctl sim` on a pty). eboardd reads it and is
killed with SIGKILL at 20 random points of the game (seeded: the seed is printed, --seed repeats a run), each
time restarted after a short pause on the same configuration, state_dir and HTTP port, as systemd's
Restart=always would. The sim keeps playing meanwhile, so some hand motions and clock presses happen while no
daemon reads the board.

Checked: each restart's /ws snapshot is plies 1..n of the corpus game and holds every move published before
the kill (nothing lost by the crash); every connection's move events are consecutive plies, no duplicate;
the move events of all connections, merged by ply, agree where they overlap; at the end /games.pgn and the
merged events are exactly the corpus game's moves; the journal replays without mismatch at every restart;
no alert.

Timing (chosen to be realistic in the game's time): sim and daemon clocks run --speed times faster than real
time; the tidy hands make a move every ~4 s of game time; the daemon stays down --down-ms of game time
(300 ms: a systemd restart) plus its start-up; kill points are at least --min-gap real seconds apart.

usage: daemon_kill9_test.py EBOARDD EBOARD SHARED_DIR [--seed N] [--kills K] [--game N] [--speed R]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import os
import random
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


def main():
    ap = ep.arg_parser(game=7, speed=4.0)  # 29 plies
    ap.add_argument("--seed", type=int, default=None, help="default: from the time (printed)")
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--down-ms", type=float, default=300.0, help="game milliseconds between kill and restart")
    ap.add_argument("--min-gap", type=float, default=0.6, help="real seconds between two kills, at least")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time() * 1000) % 1_000_000
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]

    with ep.Harness("daemon-kill9") as h:
        print(f"seed {a.seed} (repeat with --seed {a.seed})", flush=True)
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
        if h.failures:
            print(f"seed {a.seed}: FAILED (repeat with --seed {a.seed})")
    return h.exit_code()


def kill_points(rng, n, span, min_gap):
    """n sorted points in `span` (real seconds), at least min_gap apart: drawn again until they are."""
    lo, hi = span
    if (hi - lo) < (n - 1) * min_gap * 1.5:
        raise ep.TestFailure(f"{n} kills {min_gap} s apart do not fit in {hi - lo:.1f} s")
    while True:
        pts = sorted(rng.uniform(lo, hi) for _ in range(n))
        if all(b - a >= min_gap for a, b in zip(pts, pts[1:])):
            return pts


class Run:
    """One daemon process and its /ws connection."""

    def __init__(self, number, daemon):
        self.number = number
        self.ws = ep.WebSocket(daemon.port)


def run(h, a, pgn, expected):
    rng = random.Random(a.seed)
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style)
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed).start()
    t_game = time.time()  # the game starts with the daemon's first command to the board
    length = (sim.length_s() or 300) / a.speed
    kills = kill_points(rng, a.kills, (0.04 * length, 0.92 * length), a.min_gap)
    down = a.down_ms / 1000 / a.speed
    print(f"game {a.game}: {len(expected)} plies, {length:.1f} s real at {a.speed}x; {a.kills} kills at "
          f"{[round(k, 2) for k in kills]} s, down {down * 1000:.0f} ms real + start-up", flush=True)

    runs = [Run(1, d)]
    merged = {}  # ply → (san, uci, clock) over every connection: a snapshot repeats what was published
    published_before = 0  # moves the killed daemon had published on /ws
    mismatched = 0
    for i, at in enumerate(kills):
        cur = runs[-1]
        wait = t_game + at - time.time()
        if wait > 0:
            time.sleep(wait)
        published_before = len(cur.ws.moves())
        d.kill9()
        cur.ws.close()
        time.sleep(down)
        t_restart = time.time()
        d.start()
        up = time.time() - t_restart
        nxt = Run(i + 2, d)
        runs.append(nxt)
        # The snapshot: every move published before the kill must be in it (the journal survives kill -9).
        try:
            ep.wait_until(lambda r=nxt: len(r.ws.moves()) >= published_before, 15,
                          f"restart {i + 1}: the snapshot to hold the {published_before} moves published "
                          f"before the kill")
        except ep.TestFailure as e:
            h.check(False, f"{e}; it has {[m['san'] for m in nxt.ws.moves()]}")
        recovered = d.game()["moves"]
        h.check(len(recovered) >= published_before and recovered == expected[:len(recovered)],
                f"restart {i + 1}: /games.pgn has {recovered}, not the {published_before} moves published "
                f"before the kill and then the corpus game's")
        rec = d.board_status()["journal"].get("recovery", {})
        if rec.get("mismatched_events", 0) > mismatched:  # the count is over the whole journal: report news
            mismatched = rec["mismatched_events"]
            first = next((l for l in d.log_text().splitlines() if "journal replay differs" in l), "")
            h.check(False, f"restart {i + 1}: the journal replays to other events than were published "
                           f"({mismatched} so far): {rec}; first: {first[first.find('journaled'):]}")
        print(f"kill {i + 1} at {at:.2f} s: {published_before} moves published; serving again after "
              f"{up * 1000:.0f} ms, recovery {rec}", flush=True)

    # The game goes on to its end with the last daemon.
    last = runs[-1]
    ep.wait_until(sim.finished, length + 30, "the end of the sim's game")
    try:
        ep.wait_until(lambda: len(d.game()["moves"]) >= len(expected) and len(last.ws.moves()) >= len(expected),
                      15, f"the game's {len(expected)} plies on /games.pgn and /ws after the sim's last move")
    except ep.TestFailure as e:
        h.check(False, f"{e}: /games.pgn has {len(d.game()['moves'])}, /ws {len(last.ws.moves())}")
    time.sleep(0.5)  # nothing more should come: the game is over
    ep.check_final_game(h, d, expected)

    alerts = []
    for r in runs:
        events = r.ws.snapshot()
        moves = [e for e in events if e.get("type") == "move"]
        ep.check_ws_moves(h, moves, expected, f"/ws of run {r.number}")
        for m in moves:
            key, value = m["ply"], (m["san"], m["uci"], m.get("clock"))
            if key in merged:
                h.check(merged[key] == value, f"run {r.number}: ply {key} is {value} here and {merged[key]} "
                                              f"in an earlier run")
            else:
                merged[key] = value
        alerts += [(r.number, e) for e in events if e.get("type") == "alert"]
        h.check(not r.ws.errors, f"/ws of run {r.number}: protocol errors {r.ws.errors}")
    plies = sorted(merged)
    h.check(plies == list(range(1, len(expected) + 1)), f"merged /ws plies {plies}")
    sans = [ep.strip_san(merged[p][0]) for p in plies]
    h.check(sans == expected, f"merged /ws moves differ from the corpus game:\n  {sans}\n  {expected}")
    h.check(not alerts, f"{len(alerts)} alerts (run, event): {alerts[:5]}")
    if h.failures:  # which restarts had a clock press while the daemon was down (start k = restart k-1)
        try:
            moved = [(k - 1, b, a) for k, b, a in ep.presses_across_connects(
                os.path.join(d.state, "journal", d.board + ".journal")) if b != a]
            print(f"restarts after which the clock's lever had moved while eboardd was down "
                  f"(restart, lever before, after): {moved}", flush=True)
        except (OSError, ValueError) as e:
            print(f"(journal not read: {e})")
    log = d.log_text()
    h.check(log.count("==== start") == a.kills + 1, "one log header per start")
    for r in runs:
        r.ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM after the game: exit {rc}")
    print(f"{a.kills} kills, {len(expected)} plies recovered exactly, in {h.elapsed():.1f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
