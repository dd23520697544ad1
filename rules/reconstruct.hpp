// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Reconstruction: from the sensor events of one board (and its clock) to completed moves, alerts and
// results. Sans-I/O: events and the time go in, events come out; the caller owns timers and calls
// `advance(now)` at `next_deadline()`. Replaying the same inputs gives the same outputs.
//
// How it decides. For the committed position P it keeps the board after every legal move
// ("successors"). The physical board is compared with P and with each successor after every sensor
// event. A clock press by the player on move completes the successor the board shows (or, if the
// opponent has already begun to move by the time the press is read, the last successor it showed).
// When a settled board matches nothing one ply away, a two-ply search explains missed events.
//
// Drop variants. A piece set on an empty square that came from no square of this board is a drop, matched
// like any successor: the drops are generated from the official reserve (crazyhouse: the position's own
// pockets; bughouse: pockets set from outside by rules/Match, FQE 6). In bughouse the board is compared in
// its physical form: a promoted pawn stays a pawn on the wood (FQE 11), so the reconstructor keeps the
// physical picture of the committed position beside the position itself.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "rules/board_phase.hpp"
#include "rules/deadlines.hpp"
#include "rules/events.hpp"
#include "rules/game.hpp"
#include "rules/gap_rank.hpp"
#include "rules/gap_search.hpp"
#include "rules/gap_tracker.hpp"
#include "rules/illegal_moves.hpp"
#include "rules/press_count.hpp"
#include "rules/press_wait.hpp"
#include "rules/profile.hpp"
#include "rules/reserve_ledger.hpp"
#include "rules/sensor.hpp"
#include "rules/stood_illegal.hpp"
#include "rules/touch_tracker.hpp"
#include "rules/turn_clock.hpp"

namespace eboard::rules {

struct ReconstructConfig {
  std::string board_id = "A";
  Profile profile = *profile_by_name("fide-standard");
  std::int64_t provisional_ms = 30;  // quiet this long after a scan's burst of events: publish what it shows
  std::int64_t settle_ms = 250;      // quiet this long (about one scan): the board has settled
  std::int64_t mismatch_ms = 5000;   // a settled board nothing explains for this long: position-mismatch
  bool chess960 = false;             // a start position other than the standard one is a Chess960 start
  // Whether the source can read the whole board on request (a DGT board dump): a press after which the
  // board shows no move once at rest asks for it (board_read_wanted), since field updates lost on the
  // wire leave the board so. Off for sources that cannot (replays of captures, simulations).
  bool reread_board = false;
  // A gap whose length the clock does not count (no increment learned) and whose shortest story has
  // Reconstructor::kOpenLengthPlies plies or more, or fewer with each side's time used over it fitting one
  // move more per side (rules/gap_pace.hpp), is told with its length open, and the moves
  // made since are held back until the arbiter settles it (MissedGap::Length::Uncounted): none goes out at a
  // ply a detour the board cannot show would change. Off: the shortest story is told, the moves after it go
  // out live.
  bool hold_uncounted_gaps = false;
  // A scanning board reports the changes of one scan together, in board order, not in the order the hand
  // made them: a touch binds (4.3) only if it came this much before the moved piece was lifted.
  std::int64_t touch_order_ms = 300;
  // About one scan: a board change can be reported this long after it happened.
  std::int64_t scan_ms = 260;
  // Whether the clock reading that shows a press comes after the scans of everything the hand did on the
  // board before the press. A DGT board reads its clock between sweeps of its squares: in the real
  // captures every move's field updates come before the reading of its press. Then a board that shows a
  // legal move at that reading shows the move pressed, completed at once. false (a clock read on a link
  // of its own): a move that may be a moment of a longer gesture (may_continue) is decided one scan after
  // the board's last change, on the latest board that shows a legal move.
  bool press_read_after_scan = true;
  // A board without a clock (Millennium, Chessnut): a move is complete when the board has rested this long
  // on a legal move, or at once when the other side begins its next move (lifts or moves one of its
  // pieces); 0: the clock completes moves. With it, a snapshot after the first one (and not after a link
  // change) is a scan, not a re-read: it is compared with the board it follows square by square, each
  // lift a touch, as square events would be.
  std::int64_t complete_after_ms = 0;
  // Bughouse (FQE 21b): a drop set on the board this much before the partner's capture was completed (his
  // clock press) is reported (drop-before-partner-clock); less is the reading delay of clocks and scans.
  std::int64_t handover_tolerance_ms = 500;
};

class Reconstructor {
 public:
  explicit Reconstructor(ReconstructConfig cfg);
  // Continues an existing game (after a restart, or an arbiter's setup).
  Reconstructor(ReconstructConfig cfg, Game game);

  std::vector<Event> on_sensor(const SensorEvent& e);
  std::vector<Event> advance(std::int64_t now_ms);
  std::optional<std::int64_t> next_deadline() const;

  const Game& game() const { return game_; }
  const std::array<Piece, 64>& physical() const { return physical_; }
  bool board_matches_game() const { return physical_ == display_; }
  // When set, the board should be read whole (a DGT board dump) for the press at that time: after it the
  // board showed no legal move at rest, which field updates lost on the wire also leave. A source that can
  // ask sends one request per value; the snapshot it gets clears it. Empty with reread_board off.
  std::optional<std::int64_t> board_read_wanted() const { return gaps_.reread_wanted(); }
  // The clock as last read: both times, whose clock runs (none when it is stopped or the sides are not
  // known yet), and when it was read; none before a reading from a clock that is there.
  struct ClockNow {
    ClockTimes times;
    std::optional<Color> running;
    std::int64_t read_ms = 0;
  };
  std::optional<ClockNow> clock_now() const;
  // The clock's reading as the board last reported it, by side (left/right, not colours); none before one.
  const std::optional<ClockReading>& last_clock_reading() const { return clock_.latest(); }
  // Which colour sits at the clock's left side, once learned from the first completed move.
  std::optional<Color> left_player() const { return clock_.left_player(); }
  // The committed position as it stands on the wood (in bughouse a promoted piece is a pawn there).
  const std::array<Piece, 64>& expected_board() const { return display_; }

  // --- Reserves set from outside (bughouse; rules/Match) -------------------------------------------
  // A piece the partner's completed capture put into a reserve of this board (its colour says whose).
  std::vector<Event> receive(Piece piece, std::int64_t t_ms);
  // After the pieces the partner handed over at once were received: a gap this board could not explain
  // is searched again with them (rules/Match calls it once per batch).
  std::vector<Event> search_received(std::int64_t t_ms);
  // The piece the partner's board shows captured but not completed yet, if any. A drop of it is a drop
  // played too early (FQE 21b), not a piece from nowhere.
  std::vector<Event> set_partner_shown(std::optional<Piece> piece, std::int64_t t_ms);
  // What the move this board shows (not completed yet) would hand over to the partner.
  std::optional<Piece> shown_handover() const;
  // The partner's board is blind (its link is down, or it came back showing moves not searched yet): its
  // captures meanwhile are unknown, so a drop of any piece may be one it handed over unseen. Such a drop is
  // followed (borrowed until the recovered capture makes it good) instead of being judged illegal; if the
  // partner's recovered moves bring no such piece, it is reported once the partner is followed again.
  std::vector<Event> set_partner_blind(bool blind, std::int64_t t_ms);
  // This board may have made moves not followed yet (see set_partner_blind), or, with drops, its last gap
  // was told at the shortest story where a longer one may be the one (MissedGap::length_uncertain: a piece
  // dropped and taken leaves no trace on the board, its capture handed over unseen) or held with its length
  // open (MissedGap::holds_moves), and the arbiter has not settled it.
  bool blind() const;
  // The pieces handed over by the moves completed since the last call, in order.
  std::vector<Handover> take_handovers();
  // Pieces handed over earlier that the partner must give back: the game went on from another story of a
  // missed gap (switch_gap_story), whose captures differ.
  std::vector<Handover> take_withdrawn();
  // The partner gives back a piece it handed over (see take_withdrawn): out of the reserve, or, when it
  // was dropped already, borrowed.
  std::vector<Event> withdraw(Piece piece, std::int64_t t_ms);
  // Pieces dropped before they were received (a drop completed before the partner's capture), not yet
  // made good by the capture.
  int borrowed(Color c, PieceType t) const { return reserves_.borrowed(c, t); }
  // FQE 11: the piece the next promotion of `c` stands for when the pawn stays on the last rank (told by
  // the player, entered by the arbiter or on the clock). Queen unless set; back to queen after use.
  void set_promotion_piece(Color c, PieceType t);
  // FQE 23: the match is paused (both clocks stopped to call the arbiter): no flag falls meanwhile.
  void set_clocks_paused(bool paused) { clock_.set_paused(paused); }
  // Ends the game from outside (the other game of a match decided it, an arbiter's decision).
  std::vector<Event> end_game(const Outcome& o, std::int64_t t_ms);

