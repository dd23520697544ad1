#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A DGT bus line written from DGT's protocol description (the board header's "Bus communication protocol"
and "EEPROM data storage" paragraphs, as ../shared/reference/hardware.md §1.6-§1.7 restates them), not from
eboardd's code: N boards in bus mode with their DGT clocks on ONE pseudo-terminal, each playing a real game.

What each board does, as the document says:
- It scans its 64 squares one by one, a sweep taking 200-250 ms, and writes a 2-byte piece record (first byte
  0t0r nnnn: t = 1, r = less than ~250 ms since the previous piece record, n = the piece, 0 when emptied;
  second byte the square, 0 = a8) into its cyclic storage for every change it sees. When the last record is
  a piece record of the same square not yet sent, the new value overwrites it instead.
- It reads its clock 2-3 times a second; when the lever has changed it writes the halted clock's time as a
  3-byte record (0uuf hhhh, 0MMM mmmm, 0SSS ssss; f = 1 for the LEFT display: sides, not colours).
- Tags: 3 NOPs, POWERUP and a record per piece at power-up; BEGINPOS when the start position is found (again
  only after more than two pieces were out of it); EMPTYBOARD; START_TAG (SET_START_GAME) followed by a
  record per piece.
- It answers only a well-formed command (cmd, address high 7 bits, address low 7 bits, sum & 0x7F) to its
  own address (PING, END_BUSMODE and RESET also to address 0), after 3-20 ms (up to 20 ms while it stores a
  change; SET_START_GAME after about 70 ms), with [id][len hi][len lo][addr hi][addr lo][data][sum & 0x7F]:
  SEND_CHANGES (the records written since the last SEND_CHANGES), REPEAT_CHANGES (that packet again),
  SEND_FROM_START (from the START_TAG to what SEND_CHANGES has sent), BRD, CLK, VERSION, PING, IGNORE_NEXT_PING
  (answered with a ping; the next PING to address 0 is ignored), SET_START_GAME, SEND_ALL (changes, clock,
  board, back to back). A PING to address 0 is answered by every board not ignoring it, at a random moment
  within 1.1 s. A single-board command (0x40-0x55) switches every board to single-board mode, and every board
  answers it; TO_BUSMODE or any bus command switches back (that command is not processed).

The line runs at 9600 baud, 10 bit times a byte (1.04 ms): replies leave at that pace, and the host's own
bytes take that time on the wire too. A COLLISION is a host command whose bytes are on the line while a
reply is: the reply is cut where the command began and the command is lost (no board heard it cleanly).
Two replies overlapping on the line (pings to address 0) are OR-ed together, as pull-up outputs on a
shared line would, and counted apart.

A board hears a command as its bytes cross the wire and answers 3-20 ms later. This process stands in for
the boards' own processors, so it asks for a real-time priority (SCHED_FIFO, when the host allows it): on a
loaded host it was otherwise seen to read a command 68 ms after eboardd wrote it, unaware, and to answer
that late, which the document's boards never do. It prints which priority it got.

The clock: White's clock stands on the left or the right (per board, from the seed); it counts down in real
time from the game's TimeControl with its increment, starts when play starts (White's clock running), and
its status byte has D1 = right side high. The turn bits D3/D4 are the document's unsettled point (the header
says D3 = right player's turn; real boards' captures show D3 with the left clock running): `--turn-bits`
chooses `captures` (default), `header` or `none`.

Two choices keep every game followable from the records alone (counterparts_selftest.py checks it): a press
comes at least one sweep (260 ms) after the last piece is set down, and the reply begins at least --min-think
(0.6 s) after the press, longer than the board takes to read the clock (at most 0.5 s), so each move's
records come before its time record, and its time record before the next move's.

usage: dgt_bus_line.py --pgn FILE --game G --boards N [--addresses A,B,..] [--plies P] [--speed S]
       [--link PATH] [--status FILE] [--seed N]
