// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The Reconstructor's recovery of moves made while the board was not followed (a cable out, the daemon
// down, field updates lost, scans read late): the searches (rules/gap_search.hpp) of the boards
// GapTracker says to search, the stories they rank (rules/gap_rank.hpp), the missed gap for the arbiter,
// and the board adopted when nothing explains it.
#include "rules/reconstruct.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "rules/gap_hand.hpp"
#include "rules/gap_openings.hpp"
#include "rules/gap_pace.hpp"
#include "rules/gap_search.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/wood.hpp"

namespace eboard::rules {

namespace {

// The side on move after `plies` plies from `from`.
Color side_after(const Position& from, int plies) {
  return plies % 2 == 0 ? from.side_to_move() : ~from.side_to_move();
}

// How many of each kind of piece `board` shows.
std::array<int, PIECE_NB> kinds_on(const std::array<Piece, 64>& board) {
  std::array<int, PIECE_NB> n{};
  for (const Piece p : board)
    if (p != NO_PIECE) ++n[p];
  return n;
}

// The board `read` with a piece of the opponent of `mover` put back on a square where `now` shows a piece of
// the mover's, empty on `read`: the victim lifted before the reading, its taker set down there since. One
// board per kind of his short of its count on `known` (the last known position).
std::vector<std::array<Piece, 64>> boards_with_the_victim_put_back(const std::array<Piece, 64>& read,
                                                                   const std::array<Piece, 64>& now,
                                                                   const std::array<Piece, 64>& known,
                                                                   Color mover) {
  std::vector<std::array<Piece, 64>> boards;
  const std::array<int, PIECE_NB> before = kinds_on(known);
  const std::array<int, PIECE_NB> on_read = kinds_on(read);
  for (Square q = 0; q < 64; ++q) {
    if (read[q] != NO_PIECE || now[q] == NO_PIECE || color_of(now[q]) != mover) continue;
    for (PieceType type : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN}) {
      const Piece victim = make_piece(~mover, type);
      if (on_read[victim] >= before[victim] || (type == PAWN && (rank_of(q) == 0 || rank_of(q) == 7)))
        continue;
      boards.push_back(read);
      boards.back()[q] = victim;
    }
  }
  return boards;
}

// `game` with its plies from `first_ply` on replaced by `moves` (recovered, the last with the clock reading
// of the game's last ply), when they are legal.
std::optional<Game> with_the_last_plies_replaced(const Game& game, int first_ply,
                                                 const std::vector<Move>& moves) {
  if (game.ply_count() < first_ply || game.outcome()) return std::nullopt;
  Game g = game;
  const PlyRecord last = g.plies().back();
  while (g.ply_count() >= first_ply) g.undo();
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (!MoveList(g.position()).contains(moves[i])) return std::nullopt;
    g.play(moves[i], i + 1 == moves.size() ? last.clock : ClockTimes{}, last.time_ms);
    g.mark_last(true, false);
  }
  return g;
}

// `game` with its plies [first_ply, last_ply + 1] (the gap told and the move after it) replaced by `moves`
// and the one move after them that leads to the position after that ply: a story told short whose end differs
// from the moves played by a piece that the next move set where the game has it (the hall's blitz game 95,
// 180+0: the queen in the hand at the reading for 13...Qh4+, from e7 in the moves played, from d8 in the
// story; game 253, 300+0: the queen's detour c7-d7-c7 across the gap's end, 10.h3 Qc7 told as a story in
// which it never moved and ...Nf6 the next move). True when they did (`game` changed).
bool replaced_with_the_next_move_otherwise(Game& game, int first_ply, int last_ply,
                                           const std::vector<Move>& moves) {
  if (last_ply >= game.ply_count()) return false;
  const PlyRecord& next = game.plies()[std::size_t(last_ply)];
  if (next.jump || next.illegal) return false;
  const Position after_next = game.position_at(last_ply + 1);
  Position p = game.position_at(first_ply - 1);
  for (Move m : moves) {
    if (!MoveList(p).contains(m)) return false;
    p.do_move(m);
  }
  for (Move m : MoveList(p)) {
    Position q = p;
    q.do_move(m);
    if (q.board() != after_next.board() || q.side_to_move() != after_next.side_to_move()) continue;
    std::vector<Move> with = moves;
    with.push_back(m);
    return game.replace_span(first_ply - 1, last_ply + 1, with);
  }
  return false;
}

// Whether the time each side used over a gap of `plies` plies from `before`, up to the press that told it,
// fits one move more per side better than the story's count, by the pace of each side's moves before it
// (rules/gap_pace.hpp).
bool pace_suggests_longer(const Game& game, const Position& before, int plies, const GapEvidence& evidence) {
  if (!evidence.time_used_ms) return false;
  const auto paces = side_paces(game);
  double ratio = 0;
  for (Color side : {WHITE, BLACK}) {
    const int moves = side == before.side_to_move() ? (plies + 1) / 2 : plies / 2;
    ratio +=
        one_more_move_log_ratio(paces[std::size_t(side)], (*evidence.time_used_ms)[std::size_t(side)], moves);
  }
  return ratio > kOneMoreMoveHoldLogRatio;
}

// A moves-missed alert told at the shortest length where the clock counts no presses and a longer story is
// as possible (ReconstructConfig::hold_uncounted_gaps off): says so, and how the arbiter puts it right.
void note_length_uncertain(AlertEvent& a, bool drops = false) {
  a.detail +=
      std::string(
          ". The clock adds no increment, so its presses do not count the moves: a longer story, "
          "with a piece's detour") +
      (drops ? " or a piece dropped and taken" : "") +
      ", may have been played; given as the gap's moves (eboardctl recover --moves), it puts every later "
      "move at its ply";
  a.extra.push_back({"length_uncertain", "true", true});
}

}  // namespace

void Reconstructor::follow_board(std::int64_t t, std::vector<TouchTracker::Touch> carried) {
  reset_turn();
  touches_.resume(std::move(carried), game_.position().side_to_move());
  display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
  recompute_successors();
  forget_mismatch();
  gaps_.clear_suspicion();
  gaps_.reset_failures();
  gaps_.reopen_length();
  adopt_candidate_.reset();
  history_.push_back({t, physical_, touches_.size()});
  if (const Successor* s = matching_successor()) {
    last_match_ = LastShown{*s, touches_.size(), history_.size() - 1};
    touches_.release_due(t + cfg_.profile.release_ms);
    // Without a clock the move shown completes once it has rested, as any other.
    if (clockless() && !game_.outcome() &&
        !(s->pawn_left_on_last_rank && !cfg_.profile.pawn_may_stay_on_last_rank))
      deadlines_.set(Wake::RestComplete, t + cfg_.complete_after_ms);
    publish_provisional(t);
  }
}

bool Reconstructor::recover_gap(std::int64_t t, const PendingPress* press) {
  if (no_moves_to_find()) return false;
  // The gap's length waits for the other side's press: this one was read before that wait began (the
  // clock the search went by is the one after it), so the stories count it already, and the board now may
  // show the next mover's hand at work (the hall's blitz game 389: 21.f4 pressed as Black lifted his bishop
  // for 22...Bc6; searched then, the bishop in the air read as taken in a story a ply longer). The wait goes
  // on: the next press, a move, or the mismatch time tells.
  if (press && gaps_.length() == GapTracker::Length::Waiting && gaps_.waiting_on_move() &&
      *gaps_.waiting_on_move() != press->presser)
    return false;
  // A press completed the moves the board showed when it was read: the opponent's next move may be under
  // way by now (a restart's held readings come with its dump, and the hand goes on meanwhile). Failing
  // that board, the board as it is now (the press read before the last placement was).
  const BoardState* read = press ? state_at(press->t_ms) : nullptr;
  const std::array<Piece, 64> at_press = read ? read->board : physical_;
  const int failed_before = gaps_.searches_failed();
  // The board changed after the press was read: the next mover's hand was at work then (a restart's dump
  // read with his piece in the air), and what it shows now is most likely his move, set down and not
  // pressed yet, after the moves the press completed. A board that only lost pieces since had nothing set
  // down: the hand is still at work, and searched as it is, a piece in the air reads as taken (a longer
  // story, not the one played). The board the press came with is searched first then. Not a press read
  // after the reconnect's board on a board at rest for a scan: that press completed what the board showed,
  // and the change since is the opponent's reply begun (the hall's blitz game 2: 13.Be3 set down after the
  // reconnect and pressed, Black's king on its way to castle when the press was decided).
  const bool pressed_at_rest =
      read && !press_at_the_reading(*press) && press->t_ms - read->t_ms >= cfg_.scan_ms;
  const bool moved_since_press = press && !pressed_at_rest && last_board_event_ > press->t_ms;
  bool only_lifted = moved_since_press;
  for (Square q = 0; q < 64 && only_lifted; ++q)
    only_lifted = physical_[q] == NO_PIECE || physical_[q] == at_press[q];
  // So is a castling half made since (the king set down, its rook still to come): searched as it is, the
  // king reads as walked there in a longer story (13.Be3's capture read two seconds late: its press a
  // moment after the stall's end, Black's king set on g8 before the press was decided).
  if (only_lifted || (moved_since_press && castling_under_way(physical_))) {
    // (A probe: found nothing, it leaves the searches as they were, the board as it is searched next.)
    const GapTracker::SearchState before = gaps_.search_state();
    if (recover_gap_on(t, press, at_press, false)) return true;
    if (gaps_.length() == GapTracker::Length::Waiting) return false;  // its length waits for the next press
    gaps_.restore(before);
  }
  // (The board at the press waiting for the next press to tell its length is the one waited on.)
  bool found = moved_since_press
                   ? recover_gap_on(t, press, physical_, true)
                   : recover_gap_on(t, press, at_press, false) ||
                         (at_press != physical_ && gaps_.length() != GapTracker::Length::Waiting &&
                          recover_gap_on(t, press, physical_, false));
  if (!found) gaps_.limit_failures(failed_before + 1);
  return found;
}

bool Reconstructor::end_dump_wait(std::int64_t t, const std::array<Piece, 64>& as_stood) {
  gaps_.take_dump_deferral();
  deadlines_.clear(Wake::Mismatch);
  deadlines_.clear(Wake::HeldLift);
  if (no_moves_to_find()) return false;
  const int failed_before = gaps_.searches_failed();
  if (recover_gap_on(t, nullptr, as_stood, false)) return true;
  gaps_.limit_failures(failed_before + 1);
  // Nothing within the search's bound (or none it could finish): as for a dump at rest, the next press
  // may tell a gap past it (the hall's blitz game 381: 5.Bb5 .. 8...Qxe7 unseen with 9.Nf3 shown, two
  // exchanges the search could not finish, the captured bishop waited for in the hand).
  if (gaps_.length() == GapTracker::Length::Open) gaps_.unexplained(as_stood);
  return false;
}

bool Reconstructor::follow_late_scans(std::int64_t t) {
  if (no_moves_to_find() || matching_successor()) return false;
  return complete_under_reply(t) || recover_scan_gap(t);
}

bool Reconstructor::complete_under_reply(std::int64_t t) {
  const Successor* s = successor_under_reply();
  if (!s) return false;
  const Successor done = *s;
  commit_current(done, t, {});
  on_board_changed(t);  // the reply under way is judged from the new position
  return true;
}

const Reconstructor::Successor* Reconstructor::successor_under_reply() const {
  const Color replier = ~game_.position().side_to_move();
  const Successor* shown = nullptr;
  for (const auto& s : successors_) {
    if (s.early || (s.pawn_left_on_last_rank && !cfg_.profile.pawn_may_stay_on_last_rank)) continue;
    bool only_replier = true;
    for (Square q = 0; q < 64 && only_replier; ++q)
      only_replier =
          physical_[q] == s.board[q] || ((s.board[q] == NO_PIECE || color_of(s.board[q]) == replier) &&
                                         (physical_[q] == NO_PIECE || color_of(physical_[q]) == replier));
    if (!only_replier) continue;
    if (shown) return nullptr;  // two moves fit: the board does not tell which
    shown = &s;
  }
  return shown;
}

Reconstructor::HandRestored Reconstructor::with_hand_put_back() const {
  // A piece in the hand is missing from the board: its kind is short of what the last known position had,
  // and the square it left is empty. Put back, the board is the position the moves made reach, and the
  // search finds those moves, not a longer story in which the piece was taken and its taker moved on.
  const std::array<int, PIECE_NB> before = kinds_on(display_);
  const std::array<int, PIECE_NB> now = kinds_on(physical_);
  std::array<Piece, 64> restored = physical_;
  std::optional<Color> hand;
  bool both_hands = false;
  // The board before the last change: a piece in the hand left its square in that change.
  const std::array<Piece, 64>& prev = history_.size() >= 2 ? history_[history_.size() - 2].board : display_;
  for (Square q = 0; q < 64; ++q) {
    const Piece was = display_[q];
    // (A square emptied earlier is more likely a capture's victim, or a piece that moved on.)
    if (was == NO_PIECE || physical_[q] != NO_PIECE || prev[q] != was) continue;
    int vacated = 0;
    bool set_down = false;  // one of its kind set down in the same change: it moved (Ne2-c3)
    for (Square r = 0; r < 64; ++r) {
      vacated += display_[r] == was && physical_[r] == NO_PIECE;
      set_down |= physical_[r] == was && prev[r] != was;
    }
    // Only when every square that kind left empty is needed to make up its count.
    if (set_down || now[was] + vacated != before[was]) continue;
    restored[q] = was;
    both_hands |= hand && *hand != color_of(was);
    hand = color_of(was);
  }
  return {restored, hand, restored != physical_ && !both_hands};
}

bool Reconstructor::dump_shows_a_hand_at_work() const {
  // With a piece in the air put back, the board is reached by a shorter story than as it is, where the
  // piece was taken: both are possible (a restart's dump read while the mover's hand held his piece, or
  // the piece really captured), and only what comes next tells.
  const HandRestored held = with_hand_put_back();
  if (!held.known) return false;
  const GapFound as_is = search_gap_to(nullptr, physical_, false, std::nullopt, kGapPlies);
  const int limit = as_is.explains() ? as_is.result.plies - 1 : kGapPlies;
  return limit > 0 && search_gap_to(nullptr, held.board, false, held.hand, limit).explains();
}