  // --- Arbiter input (the daemon's control interface) ---------------------------------------------
  // Resignation of `c`, a draw by agreement: the game's result (reasons resignation, agreement); during an
  // adjournment they end it, the sealed move unplayed. Nothing when the game is already over.
  std::vector<Event> resign(Color c, std::int64_t t_ms);
  std::vector<Event> agree_draw(std::int64_t t_ms);
  // A result the arbiter gives (a decision, a forfeit, a flag the arbiter saw): `o` is the game's result
  // with its reason. During an adjournment too; the sealed move is then never played. Nothing once over.
  std::vector<Event> declare(const Outcome& o, std::int64_t t_ms);
  // The arbiter corrects the result of the game, over already: `o` replaces it, told as a new result.
  // (declare() when the game is not over.)
  std::vector<Event> correct(const Outcome& o, std::int64_t t_ms);
  // Guidelines I: the player on move seals his next move (as written, SAN or UCI, judged only at the
  // resumption) and the game is adjourned. Reconstruction pauses: the board is still followed, but no
  // move, alert or new game comes from it until resume(). (The sealed move and clocks:
  // rules/board_phase.hpp.)
  using Adjournment = rules::Adjournment;
  // Fails (and changes nothing) when the game is over, already adjourned, or `sealer` is not on move.
  tl::expected<void, std::string> adjourn(Color sealer, const std::string& sealed, std::int64_t t_ms,
                                          ClockTimes clock = {});
  const std::optional<Adjournment>& adjournment() const { return phase_.adjournment(); }
  // Plays the sealed move (a move event with the clocks of the adjournment) and lets reconstruction go on.
  // A sealed move that is illegal or ambiguous here loses the game for the sealer (I.8): an illegal-move
  // alert (reason sealed-move) and the result. Nothing when the game is not adjourned.
  std::vector<Event> resume(std::int64_t t_ms);

  // --- Gaps: moves made while the board was not followed (a cable out, the daemon down) ---------------
  // The last gap several sequences explained, as its moves-missed alert told it, until the arbiter settles
  // it. None while that alert waits for the gap's last press (an open tail: the gap is told whole then):
  // what is shown, and can be settled, is only ever what was published.
  struct MissedGap {
    int first_ply = 0;  // the gap's first ply (1 = White's first move)
    std::vector<std::vector<Move>> candidates;
    // What is known of the gap's length.
    enum class Length {
      Known,  // every candidate has the gap's length: the moves after it go out at their plies
      // The candidates are the stories within the search's bound (kGapPlies), all pressed, and a story
      // past the bound, its last move shown and not pressed, reaches the board as well: the mismatch time
      // came before the press that tells them apart.
      Unknown,
      PastBound,  // longer than the search reaches (a press told it): no candidates
      // The candidates are the shortest stories, all pressed, of kOpenLengthPlies or more, on a clock that
      // counts no presses (no increment learned: rules/press_count.hpp): a story longer by a piece's detour
      // (Bc1-e3-d2 for Bc1-d2, a knight out and back) reaches the same board, and nothing tells them apart.
      // Those the search found of two lengths at a press are listed all, the shorter first.
      Uncounted,
    };
    Length length = Length::Known;
    // What the ranking knew of it (the clocks, the hand at the loss): an outside ranker weighs the same.
    GapEvidence evidence;
    // Uncounted, told at a reading (no press with it): a longer story whose last move is shown and not
    // pressed reaches the board as well, the other side on move after it. That mover's press without a
    // move tells so (press_tells_held_gap_longer), or the arbiter's moves (settle_held_gap).
    bool told_at_reading = false;
    // Known, told at the shortest stories' length where hold_uncounted_gaps would have held it (Uncounted):
    // a longer story with a piece's detour may be the one, and the moves since went out at the shorter
    // story's plies (its alert says so: "length_uncertain").
    bool length_uncertain = false;
    // Told at a reading (no press with it) from a board read with a hand at work on it
    // (GapTracker::read_board_unexplained): a piece missing from it may have been in the hand of the side on
    // move, his capture under way (press_takes_a_piece_lifted_at_the_reading).
    bool read_with_a_hand_at_work = false;
    // Bughouse, its length open (Uncounted): the pieces the shortest candidate captures, handed to the
    // partner when it was told (a hold must not keep them from him). Settling gives back those the moves
    // given do not capture and hands over those they do and it did not.
    std::vector<Handover> handed{};
    // Its length not known (Unknown, PastBound, Uncounted): the game holds a jump for it (Game::adopt) and
    // goes on from the board's position, and the moves made since are held back, published only when the
    // arbiter gives the gap's moves (a candidate, or any number of moves that reaches that position): their
    // plies depend on the gap's length.
    bool holds_moves() const { return length != Length::Known; }
    bool past_bound() const { return length == Length::PastBound; }
    // The shortest candidate's plies (0 without candidates): the length the gap was told at, its alert's
    // last_ply the first_ply + this - 1, in whatever order its candidates are shown.
    std::size_t shortest_plies() const {
      std::size_t n = candidates.empty() ? 0 : candidates.front().size();
      for (const auto& c : candidates) n = std::min(n, c.size());
      return n;
    }
    // Its last move may be shown and not pressed: Unknown, or Uncounted told at a reading.
    bool last_move_may_be_shown() const {
      return length == Length::Unknown || (length == Length::Uncounted && told_at_reading);
    }
  };
  const std::optional<MissedGap>& missed_gap() const { return open_tail_ ? kNoGap : missed_gap_; }
  // The last gap, when it was recovered as the one story that reaches the board at its shortest where the
  // clock counts no presses (what MissedGap::length_uncertain says of a list): its moves went out recovered
  // and no alert was told, but a longer story with a piece's detour may be the one played. Until another gap
  // is told or a game begins, the arbiter may still give that story's moves (settle_gap with the moves
  // typed): the gap's plies become them, and every ply since goes out again at its ply.
  struct UncertainRecovery {
    int first_ply = 0;
    int plies = 0;
  };
  const std::optional<UncertainRecovery>& uncertain_recovery() const { return uncertain_recovery_; }
  // How many of game()'s last plies are moves held back behind a gap of unknown length (not published
  // until the arbiter settles it: MissedGap::holds_moves).
  int held_moves() const;
  // The ply count at the end of the missed gap's jump (Game::adopt: one ply, or two when the same side is
  // on move after it); without a gap held, the game's.
  int held_gap_end() const;
  // A moves-missed alert lists this many candidates, the likeliest first (rules/gap_rank.hpp), and tells
  // how many there are (candidates_total); settle_gap takes any of them.
  static constexpr std::size_t kShownCandidates = 16;
  // The arbiter picks candidate `index` (0-based) of the missed gap, or types the moves (UCI or SAN,
  // separated by spaces): the gap's plies become those moves, recovered, published as move events (after
  // a gap of unknown length, followed by the moves held back since, at their plies; typed moves of another
  // number than a known gap's, followed by the plies since, at theirs now; "none" for no move at all, a
  // held gap whose jump came back to the position before it). Without a missed gap, the moves typed correct
  // an uncertain recovery (uncertain_recovery()), more of them than it had. Fails, changing nothing, when
  // there is neither or the moves do not lead to the same position.
  tl::expected<std::vector<Event>, std::string> settle_gap(std::size_t index, std::int64_t t_ms);
  tl::expected<std::vector<Event>, std::string> settle_gap(const std::string& moves, std::int64_t t_ms);
  // The arbiter has the game followed from the position the board shows, `side` to move (default: the
  // side whose clock runs, else the side on move now): a new segment of the record (SetUp/FEN), with a
  // position-adopted alert. Fails when the board shows no position the rules can play from.
  tl::expected<std::vector<Event>, std::string> adopt_board(std::int64_t t_ms,
                                                            std::optional<Color> side = {});

