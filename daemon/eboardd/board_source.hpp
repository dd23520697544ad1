// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Where a board's sensor events come from: a real board on a serial port (BoardSession), or the demo's
// simulated players. A source runs reconstruction itself and reports to its sink, in this order for
// every input: the sensor event (the truth, journaled first), then the events reconstruction derived.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/journal/machine.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/session/clock_port.hpp"
#include "drivers/capture.hpp"
#include "rules/events.hpp"
#include "rules/game.hpp"
#include "rules/sensor.hpp"

namespace eboard::eboardd {

class BoardSink {
 public:
  virtual ~BoardSink() = default;
  virtual void sensor(const rules::SensorEvent& e) = 0;
  virtual void events(const std::vector<rules::Event>& events) = 0;
  // Reconstruction was advanced to `now_ms` by a timer and gave events (reported next): journaled so
  // that a replay advances at the same point.
  virtual void tick(std::int64_t now_ms) = 0;
  virtual void wire(std::int64_t t_ms, drivers::Direction dir, std::span<const std::uint8_t> bytes) = 0;
  // The source wants a new game (the demo, when its game is over). The sink journals it and calls the
  // source's new_game().
  virtual void request_new_game() = 0;
  virtual int game_number() const = 0;
  virtual const rules::PgnTags& tags() const = 0;
  virtual void set_tags(const rules::PgnTags& tags) = 0;
  enum class Level : std::uint8_t { debug, info, warning, error };
  virtual void log(Level level, const std::string& text) = 0;
  // The board's link came up or went down (session::BoardSessionHandlers::on_link), with the reason.
  // Sources without a link (the demo's players) never call it.
  virtual void link_changed(std::int64_t /*t_ms*/, bool /*online*/, const std::string& /*reason*/) {}
};

class BoardSource {
 public:
  virtual ~BoardSource() = default;
  virtual void start() = 0;
  // No call into the sink after this.
  virtual void stop() = 0;
  virtual const rules::Game& game() const = 0;
  // "connected", "connecting", "demo", "stopped"
  virtual std::string link() const = 0;
  // Details for /status (device, port, statistics).
  virtual nlohmann::json info() const = 0;
  // Reconstruction starts afresh with the game of `g` (already journaled by the sink).
  virtual tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) = 0;
  // Arbiter input (control.hpp), not journaled yet: applied to reconstruction (journal::apply_control),
  // giving its events, or refused with the reason and nothing changed.
  virtual tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& /*c*/) {
    return tl::unexpected(std::string("this board's source takes no control input"));
  }
  // The reconstruction, for what the game record does not hold (an adjournment); null if none.
  virtual const rules::Reconstructor* reconstructor() const { return nullptr; }

  // The clock behind the board, set by the arbiter (issue 27: clock_control.hpp). Whether a command can
  // reach it now, or why not in words for the arbiter (a board without a clock, offline, a bus line …).
  virtual tl::expected<void, std::string> clock_settable() const {
    return tl::unexpected(std::string("the daemon cannot set this board's clock"));
  }
  // Sends a clock command; `done` is called on the loop with the clock's answer (its ACK checked), or
  // never if the source stops first. Refused at once with clock_settable()'s reason.
  using ClockDone = std::function<void(const session::ClockResult&)>;
  virtual tl::expected<void, std::string> clock_command(const session::ClockRequest& /*request*/,
                                                        ClockDone /*done*/) {
    auto ok = clock_settable();
    return ok ? tl::unexpected(std::string("the daemon cannot set this board's clock")) : ok;
  }
};

}  // namespace eboard::eboardd
