// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/emulated_millennium.hpp"

#include <string>
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

void EmulatedMillennium::turn_reports_off() {
  emu_.set_e2rom(drivers::millennium::e2rom::REPORTS,
                 static_cast<std::uint8_t>(drivers::millennium::ReportMode::off));
}

std::string EmulatedMillennium::account() const {
  return "the board's E2ROM at the end of the script: reports " +
         std::to_string(static_cast<int>(emu_.reports())) + ", scan time " +
         std::to_string(emu_.e2rom(drivers::millennium::e2rom::SCAN_TIME)) + "; " +
         std::to_string(emu_.stats().parity_errors) + " bytes without odd parity ignored, " +
         std::to_string(emu_.stats().commands) + " commands";
}

}  // namespace eboard::session
