#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The arbiter sets a DGT 3000's times from the desk (issue 27), against clocks written from DGT's public
description (dgt3000_board.py), not from eboardd's encoder.

eboardd runs three DGT boards, each on its own counterpart: A's clock answers as DGT describes, B's never
answers (a loose cable between board and clock), C's is in mode 1, where the clock refuses SetNRun. A fourth
board is a Millennium board, which has no clock to set.

- POST /control/A/clock with left and right times: 200 "acknowledged"; the emulated clock then displays
  exactly those times, and the times the board reports (BWTIME) reach /status (boards[].control.clock).
- White and Black times before anyone knows which side is White's: 409 saying so.
- The clock started on the left (run), then {"add_ms": 120000, "side": "black"} (7.5.5's two minutes):
  the right display shows two minutes more, the running left clock goes on.
- B: the answer says the clock did not confirm (504), within a bounded time, not a hang.
- C: the answer says the clock refused the times (502).
- The Millennium board: 409 saying it has no clock.
- D and E, two more such boards, play a bughouse match ([[match]]): D's clock is set as A's is (200
  "acknowledged", the emulated display shows the times), not refused for being a match board.

usage: dgt3000_clock_test.py EBOARDD EBOARDCTL SHARED_DIR
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
import counterpart_run as cr  # noqa: E402

ep = cr.ep
TOKEN = "clock-desk-token"
# The daemon gives the clock 3 sends 2 s apart (its ACK timeout) and answers within 15 s at most.
NO_ACK_BOUND_S = 16


def post(port, path, body, timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read().decode())


def clock_of(d, board):
    for b in d.status()["boards"]:
        if b["id"] == board:
            return b.get("control", {}).get("clock", {})
    return {}


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("eboardd")
    ap.add_argument("eboardctl")
    ap.add_argument("shared")
    a = ap.parse_args()
    with ep.Harness("dgt3000-clock") as h:
        try:
            run(h, a)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a):
    emus = {}
    for board, extra in (("A", []), ("B", ["--ack", "never"]), ("C", ["--mode", "1"]), ("D", []), ("E", [])):
        status = os.path.join(h.dir, f"clock-{board}.json")
        _, (device,) = cr.start_emulator(h, f"dgt3000-{board}", [
            "dgt3000_board.py", "--link", os.path.join(h.dir, f"dgt-{board}"), "--status", status, *extra], 1)
        emus[board] = (device, status)
    body = f'token = "{TOKEN}"\n\n' + "".join(
        f'[[board]]\nid = "{b}"\nport = "{dev}"\nprotocol = "dgt"\n\n' for b, (dev, _) in emus.items())
    body += '[[board]]\nid = "M"\nport = "/dev/eboard-clock-test-absent"\nprotocol = "millennium"\n'
    body += '\n[[match]]\nboards = ["D", "E"]\nrules = "bughouse-fqe"\n'
    d = cr.ConfiguredDaemon(h, a.eboardd, body, "A").start()

    def emulated(board):
        return cr.read_status(emus[board][1]) or {}

    for b in "ABCDE":
        ep.wait_until(lambda b=b: clock_of(d, b).get("settable") and "left_ms" in clock_of(d, b), 30,
                      f"board {b} online with its clock read")

    # 1. Both times, by side.
    t0 = time.time()
    code, ans = post(d.port, "/control/A/clock", {"left": "1:30:00", "right": 2710000})
    print(f"A set: {code} {ans} in {time.time() - t0:.2f} s", flush=True)
    h.check(code == 200 and ans.get("clock") == "acknowledged", f"A: the clock confirms the times ({code} {ans})")
    em = emulated("A")
    h.check((em.get("left_ms"), em.get("right_ms")) == (5400000, 2710000),
            f"A's clock displays 1:30:00 and 0:45:10 (it shows {em.get('left_ms')}, {em.get('right_ms')})")
    h.check(em.get("running") is None, f"A's clock stopped as it was ({em.get('running')})")
    h.check(any(c["sub"] == 0x0A for c in em.get("commands", [])), "A's clock received a SetNRun")
    ep.wait_until(lambda: (clock_of(d, "A").get("left_ms"), clock_of(d, "A").get("right_ms")) == (5400000, 2710000),
                  10, "the board's BWTIME with the new times in /status")
    print(f"A in /status: {clock_of(d, 'A')}", flush=True)

    # 2. Colours before the sides are known.
    code, ans = post(d.port, "/control/A/clock", {"white": "5:00", "black": "5:00"})
    h.check(code == 409 and "White" in ans.get("error", ""), f"colours unknown: 409 saying so ({code} {ans})")

    # 3. The clock started on the left (White's, as White is on move), then two minutes to Black.
    code, ans = post(d.port, "/control/A/clock", {"left": "1:30:00", "right": "0:45:10", "run": "left"})
    h.check(code == 200, f"A started on the left ({code} {ans})")
    ep.wait_until(lambda: clock_of(d, "A").get("running") == "left" and clock_of(d, "A").get("white_side") == "left",
                  10, "/status: the left clock runs, White's")
    # The arbiter's tool this time: eboardctl clock.
    ctl = [a.eboardctl, "clock", "--daemon", f"127.0.0.1:{d.port}", "--token", TOKEN]
    out = subprocess.run(ctl + ["A", "--add", "2:00", "--side", "black", "--json"], capture_output=True, text=True,
                         timeout=60)
    print(f"eboardctl clock A --add 2:00 --side black: exit {out.returncode}: {out.stdout.strip()} "
          f"{out.stderr.strip()}", flush=True)
    ans = json.loads(out.stdout) if out.returncode == 0 else {}
    h.check(out.returncode == 0 and ans.get("sent", {}).get("black_ms") == 2830000,
            f"A: Black's time raised by two minutes (exit {out.returncode})")
    em = emulated("A")
    h.check(em.get("right_ms") == 2830000 and em.get("running") == "left",
            f"A's clock displays 0:47:10 on the right, the left running ({em})")
    ep.wait_until(lambda: clock_of(d, "A").get("right_ms") == 2830000, 10, "/status: 0:47:10 on the right")

    # 4. A clock that never answers: a clear failure, bounded.
    t0 = time.time()
    code, ans = post(d.port, "/control/B/clock", {"left": "0:10:00", "right": "0:10:00"}, timeout=60)
    took = time.time() - t0
    print(f"B (no ACK): {code} {ans} in {took:.1f} s", flush=True)
    h.check(code == 504 and ans.get("clock") == "not-confirmed" and "did not confirm" in ans.get("error", ""),
            f"B: the answer says the clock did not confirm ({code} {ans})")
    h.check(took < NO_ACK_BOUND_S, f"B answered within {NO_ACK_BOUND_S} s ({took:.1f} s)")
    sends = len([c for c in emulated("B").get("commands", []) if c["sub"] == 0x0A])
    h.check(sends >= 2, f"B: the command was sent again while no ACK came ({sends} sends)")

    # 5. A clock outside mode 23 refuses.
    code, ans = post(d.port, "/control/C/clock", {"left": "0:10:00", "right": "0:10:00"})
    print(f"C (mode 1): {code} {ans}", flush=True)
    h.check(code == 502 and ans.get("clock") == "rejected" and "mode 23" in ans.get("error", ""),
            f"C: the answer says the clock refused ({code} {ans})")
    h.check(emulated("C").get("left_ms") == 300000, "C's clock kept its times")

    # 6. No clock to set.
    code, ans = post(d.port, "/control/M/clock", {"left": "0:10:00", "right": "0:10:00"})
    h.check(code == 409 and "millennium" in ans.get("error", ""), f"M: 409, no clock ({code} {ans})")
    out = subprocess.run(ctl + ["M", "--left", "10:00", "--right", "10:00"], capture_output=True, text=True,
                         timeout=60)
    print(f"eboardctl clock M: exit {out.returncode}: {out.stderr.strip()}", flush=True)
    h.check(out.returncode == 1 and "millennium" in out.stderr, "eboardctl clock M: exit 1, saying why")

    # 7. A bughouse match board: its clock set as a single board's.
    code, ans = post(d.port, "/control/D/clock", {"left": "0:03:00", "right": "0:02:30"})
    print(f"D (match board) set: {code} {ans}", flush=True)
    h.check(code == 200 and ans.get("clock") == "acknowledged", f"D: the clock confirms the times ({code} {ans})")
    em = emulated("D")
    h.check((em.get("left_ms"), em.get("right_ms")) == (180000, 150000),
            f"D's clock displays 0:03:00 and 0:02:30 (it shows {em.get('left_ms')}, {em.get('right_ms')})")
    ep.wait_until(lambda: (clock_of(d, "D").get("left_ms"), clock_of(d, "D").get("right_ms")) == (180000, 150000),
                  10, "D's BWTIME with the new times in /status")

    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")


if __name__ == "__main__":
    sys.exit(main())
