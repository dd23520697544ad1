#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""An unseen press given back, settled by the arbiter's `eboardctl recover A --moves none` (issue 30), on a DGT
board and DGT 3000 written from DGT's description (dgt3000_board.py), with `[gaps] hold_uncounted = true`.

The clock is set to 5:00 each and started on White's side; the hands play 1.e4 e5 2.Nf3 Nc6, each pressed.
eboardd is killed (kill -9); while it is down White presses without a move. Started again on the same state
directory, it reads the board as it was and Black's clock running: an unseen press without a move
(`clock-without-move`, "unseen"). Black then presses with the board unchanged: that is the press given back,
or the last of moves that came back to the position (3.Ng1 Nb8 4.Nf3 Nc6, the last set down while eboardd was
down), and nothing on the board or the clock tells which. With the hold, the moves since are held: one
`moves-missed` with its length open, /status's `missed_gap` saying so. 3.Bc4 is then played and pressed, and
stays off /games.pgn. Moves that do not come back to the position (`--moves "Ng1 Nb8"`) are refused in one
line, the gap still held; `--moves none` settles it: 3.Bc4 goes out at ply 5, /games.pgn is the game played,
and the gap is gone from /status.

usage: dgt3000_press_given_back_test.py EBOARDD EBOARDCTL SHARED_DIR
"""
import sys
import time

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep
TOKEN = "press-given-back-token"


def run(h, eboardd, eboardctl):
    board = cr.HandsAtABoard(h, eboardd, eboardctl, TOKEN, "[gaps]\nhold_uncounted = true\n")
    d, hand, sans, ctl = board.d, board.hand, board.sans, board.ctl
    board.start_clock(h)
    board.play([(["e2"], "e4 P"), (["e7"], "e5 p"), (["g1"], "f3 N"), (["b8"], "c6 n")])
    h.check(sans() == ["e4", "e5", "Nf3", "Nc6"], f"the opening as played: {sans()}")

    # Down; White presses without a move meanwhile; up again on the same state directory.
    d.kill9()
    time.sleep(1.0)
    hand("press")
    time.sleep(2.0)
    d.start()
    ws = ep.WebSocket(d.port)
    try:
        unseen = ep.wait_until(lambda: next((a for a in d.board_status()["control"]["alerts"]
                                             if a["code"] == "clock-without-move"), None),
                               30, "the unseen press told as a press without a move")
        print(f"after the restart: {unseen}", flush=True)
        # Black gives it back, the board unchanged.
        time.sleep(1.0)
        hand("press")
        gap = ep.wait_until(lambda: d.board_status()["control"].get("missed_gap"), 15, "/status missed_gap")
        print(f"held: {gap}", flush=True)
        h.check(gap.get("length_unknown") is True, f"the gap is held with its length open: {gap}")
        h.check(gap["first_ply"] == 5, f"the gap starts at ply 5: {gap}")
        # (/ws is a feed of its own: its alert may reach this client a moment after /status has the gap.)
        def alerts_told():
            return [e for e in ws.snapshot() if e.get("type") == "alert" and e.get("code") == "moves-missed"]

        try:
            alerts = ep.wait_until(alerts_told, 15, "the moves-missed alert on /ws")
        except ep.TestFailure:
            alerts = []
        h.check(alerts and "--moves none" in alerts[-1].get("detail", ""),
                f"the moves-missed alert tells the arbiter of --moves none: {alerts}")
        status = ctl("status")
        h.check(status.returncode == 0 and "moves since held back" in status.stdout,
                "eboardctl status does not say the moves since are held back")

        # 3.Bc4, pressed: held back.
        time.sleep(0.6)
        hand("lift f1", "place c4 B")
        time.sleep(0.6)
        hand("press")
        ep.wait_until(lambda: d.board_status()["game"].get("clock_now", {}).get("running") == "black", 15,
                      "Black's clock running after 3.Bc4's press")
        time.sleep(0.5)
        h.check(sans() == ["e4", "e5", "Nf3", "Nc6"] or "[SetUp" in d.get("/games.pgn")[1],
                f"3.Bc4 went out while the gap was held: {sans()}")
        h.check(not any(e.get("type") == "move" and e.get("ply", 0) >= 5 for e in ws.snapshot()),
                "a move at ply 5 or later went out on /ws while the gap was held")

        # Moves that do not come back are refused, the gap still held; "none" settles it.
        bad = ctl("recover", "A", "--moves", "Ng1 Nb8")
        h.check(bad.returncode != 0 and bad.stderr.count("\n") == 1, "recover --moves 'Ng1 Nb8' was not refused well")
        h.check(d.board_status()["control"].get("missed_gap") is not None, "a refused recover settled the gap")
        r = ctl("recover", "A", "--moves", "none")
        h.check(r.returncode == 0, f"eboardctl recover --moves none failed: {r.stderr}")
        # The answer means the effect is visible: no waiting.
        h.check(d.board_status()["control"].get("missed_gap") is None, "/status: the gap is still held")
        pgn = d.get("/games.pgn")[1]
        h.check("[SetUp" not in pgn, f"/games.pgn still shows the gap:\n{pgn}")
        h.check(sans() == ["e4", "e5", "Nf3", "Nc6", "Bc4"], f"/games.pgn after --moves none: {sans()}")
        moved = ep.wait_until(lambda: [e for e in ws.snapshot() if e.get("type") == "move" and e.get("ply") == 5],
                              10, "ply 5 on /ws")
        h.check(len(moved) == 1 and ep.strip_san(moved[0]["san"]) == "Bc4" and not moved[0].get("recovered"),
                f"3.Bc4 went out at ply 5, once, as a live move: {moved}")
    finally:
        ws.close()
    # The settled game is the same game, live and after a restart that replays the journal: game 1 still.
    games = [g for g in ep.parse_pgn(d.get("/games.pgn")[1]) if g["tags"].get("Board") == "A"]
    h.check(len(games) == 1, f"/games.pgn holds {len(games)} games of board A after --moves none")
    board.same_game_replayed(h, ["e4", "e5", "Nf3", "Nc6", "Bc4"])


if __name__ == "__main__":
    sys.exit(cr.main_of(__doc__, "dgt3000-press-given-back", run))
