#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Finished records by number for another host's boards and matches (issue 27), real processes: a Mosquitto
broker on loopback, a host h1 `eboardd --demo` playing single games in a row, a host h2 `eboardd --demo`
playing bughouse matches in a row, and an aggregator. Once each host is past its first records:
- the aggregator's /boards/h1:<id>.pgn?game=N, for each finished game N, has the moves and result of the host's /boards/<id>.pgn?game=N;
- its /matches/h2:A-B.bpgn?match=1 is the host's /matches/A-B.bpgn?match=1 byte for byte, and
  /boards/h2:A.pgn?game=1 the host's game 1 of board A with the hall's names;
- a number it has not seen is a 404 naming the numbers it has, a query that is no number a 400.

Usage: mqtt_records_test.py EBOARDD SHARED_DIR. Skipped (77) without mosquitto or the corpora.
"""
import os
import re
import sys
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, http_get, parse_pgn, wait_until  # noqa: E402
from mqtt_hall_test import Broker, Eboardd, find_mosquitto  # noqa: E402
from mqtt_bughouse_test import hall_names  # noqa: E402


def get(port, path):
    try:
        return http_get(port, path)
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def numbers(d):
    """Board id → its current game number, from /status."""
    return {b["id"]: b["game"]["number"] for b in d.status()["boards"] if not b.get("remote")}


def result_of(text):
    m = re.search(r'^\[Result "([^"]*)"\]$', text, re.M)
    return m.group(1) if m else None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, shared = sys.argv[1], sys.argv[2]
    standard = os.path.join(shared, "corpora", "pgn", "standard")
    bughouse = os.path.join(shared, "corpora", "bughouse", "chesscom_bughouse_20matches.bpgn")
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    if not os.path.isdir(standard) or not os.path.exists(bughouse):
        print(f"SKIP: no corpora under {shared}")
        return SKIP
    with Harness("mqtt-records") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        h1 = Eboardd(h, exe, "h1", broker.port, corpus=standard)
        h1.start()
        h2 = Eboardd(h, exe, "h2", broker.port, corpus=bughouse)
        h2.start()

        # Single boards: game 2 begun on every board of h1 (a finished game each; the demo plays a corpus game
        # in 40 to 80 s).
        first = wait_until(lambda: (lambda n: n if n and min(n.values()) >= 2 else None)(numbers(h1)), 150,
                           "game 2 on every board of h1")
        print(f"h1's game numbers: {first}", flush=True)
        for board in sorted(first):
            for n in range(1, first[board]):
                code, want = get(h1.port, f"/boards/{board}.pgn?game={n}")
                h.check(code == 200, f"h1 {board} game {n}: {code}")

                def same(board=board, n=n, want=want):
                    code, got = get(agg.port, f"/boards/h1:{board}.pgn?game={n}")
                    if code != 200:
                        return None
                    g, w = parse_pgn(got), parse_pgn(want)
                    return (g, w) if g and w and g[0]["moves"] == w[0]["moves"] and \
                        result_of(got) == result_of(want) else None
                try:
                    wait_until(same, 15, f"h1:{board} game {n} on the aggregator as on h1")
                except Exception as e:
                    h.check(False, f"h1:{board} game {n}: {e}; the aggregator serves "
                                   f"{get(agg.port, f'/boards/h1:{board}.pgn?game={n}')}")
                    continue
                code, got = get(agg.port, f"/boards/h1:{board}.pgn?game={n}")
                h.check(f'[Board "h1:{board}"]' in got, f"h1:{board} game {n} names its board h1:{board}")
            now = numbers(h1)[board]
            code, got = get(agg.port, f"/boards/h1:{board}.pgn?game={now}")
            h.check(code in (200, 404), f"h1:{board} current game {now}: {code}")  # may have moved on meanwhile
        board = sorted(first)[0]
        code, text = get(agg.port, f"/boards/h1:{board}.pgn?game=999")
        h.check(code == 404 and "1" in text, f"game 999: 404 naming the games kept ({code} {text.strip()})")
        code, text = get(agg.port, f"/boards/h1:{board}.pgn?game=two")
        h.check(code == 400, f"?game=two: 400 ({code} {text.strip()})")

        # A bughouse match: match 2 begun on h2.
        wait_until(lambda: min(numbers(h2).values() or [0]) >= 2, 150, "match 2 on h2")
        code, want = get(h2.port, "/matches/A-B.bpgn?match=1")
        h.check(code == 200 and "@" in want, f"h2's match 1: {code}, {len(want)} bytes")
        code_a, want_a = get(h2.port, "/boards/A.pgn?game=1")

        def same_match():
            code, got = get(agg.port, "/matches/h2:A-B.bpgn?match=1")
            return got if code == 200 and got == want else None
        try:
            wait_until(same_match, 15, "match 1 of h2:A-B on the aggregator as on h2")
            print(f"h2:A-B match 1 equal ({len(want)} bytes)", flush=True)
        except Exception as e:
            h.check(False, f"{e}: the aggregator serves {get(agg.port, '/matches/h2:A-B.bpgn?match=1')}")
        code, got = get(agg.port, "/boards/h2:A.pgn?game=1")
        h.check(code == 200 and code_a == 200 and got.strip() == hall_names(want_a, "h2").strip(),
                f"h2:A game 1 as h2 prints it with the hall's names ({code}; h2: {code_a})")
        code, text = get(agg.port, "/matches/h2:A-B.bpgn?match=999")
        h.check(code == 404 and "1" in text, f"match 999: 404 naming the matches kept ({code} {text.strip()})")
        code, text = get(agg.port, "/matches/h2:A-B.bpgn?match=0")
        h.check(code == 400, f"?match=0: 400 ({code} {text.strip()})")
        print(f"mqtt_records_test: {'FAIL' if h.failures else 'ok'} in {h.elapsed():.0f} s", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
