// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// [gaps] openings read from its file: the opening lines the gap ranking reads (rules/gap_openings.hpp).
// The same reading at start-up (Service) and for `eboardd --check-config`, so that the unit's check before
// its start refuses what the start would.
#pragma once

#include <memory>
#include <string>

#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "rules/gap_openings.hpp"

namespace eboard::eboardd {

struct OpeningBook {
  std::shared_ptr<const rules::OpeningLines> lines;  // none: openings = "", or the default file absent
  std::string said;  // what was read, for the log and --check-config ("2014 lines (4037 positions) from ...")
};

// The book `gaps` names: unset, config::kDefaultOpenings when that file exists, else none; "" none; a path,
// that file. An error (the start stops, --check-config refuses it) for a file named that cannot be read or
// holds no line, and for the default file present but unreadable.
tl::expected<OpeningBook, std::string> read_opening_book(const config::GapsConfig& gaps);

}  // namespace eboard::eboardd
