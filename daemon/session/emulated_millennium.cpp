// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/emulated_millennium.hpp"

#include <variant>

#include "daemon/boards/snapshot_board.hpp"

namespace eboard::session {

void EmulatedMillennium::apply(const ScriptItem& item) {
  const auto* e = std::get_if<rules::SensorEvent>(&item.what);
  if (!e) return;  // recorded bytes are DGT's: no Millennium captures yet
  if (const auto* l = std::get_if<rules::PieceLifted>(&e->what)) {
    emu_.set_square(l->square, '.');
  } else if (const auto* p = std::get_if<rules::PiecePlaced>(&e->what)) {
    emu_.set_square(p->square, daemon::letter_from_piece(p->piece));
  } else if (const auto* b = std::get_if<rules::BoardSnapshot>(&e->what)) {
    emu_.set_board(daemon::MillenniumBoard::to_squares(b->squares));
  }  // clock readings and link changes: the board has no clock
}

}  // namespace eboard::session
