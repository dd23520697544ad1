// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What an aggregator takes from the hall (daemon/mqtt): any host's event envelopes and retained states, as
// the broker hands them over, line by line. A line `S{...}` is a board's state, `N` the host having nothing
// to send again, `K{...}` an envelope read back from what the aggregator kept, any other an envelope as
// published. Whatever comes, nothing throws or crashes, the game stays one the rules can replay, and the
// board's status, its PGN and its game behind a broadcast delay can be made.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "daemon/mqtt/remote_board.hpp"
#include "daemon/mqtt/topics.hpp"
#include "daemon/outputs/pgn_output.hpp"
#include "rules/notation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using eboard::mqtt::RemoteBoard;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  RemoteBoard rb("h1", "A");
  std::int64_t latest = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    if (line.starts_with("S")) {
      const nlohmann::json state = nlohmann::json::parse(line.substr(1), nullptr, false);
      if (state.is_object()) rb.take_state(state);
    } else if (line == "N") {
      rb.nothing_to_resend();
    } else {
      const bool kept = line.starts_with("K");
      if (auto env = eboard::mqtt::decode_envelope(kept ? line.substr(1) : line)) {
        if (env->event.contains("t") && env->event["t"].is_number_integer())
          latest = std::max(latest, env->event["t"].get<std::int64_t>());
        rb.take(*env, kept);
      }
    }
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  // The game replays from its start, move by move, as a reader of its record would.
  const eboard::rules::Game& g = rb.game();
  for (int i = g.legal_since(); i < g.ply_count(); ++i) {
    const auto& p = g.plies()[std::size_t(i)];
    if (p.illegal || p.jump) continue;
    const eboard::rules::Position before = g.position_at(i);
    if (!eboard::rules::parse_uci(before, eboard::rules::to_uci(before, p.move))) std::abort();
  }
  (void)rb.status().dump();
  (void)rb.board_status().dump();
  const eboard::rules::Game shown = rb.public_game(latest - 1000);
  (void)eboard::outputs::game_pgn({rb.id(), &g, rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
  (void)eboard::outputs::game_pgn(
      {rb.id(), &shown, rb.tags(), rb.started_ms(), rb.game_number(), {}, "", ""});
  for (const auto& e : rb.earlier())
    (void)eboard::outputs::game_pgn({rb.id(), &e.game, e.tags, e.started_ms, e.number, {}, "", ""});
  return 0;
}