std::uint32_t Reconstructor::dump_lacks_the_movers_pieces(const std::array<Piece, 64>& dump) const {
  const std::optional<Color> mover = clock_.on_move();
  if (!mover) return 0;
  const std::array<int, PIECE_NB> before = kinds_on(display_);
  const std::array<int, PIECE_NB> now = kinds_on(dump);
  // A kind of the mover's short of its count, off a square it stood on in the last known position, or (moved
  // within the gap, then lifted for the next move) on the square the story as the board stands moved it to
  // before it was "taken" (the hall's blitz game 373: 16...Bg4 17.h3 with 18...Bh5's bishop in the air, read
  // as ...Bf3 Nxf3): perhaps the piece in his hand.
  std::vector<std::pair<Square, Piece>> places;
  for (Square q = 0; q < 64; ++q)
    if (display_[q] != NO_PIECE && color_of(display_[q]) == *mover) places.emplace_back(q, display_[q]);
  const auto short_at = [&](Square q, Piece was) { return dump[q] == NO_PIECE && now[was] < before[was]; };
  // His king missing is in his hand: no story takes a king (the hall's blitz game 106: 10...Kh8 under way
  // at the reading, after castling in the gap; nothing reached the board, and the press that followed the
  // king set down was not searched).
  if (const Piece king = make_piece(*mover, KING); now[king] < before[king]) return 1u << king;
  // Its square may show another piece since (the hall's blitz game 62: 15.Nd4, then 16.f3 on the knight's
  // square, 17.Nb3 and 18.Nd4's knight in the air, read as ...Ne5 ... Nd7 Bxd7): short all the same.
  if (std::none_of(places.begin(), places.end(),
                   [&](const auto& p) { return now[p.second] < before[p.second]; }))
    return 0;
  const GapFound as_is = search_gap_to(nullptr, dump, false, std::nullopt, kGapPlies);
  // No longer: taken, the piece needs its taker's capture, and the moves the story put off for it (a story
  // as long that takes it is no likelier than the hand at work: the hall's blitz game 347, 11.Bg5 ...
  // 18...Nf6 with 19.e4's pawn in the air read as 11.e4 ... Nxe4 ... Nxf6). Against a story whose last move
  // is shown and not pressed, shorter by one: both then count the same presses. Waiting costs nothing: a
  // piece of another kind moved ends the wait, the board searched as it stood; one of these set down and
  // pressed is searched at the press.
  const int limit =
      !as_is.explains()
          ? kGapPlies
          : as_is.result.plies - (side_after(game_.position(), as_is.result.plies) == *mover ? 0 : 1);
  if (limit <= 0) return 0;
  if (as_is.explains() && !as_is.result.sequences.empty()) {
    Position p = game_.position();
    for (Move m : as_is.result.sequences.front()) {
      const bool mine = color_of(p.piece_on(m.from())) == *mover && m.kind() != Move::CASTLING;
      p.do_move(m);
      if (mine &&
          std::find(places.begin(), places.end(), std::pair{m.to(), p.piece_on(m.to())}) == places.end())
        places.emplace_back(m.to(), p.piece_on(m.to()));
    }
  }
  // Nothing reaches the board as it is: a pawn of his gone from its square may have been pushed on within
  // the gap and lifted there, on a square no story shows (the hall's blitz game 335: 5.d3 ... 7...Ng4, 8.d4's
  // pawn lifted from d3; d2 needed empty for 7.Be3, and no story takes the pawn).
  if (!as_is.explains())
    for (const auto& [q, was] : std::vector(places))
      if (type_of(was) == PAWN && short_at(q, was))
        for (int r = rank_of(q) + (*mover == WHITE ? 1 : -1); r > 0 && r < 7; r += *mover == WHITE ? 1 : -1)
          if (const Square ahead = make_square(file_of(q), r); dump[ahead] == NO_PIECE)
            places.emplace_back(ahead, was);
  // All the tries within three retries' work (about a fifth of a second of a core): a dump read past the
  // search's bound would otherwise search every square in vain (twenty tries, a second and more), the event
  // loop held meanwhile. The likeliest squares come first (the hall's blitz game 328 found its bishop at
  // the second, after 3.1 of the 3.6 million positions).
  std::uint64_t work_left = 3 * kGapRetryWork * gap_query(dump, mover).max_nodes;
  std::uint32_t held_kinds = 0;
  const auto try_places = [&] {
    for (const auto& [q, was] : places) {
      if (work_left == 0) return;
      if (!short_at(q, was) || ((held_kinds >> was) & 1u)) continue;
      std::array<Piece, 64> held = dump;
      held[q] = was;
      if (story_reaches(held, limit, work_left)) held_kinds |= 1u << was;
    }
  };
  try_places();
  if (held_kinds) return held_kinds;
  // Failing those, a square an opponent's piece stood on in the last known position, empty now: it took
  // there within the gap and was lifted for the next move (the hall's blitz game 118: 19.Bxb7 Nbd7 with
  // 21.Bxa8's bishop in the air, read as ...Ba6 bxa6). (Only then: each square costs a search.)
  places.clear();
  for (Square q = 0; q < 64; ++q) {
    if (display_[q] == NO_PIECE || color_of(display_[q]) == *mover || dump[q] != NO_PIECE) continue;
    for (int pc = 0; pc < PIECE_NB; ++pc)
      if (pc != NO_PIECE && color_of(Piece(pc)) == *mover && now[pc] < before[pc] &&
          !(type_of(Piece(pc)) == PAWN && (rank_of(q) == 0 || rank_of(q) == 7)))
        places.emplace_back(q, Piece(pc));
  }
  try_places();
  if (held_kinds || !as_is.explains()) return held_kinds;
  // Failing those too, a piece of his short of its count may have moved within the gap to a square no story
  // of the board as it is passes, and been lifted there: each empty square it reaches in one move from its
  // square in the last known position (the hall's TCEC game 47: 33.Ba6 among plies 32-36 unseen, the bishop
  // lifted from a6 for 37.Bxb5, read as Bb5 Bxb5). (Only with a story as it is: its length bounds each
  // search.)
  places.clear();
  Bitboard occupied = 0;
  for (Square q = 0; q < 64; ++q)
    if (display_[q] != NO_PIECE) occupied |= square_bb(q);
  for (Square q = 0; q < 64; ++q) {
    const Piece was = display_[q];
    if (was == NO_PIECE || color_of(was) != *mover || type_of(was) == PAWN || type_of(was) == KING ||
        now[was] >= before[was])
      continue;
    for (Bitboard to = attacks(type_of(was), q, occupied); to;)
      if (const Square x = pop_lsb(to); dump[x] == NO_PIECE) places.emplace_back(x, was);
  }
  try_places();
  return held_kinds;
}

std::optional<Reconstructor::Victim> Reconstructor::victim_in_the_hand(const std::array<Piece, 64>& dump,
                                                                       std::optional<Square> at) const {
  const std::optional<Color> mover = clock_.on_move();
  if (!mover || has_drops(game_.position().variant())) return std::nullopt;
  const std::array<int, PIECE_NB> before = kinds_on(display_);
  std::array<int, PIECE_NB> now = kinds_on(dump);
  std::vector<Piece> short_kinds;
  for (int pc = 0; pc < PIECE_NB; ++pc)
    if (Piece(pc) != NO_PIECE && color_of(Piece(pc)) != *mover && type_of(Piece(pc)) != KING &&
        now[pc] < before[pc])
      short_kinds.push_back(Piece(pc));
  if (short_kinds.empty()) return std::nullopt;
  // (Nothing reaches the dump as it stands within the bound, or its search ran out of work: any story of
  // it with the piece put back is the shorter.)
  const GapFound as_is = search_gap_to(nullptr, dump, false, std::nullopt, kGapPlies);
  const int limit = as_is.explains() ? as_is.result.plies - 2 : kGapPlies;
  if (limit < 1) return std::nullopt;
  // The taker may be in the air too (the capture under way as the board was read): the mover's pieces short
  // of their count stand where they stood when last followed, their squares empty. Failing that, the board as
  // read: those pieces taken within the gap (the hall's blitz game 58: 10.e4 dxe4 11.Nxe4 unseen, 11...Nxe4
  // under way with White's knight off e4; the d-pawn put back on d5, no story reached the board).
  std::array<Piece, 64> with_takers = dump;
  for (Square q = 0; q < 64; ++q)
    if (const Piece was = display_[q];
        was != NO_PIECE && color_of(was) == *mover && dump[q] == NO_PIECE && now[was] < before[was]) {
      with_takers[q] = was;
      ++now[was];
    }
  std::uint64_t work = 0;
  const auto victim_on = [&](const std::array<Piece, 64>& base) -> std::optional<Victim> {
    const auto at_the_dump = board_position(*mover, base);
    if (!at_the_dump) return std::nullopt;
    // The squares nearest where a piece of that kind stood when last followed first (it moved a step or two
    // in the gap, if at all), sixteen tries at most, each a probe that stops at the first story (all
    // pressed: the mover on move), all within a retry's work.
    struct Try {
      int distance;
      Square square;
      Piece kind;
    };
    std::vector<Try> tries;
    for (Square x = 0; x < 64; ++x) {
      if (base[x] != NO_PIECE || (at && x != *at) ||
          !(at_the_dump->attackers_to(x) & at_the_dump->pieces(*mover)))
        continue;
      for (const Piece kind : short_kinds) {
        if (type_of(kind) == PAWN && (rank_of(x) == 0 || rank_of(x) == 7)) continue;
        int distance = 8;
        for (Square q = 0; q < 64; ++q)
          if (display_[q] == kind)
            distance = std::min(
                distance, std::max(std::abs(file_of(q) - file_of(x)), std::abs(rank_of(q) - rank_of(x))));
        tries.push_back({distance, x, kind});
      }
    }
    std::stable_sort(tries.begin(), tries.end(),
                     [](const Try& a, const Try& b) { return a.distance < b.distance; });
    if (tries.size() > 16) tries.resize(16);
    for (const Try& t : tries) {
      std::array<Piece, 64> put_back = base;
      put_back[t.square] = t.kind;
      GapQuery q = gap_query(put_back, mover);
      q.max_plies = std::min(limit, q.max_plies);
      q.max_candidates = 1;
      const std::uint64_t bound = kGapRetryWork * q.max_nodes;
      if (work >= bound) break;
      q.max_nodes = bound - work;
      const GapResult r = remembered_search_gap(q);
      work += r.nodes;
      if (r.plies == 0 || r.exhausted) continue;
      std::uint32_t kinds = 0;
      for (Bitboard b = at_the_dump->attackers_to(t.square) & at_the_dump->pieces(*mover); b;)
        kinds |= 1u << at_the_dump->piece_on(pop_lsb(b));
      return Victim{t.square, kinds};
    }
    return std::nullopt;
  };
  if (std::optional<Victim> v = victim_on(with_takers)) return v;
  if (with_takers != dump) return victim_on(dump);
  return std::nullopt;
}

bool Reconstructor::story_reaches(const std::array<Piece, 64>& board, int max_plies,
                                  std::uint64_t& work_left) const {
  return a_story_within_the_bound(board, clock_.on_move(), max_plies, &work_left).has_value();
}

bool Reconstructor::recover_scan_gap(std::int64_t t) {
  const auto [restored, hand, hand_known] = with_hand_put_back();
  if (gaps_.searched(physical_)) return false;
  // Both readings are searched, the shorter story wins: a capture whose taker was taken in turn (Bxc3
  // bxc3) also leaves a square empty and its kind short, and then the board as it is is the shorter.
  // (Hundreds of sequences are no story either: a hand at work, not moves made.)
  const GapFound as_is = search_gap_to(nullptr, physical_, false, std::nullopt, kScanGapPlies);
  const int limit = explains_scans(as_is) ? as_is.result.plies - 1 : kScanGapPlies;
  std::optional<GapFound> held;
  if (hand_known && limit > 0) {
    held = search_gap_to(nullptr, restored, false, hand, limit);
    if (!explains_scans(*held)) held.reset();
  }
  // The readings whose story every scan since the last move fits (a story a scan contradicts is not what
  // the hands did), and the boards that rested before this one: with hands at work on several pieces (a
  // capture's victim and taker both lifted) the board as it is reads as a longer story. Of these, the one
  // with the fewest plies the scans never saw a piece set down for: every ply sets one down, and a story
  // that needs unseen plies (a piece in the hand "taken", its taker gone out and back) is the likelier
  // wrong; the latest board on a tie. (A scan read late can hide a ply: the same piece moved twice.)
  const int set_down = pieces_set_down(history_.size());
  std::vector<Reading> fitting;
  if (held && fits_every_scan(*held))
    fitting.push_back({restored, hand, limit, held->result.plies - set_down});
  if (explains_scans(as_is) && fits_every_scan(as_is))
    fitting.push_back({physical_, std::nullopt, kScanGapPlies, as_is.result.plies - set_down});
  add_rested_readings(fitting);
  const auto best = std::min_element(fitting.begin(), fitting.end(),
                                     [](const Reading& x, const Reading& y) { return x.unseen < y.unseen; });
  if (best != fitting.end() && recover_gap_on(t, nullptr, best->board, false, best->begun, best->max_plies))
    return true;
  if (held && recover_gap_on(t, nullptr, restored, false, hand, limit)) return true;
  if (explains_scans(as_is) && recover_gap_on(t, nullptr, physical_, false)) return true;
  gaps_.mark_searched(physical_);
  return false;
}

bool Reconstructor::fits_every_scan(const GapFound& f) const {
  const Position& before = game_.position();
  return std::any_of(f.result.sequences.begin(), f.result.sequences.end(), [&](const std::vector<Move>& s) {
    return scans_fitting(before, s) == int(history_.size());
  });
}

void Reconstructor::add_rested_readings(std::vector<Reading>& out) const {
  const Position& before = game_.position();
  std::vector<std::array<Piece, 64>> tried;
  // The latest boards first, a few: each search may cost its whole work bound. (The last board is the
  // board as it is, read by the caller.)
  for (std::size_t n = history_.size(); n-- > 1 && tried.size() < 4;) {
    const std::size_t i = n - 1;
    const std::array<Piece, 64>& b = history_[i].board;
    if (history_[i + 1].t_ms - history_[i].t_ms < cfg_.settle_ms) continue;  // a hand passing over
    if (b == physical_ || b == display_ || successor_for(b) ||
        std::find(tried.begin(), tried.end(), b) != tried.end())
      continue;
    tried.push_back(b);
    const GapFound f = search_gap_to(nullptr, b, false, std::nullopt, kScanGapPlies);
    if (!explains_scans(f) || !fits_every_scan(f)) continue;
    // The board went on from there: the hand at work since is the next mover's, every move made is done.
    const Color after = side_after(before, f.result.plies);
    out.push_back({b, after, f.result.plies, f.result.plies - pieces_set_down(i + 1)});
  }
}

int Reconstructor::pieces_set_down(std::size_t scans) const {
  int count = 0;
  const Board* previous = &display_;
  for (std::size_t i = 0; i < scans && i < history_.size(); ++i) {
    for (Square q = 0; q < 64; ++q)
      count += history_[i].board[q] != NO_PIECE && history_[i].board[q] != (*previous)[q];
    previous = &history_[i].board;
  }
  return count;
}

int Reconstructor::scans_fitting(const Position& before, const std::vector<Move>& sequence) const {
  const bool pawn_stays = cfg_.profile.pawn_may_stay_on_last_rank;
  std::vector<Board> positions{physical_view(before, pawn_stays)};
  Position p = before;
  for (Move m : sequence) {
    p.do_move(m);
    positions.push_back(physical_view(p, pawn_stays));
  }
  std::vector<Board> next;  // the boards of the moves that may follow the story
  for (Move m : MoveList(p)) next.push_back(board_after(positions.back(), p, m));
  // Every piece on the board stands where it stood before the move or where it stands after it.
  auto on_the_way = [](const Board& seen, const Board& from, const Board& to) {
    for (Square q = 0; q < 64; ++q)
      if (seen[q] != NO_PIECE && seen[q] != from[q] && seen[q] != to[q]) return false;
    return true;
  };
  auto fits_at = [&](const Board& seen, std::size_t j) {
    if (j + 1 < positions.size()) return on_the_way(seen, positions[j], positions[j + 1]);
    return on_the_way(seen, positions[j], positions[j]) ||
           std::any_of(next.begin(), next.end(),
                       [&](const Board& n) { return on_the_way(seen, positions[j], n); });
  };
  // In order: the earliest move a scan fits leaves the most room for the scans after it.
  std::size_t j = 0;
  int count = 0;
  for (const auto& h : history_)
    for (std::size_t k = j; k < positions.size(); ++k)
      if (fits_at(h.board, k)) {
        j = k;
        ++count;
        break;
      }
  return count;
}

GapQuery Reconstructor::gap_query(const std::array<Piece, 64>& board,
                                  std::optional<Color> side_to_move) const {
  GapQuery q;
  q.from = game_.position();
  q.board = board;
  q.pawn_may_stay_on_last_rank = cfg_.profile.pawn_may_stay_on_last_rank;
  q.promotion_types = cfg_.profile.promotion_types;
  q.side_to_move = side_to_move;
  q.max_plies = has_drops(q.from.variant()) ? drop_gap_bound(board) : kGapPlies;
  return q;
}

int Reconstructor::drop_gap_bound(const std::array<Piece, 64>& board) const {
  // (The match's test: 11.Ke1-f1 P@h3 unseen with 12.Ne2-f4's knight in the air at the reading; searched to
  // six plies, the knight reads as taken, Ng1 Ng5 Nf3 Nxf3, and the knight's drop that follows as illegal.)
  const std::array<int, PIECE_NB> before = kinds_on(display_);
  const std::array<int, PIECE_NB> now = kinds_on(board);
  GapQuery q;
  q.from = game_.position();
  q.pawn_may_stay_on_last_rank = cfg_.profile.pawn_may_stay_on_last_rank;
  q.promotion_types = cfg_.profile.promotion_types;
  q.max_plies = kDropHandPlies;
  q.max_candidates = 1;
  // All the tries within one search's work: a board with many pieces gone (set up anew, knocked over) is
  // no hand at work to tell apart, and the event loop is not held for it.
  std::uint64_t work_left = q.max_nodes;
  for (Square s = 0; s < 64; ++s) {
    const Piece was = display_[s];
    if (was == NO_PIECE || board[s] != NO_PIECE || now[was] >= before[was]) continue;
    if (work_left == 0) return kDropHandPlies;
    q.board = board;
    q.board[s] = was;
    q.max_nodes = work_left;
    const GapResult r = remembered_search_gap(q);
    work_left -= std::min(work_left, r.nodes);
    if (r.plies > 0 || r.exhausted) return kDropHandPlies;
  }
  return kDropGapPlies;
}