  // --- A game without wood (a board with no device: the arbiter types its moves) ---------------------
  // Plays the move `text` (UCI, else SAN) as completed at `t_ms`, with the clock times after it when
  // known: a move event, then the game's automatic end or claims, as for a move the board showed. The
  // wood is taken to show the new position. Fails, changing nothing, with a sentence naming the move and
  // why (illegal, ambiguous, unreadable), or when the game is over or adjourned.
  tl::expected<std::vector<Event>, std::string> enter_move(std::string_view text, ClockTimes clock,
                                                           std::int64_t t_ms);

 private:
  struct Successor {
    Move move;
    std::array<Piece, 64> board;
    bool pawn_left_on_last_rank = false;  // a promotion shown with the pawn still standing (7.5.2, FQE 11)
    bool early = false;  // a drop of a piece the partner has captured but not completed yet (FQE 21b)
  };
  void on_board_changed(std::int64_t t);
  bool own_piece_in_air() const;
  void on_clock(const ClockReading& r, std::int64_t t);
  void on_press(ClockSide pressed, const ClockReading& r, std::int64_t t);
  void on_settled(std::int64_t t);
  // Without a clock no press says the hands are done: a board read after a reconnect that has not rested as
  // long as a move must to be complete (complete_after_ms) is looked at again then (true: deferred so).
  bool unrested_without_a_clock(std::int64_t t);
  void publish_provisional(std::int64_t t);
  // Completes `s`. `touch_count` touches and the board states up to `history_index` belong to its turn;
  // what came after (the opponent already moving) is carried over to the next turn.
  void commit(const Successor& s, std::int64_t t, ClockTimes clock, std::size_t touch_count,
              std::size_t history_index, bool judge_touches = true);
  void commit_current(const Successor& s, std::int64_t t, ClockTimes clock) {
    commit(s, t, clock, touches_.size(), history_.empty() ? 0 : history_.size() - 1);
  }
  void reset_turn();
  // After a move was added to the game: the latest board of this turn that shows a move from the new
  // position is the one the board shows (the opponent may have moved before the press was read).
  void match_from_history();
  // Touch-move and release checks of the move about to be completed, over the touches of its turn.
  void check_touches(const Successor& s, std::size_t touch_count, std::int64_t t);
  // A completed illegal move (or clock press without a move): counted, with the profile's penalty.
  void illegal_move(const char* code, Color side, std::int64_t t, const std::string& reason,
                    const std::string& detail);
  // A press read only at a reconnect, the board at the game's position: told as a press without a move,
  // nobody having seen it (not counted, no penalty proposed: resolve_pending_on_settle).
  void unseen_press_without_move(Color side, std::int64_t t);
  // The game's ply count when unseen_press_without_move told a press; cleared by the next press.
  std::optional<int> unseen_pass_at_;
  // With the hold (ReconstructConfig::hold_uncounted_gaps), the press after an unseen press without a move:
  // the other side's, the board still at the game's position, says the unseen press may have been the last
  // of moves that came back to it, this presser's last move shown and not pressed at the reading (the sim's
  // blitz game 21: plies 88-91, c7-d7, e4-d3 and both back, the last set down). No board or clock tells that
  // from a press without a move given back: told as a gap with its length open, the shortest stories of moves
  // that came back its candidates, the moves since held back until the arbiter gives the moves or "none".
  // False: no such press, or no story.
  bool press_tells_unseen_moves(const PendingPress& press, std::optional<int> unseen_pass);
  // The illegal move the board shows (rules/illegal_moves.hpp), a drop only when no legal drop explains it.
  std::optional<ShownMove> shown_move() const;
  void start_new_game(const Position& start, std::int64_t t);
  void recompute_successors();
  // The position with the partner's shown capture added to the reserves: what drops are matched against.
  Position extended_position() const;
  // After a reserve changed: successors again, and the board judged again with them.
  void refresh(std::int64_t t);
  // The first board state of this turn that shows the drop `m`'s piece on its square.
  std::optional<std::int64_t> drop_placed_at(Move m) const;
  // FQE 21b at the completion of drop `m`: borrows a piece not received yet, reports an early drop.
  void judge_drop_timing(Move m, std::int64_t t);
  void emit_early_drop(Piece p, std::int64_t placed, std::int64_t t, int ply, const std::string& when);
  void hidden_reserve(Color claimant, std::int64_t t);
  // The successor the board shows; when two moves give the same board (Chess960 castling where king or
  // rook stays), the touch order decides (RULES.md: king lifted first means castling).
  const Successor* matching_successor() const { return successor_for(physical_); }
  const Successor* successor_for(const std::array<Piece, 64>& board) const;
  // Moves m1, m2 with P+m1+m2 = physical (missed events), if exactly one such pair exists.
  std::optional<std::pair<Successor, Move>> two_ply_explanation() const { return two_ply_for(physical_); }
  std::optional<std::pair<Successor, Move>> two_ply_for(const std::array<Piece, 64>& board) const;
  // Two moves completed at one press: the touches the first accounts for, the lifts on its squares the
  // turn's touches begin with. The rest are the reply's, and after it the next mover's (his lift before the
  // reply's press was read: a held gap's next two plies at one press, sim_gap_recovery_test's bughouse
  // match 12, ...Bb4 and Bb5 then ...O-O with the king lifted first).
  std::size_t leading_touches_of(Move m) const;
  // Missed events: the latest board state since P that two moves explain completes both (the first
  // with `first_t`/`first_clock`, the second with `t`/`clock`). Touches are not judged: with events
  // missing they cannot be told apart between the two players.
  bool complete_two_from_history(std::int64_t first_t, ClockTimes first_clock, std::int64_t t,
                                 ClockTimes clock);
  bool result_gesture(std::int64_t t);
  void emit(std::int64_t t, decltype(Event::what) what);
  void check_end(std::int64_t t);

