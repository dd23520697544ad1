#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A Millennium board through kill -9 of eboardd (issue 25): the pty opens again after every crash.

The emulated Millennium board (`eboardctl sim --protocol millennium --reports off`) starts with its automatic
reports off, as another program may leave them (the setting survives power-off), and ignores every byte
whose parity is not odd. eboardd must write the report mode and read it back at each connect, and carry the
parity itself; a pty that an earlier eboardd had set 7O1 refused the next 7O1 setting (tcsetattr: Invalid
argument), so a restart after kill -9 never reopened it. eboardd is killed with SIGKILL twice mid-game and
started again on the same state_dir; at the end /games.pgn holds exactly the corpus game, the board is
connected, and no open failed. The board has no clock: moves made while eboardd was down that several orders
explain (a slow restart on a loaded machine lets three plies pass) are one `moves-missed`, which the test
settles as an arbiter would, with the moves played (POST /control/A/recover), and says so.

usage: millennium_restart_test.py EBOARDD EBOARDCTL SHARED_DIR [--game N] [--speed R] [--kills K]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from web_page_test import request  # noqa: E402

TOKEN = "millennium-restart-token"
GIVEN = set()  # the first plies of the gaps the test gave the moves played


def main():
    ap = ep.arg_parser(game=141, speed=6.0)
    ap.add_argument("--kills", type=int, default=2)
    ap.add_argument("--settle-ms", type=int, default=1500)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]
    with ep.Harness("millennium-restart") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, expected):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style,
                 extra=("--protocol", "millennium", "--reports", "off"), link_name="millennium",
                 linger=a.speed * 300)
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed, protocol="millennium",
                  more_boards=f"settle_ms = {a.settle_ms}\n", token=TOKEN).start()
    t0 = time.time()
    length = (sim.length_s() or 300) / a.speed
    print(f"game {a.game}: {len(expected)} plies, {length:.1f} s real at {a.speed}x; {a.kills} kills", flush=True)
    for k in range(a.kills):
        at = length * (k + 1) / (a.kills + 1)
        if t0 + at > time.time():
            time.sleep(t0 + at - time.time())
        before = len(d.game()["moves"]) if d.game() else 0
        d.kill9()
        time.sleep(0.2)
        d.start()
        ep.wait_until(lambda: (d.board_status() or {}).get("link") == "connected", 10,
                      f"restart {k + 1}: the board connected again")
        # The squares are read again at once: the snapshot holds the game as far as it was.
        ep.wait_until(lambda: len(d.game()["moves"]) >= before, 10, f"restart {k + 1}: the {before} plies back")
        print(f"kill {k + 1} at {at:.1f} s: {before} plies before; connected again", flush=True)
    def finished():
        settle_gap(h, d, expected)  # (while the sim plays on, and once more at its end)
        return sim.finished()

    ep.wait_until(finished, length + 30, "the end of the sim's game")
    settle_gap(h, d, expected)
    try:
        ep.wait_until(lambda: len(d.game()["moves"]) >= len(expected), 20,
                      f"the game's {len(expected)} plies on /games.pgn")
    except ep.TestFailure as e:
        h.check(False, f"{e}: /games.pgn has {d.game()['moves']}")
    final = d.game()["moves"]
    h.check(final == expected, f"final /games.pgn moves differ from the corpus game:\n  {final}\n  {expected}")
    log = d.log_text()
    h.check("tcsetattr" not in log and "cannot open" not in log,
            "an open of the board failed: " + next((l for l in log.splitlines() if "tcsetattr" in l or
                                                     "cannot open" in l), ""))
    st = d.board_status()
    h.check(st is not None and st["link"] == "connected", f"/status: board link {st and st.get('link')}")
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    print(f"{len(expected)} plies exactly through {a.kills} kills, in {h.elapsed():.1f} s", flush=True)


def settle_gap(h, d, expected):
    """The arbiter's part: a gap that waits (several orders explain it) settled with the moves played, once
    (a refusal is a failure, not retried)."""
    gap = ((d.board_status() or {}).get("control") or {}).get("missed_gap")
    if not gap or gap["first_ply"] in GIVEN:
        return
    GIVEN.add(gap["first_ply"])
    moves = expected[gap["first_ply"] - 1:gap["last_ply"]]
    code, text, _ = request(d.port, "POST", "/control/A/recover", token=TOKEN, body={"moves": " ".join(moves)})
    h.check(code == 200, f"recover plies {gap['first_ply']}-{gap['last_ply']} with {moves}: {code} {text[:300]}")
    if code == 200:
        print(f"a gap at plies {gap['first_ply']}-{gap['last_ply']}, {gap.get('candidates_total')} orders: "
              f"settled with the moves played ({' '.join(moves)})", flush=True)


if __name__ == "__main__":
    sys.exit(main())