bool Reconstructor::reached_within_the_bound(const std::array<Piece, 64>& board,
                                             std::optional<Color> side_to_move) const {
  GapQuery q = gap_query(board, side_to_move);
  q.max_candidates = 1;  // whether one exists
  const GapResult found = search_gap_harder(q);
  return found.plies > 0 && !found.exhausted;
}

Reconstructor::GapFound Reconstructor::search_gap_to(const PendingPress* press,
                                                     const std::array<Piece, 64>& board,
                                                     bool last_unpressed_likely, std::optional<Color> begun,
                                                     int max_plies, bool keep_all_pressed) const {
  const Position before = game_.position();
  // With drops, what kDropHandPlies tells is told as it was (a longer story all pressed would otherwise
  // compete with the shorter one whose last move is shown: the match's test, 2...d5 exd5 exd5 unseen and
  // 4.Nc3 set down, read as five plies with ...d6-d5); past it, the longer search.
  if (has_drops(before.variant()) && max_plies > kDropHandPlies && drop_gap_bound(board) > kDropHandPlies) {
    GapFound within =
        search_gap_to(press, board, last_unpressed_likely, begun, kDropHandPlies, keep_all_pressed);
    if (within.explains() || within.result.exhausted) return within;
  }
  // The moves the clock says were completed: the sequences that end with the side whose clock runs on
  // move, all pressed. Failing those, the last move may be on the board with its press still to come.
  std::optional<Color> on_move = press   ? std::optional<Color>(~press->presser)
                                 : begun ? begun
                                         : clock_.on_move();
  GapQuery q = gap_query(board, on_move);
  q.max_plies = std::min(max_plies, q.max_plies);
  // Scans tell a story only among a few sequences (hundreds are a hand at work): their searches stop there.
  if (clockless()) q.max_candidates = kScanCandidates;
  GapResult found = search_gap_harder(q);
  const std::uint64_t spent = found.nodes;
  // An increment clock counts the presses since the last move: more than the shortest story all pressed has,
  // the story that long is the one played (a piece's detour, out and back, that the board cannot show), and
  // no story whose last move is not pressed is shorter than the count.
  bool counted = false;
  bool shown_last = false;     // counted, and the story's last move shown after the presses counted
  std::optional<int> presses;  // counted by the clock since the last move seen (GapFound::length_counted)
  if (on_move && found.plies > 0 && !found.exhausted) {
    const TimedClock after = press ? TimedClock{press->t_ms, press->clock}
                             : clock_.last() && clock_.last()->running
                                 ? TimedClock{clock_.last_read_ms(), clock_.last_times()}
                                 : TimedClock{};
    presses = presses_since_last_move(after, *on_move);
    if (presses && *presses > found.plies && *presses <= q.max_plies) {
      GapQuery longer = q;
      longer.min_plies = longer.max_plies = *presses;
      GapResult story = remembered_search_gap(longer);
      if (story.plies > 0 && !story.exhausted) {
        found = std::move(story);
        counted = true;
      } else if (!story.exhausted && *presses + 1 <= q.max_plies) {
        // None that long all pressed (that search complete): the stories of the presses counted, then the
        // move of the side whose clock runs, set down and not pressed yet (the hall's TCEC game 27,
        // 1800+5: five plies unseen, two of them detours, and 33.Qf3 on the board, read as three).
        longer.side_to_move = ~*on_move;
        longer.min_plies = longer.max_plies = *presses + 1;
        story = remembered_search_gap(longer);
        if (story.plies > 0 && !story.exhausted) {
          found = std::move(story);
          counted = shown_last = true;
        }
      }
    }
  }
  // No count (a clock without increment), and the hand at work as the board went out of sight fits the
  // first move of no story as short: the gap is longer, a piece's detour the board cannot show. Under way to
  // the gap's first move, that hand is a touch the player had to move (FIDE 4.3): the shortest stories that
  // begin so are the ones played (the hall's blitz game 243: the knight lifted from c3 for 7.Na4 Qb4+
  // 8.Nc3 Qxc3+ 9.Bd2; every story of three plies begins with the bishop).
  if (on_move && !presses && !counted && hand_at_loss_) {
    if (std::optional<GapResult> begun_so = stories_the_hand_began(q, found, *hand_at_loss_)) {
      found = std::move(*begun_so);
      counted = true;  // (the length is the hand's: no shorter story is the one played)
    }
  }
  const bool drops = has_drops(before.variant());
  const auto told = [&](bool unpressed_too, bool longer_unsearched) {
    // Of the stories found, those that begin with the move set down as the board went out of sight and
    // still on the board, when some do and some do not (FIDE 4.7; daemon_bus_match_test's restart under
    // ASan: 4...Nc6 set down, then 5.Nf3 Qd5 unseen, and ...Qd5 Nf3 Nc6 reaches the board as well).
    if (hand_at_loss_) keep_the_stories_of_the_move_set_down(before, found, *hand_at_loss_, board);
    GapFound f{std::move(found), on_move, unpressed_too, longer_unsearched};
    f.length_counted = presses && *presses + (shown_last ? 1 : 0) == f.result.plies;
    return f;
  };
  if (on_move) {
    // The last move on the board, its press still to come: the story when nothing all pressed reaches the
    // board, or (the board changed after the press) when it is the shorter.
    GapQuery unpressed = q;
    unpressed.side_to_move = ~*on_move;
    unpressed.min_plies = 2;  // one move shown and not pressed is no gap (the successors have it)
    // (Shorter by a ply is enough when the board changed after the press: see recover_gap.)
    const int margin = last_unpressed_likely ? 0 : 1;
    if (found.plies > 0) unpressed.max_plies = std::max(0, found.plies - 1 - margin);
    bool all_pressed = found.plies > 0 && !shown_last;
    if (!counted && (found.plies == 0 || unpressed.max_plies >= unpressed.min_plies)) {
      GapResult other = remembered_search_gap(unpressed);
      // (The hand at the loss as above, where the story with its last move shown is the only one.)
      if (found.plies == 0 && !presses && hand_at_loss_)
        if (std::optional<GapResult> begun_so = stories_the_hand_began(unpressed, other, *hand_at_loss_))
          other = std::move(*begun_so);
      if (keep_all_pressed && other.plies > 0 && !other.exhausted && found.plies > 0 && margin > 0 &&
          other.plies + margin < found.plies)
        // Shorter by more than a ply, the last move shown: both stories reach the board, the shorter
        // with fewer moves, the longer with a detour (Bc1-d2-g5 for Bc1-g5, a king out and back). Told at
        // once, the shorter one can put a move played later at a ply it was not played at. Which it is,
        // the next press or move tells, as below (the mismatch time: the shorter, the likelier).
        return told(true, false);
      if (other.plies > 0 && !other.exhausted && (found.plies == 0 || other.plies + margin < found.plies)) {
        found = std::move(other);
        all_pressed = false;
      } else if (found.plies == 0 && other.exhausted)
        found.exhausted = true;
    }
    // All pressed, and a ply shorter with the last move shown and not pressed: both are possible (a piece
    // out and back within the gap, or the next move already on the board when it was read again).
    // (Whether any is, not which: the search stops at the second found.)
    unpressed.max_candidates = 1;
    if (!counted && all_pressed && margin > 0 && found.plies - 1 >= unpressed.min_plies) {
      unpressed.min_plies = unpressed.max_plies = found.plies - 1;
      if (remembered_search_gap(unpressed).plies > 0) return told(true, false);
    }
    // And a ply longer, the next move already on the board when it was read again (also with a press: the
    // reading held for a reconnect is one made before that move). Its mover's press without moving, or a
    // move of his from the story all pressed, tells which. (A search for it cut short by the work bound is
    // not waited for: a wait holds back the pieces the gap handed to a bughouse partner.)
    // Past the search's bound, or the probe cut short, the longer story is unknown, not ruled out: the
    // press tells (without drops: there the wait would hold back the pieces handed to the partner).
    // Also when the board changed after the press (margin 0): the move shown and not pressed is then the
    // likelier story's, and the one a ply longer is the likeliest of all (the next mover's piece in the air
    // at the reading, set down since); told all pressed, his press of it would read as a press without a
    // move.
    if (all_pressed) {
      if (found.plies + 1 > q.max_plies) {
        if (!drops) return told(true, true);
      } else {
        unpressed.min_plies = unpressed.max_plies = found.plies + 1;
        const GapResult longer = search_gap_with_what_is_left(unpressed, spent);
        if (longer.plies > 0) return told(true, false);
        if (longer.exhausted && !drops) return told(true, true);
      }
    }
  }
  return told(false, false);
}

