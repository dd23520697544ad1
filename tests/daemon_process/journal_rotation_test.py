#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Journal rotation with the real eboardd (issue: capture.cap and start-up read every game ever played).

A corpus game is played on an emulated DGT board (`eboardctl sim`). Then:

1. kill -9 around rotations: POST /control/A/new-game, and SIGKILL a random time later, up to 1.5 times what
   a new game's answer takes here (so before, during or after the rotation's renames), restart on the same
   state_dir, again and again. After every restart: no
   .next file is left, the game number went up by 0 or 1, the kept files are games 1..n-1 exactly once each,
   each kept file reads to its end (nothing torn), no sensor record of any game was lost, the current file's
   header continues the numbering, and the replay has no mismatch and read the current file only.
2. capture.cap: the current game as a capture file (CONTRACTS §1), ?game=N a kept game, 404 for an unknown
   game, 400 for a bad number.
3. Measured and printed: a journal of many games in one file (what eboardd wrote before rotation, made by
   repeating the records of the longest game played without a gap up to --big-mb), its start-up replay; /status
   latency alone and while four capture.cap exports of that big file run at once (goal: /status p99 under 50 ms,
   printed; asserted: no wait of 500 ms or more, where it stalled 1.5 s, then 824 ms, before), and the daemon's
   RSS meanwhile (bound: under 16 MB more: the exports are streamed, where each took 75 MB before); then a new
   game keeps the big file, four more follow, with /status asked all along (asserted: no wait of 500 ms or more:
   the rotations run on the background worker), and the start-up replay after them.

usage: journal_rotation_test.py EBOARDD EBOARDCTL SHARED_DIR [--seed N] [--kills K] [--big-mb M]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import json
import os
import random
import statistics
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

TOKEN = "rotation-test-token"
ROTATIONS_TIMED = 5  # new games timed beside /status at the end
MAGIC = b"eboardJ1"  # the big journal is written in this format, which eboardd reads whatever it writes
MAGIC_V2 = b"eboardJ2"
SYNC = b"\xe5JR\x1e"


class Daemon(ep.Daemon):
    """One board on the sim, with a control token."""

    def __init__(self, h, exe, device, clock_rate):
        super().__init__(h, exe, device, clock_rate=clock_rate)
        with open(self.config, "w") as f:
            f.write(f'state_dir = "{self.state}"\n\n[http]\nlisten = "127.0.0.1:0"\ntoken = "{TOKEN}"\n\n'
                    f'[[board]]\nid = "A"\nport = "{device}"\nprotocol = "dgt"\n')

    def journal_dir(self):
        return os.path.join(self.state, "journal")

    def current(self):
        return os.path.join(self.journal_dir(), "A.journal")

    def kept(self):
        d = os.path.join(self.journal_dir(), "A")
        return sorted(os.path.join(d, f) for f in os.listdir(d)) if os.path.isdir(d) else []


def post(port, path, timeout=15):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"{}", method="POST",
                                 headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:  # killed under it
        return None, str(e)


