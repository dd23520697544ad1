// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Events (CONTRACTS §3) as JSON objects, one per line.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "rules/events.hpp"

namespace eboard::daemon {

nlohmann::json to_json(const rules::Event& e);
// One line of JSON Lines, without the newline.
std::string to_json_line(const rules::Event& e);

// The daemon's own event (§3 `link`): a board's link was lost or regained. Not a rules::Event, since
// reconstruction neither makes nor reads it; replay never sees one.
struct LinkEvent {
  std::int64_t t_ms = 0;
  std::string board;
  bool online = false;
  std::string reason;  // for a person: "device removed: ...", "connected on /dev/ttyUSB0"
};
nlohmann::json to_json(const LinkEvent& e);
std::string to_json_line(const LinkEvent& e);

}  // namespace eboard::daemon