bool Reconstructor::recover_gap_on(std::int64_t t, const PendingPress* press,
                                   const std::array<Piece, 64>& board, bool last_unpressed_likely,
                                   std::optional<Color> begun, int max_plies) {
  // Pieces gone and nothing set anywhere, no press yet: a hand at work (a dump taken with a piece in the
  // air) rather than moves made unseen; a search would "explain" a lifted piece as one taken. A press says
  // the hand is done: then the board is searched as it is (an exchange on a square can leave it so). Not
  // the board a gap's length waited on, told now: that was searched as a gap (the game's own board, when
  // the clock counted moves that came back to it: counted_return).
  bool only_lifted =
      press == nullptr && !(gaps_.length() != GapTracker::Length::Open && board == gaps_.waiting_board());
  for (Square q = 0; q < 64 && only_lifted; ++q)
    only_lifted = board[q] == display_[q] || board[q] == NO_PIECE;
  if (only_lifted) return false;
  // (Without a clock no press asks for a search: each settled board that differs is searched once.)
  if (gaps_.searched(board) || (gaps_.searches_failed() >= 2 && !clockless())) return false;
  gaps_.mark_searched(board);
  const Position before = game_.position();
  GapFound searched = search_gap_to(press, board, last_unpressed_likely, begun, max_plies,
                                    !clockless() && gaps_.length() != GapTracker::Length::Likelier);
  // The piece waited for in the hand (held_piece_in_the_air) set down since and pressed: its move is the
  // story's last, whatever else reaches the board (the hall's blitz game 335: 8.d4's pawn held from d3; of
  // 196 stories, most end with another move, and the one played ranked below the 16 listed). So it is at
  // the reconnect's reading pending as the other side's press, the piece set down since, its move then not
  // pressed, when an increment counts the presses before it (the hall's TCEC game 45, 1800+5: 13.Bxb5 Qxb5
  // 14.a4 Qd5 15.Nd3 unseen, the queen out and back, Black's knight in the hand for 15...Nf6; a3 Nf6 a4
  // Bxd3 Nxd3 reaches the board all pressed, and a4 Bxd3 Nxd3 with Nf6 shown after). Not without the count
  // there: the piece the hand's move takes may have been set aside already, read as taken in a longer story
  // (the hall's blitz game 416, 14.Bxc6 with the knight lifted at the reading).
  std::optional<GapResult> hands;
  bool hands_counted = false;
  bool hands_move_pressed = false;  // the held piece set down and pressed by its mover
  if (press && gaps_.held() && gaps_.suspected() && !held_piece_in_the_air()) {
    const Color held_by = gaps_.held_by();
    const bool at_reading = press->presser != held_by && press_at_the_reading(*press);
    hands_move_pressed = press->presser == held_by;
    if (press->presser == held_by || at_reading) {
      const std::optional<int> presses =
          presses_since_last_move({press->t_ms, press->clock}, ~press->presser);
      const int counted = presses ? *presses - (at_reading ? 0 : 1) : 0;
      if (counted > 0) hands = search_through_the_hands_move(board, held_by, max_plies, counted);
      hands_counted = hands.has_value();
      // Uncounted: the board's own shortest stories that end with the hand's move, failing those the
      // stories through it (the hall's blitz game 364: 11...Nxd3 12.Bxd3 e5 13.Bxg5 unseen, the knight
      // taken off g5 and the bishop lifted at the reading: the boards before lack the knight, and through
      // them the story was eight plies).
      if (!hands && !at_reading) hands = stories_ending_with_the_hands_move(searched.result, board, held_by);
      if (!hands && !at_reading) hands = search_through_the_hands_move(board, held_by, max_plies);
    }
  }
  if (!hands && press && (searched.result.truncated || !searched.explains()))
    hands = search_through_the_hands_move(board, press->presser, max_plies);
  // No story within the bound ends with the held piece's move, set down and pressed by its mover, and the
  // stories found end with him on move, his opponent's last move not pressed: they say he did not move, and
  // his hand set his piece down and pressed. The gap is longer than the search reaches (the hand's move its
  // ply past the bound; the hall's blitz game 93: ten plies unseen and 12.Nf3's knight in the hand, read as
  // ten plies in which it never moved, a detour c3-c4 for c4, Black's Qd7 not pressed; the game then
  // followed from a position never played). Told from the board read (his piece put back), or past the
  // bound.
  // (So too with the board read never at rest, a piece of his set down since: the hand's move, read in one
  // burst with the reading.)
  if (const std::optional<std::array<Piece, 64>>& read = gaps_.read_board_unexplained();
      press && read && gaps_.suspected())
    for (Square q = 0; q < 64 && !hands_move_pressed; ++q)
      hands_move_pressed =
          board[q] != NO_PIECE && board[q] != (*read)[q] && color_of(board[q]) == press->presser;
  if (hands_move_pressed && !hands && searched.explains() && !has_drops(before.variant()) &&
      side_after(before, searched.result.plies) == press->presser) {
    gaps_.search_failed();
    return false;
  }
  if (hands) {
    searched.result = std::move(*hands);
    searched.unpressed_too = searched.longer_unsearched = false;
    searched.length_counted = hands_counted;
  }
  // A castling half done at the reading, waited for (castling_under_way): the hand then at work was
  // castling, the story's last move (the hall's blitz game 426: 7...Nc6 .. 10...Nf6 unseen, read
  // with 11.O-O's king on g1; of 480 stories, most end with another move).
  if (gaps_.waits_for_castling() && searched.explains()) {
    std::vector<std::vector<Move>> castled;
    for (const auto& seq : searched.result.sequences)
      if (seq.back().kind() == Move::CASTLING) castled.push_back(seq);
    if (!castled.empty()) searched.result.sequences = std::move(castled);
  }
  GapResult found = std::move(searched.result);
  const std::optional<Color> on_move = searched.on_move;
  // Cut short by its work before it found any story, at a press (the hand done, the board as the mover
  // meant it): a story within the bound, the likeliest moves first, is told as a list the work left
  // incomplete (a moves-missed of at least that one; the arbiter's moves settle it), not as a board nothing
  // explains (the hall's blitz game 396 read without the hand at the loss: ten plies, 1.8 million
  // positions to list them whole, a quarter of a million to find one).
  if (found.exhausted && press) {
    if (std::optional<GapResult> one = a_story_within_the_bound(board, on_move, max_plies))
      found = std::move(*one);
  }
  // A search cut short by its work bound has not seen every sequence: what it found is no explanation to
  // go on from (a wrong one would make every later move look illegal). Told as a position nothing explains.
  if (found.plies == 0 || found.exhausted) {
    gaps_.search_failed();
    return false;
  }
  // The board is reached by moves all pressed and, a ply shorter or longer, by moves whose last is shown
  // and not pressed: which it is, the next press tells (the shown move's mover presses without moving again,
  // or the other side moves first). Until then nothing is told: told now, the shorter story's last move would
  // later go out as the next live move at a ply it was not played at, or the gap's own moves be counted a ply
  // off. The mismatch time bounds the wait (then the likelier: GapTracker::Length::Likelier).
  if (searched.unpressed_too && !gaps_.length_told() && !clockless()) {
    // (the press leaves the board as it is: searched again then)
    gaps_.wait_for_length(board, on_move, searched.longer_unsearched);
    deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
    // The board went on while the press waited to be decided (the next mover's hand at work over the
    // scans): the move that tells the length may be on it already, and no later change would show it.
    return board != physical_ && gap_length_told_by_a_move(t);
  }
  if (clockless() && found.sequences.size() > 1 && !found.truncated) {
    // The sequences the scans seen since the last move show best are the ones the hands played.
    // (First the scans each fits, then the positions they show: see scans_fitting.)
    std::vector<std::pair<int, int>> seen;
    for (const auto& seq : found.sequences)
      seen.emplace_back(scans_fitting(before, seq), seen_on_the_way(before, seq));
    const std::pair<int, int> best = *std::max_element(seen.begin(), seen.end());
    if (best > std::pair<int, int>{0, 0}) {
      std::vector<std::vector<Move>> kept;
      for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i] == best) kept.push_back(std::move(found.sequences[i]));
      found.sequences = std::move(kept);
    }
  }
  const Color after_all = side_after(before, found.plies);
  int completed = on_move && *on_move == after_all ? found.plies : found.plies - 1;
  if (completed <= 0) return false;  // one move shown, not pressed: the ordinary way completes it
  std::vector<std::vector<Move>> prefixes;
  for (const auto& seq : found.sequences) {
    std::vector<Move> head(seq.begin(), seq.begin() + completed);
    if (std::find(prefixes.begin(), prefixes.end(), head) == prefixes.end()) prefixes.push_back(head);
  }
  const ClockTimes reading = press ? press->clock : clock_.last_times();
  const GapEvidence evidence = gap_evidence(reading);
  prefixes = ranked_stories(std::move(prefixes), evidence);
  const int first_ply = game_.ply_count() + 1;
  const std::int64_t when = press ? press->t_ms : t;
  // Its length not counted by the clock, long enough for a detour the board cannot show, or each side's time
  // used fitting one move more (rules/gap_pace.hpp): told with it open. (At a reading, a longer story whose
  // last move is shown and not pressed may be the one: MissedGap::told_at_reading.)
  // (The whole stories, their last move shown and not pressed yet, are as uncertain once it is: their alert
  // says so when the tail closes; the hall's blitz game 312, 60+0: a bishop's detour and a pawn's two steps,
  // told two plies short at ...b5's press.)
  const bool whole_uncertain =
      !searched.length_counted && on_move &&
      (found.plies >= kOpenLengthPlies || pace_suggests_longer(game_, before, found.plies, evidence)) &&
      !clockless();
  const bool length_uncertain = whole_uncertain && completed == found.plies;
  // With drops a story a ply pair longer, a piece dropped and taken at once (B@f7+ Kxf7), leaves no trace on
  // the board (sim_gap_recovery_test's bughouse match 4: 16.B@f7 Kxf7 in a gap of six plies, told as four):
  // held like chess's, the shortest story's captures handed to the partner meanwhile (tell_gap_length_open);
  // without the hold, the one story is a moves-missed that says so, not a move recovered.
  const bool drops = has_drops(before.variant());
  const bool hold = cfg_.hold_uncounted_gaps;
  uncertain_recovery_.reset();  // (another gap told: only the last one's story stays open)
  if (hold && length_uncertain &&
      tell_gap_length_open(t, when, before, prefixes, evidence, found.truncated, board, press == nullptr))
    return true;
  // With the hold, stories whose last move is shown and not pressed are held once it is (close_open_tail):
  // the game goes on from the pressed prefix meanwhile, nothing of it out (the hall's blitz game 227, 600+1:
  // nine plies told as seven and the shown eighth, all published at plies two short). (With drops the
  // prefix's captures go to the partner meanwhile; held, the first whole story's: close_open_tail.)
  const bool hold_at_the_tail = hold && whole_uncertain && completed < found.plies;
  const bool missed =
      prefixes.size() > 1 || found.truncated || hold_at_the_tail || (drops && length_uncertain);
  std::vector<Move> played = prefixes.front();
  if (missed) {
    // Several sequences: none is told as fact. The game goes on from the board's position (every candidate
    // reaches it); the record shows the gap until the arbiter settles it. Without the hold, a length the
    // clock cannot count is told as the shortest, and the alert says a longer story may be the one (moves
    // since then go out at the shorter story's plies until the arbiter's moves say otherwise).
    const bool incomplete = found.truncated || found.exhausted;
    AlertEvent a = moves_missed_alert(before, first_ply, prefixes, incomplete, found.truncated);
    // (Its last move shown, the stories before it as uncertain: told so if the tail is not closed, the hall's
    // blitz game 198, 300+3 with no increment learned yet, told two plies short and not saying so.)
    if (whole_uncertain) note_length_uncertain(a, drops);
    missed_gap_ = MissedGap{first_ply, prefixes, MissedGap::Length::Known, evidence, false, whole_uncertain};
    const std::optional<std::array<Piece, 64>>& read = gaps_.read_board_unexplained();
    missed_gap_->read_with_a_hand_at_work = press == nullptr && read && *read == board;
    // The last move of the gap shown and not pressed yet, and which move it is depends on the story (e5
    // Nxe5 Nc6 then e3, or e5 e3 Nc6 then Nxe5): the game goes on from the first story, but its press
    // completes the gap, told then whole (every candidate whole), not the complement of a guess. A list
    // cut at its bound may hide stories whose last move differs: never a live move either.
    std::vector<std::vector<Move>> whole;
    for (auto& seq : ranked_stories(found.sequences, evidence))
      if (std::find(whole.begin(), whole.end(), seq) == whole.end()) whole.push_back(std::move(seq));
    // (The same squares' move is not the same move after stories that differ before it: 14...Bd4 or
    // 14...Bxd4, the hall's blitz game 367 under load; the position it is played from tells.)
    const auto before_tail = [&](const std::vector<Move>& seq) {
      Position p = before;
      for (int i = 0; i < completed; ++i) p.do_move(seq[std::size_t(i)]);
      return p.board();
    };
    const auto first_before_tail = before_tail(whole.front());
    bool tails_differ = found.truncated || hold_at_the_tail;
    for (const auto& seq : whole)
      tails_differ |= seq.back() != whole.front().back() || before_tail(seq) != first_before_tail;
    if (completed < found.plies && tails_differ) {
      // The game goes on from the likeliest whole story's moves: its tail completes the story told first.
      played.assign(whole.front().begin(), whole.front().begin() + completed);
      Position end = before;
      for (Move m : whole.front()) end.do_move(m);
      AlertEvent whole_alert = moves_missed_alert(before, first_ply, whole, incomplete, found.truncated);
      if (whole_uncertain) note_length_uncertain(whole_alert, drops);
      open_tail_ = OpenTail{first_ply + completed, end.board(), std::move(whole_alert), std::move(whole),
                            std::move(a),          when,        hold_at_the_tail,       evidence};
    } else {
      emit(when, std::move(a));
    }
  }
  for (int i = 0; i < completed; ++i) {
    const Move m = played[std::size_t(i)];
    const Position& pos = game_.position();
    std::optional<Piece> handed;
    if (pos.variant() == Variant::Bughouse) handed = handed_piece(pos, m);
    MoveEvent ev;
    ev.uci = to_uci(pos, m);
    ev.san = to_san(pos, m);
    ev.recovered = true;
    const bool last = i == completed - 1;
    if (last) ev.clock = reading;
    game_.play(m, last ? reading : ClockTimes{}, when);
    game_.mark_last(!missed, missed);
    ev.ply = game_.ply_count();
    if (!missed) emit(when, ev);
    if (handed) reserves_.hand_over({*handed, when, game_.ply_count()});
  }
  // One story, told at its shortest where a longer one may be the one played: the arbiter may still give it.
  if (!missed && length_uncertain) uncertain_recovery_ = UncertainRecovery{first_ply, completed};
  // Told at a press decided late, by the other side's first lift (the pressed move follows, committed by the
  // caller): that lift is his next turn's touch (the hall's blitz game 32, 60+0: 21.Rd1 set down with the
  // reading, its press decided by Black's king lifted for 21...O-O; the lift lost, the rook's then read as
  // touched first, a touch-move alert).
  std::vector<TouchTracker::Touch> next_turns;
  for (const TouchTracker::Touch& touch : touches_.touches())
    if (touch.t_ms >= t && color_of(touch.piece) != game_.position().side_to_move())
      next_turns.push_back(touch);
  follow_board(t, lifts_on_move_since(board));
  next_turns_lifts_ = std::move(next_turns);
  check_end(when);
  return true;
}

int Reconstructor::held_moves() const {
  return int(std::count_if(held_events_.begin(), held_events_.end(),
                           [](const Event& e) { return std::holds_alternative<MoveEvent>(e.what); }));
}

std::optional<Reconstructor::HandsMove> Reconstructor::hands_move(const std::array<Piece, 64>& board,
                                                                  Color mover) const {
  // The earliest of the latest boards that differ from `board` on one square only, the same one: the board
  // before the presser set his piece down there (the dump read with it in his hand, or a capture's victim
  // lifted first).
  std::optional<std::array<Piece, 64>> base;
  Square to = SQ_NONE;
  for (std::size_t i = history_.size(); i-- > 0;) {
    const std::array<Piece, 64>& b = history_[i].board;
    Square diff = SQ_NONE;
    int differ = 0;
    for (Square q = 0; q < 64; ++q)
      if (b[q] != board[q]) {
        diff = q;
        ++differ;
      }
    if (differ == 0) continue;
    if (differ > 1 || (to != SQ_NONE && diff != to)) break;
    to = diff;
    base = b;
  }
  if (!base || to == SQ_NONE) return std::nullopt;
  const Piece piece = board[to];
  if (piece == NO_PIECE || color_of(piece) != mover || (*base)[to] == piece) return std::nullopt;
  return HandsMove{*base, to, piece};
}

std::optional<GapResult> Reconstructor::stories_ending_with_the_hands_move(const GapResult& stories,
                                                                           const std::array<Piece, 64>& board,
                                                                           Color mover) const {
  const std::optional<HandsMove> hand = hands_move(board, mover);
  if (!hand || stories.plies == 0 || stories.exhausted || stories.truncated) return std::nullopt;
  const Color last_mover = side_after(game_.position(), stories.plies - 1);
  if (last_mover != mover) return std::nullopt;
  GapResult out;
  out.plies = stories.plies;
  out.nodes = stories.nodes;
  // Its last move sets the hand's piece on its square: a move there, or a castling whose king or rook lands
  // there (the castling's move names the rook's square).
  const auto sets_the_hands_piece = [&](Move m) {
    if (m.kind() != Move::CASTLING) return m.to() == hand->to;
    const PieceType t = type_of(hand->piece);
    return (t == KING && hand->to == Position::castle_king_to(mover, m)) ||
           (t == ROOK && hand->to == Position::castle_rook_to(mover, m));
  };
  for (const auto& seq : stories.sequences)
    if (sets_the_hands_piece(seq.back())) out.sequences.push_back(seq);
  if (out.sequences.empty()) return std::nullopt;
  return out;
}

std::optional<GapResult> Reconstructor::a_story_within_the_bound(const std::array<Piece, 64>& board,
                                                                 std::optional<Color> on_move, int max_plies,
                                                                 std::uint64_t* work_left) const {
  // search_gap_to's two searches (all pressed, with a retry's work; then the last move not pressed), each
  // stopped at the first story found: none of its listing of every story, nor its probes of the lengths
  // around.
  std::optional<GapResult> out;
  const auto probe = [&](std::optional<Color> side, int min_plies, bool harder) {
    GapQuery q = gap_query(board, side);
    q.max_plies = std::min(max_plies, q.max_plies);
    if (out) q.max_plies = std::min(q.max_plies, out->plies - 1);
    q.min_plies = min_plies;
    q.max_candidates = 1;
    if (q.max_plies < q.min_plies) return;
    if (harder) q.max_nodes *= kGapRetryWork;
    if (work_left) {
      if (*work_left == 0) return;
      q.max_nodes = std::min(q.max_nodes, *work_left);
    }
    GapResult r = remembered_search_gap(q);
    if (work_left) *work_left -= std::min(*work_left, r.nodes);
    if (r.plies == 0 || r.exhausted) return;
    r.truncated = true;  // (one story: the list, if any, is not known whole)
    out = std::move(r);
  };
  probe(on_move, 1, true);
  if (on_move) probe(~*on_move, 2, false);
  return out;
}

std::optional<GapResult> Reconstructor::search_through_the_hands_move(const std::array<Piece, 64>& board,
                                                                      Color mover, int max_plies,
                                                                      std::optional<int> plies_before) const {
  const std::optional<HandsMove> hand = hands_move(board, mover);
  if (!hand) return std::nullopt;
  const auto& [base, to, piece] = *hand;
  // Not one of his on the base board lifted and set down there: the piece came from the hand.
  int on_base = 0, on_board = 0;
  Bitboard occupied = 0;
  for (Square q = 0; q < 64; ++q) {
    on_base += base[q] == piece;
    on_board += board[q] == piece;
    if (base[q] != NO_PIECE) occupied |= square_bb(q);
  }
  if (on_base + 1 != on_board) return std::nullopt;
  // Where it can have come from: the squares empty on the base board it moves to `to` from.
  Bitboard from = 0;
  if (type_of(piece) == PAWN) {
    const int forward = mover == WHITE ? -8 : 8;  // from `to` back to where the pawn stood
    from = pawn_attacks(~mover, to);
    for (int steps = 1; steps <= 2; ++steps)
      if (const int q = int(to) + forward * steps; q >= 0 && q < 64) from |= square_bb(Square(q));
  } else {
    from = attacks(type_of(piece), to, occupied);
  }
  // A castling's king or rook, from where it stood when last followed (it has not moved since: he may
  // still castle).
  const Position& now = game_.position();
  if ((type_of(piece) == KING || type_of(piece) == ROOK) &&
      now.can_castle(mover == WHITE ? (WHITE_OO | WHITE_OOO) : (BLACK_OO | BLACK_OOO)))
    from |= now.pieces(mover, type_of(piece));
  from &= ~occupied;
  // Each origin searched as the board before the move with the piece there, the mover on move: the stories
  // that end with its move from there, within twice the work bound of one search. First the squares where
  // a piece of its kind stood when the board was last followed (most pieces in a hand moved once in the
  // gap: the hall's blitz game 210, 11...Qe7's queen in the hand, its eight origins past the work): the
  // work running out after stories were found, they are told as a list left incomplete (a list of the
  // board searched as it is, cut short, may hold none that ends with the hand's move).
  GapResult out;
  std::uint64_t nodes = 0;
  const bool pawn_stays = cfg_.profile.pawn_may_stay_on_last_rank;
  const Bitboard stood = now.pieces(color_of(piece), type_of(piece)) & from;
  std::vector<Square> origins;
  for (Bitboard f = stood; f;) origins.push_back(pop_lsb(f));
  for (Bitboard f = from & ~stood; f;) origins.push_back(pop_lsb(f));
  for (const Square x : origins) {
    std::array<Piece, 64> with = base;
    with[x] = piece;
    GapQuery q = gap_query(with, mover);
    q.max_plies = std::min(q.max_plies, max_plies - 1);
    if (plies_before) {
      if (*plies_before > q.max_plies) return std::nullopt;
      q.min_plies = q.max_plies = *plies_before;
    } else if (out.plies > 0) {
      q.max_plies = std::min(q.max_plies, out.plies - 1);
    }
    if (q.max_plies < 1) continue;
    GapResult r = remembered_search_gap(q);
    nodes += r.nodes;
    if (r.exhausted) {
      if (out.plies == 0) return std::nullopt;
      out.truncated = true;
      break;
    }
    if (r.plies == 0) continue;
    const bool cut = r.truncated || nodes > 2 * q.max_nodes;
    std::vector<std::vector<Move>> stories;
    for (auto& seq : r.sequences) {
      Position p = game_.position();
      for (Move m : seq) p.do_move(m);
      const Board shown = physical_view(p, pawn_stays);
      for (Move m : MoveList(p))
        if ((m.kind() == Move::CASTLING || (m.from() == x && m.to() == to)) &&
            board_after(shown, p, m) == board) {
          seq.push_back(m);
          stories.push_back(std::move(seq));
          break;
        }
    }
    if (!stories.empty()) {
      if (out.plies == 0 || r.plies + 1 < out.plies) out.sequences.clear();
      out.plies = r.plies + 1;
      for (auto& seq : stories) out.sequences.push_back(std::move(seq));
    }
    if (cut) {
      if (out.plies == 0) return std::nullopt;
      out.truncated = true;
      break;
    }
  }
  out.nodes = nodes;
  if (out.plies == 0) return std::nullopt;
  return out;
}

