// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A session's reconstruction, from its config (BoardSessionConfig or BusBoardConfig: both carry `board_id`,
// `rules`, `game` and `reconstruction`), for the single board and the bus line alike.
#pragma once

#include <memory>
#include <utility>

#include "rules/reconstruct.hpp"

namespace eboard::session {

// Takes `cfg.reconstruction` when there is one; else builds one from `cfg.rules` (its board_id replaced by
// `cfg.board_id`) and `cfg.game`. The session keeps its config for its life: what goes into the
// reconstruction is taken out of it, moved when no copy of the config shares it.
template <class Config>
rules::Reconstructor take_reconstructor(Config& cfg) {
  std::shared_ptr<rules::Game> game = std::exchange(cfg.game, nullptr);
  if (std::shared_ptr<rules::Reconstructor> r = std::exchange(cfg.reconstruction, nullptr))
    return r.use_count() == 1 ? std::move(*r) : rules::Reconstructor(*r);
  rules::ReconstructConfig rc = cfg.rules;
  rc.board_id = cfg.board_id;
  if (game) return rules::Reconstructor(std::move(rc), game.use_count() == 1 ? std::move(*game) : *game);
  return rules::Reconstructor(std::move(rc));
}

}  // namespace eboard::session
