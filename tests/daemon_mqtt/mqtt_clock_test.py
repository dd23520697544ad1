#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The arbiter sets a DGT 3000's times from the aggregator for a board of another host (issue 27), real
processes: a Mosquitto broker on loopback, a host h1 with two DGT boards on clocks written from DGT's public
description (tests/counterparts/dgt3000_board.py: A's clock answers as DGT describes, B's never answers), and
an aggregator h1 trusts.

- POST /control/h1:A/clock on the aggregator: the command goes to h1, h1 sends the times and checks the
  clock's ACK, and the aggregator answers 200 "acknowledged" with the host's answer; the emulated clock
  displays exactly those times. `eboardctl clock` against the aggregator does the same.
- h1:B: the host's "not confirmed" (504) reaches the arbiter as such, not a 202.
- h1 frozen (SIGSTOP) while the arbiter sets A's clock: the aggregator answers 504 "did not answer" within its
  bound; h1, thawed, finds the command past its deadline and does not obey it: A's clock keeps its times and
  receives no SetNRun.
- h1 stopped (its last will: offline): the aggregator refuses at once (503), nothing sent.

usage: mqtt_clock_test.py EBOARDD EBOARDCTL. Skipped (77) without mosquitto.
"""
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COUNTERPARTS = os.path.join(HERE, "..", "counterparts")
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.path.insert(0, COUNTERPARTS)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, wait_until  # noqa: E402
from mqtt_hall_test import TOKEN, Broker, Eboardd, board_of, find_mosquitto  # noqa: E402
from mqtt_hall_test import post as hall_post  # noqa: E402
import counterpart_run as cr  # noqa: E402

# The aggregator waits 18 s for the host's answer (hall.cpp); eboardctl clock waits 20 s.
AGGREGATOR_WAIT_S = 18


def post(port, path, body):
    return hall_post(port, path, body, timeout=40)  # beyond the aggregator's wait


def clock_of(daemon, board_id):
    b = board_of(daemon, board_id)
    return (b or {}).get("control", {}).get("clock", {})


def set_n_runs(em):
    return len([c for c in em.get("commands", []) if c["sub"] == 0x0A])


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, eboardctl = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    with Harness("mqtt-clock") as h:
        emus = {}
        for board, extra in (("A", []), ("B", ["--ack", "never"])):
            status = os.path.join(h.dir, f"clock-{board}.json")
            _, (device,) = cr.start_emulator(h, f"dgt3000-{board}", [
                os.path.join(COUNTERPARTS, "dgt3000_board.py"), "--link", os.path.join(h.dir, f"dgt-{board}"),
                "--status", status, *extra], 1)
            emus[board] = (device, status)

        def emulated(board):
            return cr.read_status(emus[board][1]) or {}

        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        boards = "".join(f'\n[[board]]\nid = "{b}"\nport = "{dev}"\nprotocol = "dgt"\n' for b, (dev, _) in emus.items())
        host = Eboardd(h, exe, "h1", broker.port, extra=boards)
        host.start()
        for b in "AB":
            wait_until(lambda b=b: clock_of(host, b).get("settable") and "left_ms" in clock_of(host, b), 30,
                       f"h1's board {b} online with its clock read")
            wait_until(lambda b=b: board_of(agg, f"h1:{b}"), 30, f"h1:{b} on the aggregator")

        # 1. Both times, through the aggregator.
        t0 = time.time()
        code, ans = post(agg.port, "/control/h1:A/clock", {"left": "1:30:00", "right": 2710000})
        print(f"h1:A set through the aggregator: {code} {ans} in {time.time() - t0:.2f} s", flush=True)
        h.check(code == 200 and ans.get("clock") == "acknowledged",
                f"h1:A: the aggregator answers with the clock's confirmation ({code} {ans})")
        h.check(ans.get("host") == "h1" and ans.get("board") == "h1:A", f"the answer names h1 and h1:A ({ans})")
        em = emulated("A")
        h.check((em.get("left_ms"), em.get("right_ms")) == (5400000, 2710000),
                f"A's clock displays 1:30:00 and 0:45:10 (it shows {em.get('left_ms')}, {em.get('right_ms')})")

        # 2. eboardctl clock against the aggregator.
        out = subprocess.run([eboardctl, "clock", "--daemon", f"127.0.0.1:{agg.port}", "--token", TOKEN, "h1:A",
                              "--left", "0:45:00", "--right", "0:44:00", "--json"],
                             capture_output=True, text=True, timeout=60)
        print(f"eboardctl clock h1:A: exit {out.returncode}: {out.stdout.strip()} {out.stderr.strip()}", flush=True)
        ans = json.loads(out.stdout) if out.returncode == 0 else {}
        h.check(out.returncode == 0 and ans.get("sent", {}).get("left_ms") == 2700000,
                f"eboardctl clock h1:A through the aggregator: exit {out.returncode}")
        em = emulated("A")
        h.check((em.get("left_ms"), em.get("right_ms")) == (2700000, 2640000),
                f"A's clock displays 0:45:00 and 0:44:00 ({em.get('left_ms')}, {em.get('right_ms')})")

        # 3. A clock that never answers: the host's failure reaches the arbiter.
        t0 = time.time()
        code, ans = post(agg.port, "/control/h1:B/clock", {"left": "0:10:00", "right": "0:10:00"})
        took = time.time() - t0
        print(f"h1:B (no ACK) through the aggregator: {code} {ans} in {took:.1f} s", flush=True)
        h.check(code == 504 and ans.get("clock") == "not-confirmed" and "did not confirm" in ans.get("error", "")
                and ans.get("host") == "h1", f"h1:B: the host's 'not confirmed' relayed ({code} {ans})")
        h.check(set_n_runs(emulated("B")) >= 2, "h1 sent B's times again while no ACK came")

        # 4. The host frozen: the aggregator's bound, and no clock set behind the arbiter's back.
        before = emulated("A")
        host.proc.send_signal(signal.SIGSTOP)
        try:
            t0 = time.time()
            code, ans = post(agg.port, "/control/h1:A/clock", {"left": "0:05:00", "right": "0:05:00"})
            took = time.time() - t0
        finally:
            host.proc.send_signal(signal.SIGCONT)
        print(f"h1:A with h1 frozen: {code} {ans} in {took:.1f} s", flush=True)
        h.check(code == 504 and "did not answer" in ans.get("error", "") and ans.get("clock") == "not-confirmed",
                f"h1 frozen: 504 saying the host did not answer ({code} {ans})")
        h.check(AGGREGATOR_WAIT_S - 1 < took < AGGREGATOR_WAIT_S + 5, f"answered after the bound ({took:.1f} s)")
        wait_until(lambda: "after its deadline" in open(host.log, errors="replace").read(), 15,
                   "h1 refusing the late command")
        time.sleep(1.0)
        em = emulated("A")
        h.check(set_n_runs(em) == set_n_runs(before), f"A's clock received no SetNRun after the deadline "
                f"({set_n_runs(before)} before, {set_n_runs(em)} after)")
        h.check((em.get("left_ms"), em.get("right_ms")) == (2700000, 2640000),
                f"A's clock kept 0:45:00 and 0:44:00 ({em.get('left_ms')}, {em.get('right_ms')})")

        # 5. The host gone: refused at once.
        host.proc.send_signal(signal.SIGTERM)
        host.proc.wait(timeout=30)
        wait_until(lambda: agg.status()["mqtt"]["hosts"].get("h1") == "offline", 15, "h1 offline on the aggregator")
        t0 = time.time()
        code, ans = post(agg.port, "/control/h1:A/clock", {"left": "0:05:00", "right": "0:05:00"})
        took = time.time() - t0
        print(f"h1:A with h1 offline: {code} {ans} in {took:.1f} s", flush=True)
        h.check(code == 503 and "offline" in ans.get("error", "") and took < 5,
                f"h1 offline: 503 at once ({code} {ans}, {took:.1f} s)")
        print(f"mqtt_clock_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