std::vector<std::vector<Move>> Reconstructor::ranked_stories(std::vector<std::vector<Move>> stories,
                                                             const GapEvidence& evidence) const {
  const Position& before = game_.position();
  if (stories.size() > 1) {
    const std::vector<std::size_t> order = rank_gap_candidates(before, stories, evidence);
    std::vector<std::vector<Move>> ranked;
    ranked.reserve(order.size());
    for (std::size_t i : order) ranked.push_back(std::move(stories[i]));
    stories = std::move(ranked);
  }
  auto rights_after = [&](const std::vector<Move>& line) {
    Position p = before;
    for (Move m : line) p.do_move(m);
    return popcount(Bitboard(p.castling_rights()));
  };
  std::stable_sort(stories.begin(), stories.end(),
                   [&](const auto& a, const auto& b) { return rights_after(a) > rights_after(b); });
  return stories;
}

std::vector<TouchTracker::Touch> Reconstructor::lifts_on_move_since(
    const std::array<Piece, 64>& board) const {
  std::vector<TouchTracker::Touch> carried;
  for (std::size_t i = history_.size(); i-- > 0;)
    if (history_[i].board == board) {
      for (const auto& touch : touches_.after(history_[i].touches))
        if (color_of(touch.piece) == game_.position().side_to_move()) carried.push_back(touch);
      break;
    }
  return carried;
}

bool Reconstructor::gap_length_told_by_a_move(std::int64_t t) {
  if (gaps_.length() != GapTracker::Length::Waiting || !gaps_.suspected() ||
      physical_ == gaps_.waiting_board() || game_.outcome())
    return false;
  const GapFound f =
      search_gap_to(nullptr, gaps_.waiting_board(), false, gaps_.waiting_on_move(), kGapPlies, true);
  if (!f.explains() || f.result.sequences.empty()) return false;
  Position end = game_.position();
  for (Move m : f.result.sequences.front()) end.do_move(m);
  const Board shown = physical_view(end, cfg_.profile.pawn_may_stay_on_last_rank);
  bool moved = false;
  for (Move m : MoveList(end)) moved |= board_after(shown, end, m) == physical_;
  if (!moved) return false;
  gaps_.tell_all_pressed();
  if (!recover_gap_on(t, nullptr, gaps_.waiting_board(), false, gaps_.waiting_on_move())) return false;
  on_board_changed(t);  // the move is judged from the position the gap reached
  return true;
}

bool Reconstructor::press_completes_the_hand_at_the_reading(const PendingPress& press) {
  if (gaps_.length() != GapTracker::Length::Waiting || !gaps_.suspected() || game_.outcome() ||
      gaps_.waiting_on_move() != press.presser)
    return false;
  const std::array<Piece, 64> read = gaps_.waiting_board();  // a copy: the search below may wait anew
  bool set_down = false;
  for (Square q = 0; q < 64 && !set_down; ++q) set_down = physical_[q] != NO_PIECE && physical_[q] != read[q];
  if (!set_down) return false;
  // The waiting side has set a piece down and pressed. Had the board been read at rest, the move would have
  // told the length (gap_length_told_by_a_move): it did not, so the reading caught his hand at work (his
  // piece in the air, the piece it takes set aside, read as taken in a longer story). The board at the
  // press is searched instead, its story all pressed; failing that, the wait goes on as it was.
  const GapTracker::SearchState before = gaps_.search_state();
  const bool longer_unsearched = gaps_.longer_unsearched();
  gaps_.tell_all_pressed();
  if (recover_gap_on(press.t_ms, &press, physical_, false)) {
    wait_.clear();
    return true;
  }
  gaps_.wait_for_length(read, press.presser, longer_unsearched);
  gaps_.restore(before);
  return false;
}

bool Reconstructor::press_ends_the_dump_wait(const PendingPress& press) {
  if (!gaps_.dump_deferred() || !gaps_.suspected() || gaps_.first_board_dump() || clockless() ||
      game_.outcome() || press_at_the_reading(press))
    return false;
  if (gaps_.waits_for_castling()) {
    if (castling_under_way(physical_)) return false;
  } else {
    // The held piece's mover on move in the game too: his press is decided as any other (its search is
    // recover_gap's, at rest). Not so after an odd number of plies unseen: in the game the other side is on
    // move, and only this search hears his press (the hall's blitz game 335: 4...Nh6 .. 7...Ng4 unseen,
    // 8.d4's pawn in the hand at the reading, set down and pressed).
    const Color mover = gaps_.held_by();
    if (press.presser != mover || mover == game_.position().side_to_move() || held_piece_in_the_air())
      return false;
  }
  const GapTracker::SearchState before = gaps_.search_state();
  gaps_.tell_all_pressed();
  if (recover_gap_on(press.t_ms, &press, physical_, false)) {
    gaps_.take_dump_deferral();
    deadlines_.clear(Wake::Mismatch);
    deadlines_.clear(Wake::HeldLift);
    wait_.clear();
    return true;
  }
  gaps_.restore(before);
  return false;
}

bool Reconstructor::tell_gap_past_bound(const PendingPress& press) {
  return tell_gap_past_bound_at(press.t_ms, physical_, ~press.presser);
}

bool Reconstructor::tell_gap_past_bound_from_read_board(const PendingPress& press) {
  // (Or the board read never at rest, the next move made at once: searched here, as it was read.)
  const std::optional<std::array<Piece, 64>>& read = gaps_.read_board_unexplained();
  if (!read || game_.outcome() || has_drops(game_.position().variant())) return false;
  // The reconnect's reading pending as a press (the lever moved while the board was away): that press ended
  // the gap, the board read is where the gap ends, the other side on move. His hand may be at work on it by
  // the time the press is decided, pieces of his lifted and nothing set down (the suite's past-bound gap of
  // 13 plies, read on a loaded machine with Black's rook lifted a moment after the dump).
  if (press_at_the_reading(press)) {
    bool lifted_only = true;
    for (Square q = 0; q < 64 && lifted_only; ++q)
      lifted_only = physical_[q] == (*read)[q] || (physical_[q] == NO_PIECE && (*read)[q] != NO_PIECE &&
                                                   color_of((*read)[q]) != press.presser);
    if (lifted_only) return tell_gap_past_bound_at(press.t_ms, *read, ~press.presser);
  }
  // Else the presser was on move on the board read, and his one legal move from it is on the board now. (Not
  // the board read itself: a hand may have been at work on it, its piece in the air.) His hand may have been
  // at work on it already, his piece lifted when it was read and set down since (the suite's past-bound gap
  // of 13 plies on a loaded machine: the a8 rook in Black's hand at the reading, ...Rb8 set down and pressed
  // in the next read): the gap then ends at the board read with that piece put back on the square it left.
  const std::optional<ReadMove> pressed = move_from_the_read_board(*read, press.presser);
  if (!pressed) {
    // Pressed in sight (the lever seen still after the link came back), nothing but the presser's pieces set
    // down since the reading, and no move from the board read shows that: his move is on the board now, the
    // gap ends there, the other side on move; told at this press, not left to the mismatch time. The board
    // unchanged since the reading (the hall's blitz game 176: ten plies unseen and 10.a4 set down, pressed
    // half a second after the reading), or a capture whose victim was already lifted when it was read (blitz
    // game 25: 10...dxe5 under way, the e5 pawn off the board and Black's in the hand). (A press read first
    // after the link, across_link, may be one the reading's hand made before it: above.) Judged on the board
    // at the press: the next mover's hand may be at work by the time it is decided (the hall's blitz game 10:
    // eleven plies unseen and 11...axb6 set down, pressed half a second after the reading, decided with
    // White's knight already lifted for 12.Nc3); his lifts since are his turn's (tell_gap_past_bound_at).
    const BoardState* at = state_at(press.t_ms);
    const std::array<Piece, 64>& pressed_on = at ? at->board : physical_;
    bool only_his = !press.across_link;
    for (Square q = 0; q < 64 && only_his; ++q)
      only_his =
          pressed_on[q] == (*read)[q] ||
          (pressed_on[q] == NO_PIECE && ((*read)[q] == NO_PIECE || color_of((*read)[q]) == press.presser)) ||
          (pressed_on[q] != NO_PIECE && color_of(pressed_on[q]) == press.presser);
    return only_his && tell_gap_past_bound_at(press.t_ms, pressed_on, ~press.presser);
  }
  if (!pressed->unique) {
    // (Two squares the piece could have left: the board read does not tell where the gap ended; the board
    // now does, the pressed move the gap's last ply.)
    return tell_gap_past_bound_at(press.t_ms, physical_, ~press.presser);
  }
  if (!tell_gap_past_bound_at(press.t_ms, pressed->board, press.presser)) return false;
  // The first move after the gap, held back with the rest (its ply waits for the gap's length).
  if (const Successor* s = matching_successor()) commit_current(*s, press.t_ms, press.clock);
  return true;
}

bool Reconstructor::recover_gap_before_the_pressed_move(const PendingPress& press) {
  const std::optional<std::array<Piece, 64>>& read = gaps_.read_board_unexplained();
  if (!read || game_.outcome() || has_drops(game_.position().variant())) return false;
  // Of the boards read with his piece put back, the one a story within the bound reaches (the rook of 10.Rd1
  // from f1 or from e1: only f1 is within ten plies).
  // (Or on the board as it was at the press, the opponent's pieces read there and lifted since put back: the
  // press decided later, or read in one burst with his hand at work on his next move.)
  std::array<Piece, 64> now = physical_;  // the board the pressed move shows
  std::vector<ReadMove> moves = moves_from_the_read_board(*read, press.presser, false, now);
  if (moves.empty()) {
    const BoardState* at = state_at(press.t_ms);
    std::array<Piece, 64> pressed_on = at ? at->board : physical_;
    for (Square q = 0; q < 64; ++q)
      if (pressed_on[q] == NO_PIECE && (*read)[q] != NO_PIECE && color_of((*read)[q]) != press.presser)
        pressed_on[q] = (*read)[q];
    if (pressed_on != physical_) {
      now = pressed_on;
      moves = moves_from_the_read_board(*read, press.presser, false, now);
    }
  }
  // Or with the victim put back, lifted before the reading, the presser's piece set on its square since (the
  // hall's blitz game 315: ten plies unseen, 11.Bxc6's knight off the board at the reading and the bishop
  // lifted after it: from the board read, the bishop's move to an empty c6).
  // (The presser's piece may have been in the air with it, put back on the square it left: the hall's blitz
  // game 184, 23.Bxb6's victim and the bishop both lifted at the reading.)
  for (const std::array<Piece, 64>& base :
       boards_with_the_victim_put_back(*read, now, display_, press.presser))
    for (const ReadMove& m : moves_from_the_read_board(base, press.presser, false, now)) moves.push_back(m);
  std::vector<ReadMove> within;
  for (const ReadMove& m : moves) {
    if (std::any_of(within.begin(), within.end(), [&](const ReadMove& w) { return w.board == m.board; }))
      continue;
    if (reached_within_the_bound(m.board, press.presser)) within.push_back(m);
  }
  if (within.empty()) return false;
  // Two boards read with the hand put back, each reached within the bound: the pressed move may not be the
  // same move after both. Published as either, it may be a move not played at its ply.
  if (within.size() > 1) return tell_gap_whole_at_the_press(press, within, now);
  // The gap ends at the board read (his piece put back), his move from it the first after the gap: its
  // stories all pressed (his press is of the move after them), told now, not waiting for another press.
  // A board of its own, a story known to reach it: searched whatever the searches of the boards as they
  // stood found (the hall's Chess960 game 4: ten plies unseen and 13.a4's pawn in the hand, the dump and
  // the press searched in vain first, then a position-mismatch).
  const GapTracker::SearchState searched_before = gaps_.search_state();
  const GapTracker::Length length_before = gaps_.length();
  gaps_.tell_all_pressed();
  gaps_.reset_failures();
  if (!recover_gap_on(press.t_ms, nullptr, within.front().board, false, press.presser)) {
    gaps_.restore(searched_before);
    if (length_before == GapTracker::Length::Open) gaps_.reopen_length();
    return false;
  }
  if (const Successor* s = matching_successor()) {
    commit_current(*s, press.t_ms, press.clock);
  } else if (game_.position().side_to_move() == press.presser &&
             MoveList(game_.position()).contains(within.front().move)) {
    const Move m = within.front().move;
    const Successor pressed{m, board_after(display_, game_.position(), m)};
    commit(pressed, press.t_ms, press.clock, touches_.size(), 0, false);
  }
  return true;
}

bool Reconstructor::tell_gap_whole_at_the_press(const PendingPress& press,
                                                const std::vector<ReadMove>& boards,
                                                const std::array<Piece, 64>& now) {
  const Position before = game_.position();
  std::vector<std::vector<Move>> stories;
  bool truncated = false;
  for (const ReadMove& m : boards) {
    const GapResult found = search_gap_harder(gap_query(m.board, press.presser));
    if (found.plies == 0 || found.exhausted) continue;
    truncated |= found.truncated;
    for (const std::vector<Move>& seq : found.sequences) {
      Position p = before;
      for (Move x : seq) p.do_move(x);
      if (!MoveList(p).contains(m.move)) continue;  // (the board read's castling or en passant rights)
      stories.push_back(seq);
      stories.back().push_back(m.move);
    }
  }
  if (stories.empty()) return false;
  const GapEvidence evidence = gap_evidence(press.clock);
  stories = ranked_stories(std::move(stories), evidence);
  std::stable_sort(stories.begin(), stories.end(),
                   [](const auto& a, const auto& b) { return a.size() < b.size(); });
  const int plies = int(stories.front().size());
  const std::optional<int> presses = presses_since_last_move({press.t_ms, press.clock}, ~press.presser);
  const bool uncertain = (!presses || *presses != plies) &&
                         (plies >= kOpenLengthPlies || pace_suggests_longer(game_, before, plies, evidence));
  // Stories of two lengths (or one the clock cannot count, held so): the later moves' plies wait for the
  // arbiter.
  if (stories.back().size() != stories.front().size() || (cfg_.hold_uncounted_gaps && uncertain))
    return tell_gap_length_open(press.t_ms, press.t_ms, before, std::move(stories), evidence, truncated,
                                physical_, false);
  flush_open_tail(press.t_ms);
  const int first_ply = game_.ply_count() + 1;
  AlertEvent a = moves_missed_alert(before, first_ply, stories, truncated, truncated);
  if (uncertain) note_length_uncertain(a);
  emit(press.t_ms, std::move(a));
  const std::vector<Move> played = stories.front();
  missed_gap_ =
      MissedGap{first_ply, std::move(stories), MissedGap::Length::Known, evidence, false, uncertain};
  uncertain_recovery_.reset();
  for (std::size_t i = 0; i < played.size(); ++i) {
    game_.play(played[i], i + 1 == played.size() ? press.clock : ClockTimes{}, press.t_ms);
    game_.mark_last(false, true);
  }
  follow_board(press.t_ms, lifts_on_move_since(now));
  check_end(press.t_ms);
  return true;
}

