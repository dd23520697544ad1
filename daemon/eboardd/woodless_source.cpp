// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/woodless_source.hpp"

namespace eboard::eboardd {

namespace {

rules::ReconstructConfig settings(const std::string& id, const journal::NewGameEntry& g) {
  if (auto rc = journal::reconstruct_config(id, g)) return std::move(*rc);
  rules::ReconstructConfig fallback;
  fallback.board_id = id;
  return fallback;
}

}  // namespace

WoodlessSource::WoodlessSource(config::BoardConfig board, rules::Game game, journal::NewGameEntry current)
    : board_(std::move(board)),
      current_(std::move(current)),
      rec_(std::make_unique<rules::Reconstructor>(settings(board_.id, current_), std::move(game))) {}

void WoodlessSource::continue_from(std::unique_ptr<rules::Reconstructor> replayed) {
  if (replayed) rec_ = std::move(replayed);
}

nlohmann::json WoodlessSource::info() const { return {{"protocol", config::NO_DEVICE}, {"woodless", true}}; }

tl::expected<void, std::string> WoodlessSource::new_game(const journal::NewGameEntry& g) {
  auto pos = journal::start_position(g);
  if (!pos) return tl::unexpected(pos.error());
  auto rc = journal::reconstruct_config(board_.id, g);
  if (!rc) return tl::unexpected(rc.error());
  current_ = g;
  rec_ = std::make_unique<rules::Reconstructor>(std::move(*rc), rules::Game(*pos));
  return {};
}

tl::expected<std::vector<rules::Event>, std::string> WoodlessSource::control(const journal::ControlEntry& c) {
  return journal::apply_control(*rec_, c);
}

}  // namespace eboard::eboardd
