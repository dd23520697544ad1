#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""eboardctl's command-line hygiene (issue 11): every way a user could make the tool hang, abort or eat
memory ends in a one-line error and a non-zero exit, at once.

usage: eboardctl_hygiene_cli.py EBOARDCTL CAPTURES_DIR

Each run of eboardctl is bounded (HANG_GUARD_S): a run that does not return counts as a failure, so a
regression fails this test instead of hanging ctest. The only stand-in servers listen on 127.0.0.1."""
import os
import socket
import subprocess
import sys
import tempfile
import threading

EBOARDCTL, CAPTURES = sys.argv[1], sys.argv[2]
HANG_GUARD_S = 20
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)


def run(*args, env=None):
    """eboardctl ARGS; None when it did not return within the hang guard."""
    e = dict(os.environ)
    e.pop("EBOARD_TOKEN", None)
    e.update(env or {})
    try:
        return subprocess.run([EBOARDCTL, *args], capture_output=True, text=True, timeout=HANG_GUARD_S, env=e)
    except subprocess.TimeoutExpired:
        return None


def refused(what, args, code=None, reason=None, **kw):
    """ARGS must fail: a non-zero exit (CODE if given), not a signal, one line on stderr containing REASON."""
    r = run(*args, **kw)
    if r is None:
        check(False, f"{what}: eboardctl {' '.join(args)} did not return within {HANG_GUARD_S} s")
        return None
    lines = r.stderr.splitlines()
    ok = r.returncode > 0 and (code is None or r.returncode == code) and len(lines) == 1
    ok = ok and (reason is None or reason in r.stderr)
    check(ok, f"{what}: eboardctl {' '.join(args)} -> exit {r.returncode}, stderr {r.stderr!r}")
    return r


class SilentServer:
    """Accepts connections on 127.0.0.1 and never answers (a wedged daemon). Counts the connections."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.address = f"127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
                self.accepted.append(conn)  # kept open, never written to
            except socket.timeout:
                pass
            except OSError:
                return

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.accepted:
            c.close()
        self.sock.close()


with tempfile.TemporaryDirectory(prefix="eboard-hygiene-") as tmp:
    capture = os.path.join(CAPTURES, "dgt_synthetic_e4e5.cap")
    suite = os.path.join(tmp, "tiny.epd")
    with open(suite, "w") as f:
        f.write("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n")
    # 257 MiB that take no disk: a sparse file, refused by its size before a byte is read.
    huge = os.path.join(tmp, "huge.cap")
    with open(huge, "wb") as f:
        f.truncate(257 << 20)
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    empty_dir = os.path.join(tmp, "dir")
    os.mkdir(empty_dir)

    # 1. A daemon that accepts and never answers: --timeout bounds the exchange, exit 3 (no daemon).
    server = SilentServer()
    try:
        refused("silent daemon, GET", ["status", "--daemon", server.address, "--timeout", "1"], code=3,
                reason="did not answer within 1 s")
        refused("silent daemon, POST", ["draw", "A", "--token", "t", "--daemon", server.address, "--timeout",
                                        "0.5"], code=3, reason="did not answer within 0.5 s")
        # Without --timeout: the default 10 s, well inside the hang guard.
        refused("silent daemon, default timeout", ["status", "--daemon", server.address], code=3,
                reason="did not answer within 10 s")
        check(len(server.accepted) >= 3, f"the silent daemon saw the connections: {len(server.accepted)}")
        refused("--timeout 0", ["status", "--daemon", server.address, "--timeout", "0"], code=2)
        refused("--timeout nan", ["status", "--daemon", server.address, "--timeout", "nan"], code=2)
    finally:
        server.close()

    # 2. Numbers that do not fit are a usage error, not an abort.
    for alert in ("999999999999999999999", "2147483648", "0", "-1", "x"):
        refused(f"ack {alert}", ["ack", "A", alert, "--daemon", "127.0.0.1:1"], code=2)
    for opt, value in (("--speed", "nan"), ("--speed", "inf"), ("--linger", "1e300"),
                       ("--reopen-at", "nan"), ("--clock-margin", "-1"), ("--reopen-gap", "99999999999999")):
        refused(f"sim {opt} {value}", ["sim", "--capture", capture, opt, value], code=2)

    # 3. Thread counts outside 1..256.
    for threads in ("100000", "0", "-1", "99999999999"):
        refused(f"perft --threads {threads}", ["perft", "--suite", suite, "--threads", threads], code=2)
    r = run("perft", "--suite", suite, "--threads", "256")
    check(r is not None and r.returncode == 0 and r.stdout.endswith("2 passed, 0 failed\n"),
          f"perft --threads 256 runs: {r}")

    # 4 and 5. Whole-file inputs: no device, FIFO or directory, nothing over the cap; one line, at once.
    inputs = {
        "replay": lambda p: ["replay", p],
        "replay, board B": lambda p: ["replay", capture, p],
        "capture import": lambda p: ["capture", "import", p],
        "perft --suite": lambda p: ["perft", "--suite", p],
        "sim --pgn": lambda p: ["sim", "--pgn", p, "--start-now", "--linger", "0"],
        "sim --capture": lambda p: ["sim", "--capture", p, "--start-now", "--linger", "0"],
        "--token-file": lambda p: ["draw", "A", "--token-file", p, "--daemon", "127.0.0.1:1"],
    }
    for name, args in inputs.items():
        refused(f"{name} /dev/zero", args("/dev/zero"), reason="not a regular file")
        refused(f"{name} a FIFO", args(fifo), reason="not a regular file")
        refused(f"{name} 257 MiB", args(huge), reason="larger than")
        # CLI11 refuses a directory for the options that check for an existing file: any one line will do.
        refused(f"{name} a directory", args(empty_dir))
    r = run("perft", "--suite", empty_dir)
    check(r is not None and r.returncode != 0 and "passed" not in r.stdout, f"perft --suite DIR: {r}")

    # 6. FENs no game can reach: refused with the reason, by perft and by new-game before it connects.
    bad_fens = {
        "4k2P/8/8/8/8/8/8/4K3 w - - 0 1": "a pawn stands on the first or last rank",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNp w - - 0 1": "a pawn stands on the first or last rank",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 junk": "unexpected text after the move counters",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1 ;D1 5": "unexpected text after the move counters",
    }
    server = SilentServer()
    try:
        for fen, reason in bad_fens.items():
            refused(f"perft --fen {fen!r}", ["perft", "--fen", fen, "--depth", "1"], code=2, reason=reason)
            refused(f"new-game --fen {fen!r}", ["new-game", "A", "--fen", fen, "--token", "t", "--daemon",
                                                server.address, "--timeout", "1"], code=2, reason=reason)
        check(not server.accepted, "new-game with a bad FEN did not connect to the daemon")
    finally:
        server.close()
    # Pockets (both notations) and promoted pieces still parse.
    for fen, nodes in (("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R/Pp w KQkq - 0 3", None),
                       ("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[QNp] w KQkq - 0 3", None),
                       ("4k3/1Q~6/8/8/4b3/8/Kpp5/8[] b - - 0 1", None)):
        r = run("perft", "--variant", "crazyhouse", "--fen", fen, "--depth", "1")
        check(r is not None and r.returncode == 0 and r.stdout.strip().isdigit(), f"crazyhouse {fen}: {r}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