bool Reconstructor::press_refutes_the_open_tail(const PendingPress& press) {
  // (The hall's blitz game 37, 60+0: 13.d4 .. 23.O-O unseen, read with Black on move; nine plies and
  // 22...d5 shown and not pressed reach that board too, told with d5 the open tail. Black then played
  // 23...d4, the d-pawn on from d5, and pressed: d5 went out as his move and d4 as an illegal one.)
  // (So too a gap told with its last move shown and the same in every story, no tail left open: that move,
  // the board's latest showing it, stands for the tail. The hall's blitz game 5, 300+3: 11.Nc3 .. 20...Na5
  // unseen and 21.Be2 pressed as the board was read; nine plies and ...Na5 shown reach it too; Black's
  // 21...Nd5 then went out as Na5 and White's next press as an illegal move. Its alert told already, the
  // gap is told again.)
  if (!missed_gap_ || game_.outcome() || press.presser != game_.position().side_to_move() ||
      matching_successor() || has_drops(game_.position().variant()) || game_.plies().empty())
    return false;
  std::optional<std::array<Piece, 64>> shown;
  if (open_tail_) {
    if (game_.ply_count() + 1 != open_tail_->ply) return false;
    shown = open_tail_->board;
  } else if (missed_gap_->length == MissedGap::Length::Known && !missed_gap_->candidates.empty() &&
             game_.ply_count() == missed_gap_->first_ply - 1 + int(missed_gap_->candidates.front().size())) {
    for (std::size_t i = history_.size(); i-- > 0 && history_[i].t_ms >= game_.plies().back().time_ms;)
      if (successor_for(history_[i].board)) {
        shown = history_[i].board;
        break;
      }
  }
  if (!shown) return false;
  const std::array<Piece, 64> read = *shown;
  const std::vector<ReadMove> moves = moves_from_the_read_board(read, press.presser, false, physical_);
  if (moves.size() != 1 || moves.front().board != read) return false;
  const bool told_before = !open_tail_;
  const Game told = game_;
  const std::optional<OpenTail> tail = std::exchange(open_tail_, std::nullopt);
  const std::optional<MissedGap> gap = std::exchange(missed_gap_, std::nullopt);
  while (game_.ply_count() >= gap->first_ply) game_.undo();
  display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
  // Within the bound, its stories all pressed (recover_gap_on); past it, told so.
  const bool within = reached_within_the_bound(read, press.presser);
  gaps_.forget_searched();
  gaps_.tell_all_pressed();
  gaps_.reset_failures();
  const std::string retold =
      told_before ? std::string("told again, the move shown at the reading found made before it (") +
                        (press.presser == WHITE ? "White" : "Black") + " moved on from that board): "
                  : std::string();
  if (!(within ? recover_gap_on(press.t_ms, nullptr, read, false, press.presser)
               : tell_gap_past_bound_at(press.t_ms, read, press.presser, retold))) {
    game_ = told;
    display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
    open_tail_ = tail;
    missed_gap_ = gap;
    recompute_successors();
    return false;
  }
  wait_.clear();
  if (const Successor* s = matching_successor()) commit_current(*s, press.t_ms, press.clock);
  return true;
}

bool Reconstructor::press_takes_a_piece_lifted_at_the_reading(const PendingPress& press) {
  if (!missed_gap_ || !missed_gap_->read_with_a_hand_at_work || open_tail_ || game_.outcome() ||
      missed_gap_->length != MissedGap::Length::Known || missed_gap_->candidates.empty() ||
      press.presser != game_.position().side_to_move() || has_drops(game_.position().variant()) ||
      game_.ply_count() != missed_gap_->first_ply - 1 + int(missed_gap_->candidates.front().size()))
    return false;
  const Successor* pressed = matching_successor();
  if (!pressed || pressed->move.kind() != Move::NORMAL ||
      game_.position().piece_on(pressed->move.to()) != NO_PIECE)
    return false;
  const std::array<Piece, 64> read = display_;  // the board the gap was told from, no move since
  Game before_gap = game_;
  while (before_gap.ply_count() >= missed_gap_->first_ply) before_gap.undo();
  const std::array<Piece, 64> known =
      physical_view(before_gap.position(), cfg_.profile.pawn_may_stay_on_last_rank);
  std::vector<ReadMove> boards{ReadMove{read, true, pressed->move, false}};
  const int told_plies = int(missed_gap_->candidates.front().size());
  const Game told = game_;
  const std::optional<MissedGap> gap = std::exchange(missed_gap_, std::nullopt);
  game_ = before_gap;
  display_ = known;
  for (const std::array<Piece, 64>& base :
       boards_with_the_victim_put_back(read, physical_, known, press.presser))
    for (const ReadMove& m : moves_from_the_read_board(base, press.presser, false, physical_))
      if (m.board == base) {
        // (No longer than the gap told: a story the likelier for its length, the board's own, is not
        // doubted for a longer one.)
        GapQuery q = gap_query(base, press.presser);
        q.max_plies = std::min(q.max_plies, told_plies);
        q.max_candidates = 1;  // whether one exists
        const GapResult found = search_gap_harder(q);
        if (found.plies > 0 && !found.exhausted) boards.push_back(m);
      }
  if (boards.size() < 2 || !tell_gap_whole_at_the_press(press, boards, physical_)) {
    game_ = told;
    display_ = read;
    missed_gap_ = gap;
    recompute_successors();
    return false;
  }
  wait_.clear();
  return true;
}

std::optional<Reconstructor::ReadMove> Reconstructor::move_from_the_read_board(
    const std::array<Piece, 64>& read, Color mover, bool with_reply) const {
  std::vector<ReadMove> all = moves_from_the_read_board(read, mover, with_reply, physical_);
  if (all.empty()) return std::nullopt;
  all.front().unique = all.size() == 1;
  return all.front();
}

std::vector<Reconstructor::ReadMove> Reconstructor::moves_from_the_read_board(
    const std::array<Piece, 64>& read, Color mover, bool with_reply, const std::array<Piece, 64>& now) const {
  std::vector<ReadMove> found;
  const auto try_board = [&](const std::array<Piece, 64>& base) {
    const auto from = board_position(mover, base);
    if (!from) return;
    for (Move m : MoveList(*from)) {
      const std::array<Piece, 64> after = board_after(base, *from, m);
      if (after == now) {
        found.push_back(ReadMove{base, true, m, false});
        continue;
      }
      if (!with_reply) continue;
      Position next = *from;
      next.do_move(m);
      for (Move reply : MoveList(next))
        if (board_after(after, next, reply) == now) found.push_back(ReadMove{base, true, m, true});
    }
  };
  try_board(read);
  if (!found.empty()) return found;
  // His piece put back: a square empty on both boards (the one it left), a kind of his (a pawn for a
  // promotion); or the square it left, set back there, another piece of his moved since.
  for (Square q = 0; q < 64; ++q) {
    if (read[q] != NO_PIECE) continue;
    if (now[q] != NO_PIECE) {
      if (color_of(now[q]) != mover) continue;
      std::array<Piece, 64> base = read;
      base[q] = now[q];
      try_board(base);
      continue;
    }
    for (PieceType type : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING}) {
      if (type == PAWN && (rank_of(q) == 0 || rank_of(q) == 7)) continue;
      std::array<Piece, 64> base = read;
      base[q] = make_piece(mover, type);
      try_board(base);
    }
  }
  // Or his castling half made (the hall's blitz game 111: ten plies unseen, ...O-O's king set on g8 and its
  // rook in the hand at the reading): the king and that rook put back where the game's right keeps them, each
  // taken from its castling square or from the air.
  const Position& pos = game_.position();
  const Piece king = make_piece(mover, KING);
  const Piece rook = make_piece(mover, ROOK);
  for (const bool king_side : {true, false}) {
    const int idx = castling_index(mover, king_side);
    const Square rook_from = pos.castling_rook(idx);
    if (!pos.can_castle(std::uint8_t(1u << idx)) || !is_ok(rook_from)) continue;
    const Square king_from = pos.king_square(mover);
    const Square king_to = Position::castle_king_to(mover, king_side);
    const Square rook_to = Position::castle_rook_to(mover, king_side);
    if (read[king_to] == king && read[rook_to] == rook) continue;  // (made, not half made)
    std::array<Piece, 64> base = read;
    for (const auto& [piece, from, to] :
         {std::tuple{king, king_from, king_to}, std::tuple{rook, rook_from, rook_to}})
      if (read[from] != piece && read[to] == piece) base[to] = NO_PIECE;
    if (std::count(base.begin(), base.end(), king) != 0 && base[king_from] != king) continue;
    if ((base[king_from] != NO_PIECE && base[king_from] != king) ||
        (base[rook_from] != NO_PIECE && base[rook_from] != rook))
      continue;
    base[king_from] = king;
    base[rook_from] = rook;
    if (base != read) try_board(base);
  }
  return found;
}

bool Reconstructor::tell_gap_past_bound_at(std::int64_t t, const std::array<Piece, 64>& board, Color on_move,
                                           const std::string& retold) {
  if (has_drops(game_.position().variant()) || game_.outcome()) return false;
  GapQuery q = gap_query(board, on_move);
  q.max_candidates = 1;  // whether one exists (reached_within_the_bound; its work told below)
  const GapResult within = search_gap_harder(q);
  if (within.plies > 0 && !within.exhausted) return false;
  const auto p = board_position(on_move, board);
  if (!p) return false;
  flush_open_tail(t);
  const int first = game_.ply_count() + 1;
  const Color first_mover = game_.position().side_to_move();
  game_.adopt(*p, t);
  past_bound_told_ = PastBoundTold{board, game_.ply_count()};
  missed_gap_.reset();
  held_events_.clear();
  AlertEvent a{
      "moves-missed",
      first,
      first_mover,
      retold +
          std::string(within.exhausted ? "more plies were made while the board was not followed than the "
                                         "search could go through"
                                       : "more than " + std::to_string(kGapPlies) +
                                             " plies were made while the board was not followed") +
          ", too many to search: the game goes on from the position the board shows (" + p->fen() +
          "), and its moves are held back until the arbiter gives the gap's moves (their plies depend "
          "on its length)",
      {}};
  a.extra.push_back({"candidates", "[]", true});
  a.extra.push_back({"candidates_total", "0", true});
  a.extra.push_back({"first_ply", std::to_string(first), true});
  a.extra.push_back({"length_unknown", "true", true});
  a.extra.push_back({"past_bound", "true", true});
  a.extra.push_back({"fen", p->fen(), false});
  if (!retold.empty()) a.extra.push_back({"retold", "true", true});
  emit(t, std::move(a));
  missed_gap_ = MissedGap{first, {}, MissedGap::Length::PastBound, {}};
  uncertain_recovery_.reset();
  // Told at a press decided after the board changed: the lifts since are the next turn's touches (the hall's
  // blitz game 403 read 0.6 s late: told at Black's king's lift for castling, the lift lost, then "rook
  // before king").
  std::vector<TouchTracker::Touch> carried;
  for (const TouchTracker::Touch& touch : touches_.touches())
    if (touch.t_ms > t) carried.push_back(touch);
  follow_board(t, std::move(carried));
  gaps_.forget_searched();
  return true;
}

bool Reconstructor::past_bound_told_untouched() const {
  return past_bound_told_ && game_.ply_count() == past_bound_told_->plies_after && missed_gap_ &&
         missed_gap_->length == MissedGap::Length::PastBound;
}

bool Reconstructor::retell_past_bound_with_the_piece_put_back(const PendingPress& press) {
  if (!past_bound_told_untouched() || press.presser != game_.position().side_to_move()) return false;
  const std::optional<ReadMove> pressed =
      move_from_the_read_board(past_bound_told_->board, press.presser, true);
  if (!pressed || !pressed->unique || pressed->board == past_bound_told_->board) return false;
  std::string put_back;
  for (Square q = 0; q < 64 && put_back.empty(); ++q)
    if (pressed->board[q] != past_bound_told_->board[q])
      put_back = std::string("told again, the board read with ") +
                 (press.presser == WHITE ? "White" : "Black") + "'s " +
                 piece_name(type_of(pressed->board[q])) + " put back on " + square_name(q) +
                 " (in the hand when it was read, set down since): ";
  const Game told = game_;
  while (game_.ply_count() >= missed_gap_->first_ply) game_.undo();
  if (!tell_gap_past_bound_at(press.t_ms, pressed->board, press.presser, put_back)) {
    game_ = told;
    return false;
  }
  if (!pressed->replied) {
    if (const Successor* s = matching_successor()) commit_current(*s, press.t_ms, press.clock);
    return true;
  }
  // His opponent's reply set down too, read with the press (its own press waits as any other).
  const Position& before = game_.position();
  const Successor first{pressed->move, board_after(display_, before, pressed->move)};
  commit(first, press.t_ms, press.clock, touches_.size(), 0, false);
  return true;
}

bool Reconstructor::tell_gap_length_unknown(std::int64_t t) {
  const std::optional<Color> on_move = gaps_.waiting_on_move();
  if (!on_move || has_drops(game_.position().variant()) || game_.outcome()) return false;
  const std::array<Piece, 64> board = gaps_.waiting_board();
  const GapFound f = search_gap_to(nullptr, board, false, on_move, kGapPlies, true);
  const Position before = game_.position();
  const Color after_all = side_after(before, f.result.plies);
  if (!f.explains() || f.result.sequences.empty() || after_all != *on_move) return false;
  const auto p = board_position(*on_move, board);
  if (!p) return false;
  const GapEvidence evidence = gap_evidence(clock_.last_times());
  std::vector<std::vector<Move>> stories = ranked_stories(f.result.sequences, evidence);
  flush_open_tail(t);
  const int first = game_.ply_count() + 1;
  const bool truncated = f.result.truncated;
  AlertEvent a = moves_missed_alert(before, first, stories, truncated, truncated);
  const std::size_t plies = stories.front().size();
  a.detail = std::to_string(plies) +
             " plies or more were made while the board was not followed: " + (truncated ? "at least " : "") +
             std::to_string(stories.size()) + (stories.size() == 1 ? " sequence" : " sequences") + " of " +
             std::to_string(plies) + " plies, all pressed, " + (stories.size() == 1 ? "leads" : "lead") +
             " to the position it shows (the likeliest first), and one longer than the search reaches (" +
             std::to_string(kGapPlies) +
             " plies), its last move shown and not pressed, may as well: the press that would tell them "
             "apart did not come. The game goes on from the position the board shows (" +
             p->fen() +
             "), and its moves are held back until the arbiter picks a candidate or gives the gap's moves "
             "(their plies depend on its length)";
  std::erase_if(a.extra, [](const AlertEvent::Field& x) { return x.name == "last_ply"; });
  a.extra.push_back({"length_unknown", "true", true});
  a.extra.push_back({"fen", p->fen(), false});
  tell_held_gap(t, t, std::move(a), *p,
                MissedGap{first, std::move(stories), MissedGap::Length::Unknown, evidence}, board);
  return true;
}

void Reconstructor::tell_held_gap(std::int64_t told_at, std::int64_t t, AlertEvent alert, const Position& at,
                                  MissedGap gap, const std::array<Piece, 64>& board) {
  game_.adopt(at, told_at);
  // (Once the game stands after the gap: after an odd number of plies its next mover is not the side on
  // move before it.)
  std::vector<TouchTracker::Touch> carried = lifts_on_move_since(board);
  missed_gap_.reset();
  held_events_.clear();
  emit(told_at, std::move(alert));
  missed_gap_ = std::move(gap);
  uncertain_recovery_.reset();
  follow_board(t, std::move(carried));
  gaps_.forget_searched();
}

bool Reconstructor::tell_gap_length_open(std::int64_t t, std::int64_t when, const Position& before,
                                         std::vector<std::vector<Move>> stories, const GapEvidence& evidence,
                                         bool truncated, const std::array<Piece, 64>& board, bool at_reading,
                                         std::string_view also, const std::vector<Handover>& handed_before) {
  Position end = before;
  for (Move m : stories.front()) end.do_move(m);
  if (MoveList(end).empty()) return false;
  flush_open_tail(when);
  const int first = game_.ply_count() + 1;
  const std::size_t plies = stories.front().size();  // the shortest (tell_gap_whole_at_the_press)
  std::size_t longest = plies;
  for (const auto& s : stories) longest = std::max(longest, s.size());
  AlertEvent a = moves_missed_alert(before, first, stories, truncated, truncated);
  a.detail = std::to_string(plies) +
             " plies or more were made while the board was not followed: " + (truncated ? "at least " : "") +
             std::to_string(stories.size()) + (stories.size() == 1 ? " sequence" : " sequences") + " of " +
             std::to_string(plies) + (longest > plies ? " to " + std::to_string(longest) : "") +
             " plies (the likeliest first) " + (stories.size() == 1 ? "leads" : "lead") +
             " to the position the board shows, and a longer one, with a piece's detour, may as well: the "
             "clock adds no increment, so its presses do not count the moves. The game goes on from that "
             "position (" +
             end.fen() +
             "), and its moves are held back until the arbiter picks a candidate or gives the gap's moves "
             "(their plies depend on its length)" +
             std::string(also);
  a.extra.push_back({"length_unknown", "true", true});
  a.extra.push_back({"fen", end.fen(), false});
  MissedGap gap{first, std::move(stories), MissedGap::Length::Uncounted, evidence, at_reading};
  // Bughouse: the shortest story's captures go to the partner now (settle_held_gap hands the difference).
  gap.handed = captures_handed(before, gap.candidates.front(), first, when);
  hand_over_the_difference(handed_before, gap.handed, when);
  tell_held_gap(when, t, std::move(a), end, std::move(gap), board);
  return true;
}

