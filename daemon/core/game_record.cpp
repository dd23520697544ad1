// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/core/game_record.hpp"

namespace eboard::daemon {

using namespace eboard::rules;

GameRecord game_record(const Game& game, const std::string& board_id) {
  GameRecord r;
  r.tags = {{"Event", "eboardd"}, {"Site", "?"},  {"Date", "????.??.??"}, {"Round", "?"},
            {"White", "?"},       {"Black", "?"}, {"Result", "*"},        {"Board", board_id}};
  rules::set_record_moves(r, game);  // after an illegal move that stood (A.4.2): a SetUp/FEN record
  if (const auto& o = game.outcome()) {
    r.result = result_string(o->result);
    r.tags.push_back({"Termination", o->reason});
  }
  for (auto& t : r.tags)
    if (t.name == "Result") t.value = r.result;
  return r;
}

}  // namespace eboard::daemon
