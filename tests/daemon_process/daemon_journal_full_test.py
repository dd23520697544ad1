#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A full disk under the real eboardd mid-game: nothing is published before it is journaled.

One corpus game is played on an emulated DGT board and clock (`eboardctl sim` on a pty). After a few moves
the journal stops being writable, for --hold real seconds, while the sim plays on; then space returns.

The fault is real, never a seam in the daemon:
- tmpfs (as root, where `unshare -m` works): the state_dir is a small tmpfs in a mount namespace of the
  test's own; a filler file takes all its free space (writes fail with ENOSPC), deleting it frees it.
- fsize (otherwise): RLIMIT_FSIZE of the running daemon (prlimit) set to its journal's size: writes past
  it fail with EFBIG; raising it again is the space returning.

Checked while the journal cannot be written: /ws gets one alert `journal-unwritable` and no move, /games.pgn
and /status stay at the moves published before, /status says journal.ok = false with the events waiting,
sd_notify STATUS= names the problem, and every move /ws ever showed is in the journal file. Once space
returns: every held move arrives on /ws in order, exactly once, the log says so once (and the failure
once), and after a restart the journal and /games.pgn hold the whole game.

usage: daemon_journal_full_test.py EBOARDD EBOARDCTL SHARED_DIR [--fault auto|tmpfs|fsize] [--hold S]
exit 77 (skipped) without the corpus in SHARED_DIR
"""
import errno
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import eboardctl_proc as ep  # noqa: E402

IN_NAMESPACE = "EBOARD_TEST_MOUNT_NAMESPACE"


def main():
    ap = ep.arg_parser(game=141, speed=6.0)  # 30 plies
    ap.add_argument("--fault", choices=["auto", "tmpfs", "fsize"], default="auto")
    ap.add_argument("--hold", type=float, default=5.0, help="real seconds the journal cannot be written")
    ap.add_argument("--at-ply", type=int, default=6, help="the fault comes once /ws has this many moves")
    a = ap.parse_args()
    pgn = ep.corpus_file(a.shared)
    expected = ep.corpus_game(pgn, a.game)["moves"]

    # A tmpfs of our own needs a mount namespace of our own: run again inside one, if we may.
    if a.fault != "fsize" and not os.environ.get(IN_NAMESPACE):
        if os.geteuid() == 0 and shutil.which("unshare") and \
                subprocess.call(["unshare", "-m", "true"], stderr=subprocess.DEVNULL) == 0:
            env = dict(os.environ, **{IN_NAMESPACE: "1"})
            return subprocess.call(["unshare", "-m", "--propagation", "private", sys.executable,
                                    os.path.abspath(__file__), *sys.argv[1:]], env=env)
        if a.fault == "tmpfs":
            print("SKIP: a tmpfs needs root and unshare -m", flush=True)
            return 77
        a.fault = "fsize"
    elif a.fault == "auto":
        a.fault = "tmpfs"  # in the namespace made above

    with ep.Harness("daemon-journal-full") as h:
        try:
            run(h, a, pgn, expected)
        except ep.TestFailure as e:
            h.check(False, str(e))
    return h.exit_code()


class Notifications:
    """A fake systemd notification socket: every datagram eboardd sends with sd_notify."""

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

    def statuses(self):
        with self.lock:
            return [line[7:] for m in self.messages for line in m.split("\n") if line.startswith("STATUS=")]

    def close(self):
        self.running = False
        self.thread.join(timeout=2)
        self.sock.close()


class Tmpfs:
    """The state_dir on a small tmpfs; fill() takes all its free space, free() gives it back."""

    def __init__(self, path, size="4m"):
        self.path = path
        self.filler = os.path.join(path, "filler")
        self.mounted = subprocess.call(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path]) == 0

    def fill(self):
        with open(self.filler, "wb", buffering=0) as f:
            for chunk in (1 << 16, 4096, 1):
                try:
                    while True:
                        f.write(b"\0" * chunk)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
        return os.path.getsize(self.filler)

    def free(self):
        os.remove(self.filler)

    def unmount(self):
        if self.mounted:
            subprocess.call(["umount", "-l", self.path])


class FileSizeLimit:
    """RLIMIT_FSIZE of a running process (prlimit(2)): its writes past `bytes` of a file fail (EFBIG)."""

    def __init__(self, pid):
        self.pid = pid
        self.saved = resource.prlimit(pid, resource.RLIMIT_FSIZE)

    def fill(self, bytes_):
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (bytes_, self.saved[1]))
        return bytes_

    def free(self):
        resource.prlimit(self.pid, resource.RLIMIT_FSIZE, self.saved)


def journal_moves(path):
    """The plies of the move events in the journal file, in order."""
    out = []
    for kind, body in ep.journal_records(path):
        if kind == "E":
            try:
                e = json.loads(body.decode())
            except ValueError:
                continue
            if e.get("type") == "move":
                out.append(e.get("ply"))
    return out


def run(h, a, pgn, expected):
    sim = ep.Sim(h, a.eboardctl, pgn, a.game, a.speed, style=a.style)
    d = ep.Daemon(h, a.eboardd, sim.device, clock_rate=a.speed)
    tmpfs = None
    if a.fault == "tmpfs":
        tmpfs = Tmpfs(d.state)
        if not tmpfs.mounted:
            print("no tmpfs could be mounted: the file size limit instead", flush=True)
            a.fault, tmpfs = "fsize", None
    try:
        run_game(h, a, d, sim, expected, tmpfs)
    finally:
        if d.proc and d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        if tmpfs:
            tmpfs.unmount()


def run_game(h, a, d, sim, expected, tmpfs):
    notify = Notifications(os.path.join(h.dir, "notify.sock"))
    os.environ["NOTIFY_SOCKET"] = notify.path
    d.start()
    journal = os.path.join(d.state, "journal", d.board + ".journal")
    ws = ep.WebSocket(d.port)
    print(f"game {a.game}: {len(expected)} plies at {a.speed}x; fault: {a.fault}; eboardd on port {d.port}",
          flush=True)

    ep.wait_until(lambda: len(ws.moves()) >= a.at_ply, 60, f"{a.at_ply} moves on /ws")
    fault = tmpfs if tmpfs else FileSizeLimit(d.proc.pid)
    filled = fault.fill(os.path.getsize(journal)) if not tmpfs else fault.fill()
    t_fault = time.time()
    print(f"journal unwritable from ply {len(ws.moves())} on ({a.fault}: {filled} bytes)", flush=True)

    # The next write fails (the board's messages are journaled as they come): soon on /status.
    # On a tmpfs, the journal's last page may still take a few records.
    ep.wait_until(lambda: d.board_status()["journal"]["ok"] is False, 15, "/status journal.ok = false")
    time.sleep(0.3)  # a move written just before the fault may still complete its sync and be published
    held_at = len(ws.moves())
    alerts = [e for e in ws.snapshot() if e.get("type") == "alert"]
    h.check(len(alerts) == 1 and alerts[0].get("code") == "journal-unwritable",
            f"/ws: one journal-unwritable alert, got {alerts}")
    if alerts:
        al = alerts[0]
        h.check(al.get("board") == d.board and isinstance(al.get("t"), int) and al.get("ply") == held_at and
                al.get("side") in ("white", "black") and "journal" in al.get("detail", ""),
                f"the alert's fields (§3): {al}")

    polls, waiting, live = 0, 0, 0
    while time.time() < t_fault + a.hold:
        moves = ws.moves()
        h.check(len(moves) == held_at, f"/ws published a move while the journal could not be written: "
                                       f"{moves[held_at:]}")
        g = d.game()
        h.check(g is not None and len(g["moves"]) == held_at,
                f"/games.pgn shows {len(g['moves']) if g else None} moves, {held_at} were published")
        st = d.board_status()
        h.check(st["game"]["published_ply"] == held_at and st["journal"]["ok"] is False,
                f"/status during the outage: published ply {st['game']['published_ply']}, "
                f"journal {st['journal'].get('ok')}")
        live = st["game"]["ply"]
        waiting = st["journal"].get("outage", {}).get("events_waiting", 0)
        on_disk = journal_moves(journal)
        h.check(on_disk[:len(moves)] == [m["ply"] for m in moves],
                f"a move on /ws is not in the journal file: /ws {[m['ply'] for m in moves]}, file {on_disk}")
        polls += 1
        if h.failures:
            break
        time.sleep(0.2)
    outage = d.board_status()["journal"].get("outage", {})
    print(f"during {a.hold:.1f} s: {polls} polls, {held_at} moves published, the board at ply {live}, "
          f"{waiting} events waiting, "
          f"{outage.get('bytes_waiting')} bytes / {outage.get('records_waiting')} records queued; "
          f"error: {outage.get('error')}", flush=True)
    h.check(waiting >= 3 and live >= held_at + 3,
            f"{waiting} events waited, the board at ply {live}: the sim did not play on during the outage")
    h.check(any("journal unwritable" in s for s in notify.statuses()),
            f"sd_notify STATUS= never named the journal: {notify.statuses()}")

    fault.free()
    t_free = time.time()
    ep.wait_until(lambda: len(ws.moves()) > held_at, 15, "the held moves after space returned")
    t_first = time.time() - t_free
    ep.wait_until(lambda: d.board_status()["journal"]["ok"] is True, 15, "/status journal.ok = true")
    print(f"space returned: the held moves came {t_first * 1000:.0f} ms later (retry backoff, at most 5 s)",
          flush=True)
    h.check(t_first < 6.0, f"the held moves came {t_first:.1f} s after space returned (bound 6 s)")
    ep.wait_until(lambda: len(ws.moves()) >= len(expected), 90, f"all {len(expected)} moves on /ws")
    time.sleep(0.5)
    events = ws.settled()
    ws_moves = [e for e in events if e.get("type") == "move"]
    ep.check_ws_moves(h, ws_moves, expected, "/ws")
    h.check(len(ws_moves) == len(expected), f"/ws: {len(ws_moves)} move events for {len(expected)} plies")
    h.check(sum(1 for e in events if e.get("type") == "alert") == 1, "/ws: an alert besides the journal's")
    h.check(any("journals writable again" in s for s in notify.statuses()),
            f"sd_notify STATUS= never said the journal was writable again: {notify.statuses()}")
    log = d.log_text()
    down, up = log.count("journal cannot be written"), log.count("journal writable again")
    h.check(down == 1 and up == 1, f"the log tells each change once: {down} failures, {up} recoveries")
    ep.check_final_game(h, d, expected)
    ws.close()
    rc = d.stop()
    h.check(rc == 0, f"SIGTERM: exit {rc}")

    # After a restart: the journal and the recovered game hold every move once.
    plies = journal_moves(journal)
    h.check(plies == list(range(1, len(expected) + 1)), f"journal move events: {plies}")
    d.start()
    ws2 = ep.WebSocket(d.port)
    ep.wait_until(lambda: len(ws2.moves()) >= len(expected), 15, "the restarted daemon's snapshot")
    ep.check_ws_moves(h, ws2.moves(), expected, "/ws after the restart")
    ep.check_final_game(h, d, expected)
    ws2.close()
    h.check(d.stop() == 0, "SIGTERM after the restart")
    notify.close()
    print(f"{len(expected)} plies, {len(expected) - held_at} of them held back and published in order; "
          f"in {h.elapsed():.1f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
