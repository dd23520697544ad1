# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""An arbiter acknowledges a remote board's alerts on the aggregator (issue 16), real processes: a Mosquitto
broker on loopback, a host with one board (added through its control API, played by `eboardctl sim` from a
hand-made capture in which Black presses the clock twice without moving: two clock-without-move alerts), and
an aggregator the host trusts. The arbiter acknowledges alert 1 as the aggregator's /status (the operator
page's source) shows it, then the one left, by the number shown:
- the host acknowledges the alert the arbiter meant (its own numbering: the open ones after an
  acknowledgement are not renumbered from 1);
- the aggregator's view follows (the host tells its state again after an acknowledgement, which publishes no
  event), until no alert is open on either side.

Usage: mqtt_ack_test.py EBOARDD EBOARDCTL. Skipped (77) without mosquitto.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, wait_until  # noqa: E402
from mqtt_hall_test import Broker, Eboardd, board_of, find_mosquitto, post  # noqa: E402
import web_page_test  # noqa: E402

# The web page test's capture (1. e4 and White's press, then Black presses without moving, at 4900), then the
# lever goes back (6900) and Black presses without moving again (7900).
CAPTURE = web_page_test.CAPTURE + """6900 < 8d 00 0a 00 04 57 00 04 56 13
7900 < 8d 00 0a 00 04 57 00 04 55 09
8900 < 8d 00 0a 00 04 56 00 04 55 09
"""


def open_alerts(daemon, board_id):
    b = board_of(daemon, board_id)
    return [a for a in b["control"]["alerts"] if not a["acknowledged"]] if b else []


def answered(daemon, cid):
    for c in daemon.status()["mqtt"]["commands"]:
        if c["id"] == cid and c["answer"]:
            return c["answer"]
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, eboardctl = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    with Harness("mqtt-ack") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        host = Eboardd(h, exe, "h1", broker.port)
        host.start()
        cap = os.path.join(h.dir, "two-presses.cap")
        with open(cap, "w") as f:
            f.write(CAPTURE)
        sim = subprocess.Popen([eboardctl, "sim", "--capture", cap, "--link", os.path.join(h.dir, "dgt-C"),
                                "--linger", "600"], stdout=subprocess.PIPE, stderr=open(h.log_path("sim"), "w"),
                               text=True)
        h.procs.append(sim)
        device = sim.stdout.readline().strip()
        code, body = post(host.port, "/boards", {"id": "C", "port": device, "protocol": "dgt"})
        h.check(code == 201, f"POST /boards C on the host: {code} {body}")

        wait_until(lambda: len(open_alerts(host, "C")) == 2, 30, "the host's two clock-without-move alerts")
        shown = wait_until(lambda: (lambda a: a if len(a) == 2 else None)(open_alerts(agg, "h1:C")), 15,
                           "both alerts on the aggregator")
        h.check([a["number"] for a in shown] == [1, 2] and {a["code"] for a in shown} == {"clock-without-move"},
                f"the aggregator's alerts of h1:C: {shown}")

        # The arbiter acknowledges each alert as the aggregator shows it, the first one first.
        for step in range(2):
            alert = open_alerts(agg, "h1:C")[0]
            code, sent = post(agg.port, "/control/h1:C/ack", {"alert": alert["number"]})
            h.check(code == 202 and sent.get("sent"), f"ack {alert['number']} through the aggregator: {code} {sent}")
            answer = wait_until(lambda: answered(agg, sent.get("command")), 15, "the host's answer")
            h.check(answer["status"] == 200, f"the host's answer to ack {alert['number']}: {answer}")
            left = 1 - step
            wait_until(lambda: len(open_alerts(host, "C")) == left, 15, f"{left} alert(s) open on the host")
            wait_until(lambda: len(open_alerts(agg, "h1:C")) == left, 15, f"{left} alert(s) open on the aggregator")
            if left:
                rest = open_alerts(agg, "h1:C")
                h.check(rest[0]["number"] == 2, f"the alert left keeps the host's number 2: {rest}")
                h.check(open_alerts(host, "C")[0]["number"] == 2, "the host acknowledged another alert than asked")
        print(f"mqtt_ack_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
