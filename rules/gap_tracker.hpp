// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What one board's reconstruction knows about moves it may not have seen (a cable out, the daemon down,
// field updates lost on the wire): the link's phase until the board is read whole again, the re-read asked
// for after a press that left the board showing no move, the suspicion that moves were made unseen, the
// boards already searched and the searches that failed, and the phase of a gap whose length waits for a
// press. Bookkeeping only: the Reconstructor (rules/reconstruct.hpp) searches (rules/gap_search.hpp) and
// tells. Pure.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <utility>

#include "rules/types.hpp"

namespace eboard::rules {

class GapTracker {
 public:
  // The link as this board's readings tell it.
  enum class Link {
    Read,  // the board is followed: what it shows is what its updates said
    Down,  // the link went down (DeviceLink{false}): the board is out of sight until it is read whole
    Back,  // the link changed (came up): the next whole board may show moves made meanwhile
  };
  // The length of a gap reached by moves all pressed and, a ply shorter, by moves whose last is shown and
  // not pressed yet: whether the shown move is the gap's or the next live one.
  enum class Length {
    Open,        // no such gap, or not searched yet
    Waiting,     // the next press, or the mismatch time, tells (waiting_board, waiting_on_move)
    AllPressed,  // the next press or move told it: the story all pressed (from that press) is told
    // The mismatch time came first: the likelier is told (all pressed; the one with its last move shown
    // where that is shorter by more than a ply, a longer story all pressed needing a detour).
    Likelier,
  };
  // Why a suspected dump's search waits for a hand at work on it (the mismatch time ends each): one stage
  // per cause.
  enum class DumpWait {
    None,
    // The game's first board read with a hand at work (a restart): searched at the next press.
    FirstDumpHand,
    // After a reconnect, the mover's pieces one of which may be in his hand (held): one of them set down goes
    // on to the press, any other change ends the wait.
    PieceInHand,
    // An opponent's piece the mover lifted to capture it, the victim first (victim); held are his kinds that
    // can take there: one of them lifted is the capture under way, one set down there goes on to the press.
    Victim,
    // A castling half done at the reading (no piece of the mover's short of its count: the Reconstructor's
    // castling_under_way).
    Castling,
  };

  // --- The link ---------------------------------------------------------------------------------------
  Link link() const { return link_; }
  bool link_changed() const { return link_ != Link::Read; }
  bool link_down() const { return link_ == Link::Down; }
  void on_link(bool connected, std::int64_t t_ms) {
    link_ = connected ? Link::Back : Link::Down;
    if (connected) back_at_ = t_ms;
  }
  // When the link last came up (0: never). What the board sent after it was sent at this time or later,
  // however late it was read: a read that stamps a burst alike stamps it at its end, not its beginning.
  std::int64_t back_at() const { return back_at_; }
  // A whole board was read at `t_ms` (a snapshot): the link is followed again, and the re-read is answered.
  void board_read(std::int64_t t_ms) {
    if (link_changed()) read_again_at_ = t_ms;
    link_ = Link::Read;
    reread_wanted_.reset();
  }
  // When the board was last read whole after the link changed (0: never), whatever it showed.
  std::int64_t read_again_at() const { return read_again_at_; }

  // --- The board re-read after a press (board_read_wanted) ---------------------------------------------
  std::optional<std::int64_t> reread_wanted() const { return reread_wanted_; }
  // The press at `press_ms` left the board showing no move at rest: it is read whole, once per press.
  void ask_reread(std::int64_t press_ms) {
    if (reread_asked_for_ == press_ms) return;
    reread_asked_for_ = press_ms;
    reread_wanted_ = press_ms;
  }

