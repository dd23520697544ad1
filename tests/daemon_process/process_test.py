#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""eboardd --demo as a real process (issue 6), on single games (a PGN corpus): since issue 10 its two boards
are emulated DGT boards on pseudo-terminals, read like serial boards (demo_real_path_test.py plays a match).

Starts the binary on an ephemeral port with a temporary state_dir, polls /games.pgn until moves appear,
kills it with SIGKILL, restarts it on the same state_dir and checks that no move was lost or duplicated:
the moves seen before the kill are a prefix of the moves after the restart, and every board's moves stay
a prefix of the corpus game it plays. Then SIGHUP (reload) and SIGTERM (clean stop, exit 0), and the
command line's failures (no corpus, bad configuration) with their messages and exit status.

usage: process_test.py EBOARDD CORPUS_DIR        exit 77 (skipped) without the corpus
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from eboardctl_proc import parse_pgn  # noqa: E402  (one PGN reader for the process tests)

EXE, CORPUS = sys.argv[1], sys.argv[2]
if not os.path.isdir(CORPUS):
    print(f"skipped: {CORPUS} is absent")
    sys.exit(77)

failures = []
started = []  # every eboardd this test started: none is left running, whatever happens


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def http_get(port, path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=15) as r:
        return r.status, r.read().decode()


def board_moves(port):
    _, text = http_get(port, "/games.pgn")
    return {g["tags"].get("Board"): g for g in parse_pgn(text)}


def is_prefix(a, b):
    return len(a) <= len(b) and b[:len(a)] == a


