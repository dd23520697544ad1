#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""The counterparts checked on their own, without eboardd: a plain host written from the same documents reads
them and must be able to follow every game, so that a game eboardd gets wrong is eboardd's fault, not an
unfollowable board's.

bus: the host polls SEND_CHANGES round-robin, reading each reply whole (its 14-bit length) before the next
  command, and replays the records on a board of its own; at every time record (a press) its board must be
  the game's position after that move, and the line must count no collision. A deliberately early command
  must count one.
millennium: the host sends with odd parity, writes E2ROM 02 = 3 (report on change), reads it back, asks S,
  and follows the reports: the game's positions must all appear among them in order. A command sent without
  parity must be dropped unanswered.

usage: counterparts_selftest.py SHARED_DIR   (exit 77 without the corpus)
"""
import os
import select
import subprocess
import sys
import time
import tty

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
import chess_moves  # noqa: E402

CODES = ".PRNBKQprnbkq"
FAILURES = []


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return cond


def expected_positions(pgn, game, plies):
    pos = chess_moves.Position()
    out = []
    for mv in chess_moves.moves_of(chess_moves.read_pgn_games(pgn)[game - 1], plies):
        pos.play(mv)
        out.append("".join(pos.sq[(7 - k // 8) * 8 + k % 8] for k in range(64)))
    return out


def start(args, lines):
    p = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=HERE)
    return p, [p.stdout.readline().decode().strip() for _ in range(lines)]


def read_for(fd, seconds):
    buf, end = b"", time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.005)
        if r:
            buf += os.read(fd, 4096)
    return buf


def bus_command(cmd, address):
    b = bytes([cmd, address >> 7 & 0x7F, address & 0x7F])
    return b + bytes([sum(b) & 0x7F])


def read_reply(fd, timeout):
    """One bus reply, read whole by its length, or what came before the time-out."""
    buf, end = b"", time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.005)
        if r:
            buf += os.read(fd, 4096)
        if len(buf) >= 3 and len(buf) >= ((buf[1] << 7) | buf[2]):
            return buf
    return buf


def bus(pgn):
    game, plies, boards = 3, 14, 2
    status = f"/tmp/counterparts-selftest-{os.getpid()}.json"
    p, (dev,) = start(["dgt_bus_line.py", "--pgn", pgn, "--game", str(game), "--boards", str(boards), "--plies",
                       str(plies), "--speed", "30", "--start-after", "0.5", "--status", status, "--seed", "7"], 1)
    try:
        fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        addresses = [137, 1024]
        seen = {a: ["."] * 64 for a in addresses}
        presses = {a: [] for a in addresses}
        first = {a: True for a in addresses}
        end = time.time() + 60
        while time.time() < end and not all(len(presses[a]) >= plies for a in addresses):
            for a in addresses:
                os.write(fd, bus_command(0x83, a))
                # What is checked is the reply, not its time: a machine loaded by a build beside the tests
                # (a fresh clone's .ci/run) was seen to keep the counterpart from answering within 0.5 s.
                reply = read_reply(fd, 3.0)
                if not check(len(reply) >= 6 and sum(reply[:-1]) & 0x7F == reply[-1], f"bus: a bad reply {reply.hex()}"):
                    return
                data, i = reply[5:-1], 0
                while i < len(data):
                    b = data[i]
                    if 0x40 <= b <= 0x5F:
                        seen[a][data[i + 1]] = CODES[b & 0x0F]
                        i += 2
                    elif 0x60 <= b <= 0x79 and b not in (0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F):
                        if not first[a]:
                            presses[a].append("".join(seen[a]))
                        i += 3
                    else:
                        i += 1
                first[a] = False
                time.sleep(0.05)
        for k, a in enumerate(addresses):
            want = expected_positions(pgn, game + k, plies)
            check(presses[a] == want[:len(presses[a])] and len(presses[a]) == plies,
                  f"bus: board {a}: positions at the presses differ from the game "
                  f"({len(presses[a])} presses; first differing "
                  f"{next((i for i, (x, y) in enumerate(zip(presses[a], want)) if x != y), None)})")
        # A command sent before a reply is over: one collision, and that reply cut.
        os.write(fd, bus_command(0x82, 137))
        time.sleep(0.03)
        os.write(fd, bus_command(0x83, 1024))
        time.sleep(0.3)
        read_for(fd, 0.2)
        time.sleep(1.2)
        import json
        line = json.load(open(status))["line"]
        check(line["collisions"] == 1, f"bus: {line['collisions']} collisions, 1 expected (the early command only)")
        os.close(fd)
        print(f"bus: {boards} boards x {plies} plies followed by a host written from the header; collisions "
              f"{line['collisions']} (the deliberate one)", flush=True)
    finally:
        p.terminate()
        p.wait()
        if os.path.exists(status):
            os.remove(status)


def odd(text):
    x = 0
    for ch in text:
        x ^= ord(ch)
    text += f"{x:02X}"
    return bytes(ord(c) | (0x80 if bin(ord(c)).count("1") % 2 == 0 else 0) for c in text)


def millennium(pgn):
    game, plies = 5, 14
    p, (dev,) = start(["millennium_board.py", "--pgn", pgn, "--game", str(game), "--boards", "1", "--plies",
                       str(plies), "--speed", "30", "--start-after", "0.5"], 1)
    try:
        fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        os.write(fd, b"S53")  # no parity bit: dropped
        check(read_for(fd, 0.3) == b"", "millennium: a command without odd parity was answered")
        os.write(fd, odd("R02"))
        check(bytes(b & 0x7F for b in read_for(fd, 0.3)).startswith(b"r0201"),
              "millennium: E2ROM 02 is not 01 (reports off) at power-up")
        os.write(fd, odd("W0203"))
        text = bytes(b & 0x7F for b in read_for(fd, 0.3)).decode()
        check(text.startswith("w0203"), f"millennium: W0203 answered {text!r}")
        os.write(fd, odd("S"))
        text = ""
        end = time.time() + 40
        want = expected_positions(pgn, game, plies)
        while time.time() < end:
            raw = read_for(fd, 0.5)
            check(all(bin(b).count("1") % 2 == 1 for b in raw), "millennium: a byte without odd parity")
            text += bytes(b & 0x7F for b in raw).decode()
            reports = [text[i + 1:i + 65] for i in range(len(text)) if text[i] == "s" and len(text) >= i + 67]
            j = 0
            for r in reports:
                if j < len(want) and r == want[j]:
                    j += 1
            if j == len(want):
                break
        check(j == len(want), f"millennium: {j} of {len(want)} positions of the game among the reports")
        os.close(fd)
        print(f"millennium: {plies} plies followed through reports on change", flush=True)
    finally:
        p.terminate()
        p.wait()


def formats():
    """The counterparts' frames against the documents' own examples."""
    import dgt_bus_line
    import millennium_board
    # Header: "message code 0x81 0x10 0x06 will carry checksum byte 0x17"; serial "01025" is bus address 08 01.
    check(bus_command(0x81, (0x10 << 7) | 0x06) == bytes([0x81, 0x10, 0x06, 0x17]), "bus: command checksum")
    check(dgt_bus_line.single_message(0x90, bytes([1025 >> 7, 1025 & 0x7F]))[3:] == bytes([0x08, 0x01]),
          "bus: address of serial 01025")
    # A changes reply of a board at 9999: f4 emptied, a white knight set on d3 quickly, the right clock at 3:38.
    check(dgt_bus_line.bus_message(0x85, 9999, bytes.fromhex("40 25 53 2b 60 03 38"))
          == bytes.fromhex("85000d4e0f4025532b6003386d"), "bus: changes reply framing")
    # ChessLink: the block parity of "S" is 53 ("S" = 0x53); every byte sent has odd parity.
    check(millennium_board.block("S") == "S53", "millennium: block parity")
    check(all(bin(millennium_board.odd_parity(c)).count("1") % 2 == 1 for c in range(128)), "millennium: parity")
    # DGT 3000 (hardware.md §1.4): an ACK rebuilt by the header's own formulas, high bits included (0x88 is
    # the automatic "button pressed" ACK); a BWTIME with BCD minutes and seconds, the right clock first.
    import dgt3000_board
    m = dgt3000_board.ack_message(0x88, 0x8A, 0x91, 0x35)
    p = m[3:]
    check(m[:3] == bytes([0x8D, 0x00, 0x0A]) and (p[0] & 0x0F) == 0x0A and (p[3] & 0x0F) == 0x0A,
          "dgt3000: an ACK is a BWTIME marked 0x0A")
    rebuilt = [(p[1] & 0x7F) | ((p[3] << 3) & 0x80), (p[2] & 0x7F) | ((p[3] << 2) & 0x80),
               (p[4] & 0x7F) | ((p[0] << 3) & 0x80), (p[5] & 0x7F) | ((p[0] << 2) & 0x80)]
    check(rebuilt == [0x88, 0x8A, 0x91, 0x35], f"dgt3000: the ACK rebuilt as the header says ({rebuilt})")
    clock = dgt3000_board.Clock(5400, 2710, 23)
    clock.running = "left"
    check(clock.bwtime() == bytes([0x8D, 0x00, 0x0A, 0x00, 0x45, 0x10, 0x01, 0x30, 0x00, 0x09]),
          f"dgt3000: BWTIME of 1:30:00 left (running), 0:45:10 right ({clock.bwtime().hex()})")


def main():
    pgn = os.path.join(sys.argv[1], "corpora", "pgn", "standard", "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn")
    if not os.path.isfile(pgn):
        print(f"skipped: {pgn} is absent")
        return 77
    formats()
    bus(pgn)
    millennium(pgn)
    print("counterparts_selftest:", "FAILED" if FAILURES else "passed", flush=True)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