  ReconstructConfig cfg_;
  Game game_;
  std::array<Piece, 64> physical_{};
  bool have_board_ = false;
  std::vector<Successor> successors_;
  // The move the board showed last since P, with the touch count and the board state (its index in
  // history_) when the board last showed it: what belongs to its turn when a later press completes it.
  struct LastShown {
    Successor successor;
    std::size_t touches;
    std::size_t history_index;
  };
  std::optional<LastShown> last_match_;
  // Board states since the last completed move (each with the touch count then), so that a reply the
  // opponent made before the press was read can be found where the board showed it.
  struct BoardState {
    std::int64_t t_ms;
    std::array<Piece, 64> board;
    std::size_t touches;
  };
  std::vector<BoardState> history_;
  // The latest board state read at or before `t_ms` (a press's board); null when none was.
  const BoardState* state_at(std::int64_t t_ms) const;
  // The board as the hands left it when the link went down this turn, where it differed from the position:
  // the gap's first move under way (GapEvidence::hand_at_loss).
  std::optional<std::array<Piece, 64>> hand_at_loss_;
  // The lifts since the last completed move, and the piece released on its square (4.3, 4.7).
  TouchTracker touches_;
  // The next mover's lifts read before the move that ends this turn was committed (a gap told at a press
  // decided by his first lift, recover_gap_on): his next turn's first touches, carried over by commit().
  std::vector<TouchTracker::Touch> next_turns_lifts_;
  // FIDE 7.5: the illegal move shown this turn and its stage, the completed one to be replaced with the
  // same piece, the counts per colour (rules/illegal_moves.hpp).
  IllegalMoves illegal_;
  // 7.5.1: the completed illegal move `m` (the profile permitting) is replaced at the next ply.
  void remember_replaced(const ShownMove& m);
  // Whether `s` is made with the piece of `illegal` (or, for a drop, the same reserve piece), when that
  // piece could move; reports same-piece-required if not and returns the square it names.
  Square judge_same_piece(const ShownMove& illegal, const Successor& s, const std::string& what,
                          const char* rule, std::int64_t t);
  std::optional<Move> published_provisional_;
  // --- Wake-ups: every deadline the Reconstructor wakes up at, in the order advance() handles those due
  // at the same time. Its own are kept in deadlines_; the others are its parts' (IllegalMoves, PressWait,
  // ReserveLedger, TouchTracker), read from them by wakeups(), which computes the next one.
  enum class Wake {
    Provisional,    // quiet after a scan's burst of events: publish what the board shows
    Settle,         // quiet for about a scan: the board has settled (on_settled)
    ShownIllegal,   // an illegal move has rested on the board for the release time (IllegalMoves)
    PressDecision,  // one scan after the board's last change: the press is decided (PressWait)
    PressDeadline,  // the press has waited long enough for pieces in the air (PressWait)
    EarlyDrop,      // a drop before the partner's capture is told (ReserveLedger)
    RestComplete,   // without a clock (complete_after_ms): the legal move shown has rested long enough
    Release,        // a piece has rested on its square long enough to be released (4.7, TouchTracker)
    Mismatch,       // a settled board nothing explains for the mismatch time
    HeldLift,       // a scan after a lift of a kind a reconnect's dump waits for (GapTracker::HeldLift)
    Count
  };
  Deadlines<Wake> deadlines_;  // Provisional, Settle, RestComplete, Mismatch, HeldLift
  Deadlines<Wake> wakeups() const;
  bool clockless() const { return cfg_.complete_after_ms > 0; }
  // Without a clock: the board about to become `next` shows a legal move now and `next` changes a square of
  // the side that replies to it: that side has begun, the move shown is complete (before `next` applies).
  void complete_before_reply(const std::array<Piece, 64>& next, std::int64_t t);
  // Without a clock: the board shows the move shown before and a reply to it (two plies): the first is
  // complete.
  void complete_two_shown(std::int64_t t);
  // Without a clock: the one legal move the board shows with only the replier's pieces changed besides (a
  // scan read late: the move set down and the reply begun in the same scan, a castling king on its way).
  const Successor* successor_under_reply() const;
  bool complete_under_reply(std::int64_t t);
  // Without a clock the board is only read: a scan read late (a loaded machine) can show a move, its
  // reply and more at once, never each at rest. A board nothing explains for the mismatch time, and after
  // that every settled board, is looked into: a move shown with the reply begun completes it, else the
  // moves between are searched (recover_scan_gap). Not sooner: a hand at work (a piece knocked over and
  // set back) must not be read as moves. True when the board is followed again.
  bool follow_late_scans(std::int64_t t);
  // The game over or adjourned, or the board showing its position: no moves are missing.
  bool no_moves_to_find() const { return game_.outcome() || adjournment() || board_matches_game(); }
  bool ending_lift_uncertain_ = false;  // the event being applied ended the turn (complete_before_reply)
  // The board's phase (rules/board_phase.hpp): followed, told as not followed (position-mismatch,
  // setup-error) until it is followed again (forget_mismatch()), or adjourned (adjourn() to resume(), or a
  // result that voids the sealed move).
  BoardPhase phase_;
  // No mismatch is waited for or told: the board shows the game, or the game goes on from what it shows.
  void forget_mismatch() {
    deadlines_.clear(Wake::Mismatch);
    phase_.followed();
  }
  // A press the board did not explain yet (a placement not scanned yet, the opponent's hand already on
  // the piece): resolved when the board shows a move, judged once the board has settled; its stage
  // (deciding one scan after the board's last change, or waiting up to its deadline) is PressWait's.
  PressWait wait_;
  std::int64_t last_board_event_ = -1000000;
  std::uint64_t board_changes_ = 0;  // board changes read so far: the stream's order (PendingPress)
  bool board_from_dump_ = false;     // the board is a snapshot, no field update since (on_press)
  void decide_pending(std::int64_t now);
  // Whether the board showing `s` may be a moment of a longer gesture of the same hand whose end a scan
  // has not reported yet: the piece pushed on across its square (a slide), a castling's king or rook on
  // its way with the other piece still to come, a pawn on the last rank before the swap (7.5.2).
  bool may_continue(const Successor& s) const;
  // The one successor `board` shows with some of the opponent's pieces lifted: a scan lists squares in
  // board order, so the opponent's first lift can share the scan of the mover's last placement.
  const Successor* successor_with_lifts(const std::array<Piece, 64>& board) const;
  void resolve_pending_on_settle(std::int64_t t, bool final);
  // The clock's readings and who sits where (rules/turn_clock.hpp).
  TurnClock clock_;
  // Seats guessed from a running clock while the board showed a move already (a clock read first after
  // the game began): the reading may follow that move's press as well as come before it. The next press
  // tells (on_press); the guessing reading is kept for the move it then completes.
  struct GuessOverMove {
    std::int64_t t_ms = 0;
    ClockReading reading;
  };
  std::optional<GuessOverMove> guessed_over_move_;
  void guess_seats(const ClockReading& r, std::int64_t t);
  std::vector<Event> out_;
  // The events of a call from outside (the match, an arbiter): what `f` emits, kept apart from events
  // still waiting in out_.
  template <class F>
  std::vector<Event> collect(F&& f) {
    std::vector<Event> saved = std::move(out_);
    out_.clear();
    f();
    std::vector<Event> result = std::move(out_);
    out_ = std::move(saved);
    return result;
  }

  // The committed position as it stands on the wood (promoted pieces as pawns in bughouse, FQE 11).
  std::array<Piece, 64> display_{};
  // Bughouse reserves from outside, and the drops of this turn (FQE 19, 21b).
  ReserveLedger reserves_;
  // While adjourned: the board is followed (what it shows at the resumption), nothing else.
  void follow_adjourned(const SensorEvent& e);

  // --- FIDE A.4.2: an illegal move stands unless claimed before the opponent's next move ------------
  // (rules/stood_illegal.hpp). It stood when the opponent plays a legal move from the position it left
  // and presses his clock: it becomes a ply of the game (an illegal move event) and his reply is judged
  // from there like any move.
  StoodIllegal stood_;
  void remember_stood(const ShownMove& m, const PendingPress& press);
  // A press without a move (7.5.3) that may stand: a pass, recorded as the null move 0000.
  void remember_stood_pass(const PendingPress& press);
  // A clock press: when it is the opponent's and the board shows his reply, the illegal move stood. Called
  // before on_press, which then completes the reply as the move of the player on move.
  void stood_on_press(ClockSide pressed, const ClockReading& r, std::int64_t t);
  void stood_on_board_changed(std::int64_t t);
  void adopt_stood();

