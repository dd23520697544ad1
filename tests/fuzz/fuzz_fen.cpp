// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// FEN parser fuzzing. First byte: the variant (and Chess960); the rest: the FEN. A FEN that parses must
// write a FEN that parses to the same position; a valid position's moves must survive SAN and UCI.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rules/movegen.hpp"
#include "rules/notation.hpp"

using namespace eboard::rules;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  static constexpr Variant variants[] = {Variant::Chess, Variant::Chess, Variant::Crazyhouse,
                                         Variant::Bughouse};
  Variant v = variants[data[0] & 3];
  bool chess960 = (data[0] & 3) == 1;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto pos = Position::from_fen(text, v, chess960);
  if (!pos) return 0;
  for (bool shredder : {false, true}) {
    std::string fen = pos->fen(shredder);
    auto again = Position::from_fen(fen, v, pos->chess960());
    if (!again || again->fen(shredder) != fen || again->key() != pos->key()) std::abort();
  }
  if (!pos->validate().empty()) return 0;
  for (Move m : MoveList(*pos)) {
    auto san = parse_san(*pos, to_san(*pos, m));
    auto uci = parse_uci(*pos, to_uci(*pos, m));
    if (!san || *san != m || !uci || *uci != m) std::abort();
  }
  return 0;
}
