// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A correction of a bughouse match board's moves on any texts (records on disk may be damaged or not
// eboardd's, the arbiter's moves are typed). First byte: bit 0 the board, bits 1-7 the first ply replaced;
// the rest: the BPGN, board A's record, board B's record and the arbiter's moves, separated by NUL bytes.
// replace_match_moves either refuses with a reason or gives a BPGN that reads back as one match and
// replays, and a record for the corrected board that reads back as one game.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "daemon/outputs/match_moves.hpp"
#include "rules/pgn.hpp"

using namespace eboard;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int board = data[0] & 1;
  const int from_ply = data[0] >> 1;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::array<std::string, 4> parts;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto nul = i + 1 < parts.size() ? rest.find('\0') : std::string_view::npos;
    parts[i] = std::string(rest.substr(0, nul));
    rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
  }
  auto v = outputs::make_verdict("1-0", "", "", "fuzz");
  if (!v) std::abort();
  const std::array<std::string, 2> ids{"A", "B"};
  auto r = outputs::replace_match_moves(parts[0], {parts[1], parts[2]}, board, from_ply, parts[3], *v, ids);
  if (!r) {
    if (r.error().why.empty() || outputs::refusal_text(r.error(), ids).empty()) std::abort();
    return 0;
  }
  auto games = rules::read_bpgn(r->bpgn);
  if (!games || games->size() != 1 || !rules::replay_bughouse(games->front())) std::abort();
  if (!r->records[std::size_t(board)]) std::abort();
  auto pgn = rules::read_pgn(*r->records[std::size_t(board)]);
  if (!pgn || pgn->size() != 1) std::abort();
  return 0;
}
