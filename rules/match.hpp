// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bughouse match (FQE "blitz à 4"): two boards side by side, A and B, each reconstructed from its own
// sensors and clock, and the four reserves between them. Team 1 is White on A and Black on B.
//
// Sans-I/O like the Reconstructor: sensor events of either board and the time go in, events of both
// boards come out (each carries its board id), in time order. The caller owns the timers and calls
// `advance(now)` at `next_deadline()`.
//
// What it adds to the two boards:
//  * The reserves (FQE 6, 11, 21b): a capture completed on one board (the capturer's clock press) puts the
//    captured piece, in its own colour and as a pawn if it was a promoted one, into the reserve of the
//    capturer's partner on the other board. Drops are matched against these official reserves; a capture
//    the other board shows but has not completed yet is passed on too, so that a drop of that piece is
//    recognised as played too early (drop-before-partner-clock) rather than as a piece from nowhere.
//  * The match result (FQE 4, 14–16): the first game to end decides; when the other game ends within
//    `simultaneous_ms` as well, the same team winning both wins, otherwise the match is drawn (this covers
//    FQE 16, a capture that lets the partner mate while the capturer is mated at once, and both flags
//    falling for opposite teams). The game still going is then stopped (result reason partner-board).
//    The match-result event carries the id of the board whose game ended first.
//  * The pause (FQE 23): once the clocks have run, both clocks stopped pause the match (a team calls the
//    arbiter): a match-paused event, and no flag falls on either board until a clock runs again
//    (match-resumed). Both events carry the id of the board whose clock reading stopped or restarted it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::rules {

// Reconstruction settings with the bughouse-fqe profile.
inline ReconstructConfig bughouse_board_config(const char* profile = "bughouse-fqe") {
  ReconstructConfig c;
  c.profile = *profile_by_name(profile);
  return c;
}

struct MatchConfig {
  // Settings of both boards; the board ids come from `board_ids`, the variant is always bughouse.
  ReconstructConfig board = bughouse_board_config();
  std::array<std::string, 2> board_ids{"A", "B"};
  // Two games ending within this long of each other end "simultaneously" (FQE 15, 16). The match result
  // waits this long after the first end.
  std::int64_t simultaneous_ms = 2000;
  // Tags of the match record (WhiteA, BlackA, WhiteB, BlackB, Event, …).
  PgnTags tags;
};

class Match {
 public:
  explicit Match(MatchConfig cfg);
  // Continues two games (both Variant::Bughouse; their positions' pockets are the official reserves).
  Match(MatchConfig cfg, Game a, Game b);
  // The same, with the order the moves were completed in (the board of each, as record() lists them) and
  // the match result if it was decided: a match rebuilt from its record keeps its BPGN.
  Match(MatchConfig cfg, Game a, Game b, const std::vector<int>& completed_by,
        std::optional<MatchResultEvent> result);

  // A sensor event of board 0 (A) or 1 (B).
  std::vector<Event> on_sensor(int board, const SensorEvent& e);
  std::vector<Event> advance(std::int64_t now_ms);
  std::optional<std::int64_t> next_deadline() const;

  // Arbiter input. A resignation ends that board's game (and so the match); a draw agreement involves
  // both players of a team and ends the match (FQE 17).
  std::vector<Event> resign(int board, Color c, std::int64_t t_ms);
  std::vector<Event> agree_draw(std::int64_t t_ms);
  // A result the arbiter gives on board `b` (a decision, a forfeit, a flag he saw: `o` with its reason)
  // decides the match at once, from that game's result (no wait for the other game: the arbiter's word
  // is the first decision); the other game stops (partner-board). On a match decided already it is a
  // correction: board `b`'s game takes `o`, the match takes its result again (a new match-result event),
  // and the other game, if it had stopped for the match (partner-board), takes the new one.
  std::vector<Event> arbiter_result(int board, const Outcome& o, std::int64_t t_ms);
  // FQE 11: the piece a player names for his next promotion (the pawn stays a pawn on the board).
  void set_promotion_piece(int board, Color c, PieceType t);
  // The arbiter settles `board`'s missed gap or has it followed from the position it shows
  // (Reconstructor::settle_gap, adopt_board); the match's order of moves follows.
  tl::expected<std::vector<Event>, std::string> settle_gap(int board, std::size_t index, std::int64_t t_ms);
  tl::expected<std::vector<Event>, std::string> settle_gap(int board, const std::string& moves,
                                                           std::int64_t t_ms);
  tl::expected<std::vector<Event>, std::string> adopt_board(int board, std::int64_t t_ms,
                                                            std::optional<Color> side = {});

  const Reconstructor& board(int b) const { return boards_[std::size_t(b & 1)]; }
  // The official reserve of colour `c` on board `b` (what he may drop now).
  int reserve(int b, Color c, PieceType t) const { return board(b).game().position().pocket(c, t); }
  // The match result once decided, from the point of view of team 1 (White A + Black B).
  const std::optional<MatchResultEvent>& result() const { return result_; }
  // FQE 23: both clocks stopped while the match goes on.
  bool paused() const { return paused_; }
  // The match so far as a BPGN record: the moves of both boards in the order they were completed, each
  // with the mover's clock; the match result.
  BughouseRecord record() const;

 private:
  void absorb(int b, std::vector<Event> events, std::vector<Event>& out);
  // The events of an arbiter's action on board `b`, taken into the match like the board's own.
  tl::expected<std::vector<Event>, std::string> absorb_control(
      int b, std::int64_t t_ms, tl::expected<std::vector<Event>, std::string> events);
  // Where board `b`'s plies a settle rewrites end (0-based, exclusive) before it: a gap held with its
  // length open ends after its jump, one told ends after its shortest story, an uncertain recovery after
  // its plies.
  int settled_span_end(int b) const;
  // Board `b`'s plies before `end` rewritten as `delta` more (fewer): order_ takes the new ones after the
  // last it kept and moves the later ones on.
  void renumber(int b, int end, int delta);
  tl::expected<std::vector<Event>, std::string> settled(int b, std::int64_t t_ms, int span_end,
                                                        int plies_before,
                                                        tl::expected<std::vector<Event>, std::string> events);
  void hand_over(int from, const Handover& h, std::vector<Event>& out);
  void sync_shown(std::int64_t t, std::vector<Event>& out);
  void board_ended(int b, const ResultEvent& r, std::int64_t t, std::vector<Event>& out);
  void decide(std::int64_t t, std::vector<Event>& out);
  void judge_pause(int b, const ClockReading& r, std::int64_t t, std::vector<Event>& out);
  void finish(Result team1, const std::string& reason, int deciding_board, std::int64_t t,
              std::vector<Event>& out);

  MatchConfig cfg_;
  std::array<Reconstructor, 2> boards_;
  std::array<int, 2> plies_seen_{};
  struct Entry {
    int board;
    int ply;  // index into that board's game plies
  };
  std::vector<Entry> order_;  // completed moves of both boards, in the order they were completed
  struct End {
    int board;
    Result result;  // of that board's game
    std::string reason;
    std::int64_t t_ms;
  };
  std::vector<End> ends_;
  std::optional<std::int64_t> decide_at_;
  std::optional<MatchResultEvent> result_;
  std::array<std::optional<ClockReading>, 2> clocks_;  // the last reading of each board's clock
  bool clocks_ran_ = false;                            // a clock has run since the match began
  bool paused_ = false;
};

}  // namespace eboard::rules
