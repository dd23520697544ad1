// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the journal reader: scanning (resynchronisation past damage), decoding every record, and recovery
// (replay through reconstruction) of a board and of a bughouse match. Whatever the bytes, reading never
// crashes, every record it returns lies inside the file in order, the damaged ranges and records do not
// overlap, and the intact records framed again read back the same.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "daemon/journal/journal_file.hpp"
#include "daemon/journal/match_recovery.hpp"
#include "daemon/journal/records.hpp"
#include "daemon/journal/recovery.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using eboard::fuzz::require;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eboard::journal;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const JournalScan scan = scan_journal_bytes(bytes);
  require(scan.valid_bytes <= scan.file_bytes && scan.file_bytes == size);
  std::uint64_t end = scan.version == 1 ? MAGIC_V1.size() : MAGIC.size();
  std::size_t d = 0;
  for (const FileRecord& r : scan.records) {
    // Damaged ranges before this record end where it (or a later one) starts.
    while (d < scan.damaged.size() && scan.damaged[d].offset < r.offset) {
      require(scan.damaged[d].offset >= end);
      end = scan.damaged[d].offset + scan.damaged[d].bytes;
      ++d;
    }
    require(r.offset >= end && r.offset < scan.valid_bytes);
    end = r.offset + r.body.size() + 1;
    (void)decode_entry(r.type, r.body);
  }
  require(d == scan.damaged.size() || scan.records.empty() || scan.damaged[d].offset >= end);
  // The intact records, framed again, are a clean journal holding the same records.
  std::string again(scan.version == 1 ? MAGIC_V1 : MAGIC);
  Framer framer(scan.version);
  for (const FileRecord& r : scan.records) framer.append(again, r.type, r.body);
  const JournalScan rescan = scan_journal_bytes(again);
  require(rescan.clean() && rescan.records.size() == scan.records.size());
  for (std::size_t i = 0; i < scan.records.size(); ++i)
    require(rescan.records[i].type == scan.records[i].type && rescan.records[i].body == scan.records[i].body);
  if (scan.records.size() <= 64) {  // replay is the slow part: small journals only
    (void)recover(scan, "A");
    eboard::rules::MatchConfig cfg;
    cfg.board_ids = {"A", "B"};
    (void)recover_match(&scan, &rescan, cfg);
  }
  return 0;
}
