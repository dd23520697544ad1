// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the capture reader (and the .inbytes importer). What the reader accepts must survive a write and a
// second read unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "drivers/capture.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using eboard::fuzz::require;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto capture = eboard::drivers::parse_capture(text)) {
    for (std::size_t i = 1; i < capture->records.size(); ++i) {
      require(capture->records[i - 1].t_ms <= capture->records[i].t_ms);
    }
    const auto again = eboard::drivers::parse_capture(eboard::drivers::format_capture(*capture));
    require(again.has_value());
    require(again->records == capture->records);
    require(again->info.protocol == capture->info.protocol);
    const auto third = eboard::drivers::parse_capture(eboard::drivers::format_capture(*again));
    require(third.has_value() && *third == *again);
  }
  if (const auto imported = eboard::drivers::import_dgt_inbytes(text)) {
    for (std::size_t i = 1; i < imported->records.size(); ++i) {
      require(imported->records[i - 1].t_ms <= imported->records[i].t_ms);
    }
  }
  return 0;
}
