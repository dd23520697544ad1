// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The arbiter's result on any text (a record on disk may be damaged or not eboardd's). First byte: the
// verdict (bits 0-2: the code, bit 3: a correction); the rest: the PGN. apply_verdict either fails with
// a reason or gives a text whose Result tag is the verdict's PGN result, whose ArbiterResult is the code,
// and which apply_verdict takes again (a second correction); apply_partner_result gives the partner board's
// version of the same text (its own result, Termination partner-board). The entry's fields are checked by
// make_verdict whatever they are.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "daemon/outputs/arbiter_result.hpp"

using namespace eboard;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static const char* codes[] = {"1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-", "1/2", "2-0"};
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // The text as the arbiter's entry too: nothing it holds may crash the check.
  const std::string_view half = text.substr(0, text.size() / 2);
  (void)outputs::make_verdict(half, text.substr(half.size(), 8), half.substr(0, 40), text);
  auto v = outputs::make_verdict(codes[data[0] & 7], "", "", "fuzz");
  if (!v) {
    if ((data[0] & 7) < 7) std::abort();  // every code but "2-0" is one
    return 0;
  }
  auto out = outputs::apply_verdict(text, *v, (data[0] & 8) != 0);
  if (!out) {
    if (out.error().empty()) std::abort();
    return 0;
  }
  if (outputs::pgn_tag(*out, "Result") != outputs::pgn_result(v->code)) std::abort();
  if (outputs::pgn_tag(*out, "ArbiterResult") != v->code) std::abort();
  if (!outputs::apply_verdict(*out, *v, true)) std::abort();
  // The partner board's record of a corrected match: a plain result, Termination kept partner-board, no
  // ArbiterResult; taken again by apply_verdict.
  const std::string partner = outputs::pgn_result(outputs::team1_code(1, v->code));
  if (partner == "*") return 0;
  auto p = outputs::apply_partner_result(text, partner, *v);
  if (!p) std::abort();  // apply_verdict took the same text
  if (outputs::pgn_tag(*p, "Result") != partner || outputs::pgn_tag(*p, "ArbiterResult") ||
      outputs::pgn_tag(*p, "Termination") != "partner-board")
    std::abort();
  if (!outputs::apply_verdict(*p, *v, true)) std::abort();
  return 0;
}
