// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/mqtt/takeover.hpp"

namespace eboard::mqtt {

bool TakeoverWatch::lost(Clock::time_point t) {
  if (!since_) return false;
  const auto lasted = t - *since_;
  since_.reset();
  if (lasted >= options_.short_session) {
    in_a_row_ = 0;
    return false;
  }
  ++short_total_;
  ++in_a_row_;
  return in_a_row_ == options_.in_a_row;
}

}  // namespace eboard::mqtt
