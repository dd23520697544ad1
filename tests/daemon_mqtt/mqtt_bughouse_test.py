# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A remote bughouse match at the aggregator (issue 16), real processes: a Mosquitto broker on loopback, a host
`eboardd --demo` playing a bughouse match (boards A and B, match A-B) with a [mqtt] configuration, and an
aggregator. Once the match has drops:
- the aggregator's /matches/h1:A-B.bpgn is the host's /matches/A-B.bpgn, byte for byte;
- its /games.pgn holds the two remote boards' games as the host's /games.pgn prints them (the Board,
  PartnerBoard and Match tags named <host>:<name>, as every remote board is), and /boards/h1:A.pgn the same;
- its replay of each remote board (as bughouse) has the host's plies, and nothing is under `problems`;
- once the host is stopped, the aggregator killed and the broker restarted without its database (the
  retained match record lost), the aggregator serves the same match, games and board PGN from its own disk.

Usage: mqtt_bughouse_test.py EBOARDD SHARED_DIR. Skipped (77) without mosquitto or the corpus.
"""
import os
import re
import sys
import time
import urllib.error

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "daemon_process"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from eboardctl_proc import SKIP, Harness, http_get, wait_until  # noqa: E402
from mqtt_hall_test import Broker, Eboardd, find_mosquitto  # noqa: E402


def games_of(text):
    """{Board tag: the game's text} of a PGN text."""
    out = {}
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        m = re.search(r'^\[Board "([^"]*)"\]$', chunk, re.M)
        if m:
            out[m.group(1)] = chunk.strip()
    return out


def hall_names(text, host):
    return re.sub(r'^\[(Board|PartnerBoard|Match) "', lambda m: m.group(0) + host + ":", text, flags=re.M)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, shared = sys.argv[1], sys.argv[2]
    corpus = os.path.join(shared, "corpora", "bughouse", "chesscom_bughouse_20matches.bpgn")
    mosquitto = find_mosquitto()
    if not mosquitto:
        print("SKIP: mosquitto and mosquitto_passwd are needed")
        return SKIP
    if not os.path.exists(corpus):
        print(f"SKIP: no corpus at {corpus}")
        return SKIP
    with Harness("mqtt-bughouse") as h:
        broker = Broker(h, mosquitto)
        broker.start()
        agg = Eboardd(h, exe, "arbiter", broker.port, aggregate=True, trusted=())
        agg.start()
        host = Eboardd(h, exe, "h1", broker.port, corpus=corpus)
        host.start()

        def host_bpgn():
            return http_get(host.port, "/matches/A-B.bpgn")[1]
        # Drops on both boards: the replay must take them.
        wait_until(lambda: len(re.findall(r"\d+[AaBb]\.\s*[PNBRQ]@", host_bpgn())) >= 2, 60,
                   "drops in the host's match")

        state = {}

        def same():
            """One look at both sides; equal when nothing moved between the reads (the demo plays on)."""
            before = host_bpgn()
            host_games = games_of(http_get(host.port, "/games.pgn")[1])
            host_plies = {b["id"]: b["game"]["ply"] for b in host.status()["boards"]}
            agg_bpgn = http_get(agg.port, "/matches/h1:A-B.bpgn")[1]
            agg_games = games_of(http_get(agg.port, "/games.pgn")[1])
            agg_board_a = http_get(agg.port, "/boards/h1:A.pgn")[1].strip()
            remote = {r["id"]: r for r in agg.status()["mqtt"]["remote_boards"]}
            if host_bpgn() != before:
                return False
            state.update(host_bpgn=before, agg_bpgn=agg_bpgn, remote=remote, host_plies=host_plies)
            want = {"h1:" + b: hall_names(host_games.get(b, ""), "h1") for b in ("A", "B")}
            state["games"] = (want, {b: agg_games.get(b) for b in want}, agg_board_a)
            return (agg_bpgn == before and all(agg_games.get(b) == g for b, g in want.items())
                    and agg_board_a == want["h1:A"]
                    and all(remote.get("h1:" + b, {}).get("plies") == host_plies[b] for b in ("A", "B")))
        try:
            wait_until(same, 30, "the aggregator's match to be the host's")
        except Exception:
            print("last look:", {k: v for k, v in state.items()}, flush=True)
            raise
        print(f"BPGN of h1:A-B equal ({len(state['agg_bpgn'])} bytes), plies {state['host_plies']}", flush=True)
        remote = state["remote"]
        for b in ("h1:A", "h1:B"):
            h.check(remote[b]["problems"] == [], f"{b} problems at the aggregator: {remote[b]['problems']}")

        # The host stops; then the aggregator is killed and the broker comes back without its database (its
        # retained match record gone): the aggregator serves the match from what it kept on disk.
        host.proc.terminate()
        host.proc.wait(timeout=20)
        time.sleep(1.0)  # the host's last records reach the aggregator
        served = {p: http_get(agg.port, p)[1] for p in ("/matches/h1:A-B.bpgn", "/games.pgn", "/boards/h1:A.pgn")}
        h.check(re.search(r"[PNBRQ]@", served["/matches/h1:A-B.bpgn"]) is not None, "no drop in the served match")
        agg.proc.kill()
        agg.proc.wait()
        broker.stop()
        os.remove(os.path.join(h.dir, "broker", "mosquitto.db"))
        broker.start()
        agg.start()
        wait_until(lambda: agg.status()["mqtt"]["connected"], 15, "the aggregator connected again")
        time.sleep(1.0)  # whatever the broker still had came
        for path, text in served.items():
            try:
                code, now = http_get(agg.port, path)
            except urllib.error.HTTPError as e:
                code, now = e.code, ""
            h.check(code == 200 and now == text, f"{path} after the aggregator's restart: {code}, "
                    f"{len(now)} bytes where {len(text)} were served before")
        print(f"after the restart without the broker's memory: {len(served)} outputs as before", flush=True)
        return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