  // --- Gaps -------------------------------------------------------------------------------------------
  // The link's phase, the re-read after a press, the suspicion of moves made unseen (cleared once the
  // board is followed again), the boards searched and the searches that failed since the last move (after
  // two the board is followed from what it shows, follow_unexplained_press, not searched at every press:
  // each costs up to the work bound), and the phase of a gap whose length waits for a press.
  GapTracker gaps_;
  // Pieces came from the partner since the last search_received.
  bool received_unsearched_ = false;
  // A missed gap whose last move was on the board, not pressed, and differs between the sequences: its
  // alert waits for that press (close_open_tail), which makes the gap one ply longer and every candidate
  // whole; anything else first tells the alert as it was (flush_open_tail).
  struct OpenTail {
    int ply;                      // the ply count once the tail is completed
    std::array<Piece, 64> board;  // the position every whole sequence reaches
    AlertEvent whole_alert;       // with the whole sequences
    std::vector<std::vector<Move>> sequences;
    AlertEvent alert;  // with the completed prefixes
    std::int64_t told_at;
    bool hold = false;  // its length open once the tail is pressed (ReconstructConfig::hold_uncounted_gaps)
    GapEvidence evidence;
  };
  std::optional<OpenTail> open_tail_;
  // With drops, the candidates of a missed gap may differ only in the reserves they leave (N@b4 or P@b4,
  // then the same captures on b4): a drop that the story the game went on from cannot explain, and another
  // candidate can, makes that candidate the game's (still missed). True when it did.
  bool switch_gap_story(const ShownMove& drop, std::int64_t t);
  // Bughouse: the game's plies from `first` (0-based) rewritten, `was` the game before: the pieces its
  // old plies handed over and the new ones do not are given back, and those the new ones hand over and the
  // old did not are handed over (at the capture's ply). The plies end at `was_end` and `now_end` (0-based,
  // exclusive) in each.
  void hand_over_the_difference(const Game& was, int was_end, int first, int now_end, std::int64_t t);
  // The same from the pieces the old plies handed over (`was`) and those the new ones hand over.
  void hand_over_the_difference(const std::vector<Handover>& was, std::vector<Handover> now, std::int64_t t);
  // Bughouse: the pieces plies [first, end) (0-based) of `g` hand to the partner, at their plies and `t`;
  // up to a jump. None in another variant.
  static std::vector<Handover> captures_handed(const Game& g, int first, int end, std::int64_t t);
  // The same for `moves` played from `from`, the first at ply `first_ply` (1-based).
  static std::vector<Handover> captures_handed(Position from, const std::vector<Move>& moves, int first_ply,
                                               std::int64_t t);
  // With drops: the last gap was told at its shortest with a longer story possible (length_uncertain, or
  // held with its length open), no move was made since, and no position-mismatch told yet.
  bool last_gap_may_be_longer() const;
  // The longest gap searched: a late reconnect (boards with a clock, or a dump), in bughouse (drops make
  // every ply wider), and on a clockless board's scans (several readings searched at each settled board).
  static constexpr int kGapPlies = 10;
  static constexpr int kDropGapPlies = 6;
  // With drops, a piece in a hand at the reading reads as one taken in a longer story (every capture hands a
  // piece on, and any piece can come back by a drop): past this many plies only a board that no piece put
  // back explains within it is searched (drop_gap_bound).
  static constexpr int kDropHandPlies = 4;
  // With ReconstructConfig::hold_uncounted_gaps, a gap whose shortest story has this many plies or more, on
  // a clock that counts no presses, is told with its length open (MissedGap::Length::Uncounted): a longer
  // story with a piece's detour reaches the board as well, and the moves after it would go out at plies
  // they were not played at. (bench_gap_ranking, gaps of 1 to 8 plies cut at random from the blitz games
  // without increment, searched as the daemon searches: of those whose shortest story has 1, 2 or 3 plies, 1
  // in 159 each was played longer; 4, 5 or 6 plies, 18 in 485.)
  static constexpr int kOpenLengthPlies = 4;
  static constexpr int kScanGapPlies = 8;
  static constexpr std::size_t kScanCandidates = 256;
  AlertEvent moves_missed_alert(const Position& before, int first_ply,
                                const std::vector<std::vector<Move>>& candidates, bool at_least,
                                bool truncated) const;
  void flush_open_tail(std::int64_t t);
  bool close_open_tail(std::int64_t t);  // true: the move just played was the tail (no move event)
  // The gap the game holds as missed (its plies marked so): the one told, or, while open_tail_ waits, its
  // completed prefixes, which the game goes on from and nothing outside sees (missed_gap()).
  std::optional<MissedGap> missed_gap_;
  // The last gap told past the bound (tell_gap_past_bound_at): the board it was told from, and the game's
  // ply count after its jump (while it is still the count, nothing was played since).
  struct PastBoundTold {
    std::array<Piece, 64> board;
    int plies_after;
  };
  std::optional<PastBoundTold> past_bound_told_;
  // The gap past_bound_told_ tells is the one held (the missed gap past the bound: every such gap is told
  // by tell_gap_past_bound_at), nothing played since.
  bool past_bound_told_untouched() const;
  static inline const std::optional<MissedGap> kNoGap{};
  std::optional<UncertainRecovery> uncertain_recovery_;
  // While the gap's length waits (GapTracker::Length::Waiting): the board now one legal move on from the
  // story all pressed (the side on move in it has moved): that story is the gap's, recovered, and the move is
  // followed from it.
  bool gap_length_told_by_a_move(std::int64_t t);
  // While the gap's length waits with the story a ply longer unsearched (GapFound::longer_unsearched):
  // `press`, by the mover whose clock ran, left the board as it was read, so its last move was shown and
  // not pressed, and no story of the search's length all pressed with the other side on move reaches it.
  // Then the gap is longer than the search reaches: told so (moves-missed without candidates), the game
  // goes on from the board's position, its moves held back (MissedGap::past_bound). False: a story within
  // the bound does, told the ordinary way.
  bool tell_gap_past_bound(const PendingPress& press);
  // A reconnect's (or a restart's) whole board, read at rest, that no story within the search's bound
  // explains, read and never at rest (the next move made at once, so never searched), or read with a
  // hand at work and its search deferred (GapTracker::read_board_unexplained), then `press` by the side on
  // move there with one legal move of his from it on the board now: the gap ends at the board read, longer
  // than the search reaches. Told so (as tell_gap_past_bound), and the pressed move is the first after the
  // gap, held back with the rest. False: not such a press, or a story within the bound reaches the board
  // read.
  bool tell_gap_past_bound_from_read_board(const PendingPress& press);
  // A reconnect's board read with the hand at work (its search deferred, or never at rest) within the
  // search's bound, the board at `press` a ply past it: the presser's one legal move from the board read (his
  // piece put back where it was lifted from) is on the board now. The gap's stories end at the board read,
  // him on move; his move is the first after the gap (the hall's blitz game 197: ten plies unseen, 10.Rd1's
  // rook in the hand at the reading, the board at the press eleven plies away). True when told.
  bool recover_gap_before_the_pressed_move(const PendingPress& press);
  // The gap from the game's position to `board` with `on_move` to move, when no story within the search's
  // bound (or none it could finish) reaches it: moves-missed with past_bound, the game adopted from the
  // board's position, the moves after it held. False: a story within the bound, no position, or drops.
  // `retold`: the gap was told before from a board that was wrong (the alert says why: "retold").
  bool tell_gap_past_bound_at(std::int64_t t, const std::array<Piece, 64>& board, Color on_move,
                              const std::string& retold = {});
  // A gap told past the bound from a board read with a piece of the side on move in the air (lifted when it
  // was read, still in the hand when the press was decided: a loaded daemon reads the set-down late), then
  // his press, no move since, with one legal move of his on the board now from the board told with that
  // piece put back on the square it left (one such square and move): the gap is told again from the board
  // with the piece, and the pressed move is the first after it. False: not such a press.
  bool retell_past_bound_with_the_piece_put_back(const PendingPress& press);
  // The board read after a reconnect, `mover` on move there, and one legal move of his from it on the board
  // now: from the board as read, or from it with one piece of his put back (lifted when it was read, set
  // down since). `unique`: no other such board and move.
  // With `with_reply`, one legal move of his and his opponent's reply to it are on the board now as well
  // (`replied`, `move` his).
  struct ReadMove {
    std::array<Piece, 64> board;
    bool unique;
    Move move;
    bool replied;
  };
  std::optional<ReadMove> move_from_the_read_board(const std::array<Piece, 64>& read, Color mover,
                                                   bool with_reply = false) const;
  // Every such board and move to the board `now` (those from the board as read, when there are any: no piece
  // put back then).
  std::vector<ReadMove> moves_from_the_read_board(const std::array<Piece, 64>& read, Color mover,
                                                  bool with_reply, const std::array<Piece, 64>& now) const;
  // The gap told whole at `press` (the game at the gap's first ply), the pressed move its last ply: for each
  // of `boards` (a board read with the hand put back, each reached within the bound, and the presser's move
  // from it to the board `now`), the stories to it and that move. Several boards: the pressed move is not the
  // same move after each (23.Bxb6 after ...Bb6, or 23.Bb6 after an exchange on e3 within the gap), so nothing
  // of the gap goes out as a live move. Stories of two lengths, or one the clock cannot count and held so:
  // told with the length open. The game follows `now`. False: no story with its move.
  bool tell_gap_whole_at_the_press(const PendingPress& press, const std::vector<ReadMove>& boards,
                                   const std::array<Piece, 64>& now);
  // The first press after a gap told from a board read with the presser on move, no move since: his move
  // sets a piece on a square empty on that board, and the board with an opponent's piece there (one of a
  // kind short of its count since before the gap) is reached within the bound too, his move from it then a
  // capture. The piece was in his hand at the reading, the capture under way (the hall's blitz game 201:
  // 21.Bxc6 unseen, the bishop lifted for 21...Qxc6 as the board was read; Bb5 Nbd7 Bxd7 Qxd7 within the
  // gap reaches that board too, and "Qc6" went out at ply 22). The gap is told again whole with the press
  // (tell_gap_whole_at_the_press); true when it was.
  bool press_takes_a_piece_lifted_at_the_reading(const PendingPress& press);
  // At the mismatch time, the gap's length still waiting with the story a ply longer unsearched (past the
  // bound): which length is the gap's, no press told. The stories within the bound, all pressed, are told
  // as candidates with the length unknown (MissedGap::Length::Unknown): the game goes on from the board
  // read (the side whose clock runs on move), its moves held back. False: no such story, or no position.
  bool tell_gap_length_unknown(std::int64_t t);
  // The gap `gap` (of unknown length) told with `alert` at `told_at`: the game goes on from `at` (a jump for
  // the gap), the moves since held back until the arbiter settles it, the board followed from `t` with the
  // lifts on move since `board` was read.
  void tell_held_gap(std::int64_t told_at, std::int64_t t, AlertEvent alert, const Position& at,
                     MissedGap gap, const std::array<Piece, 64>& board);
  // A gap whose presses are not counted, its `stories` (ranked, all pressed, from `before`) of
  // kOpenLengthPlies or more, or fewer as the players' pace says (recover_gap_on), or moves that came back
  // (press_tells_unseen_moves, `also` added to the detail): told as moves-missed with `length_unknown` (the
  // candidates' last ply with them), the game going on from the end of the first story, the moves since held
  // back until the arbiter settles it (MissedGap::Length::Uncounted; `at_reading`: told at a reading, not a
  // press). False, telling nothing, when that position ends the game (told the ordinary way). Bughouse: the
  // first story's captures go to the partner, but for those `handed_before` (what the gap's plies told
  // before handed over: an open tail told again held), of which those it does not capture come back.
  bool tell_gap_length_open(std::int64_t t, std::int64_t when, const Position& before,
                            std::vector<std::vector<Move>> stories, const GapEvidence& evidence,
                            bool truncated, const std::array<Piece, 64>& board, bool at_reading,
                            std::string_view also = {}, const std::vector<Handover>& handed_before = {});
  // A held gap whose last move may be shown and not pressed (MissedGap::last_move_may_be_shown), nothing
  // played since: `press`, by the side on move, with the board as it was read, tells that it was. The gap
  // is told again with it (past the bound, or within it with the other side on move). False: not such a
  // press, or no story of it (the gap stays as told).
  bool press_tells_held_gap_longer(const PendingPress& press);
  // A gap's length waits for this press (GapTracker::Length): the player whose clock ran presses with the
  // board as it was read, so its last move was shown and not pressed. That story, now all pressed, is told
  // (whatever press was pending: the reading held for the reconnect is the gap's own). False: no such wait,
  // or nothing found (the press goes on as any other). A board at the press that is the board read with one
  // piece of the presser's set down on a square empty there (rules/wood.hpp, one_piece_set_down) ends the
  // wait: that piece was in his hand at the reading, and the press goes on as any other, his move searched
  // from the board read with it put back (recover_gap_before_the_pressed_move).
  bool press_tells_waiting_length(const PendingPress& press);
  // The moves (and claims) published while a gap of unknown length waits for the arbiter, in order, at the
  // plies the game holds (the gap its jump): settle_held_gap moves them on by the gap's length. Meanwhile
  // a provisional move is not published, and an alert goes out at once with where it stands after the gap
  // (gap_first_ply, ply_after_gap: its ply is the gap's last ply + ply_after_gap).
  std::vector<Event> held_events_;
  // The arbiter's moves for a gap of known length, of another number than its candidates', that reach the
  // position its last ply left (a detour neither the board nor a clock without increment shows): the gap's
  // plies become them, and the plies since, moved on by the difference, go out again at theirs (recovered).
  tl::expected<std::vector<Event>, std::string> settle_gap_length(const std::vector<Move>& moves,
                                                                  std::int64_t t_ms);
  // The plies from `first_ply` to `last_ply` (a gap's) replaced by `moves`, which reach the position after
  // `last_ply`: the moves, then every ply since at its ply now, as recovered move events. Fails, changing
  // nothing, when they do not, or when a position was set since (a jump).
  tl::expected<std::vector<Event>, std::string> replace_gap_plies(int first_ply, int last_ply,
                                                                  const std::vector<Move>& moves,
                                                                  std::int64_t t_ms);
  // The moves played (`moves`, from ply `first_ply`) in `game` when they lead to its position but for one
  // piece of the side on move on another square, the board showing it on neither (in the hand at the
  // reading, put back by the story told where it stood). True when they did (`game` changed).
  bool replaced_with_the_held_piece_elsewhere(Game& game, int first_ply,
                                              const std::vector<Move>& moves) const;
  // The moves typed for the gap from `first_ply` (UCI or SAN, separated by spaces or commas; "none" alone
  // for no move at all).
  tl::expected<std::vector<Move>, std::string> typed_gap_moves(int first_ply, const std::string& text) const;
  // The gap's `moves` from ply `first_ply` on as recovered move events at `t_ms`, with the clocks the
  // settled game `settled` holds for them.
  std::vector<Event> recovered_events(const Game& settled, int first_ply, const std::vector<Move>& moves,
                                      std::int64_t t_ms) const;
  // The gap of unknown length becomes `moves` (any number that reaches the position after its jump, none
  // when that is the position before it), and the moves held back go out after them, each at its ply.
  // When its last move may be shown and not pressed (MissedGap::last_move_may_be_shown) and nothing was
  // played since, `moves` may also stop a ply short of the board, or reach it with the other side on move:
  // the last move of that story is on it, not pressed, and goes on as the next live move.
  tl::expected<std::vector<Event>, std::string> settle_held_gap(const std::vector<Move>& moves,
                                                                std::int64_t t_ms);
  // The game with the held gap's jump taken back and `moves` played in its place (recovered, at the jump's
  // time); none when one is illegal where it stands.
  std::optional<Game> jump_replaced_by(const std::vector<Move>& moves) const;
  // How many of the moves held since the gap `moves` replace, reaching the position after them (the gap and
  // those moves settled in `settled`); 0, `settled` unchanged, when they reach none.
  int moves_through_held_moves(const std::vector<Move>& moves, std::optional<Game>& settled) const;
  // The game with the gap's jump replaced by `moves` when, the gap told past the bound and nothing played
  // since, they reach the board it was told from with one more piece of the side on move there: a piece
  // in his hand when the board was read (retell_past_bound_with_the_piece_put_back, the arbiter first).
  std::optional<Game> moves_to_the_board_told_with_a_piece_in_the_hand(const std::vector<Move>& moves) const;
  // The game with the gap's jump replaced by `moves` when, the gap's last move maybe shown and not pressed
  // and nothing played since, one move of the side on move after the jump (`shown`, when given) leads from
  // them to its board.
  std::optional<Game> moves_before_shown_move(const std::vector<Move>& moves,
                                              std::optional<Move> shown = std::nullopt) const;
  // Searches the moves between the game's position and the board and completes them: recovered when one
  // sequence explains the board, missed (with a moves-missed alert) when several do. Completed are the
  // moves the clock says were pressed: all, unless the last mover's clock still runs. `press`: the press
  // that found the board unexplained (its reading goes on the last completed move).
  bool recover_gap(std::int64_t t, const PendingPress* press);
  // A reconnect's dump waited for a piece in the mover's hand, and a change with no such piece set down
  // says the hand held none: the wait ends, and `as_stood` (the board before that change) is searched; true
  // when that told the gap.
  bool end_dump_wait(std::int64_t t, const std::array<Piece, 64>& as_stood);
  // Without a clock: how many of the positions a gap sequence passes through (after each of its moves
  // but the last) some board seen since the last completed move showed, pieces in the air allowed. A
  // scan read late shows a move and the hand already on the reply; those scans tell the order the moves
  // were made in, which the search alone cannot (O-O Bxf6 Qe7 or Qe7 Bxf6 O-O).
  int seen_on_the_way(const Position& before, const std::vector<Move>& sequence) const;
  // `begun`: without a press, the side whose hand is known to be at work (its next move begun): the
  // sequences end with it on move, all completed.
  bool recover_gap_on(std::int64_t t, const PendingPress* press, const std::array<Piece, 64>& board,
                      bool last_unpressed_likely, std::optional<Color> begun = std::nullopt,
                      int max_plies = kGapPlies);
  // A gap's stories from the game's position in the order the arbiter reads them: those keeping the most
  // castling rights first (the game goes on from the first: a castling the truth still allows is never
  // judged illegal), within that the likeliest first (rules/gap_rank.hpp).
  std::vector<std::vector<Move>> ranked_stories(std::vector<std::vector<Move>> stories,
                                                const GapEvidence& evidence) const;
  // The lifts of the side on move since `board` was read: his turn's first touches once the game goes on
  // from a gap read on it (a king lifted for castling before the gap was told: its rook's lift is not the
  // first touch). Called once the game stands after the gap (its side on move is the next mover's).
  std::vector<TouchTracker::Touch> lifts_on_move_since(const std::array<Piece, 64>& board) const;
  // The search of recover_gap_on, without completing anything: the sequences and the side the clock (or
  // the press, or `begun`) says is on move after them.
  struct GapFound {
    GapResult result;
    std::optional<Color> on_move;
    // The result is all pressed, and a sequence a ply shorter (or more: keep_all_pressed) or a ply longer
    // whose last move is not pressed yet reaches the board as well: which of them the board shows, only
    // the next press or move tells.
    bool unpressed_too = false;
    // With unpressed_too: the story a ply longer could not be searched (past the search's bound, or its
    // probe cut short by the work bound), so the press that tells it tells a gap past the bound.
    bool longer_unsearched = false;
    // The clock counted the presses since the last move seen (an increment: rules/press_count.hpp), as many
    // as the result's plies (or one fewer, its last move shown and not pressed): its length is the gap's.
    bool length_counted = false;
    bool explains() const { return result.plies > 0 && !result.exhausted; }
  };
  // The presser's piece set down on one square since the boards before (the dump read with it in his hand):
  // the earliest of the latest boards that differ from `board` there only, and the square and the piece.
  struct HandsMove {
    std::array<Piece, 64> base;
    Square to;
    Piece piece;
  };
  std::optional<HandsMove> hands_move(const std::array<Piece, 64>& board, Color mover) const;
  // Of `stories` (the board's own, complete), those whose last move is the hand's: its piece set on its
  // square, a capture there too (the victim lifted before the board was read, which the boards before
  // cannot show), or a castling that sets it there. None when no story ends so.
  std::optional<GapResult> stories_ending_with_the_hands_move(const GapResult& stories,
                                                              const std::array<Piece, 64>& board,
                                                              Color mover) const;
  // One story from the game's position to `board` within `max_plies` (and the variant's bound), the
  // likeliest moves first, all pressed (`on_move` on move, a retry's work) or else, shorter, with its last
  // move shown and not pressed (one search's work): a list left incomplete (truncated). None when neither
  // probe finds one.
  // With `work_left`, the probes take no more than it, and what they take is subtracted from it.
  std::optional<GapResult> a_story_within_the_bound(const std::array<Piece, 64>& board,
                                                    std::optional<Color> on_move, int max_plies,
                                                    std::uint64_t* work_left = nullptr) const;
  // At a press: the board reached by the presser's piece set down (hands_move), searched as the boards
  // before with the piece on each square it can have come from, his move from there appended: the stories
  // whose last move is the one set down. A king or rook set down may end a castling whose other piece
  // stays where it stood (Chess960: the king from d1 to g1 beside its rook on f1). None unless every such
  // search is complete and one finds a story (then the shortest; with `plies_before`, those whose moves
  // before the hand's are that many).
  std::optional<GapResult> search_through_the_hands_move(
      const std::array<Piece, 64>& board, Color mover, int max_plies,
      std::optional<int> plies_before = std::nullopt) const;
  // The search from the game's position to `board` with the profile's pieces, ending with `side_to_move`
  // on move (when known), as far as the bound for the variant (kGapPlies, drop_gap_bound) reaches.
  GapQuery gap_query(const std::array<Piece, 64>& board, std::optional<Color> side_to_move) const;
  // The bound with drops for `board`: kDropHandPlies where a piece short of its count on it, put back on an
  // empty square it stood on in the last known position, is reached within kDropHandPlies (a hand at work
  // at the reading: the mover's piece, or the victim he lifted; or a search cut short), else kDropGapPlies.
  int drop_gap_bound(const std::array<Piece, 64>& board) const;
  // Whether a story within the bound reaches `board`, `side_to_move` on move there: gap_query's search with a
  // retry's work (search_gap_harder), stopped at the first story found. False also when the work ran out.
  bool reached_within_the_bound(const std::array<Piece, 64>& board, std::optional<Color> side_to_move) const;
  // `keep_all_pressed`: a story all pressed is the result also when one shorter by more than a ply, its
  // last move not pressed, reaches the board (unpressed_too: the next press tells); otherwise the shorter
  // is the result.
  GapFound search_gap_to(const PendingPress* press, const std::array<Piece, 64>& board,
                         bool last_unpressed_likely, std::optional<Color> begun, int max_plies,
                         bool keep_all_pressed = false) const;
  // Whether search_gap_to(nullptr, board, false, nullopt, max_plies) explains `board`, at a fraction of its
  // work where it does (the dump's tries for a piece in the hand, dump_lacks_the_movers_pieces), within
  // `work_left` (the tries' shared work, less what this one takes).
  bool story_reaches(const std::array<Piece, 64>& board, int max_plies, std::uint64_t& work_left) const;
  // Without a clock: a settled board nothing explains (follow_late_scans), searched as it is, as it would
  // stand with the piece in the hand put back (a scan read late shows moves and the next hand already at
  // work), and through the boards that rested before it. Of the readings whose story every scan since the
  // last move fits, the one with the fewest plies no piece was seen set down for.
  bool recover_scan_gap(std::int64_t t);
  // The board with the piece in a hand put back where it stood in the last known position (recover_scan_gap,
  // recover_dump_gap): `known` when one side's piece is in the air and put back.
  struct HandRestored {
    std::array<Piece, 64> board;
    std::optional<Color> hand;
    bool known;
  };
  HandRestored with_hand_put_back() const;
  // A board read whole after a restart or a reconnect (a dump), settled and not explained, that a piece in
  // a hand put back explains by a shorter story than the board as it is (where that piece was taken).
  bool dump_shows_a_hand_at_work() const;
  // A reconnect's dump waits for the mover's pieces one of which may be in his hand (GapTracker::held), and
  // no kind of those has more on the board than on the board it was judged on (never with drops).
  bool held_piece_in_the_air() const;
  // A reconnect's dump waiting for the mover's piece in his hand (GapTracker::DumpWait::PieceInHand), or for
  // a victim on another square (Victim), and his `taker` set on `square`, empty on the board read: when an
  // opponent's piece lifted from there before the reading explains the board by a shorter story
  // (victim_in_the_hand), the wait becomes that victim's (true).
  bool wait_for_the_victim_on(Square square, Piece taker);
  // `board` shows the castling of the side whose clock runs half done: his king on its castled square, the
  // rook's castled square empty and the rook on its own or in the hand (its square empty, one of his rooks
  // fewer than in the game's position), that castling his right in the game's position (the hall's blitz
  // game 203: read with 8.O-O's king on g1 and the rook still on h1; searched so, the king walked there in a
  // story two plies longer; game 426: the rook then lifted, read as taken). A hand at work: the search waits
  // for the rook, and a story found once it is set down ends with the castling when one does
  // (recover_gap_on).
  bool castling_under_way(const std::array<Piece, 64>& board) const;
  // `board` shows the castling of the side whose clock runs begun with the king in the hand: no king of his
  // on the board, its castled square empty, the rook on its own square, in the hand or set on its castled
  // square, that castling his right in the game's position.
  bool castling_king_in_hand(const std::array<Piece, 64>& board) const;
  // A reconnect's dump, its clock running for one side, that lacks pieces of that side which, one put back
  // on a square it stood on in the last known position or that the story as the board stands moved it to
  // (failing those, one an opponent's piece stood on, empty now),
  // makes a story no longer than the board as it is (with the same side on move; shorter by a ply against
  // one whose last move is not pressed): those pieces, a bit per Piece (1u << piece), one perhaps in the
  // mover's hand, not taken. 0: none.
  std::uint32_t dump_lacks_the_movers_pieces(const std::array<Piece, 64>& dump) const;
  // An opponent's piece the mover lifted to capture it before the dump was read (the victim first): a square
  // empty on `dump` that his pieces attack, where a kind of the opponent's short of its count put back is
  // reached by a story two plies shorter than the dump as it stands (where the piece reads as taken), or by
  // any story within the bound when none reaches the dump as it stands (or its search ran out of work). The
  // square and the mover's kinds that attack it (GapTracker::wait_for_victim).
  struct Victim {
    Square square;
    std::uint32_t takers;
  };
  // `at`: only a victim on that square.
  std::optional<Victim> victim_in_the_hand(const std::array<Piece, 64>& dump,
                                           std::optional<Square> at = std::nullopt) const;
  // A press by the side a gap's length waits for (GapTracker::Length::Waiting), made after he set a piece
  // down on the board read: his hand was at work at the reading. The board at the press is searched as the
  // gap and his move, all pressed; true when that told the gap.
  bool press_completes_the_hand_at_the_reading(const PendingPress& press);
  // A press after the reconnect's dump waited for a hand at work (on_settled): the castling half done since
  // done (the latest board showing one legal move would be taken otherwise: one of before the loss, the
  // hall's blitz game 354, 10...c6 set down before it, 11.Bd3 .. 16...O-O unseen, the king read on g8 and
  // the rook on h8), or the piece in the hand set down by its mover while the game has the other side on
  // move. The board at the press is the gap's story, all pressed, and is searched so; true when that told
  // the gap. False: no such wait, or nothing found (the press goes on as any other).
  bool press_ends_the_dump_wait(const PendingPress& press);
  // The open tail's mover pressing with another move of his from the board read on the board (its tail move
  // moved on, or another piece moved): he was on move on the board read, all of it pressed, and the story
  // with his move shown there is not the one played. The gap is told again so (its stories within the
  // bound, or past it) and his move after it; true when it was.
  bool press_refutes_the_open_tail(const PendingPress& press);
  // The lever as it was at `before` and the side whose clock stood then reading less at `now`: both sides
  // pressed in between.
  static bool ran_while_down(const ClockReading& before, const ClockReading& now);
  // `board` may show a hand at work: a piece of the mover's or its victim missing, a castling half made.
  bool hand_at_work_at(const std::array<Piece, 64>& board) const;
  // A press read with the reconnect's reading, or before it (the lever moved while the board was out of
  // sight): by the stream's order, not by time alone. A loaded daemon reads the dump, the hand's next
  // changes and his press in one read, stamped alike: a press read after changes to the dump is the hand's
  // (its move set down since), not the reading's.
  bool press_at_the_reading(const PendingPress& press) const {
    return press.t_ms <= gaps_.suspected_at() && press.board_changes <= gaps_.suspected_change();
  }
  // A board searched for the moves that reach it.
  struct Reading {
    std::array<Piece, 64> board;
    std::optional<Color> begun;  // the side whose hand is at work after the moves (recover_gap_on)
    int max_plies;
    int unseen;  // plies of its story beyond the pieces the scans saw set down
  };
  // The latest boards that rested since the last move before the board as it is (a few): those whose story
  // every scan since fits, their moves all to be completed (the board went on from them).
  void add_rested_readings(std::vector<Reading>& out) const;
  // Without a clock: how many of the scans since the last completed move fit a gap sequence, in order: each
  // on the way from one of its positions to the next (every piece where it stood before that move or after
  // it, the rest in the hand), after its end on the way to a move from there. A story a scan contradicts
  // (a queen seen on b2 after the story took it) is not what the hands did.
  int scans_fitting(const Position& before, const std::vector<Move>& sequence) const;
  // Whether one of the search's sequences from the game's position fits every scan since the last move.
  bool fits_every_scan(const GapFound& f) const;
  // How many pieces the first `scans` scans since the last completed move show set down (on a square that
  // was empty or held another piece in the scan before).
  int pieces_set_down(std::size_t scans) const;
  // A search that explains the board with sequences few enough to be a story.
  static bool explains_scans(const GapFound& f) { return f.explains() && !f.result.truncated; }
  // What the ranking of a gap's candidates can know (rules/gap_rank.hpp): how far each clock went down
  // between the last move before the gap and `after`, when both readings are known, and the increment
  // learned from the game's presses.
  GapEvidence gap_evidence(const ClockTimes& after) const;
  // The presses since the last move by an increment clock's readings (rules/press_count.hpp), up to `after`
  // with `on_move`'s clock running: none when the clock cannot tell.
  std::optional<int> presses_since_last_move(const TimedClock& after, Color on_move) const;
  // `press` is the clock read with the board read again after the link changed (within a scan of it, or
  // later with the board unchanged since), both since the last move, and the increment counts more presses
  // since that move than this one: moves were made unseen and came back to the position before them, or to
  // one move from it (TCEC Chess960 game 28 in the hall, 1800+5: 18.Bd4 Qh4 19.Bf2 Qf6, the queen in Black's
  // hand at the reading). The board cannot show it; searched at the count's length, the gap is told (a press
  // without a move counts one). Not past the search's bound.
  bool counted_return(const PendingPress& press) const;
  // Such a gap searched from `press` (recover_gap_on on the board as it is), the suspicion of moves made
  // unseen raised for it: true when it is told, or its length waits for the next press (GapTracker::Length);
  // false, the suspicion as it was, when no story reaches the board.
  bool recover_counted_return(std::int64_t t, const PendingPress& press, bool last_unpressed_likely);
  // A press in a position nothing explains: the board with the presser's opponent on move is remembered;
  // when the next press completes a legal move from it, the game is followed from there (adopted).
  struct AdoptCandidate {
    Position position;
    std::array<Piece, 64> board;
  };
  std::optional<AdoptCandidate> adopt_candidate_;
  bool follow_unexplained_press(const PendingPress& press);
  // The position the board shows with `side` on move (castling kept where king and rook never moved), or
  // why the rules cannot play from it.
  tl::expected<Position, std::string> board_position(Color side) const {
    return board_position(side, physical_);
  }
  tl::expected<Position, std::string> board_position(Color side, const std::array<Piece, 64>& board) const;
  // Makes `p` the game's position as a new segment (Game::adopt), with the alert saying so.
  void adopt_position(const Position& p, std::int64_t t, const std::string& why);
  // After the game's position changed without a move the board followed: follow the board from here.
  // `carried`: lifts the new side to move made since the board that position came from, his turn's.
  void follow_board(std::int64_t t, std::vector<TouchTracker::Touch> carried = {});
  // --- FIDE A.4.4: two kings in check or a pawn on the last rank (on the wood), seen after a completed
  // move, still there once the next move is completed: the game is drawn (result reason illegal-position).
  // Under 7.5.2 the pawn counts as a queen; until it is swapped in, the wood keeps the pawn.
  std::optional<int> illegal_position_;  // the ply after which the position was illegal
  bool illegal_position_draws() const;
  bool wood_illegal() const;
  bool judge_illegal_position(std::int64_t t);  // true: the game was drawn
  void wood_made_legal();
  void forget_stood() { stood_.forget(); }
};

}  // namespace eboard::rules
