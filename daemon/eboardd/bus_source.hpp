// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A board on a bus line: its reconstruction runs in the line's session::BusSession (shared with the other
// boards of the line), attached while the source runs, and reports to the board's sink through the same
// SessionFeed a serial board's session does. Its wire is journaled as the board's own: the commands the
// line wrote to its address and its frames (the line's other bytes are the other boards'), so that its
// capture export (its row's bus dialect, `dgt-bus`, with its `bus-address`) replays through the same
// BusBoardFeed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_source.hpp"
#include "daemon/eboardd/session_feed.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/session/bus_session.hpp"

namespace eboard::eboardd {

// A bus board's link and /status info, for a BusSource and for a match board on a bus alike. `running`:
// its source (or match feed) runs.
std::string bus_board_link(const session::BusSession& line, std::uint16_t address, bool running);
nlohmann::json bus_board_info(const session::BusSession& line, const config::BoardConfig& board);
// Why a bus board's clock cannot be set (BoardSource::clock_settable), for both alike.
inline std::string bus_clock_refusal(const std::string& id) {
  return "board " + id +
         " is on a bus line: the bus protocol carries no clock commands, so its clock is set by hand";
}

class BusSource : public BoardSource {
 public:
  BusSource(BoardSink& sink, config::BoardConfig board, std::shared_ptr<session::BusSession> line,
            rules::Game game, journal::NewGameEntry current);
  ~BusSource() override;

  void start() override;
  void stop() override;
  const rules::Game& game() const override;
  std::string link() const override;
  nlohmann::json info() const override;
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override;
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override;
  const rules::Reconstructor* reconstructor() const override;
  tl::expected<void, std::string> clock_settable() const override {
    return tl::unexpected(bus_clock_refusal(board_.id));
  }
  // The first attach continues `replayed` (the journal's reconstruction after a restart); see SerialSource.
  void continue_from(std::unique_ptr<rules::Reconstructor> replayed);

 private:
  session::BusBoardConfig session_config();
  bool attached() const { return running_ && line_->attached(board_.bus_address); }

  config::BoardConfig board_;
  std::shared_ptr<session::BusSession> line_;
  journal::NewGameEntry current_;
  rules::Game idle_game_;
  // Reconstruction while not attached (before the first start, or control input while stopped). On the
  // heap: empty while attached, which is most of a board's life.
  std::unique_ptr<rules::Reconstructor> idle_;
  bool running_ = false;
  SessionFeed feed_;
};

}  // namespace eboard::eboardd
