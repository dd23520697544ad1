#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A detour no board shows, recovered as the one story that reaches the board and corrected by the arbiter's
`eboardctl recover A --moves` (issue 30), on a DGT board and DGT 3000 written from DGT's description
(dgt3000_board.py), in the default configuration.

The clock is set to 5:00 each (no increment: its presses do not count the moves) and started on White's side;
the hands play 1.e4 e5, each pressed. eboardd is killed (kill -9); while it is down the hands play 2.Nf3 Nc6
3.Ng1 Nb8 4.Nf3 Nc6 5.Nxe5 Nxe5, each pressed, the knights out and back. Started again on the same state
directory, it reads the board and White's clock running: one story of four plies reaches it (2.Nf3 Nc6 3.Nxe5
Nxe5), recovered as moves, no alert. /status's `recovered_gap` and `eboardctl status` say a longer story may be
the one; 4.d4 (ply 11 as played) goes out at ply 7. The same four plies and a candidate's number are refused in
one line; the arbiter's page (headless Chromium) says the gap may be longer, and the eight plies played typed
in its field are taken: /games.pgn is then the game played, d4 at ply 11 on /ws, and the gap gone from /status
and the page (without Chromium, outside CI: typed with eboardctl). A kill -9 and a restart replay the
journal to the same game, game 1 still.

usage: dgt3000_detour_corrected_test.py EBOARDD EBOARDCTL SHARED_DIR
"""
import sys

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep
TOKEN = "detour-corrected-token"
PLAYED = ["e4", "e5", "Nf3", "Nc6", "Ng1", "Nb8", "Nf3", "Nc6", "Nxe5", "Nxe5", "d4"]


def run(h, eboardd, eboardctl):
    # (The hold, on by default, would keep the moves since back: this is the live way, for a hall that wants
    # them out at once.)
    board = cr.HandsAtABoard(h, eboardd, eboardctl, TOKEN, "[gaps]\nhold_uncounted = false\n")
    d, sans, ctl = board.d, board.sans, board.ctl
    board.start_clock(h)
    board.play([(["e2"], "e4 P"), (["e7"], "e5 p")])

    # Down while the knights go out and back, then take on e5; up again on the same state directory.
    board.play_while_down([(["g1"], "f3 N"), (["b8"], "c6 n"), (["f3"], "g1 N"), (["c6"], "b8 n"),
                           (["g1"], "f3 N"), (["b8"], "c6 n"), (["e5", "f3"], "e5 N"), (["e5", "c6"], "e5 n")])
    ws = ep.WebSocket(d.port)
    try:
        ep.wait_until(lambda: len(sans()) == 6, 30, "the gap recovered after the restart")
        h.check(sans() == ["e4", "e5", "Nf3", "Nc6", "Nxe5", "Nxe5"], f"the one story recovered: {sans()}")
        gap = ep.wait_until(lambda: d.board_status()["control"].get("recovered_gap"), 15, "/status recovered_gap")
        print(f"recovered: {gap}", flush=True)
        h.check(gap == {"first_ply": 3, "last_ply": 6, "length_uncertain": True}, f"/status recovered_gap {gap}")
        h.check(d.board_status()["control"].get("missed_gap") is None, f"a missed gap waits: {d.board_status()}")
        h.check(not [e for e in ws.snapshot() if e.get("type") == "alert"], "an alert was told for one story")
        status = ctl("status")
        h.check(status.returncode == 0 and "gap recovered, plies 3-6" in status.stdout and
                "a longer story" in status.stdout, "eboardctl status does not show the gap open to correction")

        # 6.d4, pressed: out at ply 7, where the shorter story puts it.
        board.play([(["d2"], "d4 P")])
        h.check(sans()[-1] == "d4" and len(sans()) == 7, f"d4 after the recovered story: {sans()}")

        # The same plies and a number are refused, in one line, changing nothing; the moves played are taken.
        for wrong in (["--moves", "Nf3 Nc6 Nxe5 Nxe5"], ["1"]):
            bad = ctl("recover", "A", *wrong)
            h.check(bad.returncode != 0 and bad.stderr.count("\n") == 1, f"recover {wrong} was not refused well")
        h.check(d.board_status()["control"].get("recovered_gap") == gap, "a refused recover changed the gap")
        # The moves played, typed on the arbiter's page (in Chromium; eboardctl where it is not installed).
        board.correct_gap(h, ws, "recovered-gap", ["Plies 3\u20136", "a longer sequence"], PLAYED[2:10], PLAYED,
                          "board-recovered-gap.png", (11, "d4"))
    finally:
        ws.close()
    board.same_game_replayed(h, PLAYED)


if __name__ == "__main__":
    sys.exit(cr.main_of(__doc__, "dgt3000-detour-corrected", run))
