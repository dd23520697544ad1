// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Events (CONTRACTS §3) as JSON objects, one per line.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rules/events.hpp"

namespace eboard::daemon {

nlohmann::json to_json(const rules::Event& e);
// One line of JSON Lines, without the newline.
std::string to_json_line(const rules::Event& e);

}  // namespace eboard::daemon
