#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Gaps in what a board told the daemon, with the real eboardd and `eboardctl sim` on a pseudo-terminal (issue 12).

The story of the issue: the board is unplugged mid-game for long enough that the players make several moves
(`eboardctl sim --reopen-at` closes the pty, the hands go on playing and pressing the clock, the board is
plugged in again behind the same symlink); later eboardd itself is killed (kill -9) and kept down while several
more moves are played, then started again on the same state directory. Both times the moves made meanwhile
must come back: published as `move` events with `"recovered": true`, or, when several move orders explain the
board, one `moves-missed` alert whose candidates the arbiter sees in `eboardctl status` and settles with
`eboardctl recover` (wrong numbers and moves refused first). Never an illegal-move or position-mismatch alert, and in the end /games.pgn holds exactly
the corpus game, the gap's moves with a comment saying they were recovered.

With --ranker ENGINE ([gaps] ranker = "stockfish", engine = ENGINE, issue 30): the moves-missed list is also
judged by the engine; /status must come to show it (ranked_by "engine"), the arbiter's number is taken from that
order, and after a last restart (the journal replayed, which knows only the rules' order) the game is still the
corpus game. The engine process is gone once eboardd has stopped (reaped, not left behind).

usage: daemon_gap_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R] [--ranker ENGINE]
exit 77 (skipped) without the corpus in SHARED_DIR, or without ENGINE
"""
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

TOKEN = "gap-test-control-token"


def main():
    ap = ep.arg_parser(game=7, speed=6.0)
    # Game seconds (the sim's clock): the board is away from --unplug-at for --unplug-ms.
    # With the default game, style and seed: two plies (ply 9 and 10) are made while it is away, one sequence.
    ap.add_argument("--unplug-at", type=float, default=34.0)
    ap.add_argument("--unplug-ms", type=int, default=4000)
    # The daemon is killed once the game reaches this ply, and kept down this many game seconds: three plies,
    # which two move orders explain (a moves-missed the arbiter settles).
    ap.add_argument("--kill-at-ply", type=int, default=17)
    ap.add_argument("--down-s", type=float, default=15.0)
    ap.add_argument("--ranker", default="")
    a = ap.parse_args()
    if a.ranker and not os.access(a.ranker, os.X_OK):
        print(f"skipped: {a.ranker} is not installed")
        return 77
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]
    with ep.Harness("daemon-gap") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def with_ranker(d, ranker):
    """The daemon's configuration with the engine ranker, where one is given."""
    if ranker:
        with open(d.config, "a") as f:
            f.write(f'\n[gaps]\nranker = "stockfish"\nengine = "{ranker}"\n')


