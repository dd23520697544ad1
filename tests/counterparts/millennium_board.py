#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Millennium ChessLink boards written from the maker's protocol document (Dave Woodfield's "Magic Chessboard
Communications Protocol" of 2017, as python-mchess keeps it in magic-board.md; ../shared/reference/hardware.md §2
restates it), not from eboardd's code: N boards, each on its own pseudo-terminal, each playing a real game
piece by piece (a lift, then a place), without a clock.

What each board does, as the document says:
- The line is 38400 baud, 7 data bits, ODD parity, 1 stop. A pty applies no parity, so the board does it
  itself: every byte it sends carries the parity bit in bit 7, and every byte it reads must have odd parity
  over its 8 bits, or it is dropped, as a UART checking parity drops a byte with a parity error.
- Commands are a letter, its data, and 2 upper-case hex characters, the XOR of every character before them
  ("block parity"); a command is actioned and answered only when its format and check are right. Replies are
  the lower-case letter, the data and the same check. S (status: `s` and 64 characters A8..H8, A7..H1,
  KQRBNP / kqrbnp / '.'), L (slot time and 81 LED codes: `l`), X (`x`), T (reset: no reply, 3 s start-up),
  V (`v` + 2x2 hex version), W (write E2ROM address, value: `w` + echo), R (read: `r` + address, value).
- E2ROM: 00 bit 0 disables the check; 01 the scan time in 2.048 ms units (default 20; below 15 means 20);
  02 the automatic reports (b2-b0: 000 every scan, 001 off, 010 every [03] x 4.096 ms, 011 on any change,
  100-111 on a change that lasted 2-5 scans); 03 the report period; 04 the LED brightness. The E2ROM is not
  volatile: these boards power up with 02 = 001, reports OFF, as another program left them, until the host
  writes 02 itself. Automatic reports may come between a command and its answer.

usage: millennium_board.py --pgn FILE --game G --boards N [--plies P] [--speed S] [--link-dir DIR]
       [--status FILE] [--seed N] [--reports-at-power-up MODE] [--reports-off K:AT]
