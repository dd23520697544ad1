# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""What the counterpart boards need of chess, written for them alone (standard library only, and nothing of
eboardd's own code): reading a PGN file's games with their [%clk] comments, and turning each SAN move into the
squares a hand empties and fills (captures, castling, en passant and promotion included).

Squares are numbered 0 = a1 .. 63 = h8 here; `row_major(sq)` gives the numbering both makers' boards use
(0 = a8, 1 = b8, .., 63 = h1). Pieces are letters: KQRBNP white, kqrbnp black.
"""
import re

START = "RNBQKBNR" + "P" * 8 + "." * 32 + "p" * 8 + "rnbqkbnr"
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
KING = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]


def sq_name(sq):
    return "abcdefgh"[sq % 8] + str(sq // 8 + 1)


def parse_sq(name):
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def row_major(sq):
    """The makers' square number: a8 = 0, h8 = 7, a7 = 8, .., h1 = 63."""
    return (7 - sq // 8) * 8 + sq % 8


def is_white(piece):
    return piece.isupper()


class Position:
    """Pieces on squares, the side to move and the en-passant square: enough to resolve SAN in real games."""

    def __init__(self):
        self.sq = list(START)
        self.white = True
        self.ep = None

    def copy(self):
        p = Position()
        p.sq, p.white, p.ep = list(self.sq), self.white, self.ep
        return p

    def _step(self, sq, df, dr):
        f, r = sq % 8 + df, sq // 8 + dr
        return f + 8 * r if 0 <= f < 8 and 0 <= r < 8 else None

    def reaches(self, frm, to):
        """Whether the piece on `frm` attacks or moves to `to` (pawns: captures only), blockers considered."""
        piece = self.sq[frm].upper()
        if piece == "N":
            return any(self._step(frm, df, dr) == to for df, dr in KNIGHT)
        if piece == "K":
            return any(self._step(frm, df, dr) == to for df, dr in KING)
        if piece == "P":
            dr = 1 if is_white(self.sq[frm]) else -1
            return to in (self._step(frm, -1, dr), self._step(frm, 1, dr))
        dirs = {"R": ROOK_DIRS, "B": BISHOP_DIRS, "Q": ROOK_DIRS + BISHOP_DIRS}[piece]
        for df, dr in dirs:
            s = self._step(frm, df, dr)
            while s is not None:
                if s == to:
                    return True
                if self.sq[s] != ".":
                    break
                s = self._step(s, df, dr)
        return False

    def attacked(self, target, by_white):
        return any(p != "." and is_white(p) == by_white and self.reaches(s, target)
                   for s, p in enumerate(self.sq))

    def in_check(self, white):
        king = self.sq.index("K" if white else "k")
        return self.attacked(king, not white)

    def move_from_san(self, san):
        """The move SAN names in this position: a dict with from, to, piece, captured (square or None),
        promotion (letter or None), rook (from, to) for castling. Raises ValueError if none or several fit."""
        s = re.sub(r"[+#!?]+$", "", san.strip())
        own = (lambda p: p != "." and is_white(p)) if self.white else (lambda p: p != "." and not is_white(p))
        rank1 = 0 if self.white else 7
        if s in ("O-O", "O-O-O", "0-0", "0-0-0"):
            short = s in ("O-O", "0-0")
            king, to = 4 + 8 * rank1, (6 if short else 2) + 8 * rank1
            rook = ((7 if short else 0) + 8 * rank1, (5 if short else 3) + 8 * rank1)
            if self.sq[king].upper() != "K" or self.sq[rook[0]].upper() != "R":
                raise ValueError(f"{san}: no king and rook to castle with")
            return {"from": king, "to": to, "piece": self.sq[king], "captured": None, "promotion": None,
                    "rook": rook}
        m = re.fullmatch(r"([KQRBN])?([a-h])?([1-8])?(x)?([a-h][1-8])(?:=?([QRBN]))?", s)
        if not m:
            raise ValueError(f"{san}: not SAN")
        kind, ffile, frank, _, target, promo = m.groups()
        to = parse_sq(target)
        kind = kind or "P"
        candidates = []
        for frm, p in enumerate(self.sq):
            if not own(p) or p.upper() != kind:
                continue
            if ffile and frm % 8 != "abcdefgh".index(ffile):
                continue
            if frank and frm // 8 != int(frank) - 1:
                continue
            if own(self.sq[to]):
                continue
            if kind == "P":
                dr = 1 if self.white else -1
                if frm % 8 == to % 8:
                    if self.sq[to] != ".":
                        continue
                    one = frm + 8 * dr
                    ok = to == one or (to == frm + 16 * dr and frm // 8 == (1 if self.white else 6)
                                       and self.sq[one] == ".")
                else:
                    ok = self.reaches(frm, to) and (self.sq[to] != "." or to == self.ep)
                if not ok:
                    continue
            elif not self.reaches(frm, to):
                continue
            candidates.append(frm)
        moves = []
        for frm in candidates:
            captured = to if self.sq[to] != "." else None
            if self.sq[frm].upper() == "P" and frm % 8 != to % 8 and self.sq[to] == ".":
                captured = to - 8 if self.white else to + 8  # en passant
            mv = {"from": frm, "to": to, "piece": self.sq[frm], "captured": captured,
                  "promotion": (promo if self.white else promo.lower()) if promo else None, "rook": None}
            after = self.copy()
            after.play(mv)
            if not after.in_check(self.white):
                moves.append(mv)
        if len(moves) != 1:
            raise ValueError(f"{san}: {len(moves)} moves fit")
        return moves[0]

    def play(self, mv):
        """Plays a move from move_from_san (no legality check here)."""
        piece = self.sq[mv["from"]]
        if mv["captured"] is not None:
            self.sq[mv["captured"]] = "."
        self.sq[mv["from"]] = "."
        self.sq[mv["to"]] = mv["promotion"] or piece
        if mv["rook"]:
            rf, rt = mv["rook"]
            self.sq[rt], self.sq[rf] = self.sq[rf], "."
        self.ep = None
        if piece.upper() == "P" and abs(mv["to"] - mv["from"]) == 16:
            self.ep = (mv["from"] + mv["to"]) // 2
        self.white = not self.white


def read_pgn_games(path):
    """The games of a PGN file: [{"tags": {...}, "san": [...], "clk": [seconds or None per move]}]."""
    text = open(path, encoding="utf-8", errors="replace").read()
    games = []
    for chunk in re.split(r"\n(?=\[Event )", text.strip()):
        if not chunk.strip():
            continue
        tags = dict(re.findall(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$', chunk, re.M))
        body = "\n".join(line for line in chunk.splitlines() if not line.startswith("["))
        san, clk = [], []
        for tok in re.finditer(r"\{([^}]*)\}|\(|\)|(\S+)", body):
            comment, word = tok.group(1), tok.group(2)
            if comment is not None:
                c = re.search(r"\[%clk (\d+):(\d\d):(\d\d(?:\.\d+)?)\]", comment)
                if c and san:
                    clk[-1] = int(c.group(1)) * 3600 + int(c.group(2)) * 60 + float(c.group(3))
                continue
            if word is None or re.fullmatch(r"\d+\.+|\*|1-0|0-1|1/2-1/2|\$\d+", word):
                continue
            word = re.sub(r"^\d+\.+", "", word)
            if word:
                san.append(word)
                clk.append(None)
        games.append({"tags": tags, "san": san, "clk": clk})
    return games


def time_control(tags):
    """(base seconds, increment seconds) of a game's TimeControl tag, (300, 0) when it has none."""
    m = re.fullmatch(r"(\d+)(?:\+(\d+))?", tags.get("TimeControl", ""))
    return (int(m.group(1)), int(m.group(2) or 0)) if m else (300, 0)


def think_times(game, plies):
    """Seconds each of the first `plies` moves took by its [%clk] comments (None where unknown)."""
    base, inc = time_control(game["tags"])
    last = [float(base), float(base)]
    out = []
    for i in range(min(plies, len(game["san"]))):
        c = game["clk"][i]
        side = i % 2
        if c is None:
            out.append(None)
            continue
        out.append(max(0.0, last[side] - c + (inc if i >= 2 else 0)))
        last[side] = c
    return out


def moves_of(game, plies):
    """The first `plies` moves of a game resolved from SAN, with the SAN (without +#) beside each."""
    pos = Position()
    out = []
    for san in game["san"][:plies]:
        mv = pos.move_from_san(san)
        mv["san"] = re.sub(r"[+#!?]+$", "", san)
        out.append(mv)
        pos.play(mv)
    return out
