#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A daemon started again with a gap waiting shows its candidates in the order the arbiter read, and a
candidate settled by its number stays the moves the arbiter chose when the journal is replayed, both by a
daemon that ranks the gap otherwise (issue 30: the ranking reads `[gaps] openings`, which may change between
two starts), on a DGT board and DGT 3000 written from DGT's description (dgt3000_board.py).

The clock is set to 5:00 each (no increment) and started on White's side; the hands play 1.e4 e5, each
pressed. eboardd is killed (kill -9); while it is down the hands play 2.Nf3 Nf6 3.Nc3 Nc6, each pressed: four
orders of those moves reach the board. With a book whose line is 2.Nc3 Nc6 3.Nf3 Nf6 that order is listed
first, the one played further down; with one whose line is 2.Nf3 Nf6 3.Nc3 Nc6 the order played is. Told
under the first book, the gap is shown in the same order after a restart under the second (the published
alert's), and the arbiter settles it by the played order's number as he read it (`eboardctl recover A N`);
started again under the second book, whose list has another order at that number, the journal replays to
the moves chosen (none derived otherwise), and 4.d4 follows them.

usage: dgt3000_candidate_replayed_test.py EBOARDD EBOARDCTL SHARED_DIR
"""
import os
import sys

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep
TOKEN = "candidate-replayed-token"
PLAYED = ["e4", "e5", "Nf3", "Nf6", "Nc3", "Nc6"]
LINES = {"played": "1. e4 e5 2. Nf3 Nf6 3. Nc3 Nc6 *\n", "other": "1. e4 e5 2. Nc3 Nc6 3. Nf3 Nf6 *\n"}


def run(h, eboardd, eboardctl):
    books = {}
    for name, text in LINES.items():
        books[name] = os.path.join(h.dir, f"{name}.pgn")
        with open(books[name], "w") as f:
            f.write(f'[Event "{name}"]\n\n{text}')
    board = cr.HandsAtABoard(h, eboardd, eboardctl, TOKEN,
                             f'[gaps]\nhold_uncounted = false\nopenings = "{books["other"]}"\n')
    d, sans, ctl = board.d, board.sans, board.ctl

    def restart_with(book):
        d.kill9()
        with open(d.config) as f:
            text = f.read()
        with open(d.config, "w") as f:
            f.write(text.replace(books["played"], books[book]).replace(books["other"], books[book]))
        d.start()

    def candidates():
        gap = ep.wait_until(lambda: d.board_status()["control"].get("missed_gap"), 30, "/status missed_gap")
        h.check((gap["first_ply"], gap["last_ply"]) == (3, 6), f"the gap's plies: {gap}")
        return [[ep.strip_san(m) for m in c["san"]] for c in gap["candidates"]]

    board.start_clock(h)
    board.play([(["e2"], "e4 P"), (["e7"], "e5 p")])
    board.play_while_down([(["g1"], "f3 N"), (["g8"], "f6 n"), (["b1"], "c3 N"), (["b8"], "c6 n")])
    first = candidates()
    print(f"ranked with the other line: {first}", flush=True)
    h.check(len(first) == 4 and first[0] == ["Nc3", "Nc6", "Nf3", "Nf6"],
            f"the other line's order not first: {first}")
    number = first.index(PLAYED[2:]) + 1
    h.check(number > 1, "the order played is first under the other book: the test shows nothing")

    # Started again under the book that ranks the order played first: the list as the arbiter read it.
    restart_with("played")
    second = candidates()
    print(f"after a restart with the line played: {second}", flush=True)
    h.check(second == first, f"the list changed its order across the restart: {second}")

    r = ctl("recover", "A", str(number))
    h.check(r.returncode == 0, f"eboardctl recover A {number} failed: {r.stderr}")
    h.check(sans() == PLAYED, f"/games.pgn after recover A {number}: {sans()}")

    # Replayed by a daemon whose list puts another order at that number: the same moves, and the game goes
    # on from them (4.d4, pressed).
    restart_with("played")
    ep.wait_until(lambda: sans() == PLAYED or None, 15, "the settled game replayed from the journal")
    h.check(d.board_status()["control"].get("missed_gap") is None, "a gap waits again after the replay")
    differs = [line for line in d.log_text().splitlines()
               if "journal replay differs" in line and '"type":"move"' in line]
    h.check(not differs, f"the replay derived other moves than those journaled: {differs[:1]}")
    board.play([(["d2"], "d4 P")])
    h.check(sans() == PLAYED + ["d4"], f"/games.pgn after 4.d4: {sans()}")
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


if __name__ == "__main__":
    sys.exit(cr.main_of(__doc__, "dgt3000-candidate-replayed", run))