  // --- The suspicion of moves made unseen ---------------------------------------------------------------
  // A whole board read at `t_ms` after a link change or a restart showed `board`, which no single move
  // explains: the stream's `board_changes`-th board change. `first_board`: it is the first board this game
  // was read on.
  void suspect(bool first_board, std::int64_t t_ms, std::uint64_t board_changes,
               const std::array<Piece, 64>& board) {
    suspected_ = true;
    suspected_at_ = t_ms;
    suspected_change_ = board_changes;
    unsettled_ = board;
    dump_wait_ = DumpWait::None;
    held_judged_ = false;
    held_lift_.reset();
    length_ = Length::Open;
    first_board_dump_ = first_board;
    unexplained_.reset();
    deferred_.reset();
  }
  bool suspected() const { return suspected_; }
  // When the board that raised the suspicion was read, and its place in the stream (the board changes read
  // up to it, itself counted).
  std::int64_t suspected_at() const { return suspected_at_; }
  std::uint64_t suspected_change() const { return suspected_change_; }
  // The suspicion ends (the board followed, the gap recovered or adopted): so does a dump's wait for a hand.
  void clear_suspicion() {
    suspected_ = false;
    unexplained_.reset();
    unsettled_.reset();
    deferred_.reset();
    dump_wait_ = DumpWait::None;
    held_lift_.reset();
  }
  // The suspected whole board, searched at rest and explained by no story within the search's bound: kept
  // until the suspicion ends, for the next press to tell whether the gap is longer than the search reaches.
  void unexplained(const std::array<Piece, 64>& board) {
    if (suspected_) unexplained_ = board;
  }
  // The suspected whole board came to rest and was judged (searched, or its search deferred for a hand).
  void read_settled() { unsettled_.reset(); }
  // The suspected whole board, the hands at work on it before it ever came to rest (the next move made at
  // once): not searched, not judged, only read.
  const std::optional<std::array<Piece, 64>>& read_unsettled() const { return unsettled_; }
  // The board the next press may tell a gap past the search's bound from: the one no story explained, the
  // one read and never at rest, or the one whose search was deferred for a hand at work on it (begin_wait).
  const std::optional<std::array<Piece, 64>>& read_board_unexplained() const {
    return unexplained_ ? unexplained_ : unsettled_ ? unsettled_ : deferred_;
  }
  bool first_board_dump() const { return first_board_dump_; }
  // The suspected dump showed a hand at work: its search waits for the next press, or for the mismatch time.
  DumpWait dump_wait() const { return dump_wait_; }
  bool dump_deferred() const { return dump_wait_ != DumpWait::None; }
  bool waits_for_castling() const { return dump_wait_ == DumpWait::Castling; }
  // The waits begin, each judged on `judged` (the board read). `held`: the mover's kinds, a bit per Piece (1u
  // << piece).
  void wait_for_first_dumps_hand(const std::array<Piece, 64>& judged) {
    begin_wait(DumpWait::FirstDumpHand, 0, judged);
  }
  void wait_for_piece_in_hand(std::uint32_t held, const std::array<Piece, 64>& judged) {
    begin_wait(DumpWait::PieceInHand, held, judged);
  }
  void wait_for_victim(std::uint32_t takers, const std::array<Piece, 64>& judged, Square victim) {
    begin_wait(DumpWait::Victim, takers, judged);
    victim_ = victim;
  }
  void wait_for_castling(const std::array<Piece, 64>& judged) { begin_wait(DumpWait::Castling, 0, judged); }
  // The kinds waited for (PieceInHand: his pieces; Victim: his takers); 0 in the other stages.
  std::uint32_t held() const {
    return dump_wait_ == DumpWait::PieceInHand || dump_wait_ == DumpWait::Victim ? held_ : 0;
  }
  std::optional<Square> victim() const { return dump_wait_ == DumpWait::Victim ? victim_ : std::nullopt; }
  // Whose those pieces are (the mover's at the reading); only while held() is not 0.
  Color held_by() const { return color_of(Piece(std::countr_zero(held_))); }
  const std::array<Piece, 64>& held_judged_on() const { return held_judged_on_; }
  // The piece in the hand was of kind `held` after all (set down unlifted: see the Reconstructor); the stage
  // stays.
  void hold_instead(std::uint32_t held) {
    if (this->held()) held_ = held;
  }
  // The dump was judged for the mover's pieces in his hand (once per suspected board).
  bool held_judged() const { return held_judged_; }
  void judge_held() { held_judged_ = true; }
  // No change since the wait began: the next one tells whether the hand held one of those pieces. After
  // one, the wait goes on to the press (a board read whole again meanwhile starts nothing anew).
  bool held_untouched() const { return dump_deferred() && held_untouched_; }
  void held_touched() { held_untouched_ = false; }
  bool take_dump_deferral() {
    held_lift_.reset();
    return std::exchange(dump_wait_, DumpWait::None) != DumpWait::None;
  }
  // A lift from `square` while the dump waits that may be the held piece's doing: a piece of a kind waited
  // for (its square filled again a scan later was brushed by the hand setting the held piece down), or an
  // opponent's piece (one of those kinds set down on its square next is the held piece capturing). Otherwise
  // the hand held nothing and the lift began the next move. `before`: the board before the lift, the one
  // searched then.
  struct HeldLift {
    Square square = SQ_NONE;
    std::array<Piece, 64> before{};
  };
  void lifted_while_held(Square square, const std::array<Piece, 64>& before) {
    if (dump_deferred()) held_lift_ = HeldLift{square, before};
  }
  const std::optional<HeldLift>& held_lift() const { return held_lift_; }
  std::optional<HeldLift> take_held_lift() { return std::exchange(held_lift_, std::nullopt); }

