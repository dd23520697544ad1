// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A board without wood ([[board]] protocol = "none", or POST /boards without a port): a game of the round
// that no device reports, whose moves the arbiter types (control "move", UCI or SAN, checked by the
// rules) or whose result alone is entered (resign, draw and the other controls). It has no sensor, no
// link and no timer: every input is a control entry, journaled and replayed on recovery like a board's,
// and its events go through the same runtime, so it reaches every output as a board with a device does.
#pragma once

#include <memory>
#include <string>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_source.hpp"
#include "daemon/journal/machine.hpp"

namespace eboard::eboardd {

class WoodlessSource : public BoardSource {
 public:
  // Continues `game` (the recovered one) under the reconstruction settings of `current`.
  WoodlessSource(config::BoardConfig board, rules::Game game, journal::NewGameEntry current);

  void start() override { running_ = true; }
  void stop() override { running_ = false; }
  const rules::Game& game() const override { return rec_->game(); }
  // "none": there is no device to be connected to (not "connecting": nothing is missing).
  std::string link() const override { return running_ ? "none" : "stopped"; }
  nlohmann::json info() const override;
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override;
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override;
  const rules::Reconstructor* reconstructor() const override { return rec_.get(); }
  tl::expected<void, std::string> clock_settable() const override {
    return tl::unexpected(
        std::string("a board without wood has no clock the daemon can reach: set it by hand"));
  }
  // Goes on with the journal's reconstruction after a restart (it knows an adjournment, a promotion piece
  // named), rather than a fresh one of the recovered game.
  void continue_from(std::unique_ptr<rules::Reconstructor> replayed);

 private:
  config::BoardConfig board_;
  journal::NewGameEntry current_;
  std::unique_ptr<rules::Reconstructor> rec_;
  bool running_ = false;
};

}  // namespace eboard::eboardd
