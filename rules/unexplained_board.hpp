// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A board nothing explains, as the Reconstructor has told it: its phase until the board is followed again.
#pragma once

#include <optional>

#include "rules/wood.hpp"

namespace eboard::rules {

// What was told about the board not being followed (no legal move explains it): nothing, a
// position-mismatch, or a setup-error (a board that looks like pieces set up, wrongly). Told once: until
// the board is followed again (followed()), nothing more is told of it, except a wrong setup other than
// the last one told. The last wrong setup told is remembered past that, so that setting up the same
// wrong position again is not told twice.
class UnexplainedBoard {
 public:
  enum class Told { Nothing, Mismatch, Setup };

  Told told() const { return told_; }
  // The board is known not to be followed: something was told and it has not been followed since.
  bool reported() const { return told_ != Told::Nothing; }
  // A position-mismatch was told.
  void tell_mismatch() { told_ = Told::Mismatch; }
  // Whether a setup-error is to be told for `board`: false when it is the last wrong setup told.
  bool setup_to_tell(const Board& board) const { return last_setup_ != board; }
  // A setup-error was told for `board`.
  void tell_setup(const Board& board) {
    told_ = Told::Setup;
    last_setup_ = board;
  }
  // The board is followed again (it shows the game, or the game went on from it): the next board nothing
  // explains is told again.
  void followed() { told_ = Told::Nothing; }

 private:
  Told told_ = Told::Nothing;
  std::optional<Board> last_setup_;
};

}  // namespace eboard::rules
