// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A board's capture from a DGT bus line (`# protocol: dgt-bus`, its `bus-address` header): the DGT row's
// bus replay (BoardProtocol::replay_bus), which replay_capture finds through the row. The board's frames go
// through the bus decoder and its BusBoardFeed, the code the line's session runs live, so the replay gives
// the events the daemon published for that board, its silences included.
#pragma once

#include <string>

#include <tl/expected.hpp>

#include "daemon/session/replay.hpp"
#include "drivers/capture.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

[[nodiscard]] tl::expected<ReplayResult, std::string> replay_dgt_bus_capture(const drivers::Capture& capture,
                                                                             rules::ReconstructConfig cfg);

}  // namespace eboard::session