  // --- Searches -----------------------------------------------------------------------------------------
  // Each board is searched once.
  bool searched(const std::array<Piece, 64>& board) const { return searched_ == board; }
  void mark_searched(const std::array<Piece, 64>& board) { searched_ = board; }
  void forget_searched() { searched_.reset(); }
  // What a search that must leave no trace (a probe) puts back when it found nothing.
  struct SearchState {
    std::optional<std::array<Piece, 64>> searched;
    int failed = 0;
  };
  SearchState search_state() const { return {searched_, searches_failed_}; }
  void restore(const SearchState& s) {
    searched_ = s.searched;
    searches_failed_ = s.failed;
  }
  // Searches that explained nothing since the last move.
  int searches_failed() const { return searches_failed_; }
  void search_failed() { ++searches_failed_; }
  void limit_failures(int n) { searches_failed_ = std::min(searches_failed_, n); }
  void reset_failures() { searches_failed_ = 0; }

  // --- The length of a gap (Length) ----------------------------------------------------------------------
  Length length() const { return length_; }
  // The search of `board` found both stories: the next press tells which (the board is searched again).
  // `longer_unsearched`: the story a ply longer could not be searched (past the bound), only supposed.
  void wait_for_length(const std::array<Piece, 64>& board, std::optional<Color> on_move,
                       bool longer_unsearched = false) {
    length_ = Length::Waiting;
    waiting_board_ = board;
    waiting_on_move_ = on_move;
    longer_unsearched_ = longer_unsearched;
    searched_.reset();
  }
  bool longer_unsearched() const { return length_ == Length::Waiting && longer_unsearched_; }
  const std::array<Piece, 64>& waiting_board() const { return waiting_board_; }
  std::optional<Color> waiting_on_move() const { return waiting_on_move_; }
  // Ends a wait: true when the length was waiting (it is open again).
  bool stop_waiting() {
    if (length_ != Length::Waiting) return false;
    length_ = Length::Open;
    return true;
  }
  // The story all pressed is the gap's: told now (its board searched again).
  void tell_all_pressed() {
    length_ = Length::AllPressed;
    searched_.reset();
  }
  // The mismatch time came first: the likelier story is told now (its board searched again).
  void tell_likelier() {
    length_ = Length::Likelier;
    searched_.reset();
  }
  // Told (AllPressed or Likelier): the next search of the board tells a story, it does not wait again.
  bool length_told() const { return length_ == Length::AllPressed || length_ == Length::Likelier; }
  void reopen_length() { length_ = Length::Open; }

 private:
  void begin_wait(DumpWait why, std::uint32_t held, const std::array<Piece, 64>& judged) {
    dump_wait_ = why;
    held_ = held;
    held_judged_on_ = judged;
    held_untouched_ = true;
    held_lift_.reset();
    victim_.reset();
    deferred_ = judged;
  }

  Link link_ = Link::Read;
  std::int64_t read_again_at_ = 0;
  std::int64_t back_at_ = 0;
  std::optional<std::int64_t> reread_wanted_;
  std::optional<std::int64_t> reread_asked_for_;
  bool suspected_ = false;
  std::int64_t suspected_at_ = 0;
  std::uint64_t suspected_change_ = 0;
  DumpWait dump_wait_ = DumpWait::None;
  std::array<Piece, 64> held_judged_on_{};
  bool first_board_dump_ = false;
  std::optional<std::array<Piece, 64>> unexplained_;
  std::optional<std::array<Piece, 64>> unsettled_;  // read_unsettled
  std::optional<std::array<Piece, 64>> deferred_;   // the board a dump's wait began on
  std::uint32_t held_ = 0;
  std::optional<Square> victim_;
  bool held_judged_ = false;
  bool held_untouched_ = false;
  std::optional<HeldLift> held_lift_;
  std::optional<std::array<Piece, 64>> searched_;
  int searches_failed_ = 0;
  Length length_ = Length::Open;
  std::array<Piece, 64> waiting_board_{};
  std::optional<Color> waiting_on_move_;
  bool longer_unsearched_ = false;
};

}  // namespace eboard::rules
