// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Pairings file fuzzing (CSV and TRF-16, in any encoding). First byte: the round (1–16) for TRF, and (bits
// 4-5) the encoding named; the rest: the file. A file either fails with an error naming a line (or the
// file) or gives pairings whose boards are unique and positive, and whose tags the daemon accepts (UTF-8,
// no control character, at most 256 bytes). The round's results written back (TRF-16, CSV) from those
// pairings read back with the same readers.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string_view>

#include "daemon/outputs/pairings.hpp"
#include "daemon/outputs/round_results.hpp"
#include "daemon/outputs/text_encoding.hpp"

using namespace eboard;

namespace {
void check(const tl::expected<std::vector<outputs::Pairing>, std::string>& p) {
  if (!p) {
    if (p.error().empty()) std::abort();
    return;
  }
  std::set<int> boards;
  for (const auto& pairing : *p) {
    if (pairing.board < 1 || !boards.insert(pairing.board).second || pairing.line < 1) std::abort();
    for (const auto& t : outputs::pairing_tags(pairing)) {
      if (t.value.size() > 256) std::abort();
      for (char c : t.value)
        if (static_cast<unsigned char>(c) < 0x20) std::abort();
      if (!outputs::valid_utf8(t.value)) std::abort();
    }
  }
}

// The pairings as a round's results, written back and read again.
void round_trip(const std::vector<outputs::Pairing>& pairings, int round) {
  std::vector<outputs::GameResult> results;
  for (const auto& p : pairings)
    results.push_back({p.board, std::to_string(p.board), p.white, p.black, "1-0", ""});
  auto trf = outputs::results_trf(results, round, "", "Fuzz Open");
  if (!trf) std::abort();
  auto back = outputs::parse_trf(*trf, round, "UTF-8");
  if (!back || back->size() != pairings.size()) std::abort();
  auto csv = outputs::parse_pairings_csv(outputs::results_csv(results), "UTF-8");
  if (!csv || csv->size() != pairings.size()) std::abort();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  int round = 1 + (data[0] & 15);
  static const char* const encodings[] = {"auto", "UTF-8", "WINDOWS-1250", "UTF-16LE"};
  const char* encoding = encodings[(data[0] >> 4) & 3];
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check(outputs::parse_pairings_csv(text, encoding));
  check(outputs::parse_trf(text, round, encoding));
  auto p = outputs::parse_pairings(text, round, encoding);
  check(p);
  if (p && !p->empty() && p->size() <= 4999) round_trip(*p, round);
  for (const char* e : {"WINDOWS-1252", "ISO-8859-2"})
    if (auto out = outputs::encode_text(outputs::utf8_or_replaced(text), e); !out) std::abort();
  return 0;
}
