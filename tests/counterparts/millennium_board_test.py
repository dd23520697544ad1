#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The real eboardd on independent Millennium ChessLink boards (millennium_board.py, written from the maker's
protocol document, not from eboardd's code): --boards boards, each on its own pty, powered up with their
automatic reports OFF (E2ROM 02 = 001, as another program left them: the setting survives power-off), parity
enforced (a byte the host sends without odd parity in bit 7 is dropped), each playing a blitz game of the
corpus piece by piece without a clock (board k: game G+k, the first --plies plies).

eboardd is configured as a user configures such boards: a [[board]] table each with protocol = "millennium".
Every game must come out exactly, move by move, in /games.pgn, with no alert and no link event on /ws. The
emulators' counts are printed: bytes dropped for parity, frames refused, the commands that got through, and
what the host wrote into the E2ROM.

--reports-off K:AT has another program turn board K's reports off AT seconds into its game (its game must
still come out: the host is to notice a silent board, ask again and write the report mode again).
--kill9-at S kills eboardd with SIGKILL S seconds after play starts and starts it again at once on the same
configuration (its ptys must reopen).

usage: millennium_board_test.py EBOARDD EBOARDCTL SHARED_DIR [--boards N] [--plies P] [--game G] [--speed S]
       [--seed N] [--reports-off K:AT] [--kill9-at S]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import argparse
import os
import sys
import time

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("eboardd")
    ap.add_argument("eboardctl")
    ap.add_argument("shared")
    ap.add_argument("--boards", type=int, default=5)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--game", type=int, default=None, help="first corpus game (default: from the seed)")
    ap.add_argument("--speed", type=float, default=8.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--reports-off", default="")
    ap.add_argument("--kill9-at", type=float, default=None)
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    game = a.game if a.game is not None else seed % 400 + 1
    print(f"seed {seed} (--seed {seed} repeats this run), games {game}..{game + a.boards - 1}", flush=True)
    with ep.Harness("counterpart-millennium") as h:
        try:
            run(h, a, pgn, seed, game)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, seed, game):
    status_path = os.path.join(h.dir, "millennium-status.json")
    args = ["millennium_board.py", "--pgn", pgn, "--game", str(game), "--boards", str(a.boards), "--plies",
            str(a.plies), "--speed", str(a.speed), "--seed", str(seed), "--link-dir", h.dir, "--status", status_path]
    if a.reports_off:
        args += ["--reports-off", a.reports_off]
    _, devices = cr.start_emulator(h, "millennium_board", args, a.boards)
    ids = [f"M{i + 1}" for i in range(a.boards)]
    body = "".join(f'[[board]]\nid = "{bid}"\nport = "{dev}"\nprotocol = "millennium"\n\n'
                   for bid, dev in zip(ids, devices))
    d = cr.ConfiguredDaemon(h, a.eboardd, body, ids[0]).start()
    ws = ep.WebSocket(d.port)
    print(f"{a.boards} Millennium boards (reports off at power-up, parity enforced) on {devices}; eboardd on port "
          f"{d.port}", flush=True)
    events_before = []
    if a.kill9_at is not None:
        ep.wait_until(lambda: (cr.read_status(status_path) or {}).get("boards") and
                      all(b["started"] for b in cr.read_status(status_path)["boards"]), 60, "play to start")
        time.sleep(a.kill9_at)
        events_before = ws.snapshot()
        ws.close()
        d.kill9()
        print(f"eboardd killed with SIGKILL {a.kill9_at} s into play; started again", flush=True)
        d.start()
        ws = ep.WebSocket(d.port)

    status, games = cr.follow(h, d, ws, status_path, ids, timeout=600, grace=30)
    time.sleep(0.5)
    events = ws.settled()
    if a.kill9_at is not None:
        # The second connection starts with the current state; alerts and links of both connections count.
        events = [e for e in events_before if e.get("type") in ("alert", "link")] + events
    exact = cr.report(h, status, games, ids, events, lambda b: f"pty {b['device']}")
    for i, b in enumerate(status["boards"]):
        writes = [w[1:] for w in b["e2rom_writes"]]
        print(f"  {ids[i]}: {b['parity_errors']} bytes dropped for parity, {b['bad_frames']} frames refused, "
              f"commands answered {b['commands']}, E2ROM writes [address, value] {writes}, "
              f"{b['reports']} automatic reports, report mode at the end {b['reports_mode_at_end']:#04x}",
              flush=True)
        h.check(b["parity_errors"] == 0, f"{ids[i]}: {b['parity_errors']} bytes from the host without odd parity")
    print(f"result: {exact} of {len(ids)} games exact", flush=True)
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


if __name__ == "__main__":
    sys.exit(main())
