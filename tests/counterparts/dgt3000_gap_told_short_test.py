#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A gap several orders explain, told at its shortest on a clock that counts no presses while a longer story
was played, and put right by the arbiter on the operator's page (issue 30), on a DGT board and DGT 3000
written from DGT's description (dgt3000_board.py), in the default configuration.

The clock is set to 5:00 each (no increment) and started on White's side; the hands play 1.e4 e5, each
pressed. eboardd is killed (kill -9); while it is down the hands play 2.Nf3 Nf6 3.Nc3 Nc6 4.Nb1 Nb8 5.Nc3 Nc6,
each pressed: a knight out and back that no board shows. Started again on the same state directory, it finds
four stories of four plies (the two knights of each side in either order): one `moves-missed` alert, plies
3-6, with `"length_uncertain": true`, and /status's `missed_gap`, `eboardctl status` and the page (headless
Chromium) say so. 6.d4 (ply 11 as played) goes out at ply 7, where the shortest stories put it; /games.pgn
starts from the gap's position, and pgn-extract (Debian) reads it. Moves to another position are refused in
one line. The eight plies played, typed in the page's field, are taken: /games.pgn is the game played, read
back by pgn-extract move for move, d4 goes out again at ply 11 on /ws, and the gap is gone from /status and
the page (without Chromium, outside CI: typed with eboardctl). A kill -9 and a restart replay the journal to
the same game, game 1 still.

usage: dgt3000_gap_told_short_test.py EBOARDD EBOARDCTL SHARED_DIR
"""
import sys

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep
TOKEN = "gap-told-short-token"
PLAYED = ["e4", "e5", "Nf3", "Nf6", "Nc3", "Nc6", "Nb1", "Nb8", "Nc3", "Nc6", "d4"]
SHORTEST = {("Nf3", "Nf6", "Nc3", "Nc6"), ("Nf3", "Nc6", "Nc3", "Nf6"), ("Nc3", "Nf6", "Nf3", "Nc6"),
            ("Nc3", "Nc6", "Nf3", "Nf6")}


def run(h, eboardd, eboardctl):
    # (The hold, on by default, would keep the moves since back: this is the live way, for a hall that wants
    # them out at once.)
    board = cr.HandsAtABoard(h, eboardd, eboardctl, TOKEN, "[gaps]\nhold_uncounted = false\n")
    d, sans, ctl = board.d, board.sans, board.ctl
    board.start_clock(h)
    board.play([(["e2"], "e4 P"), (["e7"], "e5 p")])

    # Down while both sides develop their knights and White's queen's knight goes out and back.
    board.play_while_down([(["g1"], "f3 N"), (["g8"], "f6 n"), (["b1"], "c3 N"), (["b8"], "c6 n"),
                           (["c3"], "b1 N"), (["c6"], "b8 n"), (["b1"], "c3 N"), (["b8"], "c6 n")])
    ws = ep.WebSocket(d.port)
    try:
        gap = ep.wait_until(lambda: d.board_status()["control"].get("missed_gap"), 30, "/status missed_gap")
        print(f"missed gap: {gap}", flush=True)
        stories = {tuple(ep.strip_san(m) for m in c["san"]) for c in gap["candidates"]}
        h.check((gap["first_ply"], gap["last_ply"]) == (3, 6) and stories == SHORTEST,
                f"the gap's plies and stories: {gap['first_ply']}-{gap['last_ply']} {stories}")
        h.check(gap.get("length_uncertain") is True, f"/status: the gap's length not said uncertain: {gap}")
        alerts = ep.wait_until(lambda: [e for e in ws.snapshot() if e.get("type") == "alert"], 15, "the alert")
        h.check([(a.get("code"), a.get("first_ply"), a.get("last_ply"), a.get("length_uncertain"))
                 for a in alerts] == [("moves-missed", 3, 6, True)], f"the alerts told: {alerts}")
        status = ctl("status")
        h.check(status.returncode == 0 and "missed gap, plies 3-6" in status.stdout and
                "a longer story" in status.stdout, "eboardctl status does not say the gap may be longer")

        # 6.d4, pressed: out at ply 7, where the shortest stories put it; the gap still waits. The record
        # starts from the position after the gap (its moves in the opening comment), as pgn-extract reads it.
        board.play([(["d2"], "d4 P")], published=False)
        ep.wait_until(lambda: sans() == ["d4"], 15, "d4 in /games.pgn, after the gap's position")
        # (/ws is a feed of its own: its event may reach this client a moment after /games.pgn has the move.)
        def told():
            return [(e["ply"], ep.strip_san(e["san"])) for e in ws.snapshot() if e.get("type") == "move"]

        ep.wait_until(lambda: (7, "d4") in told() or None, 15, "d4 on /ws")
        h.check(told() == [(1, "e4"), (2, "e5"), (7, "d4")], f"the moves /ws told: {told()}")
        theirs = ep.read_by_pgn_extract(h, d.get("/games.pgn")[1], "/games.pgn with the gap open")
        h.check(theirs is None or [g["moves"] for g in theirs] == [["d4"]], f"pgn-extract replayed {theirs}")
        h.check(d.board_status()["control"].get("missed_gap", {}).get("first_ply") == 3, "the gap no longer waits")

        # Moves to another position are refused in one line, changing nothing.
        bad = ctl("recover", "A", "--moves", "Nf3 Nf6 Nc3 Nc6 Nb1 Nb8")
        h.check(bad.returncode != 0 and bad.stderr.count("\n") == 1, "recover with moves to another position "
                                                                      "was not refused well")
        h.check(d.board_status()["control"].get("missed_gap") == gap, "a refused recover changed the gap")

        board.correct_gap(h, ws, "missed-gap", ["Plies 3\u20136", "a longer sequence"], PLAYED[2:10], PLAYED,
                          "board-gap-told-short.png", (11, "d4"))
        # The record as an outside reader replays it: the gaps' moves recovered, in their comments.
        theirs = ep.read_by_pgn_extract(h, d.get("/games.pgn")[1], "/games.pgn")
        if theirs is not None:
            h.check([g["moves"] for g in theirs] == [PLAYED], f"pgn-extract replayed {theirs}")
    finally:
        ws.close()
    board.same_game_replayed(h, PLAYED)


if __name__ == "__main__":
    sys.exit(cr.main_of(__doc__, "dgt3000-gap-told-short", run))