bool Reconstructor::press_tells_unseen_moves(const PendingPress& press, std::optional<int> unseen_pass) {
  if (!cfg_.hold_uncounted_gaps || !unseen_pass || *unseen_pass != game_.ply_count() ||
      press.presser == game_.position().side_to_move() || !board_matches_game() || wait_.pending() ||
      open_tail_ || missed_gap_ || game_.outcome() || clockless() || has_drops(game_.position().variant()))
    return false;
  const GapFound f = search_gap_to(&press, physical_, false, std::nullopt, kGapPlies, true);
  if (!f.explains() || f.result.sequences.empty() || f.length_counted) return false;
  const GapEvidence evidence = gap_evidence(press.clock);
  const std::string who = press.presser == WHITE ? "White" : "Black";
  return tell_gap_length_open(press.t_ms, press.t_ms, game_.position(),
                              ranked_stories(f.result.sequences, evidence), evidence, f.result.truncated,
                              physical_, false,
                              ". Or none: the press read at the reconnect was one without a move, and " +
                                  who + "'s now gave the turn back (eboardctl recover --moves none)");
}

bool Reconstructor::press_tells_held_gap_longer(const PendingPress& press) {
  // (Not with drops: the gap's captures are handed over; told again, the arbiter's moves settle it.)
  if (!missed_gap_ || !missed_gap_->last_move_may_be_shown() || open_tail_ || game_.outcome() ||
      !missed_gap_->handed.empty() || game_.ply_count() != held_gap_end() ||
      press.presser != game_.position().side_to_move() || !board_matches_game())
    return false;
  // The gap's last move was shown and not pressed: told again with it, from the position before the gap.
  const Game held_game = game_;
  const MissedGap held_gap = *missed_gap_;
  while (game_.ply_count() >= held_gap.first_ply) game_.undo();
  missed_gap_.reset();
  held_events_.clear();
  wait_.clear();
  gaps_.tell_all_pressed();
  gaps_.reset_failures();
  if (tell_gap_past_bound(press) || recover_gap_on(press.t_ms, &press, physical_, false)) return true;
  game_ = held_game;  // (no story the press completes: the gap stays as it was told)
  missed_gap_ = held_gap;
  return false;
}

int Reconstructor::held_gap_end() const {
  int end = missed_gap_ ? missed_gap_->first_ply - 1 : game_.ply_count();
  while (end < game_.ply_count() && game_.plies()[std::size_t(end)].jump) ++end;
  return end;
}

GapEvidence Reconstructor::gap_evidence(const ClockTimes& after) const {
  GapEvidence e;
  const ClockTimes before = game_.clock_at(game_.ply_count());
  if (before.known() && after.known())
    e.time_used_ms =
        std::array<std::int64_t, 2>{before.white_ms - after.white_ms, before.black_ms - after.black_ms};
  e.increment_ms = learned_increment(game_.plies()).value_or(0);
  e.hand_at_loss = hand_at_loss_;
  // Lines of chess: not read in a game with drops, whose orders they were not measured on.
  if (!has_drops(game_.position().variant())) e.openings = opening_lines_in_use();
  // The last two moves before the gap, as moves the policy reads (not an illegal move that stood, a position
  // adopted or a drop).
  const auto& plies = game_.plies();
  const int n = game_.ply_count();
  const auto usable = [&](int i) {
    return i >= 0 && !plies[std::size_t(i)].illegal && !plies[std::size_t(i)].jump &&
           !plies[std::size_t(i)].drop;
  };
  if (usable(n - 1)) {
    Position one_before = game_.position_at(n - 1);
    e.before_gap.last = plies[std::size_t(n - 1)].move;
    e.before_gap.last_captured = one_before.is_capture(e.before_gap.last);
    if (usable(n - 2)) {
      const Position two_before = game_.position_at(n - 2);
      e.before_gap.own_last = plies[std::size_t(n - 2)].move;
      e.before_gap.earlier_key = two_before.key();
      e.before_gap.earlier = legal_raw(two_before);
      e.before_gap.earlier_known = true;
    }
    e.before_gap.previous = std::move(one_before);
  }
  return e;
}

bool Reconstructor::counted_return(const PendingPress& press) const {
  const std::int64_t read_again = gaps_.read_again_at();
  // The reading within a scan of the board read again, or later with the board unchanged since: either
  // way what the board showed at the reading is what it showed when read again.
  if (clockless() || game_.ply_count() == 0 || read_again <= game_.plies().back().time_ms ||
      press.t_ms < read_again || (press.t_ms > read_again + cfg_.scan_ms && last_board_event_ > read_again))
    return false;
  const std::optional<int> presses = presses_since_last_move({press.t_ms, press.clock}, ~press.presser);
  // (More than the search reaches is no count to go by: a clock set again meanwhile reads so too.)
  const int bound = has_drops(game_.position().variant()) ? kDropGapPlies : kGapPlies;
  return presses && *presses > 1 && *presses <= bound;
}

bool Reconstructor::recover_counted_return(std::int64_t t, const PendingPress& press,
                                           bool last_unpressed_likely) {
  const bool raised = !gaps_.suspected();
  if (raised) {
    gaps_.suspect(false, gaps_.read_again_at(), board_changes_, physical_);  // (the board as it is now)
    gaps_.read_settled();                                                    // (judged here, at once)
  }
  if (recover_gap_on(t, &press, physical_, last_unpressed_likely) ||
      gaps_.length() == GapTracker::Length::Waiting)
    return true;
  if (raised) gaps_.clear_suspicion();
  return false;
}

std::optional<int> Reconstructor::presses_since_last_move(const TimedClock& after, Color on_move) const {
  if (game_.ply_count() == 0) return std::nullopt;
  const std::optional<std::int64_t> increment = learned_increment(game_.plies());
  if (!increment) return std::nullopt;
  const PlyRecord& last = game_.plies().back();
  const bool odd = on_move != game_.position().side_to_move();
  if (auto n = presses_between({last.time_ms, last.clock}, after, *increment, odd)) return n;
  // A reading read with the board read again may have been sent as early as the link came up: a loaded
  // daemon reads the reconnect's bytes late and stamps them alike, at the read's end (the hall's TCEC
  // Chess960 game 28 read 1.5 s late: three presses at the reading, none by its stamp). The count one
  // time of that window gives, if every time that gives one gives the same.
  const std::int64_t back = gaps_.back_at();
  if (back <= last.time_ms || after.t_ms <= back || after.t_ms > gaps_.read_again_at()) return std::nullopt;
  constexpr std::int64_t kStep = 100;
  std::optional<int> found;
  for (std::int64_t t = after.t_ms - kStep;; t -= kStep) {
    t = std::max(t, back);
    if (const auto n = presses_between({last.time_ms, last.clock}, {t, after.times}, *increment, odd)) {
      if (found && *found != *n) return std::nullopt;
      found = n;
    }
    if (t == back) break;
  }
  return found;
}

int Reconstructor::seen_on_the_way(const Position& before, const std::vector<Move>& sequence) const {
  const bool pawn_stays = cfg_.profile.pawn_may_stay_on_last_rank;
  // A board shows a position when every piece on it stands there in that position.
  auto shows = [](const std::array<Piece, 64>& seen, const Board& position) {
    for (Square q = 0; q < 64; ++q)
      if (seen[q] != NO_PIECE && seen[q] != position[q]) return false;
    return true;
  };
  int count = 0;
  Position p = before;
  Board previous = physical_view(p, pawn_stays);
  for (std::size_t i = 0; i + 1 < sequence.size(); ++i) {
    p.do_move(sequence[i]);
    const Board now = physical_view(p, pawn_stays);
    // Seen only if the board could not be the position before it with a piece lifted.
    // (Not the board as it is now: with pieces in the air allowed it shows the way to itself.)
    count += std::any_of(history_.begin(), history_.end(), [&](const BoardState& h) {
      return h.board != physical_ && shows(h.board, now) && !shows(h.board, previous);
    });
    previous = now;
  }
  return count;
}

AlertEvent Reconstructor::moves_missed_alert(const Position& before, int first_ply,
                                             const std::vector<std::vector<Move>>& candidates, bool at_least,
                                             bool truncated) const {
  // The likeliest first (the caller ranks them), the first kShownCandidates; candidates_total tells how
  // many there are (eboardctl recover takes any of them by its number).
  std::string list = "[";
  for (std::size_t i = 0; i < candidates.size() && i < kShownCandidates; ++i) {
    Position p = before;
    list += i ? ",[" : "[";
    for (std::size_t k = 0; k < candidates[i].size(); ++k) {
      list += (k ? ",\"" : "\"") + to_uci(p, candidates[i][k]) + "\"";
      p.do_move(candidates[i][k]);
    }
    list += "]";
  }
  list += "]";
  const std::size_t plies = candidates.front().size();
  AlertEvent a{"moves-missed",
               first_ply,
               before.side_to_move(),
               std::to_string(plies) + (plies == 1 ? " ply was" : " plies were") +
                   " made while the board was not followed, and " + (at_least ? "at least " : "") +
                   std::to_string(candidates.size()) + " move sequences lead to the position it shows" +
                   (candidates.size() > kShownCandidates
                        ? ", the likeliest " + std::to_string(kShownCandidates) + " listed"
                        : std::string(", likeliest first")) +
                   ": the arbiter can pick one",
               {}};
  a.extra.push_back({"candidates", list, true});
  a.extra.push_back({"candidates_total", std::to_string(candidates.size()), true});
  a.extra.push_back({"first_ply", std::to_string(first_ply), true});
  a.extra.push_back({"last_ply", std::to_string(first_ply + int(plies) - 1), true});
  if (truncated) a.extra.push_back({"incomplete", "true", true});
  return a;
}

void Reconstructor::flush_open_tail(std::int64_t t) {
  if (!open_tail_) return;
  emit(std::max(t, open_tail_->told_at), std::move(open_tail_->alert));
  open_tail_.reset();
}

