// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What the arbiter usually does about each alert (CONTRACTS §3's codes), one short sentence per code from
// RULES.md: shown beside the alert (the event's `action` field, the page). The daemon never decides: the
// sentence says what the rule asks of the arbiter, who judges the case in front of them.
#pragma once

#include <string_view>
#include <vector>

namespace eboard::rules {

// The sentence for an alert code; empty for a code the table does not know.
[[nodiscard]] std::string_view arbiter_action(std::string_view code);

// Every code the table holds, in CONTRACTS §3's order.
[[nodiscard]] std::vector<std::string_view> alert_codes();

}  // namespace eboard::rules
