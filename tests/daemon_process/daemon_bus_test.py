#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The real eboardd reading a DGT bus: N emulated boards with their clocks in bus mode on ONE pty
(`eboardctl sim --bus N`), each playing its corpus game (the blitz corpus, game G+k on board k, at the pace
of the game's [%clk] comments, tidy hands), read through a `[[bus]]` table that lists them by address.

Every game must come out exactly: /games.pgn holds each board's corpus moves (the first --plies of them,
to keep the test short), every move once on /ws in order, no alert.

The sim paces the line at 9600 baud, 10 bits a byte, as a real bus: a command the daemon writes while a
reply is on the line is a collision, and fails the test.

With --mute K:AT:FOR, board K is unplugged from the bus AT seconds into its game for FOR seconds (game
time): it alone gets `link offline` then `link online` on /ws, the other boards' games go on meanwhile, and
its game, recovered from the board's own memory when it answers again, is complete and exact too.

With --replay, each board's game is then exported (GET /boards/<id>/capture.cap: a `dgt-bus` capture of its
frames and its link records) and replayed by `eboardctl replay`: the events must be the ones /ws published for
that board (CONTRACTS §3 fields, times shifted by the capture's origin), the muted board's silence included.

usage: daemon_bus_test.py EBOARDD EBOARDCTL SHARED_DIR [--boards N] [--plies P] [--mute K:AT:FOR] [--replay]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402


class BusDaemon(ep.Daemon):
    """eboardd with one [[bus]] line listing the sim's boards (addresses 1025.., ids B01..)."""

    def __init__(self, h, exe, device, boards, clock_rate, poll_ms):
        super().__init__(h, exe, device, board="B01", clock_rate=clock_rate)
        entries = ", ".join(f'{{ address = {1025 + k}, id = "{board_id(k)}" }}' for k in range(boards))
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n\n[http]\nlisten = "127.0.0.1:0"\n\n'
                    f'[[bus]]\nport = "{device}"\npoll_ms = {poll_ms}\nboards = [ {entries} ]\n')

    def games(self):
        """Board id → its game's moves in /games.pgn."""
        return {g["tags"].get("Board"): g["moves"] for g in ep.parse_pgn(self.get("/games.pgn")[1])}


def board_id(k):
    return f"B{k + 1:02d}"


def main():
    ap = ep.arg_parser(game=1, speed=4.0)
    ap.add_argument("--boards", type=int, default=32)
    ap.add_argument("--plies", type=int, default=30)
    ap.add_argument("--poll-ms", type=int, default=250, help="the line's poll interval (real ms)")
    ap.add_argument("--mute", default="", help="K:AT_S:FOR_S, as eboardctl sim --mute takes it")
    ap.add_argument("--replay", action="store_true", help="export each board's capture and replay it")
    ap.add_argument("--save-captures", default="", help="with --replay: keep the captures in this folder "
                    "(tests/data/captures/dgt_bus_silence.cap was made so)")
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = {board_id(k): ep.corpus_game(pgn, a.game + k)["moves"][:a.plies] for k in range(a.boards)}

    with ep.Harness("daemon-bus") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


def start_bus_sim(h, a, pgn, extra=()):
    """`eboardctl sim --bus` with the test's arguments: (its process, the device path it printed, its log)."""
    sim_log = h.log_path("sim")
    sim = subprocess.Popen([a.eboardctl, "sim", "--bus", str(a.boards), "--pgn", pgn, "--game", str(a.game),
                            "--plies", str(a.plies), "--style", a.style, "--speed", str(a.speed), "--link",
                            os.path.join(h.dir, "bus"), "--linger", "600", *extra], stdout=subprocess.PIPE,
                           stderr=open(sim_log, "ab"))
    h.procs.append(sim)
    device = sim.stdout.readline().decode().strip()
    if not device:
        h.fail(f"eboardctl sim printed no device path (exit {sim.poll()})")
    return sim, device, sim_log


def check_no_collision(h, sim_log):
    """The sim paces its line at 9600 baud and logs every command the daemon wrote over a reply."""
    collisions = [line for line in open(sim_log, errors="replace") if "collision" in line and "on the line" in line]
    h.check(not collisions, f"{len(collisions)} commands written over a reply on the line: {collisions[:3]}")