bool Reconstructor::close_open_tail(std::int64_t t) {
  if (!open_tail_) return false;
  if (game_.ply_count() != open_tail_->ply || game_.position().board() != open_tail_->board || !missed_gap_) {
    flush_open_tail(t);
    return false;
  }
  if (open_tail_->hold) {
    // Every whole story pressed now: told with its length open, the moves since held (tell_gap_length_open).
    const Game told = game_;
    const OpenTail tail = std::move(*open_tail_);
    open_tail_.reset();
    const MissedGap gap = *std::exchange(missed_gap_, std::nullopt);
    const std::vector<Handover> handed = captures_handed(told, gap.first_ply - 1, told.ply_count(), t);
    while (game_.ply_count() >= gap.first_ply) game_.undo();
    const Position before = game_.position();
    if (tell_gap_length_open(t, t, before, tail.sequences, tail.evidence, false, physical_, false, {},
                             handed))
      return true;
    game_ = told;  // (its end ends the game: told the ordinary way)
    missed_gap_ = gap;
    open_tail_ = tail;
  }
  game_.mark_last(false, true);
  missed_gap_->candidates = std::move(open_tail_->sequences);
  for (const auto& f : open_tail_->whole_alert.extra)
    missed_gap_->length_uncertain |= f.name == "length_uncertain";
  emit(t, std::move(open_tail_->whole_alert));
  open_tail_.reset();
  return true;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::settle_gap(std::size_t index,
                                                                        std::int64_t t_ms) {
  if (!missed_gap() && uncertain_recovery_)
    return tl::unexpected("no list waits: the gap from ply " +
                          std::to_string(uncertain_recovery_->first_ply) +
                          " was recovered as its one story; a longer story's moves, typed, correct it");
  if (!missed_gap()) return tl::unexpected(std::string("no gap is waiting for the arbiter"));
  if (index >= missed_gap_->candidates.size())
    return tl::unexpected("there are " + std::to_string(missed_gap_->candidates.size()) + " candidates");
  if (missed_gap_->holds_moves()) return settle_held_gap(missed_gap_->candidates[index], t_ms);
  const MissedGap gap = *missed_gap_;
  const std::vector<Move>& moves = gap.candidates[index];
  const int first = gap.first_ply - 1;
  Game settled = game_;
  if (!settled.replace_plies(first, moves) || settled.position().board() != game_.position().board())
    return tl::unexpected(std::string("those moves do not lead to the position the game went on from"));
  // The gap's plies, now told as moves (late: the game went on meanwhile).
  std::vector<Event> out = recovered_events(settled, gap.first_ply, moves, t_ms);
  const Game was = std::exchange(game_, std::move(settled));
  const int end = first + int(moves.size());
  hand_over_the_difference(was, end, first, end, t_ms);
  missed_gap_.reset();
  recompute_successors();
  return out;
}

tl::expected<std::vector<Move>, std::string> Reconstructor::typed_gap_moves(int first_ply,
                                                                            const std::string& text) const {
  std::vector<Move> moves;
  Position p = game_.position_at(first_ply - 1);
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',') ++j;
    if (j == i) break;
    std::string token = text.substr(i, j - i);
    i = j;
    // "none", alone: no move at all (a held gap whose jump came back to the position before it).
    if (token == "none" && moves.empty() && text.find_first_not_of(" ,", i) == std::string::npos) break;
    auto m = parse_uci(p, token);
    if (!m) m = parse_san(p, token);
    if (!m) return tl::unexpected("'" + token + "' is not a legal move there");
    moves.push_back(*m);
    p.do_move(*m);
  }
  return moves;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::settle_gap(const std::string& text,
                                                                        std::int64_t t_ms) {
  if (!missed_gap() && uncertain_recovery_) {
    const auto [first, plies] = *uncertain_recovery_;
    auto moves = typed_gap_moves(first, text);
    if (!moves) return tl::unexpected(moves.error());
    if (int(moves->size()) <= plies)
      return tl::unexpected("the gap from ply " + std::to_string(first) +
                            " was recovered as the one story of " + std::to_string(plies) +
                            " plies that reaches the board; only a longer story's moves, to the same "
                            "position, correct it");
    auto done = replace_gap_plies(first, first + plies - 1, *moves, t_ms);
    if (done) uncertain_recovery_.reset();
    return done;
  }
  if (!missed_gap()) return tl::unexpected(std::string("no gap is waiting for the arbiter"));
  auto typed = typed_gap_moves(missed_gap_->first_ply, text);
  if (!typed) return tl::unexpected(typed.error());
  const std::vector<Move>& moves = *typed;
  // "none" (or nothing typed) fits only a held gap whose moves came back to the position before it.
  const std::string no_move =
      "no move at all (\"none\") settles only a gap whose moves came back to the position before it (a press "
      "without a move, given back)";
  if (missed_gap_->holds_moves()) {
    auto done = settle_held_gap(moves, t_ms);
    if (!done && moves.empty()) return tl::unexpected(no_move);
    return done;
  }
  const std::size_t plies = missed_gap_->candidates.front().size();
  if (moves.empty())
    return tl::unexpected(no_move + "; this gap's candidates have " + std::to_string(plies) + " plies");
  if (moves.size() != plies) return settle_gap_length(moves, t_ms);
  missed_gap_->candidates.push_back(moves);
  auto done = settle_gap(missed_gap_->candidates.size() - 1, t_ms);
  if (!done && missed_gap_) missed_gap_->candidates.pop_back();
  // As many moves to another position: the game's since the gap read another way (the next mover's hand at
  // work on the board read, replace_gap_plies).
  if (!done && missed_gap_)
    if (auto other = settle_gap_length(moves, t_ms)) return other;
  return done;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::settle_gap_length(const std::vector<Move>& moves,
                                                                               std::int64_t t_ms) {
  const MissedGap& gap = *missed_gap_;
  auto done =
      replace_gap_plies(gap.first_ply, gap.first_ply - 1 + int(gap.candidates.front().size()), moves, t_ms);
  if (done) missed_gap_.reset();
  return done;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::replace_gap_plies(int first_ply, int last_ply,
                                                                               const std::vector<Move>& moves,
                                                                               std::int64_t t_ms) {
  for (int i = last_ply; i < game_.ply_count(); ++i)
    if (game_.plies()[std::size_t(i)].jump || game_.plies()[std::size_t(i)].illegal)
      return tl::unexpected(std::string("a position was set since the gap, not moved to: its length stays"));
  Game settled = game_;
  bool held_elsewhere = false;
  // Given before the next move, the moves that lead to the position the board as it stands shows, the side on
  // move the game's: the move the stories left shown and not pressed was made within the gap (the hall's
  // blitz game 5, 300+3: the arbiter's eleven moves, 20...Na5 and 21.Be2 with them, before Black moved on).
  // (Or that position with the next mover's hand at work on it: pieces in the air, a capture's victim and
  // its taker, or his move set down and not pressed. The hall's blitz game 201: 21.Bxc6 among the moves,
  // the bishop lifted for 21...Qxc6 as the board was read, the gap told without it.)
  const auto shows_the_hand_at_work_on = [&](const Position& p) {
    const std::array<Piece, 64> view = physical_view(p, cfg_.profile.pawn_may_stay_on_last_rank);
    int lifted = 0;
    bool set = false;
    for (Square q = 0; q < 64; ++q)
      if (view[q] != physical_[q]) {
        lifted += physical_[q] == NO_PIECE;
        set |= physical_[q] != NO_PIECE;
      }
    if (!set) return lifted <= 2;
    for (Move m : MoveList(p))
      if (board_after(view, p, m) == physical_) return true;
    return false;
  };
  const auto replaced_with_the_board_as_it_stands = [&](Game& game) {
    std::optional<Game> g = with_the_last_plies_replaced(game, first_ply, moves);
    if (!g || g->position().side_to_move() != game.position().side_to_move() ||
        !shows_the_hand_at_work_on(g->position()))
      return false;
    game = std::move(*g);
    return true;
  };
  if (moves.empty() ||
      (!settled.replace_span(first_ply - 1, last_ply, moves) &&
       !replaced_with_the_next_move_otherwise(settled, first_ply, last_ply, moves) &&
       !(held_elsewhere = last_ply == game_.ply_count() &&
                          (replaced_with_the_held_piece_elsewhere(settled, first_ply, moves) ||
                           replaced_with_the_board_as_it_stands(settled)))))
    return tl::unexpected("those moves do not lead to the position after ply " + std::to_string(last_ply) +
                          " (the gap's last), which the game went on from");
  // The gap's moves, then every ply since at its ply now (each went out at the one the shorter story gave).
  std::vector<Move> from_the_gap;
  for (int i = first_ply; i <= settled.ply_count(); ++i)
    from_the_gap.push_back(settled.plies()[std::size_t(i - 1)].move);
  std::vector<Event> out = recovered_events(settled, first_ply, from_the_gap, t_ms);
  const Game was = std::exchange(game_, std::move(settled));
  hand_over_the_difference(was, was.ply_count(), first_ply - 1, game_.ply_count(), t_ms);
  if (held_elsewhere) {
    // The board followed from the position the moves played reach: the turn begins there, no touch of the
    // move they took in left to judge (the hall's blitz game 5 at 6x: 20...Na5, shown at the reading and now
    // the gap's, read as a piece released on a5 before 21...Nd5, a touch-move alert).
    for (Event& e : collect([&] { follow_board(t_ms); })) out.push_back(std::move(e));
    return out;
  }
  recompute_successors();
  return out;
}

bool Reconstructor::replaced_with_the_held_piece_elsewhere(Game& game, int first_ply,
                                                           const std::vector<Move>& moves) const {
  // Given before the held piece's move (replaced_with_the_next_move_otherwise after it): the moves
  // played lead to the position the game went on from but for one piece of the side on move, on another
  // square, and the board shows it on neither (in the hand).
  std::optional<Game> g = with_the_last_plies_replaced(game, first_ply, moves);
  if (!g) return false;
  const Position& told = game.position();
  const Position& played = g->position();
  if (played.side_to_move() != told.side_to_move()) return false;
  std::vector<Square> differ;
  for (Square q = 0; q < 64; ++q)
    if (played.piece_on(q) != told.piece_on(q)) differ.push_back(q);
  if (differ.size() != 2) return false;
  const Square a = differ[0], b = differ[1];
  const Piece piece = played.piece_on(a) != NO_PIECE ? played.piece_on(a) : played.piece_on(b);
  if (piece == NO_PIECE || color_of(piece) != told.side_to_move() || physical_[a] != NO_PIECE ||
      physical_[b] != NO_PIECE || (played.piece_on(a) != NO_PIECE) == (played.piece_on(b) != NO_PIECE) ||
      (told.piece_on(a) != piece && told.piece_on(b) != piece))
    return false;
  game = std::move(*g);
  return true;
}

std::vector<Event> Reconstructor::recovered_events(const Game& settled, int first_ply,
                                                   const std::vector<Move>& moves, std::int64_t t_ms) const {
  std::vector<Event> out;
  Position at = settled.position_at(first_ply - 1);
  for (std::size_t k = 0; k < moves.size(); ++k) {
    MoveEvent ev;
    ev.ply = first_ply + int(k);
    ev.uci = to_uci(at, moves[k]);
    ev.san = to_san(at, moves[k]);
    ev.recovered = true;
    ev.clock = settled.plies()[std::size_t(first_ply - 1) + k].clock;
    out.push_back(Event{t_ms, cfg_.board_id, ev});
    at.do_move(moves[k]);
  }
  return out;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::settle_held_gap(const std::vector<Move>& moves,
                                                                             std::int64_t t_ms) {
  // Any number of moves that reaches the position the game went on from; the moves held back since
  // follow them, each at its ply.
  const int first = missed_gap_->first_ply;
  Game settled = game_;
  bool last_shown = false;
  std::vector<Move> gap_moves = moves;
  bool piece_in_the_hand = false;
  int held_replaced = 0;
  if (!settled.replace_jump(first - 1, moves)) {
    std::optional<Game> other = moves_to_the_board_told_with_a_piece_in_the_hand(moves);
    piece_in_the_hand = other.has_value();
    if (!other) other = moves_before_shown_move(moves);
    if (!other && moves.size() > 1) {
      // The moves up to the board, the last shown and not pressed (the other side on move after them).
      gap_moves.pop_back();
      other = moves_before_shown_move(gap_moves, moves.back());
    }
    if (!other) {
      gap_moves = moves;
      held_replaced = moves_through_held_moves(moves, other);
    }
    if (!other)
      return tl::unexpected(std::string("those moves do not lead to the position the game went on from"));
    settled = std::move(*other);
    last_shown = !piece_in_the_hand && held_replaced == 0;
  }
  const int shift = settled.ply_count() - game_.ply_count();
  // The held moves the arbiter's took the place of (told among them): up to this ply.
  const int last_replaced = held_replaced > 0 ? held_gap_end() + held_replaced : 0;
  std::vector<Event> out = recovered_events(settled, first, gap_moves, t_ms);
  for (Event e : held_events_) {
    if (const auto* m = std::get_if<MoveEvent>(&e.what); m && m->ply <= last_replaced) continue;
    if (const auto* c = std::get_if<ClaimableEvent>(&e.what); c && c->ply <= last_replaced) continue;
    if (auto* m = std::get_if<MoveEvent>(&e.what)) m->ply += shift;
    if (auto* c = std::get_if<ClaimableEvent>(&e.what)) c->ply += shift;
    e.t_ms = t_ms;
    out.push_back(std::move(e));
  }
  // Bughouse: what the shortest story handed over (and the held moves the arbiter's replaced) against what
  // the moves given capture.
  std::vector<Handover> handed_was = missed_gap_->handed;
  for (const Handover& h : captures_handed(game_, held_gap_end(), last_replaced, t_ms))
    handed_was.push_back(h);
  std::vector<Handover> handed_now =
      captures_handed(settled, first - 1, first - 1 + int(gap_moves.size()), t_ms);
  game_ = std::move(settled);
  missed_gap_.reset();
  held_events_.clear();
  hand_over_the_difference(handed_was, std::move(handed_now), t_ms);
  if (!last_shown) {
    // (The piece in the hand then belongs on the wood as the game has it: its set-down is his move.)
    if (piece_in_the_hand)
      display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
    recompute_successors();
    return out;
  }
  // The move on the board is the next live one: followed from the gap's position (its press completes it).
  for (Event& e : collect([&] { follow_board(t_ms); })) out.push_back(std::move(e));
  return out;
}

std::optional<Game> Reconstructor::moves_to_the_board_told_with_a_piece_in_the_hand(
    const std::vector<Move>& moves) const {
  if (!past_bound_told_untouched() || moves.empty()) return std::nullopt;
  std::optional<Game> g = jump_replaced_by(moves);
  if (!g) return std::nullopt;
  const Color mover = g->position().side_to_move();
  if (mover != game_.position().side_to_move()) return std::nullopt;
  const Board wood = physical_view(g->position(), cfg_.profile.pawn_may_stay_on_last_rank);
  int in_the_hand = 0;
  for (Square q = 0; q < 64; ++q) {
    if (wood[q] == past_bound_told_->board[q]) continue;
    if (past_bound_told_->board[q] != NO_PIECE || color_of(wood[q]) != mover) return std::nullopt;
    ++in_the_hand;
  }
  return in_the_hand == 1 ? g : std::nullopt;
}

int Reconstructor::moves_through_held_moves(const std::vector<Move>& moves,
                                            std::optional<Game>& settled) const {
  // The first move after the gap may have been read from the board with a piece put back, the press after
  // the reading its (recover_gap_before_the_pressed_move): another of the presser's moves undone may be the
  // one played, which no board tried shows (a capture's: its victim unknown). The moves given then reach
  // the position after some of the moves held since, and take their place. (The hall's Chess960 game 9: ten
  // plies unseen and 11.Nxe4 set down at the reading, read as 10.Rd1 pressed after the story without it.)
  const int first = missed_gap_->first_ply;
  const int jump_end = held_gap_end();
  for (int end = jump_end + 1; end <= game_.ply_count(); ++end) {
    if (game_.plies()[std::size_t(end - 1)].jump) break;
    // (The gap's moves and the held ones after them, as held: moves past the gap, refused as such.)
    const std::size_t k = std::size_t(end - jump_end);
    if (moves.size() >= k &&
        std::equal(moves.end() - std::ptrdiff_t(k), moves.end(), game_.plies().begin() + jump_end,
                   game_.plies().begin() + end, [](Move m, const PlyRecord& r) { return m == r.move; }))
      continue;
    Game g = game_;
    if (g.replace_span(first - 1, end, moves)) {
      settled = std::move(g);
      return end - jump_end;
    }
  }
  return 0;
}

std::optional<Game> Reconstructor::jump_replaced_by(const std::vector<Move>& moves) const {
  const int first = missed_gap_->first_ply;
  const std::int64_t jump_ms = game_.plies()[std::size_t(first - 1)].time_ms;
  Game g = game_;
  while (g.ply_count() >= first) g.undo();
  for (Move m : moves) {
    if (!MoveList(g.position()).contains(m)) return std::nullopt;
    g.play(m, {}, jump_ms);
    g.mark_last(true, false);
  }
  return g;
}

std::optional<Game> Reconstructor::moves_before_shown_move(const std::vector<Move>& moves,
                                                           std::optional<Move> shown) const {
  if (!missed_gap_ || !missed_gap_->last_move_may_be_shown() || game_.ply_count() != held_gap_end())
    return std::nullopt;
  std::optional<Game> g = jump_replaced_by(moves);
  // The side on move after the jump has set down his move, not pressed: one of his moves from there.
  if (!g || g->position().side_to_move() != game_.position().side_to_move()) return std::nullopt;
  const Board wood = physical_view(g->position(), cfg_.profile.pawn_may_stay_on_last_rank);
  for (Move m : MoveList(g->position()))
    if ((!shown || m == *shown) && board_after(wood, g->position(), m) == display_) return g;
  return std::nullopt;
}

tl::expected<Position, std::string> Reconstructor::board_position(Color side,
                                                                  const std::array<Piece, 64>& board) const {
  const Position& now = game_.position();
  std::string fen = board_text(board);
  if (has_drops(now.variant())) {
    fen += '[';
    for (Color c : {WHITE, BLACK})
      for (PieceType t : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN})
        fen.append(std::size_t(now.pocket(c, t)), piece_char(make_piece(c, t)));
    fen += ']';
  }
  fen += side == WHITE ? " w " : " b ";
  // Castling only where the king and that rook still stand where the right was kept.
  std::string castling;
  for (Color c : {WHITE, BLACK})
    for (bool king_side : {true, false}) {
      int idx = castling_index(c, king_side);
      if (!now.can_castle(std::uint8_t(1u << idx))) continue;
      Square rook = now.castling_rook(idx);
      if (board[now.king_square(c)] != make_piece(c, KING) || rook == SQ_NONE ||
          board[rook] != make_piece(c, ROOK))
        continue;
      char file = char('a' + file_of(rook));
      castling += c == WHITE ? char(file - 'a' + 'A') : file;
    }
  fen += castling.empty() ? "-" : castling;
  fen += " - 0 " + std::to_string(std::max(1, (game_.ply_count() + 2) / 2));
  auto pos = Position::from_fen(fen, now.variant(), now.chess960());
  if (!pos) return tl::unexpected("the board shows no position: " + pos.error());
  if (std::string why = pos->validate(); !why.empty()) return tl::unexpected(why);
  return *pos;
}

void Reconstructor::adopt_position(const Position& p, std::int64_t t, const std::string& why) {
  flush_open_tail(t);
  const int first = game_.ply_count() + 1;
  game_.adopt(p, t);
  missed_gap_.reset();
  held_events_.clear();  // (a gap past the bound: their plies will never be known)
  emit(t, AlertEvent{"position-adopted",
                     first,
                     p.side_to_move(),
                     why + ": the game is followed from the position the board shows (" + p.fen() +
                         "), the moves that led there unknown",
                     {{"fen", p.fen(), false}}});
  follow_board(t);
  gaps_.forget_searched();
}

bool Reconstructor::follow_unexplained_press(const PendingPress& press) {
  // With drops the reserves after unseen moves are unknown (bughouse: the partner's board hands pieces
  // over): the game is not taken up by itself there; the arbiter can (adopt_board).
  if (has_drops(game_.position().variant())) return false;
  // The presser's move is done: his opponent is on move in what the board shows.
  if (adopt_candidate_) {
    // The position remembered at the last press, and a legal move from it now: play goes on from there.
    Position from = adopt_candidate_->position;
    for (Move m : MoveList(from)) {
      if (from.side_to_move() != press.presser) break;
      if (board_after(adopt_candidate_->board, from, m) != physical_) continue;
      // After the board was out of sight (a reconnect, a restart), a position no story within the search's
      // bound reaches is a gap past it: the moves made meanwhile unknown, so are the plies of those after
      // (the hall's blitz game 433: adopted, every later move went out ten plies early). Told as one, the
      // moves held back until the arbiter gives the gap's.
      if (!gaps_.suspected() ||
          !tell_gap_past_bound_at(press.t_ms, adopt_candidate_->board, from.side_to_move()))
        adopt_position(from, press.t_ms, "play went on from a position no legal moves explain");
      Successor s{m, physical_, false, false};
      commit(s, press.t_ms, press.clock, touches_.size(), SIZE_MAX, false);
      return true;
    }
  }
  if (auto p = board_position(~press.presser))
    adopt_candidate_ = AdoptCandidate{*p, physical_};
  else
    adopt_candidate_.reset();
  return false;
}

tl::expected<std::vector<Event>, std::string> Reconstructor::adopt_board(std::int64_t t_ms,
                                                                         std::optional<Color> side) {
  if (adjournment()) return tl::unexpected(std::string("the game is adjourned"));
  Color on_move = side ? *side : clock_.on_move().value_or(game_.position().side_to_move());
  auto p = board_position(on_move);
  // Not told the side: a player who has moved and not yet pressed the clock leaves the board showing the
  // other side on move; when only that side makes a position (the one guessed would leave the side not on
  // move in check), it is that side's move.
  if (!p && !side)
    if (auto other = board_position(~on_move)) p = std::move(other);
  if (!p) return tl::unexpected(p.error());
  auto saved = std::move(out_);
  out_.clear();
  uncertain_recovery_.reset();
  adopt_position(*p, t_ms, "the arbiter adopted the board's position");
  std::vector<Event> result = std::move(out_);
  out_ = std::move(saved);
  return result;
}

}  // namespace eboard::rules
