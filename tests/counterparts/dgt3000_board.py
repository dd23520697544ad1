#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A DGT board in single-board mode with a DGT 3000 clock behind it, on a pseudo-terminal, written from DGT's
public description of the board protocol and of the clock messages through the board (as
../shared/reference/hardware.md §1.1-§1.5 restates them), not from eboardd's code.

The board: the start position, still (nobody plays). It answers SEND_RESET (0x40: idle), SEND_CLK (0x41: one
BWTIME), SEND_BRD (0x42: BOARD_DUMP), SEND_UPDATE (0x43), SEND_UPDATE_BRD (0x44), SEND_UPDATE_NICE (0x4B),
RETURN_SERIALNR (0x45), RETURN_LONG_SERIALNR (0x55), SEND_TRADEMARK (0x47) and SEND_VERSION (0x4D). Every
message is [id][length high 7 bits][length low 7 bits][payload], the length counting the whole message.
In UPDATE mode a BWTIME goes out at least once a second; in UPDATE_NICE only when a shown time changed.

The clock: BWTIME (0x8D, 7 bytes): p0 = flags and the hours of the RIGHT clock, p1 minutes and p2 seconds in
BCD; p3..p5 the same for the LEFT clock; p6 status: b0 running, b1 the lever high on the right side, b3 with
the left clock running, b4 with the right one (as real boards' captures show). Whole seconds are shown; a
running clock counts down in real time.

Clock commands come wrapped: 2B <size> 03 <sub> <data> 00, `size` counting from the 03 to the final 00.
SETNRUN (sub 0x0A, size 0x0A): left h m s, right h m s in binary, then flags (0x01 the left clock runs, 0x02
the right one, 0x04 pause, 0x08 the lever switches sides). The clock takes it only in mode 23; in another
mode it answers with an error. END (0x03), BEEP (0x0B), ASCII text (0x0C), DISPLAY (0x01), ICONS (0x02),
BUTTON (0x08) and VERSION (0x09) are acknowledged and otherwise only counted.

An ACK travels in a BWTIME whose p0 and p3 have the low nibble 0x0A: ack0 (0x10 OK, 0x40 error) in p1 with
its bit 7 in p3 bit 4, ack1 (the command's sub) in p2 with its bit 7 in p3 bit 5, ack2 in p4 with its bit 7
in p0 bit 4, ack3 in p5 with its bit 7 in p0 bit 5. ACKs are sent only in UPDATE and UPDATE_NICE modes.

Hands for tests (--commands FILE: lines appended while it runs, read as they come): `lift e2`, `place e4 P`
(FIELD_UPDATE 0x8E [square, piece] in the update modes; square 0 = a8, piece 0 = emptied), `press` (the
lever goes over: the side that was up goes down; with "toggle on lever" set the other clock runs).

Behaviours for tests: --ack ok (the clock answers), never (it never answers: a clock whose cable to the
board is loose), and --mode N (the clock's mode; SETNRUN is refused outside 23).

The status file (--status, JSON, rewritten atomically after every change) holds what the clock displays
(left_ms, right_ms, running: "left", "right" or null), its mode, the clock commands received and the ACKs
sent.

usage: dgt3000_board.py --link PATH [--status FILE] [--ack ok|never] [--mode N] [--left S] [--right S]
                        [--commands FILE]
prints the pty's path (the link) on stdout, then runs until killed.
"""
import argparse
import json
import os
import select
import sys
import termios
import time
import tty

START = "rnbqkbnrpppppppp" + "." * 32 + "PPPPPPPPRNBQKBNR"  # a8..h8, a7..h7, ..., a1..h1
CODES = {".": 0, "P": 1, "R": 2, "N": 3, "B": 4, "K": 5, "Q": 6,
         "p": 7, "r": 8, "n": 9, "b": 0x0A, "k": 0x0B, "q": 0x0C}


def bcd(v):
    return ((v // 10) << 4) | (v % 10)


def message(msg_id, payload):
    n = 3 + len(payload)
    return bytes([msg_id, (n >> 7) & 0x7F, n & 0x7F]) + bytes(payload)


class Clock:
    """A DGT 3000: two displays, which one runs, the mode, the lever."""

    def __init__(self, left_s, right_s, mode):
        self.left_ms = left_s * 1000
        self.right_ms = right_s * 1000
        self.running = None  # "left", "right" or None
        self.lever_right_high = False  # the lever as it physically stands
        self.toggle_on_lever = False
        self.mode = mode
        self.since = time.monotonic()

    def tick(self):
        now = time.monotonic()
        spent = int((now - self.since) * 1000)
        self.since = now
        if self.running == "left":
            self.left_ms = max(0, self.left_ms - spent)
        elif self.running == "right":
            self.right_ms = max(0, self.right_ms - spent)

    def shown(self):
        """The displayed whole seconds (a running display shows the second it is in)."""
        return (-(-self.left_ms // 1000), -(-self.right_ms // 1000))

    def bwtime(self):
        left, right = self.shown()
        def hms(s):
            return s // 3600, s // 60 % 60, s % 60
        lh, lm, ls = hms(left)
        rh, rm, rs = hms(right)
        status = 0
        if self.running:
            status |= 0x01
            status |= 0x08 if self.running == "left" else 0x10
        if self.lever_right_high:
            status |= 0x02
        return message(0x8D, [rh & 0x0F, bcd(rm), bcd(rs), lh & 0x0F, bcd(lm), bcd(ls), status])


def ack_message(ack0, ack1, ack2=0, ack3=0):
    p0 = 0x0A | ((ack2 & 0x80) >> 3) | ((ack3 & 0x80) >> 2)
    p3 = 0x0A | ((ack0 & 0x80) >> 3) | ((ack1 & 0x80) >> 2)
    return message(0x8D, [p0, ack0 & 0x7F, ack1 & 0x7F, p3, ack2 & 0x7F, ack3 & 0x7F, 0])


class Board:
    def __init__(self, args):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        attrs = termios.tcgetattr(self.slave)
        attrs[4] = attrs[5] = termios.B9600
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        self.path = os.ttyname(self.slave)
        if args.link:
            if os.path.lexists(args.link):
                os.remove(args.link)
            os.symlink(self.path, args.link)
        self.status_path = args.status
        self.ack = args.ack
        self.clock = Clock(args.left, args.right, args.mode)
        self.mode = "idle"
        self.inbuf = bytearray()
        self.commands = []  # clock commands received: {"sub", "bytes"}
        self.acks = []      # ACKs sent: [ack0, ack1, ack2, ack3]
        self.board = [CODES[p] for p in START]
        self.commands_path = args.commands
        self.commands_done = 0
        self.last_shown = None
        self.last_bwtime = 0.0
        self.write_status()

    def send(self, data):
        os.write(self.master, data)

    def write_status(self):
        if not self.status_path:
            return
        left, right = self.clock.shown()
        st = {"left_ms": left * 1000, "right_ms": right * 1000, "running": self.clock.running,
              "mode": self.clock.mode, "board_mode": self.mode, "commands": self.commands, "acks": self.acks}
        tmp = self.status_path + ".new"
        with open(tmp, "w") as f:
            json.dump(st, f)
        os.replace(tmp, self.status_path)

    def clock_command(self, body):
        """body: 03 sub data... 00 (the size byte's count)."""
        if len(body) < 3 or body[0] != 0x03 or body[-1] != 0x00:
            return
        sub, data = body[1], body[2:-1]
        self.commands.append({"sub": sub, "bytes": list(body)})
        ok = True
        if sub == 0x0A:
            if len(data) != 7 or self.clock.mode != 23:
                ok = False
            else:
                self.clock.tick()
                lh, lm, ls, rh, rm, rs, flags = data
                self.clock.left_ms = (lh * 3600 + lm * 60 + ls) * 1000
                self.clock.right_ms = (rh * 3600 + rm * 60 + rs) * 1000
                if flags & 0x04:
                    self.clock.running = None
                else:
                    self.clock.running = "left" if flags & 0x01 else "right" if flags & 0x02 else None
                self.clock.toggle_on_lever = bool(flags & 0x08)
        self.write_status()
        if self.ack == "never" or self.mode not in ("update", "update_nice"):
            return
        ack = [0x10 if ok else 0x40, sub, 0, 0]
        self.acks.append(ack)
        self.send(ack_message(*ack))
        self.write_status()

    def command(self):
        """Handles the whole commands at the front of inbuf."""
        while self.inbuf:
            c = self.inbuf[0]
            if c == 0x2B:
                if len(self.inbuf) < 2 or len(self.inbuf) < 2 + self.inbuf[1]:
                    return
                size = self.inbuf[1]
                body = bytes(self.inbuf[2:2 + size])
                del self.inbuf[:2 + size]
                self.clock_command(body)
                continue
            del self.inbuf[0]
            if c == 0x40:
                self.mode = "idle"
            elif c == 0x41:
                self.clock.tick()
                self.send(self.clock.bwtime())
            elif c == 0x42:
                self.send(message(0x86, list(self.board)))
            elif c == 0x43:
                self.mode = "update"
            elif c == 0x44:
                self.mode = "update_board"
            elif c == 0x4B:
                self.mode = "update_nice"
            elif c == 0x45:
                self.send(message(0x91, list(b"27027")))
            elif c == 0x55:
                self.send(message(0xA2, list(b"3.27027027")))
            elif c == 0x47:
                self.send(message(0x92, list(b"Digital Game Technology (counterpart)")))
            elif c == 0x4D:
                self.send(message(0x93, [1, 7]))
            self.write_status()

    def hands(self):
        """The test's commands appended since the last look."""
        if not self.commands_path or not os.path.exists(self.commands_path):
            return
        lines = open(self.commands_path).read().splitlines()
        for line in lines[self.commands_done:]:
            words = line.split()
            if not words:
                continue
            if words[0] in ("lift", "place"):
                f, r = ord(words[1][0]) - ord("a"), int(words[1][1])
                sq = (8 - r) * 8 + f
                self.board[sq] = 0 if words[0] == "lift" else CODES[words[2]]
                if self.mode in ("update", "update_board", "update_nice"):
                    self.send(message(0x8E, [sq, self.board[sq]]))
            elif words[0] == "press":
                self.clock.tick()
                self.clock.lever_right_high = not self.clock.lever_right_high
                if self.clock.running and self.clock.toggle_on_lever:
                    self.clock.running = "right" if self.clock.lever_right_high else "left"
        self.commands_done = len(lines)

    def periodic(self):
        """The board reads its clock 2-3 times a second and reports as its mode says."""
        self.hands()
        self.clock.tick()
        shown = (self.clock.shown(), self.clock.running, self.clock.lever_right_high)
        now = time.monotonic()
        changed = shown != self.last_shown
        if self.mode == "update_nice" and changed or self.mode == "update" and (changed or now - self.last_bwtime >= 1):
            self.send(self.clock.bwtime())
            self.last_bwtime = now
        if changed:
            self.last_shown = shown
            self.write_status()

    def run_loop(self):
        while True:
            r, _, _ = select.select([self.master], [], [], 0.35)
            if r:
                try:
                    data = os.read(self.master, 256)
                except OSError:
                    data = b""
                self.inbuf += data
                self.command()
            self.periodic()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--link", default=None)
    ap.add_argument("--status", default=None)
    ap.add_argument("--ack", choices=["ok", "never"], default="ok")
    ap.add_argument("--mode", type=int, default=23)
    ap.add_argument("--left", type=int, default=300, help="seconds on the left display at power-up")
    ap.add_argument("--right", type=int, default=300)
    ap.add_argument("--commands", default=None, help="a file of hands' commands, read as lines are appended")
    args = ap.parse_args()
    board = Board(args)
    print(args.link or board.path, flush=True)
    try:
        board.run_loop()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