Prints each board's device path (or link) on a line of its own, then runs until SIGTERM or SIGINT.
"""
import argparse
import json
import os
import random
import select
import signal
import sys
import termios
import time
import tty

sys.dont_write_bytecode = True
import chess_moves  # noqa: E402
import hands  # noqa: E402

BYTE_S = 10 / 38400.0
DATA_LEN = {"S": 0, "X": 0, "T": 0, "V": 0, "W": 4, "R": 2, "L": 2 + 162}
VERSION = (0x01, 0x0A)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}] millennium_board:", *a, file=sys.stderr, flush=True)


def odd_parity(c):
    """The 7-bit character c with bit 7 set so that the byte has an odd number of ones."""
    c &= 0x7F
    return c | (0x80 if bin(c).count("1") % 2 == 0 else 0)


def block(text):
    """text followed by its block parity: the XOR of its characters as 2 upper-case hex digits."""
    x = 0
    for ch in text:
        x ^= ord(ch)
    return text + f"{x:02X}"


class Board:
    def __init__(self, number, game_no, moves, script, rng, e2rom_reports, reports_off_at):
        self.number = number
        self.game_no = game_no
        self.moves = moves
        self.script = script
        self.rng = rng
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.link = None
        self.e2rom = bytearray(256)
        self.e2rom[0x00] = 0x00
        self.e2rom[0x01] = 20
        self.e2rom[0x02] = e2rom_reports
        self.e2rom[0x03] = 25
        self.e2rom[0x04] = 15
        self.reports_off_at = reports_off_at
        self.rx = ""
        self.rx_since = None
        self.out = bytearray()
        self.out_next = 0.0  # when the next byte may leave
        self.silent_until = 0.0
        self.start = None
        self.first_heard = None
        self.scan_next = 0.0
        self.report_next = 0.0
        self.last_scan = None
        self.last_reported = None
        self.stable_scans = 0
        self.pending = []  # (due, text) replies waiting for the board's reaction time
        self.stats = {"parity_errors": 0, "bad_frames": 0, "junk_chars": 0, "commands": {}, "e2rom_writes": [],
                      "reports": 0, "reports_mode_at_end": None, "bytes_out": 0, "dropped_out": 0,
                      "first_valid_command_s": None}
        self.t0 = time.monotonic()

    def squares(self, t):
        """The 64 characters of a status, A8..H8, A7..H1, at wall time t."""
        chars = []
        for k in range(64):
            sq = (7 - k // 8) * 8 + k % 8
            v = chess_moves.START[sq] if self.start is None or t < self.start else self.script.at(sq, t - self.start)
            chars.append(v)
        return "".join(chars)

    def scan_period(self):
        st = self.e2rom[0x01]
        return (st if st >= 15 else 20) * 0.002048

    def queue(self, text):
        data = bytes(odd_parity(ord(ch)) for ch in text)
        if len(self.out) > 4096:
            self.stats["dropped_out"] += len(data)
            return
        self.out += data

    # -- host to board ----------------------------------------------------------------------------------------
    def receive(self, data, now):
        for byte in data:
            if bin(byte).count("1") % 2 == 0:
                self.stats["parity_errors"] += 1
                continue
            self.rx += chr(byte & 0x7F)
        if self.rx and self.rx_since is None:
            self.rx_since = now
        self.parse(now)

    def parse(self, now):
        while self.rx:
            ch = self.rx[0]
            if ch not in DATA_LEN:
                self.rx = self.rx[1:]
                self.stats["junk_chars"] += 1
                continue
            need = 1 + DATA_LEN[ch] + 2
            if len(self.rx) < need:
                if self.rx_since is not None and now - self.rx_since > 0.5:  # a frame that never completes
                    self.rx = self.rx[1:]
                    self.stats["bad_frames"] += 1
                    self.rx_since = now
                    continue
                return
            frame, rest = self.rx[:need], self.rx[need:]
            if self.valid(frame):
                self.rx = rest
                self.rx_since = now if rest else None
                self.command(frame, now)
            else:
                self.stats["bad_frames"] += 1
                self.rx = self.rx[1:]

    def valid(self, frame):
        body, check = frame[:-2], frame[-2:]
        if any(c not in "0123456789ABCDEF" for c in body[1:] + check):
            return False
        if self.e2rom[0x00] & 0x01:
            return True
        x = 0
        for c in body:
            x ^= ord(c)
        return int(check, 16) == x

    def command(self, frame, now):
        if now < self.silent_until:
            return
        letter, data = frame[0], frame[1:-2]
        self.stats["commands"][letter] = self.stats["commands"].get(letter, 0) + 1
        if self.first_heard is None:
            self.first_heard = now
            self.stats["first_valid_command_s"] = round(now - self.t0, 2)
        reply = None
        if letter == "S":
            reply = "s" + self.squares(now)
        elif letter == "L":
            reply = "l"
        elif letter == "X":
            reply = "x"
        elif letter == "V":
            reply = f"v{VERSION[0]:02X}{VERSION[1]:02X}"
        elif letter == "W":
            addr, value = int(data[:2], 16), int(data[2:], 16)
            if addr == 0x01 and value < 15:
                value = 20
            self.e2rom[addr] = value
            self.stats["e2rom_writes"].append([round(now - self.t0, 2), addr, value])
            reply = f"w{addr:02X}{value:02X}"
        elif letter == "R":
            addr = int(data, 16)
            reply = f"r{addr:02X}{self.e2rom[addr]:02X}"
        elif letter == "T":
            self.silent_until = now + 3.0  # reset: status cleared, scanning again after 3 s
            self.pending.clear()
            self.out.clear()
            self.last_scan = self.last_reported = None
            self.scan_next = self.silent_until
            return
        if reply is not None:
            self.pending.append((now + self.rng.uniform(0.001, 0.004), block(reply)))

    # -- the board's own time -----------------------------------------------------------------------------
    def tick(self, now):
        if self.reports_off_at is not None and self.start is not None and now >= self.start + self.reports_off_at:
            self.e2rom[0x02] = 0x01  # another program on the board's other link turned the reports off
            self.stats["e2rom_writes"].append([round(now - self.t0, 2), 0x02, 0x01, "by another program"])
            log(f"board {self.number}: automatic reports turned off by another program")
            self.reports_off_at = None
        if self.rx:
            self.parse(now)
        while self.pending and self.pending[0][0] <= now:
            self.queue(self.pending.pop(0)[1])
        if now < self.silent_until:
            return
        while self.scan_next <= now:
            t = self.scan_next
            self.scan_next += self.scan_period()
            self.scan(t)
        self.pump(now)

    def scan(self, t):
        state = self.squares(t)
        mode = self.e2rom[0x02] & 0x07
        changed = state != self.last_scan
        self.stable_scans = 1 if changed else self.stable_scans + 1
        self.last_scan = state
        report = False
        if mode == 0:
            report = True
        elif mode == 2:
            if t >= self.report_next:
                report = True
                self.report_next = t + max(1, self.e2rom[0x03]) * 0.004096
        elif mode == 3:
            report = changed
        elif mode >= 4:
            report = self.stable_scans == mode - 2 and state != self.last_reported
        if report:
            self.last_reported = state
            self.stats["reports"] += 1
            self.queue(block("s" + state))

    def pump(self, now):
        """Sends the queued bytes at 38400 baud: a byte every 0.26 ms."""
        if not self.out:
            self.out_next = max(self.out_next, now)
            return
        n = int((now - self.out_next) / BYTE_S) + 1
        if n <= 0:
            return
        chunk = bytes(self.out[:n])
        try:
            written = os.write(self.master, chunk)
        except BlockingIOError:
            written = 0
        except OSError:
            written = len(chunk)  # nobody listening: the bytes are gone
        del self.out[:written]
        self.stats["bytes_out"] += written
        self.out_next += written * BYTE_S

    def progress(self, now):
        if self.start is None:
            return 0, False
        done = sum(1 for t in self.script.ply_end if self.start + t <= now)
        return done, done == len(self.script.ply_end)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgn", required=True)
    ap.add_argument("--game", type=int, default=1, help="board k plays game G+k (from 1)")
    ap.add_argument("--boards", type=int, default=4)
    ap.add_argument("--plies", type=int, default=40, help="plies of each game (0: all)")
    ap.add_argument("--speed", type=float, default=8.0, help="thinking times: the [%%clk] ones divided by this")
    ap.add_argument("--min-think", type=float, default=0.8)
    ap.add_argument("--max-think", type=float, default=4.0)
    ap.add_argument("--adjust", type=float, default=0.1, help="share of moves whose piece is straightened")
    ap.add_argument("--start-after", type=float, default=3.0,
                    help="play starts this long after the host's first valid command")
    ap.add_argument("--start-anyway", type=float, default=12.0,
                    help="or this long after start-up whatever the host does (the players do not wait)")
    ap.add_argument("--reports-at-power-up", type=lambda v: int(v, 0), default=0x01,
                    help="E2ROM 02 at power-up (default 1: automatic reports off)")
    ap.add_argument("--reports-off", default="",
                    help="K:AT: AT s into play, another program turns board K's automatic reports off")
    ap.add_argument("--link-dir", default="")
    ap.add_argument("--status", default="")
    ap.add_argument("--seed", type=int, default=None)
    return ap.parse_args()


def main():
    a = parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    games = [g for g in chess_moves.read_pgn_games(a.pgn) if g["san"]]  # a game without moves plays nothing
    off_board, off_at = (int(a.reports_off.split(":")[0]), float(a.reports_off.split(":")[1])) if a.reports_off \
        else (None, None)
    boards = []
    for k in range(a.boards):
        game_no = (a.game - 1 + k) % len(games) + 1
        game = games[game_no - 1]
        plies = a.plies or len(game["san"])
        moves = chess_moves.moves_of(game, plies)
        brng = random.Random(rng.random())
        script = hands.game_script(moves, chess_moves.think_times(game, plies), brng, a.speed, a.min_think,
                                   a.max_think, clock=False, adjust=a.adjust)
        b = Board(k + 1, game_no, moves, script, brng, a.reports_at_power_up, off_at if off_board == k + 1 else None)
        if a.link_dir:
            b.link = os.path.join(a.link_dir, f"millennium{k + 1}")
            if os.path.lexists(b.link):
                os.remove(b.link)
            os.symlink(b.path, b.link)
        boards.append(b)
    for b in boards:
        print(b.link or b.path, flush=True)
    log(f"seed {seed}; {len(boards)} boards, E2ROM 02 = {a.reports_at_power_up:#04x} at power-up")
    for b in boards:
        log(f"board {b.number} on {b.path}: game {b.game_no}, {len(b.moves)} plies over {b.script.length:.0f} s")

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    started = time.monotonic()
    for b in boards:
        b.scan_next = started
    next_status = started
    by_fd = {b.master: b for b in boards}
    while not stop:
        now = time.monotonic()
        for b in boards:
            if b.start is None and ((b.first_heard is not None and now >= b.first_heard + a.start_after)
                                    or now >= started + a.start_anyway):
                b.start = now
                log(f"board {b.number}: play starts" + ("" if b.first_heard else " (the host never got a "
                                                                                  "valid command through)"))
            b.tick(now)
        if a.status and now >= next_status:
            write_status(a.status, boards, now, seed)
            next_status = now + 1.0
        busy = any(b.out or b.pending for b in boards)
        try:
            r, _, _ = select.select(list(by_fd), [], [], 0.002 if busy else 0.01)
        except InterruptedError:
            continue
        for fd in r:
            try:
                data = os.read(fd, 4096)
            except (BlockingIOError, OSError):
                data = b""
            if data:
                by_fd[fd].receive(data, time.monotonic())
    if a.status:
        write_status(a.status, boards, time.monotonic(), seed)
    for b in boards:
        for fd in (b.master, b.slave):
            os.close(fd)
        if b.link and os.path.islink(b.link):
            os.remove(b.link)


def write_status(path, boards, now, seed):
    out = {"seed": seed, "boards": []}
    for b in boards:
        played, finished = b.progress(now)
        b.stats["reports_mode_at_end"] = b.e2rom[0x02]
        out["boards"].append({"number": b.number, "device": b.path, "game": b.game_no, "plies": len(b.moves),
                              "played": played, "finished": finished, "started": b.start is not None,
                              "last_ply_end_ago_s": round(now - (b.start + b.script.ply_end[-1]), 1) if finished
                              else None, "san": [m["san"] for m in b.moves], **b.stats})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
