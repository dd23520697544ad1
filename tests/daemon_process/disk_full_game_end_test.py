#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A full disk across a game's end (issue 28): what the outage held back is written once space returns.

The real `eboardd --demo` plays bughouse matches on emulated DGT boards (through the real serial path) with
its state_dir on a 4 MiB tmpfs of the test's own (a mount namespace; root). While a match is being played
the tmpfs is filled (a filler file takes all its free space: writes fail with ENOSPC); the match ends and the
next one begins while it is full; then the filler is deleted. Checked afterwards, against what /status showed
of the finished match (its last plies and result, watched live while the disk was full):
  - the finished match's archive (games/match-A-B-<n>.bpgn) holds every ply of both boards and the result;
  - the boards' archives of that game (games/<board>-…-<n>.pgn) hold their plies and result;
  - each archive has its signature file (.sig), and `eboardctl verify` with the hall's key says INTACT;
  - both journals rotated: journal/<board>/<n>-….journal keeps the finished match, and the current journal
    begins with the next one (its header names the kept file);
  - how long after space returned the archive appeared (printed: the README's figure).
Then again with a kill -9 while full: the disk filled during the next match, the daemon killed and restarted
on the full disk, the match ended and the next begun while still full, space returned: the same checks for
that match. (Records held in memory die with the process: what was never journaled was never published, and
the demo plays it again after the restart.)

usage: disk_full_game_end_test.py EBOARDD EBOARDCTL SHARED_DIR
exit 77 (skipped) without the corpus, or without root and unshare -m (a tmpfs of the test's own)
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402
from daemon_journal_full_test import Tmpfs  # noqa: E402

IN_NAMESPACE = "EBOARD_TEST_MOUNT_NAMESPACE"
SPEED = 20  # the demo's thinking speed: a match lasts several seconds, long enough to fill the disk in it


class Demo(ep.Daemon):
    """`eboardd --demo` on the bughouse corpus, on a state_dir that survives restarts."""

    def __init__(self, h, exe, corpus):
        super().__init__(h, exe, device="(the demo's)")
        self.corpus = corpus

    def command(self, listen):
        return [self.exe, "--demo", "--demo-corpus", self.corpus, "--demo-speed", str(SPEED), "--state-dir",
                self.state, "--listen", listen]

    def match(self):
        return self.status()["matches"][0]

    def restart_full(self, timeout=30):
        """Starts eboardd again on the port of the previous run, on a full disk: its listen file cannot be
        written then, so the port is asked instead."""
        log = open(self.log, "ab")
        log.write(f"==== start {self.starts + 1} (disk full)\n".encode())
        log.flush()
        self.proc = subprocess.Popen(self.command(f"127.0.0.1:{self.port}"), stdout=log, stderr=log)
        self.h.procs.append(self.proc)
        self.starts += 1

        def answering():
            if self.proc.poll() is not None:
                raise ep.TestFailure(f"eboardd exited with {self.proc.returncode} on the full disk")
            try:
                return self.match()
            except (OSError, ValueError, KeyError, IndexError):
                return None

        ep.wait_until(answering, timeout, "eboardd answering after the restart on a full disk")
        return self


def bpgn_moves(text):
    """A BPGN's moves per board, {"A": n, "B": n}, and its Result tag."""
    result = re.search(r'^\[Result "([^"]*)"\]', text, re.M)
    body = re.sub(r"\{[^}]*\}", " ", "\n".join(l for l in text.splitlines() if not l.startswith("[")))
    moves = {"A": 0, "B": 0}
    for m in re.finditer(r"\d+([AaBb])\.\s*(\S+)", body):
        moves[m.group(1).upper()] += 1
    return moves, result.group(1) if result else None


def pgn_moves(text):
    games = ep.parse_pgn(text)
    if not games:
        return None, None
    return len(games[0]["moves"]), games[0]["tags"].get("Result")


def verify(eboardctl, archive, pub):
    p = subprocess.run([eboardctl, "verify", archive, "--key-file", pub], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout + p.stderr


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def shortest_matches(corpus, folder, count=3):
    """A .bpgn of the corpus's `count` shortest matches (the demo plays them in turn): the test waits for two
    whole matches, and the hands' motions, not the thinking time, set how long a ply takes."""
    matches = []
    for name in sorted(os.listdir(corpus)):
        if name.endswith(".bpgn"):
            with open(os.path.join(corpus, name), errors="replace") as f:
                matches += [m.strip() for m in re.split(r"\n\s*\n(?=\[)", f.read()) if m.strip()]
    matches.sort(key=lambda m: len(re.findall(r"\b\d+[AaBb]\.", m)))
    path = os.path.join(folder, "shortest.bpgn")
    with open(path, "w") as f:
        f.write("\n\n".join(matches[:count]) + "\n")
    return path


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exe, eboardctl, shared = sys.argv[1], sys.argv[2], sys.argv[3]
    corpus = os.path.join(shared, "corpora", "bughouse")
    if not os.path.isdir(corpus):
        print(f"SKIP: {corpus} is absent")
        return ep.SKIP
    if not os.environ.get(IN_NAMESPACE):
        if os.geteuid() == 0 and shutil.which("unshare") and \
                subprocess.call(["unshare", "-m", "true"], stderr=subprocess.DEVNULL) == 0:
            env = dict(os.environ, **{IN_NAMESPACE: "1"})
            return subprocess.call(["unshare", "-m", "--propagation", "private", sys.executable,
                                    os.path.abspath(__file__), *sys.argv[1:]], env=env)
        print("SKIP: a tmpfs of the test's own needs root and unshare -m", flush=True)
        return ep.SKIP
    with ep.Harness("disk-full-game-end") as h:
        d = Demo(h, exe, shortest_matches(corpus, h.dir))
        tmpfs = Tmpfs(d.state)
        if not tmpfs.mounted:
            print("SKIP: no tmpfs could be mounted", flush=True)
            return ep.SKIP
        try:
            run(h, d, tmpfs, eboardctl)
        except ep.TestFailure as e:
            h.check(False, str(e))
        finally:
            if d.proc and d.proc.poll() is None:
                d.proc.kill()
                d.proc.wait()
            tmpfs.unmount()
        return h.exit_code()


def watch_until_next(h, d, n, timeout, on_status=None):
    """Polls /status until match n+1 has begun and played a few plies; returns the last view of match n
    (its boards' plies and its result) as the live reconstruction had it."""
    last = None
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = d.match()
        except OSError:
            time.sleep(0.05)
            continue
        if on_status:
            on_status(m)
        if m["number"] == n:
            last = {"plies": {g["id"]: g["ply"] for g in m["games"]}, "result": m.get("result", "*")}
        elif m["number"] > n and last and sum(g["ply"] for g in m["games"]) >= 2:
            return last
        time.sleep(0.05)
    h.fail(f"match {n + 1} did not begin and play within {timeout:.0f} s (last seen of match {n}: {last})")


def check_archives(h, d, eboardctl, n, final, label):
    """The finished match n's BPGN, the boards' PGNs of game n, their signatures and journals."""
    games = os.path.join(d.state, "games")
    pub = os.path.join(d.state, "keys", "eboardd.pub")
    bpgn = os.path.join(games, f"match-A-B-{n}.bpgn")
    text = read(bpgn) or ""
    moves, result = bpgn_moves(text)
    h.check(moves == final["plies"] and result == final["result"],
            f"{label}: {os.path.basename(bpgn)} holds plies {moves} and result {result}; the match was "
            f"{final['plies']}, {final['result']}")
    archives = [bpgn]
    for b in "AB":
        files = sorted(glob.glob(os.path.join(games, f"{b}-*-{n}.pgn")))
        h.check(len(files) == 1, f"{label}: board {b}'s archives of game {n}: {files}")
        if not files:
            continue
        plies, res = pgn_moves(read(files[0]) or "")
        # A decided match decides both games (the partner's by "partner-board"); an undecided one neither.
        decided = res not in (None, "*")
        h.check(plies == final["plies"][b] and decided == (final["result"] != "*"),
                f"{label}: {os.path.basename(files[0])} holds {plies} plies, result {res}; board {b} ended at "
                f"ply {final['plies'][b]}, the match's result {final['result']}")
        archives.append(files[0])
    if final["result"] != "*":
        for a in archives:
            h.check(os.path.exists(a + ".sig"), f"{label}: no signature file beside {os.path.basename(a)}")
            if os.path.exists(a + ".sig"):
                rc, out = verify(eboardctl, a, pub)
                h.check(rc == 0 and "INTACT" in out,
                        f"{label}: eboardctl verify {os.path.basename(a)}: exit {rc}\n{out}")
    for b in "AB":
        kept = glob.glob(os.path.join(d.state, "journal", b, f"{n:06d}-*.journal"))
        h.check(len(kept) == 1, f"{label}: board {b}'s journal of match {n} was not kept on its own: {kept}")
        current = os.path.join(d.state, "journal", b + ".journal")
        header = next((body for kind, body in ep.journal_records(current) if kind == "H"), b"")
        h.check(bool(kept) and os.path.basename(kept[0]).encode() in header,
                f"{label}: board {b}'s current journal does not follow on from match {n}'s: header {header[:200]}")


def wait_for_archive(d, n, final, timeout):
    """Seconds until match n's BPGN holds what the match had (None: never within `timeout`)."""
    path = os.path.join(d.state, "games", f"match-A-B-{n}.bpgn")
    t0 = time.time()
    while time.time() < t0 + timeout:
        moves, result = bpgn_moves(read(path) or "")
        if moves == final["plies"] and result == final["result"] and \
                (final["result"] == "*" or os.path.exists(path + ".sig")):
            return time.time() - t0
        time.sleep(0.05)
    return None


def run(h, d, tmpfs, eboardctl):
    d.start()
    # Phase 1: the disk fills in the middle of a match; the match ends and the next begins while it is full.
    m = ep.wait_until(lambda: (lambda m: m if sum(g["ply"] for g in m["games"]) >= 4 else None)(d.match()), 60,
                      "4 plies of the first match")
    n = m["number"]
    filled = tmpfs.fill()
    print(f"match {n} at plies {[g['ply'] for g in m['games']]}: the disk is full ({filled} bytes filler)",
          flush=True)
    final = watch_until_next(h, d, n, 180)
    print(f"match {n} ended while the disk was full: {final}; match {n + 1} began", flush=True)
    time.sleep(1.0)
    tmpfs.free()
    took = wait_for_archive(d, n, final, 30)
    print(f"space returned: match {n}'s archive complete after "
          f"{'never (30 s)' if took is None else f'{took * 1000:.0f} ms'}", flush=True)
    h.check(took is not None and took < 10, f"match {n}'s archive came {took} s after space returned (bound 10 s)")
    time.sleep(1.0)  # the boards' archives and the rotation follow the same retry
    check_archives(h, d, eboardctl, n, final, "after space returned")

    # Phase 2: full again during the next match; kill -9 and a restart while full; the match ends, the next
    # begins, then space returns.
    n = d.match()["number"]
    ep.wait_until(lambda: (lambda m: m["number"] > n or sum(g["ply"] for g in m["games"]) >= 4)(d.match()),
                  60, f"4 plies of match {n}")
    n = d.match()["number"]
    tmpfs.fill()
    time.sleep(0.5)
    d.kill9()
    d.restart_full()
    print(f"killed during match {n} with the disk full; restarted at {d.match()['number']}", flush=True)
    h.check(d.match()["number"] == n, f"the restart on a full disk is at match {d.match()['number']}, not {n}")
    final = watch_until_next(h, d, n, 180)
    print(f"match {n} ended while the disk was full: {final}", flush=True)
    time.sleep(1.0)
    tmpfs.free()
    took = wait_for_archive(d, n, final, 30)
    print(f"space returned: match {n}'s archive complete after "
          f"{'never (30 s)' if took is None else f'{took * 1000:.0f} ms'}", flush=True)
    h.check(took is not None and took < 10, f"match {n}'s archive came {took} s after space returned (bound 10 s)")
    time.sleep(1.0)
    check_archives(h, d, eboardctl, n, final, "after a kill -9 while full")
    h.check(d.stop() == 0, "SIGTERM: clean exit 0")


if __name__ == "__main__":
    sys.exit(main())
