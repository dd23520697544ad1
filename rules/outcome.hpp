// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What a position says about the end of the game: mate (with the FQE bughouse rule), stalemate,
// dead position, and who could still mate (FIDE 6.9 on flag fall).
#pragma once

#include "rules/position.hpp"

namespace eboard::rules {

// Checkmate. In bughouse (FQE 8–9) a check that a dropped piece could block is not mate as long as a
// piece of a type that could block might still arrive from the partner's board: see bughouse_could_block.
bool is_checkmate(const Position& pos);
// No legal move and not in check. Never true in bughouse (FQE 9b: the player waits).
bool is_stalemate(const Position& pos);
// In bughouse: the side to move has no legal move now but is not mated; it waits for material.
bool must_wait(const Position& pos);

// Whether `side` could ever mate, by any sequence of legal moves (helpmate), judged from material.
// Used for flag fall (6.9) and the dead-position rule; always true in drop variants.
bool can_ever_mate(const Position& pos, Color side);
// A dead position (FIDE 5.2.2): neither side can mate by any legal sequence. Covers every
// insufficient-material case and positions locked by pawns where kings cannot reach anything.
bool is_dead_position(const Position& pos);

// FQE 8–9a: the piece types of `side`'s colour that are not all on this board (nor in its pocket)
// and so might still be handed over by the partner. A bit per PieceType (1 << PAWN …).
unsigned potentially_available_types(const Position& pos, Color side);
// Whether a drop of some potentially available piece could block the current (single, distant) check.
bool bughouse_could_block(const Position& pos);

}  // namespace eboard::rules
