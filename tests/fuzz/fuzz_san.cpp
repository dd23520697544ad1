// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// SAN and UCI input fuzzing against a few fixed positions. First byte: the position (low bits) and the
// language (high bit); the rest: the move text. Whatever parses must be a legal move that writes back to
// text parsing to the same move. A move typed for a board without wood (Reconstructor::enter_move) is
// played exactly when one of them parses, and a refusal changes nothing.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard::rules;

namespace {

struct Fixed {
  const char* fen;
  Variant variant;
  bool chess960;
};

// Castling both ways, en passant, promotions with capture, pins, three queens, drops, 960 castling.
constexpr Fixed positions[] = {
    {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Variant::Chess, false},
    {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", Variant::Chess, false},
    {"r3k3/1P6/8/3pP3/8/8/8/4K3 w q d6 0 2", Variant::Chess, false},
    {"4k3/8/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", Variant::Chess, false},
    {"rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1", Variant::Chess, true},
    {"6kr/8/8/8/8/8/8/6KR w Kk - 0 1", Variant::Chess, true},
    {"r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R[QRBNPqrbnp] w KQkq - 0 9", Variant::Crazyhouse,
     false},
    {"r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R[Pn] b KQkq - 0 4", Variant::Bughouse, false},
};

const Position& position(int i) {
  static const auto all = [] {
    std::vector<Position> out;
    for (const Fixed& f : positions) out.push_back(*Position::from_fen(f.fen, f.variant, f.chess960));
    return out;
  }();
  return all[std::size_t(i)];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const Position& pos = position(data[0] & 7);
  Language language = (data[0] & 0x80) ? Language::French : Language::English;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  MoveList legal(pos);
  if (auto m = parse_san(pos, text, language)) {
    if (!legal.contains(*m)) std::abort();
    SanOptions options;
    options.language = language;
    auto again = parse_san(pos, to_san(pos, *m, options), language);
    if (!again || *again != *m) std::abort();
  } else if (m.error().find('\n') != std::string::npos) {
    std::abort();
  }
  if (auto m = parse_uci(pos, text)) {
    if (!legal.contains(*m)) std::abort();
    auto again = parse_uci(pos, to_uci(pos, *m));
    if (!again || *again != *m) std::abort();
  }
  if (pos.variant() == Variant::Chess && language == Language::English) {
    Reconstructor rec(ReconstructConfig{}, Game(pos));
    auto typed = rec.enter_move(text, {}, 1000);
    // enter_move reads the text without the white space around it.
    const std::size_t a = text.find_first_not_of(" \t\r\n"), b = text.find_last_not_of(" \t\r\n");
    const std::string_view token =
        a == std::string_view::npos ? std::string_view() : text.substr(a, b - a + 1);
    const bool parses = parse_uci(pos, token).has_value() || parse_san(pos, token).has_value();
    if (typed.has_value() != parses) std::abort();
    if (rec.game().ply_count() != (typed ? 1 : 0)) std::abort();
    if (!typed && typed.error().find('\n') != std::string::npos) std::abort();
  }
  return 0;
}
