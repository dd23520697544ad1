// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes what `eboardctl verify` reads (daemon/journal/signing.hpp): any bytes as a signature file, a journal
// and an archive. A journal that can be sealed checks against its own seal; a changed one is located; an
// archive checks against its own seal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "daemon/journal/signing.hpp"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using eboard::fuzz::require;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace eboard::journal;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto record = parse_signature_file(text)) {
    (void)record_signature_valid(*record);
    (void)check_archive(record->archive, text);
    for (const JournalSeal& seal : record->journals) {
      Finding after;
      const Finding f = check_sealed_journal(seal, text, &after);
      require(f.intact || !f.text.empty());
    }
  }
  const Finding chain = check_journal_chain(text);
  require(chain.intact || chain.at.has_value());
  if (const auto seal = seal_journal_bytes(text)) {
    require(chain.intact);
    Finding after;
    require(check_sealed_journal(*seal, text, &after).intact);
    require(after.intact && after.text.empty());
  }
  const ArchiveSeal archive = seal_archive("fuzz.pgn", text);
  require(check_archive(archive, text).intact);
  return 0;
}