def children_of(pid):
    """The processes whose parent is `pid`, from /proc."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = open(f"/proc/{name}/stat").read()
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            out.append(int(name))
    return out


def eboardctl(a, d, *args):
    r = subprocess.run([a.eboardctl, *args, "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN],
                       capture_output=True, text=True, timeout=30)
    print(f"$ eboardctl {' '.join(args)}  -> exit {r.returncode}\n{r.stdout}{r.stderr}", flush=True)
    return r


def settle(h, a, d, expected, ws_events, done):
    """Settles the moves-missed gaps among `ws_events` not in `done` (their first plies) with eboardctl
    recover; returns how many."""
    settled = 0
    for alert in [e for e in ws_events if e.get("type") == "alert" and e.get("code") == "moves-missed"]:
        first, last = alert["first_ply"], alert["last_ply"]
        if first in done:
            continue
        done.add(first)
        truth = expected[first - 1:last]
        gap = ep.wait_until(lambda: d.board_status()["control"].get("missed_gap"), 15, "/status missed_gap")
        if a.ranker:
            # The alert went out in the rules' order; the engine's comes to /status off the loop.
            gap = ep.wait_until(lambda: (g := d.board_status()["control"].get("missed_gap")) and
                                g.get("ranked_by") == "engine" and g, 30, "/status missed_gap ranked by the engine")
            print(f"the engine's order: {[c['san'] for c in gap['candidates']]}", flush=True)
        h.check(gap["first_ply"] == first and gap["last_ply"] == last,
                f"/status missed_gap {gap} does not match the alert (plies {first}-{last})")
        status = eboardctl(a, d, "status")
        h.check(status.returncode == 0 and "missed gap" in status.stdout,
                "eboardctl status does not show the missed gap")
        h.check(not a.ranker or "in the engine's order" in status.stdout,
                "eboardctl status does not say the list is in the engine's order")
        # Told at the shortest length on a clock that counts no presses: the alert, /status and eboardctl
        # status all say a longer story may be the one.
        uncertain = alert.get("length_uncertain") is True
        h.check(gap.get("length_uncertain", False) == uncertain,
                f"/status missed_gap {gap} and the alert disagree on length_uncertain ({uncertain})")
        h.check(("a longer story" in status.stdout) == uncertain,
                f"eboardctl status and the alert disagree on length_uncertain ({uncertain}):\n{status.stdout}")
        print(f"gap at plies {first}-{last}: length_uncertain {uncertain}", flush=True)
        sans = [[ep.strip_san(m) for m in c["san"]] for c in gap["candidates"]]
        # The likeliest are listed (the alert's first 16), candidates_total counts them all.
        total = gap.get("candidates_total", -1)
        h.check(total >= len(sans) and len(sans) <= 16, f"/status lists {len(sans)} of {total} candidates")
        h.check(truth in sans or total > len(sans), f"the true moves {truth} are not among the candidates {sans}")
        # How sure the ranking is (rules/gap_share.hpp): in the rules' order each listed candidate has its
        # share, likeliest first, and the listed ones together no more than the whole; an engine's order has
        # none (the shares weigh the rules' costs).
        shares = [c.get("share") for c in gap["candidates"]]
        if gap.get("ranked_by") == "engine":
            h.check(all(x is None for x in shares) and "listed_share" not in gap,
                    f"/status shows shares with the engine's order: {gap}")
        else:
            h.check(all(isinstance(x, (int, float)) and 0 <= x <= 1 for x in shares)
                    and shares == sorted(shares, reverse=True)
                    and abs(gap.get("listed_share", -1) - sum(shares)) < 0.01 + 0.001 * len(shares)
                    and gap["listed_share"] <= 1.0005 and (total > len(sans) or gap["listed_share"] > 0.99),
                    f"/status missed_gap shares {shares}, listed_share {gap.get('listed_share')}")
            h.check(re.search(r"\)  (<1|>99|\d{1,2}) %\n", status.stdout) is not None,
                    f"eboardctl status does not show the candidates' shares:\n{status.stdout}")
            print(f"gap at plies {first}-{last}: shares {shares}", flush=True)
        # Wrong input first: refused in one line with a non-zero exit, the gap still waiting.
        for wrong in (["--moves", "a2a3 " * len(truth)], [str(total + 1)], ["1", "--moves", "e4"], []):
            bad = eboardctl(a, d, "recover", "A", *wrong)
            h.check(bad.returncode != 0 and bad.stderr.count("\n") == 1, f"recover {wrong} was not refused well")
        h.check(d.board_status()["control"].get("missed_gap") == gap, "a refused recover changed the gap")
        # Until then the record shows the gap as a gap: a comment, the moves after it a new segment from the
        # board's position, never the first candidate as fact.
        pgn = d.get("/games.pgn")[1]
        h.check('[SetUp "1"]' in pgn and "[FEN " in pgn, f"/games.pgn with the gap unsettled has no SetUp/FEN:\n{pgn}")
        # The arbiter picks the true sequence by its number; when the truth is not among the candidates,
        # types it.
        if truth in sans:
            r = eboardctl(a, d, "recover", "A", str(sans.index(truth) + 1))
        else:
            r = eboardctl(a, d, "recover", "A", "--moves", " ".join(truth))
        h.check(r.returncode == 0, f"eboardctl recover failed: {r.stderr}")
        pgn = d.get("/games.pgn")[1]
        h.check("[SetUp" not in pgn, f"/games.pgn still starts a new segment after the gap was settled:\n{pgn}")
        settled += 1
        h.check(d.board_status()["control"].get("missed_gap") is None, "/status: the gap is still waiting")
    return settled


def run(h, a, pgn, expected):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style,
                 extra=["--reopen-at", str(a.unplug_at), "--reopen-gap", str(a.unplug_ms)])
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed, token=TOKEN)  # (eboardctl recover needs it)
    with_ranker(d, a.ranker)
    d.start()
    ws = ep.WebSocket(d.port)
    print(f"game {a.game}: {len(expected)} plies at {a.speed}x; unplugged at {a.unplug_at} s for {a.unplug_ms} ms; "
          f"eboardd killed at ply {a.kill_at_ply} for {a.down_s} s", flush=True)

    # 1. The unplug: wait until the daemon is past it and the game past the kill point.
    ep.wait_until(lambda: d.board_status()["game"]["ply"] >= a.kill_at_ply, 120, f"/status at ply {a.kill_at_ply}")
    # /ws may lag /status on a loaded machine: wait for its move at the ply /status shows, or the gap's alert.
    at = d.board_status()["game"]["ply"]

    def caught_up():
        evs = ws.snapshot()
        return (any(e.get("type") == "alert" and e.get("code") == "moves-missed" for e in evs)
                or max((e["ply"] for e in evs if e.get("type") == "move"), default=0) >= at)
    try:
        ep.wait_until(caught_up, 15, f"/ws at ply {at} or a moves-missed")
    except ep.TestFailure:
        pass  # the checks below say what is missing
    first = ws.snapshot()
    recovered = [e for e in first if e.get("type") == "move" and e.get("recovered")]
    missed = [e for e in first if e.get("type") == "alert" and e.get("code") == "moves-missed"]
    print(f"after the unplug: {len(recovered)} recovered moves, {len(missed)} moves-missed", flush=True)
    h.check(recovered or missed, "the unplug's gap was neither recovered nor reported as moves-missed")
    for m in recovered:
        h.check(ep.strip_san(m["san"]) == expected[m["ply"] - 1], f"recovered move {m} is not the game's")
    done = set()
    n_settled = settle(h, a, d, expected, first, done=done)
    ply_at_kill = d.board_status()["game"]["ply"]

    # 2. kill -9, the players go on, restart on the same state directory.
    ws.close()
    d.kill9()
    time.sleep(a.down_s / a.speed)
    d.start()
    print(f"killed at ply {ply_at_kill}, restarted at ply {d.board_status()['game']['ply']} (the journal's)",
          flush=True)
    ws = ep.WebSocket(d.port)
    ep.wait_until(lambda: len(d.game()["moves"]) >= len(expected) or d.board_status()["control"].get("missed_gap"),
                  length_wait(sim, a), "the game's end or a missed gap after the restart")
    time.sleep(1)
    second = ws.settled()
    n_settled += settle(h, a, d, expected, second, done=done)
    ep.wait_until(lambda: len(d.game()["moves"]) >= len(expected), length_wait(sim, a), "the game's end")
    time.sleep(0.5)
    events = ws.settled()
    recovered2 = [e for e in events if e.get("type") == "move" and e.get("recovered") and e["ply"] > ply_at_kill]
    h.check(recovered2 or len(done) > len(missed), "the moves made while eboardd was down were neither recovered "
                                                   "nor reported as moves-missed")
    for m in recovered2:
        h.check(m.get("recovered") is True and ep.strip_san(m["san"]) == expected[m["ply"] - 1],
                f"recovered move {m} is not the game's")
    print(f"after the restart: {len(recovered2)} recovered moves on /ws (snapshot included); {n_settled} settled",
          flush=True)

    alerts = [e for e in first + events if e.get("type") == "alert" and e.get("code") != "moves-missed"]
    h.check(not alerts, f"alerts other than moves-missed: {alerts[:4]}")
    final = d.game()
    h.check(final["moves"] == expected, f"/games.pgn moves differ from the corpus game:\n  {final['moves']}\n  "
                                        f"{expected}")
    text = d.get("/games.pgn")[1]
    h.check("recovered" in text, "/games.pgn has no comment about recovered moves")
    ws.close()
    if a.ranker:
        engines = children_of(d.proc.pid)
        h.check(engines, "eboardd runs no engine after ranking a gap")
        # The journal replayed: `recover N` was journaled as the moves shown as N, not a number in an order
        # the replay does not know.
        rc = d.stop()
        h.check(rc == 0, f"SIGTERM: exit {rc}")
        h.check(not [p for p in engines if os.path.exists(f"/proc/{p}")],
                f"the engine {engines} outlived eboardd's stop")
        d.start()
        replayed = d.game()
        h.check(replayed["moves"] == expected, f"after a restart the game differs from the corpus game:\n  "
                                               f"{replayed['moves']}")
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


def length_wait(sim, a):
    return (sim.length_s() or 300) / a.speed + 30


if __name__ == "__main__":
    sys.exit(main())
