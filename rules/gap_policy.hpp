// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap policy: how likely people are to play each move of a position, as a softmax over its legal moves of a
// linear score of what each move does (kMoveFeatureNames), the weights fitted on every position of the
// corpora's training games (`GAP_POLICY_FIT=1 bench_gap_ranking`). A gap's sequence then has a likelihood,
// the product of its moves' (rules/gap_rank.hpp adds its log, weighed, to the sequence's cost): the orders
// of one gap's moves differ in which moves each position offered beside the one made. Pure code.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rules/position.hpp"

namespace eboard::rules {

enum MoveFeature : std::size_t {
  kMfGain,           // material the capture wins, the exchange that follows counted (pawns, 0 if it loses)
  kMfLoss,           // material the capture loses in that exchange (pawns)
  kMfTakesLast,      // takes the piece the opponent just moved
  kMfLeavesReach,    // moves a piece the opponent's last moved piece attacks
  kMfDefends,        // defends a piece the opponent's last moved piece attacks
  kMfCheck,          // gives check
  kMfCastles,        // castling
  kMfPawn,           // the kind of piece moved
  kMfKnight,         //
  kMfBishop,         //
  kMfRook,           //
  kMfQueen,          //
  kMfKing,           // (castling excluded)
  kMfCentrePawn,     // a d- or e-pawn's steps
  kMfWingPawn,       // a c- or f-pawn's steps
  kMfDevelops,       // a knight or bishop leaving its first rank
  kMfRim,            // a knight to the a- or h-file
  kMfHangs,          // a piece (not a pawn) set where a pawn or a lesser piece attacks it
  kMfEscapes,        // a piece moved off a square a lesser piece attacks, or attacked undefended
  kMfThreatens,      // the piece then attacks a greater or undefended piece
  kMfNearReply,      // king steps from the opponent's last destination to this one
  kMfNearOwn,        // king steps from the side's own last destination to this move's origin
  kMfSamePiece,      // the piece the side moved last
  kMfBack,           // that piece straight back where it came from
  kMfMobility,       // the mobility the move gives the side's pieces (pawns: a quarter a square)
  kMfLeftToTake,     // the best material the opponent can then win by a capture (pawns)
  kMfPromotes,       // promotion to a queen
  kMfUnderpromotes,  // promotion to anything else
  kMfRecaptures,     // takes on the square where the opponent just took
  kMfNew,         // not a legal move of the side's previous position (what the last two moves made possible)
  kMfQueenEarly,  // a queen's move in the first ten moves
  kMfDevelopsEarly,  // a knight or bishop leaving its first rank in the first twelve moves
  kMfCastlesEarly,   // castling in the first twelve moves
  kMfSameEarly,      // the piece the side moved last, again, in the first twelve moves
  kMfShelter,        // a pawn step before the side's castled king (the three files around it)
  kMfNextToReply,    // within a king's step of the opponent's last destination
  kMfPawnTakes,      // a pawn's capture
  kMfCentralises,    // a knight's, bishop's or queen's steps nearer the centre (king steps to d4-e5)
  kMfKingEndgame,    // a king's move with the queens off and at most two pieces a side beside pawns and king
  kMfOpenFile,       // a rook to a file without a pawn of its side
  kMfKingZone,       // the piece then attacks a square next to the enemy king
  kMoveFeatureCount
};

using MoveFeatures = std::array<float, kMoveFeatureCount>;

extern const std::array<const char*, kMoveFeatureCount> kMoveFeatureNames;
extern const MoveFeatures kMoveFeatureWeights;

// Where people move each kind of piece from and to: a score per kind (pawn to king) and square, the squares
// seen from the mover's side (a1 is the mover's left corner), one table for the squares left and one for
// the squares reached. Fitted with the weights above (rules/gap_policy_squares.cpp); added to a move's score.
// People open with their centre pawns and the king's knight, put a bishop on the long diagonal, keep
// their rooks' pawns home: which moves a position offers matters, and so which move of a gap came first.
// Two more tables of the same say how much earlier than later in the opening people make each move: in a
// game from the standard start (its pieces start where the squares say; a Chess960 start's do not), read
// at full weight at move 1, less each move, and not after move kOpeningMoves. The orders of one gap make
// the same moves, so the first two tables tell them apart only by what each position offered beside; these
// by when each move was made.
inline constexpr std::size_t kSquaresPerTable = 6 * 64;            // kind (pawn first) times square
inline constexpr std::size_t kSquareTerms = 4 * kSquaresPerTable;  // left, reached; the same, when
inline constexpr int kOpeningMoves = 10;
using PolicySquares = std::array<float, kSquareTerms>;
extern const PolicySquares kPolicySquares;
// The terms of a move: the square its piece left and the one it reached (each read at 1), then the same
// two of the opening's tables (each read at `opening`, 0 past the opening).
struct SquareTerms {
  std::array<std::size_t, 4> at;
  float opening = 0;
  // How much of term `j`'s weight the move takes: the tables of every move whole, the opening's by `opening`.
  double share(std::size_t j) const { return j < 2 ? 1.0 : double(opening); }
  // The move's part of a score under `squares`.
  double score(const PolicySquares& squares) const {
    double s = 0;
    for (std::size_t j = 0; j < at.size(); ++j) s += share(j) * double(squares[at[j]]);
    return s;
  }
};
// The terms of `m` in `p`, or none for a castling or a drop (castling has its own feature).
std::optional<SquareTerms> square_terms(const Position& p, Move m);

// What came before a position: the moves just made by each side (none at a gap's start but what is known).
struct MoveContext {
  Move last = Move::none();      // the opponent's move just made
  Move own_last = Move::none();  // the side's own move before it
  bool last_captured = false;    // whether the opponent's move took something
  // The side's previous position (two plies before), when known: its key and its legal moves (raw, sorted).
  std::uint64_t earlier_key = 0;
  std::vector<std::uint16_t> earlier;
  bool earlier_known = false;
  // At a gap's start: the position before `last`, when known (the next move's `earlier`).
  std::optional<Position> previous;
};

// The legal moves of `p`, raw and sorted (MoveContext::earlier).
std::vector<std::uint16_t> legal_raw(const Position& p);

// The features of every legal move of `p` (in MoveList order), with `ctx`.
void move_features(const Position& p, const MoveContext& ctx,
                   std::vector<std::pair<Move, MoveFeatures>>& out);

// Per candidate: the log-likelihood of the sequence from `before` under `weights` (the sum of each move's
// log-softmax), `first` the context of the gap's first move.
std::vector<double> gap_sequence_log_likelihoods(const Position& before,
                                                 const std::vector<std::vector<Move>>& candidates,
                                                 const MoveContext& first = {},
                                                 const MoveFeatures& weights = kMoveFeatureWeights,
                                                 const PolicySquares& squares = kPolicySquares);

}  // namespace eboard::rules