class Notifications:
    """A fake systemd notification socket: what eboardd sends with sd_notify. Read at once, as systemd
    does (a datagram socket holds only a few unread messages before the sender blocks)."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.2)
        self.path = path
        self.messages = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            try:
                m = self.sock.recv(4096).decode()
            except (socket.timeout, OSError):
                continue
            with self.lock:
                self.messages.append(m)

    def poll(self):
        with self.lock:
            return list(self.messages)

    def count(self, needle):
        return sum(1 for m in self.poll() if needle in m.split("\n"))

    def close(self):
        self.running = False
        self.thread.join()
        self.sock.close()


class Eboardd:
    def __init__(self, state, log, env=None):
        self.state = state
        listen = os.path.join(state, "eboardd.listen")
        if os.path.exists(listen):
            os.remove(listen)
        self.log = open(log, "ab")
        self.proc = subprocess.Popen(
            [EXE, "--demo", "--demo-corpus", CORPUS, "--demo-speed", "50", "--state-dir", state,
             "--listen", "127.0.0.1:0"], stdout=self.log, stderr=self.log, env=env)
        started.append(self.proc)
        deadline = time.time() + 15
        self.port = None
        while time.time() < deadline and self.proc.poll() is None:
            if os.path.exists(listen):
                text = open(listen).read().strip()
                if text:
                    self.port = int(text.rsplit(":", 1)[1])
                    break
            time.sleep(0.05)
        if self.port is None:
            raise SystemExit(f"eboardd did not start (exit {self.proc.poll()}); log:\n" + open(log).read())

    def wait_for(self, pred, timeout, what):
        deadline = time.time() + timeout
        while time.time() < deadline:
            moves = board_moves(self.port)
            if pred(moves):
                return moves
            time.sleep(0.1)
        raise SystemExit(f"timed out waiting for {what}; last: " +
                         str({b: len(g["moves"]) for b, g in board_moves(self.port).items()}))


def corpus_games():
    games = []
    for name in sorted(os.listdir(CORPUS)):
        if name.endswith(".pgn"):
            games += parse_pgn(open(os.path.join(CORPUS, name), encoding="utf-8", errors="replace").read())
    return games


def main():
    state = tempfile.mkdtemp(prefix="eboardd-process-test-")
    log = os.path.join(state, "..", os.path.basename(state) + ".log")
    try:
        t0 = time.time()
        d = Eboardd(state, log)
        print(f"started on port {d.port} in {time.time() - t0:.1f} s")
        before = d.wait_for(lambda m: len(m) == 2 and all(len(g["moves"]) >= 3 for g in m.values()), 20,
                            "3 plies on both boards")
        time.sleep(0.37)  # kill somewhere in the middle of things
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait()
        seen = {b: g["moves"] for b, g in before.items()}
        print("before SIGKILL:", {b: len(m) for b, m in seen.items()})

        # The restart runs as systemd would: a notification socket and a watchdog.
        notify = Notifications(os.path.join(state, "notify.sock"))
        env = dict(os.environ, NOTIFY_SOCKET=notify.path, WATCHDOG_USEC="300000")
        d = Eboardd(state, log, env)
        recovered = {b: g["moves"] for b, g in board_moves(d.port).items()}
        print("after restart:", {b: len(m) for b, m in recovered.items()})
        for b in seen:
            check(is_prefix(seen[b], recovered.get(b, [])), f"board {b}: moves lost: {seen[b]} vs {recovered.get(b)}")
        grown = d.wait_for(lambda m: all(len(m[b]["moves"]) >= len(recovered[b]) + 1 for b in recovered), 20,
                           "another ply on both boards")
        corpus = corpus_games()
        for b, g in grown.items():
            moves = g["moves"]
            check(is_prefix(recovered[b], moves), f"board {b}: the game changed after the restart")
            same = [c for c in corpus if c["tags"].get("White") == g["tags"].get("White")
                    and c["tags"].get("Black") == g["tags"].get("Black") and is_prefix(moves, c["moves"])]
            check(len(same) >= 1, f"board {b}: {moves} is not a prefix of the corpus game "
                                  f"{g['tags'].get('White')} - {g['tags'].get('Black')} (a move lost or doubled)")
        _, status = http_get(d.port, "/status")
        st = json.loads(status)
        for b in st["boards"]:
            rec = b["journal"].get("recovery", {})
            check(rec.get("mismatched_events") == 0, f"board {b['id']}: replay mismatches {rec}")
            check(rec.get("journaled_events", 0) > 0, f"board {b['id']}: nothing recovered {rec}")
        check(len(os.listdir(os.path.join(state, "games"))) >= 2, "per-game PGN files in state_dir/games")

        check(notify.count("READY=1") == 1, f"sd_notify READY=1 once: {notify.poll()}")
        check(notify.count("WATCHDOG=1") >= 3, f"WATCHDOG=1 every 150 ms: {notify.poll()}")
        d.proc.send_signal(signal.SIGHUP)
        deadline = time.time() + 15  # ends with the second READY=1
        while notify.count("READY=1") < 2 and time.time() < deadline:
            time.sleep(0.05)
        check(d.proc.poll() is None, "alive after SIGHUP")
        check(notify.count("RELOADING=1") == 1 and notify.count("READY=1") == 2, f"reload notifications: {notify.poll()}")
        check(http_get(d.port, "/status")[0] == 200, "serving after SIGHUP")
        d.proc.send_signal(signal.SIGTERM)
        try:
            rc = d.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            d.proc.kill()
            rc = None
        check(rc == 0, f"SIGTERM: clean exit 0 (got {rc})")
        # The datagram is in the socket before the exit, but the reader thread may not have taken it yet.
        deadline = time.time() + 15  # ends with the datagram
        while notify.count("STOPPING=1") == 0 and time.time() < deadline:
            time.sleep(0.05)
        check(notify.count("STOPPING=1") == 1, f"sd_notify STOPPING=1: {notify.poll()}")
        notify.close()

        # The command line's failures.
        r = subprocess.run([EXE, "--demo", "--demo-corpus", "/nonexistent/corpus", "--state-dir", state],
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "--demo-corpus" in r.stderr, f"missing corpus: {r.returncode} {r.stderr}")
        bad = os.path.join(state, "bad.toml")
        open(bad, "w").write('state_dir = "/tmp/x"\n\n[[board]]\nid = "A"\nprot = "/dev/ttyUSB0"\n')
        r = subprocess.run([EXE, "--config", bad], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and f"{bad}:5:1: unknown key 'board.prot'; did you mean 'port'?" in r.stderr,
              f"bad config: {r.returncode} {r.stderr}")
        r = subprocess.run([EXE, "--help"], capture_output=True, text=True, timeout=30)
        check(r.returncode == 0 and "/games.pgn" in r.stdout and "--demo" in r.stdout, "--help")
        r = subprocess.run([EXE], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and "--config" in r.stderr, "no arguments: usage")
        print(f"total {time.time() - t0:.1f} s")
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait()
        if failures:
            print("---- eboardd log ----")
            print(open(log, errors="replace").read()[-6000:])
        shutil.rmtree(state, ignore_errors=True)
        if os.path.exists(log):
            os.remove(log)
    return 1 if failures else 0


sys.exit(main())