def run(h, a, pgn, expected):
    sim, device, sim_log = start_bus_sim(h, a, pgn, ["--mute", a.mute] if a.mute else [])
    d = BusDaemon(h, a.eboardd, device, a.boards, a.speed, a.poll_ms).start()
    ws = ep.WebSocket(d.port)
    time.sleep(1)
    lengths = [float(x) for x in re.findall(r"game length ([\d.]+) s", open(sim_log, errors="replace").read())]
    longest = max(lengths) if lengths else 300
    total = sum(len(v) for v in expected.values())
    print(f"{a.boards} boards on one pty, {total} plies, the longest game {longest:.0f} s of game time at "
          f"{a.speed}x; eboardd on port {d.port}", flush=True)

    mute_id = board_id(int(a.mute.split(":")[0])) if a.mute else None
    deadline = time.time() + longest / a.speed + 60
    games = {}
    while time.time() < deadline:
        games = d.games()
        for bid, moves in games.items():
            want = expected.get(bid, [])
            if not h.check(moves == want[:len(moves)], f"board {bid}: {moves} is not a prefix of {want}"):
                return
        if all(len(games.get(b, [])) >= len(want) for b, want in expected.items()):
            break
        time.sleep(0.5)
    done = sum(1 for b, want in expected.items() if games.get(b) == want)
    h.check(done == len(expected), f"{done} of {len(expected)} games complete and exact in time: "
            + ", ".join(f"{b} {len(games.get(b, []))}/{len(w)}" for b, w in expected.items()
                        if games.get(b) != w))
    # Every move on /ws (its reader may lag on a starved machine), then nothing more should come.
    total = sum(len(w) for w in expected.values())
    try:
        ep.wait_until(lambda: len(ws.moves()) >= total, 15, f"{total} move events on /ws")
    except ep.TestFailure:
        pass  # the checks below say which
    time.sleep(1.0)
    events = ws.settled()
    for bid, want in expected.items():
        moves = [e for e in events if e.get("type") == "move" and e.get("board") == bid]
        ep.check_ws_moves(h, moves, want, f"/ws {bid}")
        h.check(len(moves) == len(want), f"/ws {bid}: {len(moves)} move events for {len(want)} plies")
    alerts = [e for e in events if e.get("type") == "alert"]
    h.check(not alerts, f"/ws: {len(alerts)} alerts: {alerts[:3]}")
    links = [(e["board"], e["state"]) for e in events if e.get("type") == "link"]
    if mute_id:
        h.check(links == [(mute_id, "offline"), (mute_id, "online")],
                f"/ws link events: {links}, expected {mute_id} offline then online only")
        # In the order /ws sent them: nothing of the muted board between its offline and online events,
        # the other boards' moves meanwhile, and its missed moves right after it answers again.
        idx = {e["state"]: i for i, e in enumerate(events) if e.get("type") == "link" and e.get("board") == mute_id}
        window = events[idx.get("offline", 0):idx.get("online", len(events))]
        own = [e for e in window if e.get("type") == "move" and e.get("board") == mute_id]
        others = [e for e in window if e.get("type") == "move" and e.get("board") != mute_id]
        h.check(not own, f"{mute_id} published {len(own)} moves while it did not answer")
        h.check(len(others) > 0, f"the other boards made no move while {mute_id} was offline")
        back_t = events[idx["online"]]["t"] if "online" in idx else 0
        recovered = [e for e in events[idx.get("online", len(events)):]
                     if e.get("type") == "move" and e.get("board") == mute_id and e["t"] - back_t < 2000 * a.speed]
        print(f"{mute_id} offline then online; meanwhile the other boards made {len(others)} moves; "
              f"{len(recovered)} moves of {mute_id} published within 2 s of its return; its game then came out "
              f"complete", flush=True)
    else:
        h.check(not links, f"/ws: link events on a line where no board went away: {links[:5]}")
    st = d.status()
    on_bus = [b for b in st["boards"] if b.get("source", {}).get("bus_address")]
    h.check(len(on_bus) == len(expected), f"/status: {len(on_bus)} boards with a bus address")
    h.check(all(b["link"] == "connected" for b in on_bus), "/status: a bus board not connected at the end")
    check_no_collision(h, sim_log)
    if a.replay:
        check_replays(h, a, d, events, expected)
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")
    print(f"{len(expected)} games, {total} plies exact on /games.pgn and /ws in {h.elapsed():.1f} s", flush=True)


# The fields CONTRACTS §3 fixes, besides `t` and `board`.
CONTRACT_FIELDS = ("type", "ply", "uci", "san", "clock", "illegal", "recovered", "state", "code", "side",
                   "rule", "result", "reason", "candidates")


def contract_view(e, origin=0):
    view = {k: e[k] for k in CONTRACT_FIELDS if k in e}
    view["t"] = e["t"] + origin
    view["board"] = e["board"]
    return view


def check_replays(h, a, d, events, expected):
    """Each board's capture, exported after its game, replays to the events /ws published for it."""
    replayed_boards = 0
    for bid in expected:
        status, text = d.get(f"/boards/{bid}/capture.cap")
        if not h.check(status == 200, f"{bid}: capture.cap answered {status}"):
            continue
        lines = text.splitlines()
        h.check("# protocol: dgt-bus" in lines, f"{bid}: the capture is not a dgt-bus one: {lines[:4]}")
        h.check(any(line.startswith("# bus-address: ") for line in lines), f"{bid}: no bus-address header")
        origin = re.search(r"t = 0 is Unix time (\d+) ms", text)
        if not h.check(origin is not None, f"{bid}: the capture names no origin: {lines[:5]}"):
            continue
        links = [line for line in lines if line.split()[1:2] == ["!"]]
        path = os.path.join(a.save_captures or h.dir, f"{bid}.cap")
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([a.eboardctl, "replay", path], capture_output=True, text=True, timeout=120)
        if not h.check(r.returncode == 0, f"{bid}: eboardctl replay exit {r.returncode}: {r.stderr.strip()}"):
            continue
        replay = [contract_view(json.loads(line), int(origin.group(1))) for line in r.stdout.splitlines() if line]
        live = [contract_view(e) for e in events if e.get("board") == bid and e.get("type") != "link"]
        h.check(sum(e["type"] == "move" for e in live) == len(expected[bid]),
                f"{bid}: /ws published {len(live)} events, not its {len(expected[bid])} moves")
        same = h.check(replay == live, f"{bid}: the replay of its capture ({len(replay)} events) differs from "
                                       f"what /ws published ({len(live)}): first difference "
                                       f"{first_difference(replay, live)}")
        replayed_boards += same
        if links:
            print(f"{bid}: its capture has {len(links)} link records ({', '.join(x.split()[2] for x in links)}); "
                  f"the replay gave the {len(live)} events /ws published", flush=True)
    print(f"{replayed_boards} of {len(expected)} boards' captures replayed to their live events", flush=True)


def first_difference(x, y):
    for i, (p, q) in enumerate(zip(x, y)):
        if p != q:
            return f"event {i}: replay {p} live {q}"
    return f"lengths {len(x)} and {len(y)}"


if __name__ == "__main__":
    sys.exit(main())