Prints the device path (or --link) on its first line, then runs until SIGTERM or SIGINT; --status is
rewritten every second with what happened (JSON: collisions, commands, each board's progress).
"""
import argparse
import fcntl
import heapq
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

BYTE_S = 10 / 9600.0
# A USB serial adapter hands received bytes to the host up to its latency timer late (FTDI: 16 ms by default):
# the most a real line delays a reply. A collision over a reply this emulator handed over later than that (a
# starved machine) is the emulator's, counted apart; one over a reply on time is the host's.
ADAPTER_LATENCY_MS = 16
READ_IN_ONE_BATCH_MS = 1000.0  # the lateness given a reply whose command was read together with the next one

PIECE_CODE = {".": 0, "P": 1, "R": 2, "N": 3, "B": 4, "K": 5, "Q": 6, "p": 7, "r": 8, "n": 9, "b": 10, "k": 11,
              "q": 12}

# Bus commands (host to boards) and the boards' reply ids.
CMD_CLK, CMD_BRD, CMD_CHANGES, CMD_REPEAT, CMD_START_GAME, CMD_FROM_START = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86
CMD_PING, CMD_END_BUS, CMD_RESET, CMD_IGNORE_PING, CMD_VERSION, CMD_BRD50, CMD_SEND_ALL = (
    0x87, 0x88, 0x89, 0x8A, 0x8B, 0x8C, 0x8D)
COMMAND_NAMES = {CMD_CLK: "CLK", CMD_BRD: "BRD", CMD_CHANGES: "SEND_CHANGES", CMD_REPEAT: "REPEAT_CHANGES",
                 CMD_START_GAME: "SET_START_GAME", CMD_FROM_START: "SEND_FROM_START", CMD_PING: "PING",
                 CMD_END_BUS: "END_BUSMODE", CMD_RESET: "RESET", CMD_IGNORE_PING: "IGNORE_NEXT_PING",
                 CMD_VERSION: "VERSION", CMD_BRD50: "BRD_50B", CMD_SEND_ALL: "SEND_ALL"}
MSG_BRD, MSG_CLK, MSG_UPDATE, MSG_FROM_START, MSG_PING, MSG_START_WRITTEN, MSG_VERSION = (
    0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89)

# Storage tags (one byte).
EE_POWERUP, EE_EMPTYBOARD, EE_BEGINPOS, EE_START_TAG, EE_NOP = 0x6A, 0x6D, 0x6F, 0x7B, 0x7F

BUS_VERSION = (1, 4)  # a bus version message of 8 bytes (the header: 6 up to version 1.2)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}] dgt_bus_line:", *a, file=sys.stderr, flush=True)


# With EBOARD_BUS_LINE_TRACE=FILE in the environment, what the line read from the host (`host>`, with how late
# it may have been read) and each reply it put on the line (`reply>`, the time of its first byte's slot) are
# appended to FILE, one line each: steady-clock microseconds (CLOCK_MONOTONIC, eboardd's EBOARDD_BUS_TRACE
# clock), what, hex bytes. Beside eboardd's trace it tells how long a command took to reach the line.
_TRACE = open(os.environ["EBOARD_BUS_LINE_TRACE"], "a") if os.environ.get("EBOARD_BUS_LINE_TRACE") else None


def trace(what, data=b"", at=None):
    if _TRACE:
        us = int((time.monotonic() if at is None else at) * 1e6)
        _TRACE.write(f"{us} {what} {data.hex(' ')}\n")
        _TRACE.flush()


def bus_message(msg_id, address, data=b""):
    """[id][len hi][len lo][addr hi][addr lo][data][checksum]; the length counts every byte, checksum included."""
    n = 6 + len(data)
    body = bytes([msg_id, (n >> 7) & 0x7F, n & 0x7F, (address >> 7) & 0x7F, address & 0x7F]) + bytes(data)
    return body + bytes([sum(body) & 0x7F])


def single_message(msg_id, data=b""):
    n = 3 + len(data)
    return bytes([msg_id, (n >> 7) & 0x7F, n & 0x7F]) + bytes(data)


def bcd(v):
    return ((v // 10) << 4) | (v % 10)


def hms(seconds):
    s = max(0, int(seconds))
    return s // 3600, (s // 60) % 60, s % 60


class Clock:
    """A DGT clock beside one board: times in seconds, which side's lever is down, White left or right."""

    def __init__(self, base, inc, white_right):
        self.base, self.inc, self.white_right = float(base), float(inc), white_right

    def state(self, script, start, t):
        """(white s, black s, running, white to move) at wall time t, from the script's presses."""
        white, black = self.base, self.base
        if start is None or t < start:
            return white, black, False, True
        white_to_move, since = True, start
        for tp, pressed_white in script.presses:
            at = start + tp
            if at > t:
                break
            if pressed_white == white_to_move:
                if white_to_move:
                    white -= at - since
                    white += self.inc
                else:
                    black -= at - since
                    black += self.inc
                white_to_move, since = not white_to_move, at
        if white_to_move:
            white -= t - since
        else:
            black -= t - since
        return max(0.0, white), max(0.0, black), True, white_to_move

    def lr(self, white, black):
        """(left seconds, right seconds)."""
        return (black, white) if self.white_right else (white, black)


class Board:
    """One DGT board in bus mode with its clock, playing one game."""

    def __init__(self, address, game_no, moves, script, clock, rng, turn_bits):
        self.address = address
        self.game_no = game_no
        self.moves = moves
        self.script = script
        self.clock = clock
        self.rng = rng
        self.turn_bits = turn_bits
        self.start = None  # wall time play starts
        self.first_heard = None
        self.bus_mode = True
        self.ignore_next_ping = False
        self.silent_until = 0.0
        self.storage = []  # records: {"t", "b": bytes, "kind", "sq"}
        self.pointer = 0  # first record SEND_CHANGES has not sent
        self.last_packet = b""
        self.last_piece_t = None
        self.last_write_t = -1.0
        self.seen = [None] * 64  # what the scan last saw, row-major (0 = a8)
        self.tag_armed = False
        self.out_of_start = 0
        self.scan_t = 0.0
        self.scan_period = 0.22
        self.scan_k = 0
        self.clock_t = 0.0
        self.clock_lever = None  # white to move, at the last clock read
        self.clock_reading = None  # (white, black, running, white to move) at the last read
        self.stats = {"commands": {}, "replies": 0, "replies_cut": 0, "replies_cut_emulator_late": 0, "records": 0,
                      "overwrites": 0,
                      "time_records": 0, "changes_bytes": 0}

    # -- the physical board and its scan -------------------------------------------------------------------
    def physical(self, k, t):
        """What stands on row-major square k at wall time t."""
        sq = (7 - k // 8) * 8 + k % 8
        if self.start is None or t < self.start:
            return chess_moves.START[sq]
        return self.script.at(sq, t - self.start)

    def power_up(self, t):
        self.storage += [self._rec(t, bytes([EE_NOP]), "tag")] * 3 + [self._rec(t, bytes([EE_POWERUP]), "tag")]
        order = list(range(64))
        self.rng.shuffle(order)  # "in virtually random sequence"
        for k in order:
            self.seen[k] = self.physical(k, t)
        for k in order:
            if self.seen[k] != ".":
                self._piece_record(t, k, self.seen[k], overwrite=False)
        self.tag_armed = True
        self._tags(t)
        self.scan_t, self.scan_k = t, 0
        self.scan_period = self.rng.uniform(0.2, 0.25)
        self.clock_t = t + self.rng.uniform(0.0, 0.4)

    def _rec(self, t, b, kind, sq=None):
        return {"t": t, "b": b, "kind": kind, "sq": sq}

    def _piece_record(self, t, k, value, overwrite=True):
        quick = self.last_piece_t is not None and t - self.last_piece_t < 0.25
        b = bytes([0x40 | (0x10 if quick else 0) | PIECE_CODE[value], k])
        self.last_piece_t = t
        self.last_write_t = t
        last = self.storage[-1] if self.storage else None
        if overwrite and last and last["kind"] == "piece" and last["sq"] == k and len(self.storage) - 1 >= self.pointer:
            last["b"], last["t"] = b, t
            self.stats["overwrites"] += 1
            return
        self.storage.append(self._rec(t, b, "piece", k))
        self.stats["records"] += 1

    def _tags(self, t):
        """BEGINPOS / EMPTYBOARD with the document's hysteresis: written again only after more than two
        pieces were out of the tagged situation."""
        start_rm = [chess_moves.START[(7 - k // 8) * 8 + k % 8] for k in range(64)]
        off_start = sum(1 for k in range(64) if self.seen[k] != start_rm[k])
        if off_start > 2:
            self.tag_armed = True
        if self.tag_armed and off_start == 0:
            self.storage.append(self._rec(t, bytes([EE_BEGINPOS]), "tag"))
            self.tag_armed = False
        elif self.tag_armed and all(v == "." for v in self.seen):
            self.storage.append(self._rec(t, bytes([EE_EMPTYBOARD]), "tag"))
            self.tag_armed = False

    def advance(self, now):
        """Runs the scan and the clock reads up to wall time `now`, writing records in time order."""
        if now < self.silent_until:
            return
        while True:
            sample_t = self.scan_t + self.scan_k * self.scan_period / 64
            if min(sample_t, self.clock_t) > now:
                return
            if self.clock_t <= sample_t:
                self._read_clock(self.clock_t)
                self.clock_t += self.rng.uniform(0.33, 0.5)  # 2-3 reads a second
                continue
            k = self.scan_k
            value = self.physical(k, sample_t)
            if value != self.seen[k]:
                self.seen[k] = value
                self._piece_record(sample_t, k, value)
                self._tags(sample_t)
            self.scan_k += 1
            if self.scan_k == 64:
                self.scan_k = 0
                self.scan_t += self.scan_period
                self.scan_period = self.rng.uniform(0.2, 0.25)

    def _read_clock(self, t):
        reading = self.clock.state(self.script, self.start, t)
        lever = reading[3]
        if self.clock_lever is not None and lever != self.clock_lever and reading[2]:
            # The lever changed: the halted clock is the side that just pressed (its lever is down now).
            halted_white = not lever
            secs = reading[0] if halted_white else reading[1]
            left = self.clock.white_right != halted_white  # White on the right: Black's display is the left one
            h, m, s = hms(secs)
            self.storage.append(self._rec(t, bytes([0x60 | (0x10 if left else 0) | min(h, 9), bcd(m), bcd(s)]),
                                          "time"))
            self.last_write_t = t
            self.stats["time_records"] += 1
        self.clock_lever = lever
        self.clock_reading = reading

    # -- messages --------------------------------------------------------------------------------------------
    def dump(self):
        return bytes(PIECE_CODE[v] for v in self.seen)

    def bwtime(self):
        white, black, running, white_to_move = self.clock_reading or (self.clock.base, self.clock.base, False, True)
        left, right = self.clock.lr(white, black)
        lh, lm, ls = hms(left)
        rh, rm, rs = hms(right)
        right_runs = white_to_move == self.clock.white_right
        status = (0x01 if running else 0) | (0x02 if right_runs else 0)
        if running and self.turn_bits == "header":
            status |= 0x08 if right_runs else 0x10
        elif running and self.turn_bits == "captures":
            status |= 0x10 if right_runs else 0x08
        return bytes([rh & 0x0F, bcd(rm), bcd(rs), lh & 0x0F, bcd(lm), bcd(ls), status])

    def changes(self, t):
        data = b"".join(r["b"] for r in self.storage[self.pointer:])
        self.pointer = len(self.storage)
        self.last_packet = bus_message(MSG_UPDATE, self.address, data)
        self.stats["changes_bytes"] += len(data)
        return self.last_packet

    def from_start(self):
        begin = 0
        for i in range(self.pointer - 1, -1, -1):
            if self.storage[i]["b"] == bytes([EE_START_TAG]):
                begin = i
                break
        return bus_message(MSG_FROM_START, self.address, b"".join(r["b"] for r in self.storage[begin:self.pointer]))

    def set_start_game(self, t):
        self.storage.append(self._rec(t, bytes([EE_START_TAG]), "tag"))
        for k in range(64):
            if self.seen[k] != ".":
                self._piece_record(t, k, self.seen[k], overwrite=False)

    def latency(self, now):
        """3-8 ms, or up to 20 ms right after a record was stored."""
        return self.rng.uniform(0.010, 0.020) if now - self.last_write_t < 0.05 else self.rng.uniform(0.003, 0.008)

    def progress(self, now):
        """(plies played on the wood by now, whether the whole game is played)."""
        if self.start is None:
            return 0, False
        done = sum(1 for t in self.script.ply_end if self.start + t <= now)
        return done, done == len(self.script.ply_end)


class Reply:
    def __init__(self, board, data, what):
        self.board, self.data, self.what = board, data, what
        self.first_slot = None
        self.cut_at = None  # slot from which its bytes were not sent
        self.garbled = False
        self.delivered = 0  # slots up to this one (excluded) were handed to the host
        self.late_ms = 0.0  # the most any of its bytes reached the host after its slot


class Line:
    """The pty and the shared 9600-baud line: paced replies, the host's commands, collisions."""

    def __init__(self, boards, link, rng):
        self.boards = {b.address: b for b in boards}
        self.rng = rng
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        attrs = termios.tcgetattr(self.slave)
        attrs[4] = attrs[5] = termios.B9600
        termios.tcsetattr(self.slave, termios.TCSANOW, attrs)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.link = link
        if link:
            if os.path.lexists(link):
                os.remove(link)
            os.symlink(self.path, link)
        self.t0 = time.monotonic()
        self.next_slot = 0  # the next byte slot to put on the line
        self.slots = {}  # slot -> [(reply, byte)]
        self.heap = []  # slots scheduled
        self.replies = []  # replies with bytes still to send
        self.host_free = 0.0  # when the host's bytes on the line end
        self.frame = []
        self.frame_start = None
        self.stats = {"host_bytes": 0, "commands": 0, "malformed": 0, "collisions": 0, "collision_log": [],
                      "collisions_emulator_late": 0, "adapter_latency_ms": ADAPTER_LATENCY_MS,
                      "reply_overlaps": 0, "single_board_commands": 0, "not_for_any_board": 0,
                      "gaps_ms": [], "late_ms_max": 0.0, "bytes_out": 0, "bytes_late_10ms": 0}
        self.last_reply_end = None
        self.read_late_ms = 0.0  # how late the command being handled may have been read
        self.batch_commands, self.batch_replies = 0, []  # of the read being handled

    def slot_time(self, slot):
        return self.t0 + slot * BYTE_S

    # -- board to host ----------------------------------------------------------------------------------------
    def send(self, reply, at):
        first = max(self.next_slot, int((at - self.t0) / BYTE_S + 0.999))
        reply.first_slot = first
        trace(f"reply> {reply.board.address} {reply.what}", bytes(reply.data[:5]), self.slot_time(first))
        reply.late_ms = max(reply.late_ms, self.read_late_ms)
        self.batch_replies.append(reply)
        overlap = False
        for i, byte in enumerate(reply.data):
            slot = first + i
            if slot in self.slots and any(r.cut_at is None or slot < r.cut_at for r, _ in self.slots[slot]):
                overlap = True
                for r, _ in self.slots[slot]:
                    r.garbled = True
            self.slots.setdefault(slot, []).append((reply, byte))
            heapq.heappush(self.heap, slot)
        if overlap:
            reply.garbled = True
            self.stats["reply_overlaps"] += 1
        self.replies.append(reply)
        reply.board.stats["replies"] += 1

    def pump(self, now):
        """Hands the host every byte whose slot has passed: a UART delivers a byte once its stop bit is in."""
        out = bytearray()
        now_slot = int((now - self.t0) / BYTE_S)
        while self.heap and self.heap[0] < now_slot:
            slot = heapq.heappop(self.heap)
            entries = self.slots.pop(slot, None)
            if entries is None:
                continue
            value, any_sent = 0, False
            late = (now - self.slot_time(slot + 1)) * 1000
            for r, byte in entries:
                if r.cut_at is None or slot < r.cut_at:
                    value |= byte
                    any_sent = True
                    r.delivered = max(r.delivered, slot + 1)
                    r.late_ms = max(r.late_ms, late)
            if any_sent:
                out.append(value)
                self.stats["bytes_out"] += 1
            self.next_slot = max(self.next_slot, slot + 1)
            self.stats["late_ms_max"] = max(self.stats["late_ms_max"], late)
            if late > 10:
                self.stats["bytes_late_10ms"] += 1
        self.next_slot = max(self.next_slot, now_slot)
        if out:
            try:
                os.write(self.master, bytes(out))
            except BlockingIOError:
                pass  # nobody reads: bytes on a line nobody listens to are lost
        self.replies = [r for r in self.replies if self.end_slot(r) > now_slot]

    def end_slot(self, r):
        return r.first_slot + len(r.data) if r.cut_at is None else min(r.cut_at, r.first_slot + len(r.data))

    def next_due(self):
        return self.slot_time(self.heap[0] + 1) if self.heap else None

    # -- host to boards ---------------------------------------------------------------------------------------
    def receive(self, data, now, read_late_ms=0.0):
        """The host's bytes, read at `now`, up to `read_late_ms` after they came (a starved emulator): the
        replies they ask for start that much late, which counts as the emulator's lateness."""
        self.read_late_ms = read_late_ms
        self.batch_commands, self.batch_replies = 0, []
        trace(f"host> late {read_late_ms:.1f}", data, now)
        for byte in data:
            start = max(now, self.host_free)
            self.host_free = start + BYTE_S
            self.stats["host_bytes"] += 1
            if byte & 0x80:
                if self.frame:
                    self.stats["malformed"] += 1
                self.frame, self.frame_start = [byte], start
                continue
            if self.frame:
                self.frame.append(byte)
                if len(self.frame) == 4:
                    frame, self.frame = self.frame, []
                    if self.batch_commands:
                        # Two commands in one read: the host writes one per exchange, so the earlier one waited
                        # here (the emulator read it late) and the replies it asked for started late.
                        for r in self.batch_replies:
                            r.late_ms = max(r.late_ms, READ_IN_ONE_BATCH_MS)
                    self.batch_commands += 1
                    self.command(frame, self.frame_start, self.host_free)
                continue
            if 0x40 <= byte <= 0x55:
                self.single_command(byte, start, self.host_free)

    def collides(self, begin, end, what):
        """A host command on the line from `begin` to `end`: cuts every reply on the line meanwhile."""
        hit = False
        for r in self.replies:
            r_begin = self.slot_time(r.first_slot)
            r_end = self.slot_time(self.end_slot(r))
            if r_begin < end and r_end > begin:
                cut = max(r.first_slot, int((begin - self.t0) / BYTE_S))
                sent = cut - r.first_slot
                r.cut_at = cut
                r.board.stats["replies_cut"] += 1
                hit = True
                self.stats["collisions"] += 1
                # How late this reply reached the host before the command: a byte whose slot had passed and
                # that was still not handed over counts from its slot's end to the command.
                late = r.late_ms
                if r.delivered < cut:
                    late = max(late, (begin - self.slot_time(max(r.delivered, r.first_slot) + 1)) * 1000)
                if late > ADAPTER_LATENCY_MS:
                    self.stats["collisions_emulator_late"] += 1
                    r.board.stats["replies_cut_emulator_late"] += 1
                if len(self.stats["collision_log"]) < 50:
                    self.stats["collision_log"].append({
                        "t": round(begin - self.t0, 3), "command": what, "reply_of": r.board.address,
                        "reply": r.what, "reply_bytes": len(r.data), "bytes_sent_before": sent,
                        "ms_early": round((r_end - begin) * 1000, 1), "reply_late_ms": round(late, 1)})
                log(f"COLLISION: {what} sent while board {r.board.address}'s {r.what} reply was on the line "
                    f"({sent} of {len(r.data)} bytes out, {round((r_end - begin) * 1000, 1)} ms too early)")
        return hit

    def command(self, frame, begin, end):
        cmd, hi, lo, check = frame
        name = COMMAND_NAMES.get(cmd, f"0x{cmd:02x}")
        address = (hi << 7) | lo
        if (cmd + hi + lo) & 0x7F != check:
            self.stats["malformed"] += 1
            return
        self.stats["commands"] += 1
        if self.last_reply_end is not None:
            self.stats["gaps_ms"].append(round((begin - self.last_reply_end) * 1000, 2))
        if self.collides(begin, end, f"{name} to {address}"):
            return
        if address == 0 and cmd in (CMD_PING, CMD_END_BUS, CMD_RESET):
            targets = list(self.boards.values())
        elif address in self.boards:
            targets = [self.boards[address]]
        else:
            self.stats["not_for_any_board"] += 1
            return
        for b in targets:
            b.advance(end)
            if end < b.silent_until:
                continue
            if b.first_heard is None:
                b.first_heard = end
            b.stats["commands"][name] = b.stats["commands"].get(name, 0) + 1
            if not b.bus_mode:
                b.bus_mode = True  # a bus command switches back; that command is not processed
                continue
            self.board_command(b, cmd, address, end)

    def board_command(self, b, cmd, address, now):
        at = now + b.latency(now)
        reply = None
        if cmd == CMD_CHANGES:
            reply = Reply(b, b.changes(now), "changes")
        elif cmd == CMD_REPEAT:
            reply = Reply(b, b.last_packet or bus_message(MSG_UPDATE, b.address), "repeat-changes")
        elif cmd == CMD_FROM_START:
            reply = Reply(b, b.from_start(), "from-start")
        elif cmd == CMD_BRD:
            reply = Reply(b, bus_message(MSG_BRD, b.address, b.dump()), "board")
        elif cmd == CMD_CLK:
            reply = Reply(b, bus_message(MSG_CLK, b.address, b.bwtime()), "clock")
        elif cmd == CMD_VERSION:
            reply = Reply(b, bus_message(MSG_VERSION, b.address, bytes(BUS_VERSION)), "version")
        elif cmd == CMD_PING:
            if address == 0:
                if b.ignore_next_ping:
                    b.ignore_next_ping = False
                    return
                at = now + self.rng.uniform(0.0, 1.1)
            reply = Reply(b, bus_message(MSG_PING, b.address), "ping")
        elif cmd == CMD_IGNORE_PING:
            b.ignore_next_ping = True
            reply = Reply(b, bus_message(MSG_PING, b.address), "ping")
        elif cmd == CMD_START_GAME:
            b.set_start_game(now)
            at = now + self.rng.uniform(0.065, 0.075)
            reply = Reply(b, bus_message(MSG_START_WRITTEN, b.address), "start-game-written")
        elif cmd == CMD_SEND_ALL:
            data = b.changes(now) + bus_message(MSG_CLK, b.address, b.bwtime()) + bus_message(MSG_BRD, b.address,
                                                                                               b.dump())
            reply = Reply(b, data, "send-all")
        elif cmd == CMD_END_BUS:
            b.bus_mode = False
        elif cmd == CMD_RESET:
            b.silent_until = now + 2.5
            b.power_up(now + 2.5)
        if reply is not None:
            self.send(reply, at)
            self.last_reply_end = self.slot_time(reply.first_slot + len(reply.data))

    def single_command(self, byte, begin, end):
        """A single-board command on a bus line: every board hears it, switches to single-board mode and
        answers it (the header); on a shared line their answers overlap."""
        self.stats["single_board_commands"] += 1
        if self.collides(begin, end, f"single-board 0x{byte:02x}"):
            return
        for b in self.boards.values():
            b.advance(end)
            if byte == 0x4A:
                b.bus_mode = True
                continue
            b.bus_mode = False
            serial = f"{b.address:05d}"
            data = {0x41: single_message(0x8D, b.bwtime()), 0x42: single_message(0x86, b.dump()),
                    0x45: single_message(0x91, serial.encode()),
                    0x46: single_message(0x90, bytes([(b.address >> 7) & 0x7F, b.address & 0x7F])),
                    0x47: single_message(0x92, b"Digital Game Technology (counterpart)"),
                    0x4D: single_message(0x93, bytes(BUS_VERSION)),
                    0x55: single_message(0xA2, ("00000" + serial).encode())}.get(byte)
            if data:
                self.send(Reply(b, data, f"single 0x{byte:02x}"), end + b.latency(end))

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.link and os.path.islink(self.link):
            os.remove(self.link)


def hear_commands_on_time():
    """A low real-time priority, so that the line is not descheduled behind the host's other work (it sleeps
    between bytes, so it takes little of a core). Returns what it got, for the log."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(5))
        return "real-time priority (SCHED_FIFO 5): commands are heard as they come"
    except (AttributeError, OSError) as e:
        return (f"normal priority ({e}): on a loaded host a command may be read late, and its reply then "
                f"starts late")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pgn", required=True)
    ap.add_argument("--game", type=int, default=1, help="board k plays game G+k (from 1)")
    ap.add_argument("--boards", type=int, default=8)
    ap.add_argument("--addresses", default="", help="comma-separated bus addresses (default: spread over "
                                                    "137..16383)")
    ap.add_argument("--plies", type=int, default=40, help="plies of each game (0: all)")
    ap.add_argument("--speed", type=float, default=8.0, help="thinking times: the [%%clk] ones divided by this")
    ap.add_argument("--min-think", type=float, default=0.6)
    ap.add_argument("--max-think", type=float, default=4.0)
    ap.add_argument("--adjust", type=float, default=0.1, help="share of moves whose piece is straightened")
    ap.add_argument("--start-after", type=float, default=3.0,
                    help="play starts this long after the host first addressed the board")
    ap.add_argument("--start-anyway", type=float, default=30.0,
                    help="or this long after start-up when the host never addressed it")
    ap.add_argument("--turn-bits", choices=["captures", "header", "none"], default="captures")
    ap.add_argument("--link", default="")
    ap.add_argument("--status", default="")
    ap.add_argument("--seed", type=int, default=None)
    return ap.parse_args()


def default_addresses(n):
    spread = [137, 1024, 4095, 8192, 9999, 12345, 16256, 16383]
    if n <= len(spread):
        return spread[:n]
    step = (16383 - 137) // (n - 1)
    return [137 + i * step for i in range(n)]


def main():
    a = parse_args()
    seed = a.seed if a.seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    addresses = [int(x) for x in a.addresses.split(",")] if a.addresses else default_addresses(a.boards)
    if len(addresses) != a.boards or len(set(addresses)) != a.boards or not all(0 < x < 16384 for x in addresses):
        sys.exit("dgt_bus_line: --addresses must name --boards distinct addresses 1..16383")
    games = [g for g in chess_moves.read_pgn_games(a.pgn) if g["san"]]  # a game without moves plays nothing
    boards = []
    for k, address in enumerate(addresses):
        game = games[(a.game - 1 + k) % len(games)]
        plies = a.plies or len(game["san"])
        moves = chess_moves.moves_of(game, plies)
        brng = random.Random(rng.random())
        script = hands.game_script(moves, chess_moves.think_times(game, plies), brng, a.speed, a.min_think,
                                   a.max_think, clock=True, adjust=a.adjust)
        base, inc = chess_moves.time_control(game["tags"])
        clock = Clock(base, inc, white_right=brng.random() < 0.5)
        boards.append(Board(address, (a.game - 1 + k) % len(games) + 1, moves, script, clock, brng, a.turn_bits))
    line = Line(boards, a.link, rng)
    log(hear_commands_on_time())
    now = time.monotonic()
    for b in boards:
        b.power_up(now)
    print(a.link or line.path, flush=True)
    log(f"seed {seed}; {len(boards)} boards at {', '.join(map(str, addresses))} on {line.path}, 9600 baud paced")
    for b in boards:
        log(f"board {b.address}: game {b.game_no}, {len(b.moves)} plies over {b.script.length:.0f} s, "
            f"White's clock on the {'right' if b.clock.white_right else 'left'}")

    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    started_at = now
    next_status = now
    while not stop:
        now = time.monotonic()
        woke = now  # this turn's work begins: bytes waiting at the next select may have waited since
        for b in boards:
            if b.start is None and ((b.first_heard is not None and now >= b.first_heard + a.start_after)
                                    or now >= started_at + a.start_anyway):
                b.advance(now)
                b.start = now
                b.clock_reading = b.clock.state(b.script, b.start, now)
                b.clock_lever = b.clock_reading[3]
                log(f"board {b.address}: play starts")
            b.advance(now)
        line.pump(now)
        if a.status and now >= next_status:
            write_status(a.status, line, boards, now, seed)
            next_status = now + 1.0
        due = line.next_due()
        timeout = 0.05 if due is None else max(0.0, min(0.05, due - now))
        try:
            waiting = int.from_bytes(fcntl.ioctl(line.master, termios.FIONREAD, b"\0\0\0\0"), "little")
        except OSError:
            waiting = 0
        try:
            r, _, _ = select.select([line.master], [], [], timeout)
        except InterruptedError:
            continue
        if r:
            try:
                data = os.read(line.master, 4096)
            except (BlockingIOError, OSError):
                data = b""
            if data:
                read_at = time.monotonic()
                # Bytes already waiting before the select came during this turn's work: read up to that late.
                line.receive(data, read_at, (read_at - woke) * 1000 if waiting else 0.0)
    if a.status:
        write_status(a.status, line, boards, time.monotonic(), seed)
    line.close()
    log(f"stopped: {line.stats['commands']} commands, {line.stats['collisions']} collisions")


def write_status(path, line, boards, now, seed):
    gaps = sorted(line.stats["gaps_ms"])
    out = {"seed": seed, "line": {k: v for k, v in line.stats.items() if k != "gaps_ms"}, "boards": []}
    if gaps:
        out["line"]["command_after_last_reply_end_ms"] = {
            "n": len(gaps), "min": gaps[0], "p50": gaps[len(gaps) // 2], "max": gaps[-1]}
    for b in boards:
        played, finished = b.progress(now)
        out["boards"].append({
            "address": b.address, "game": b.game_no, "plies": len(b.moves), "played": played, "finished": finished,
            "started": b.start is not None,
            "last_ply_end_ago_s": round(now - (b.start + b.script.ply_end[-1]), 1)
            if finished and b.script.ply_end else None,
            "san": [m["san"] for m in b.moves], "white_clock": "right" if b.clock.white_right else "left",
            **b.stats})
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