def get_status(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def read_journal(path):
    """(records [(type, body)], whole): every record up to the first bad one, checked as the daemon checks
    (length, crc32); `whole` is True when the file ends exactly after a good record. Both formats of
    daemon/journal/journal_file.hpp: "eboardJ1" (length, crc32 of type and body, type, body) and "eboardJ2"
    (sync marker, length, crc32 of link, type and body, a 16-byte link, type, body)."""
    data = open(path, "rb").read()
    if data[:8] not in (MAGIC, MAGIC_V2):
        return [], False
    v2 = data[:8] == MAGIC_V2
    out, i = [], 8
    while i + 8 <= len(data):
        if v2 and data[i:i + 4] != SYNC:
            break
        at = i + 4 if v2 else i
        n, crc = struct.unpack("<II", data[at:at + 8])
        checked = data[at + 8:at + 8 + n]
        if n == 0 or len(checked) < n or zlib.crc32(checked) != crc:
            break
        typed = checked[16:] if v2 else checked
        out.append((chr(typed[0]), typed[1:]))
        i = at + 8 + n
    return out, i == len(data)


def frame(kind, body):
    typed = kind.encode() + body
    return struct.pack("<II", len(typed), zlib.crc32(typed)) + typed


def header_of(records):
    for kind, body in records:
        if kind == "H":
            return json.loads(body)
    return {}


GAP_MARKS = (b"moves-missed", b"position-mismatch", b"position-adopted", b'"recovered"')
START_BOARD = b'"board":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"'


def has_gap(records):
    """True when a journal's published events tell of a gap (searched, recovered or not)."""
    return any(kind == "E" and any(m in body for m in GAP_MARKS) for kind, body in records)


def begins_set_up(records):
    """True when the first board a journal's game read is the start position."""
    first = next((body for kind, body in records if kind == "S" and body.startswith(b'{"board"')), b"")
    return START_BOARD in first


def sensor_count(d):
    n = sum(1 for k, _ in read_journal(d.current())[0] if k == "S") if os.path.exists(d.current()) else 0
    for p in d.kept():
        n += sum(1 for k, _ in read_journal(p)[0] if k == "S")
    return n


def game_number(d):
    return d.board_status()["game"]["number"]


def check_after_restart(h, d, i, number_before, sensors_before):
    tag = f"restart {i}"
    h.check(not [f for f in os.listdir(d.journal_dir()) if f.endswith(".next")],
            f"{tag}: a .next file is left: {os.listdir(d.journal_dir())}")
    number = game_number(d)
    h.check(number in (number_before, number_before + 1), f"{tag}: game {number} after game {number_before}")
    kept_numbers = [int(os.path.basename(p)[:6]) for p in d.kept()]
    h.check(kept_numbers == list(range(1, number)), f"{tag}: game {number}, kept games {kept_numbers}")
    for p in d.kept():
        recs, whole = read_journal(p)
        h.check(whole and recs and recs[0][0] == "H", f"{tag}: kept {p} does not read to its end")
    recs, _ = read_journal(d.current())
    head = header_of(recs)
    if number > 1:
        h.check(head.get("previous_game") == number - 1,
                f"{tag}: the current file's header continues from {head.get('previous_game')}, not {number - 1}")
    # Written before the kill is kept: records only move between files.
    sensors = sensor_count(d)
    h.check(sensors >= sensors_before, f"{tag}: {sensors} sensor records, {sensors_before} before the kill")
    rec = d.board_status()["journal"].get("recovery", {})
    h.check(rec.get("mismatched_events") == 0, f"{tag}: replay mismatches {rec}")
    h.check(rec.get("records", 1 << 30) <= len(recs), f"{tag}: replayed {rec.get('records')} records, the "
                                                        f"current file holds {len(recs)}")
    return number


def kill_around_rotations(h, a, d, rng):
    # How long a new game takes to answer here: the kills spread over 1.5 times that.
    time.sleep(0.5)
    t0 = time.perf_counter()
    status, _ = post(d.port, "/control/A/new-game")
    answer_s = time.perf_counter() - t0
    h.check(status == 200, f"POST new-game: {status}")
    print(f"a new game (with its rotation) answers in {answer_s * 1000:.1f} ms", flush=True)
    replayed = []
    outcomes = {}
    for i in range(1, a.kills + 1):
        time.sleep(rng.uniform(0.4, 0.9))  # the sim's bytes make the game worth keeping
        number = game_number(d)
        sensors = sensor_count(d)
        result = {}
        t = threading.Thread(target=lambda: result.update(r=post(d.port, "/control/A/new-game")))
        t.start()
        time.sleep(rng.uniform(0.0, 1.5 * answer_s))
        d.kill9()
        t.join()
        time.sleep(0.05)
        d.start()
        ep.wait_until(lambda: d.board_status() is not None, 15, "the board in /status")
        after = check_after_restart(h, d, i, number, sensors)
        replayed.append(d.board_status()["journal"]["recovery"].get("records", 0))
        answered = result.get("r", (None,))[0]
        outcomes[(answered, after - number)] = outcomes.get((answered, after - number), 0) + 1
        print(f"kill {i}: POST new-game answered {answered}, game {number} -> {after}", flush=True)
        if answered == 200:
            h.check(after == number + 1, f"kill {i}: the new game was answered, but the game is {after}")
    total = sum(len(read_journal(p)[0]) for p in d.kept()) + len(read_journal(d.current())[0])
    print(f"restarts replayed {min(replayed)}-{max(replayed)} records each; all games hold {total}", flush=True)
    print(f"(answer, games begun) after the kills: {outcomes}", flush=True)


def check_capture(h, d):
    status, body = get_status(d.port, "/boards/A/capture.cap")
    h.check(status == 200, f"capture.cap: {status}")
    lines = body.decode().splitlines()
    h.check(lines and lines[0] == "# eboard-capture 1", f"capture.cap first line {lines[:1]}")
    times = []
    for line in lines[1:]:
        if not line or line.startswith("#"):
            continue
        t, direction, *hexes = line.split(" ")
        if direction == "!":  # a link record (CONTRACTS §1): `<t> ! online` / `<t> ! offline`
            ok = t.isdigit() and hexes in (["online"], ["offline"])
        else:
            ok = t.isdigit() and direction in "<>" and all(len(x) == 2 and int(x, 16) >= 0 for x in hexes)
        if not h.check(ok, f"capture.cap: bad record line {line!r}"):
            break
        times.append(int(t))
    h.check(len(times) > 0 and times == sorted(times), f"capture.cap: {len(times)} records, times in order")
    number = game_number(d)
    status, body = get_status(d.port, f"/boards/A/capture.cap?game={number - 1}")
    h.check(status == 200 and body.startswith(b"# eboard-capture 1"), f"capture.cap?game={number - 1}: {status}")
    h.check(get_status(d.port, "/boards/A/capture.cap?game=99999")[0] == 404, "capture.cap of an unknown game")
    h.check(get_status(d.port, "/boards/A/capture.cap?game=x")[0] == 400, "capture.cap?game=x")


EXPORTS = 4  # capture.cap exports at once while /status is timed


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def status_latencies(port, n, pause=0.05):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        ep.http_get(port, "/status", timeout=30)
        out.append((time.perf_counter() - t0) * 1000)
        time.sleep(pause)
    return out


def replay_figures(d):
    rec = d.board_status()["journal"].get("recovery", {})
    return rec.get("replay_ms"), rec.get("records")


def measure(h, a, d):
    """A journal of many games in one file, as eboardd wrote them before rotation: the records of the
    longest game played (from its new-game record on) repeated."""
    d.stop()
    # A game without a gap: a restart here often finds the board moves ahead, and the replay of a gap repeats
    # its search (a few ms to tens of ms); repeated thousands of times, that and not the file's size would set
    # the start-up's time (from 2 s to over 2 minutes, as the games of a run fall). Nor a game begun with its
    # moves ahead on the board: live it began from the board the game before left, but each copy begins from
    # the board the copy before left, and the search for the moves to it (up to 10 plies) comes back with
    # every copy (seed 592065: 330 s). Game 1 is neither (set up, and the kills come after it).
    plain = [p for p in d.kept() + [d.current()]
             if not has_gap(read_journal(p)[0]) and begins_set_up(read_journal(p)[0])]
    longest = max(plain or d.kept()[:1], key=lambda p: len(read_journal(p)[0]))
    recs, _ = read_journal(longest)
    start = next(k for k, (kind, _) in enumerate(recs) if kind == "N")
    block = b"".join(frame(kind, body) for kind, body in recs[start:])
    copies = max(2, int(a.big_mb * 1e6 / len(block)))
    head = read_journal(d.current())[0][0]
    with open(d.current(), "wb") as f:
        f.write(MAGIC + frame(*head) + block * copies)
    size = os.path.getsize(d.current())
    d.start(timeout=120)
    ms, records = replay_figures(d)
    print(f"start-up on {copies} games in one journal ({size / 1e6:.1f} MB, {records} records): replay {ms} ms",
          flush=True)

    alone = status_latencies(d.port, 10)
    stop = threading.Event()
    exports = []
    rss_before = rss_mb(d.proc.pid)
    rss_peak = [rss_before]

    def export():
        while not stop.is_set():
            t0 = time.perf_counter()
            status, body = get_status(d.port, "/boards/A/capture.cap")
            exports.append((status, len(body), time.perf_counter() - t0))

    def watch_rss():
        while not stop.is_set():
            rss_peak[0] = max(rss_peak[0], rss_mb(d.proc.pid))
            time.sleep(0.01)

    threads = [threading.Thread(target=export) for _ in range(EXPORTS)] + [threading.Thread(target=watch_rss)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    during = status_latencies(d.port, 100, pause=0.02)
    stop.set()
    for t in threads:
        t.join()
    ok = [e for e in exports if e[0] == 200]
    h.check(len(ok) == len(exports) and ok, f"capture.cap exports: {[e[0] for e in exports]}")
    p99 = sorted(during)[int(len(during) * 0.99) - 1]
    grew = rss_peak[0] - rss_before
    print(f"/status alone: median {statistics.median(alone):.1f} ms, max {max(alone):.1f} ms", flush=True)
    print(f"/status during {EXPORTS} concurrent capture.cap exports of {ok[0][1] / 1e6 if ok else 0:.1f} MB "
          f"({len(ok)} exports, {statistics.median([e[2] for e in ok]) if ok else 0:.2f} s each): "
          f"median {statistics.median(during):.1f} ms, p99 {p99:.1f} ms, max {max(during):.1f} ms; the daemon's "
          f"RSS {rss_before:.1f} MB before, at most {rss_peak[0]:.1f} MB during (+{grew:.1f} MB)", flush=True)
    # The goal (p99 under 50 ms) is a figure, printed above and quoted in the README from a quiet machine: on a
    # loaded one the scheduler alone moves it. What is asserted is the fault's absence: the loop blocked by an
    # export (/status waited 1.5 s for one built in memory) shows as a stall far above any machine's noise.
    print(f"/status p99 during exports {p99:.1f} ms (goal: under 50 ms; alone here: max {max(alone):.1f} ms)",
          flush=True)
    h.check(max(during) < 500, f"/status waited {max(during):.1f} ms during exports: the loop was blocked")
    # Streamed: each export holds a read block and a piece of text, not the file and its text (75 MB each).
    h.check(grew < 16, f"the daemon's RSS grew by {grew:.1f} MB during {EXPORTS} exports of a "
                       f"{size / 1e6:.0f} MB journal")

    # The new game that keeps the big file, and more after it, while /status is asked all along: the
    # rotation (the new file written and fsynced, the renames, the directory fsynced) runs on the background
    # worker, and the answer waits for it there, so the loop answers /status meanwhile.
    stop.clear()
    beside = []

    def poll_status():
        while not stop.is_set():
            beside.extend(status_latencies(d.port, 1, pause=0.005))

    poller = threading.Thread(target=poll_status)
    poller.start()
    answers = []
    for _ in range(ROTATIONS_TIMED):
        t0 = time.perf_counter()
        status, _ = post(d.port, "/control/A/new-game")
        answers.append((time.perf_counter() - t0) * 1000)
        h.check(status == 200, f"new game after the big one: {status}")
        if len(answers) < ROTATIONS_TIMED:
            time.sleep(0.3)  # the sim's bytes make the next game worth a file of its own
    stop.set()
    poller.join()
    print(f"{ROTATIONS_TIMED} new games (the first keeping the {size / 1e6:.0f} MB file): answered in "
          f"{min(answers):.1f}-{max(answers):.1f} ms; /status meanwhile ({len(beside)} asked): median "
          f"{statistics.median(beside):.1f} ms, max {max(beside):.1f} ms", flush=True)
    h.check(max(beside) < 500, f"/status waited {max(beside):.1f} ms beside new games: the loop was blocked")
    d.stop()
    d.start()
    ms_after, records_after = replay_figures(d)
    print(f"start-up after a new game kept that file: replay {ms_after} ms ({records_after} records)", flush=True)
    # The new game's file only: its header, the new game and what the board sent before the stop (a fresh
    # clone's run saw 11), not the 30 MB file's hundreds of thousands.
    h.check(records_after is not None and records_after < 100, f"replayed {records_after} records after rotation")
    status, body = get_status(d.port, "/boards/A/capture.cap")
    print(f"capture.cap of the current game: {len(body)} bytes", flush=True)


def main():
    ap = ep.arg_parser(game=7, speed=4.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--kills", type=int, default=12)
    ap.add_argument("--big-mb", type=float, default=30.0, help="size of the many-game journal measured")
    a = ap.parse_args()
    if a.seed is None:
        a.seed = int(time.time() * 1000) % 1_000_000
    pgn = ep.corpus_file(a.shared)
    with ep.Harness("journal-rotation") as h:
        print(f"seed {a.seed} (repeat with --seed {a.seed})", flush=True)
        try:
            sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed)
            d = Daemon(h, a.eboardd, sim.device, a.speed).start()
            ep.wait_until(lambda: d.board_status()["game"]["ply"] >= 2, 60, "two plies")
            kill_around_rotations(h, a, d, random.Random(a.seed))
            check_capture(h, d)
            measure(h, a, d)
            h.check(d.stop() == 0, "SIGTERM: exit 0")
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


if __name__ == "__main__":
    sys.exit(main())
