// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/arbiter_action.hpp"

#include <array>
#include <utility>

namespace eboard::rules {

namespace {

// The one table (RULES.md §1 for the game, §2 for bughouse, the README for the journal codes).
constexpr std::array<std::pair<std::string_view, std::string_view>, 15> kActions{{
    {"illegal-move",
     "Reinstate the position before the move (7.5.1) and apply the penalty shown: FIDE 7.5.5 gives the "
     "opponent two minutes for a first illegal move (blitz one), a second one loses; in bughouse the move "
     "loses if claimed."},
    {"illegal-move-corrected",
     "Nothing to rule: the illegal move was taken back before the clock was pressed (FQE 20, 21a); the "
     "replacing move must be made with the same piece if it can move."},
    {"same-piece-required",
     "Have the player move the piece first moved illegally, which can move (4.3, FQE 21a), and penalise "
     "as for an irregularity if the game goes on otherwise."},
    {"touch-move",
     "If the opponent claims before touching a piece (4.8), the player must move the touched piece or take "
     "the touched opponent piece (4.3); rook touched before king: no castling this move (4.4)."},
    {"released-piece-moved",
     "If the opponent claims, the piece goes back to the square it was released on (4.7) and the move made "
     "there stands."},
    {"reserve-touch-move",
     "A reserve piece set on a square must be dropped there (FQE 19): on a claim, put it back on that "
     "square."},
    {"clock-without-move",
     "Treat the clock press without a move as an illegal move (7.5.3): reinstate and apply 7.5.5's "
     "penalty. One marked unseen (pressed while the board was out of sight) may be moves that came back to "
     "the position: ask the players and check the scoresheets first."},
    {"hidden-reserve",
     "The opponent asks to see the reserve (FQE 18): have the player show the pieces shown in the alert."},
    {"drop-before-partner-clock",
     "The dropped piece was not yet the player's (FQE 21b): the drop is illegal; rule as for an illegal "
     "move if claimed."},
    {"position-mismatch",
     "Compare the board with the game (/status): have the players set the last correct position, or enter "
     "the moves the board missed."},
    {"setup-error",
     "Have the pieces set up correctly before the clock is started (3.9, 3.10: no illegal start "
     "position)."},
    {"moves-missed",
     "Choose which candidate sequence was played (control: recover) after checking with the players or "
     "the scoresheets."},
    {"position-adopted",
     "Check the position on the board with the players; enter the missing moves in the game record if "
     "they are known."},
    {"journal-damaged",
     "Check the game record against the players' scoresheets: records were lost at start-up."},
    {"journal-unwritable",
     "Free the disk or fix its permissions at once: events are held back until the journal can be "
     "written."},
}};

}  // namespace

std::string_view arbiter_action(std::string_view code) {
  for (const auto& [c, sentence] : kActions)
    if (c == code) return sentence;
  return {};
}

std::vector<std::string_view> alert_codes() {
  std::vector<std::string_view> out;
  out.reserve(std::size(kActions));
  for (const auto& kv : kActions) out.push_back(kv.first);
  return out;
}

}  // namespace eboard::rules
