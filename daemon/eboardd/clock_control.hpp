// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The arbiter sets the clock's times from the desk (issue 27): POST /control/<board>/clock. The times go
// to the clock as a session::ClockTimes through the board's clock port (its protocol row's: a DGT 3000's
// SetNRun wrapped in the board's clock message) and the answer waits for the clock's: acknowledged,
// refused (a DGT 3000 not in mode 23), or not confirmed (no answer after the resends), within a bounded
// time. A board whose clock cannot be set (a make without a clock port: Millennium, Chessnut; no clock, a
// DGT bus line, in a match or not) is answered 409 with the reason; a
// bughouse match board's DGT 3000 is set through the match's session of that board
// (MatchFeed::clock_command).
//
// Body: {"white": T, "black": T} or {"left": T, "right": T} (T: milliseconds, or "h:mm:ss" / "m:ss"), or
// {"add_ms": N, "side": "black"}: that side's time as the clock last showed it plus N (7.5.5: 120000), the
// other unchanged. Optional "run": "white", "black", "left", "right" or "none"; by default the clock goes
// on as it was (the side that ran runs, a stopped clock stays stopped). The lever keeps switching sides.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/http/server.hpp"

namespace eboard::eboardd {

// The answer to POST /control/<board>/clock (the token was checked); nothing for any other action. The
// answer is deferred: it is given when the clock has answered, or after `answer_within` at the latest.
std::optional<http::Response> clock_control(
    BoardRuntime& b, const std::string& action, const nlohmann::json& body,
    std::chrono::milliseconds answer_within = std::chrono::seconds(15));

// The same action answered through `answered`, on the loop: at once when refused (the body's error, the board
// not running or its clock not settable), else when the clock has answered (acknowledged 200, refused 502,
// not confirmed 504). Never called when the board stops before its clock answered: a caller that must
// answer regardless bounds the wait itself (a command over the hall, hall.cpp).
void clock_control_then(BoardRuntime& b, const nlohmann::json& body,
                        std::function<void(http::Response)> answered);

// /status: boards[].control.clock: whether the clock can be set (or why not), the times by side as last
// read, which side is White's when known.
nlohmann::json clock_status(const BoardRuntime& b);
// Adds clock_status() to each board of a /status answer (after add_control_status: boards[].control), and
// to each of its alerts what the arbiter usually does (`action`), the `penalty` and the 7.5.5
// `proposed_clock` the alert's event carried.
void add_clock_status(nlohmann::json& status, const std::vector<std::unique_ptr<BoardRuntime>>& boards);

}  // namespace eboard::eboardd
