#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""DGT bus latency: from a clock press on an emulated bus board to its `move` line on /ws, for N boards on
one line at 9600 baud, beside the line's cycle floor.

`eboardctl sim --bus N --print-presses` plays N corpus games (tidy hands, the pace of their [%clk]
comments, --speed times real time) on one pty paced as a real line (9600 baud, 10 bits a byte: the boards'
replies go out at that rate, and a command written over a reply is logged as a collision) and prints the
wall time of every clock press; eboardd reads the line through a [[bus]] table (poll_ms as given) and the
script's WebSocket client notes when each move arrives. Latency = arrival - press, per move (board and ply
matched), in real milliseconds.

The cycle floor is computed from the bytes each poll needs: what the daemon really sent and received (its
/status link counters) over the number of polls, times the boards on the line, at 9600 baud: the shortest
round in which every board can be asked once. A press waits for its board's next poll (up to a round) and
its reply's transfer: the goal is p99 at most 1.5 times the floor. Printed, with the verdict; the run fails
only if moves are missing or a command collided with a reply.

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
    sim, device, sim_log = start_bus_sim(h, a, pgn, ["--print-presses"])
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
    worst = []
    for e, t in zip(events, arrivals):
        if e.get("type") != "move":
            continue
        pressed = presses.get((e.get("board"), e.get("ply")))
        if pressed is not None:
            latencies.append(t * 1000 - pressed)
            worst.append((t * 1000 - pressed, e.get("board"), e.get("ply"), pressed))
    h.check(len(latencies) == total, f"{len(latencies)} of {total} moves matched to a press")
    st = d.status()
    bus = [b for b in st["boards"] if b.get("source", {}).get("bus_address")]
    polls = sum(b["source"]["bus_stats"]["changes_replies"] for b in bus)
    ls = bus[0]["source"]["link_stats"]
    line_bytes = ls["bytes_in"] + ls["bytes_out"]
    per_poll = line_bytes / max(1, polls)  # every exchange's bytes (dumps and clock reads too) over the polls
    ms_per_byte = 1000 * BITS_PER_BYTE / BAUD
    floor = len(bus) * per_poll * ms_per_byte
    idle_floor = len(bus) * (4 + 6) * ms_per_byte  # SEND_CHANGES and an empty changes reply per board
    p50, p99 = statistics.median(latencies), quantile(latencies, 0.99)
    collisions = [line for line in open(sim_log, errors="replace") if "collision" in line and "on the line" in line]
    print(f"{len(bus)} boards on one line at {BAUD} baud, {total} moves, hands at {a.speed}x, poll_ms {a.poll_ms}",
          flush=True)
    print(f"bytes per poll (measured): {per_poll:.1f} over {polls} polls; cycle floor {floor:.1f} ms "
          f"(an idle line's: {idle_floor:.1f} ms)", flush=True)
    print(f"press -> /ws move: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms; "
          f"p99 / floor = {p99 / floor:.2f} (goal <= 1.5: {'met' if p99 <= 1.5 * floor else 'NOT met'})",
          flush=True)
    stats = [b["source"]["bus_stats"] for b in bus]
    print(f"collisions on the line: {len(collisions)}; board re-reads {sum(x.get('board_rereads', 0) for x in stats)}, "
          f"dumps {sum(x.get('dumps', 0) for x in stats)}, clock reads {sum(x.get('clock_reads', 0) for x in stats)}, "
          f"lost {sum(x.get('lost', 0) for x in stats)}", flush=True)
    later = [ms for ms, b, p, _ in worst if p is not None and p > 3]
    if later:
        print(f"  plies after the 3rd of each game ({len(later)}): p50 {statistics.median(later):.1f} ms, "
              f"p99 {quantile(later, 0.99):.1f} ms; p99 / floor = {quantile(later, 0.99) / floor:.2f}", flush=True)
    first = min(x[3] for x in worst) if worst else 0
    print("slowest: " + ", ".join(f"{b} ply {p} {ms:.0f} ms (pressed at {(at - first) / 1000:.1f} s)"
                                  for ms, b, p, at in sorted(worst, reverse=True)[:int(os.environ.get("BUS_BENCH_SLOWEST", "8"))]),
          flush=True)
    h.check(not collisions, f"{len(collisions)} commands written over a reply: {collisions[:3]}")
    ws.close()
    d.stop()


if __name__ == "__main__":
    sys.exit(main())
