# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Aggregators that missed the start of the games (issue 16), real processes: a Mosquitto broker on loopback,
a host `eboardd --demo` playing two boards, and two aggregators started only once the games are under way
(one the host trusts, one it does not): the broker has none of the earlier events for them, as for an
aggregator killed after the broker handed it events it had not yet kept. Each sees a move after a hole and
asks the host to publish again what came after the last event it took (a `resend` command). The trusted one
then serves every game whole: its /boards/h1:<id>.pgn equals the host's, and nothing is under `problems`.
The host refuses the untrusted one's resend (a resend costs the host a journal read and the hall a burst of
messages): it counts the refusal, and that aggregator says under `problems` that the host refused. The host starts with 1,100 open
descriptors, as a host of some five hundred boards: its broker socket is numbered above 1023.

Usage: mqtt_late_test.py EBOARDD CORPUS_DIR. Skipped (77) without mosquitto or the corpus.
"""
import os
import resource
import sys
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, TestFailure, wait_until  # noqa: E402
from mqtt_hall_test import Broker, Eboardd, find_mosquitto  # noqa: E402

BOARDS = ["A", "B"]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, corpus = sys.argv[1], sys.argv[2]
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    if not os.path.isdir(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return SKIP
    with Harness("mqtt-late") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        # The host holds 1,100 descriptors more, as a host of some five hundred boards does: its broker
        # socket is numbered above 1023, which select() (mosquitto_loop) cannot watch.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        inherited = []
        if hard == resource.RLIM_INFINITY or hard >= 2048:
            resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
            inherited = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
        else:
            print(f"note: the descriptor limit ({hard}) leaves the host's broker socket below 1024")
        host = Eboardd(h, exe, "h1", broker.port, corpus=corpus)
        host.start(inherit_fds=inherited)
        for fd in inherited:
            os.close(fd)

        def plies(board):
            moves = host.pgn_moves(board)
            return len(moves) if moves else 0
        wait_until(lambda: all(plies(b) >= 6 for b in BOARDS), 60, "6 plies on each of the host's boards")
        # One after the other: a resend goes to every reader of the hall, so an aggregator started while
        # another's resend is under way takes the games whole from it and never has a hole of its own to ask for.
        for name in ("arbiter", "intruder"):
            agg = Eboardd(h, exe, name, broker.port, aggregate=True, trusted=())
            agg.start()
            if name == "intruder":
                check_refused(h, host, agg)
                continue

            def theirs(agg, b):
                try:
                    return agg.pgn_moves(f"h1:{b}")
                except urllib.error.HTTPError as e:  # 404 until the aggregator has heard of the board
                    if e.code != 404:
                        raise
                    return None

            def same():
                for b in BOARDS:
                    mine = host.pgn_moves(b)
                    if not mine or theirs(agg, b) != mine:
                        return None
                return True
            try:
                wait_until(same, 30, f"{agg.name}'s games to be the host's")
            except TestFailure:
                for b in BOARDS:
                    print(b, "host:", host.pgn_moves(b), "\n  ", agg.name + ":", theirs(agg, b))
                raise
            listed = {r["id"]: r for r in agg.status()["mqtt"]["remote_boards"]}
            h.check(all(not listed[f"h1:{b}"]["problems"] for b in BOARDS),
                    f"{agg.name}: problems {[(i, r['problems']) for i, r in listed.items()]}")
            held = sum(listed[f"h1:{b}"]["held_for_resend"] for b in BOARDS)
            h.check(held > 0, f"{agg.name} never waited for a resend (did it miss the games' start?)")
            h.check(all(listed[f"h1:{b}"]["waiting_for_resend"] is None for b in BOARDS),
                    f"{agg.name} still waits for a resend")
            print(f"{agg.name}: every game whole, {held} live event(s) held while the host published again",
                  flush=True)
        print(f"mqtt_late_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


def check_refused(h, host, agg):
    """The untrusted aggregator's resends are refused by the host, and the aggregator says so."""
    def refused():
        try:
            listed = {r["id"]: r for r in agg.status()["mqtt"]["remote_boards"]}
        except KeyError:
            return None
        told = [listed.get(f"h1:{b}", {}).get("problems", []) for b in BOARDS]
        return told if all(any("refused" in p for p in t) for t in told) else None
    told = wait_until(refused, 30, f"{agg.name} to tell that the host refused its resends")
    counted = host.status()["mqtt"]["commands_refused"]
    h.check(counted >= len(BOARDS), f"the host counted {counted} refused command(s), not its {len(BOARDS)} resends")
    print(f"{agg.name}: resends refused by the host ({counted} counted): {told}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
