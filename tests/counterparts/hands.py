# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright (C) 2026 the eboardd authors
"""A player's hands over a real game, as timed physical events for the counterpart boards.

`game_script` turns a game's moves into what happens on the wood: a square emptied or filled (a piece lifted,
a piece set down, a captured piece taken off) and, with a clock, the press that ends each move, at times in
seconds from the start of play. Thinking times come from the game's [%clk] comments divided by `speed` and
kept within [min_think, max_think]; the hands themselves move at a human pace whatever `speed` is.
"""
import bisect

from chess_moves import START


class Script:
    """Timed events of one game: `squares[sq]` is [(t, piece or '.')] per square (a1 = 0), `presses` is
    [(t, white)] (the side whose button went down), `ply_end[i]` the time ply i was complete (its press, or
    the last piece set down without a clock)."""

    def __init__(self):
        self.squares = [[] for _ in range(64)]
        self.presses = []
        self.ply_end = []
        self.length = 0.0

    def at(self, sq, t):
        """What stands on square `sq` at time `t` (seconds from the start of play; before it, the start)."""
        events = self.squares[sq]
        i = bisect.bisect_right(events, (t, "~"))
        return events[i - 1][1] if i else START[sq]


def game_script(moves, thinks, rng, speed=8.0, min_think=0.5, max_think=5.0, clock=True, adjust=0.1):
    """The events of `moves` (from chess_moves.moves_of) with think times `thinks` (seconds or None)."""
    s = Script()
    t = 0.0

    def put(when, sq, value):
        s.squares[sq].append((when, value))

    for i, mv in enumerate(moves):
        think = thinks[i] if i < len(thinks) and thinks[i] is not None else rng.uniform(min_think, max_think)
        t += min(max_think, max(min_think, think / speed))
        frm, to, cap = mv["from"], mv["to"], mv["captured"]
        landed = mv["promotion"] or mv["piece"]
        if mv["rook"]:  # castling: the king first (FIDE 4.4.2), then the rook
            rf, rt = mv["rook"]
            rook = "R" if mv["piece"].isupper() else "r"
            put(t, frm, ".")
            t += rng.uniform(0.2, 0.45)
            put(t, to, mv["piece"])
            t += rng.uniform(0.15, 0.35)
            put(t, rf, ".")
            t += rng.uniform(0.2, 0.45)
            put(t, rt, rook)
        elif cap is not None and cap != to:  # en passant: the capturing pawn, then the captured one off
            put(t, frm, ".")
            t += rng.uniform(0.2, 0.5)
            put(t, to, landed)
            t += rng.uniform(0.15, 0.4)
            put(t, cap, ".")
        elif cap is not None and rng.random() < 0.5:  # the captured piece taken off first
            put(t, cap, ".")
            t += rng.uniform(0.15, 0.4)
            put(t, frm, ".")
            t += rng.uniform(0.2, 0.5)
            put(t, to, landed)
        elif cap is not None:  # the mover lifted, the captured piece taken off, the mover set down
            put(t, frm, ".")
            t += rng.uniform(0.1, 0.3)
            put(t, cap, ".")
            t += rng.uniform(0.1, 0.35)
            put(t, to, landed)
        else:
            put(t, frm, ".")
            t += rng.uniform(0.25, 0.6)
            put(t, to, landed)
        if rng.random() < adjust:  # the piece just set down straightened: lifted and put back
            t += rng.uniform(0.1, 0.3)
            put(t, to, ".")
            t += rng.uniform(0.08, 0.25)
            put(t, to, landed)
        if clock:
            # A press at least one sweep (250 ms) after the last piece set down: the board has seen the move
            # by the time it reads the press, so a reader that follows the records can tell every move.
            t += rng.uniform(0.26, 0.55)
            s.presses.append((t, mv["piece"].isupper()))
        s.ply_end.append(t)
    for events in s.squares:
        events.sort()
    s.length = t
    return s
