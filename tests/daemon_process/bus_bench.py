#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""DGT bus latency: from a clock press on an emulated bus board to its `move` line on /ws, for N boards on
one line, beside the line's physical limit.

`eboardctl sim --bus N --print-presses` plays N corpus games (tidy hands, the pace of their [%clk]
comments, --speed times real time) on one pty and prints the wall time of every clock press; eboardd reads
the line through a [[bus]] table (poll_ms as given) and the script's WebSocket client notes when each move
arrives. Latency = arrival − press, per move (board and ply matched), in real milliseconds.

The pty carries bytes as fast as the kernel copies them; a real bus runs at 9600 baud, 10 bits a byte. The
line's limit is computed from what the daemon really sent and received (its /status link counters over the
number of poll rounds): bytes per round, hence the shortest round 32 boards can have at 9600 baud; a press
waits on average half a round for its board's poll, plus its reply's transfer. Both are printed; nothing is
asserted about time (the run fails only if moves are missing).

usage: bus_bench.py EBOARDD EBOARDCTL SHARED_DIR [--boards 32] [--plies 30] [--speed 4] [--poll-ms 20]
"""
import os
import statistics
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from daemon_bus_test import BusDaemon, board_id, start_bus_sim  # noqa: E402

BAUD = 9600
BITS_PER_BYTE = 10  # start, 8 data, stop


def quantile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main():
    ap = ep.arg_parser(game=1, speed=4.0)
    ap.add_argument("--boards", type=int, default=32)
    ap.add_argument("--plies", type=int, default=30)
    ap.add_argument("--poll-ms", type=int, default=20, help="the line's poll interval (real ms, 20 = as fast as it goes)")
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = {board_id(k): ep.corpus_game(pgn, a.game + k)["moves"][:a.plies] for k in range(a.boards)}
    with ep.Harness("bus-bench") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def run(h, a, pgn, expected):
    sim, device, _ = start_bus_sim(h, a, pgn, ["--print-presses"])
    presses = {}  # (board id, ply) → Unix ms

    def read_presses():
        for line in sim.stdout:
            parts = line.decode().split()
            if len(parts) == 4 and parts[0] == "press":
                presses[(board_id(int(parts[1]) - 1025), int(parts[2]))] = int(parts[3])

    threading.Thread(target=read_presses, daemon=True).start()
    d = BusDaemon(h, a.eboardd, device, a.boards, a.speed, a.poll_ms).start()
    ws = ep.WebSocket(d.port)
    total = sum(len(v) for v in expected.values())
    ep.wait_until(lambda: len(ws.moves()) >= total, 600, f"{total} moves on /ws", interval=0.5)
    time.sleep(1)
    with ws.lock:
        events, arrivals = list(ws.events), list(ws.arrivals)
    latencies = []
    for e, t in zip(events, arrivals):
        if e.get("type") != "move":
            continue
        pressed = presses.get((e.get("board"), e.get("ply")))
        if pressed is not None:
            latencies.append(t * 1000 - pressed)
    h.check(len(latencies) == total, f"{len(latencies)} of {total} moves matched to a press")
    st = d.status()
    bus = [b for b in st["boards"] if b.get("source", {}).get("bus_address")]
    polls = sum(b["source"]["bus_stats"]["changes_replies"] for b in bus)
    ls = bus[0]["source"]["link_stats"]
    rounds = polls / max(1, len(bus))
    per_round = (ls["bytes_in"] + ls["bytes_out"]) / max(1, rounds)
    idle_round = len(bus) * (4 + 6)  # SEND_CHANGES and an empty changes reply per board
    ms_per_byte = 1000 * BITS_PER_BYTE / BAUD
    print(f"{len(bus)} boards on one line, {total} moves, hands at {a.speed}x, poll_ms {a.poll_ms}", flush=True)
    print(f"press → /ws move on the pty:      median {statistics.median(latencies):7.1f} ms   "
          f"p99 {quantile(latencies, 0.99):7.1f} ms   max {max(latencies):7.1f} ms", flush=True)
    print(f"bytes per poll round (measured):   {per_round:7.1f} (idle round: {idle_round}); "
          f"{rounds:.0f} rounds", flush=True)
    print(f"at {BAUD} baud, {BITS_PER_BYTE} bits/byte:        shortest round {per_round * ms_per_byte:7.1f} ms "
          f"(idle {idle_round * ms_per_byte:.1f} ms); a press waits half a round on average: expected median "
          f"≥ {per_round * ms_per_byte / 2:.1f} ms, p99 ≥ {per_round * ms_per_byte * 0.99:.1f} ms", flush=True)
    ws.close()
    d.stop()


if __name__ == "__main__":
    sys.exit(main())
