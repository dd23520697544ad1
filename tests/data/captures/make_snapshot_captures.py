#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""Writes millennium_link.cap and chessnut_link.cap: one short game on a snapshot board, its frames written
from the makers' descriptions (../shared/reference/hardware.md §2 and §3), not by the project's emulators:
the start, then for each move the from-square emptied and the position after it; the link lost and back
between two moves. Their golden event streams (.jsonl beside them) are `eboardctl replay`'s output, checked
by tests/daemon/eboardctl_replay_golden.sh. Run from this folder to write them again."""
import sys

MOVES = [("e2", "e4"), ("e7", "e5"), ("g1", "f3"), ("b8", "c6"), ("f1", "c4"), ("g8", "f6"), ("d2", "d3"),
         ("f8", "c5"), ("e1", "g1"), ("e8", "g8")]
CASTLE_ROOK = {("e1", "g1"): ("h1", "f1"), ("e8", "g8"): ("h8", "f8")}


def sq(name):
    return (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])


def start():
    b = ["."] * 64
    for f, p in enumerate("RNBQKBNR"):
        b[f], b[8 + f], b[48 + f], b[56 + f] = p, "P", "p", p.lower()
    return b


def millennium(board):
    """`s` + a8..h8, a7..h1 + XOR as two upper-case hex digits; odd parity in bit 7 (7O1 read 8N1)."""
    text = "s" + "".join(board[r * 8 + f] for r in range(7, -1, -1) for f in range(8))
    x = 0
    for c in text:
        x ^= ord(c)
    text += "%02X" % x
    out = []
    for c in text:
        v = ord(c) & 0x7F
        out.append(v | (0x80 if bin(v).count("1") % 2 == 0 else 0))
    return out


def chessnut(board):
    """`01 24` + squares h8..a8, h7..a1, two a byte, low nibble first + the rest the length 0x24 counts."""
    codes = ".qkbpnRPrBNQK"
    nibbles = [codes.index(board[r * 8 + f]) for r in range(7, -1, -1) for f in range(7, -1, -1)]
    out = [0x01, 0x24] + [nibbles[i] | (nibbles[i + 1] << 4) for i in range(0, 64, 2)]
    return out + [0] * (2 + 0x24 - len(out))


def write(path, protocol, frame):
    lines = ["# eboard-capture 1", "# protocol: " + protocol, "# board: A",
             "# note: written from the maker's description by make_snapshot_captures.py"]
    b, t = start(), 0
    lines.append("%d ! online" % t)
    t += 100
    lines.append("%d < %s" % (t, " ".join("%02x" % v for v in frame(b))))
    for ply, (a, z) in enumerate(MOVES, 1):
        lifted = list(b)
        lifted[sq(a)] = "."
        t += 3000
        lines.append("%d < %s" % (t, " ".join("%02x" % v for v in frame(lifted))))
        b[sq(z)], b[sq(a)] = b[sq(a)], "."
        if (a, z) in CASTLE_ROOK:
            ra, rz = CASTLE_ROOK[(a, z)]
            b[sq(rz)], b[sq(ra)] = b[sq(ra)], "."
        t += 400
        lines.append("%d < %s" % (t, " ".join("%02x" % v for v in frame(b))))
        if ply == 4:
            t += 2500
            lines.append("%d ! offline" % t)
            t += 1000
            lines.append("%d ! online" % t)
            t += 50
            lines.append("%d < %s" % (t, " ".join("%02x" % v for v in frame(b))))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write("millennium_link.cap", "millennium", millennium)
    write("chessnut_link.cap", "chessnut", chessnut)
    sys.exit(0)
