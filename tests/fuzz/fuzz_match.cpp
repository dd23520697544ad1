// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes a bughouse match (rules/match.hpp) with what its two boards, their clocks and their links may
// report around a match played by the fuzzer's choice of legal moves and drops on either board: moves made
// tidily and pressed at once or later, seen or unseen (a board's link down: its gaps, the reconnect's
// reading), captured pieces handed to the partner at the capture's press (FQE 6) and dropped, promotions
// as the profile has them (FQE 11: the pawn stays on the wood, the piece named before), pieces lifted and
// set anywhere, any piece put on any square, clock readings of any kind, whole-board snapshots, time
// passing, and the arbiter settling a gap, adopting a board or giving a result. Whatever it is told, each
// board's game stays a valid position, every move the match publishes is legal where it is published, and
// nothing crashes; while the match has only been played tidily in sight, each board publishes the moves
// played there, in order, and nothing is alerted; played tidily with links lost and back, each board that
// told no alert ends showing the game played (and the reserves, where neither board told one and both are
// in sight: see finish).
// First byte: bit 0 the profile bughouse-clock-move (else bughouse-fqe), bit 1 [gaps] hold_uncounted,
// bit 2 whole-board re-reads. Then one operation per byte (bit 0 its board, A or B; the rest the
// operation), its operands in the bytes after it.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "rules/match.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/wood.hpp"
#include "tests/fuzz/fuzz_board.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace eboard::rules;
using eboard::fuzz::Bytes;
using eboard::fuzz::require;

namespace {

// One board of the match as it stands at the table: the game played on it (`truth`, its pocket the
// reserve its player holds), what its sensors show, the hand over it, its clock and its link.
struct Table {
  Position truth = Position::start(Variant::Bughouse);
  std::array<Piece, 64> wood = Position::start(Variant::Bughouse).board();
  std::vector<std::string> played;  // the moves made, in UCI
  std::size_t pressed = 0;          // of which completed by the press
  // What the move made and not yet pressed captured, in the colour of the capturer's partner (who plays
  // the capturer's opponent's colour on the other board) and as the type it goes over as.
  std::optional<std::pair<Color, PieceType>> handed;
  Piece hand = NO_PIECE;
  ClockSide lever = ClockSide::Left;  // White's time runs on the left at the start
  std::int64_t left_ms = 1'800'000, right_ms = 1'800'000;
  std::int64_t charged_at = 0;  // the running side's time is counted down to here
  bool link = true;
};

class Hall {
 public:
  explicit Hall(MatchConfig cfg) : cfg_(cfg), match_(cfg) {}

  // Both boards set up, their clocks started and read.
  void begin() {
    for (int b = 0; b < 2; ++b) {
      tables_[b].charged_at = t_;
      send(b, BoardSnapshot{tables_[b].wood});
      send(b, reading(b));
    }
  }

  // A legal move of board b's game made tidily (the victim first, then the mover; a drop set down from
  // the reserve), after some thought (0.3 to 3.1 s). A second move made before the first's press is not
  // tidy play.
  void make(int b, std::uint8_t pick) {
    Table& tb = tables_[b];
    std::vector<Move> legal;
    for (Move m : MoveList(tb.truth))
      if (!m.is_promotion() || (cfg_.board.profile.promotion_types >> m.promotion_type() & 1))
        legal.push_back(m);
    if (legal.empty()) return;
    if (tb.played.size() != tb.pressed) untidy();
    wait(300 + std::int64_t(pick % 8) * 400);
    const Move m = legal[pick % legal.size()];
    const Color us = tb.truth.side_to_move();
    const Square from = m.from(), to = m.to();
    const bool stays = cfg_.board.profile.pawn_may_stay_on_last_rank;
    if (m.is_promotion() && stays) match_.set_promotion_piece(b, us, m.promotion_type());
    if (tb.truth.is_capture(m))
      tb.handed = {~us, m.kind() == Move::EN_PASSANT ? PAWN : tb.truth.captured_hand_type(to)};
    if (m.is_drop()) {
      set(b, to, make_piece(us, m.drop_type()));
    } else if (m.kind() == Move::CASTLING) {
      lift(b, from);
      lift(b, to);
      set(b, Position::castle_king_to(us, m), make_piece(us, KING));
      set(b, Position::castle_rook_to(us, m), make_piece(us, ROOK));
    } else if (m.kind() == Move::EN_PASSANT) {
      lift(b, from);
      set(b, to, make_piece(us, PAWN));
      lift(b, Square(to + (us == WHITE ? -8 : 8)));
    } else {
      const Piece mover = m.is_promotion() && !stays ? make_piece(us, m.promotion_type()) : tb.wood[from];
      if (!tb.truth.empty(to)) lift(b, to);
      lift(b, from);
      set(b, to, mover);
    }
    tb.played.push_back(to_uci(tb.truth, m));
    tb.truth.do_move(m);
  }

  // Board b's lever: the player whose clock runs presses it. It completes the move made, whose capture
  // goes to the partner's reserve on the other board (FQE 6). A press with no move made is not tidy play.
  void press(int b) {
    Table& tb = tables_[b];
    if (tb.played.size() == tb.pressed) untidy();
    charge(b);
    tb.lever = tb.lever == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    if (tb.played.size() > tb.pressed) {
      tb.pressed = tb.played.size();
      if (tb.handed) {
        const auto [partner, type] = *tb.handed;
        Position& other = tables_[1 - b].truth;
        other.set_pocket(partner, type, other.pocket(partner, type) + 1);
        tb.handed.reset();
      }
    }
    send(b, reading(b));
  }

  void lift(int b, Square s) {
    Table& tb = tables_[b];
    if (tb.wood[std::uint8_t(s)] == NO_PIECE) return;
    tb.hand = tb.wood[std::uint8_t(s)];
    tb.wood[std::uint8_t(s)] = NO_PIECE;
    send(b, PieceLifted{s});
  }

  void set(int b, Square s, Piece p) {
    Table& tb = tables_[b];
    if (tb.wood[std::uint8_t(s)] != NO_PIECE) lift(b, s);
    tb.wood[std::uint8_t(s)] = p;
    send(b, PiecePlaced{s, p});
  }

  // The piece in board b's hand set down on `s` (a hand that was empty sets nothing).
  void put_down(int b, Square s) {
    Table& tb = tables_[b];
    if (tb.hand == NO_PIECE) return;
    const Piece p = tb.hand;
    tb.hand = NO_PIECE;
    set(b, s, p);
  }

  void wrong_piece(int b, std::uint8_t square, std::uint8_t piece) {
    const Square s = Square(square % 64);
    const Piece p = eboard::fuzz::any_piece(piece);
    if (p == NO_PIECE)
      lift(b, s);
    else
      set(b, s, p);
  }

  void clock(int b, Bytes& in) { send(b, eboard::fuzz::any_clock_reading(in)); }

  void link(int b, bool up) {
    Table& tb = tables_[b];
    if (up == tb.link) return;
    tb.link = up;
    send(b, DeviceLink{up});
    if (!up) return;
    // Read again as the daemon's sessions read a board back: the whole board, then the clock.
    send(b, BoardSnapshot{tb.wood});
    send(b, reading(b));
  }

  void snapshot(int b) { send(b, BoardSnapshot{tables_[b].wood}); }

  // The arbiter on board b: picks a candidate of its gap, says no move was made (255: a held gap that
  // came back), has the game followed from the board it shows (254), takes a resignation of the side on
  // move (253) or a draw agreed (252), or gives a result of his own (251, 250: either side wins; a
  // correction on a match decided).
  void arbiter(int b, std::uint8_t pick) {
    const Color on_move = match_.board(b).game().position().side_to_move();
    switch (pick) {
      case 255:
        if (match_.board(b).missed_gap())
          if (auto r = match_.settle_gap(b, "none", t_)) check(*r);
        return;
      case 254:
        if (auto r = match_.adopt_board(b, t_)) check(*r);
        return;
      case 253:
        check(match_.resign(b, on_move, t_));
        return;
      case 252:
        check(match_.agree_draw(t_));
        return;
      case 251:
      case 250:
        check(match_.arbiter_result(b, {pick == 251 ? Result::WhiteWins : Result::BlackWins, "arbiter"}, t_));
        return;
      default:
        break;
    }
    const auto& gap = match_.board(b).missed_gap();
    if (!gap) return;
    auto r = gap->candidates.empty() ? match_.settle_gap(b, "none", t_)
                                     : match_.settle_gap(b, std::size_t(pick) % gap->candidates.size(), t_);
    if (r) check(*r);
  }

  void wait(std::int64_t ms) {
    const std::int64_t until = t_ + ms;
    while (auto due = match_.next_deadline()) {
      if (*due > until) break;
      t_ = std::max(t_, *due);
      check(match_.advance(t_));
    }
    t_ = until;
    check(match_.advance(t_));
  }

  // A game or the match over: the players' moves since need not be taken.
  bool over() const {
    return match_.result() || match_.board(0).game().outcome() || match_.board(1).game().outcome();
  }

  // The end, the boards long settled. A match played tidily in sight and not over has each pressed move
  // of each board published. One played tidily but with links lost and back (and boards read whole)
  // follows each game whose board told no alert: the game shows what its wood shows, every move made
  // pressed; and, no board having told one and both in sight, each game holds the reserves its player
  // holds (what a board out of sight or a gap's moves captured is not known to its partner's).
  void finish() {
    wait(10'000);
    if (over()) return;
    for (int b = 0; b < 2; ++b) {
      const Table& tb = tables_[b];
      const Reconstructor& rec = match_.board(b);
      if (tidy_) require(std::size_t(rec.game().ply_count()) == tb.pressed);
      if (!honest_ || alerted_[std::size_t(b)] || tb.played.size() != tb.pressed || !tb.link) continue;
      const Position& p = rec.game().position();
      require(physical_view(p, cfg_.board.profile.pawn_may_stay_on_last_rank) == tb.wood);
      if (alerted_[std::size_t(1 - b)] || !tables_[1 - b].link) continue;
      for (Color c : {WHITE, BLACK})
        for (PieceType t : {PAWN, KNIGHT, BISHOP, ROOK, QUEEN})
          require(p.pocket(c, t) == tb.truth.pocket(c, t));
    }
  }

  // Links lost and back, boards read whole: the games published may tell gaps, not play otherwise.
  void unseen() { tidy_ = false; }
  // Anything but tidy moves, presses, links and time: the games published need no longer be the games
  // played.
  void untidy() { tidy_ = honest_ = false; }

 private:
  // Board b's running side charged with the time since it was last charged, its flag down at zero.
  void charge(int b) {
    Table& tb = tables_[b];
    std::int64_t& left = tb.lever == ClockSide::Left ? tb.left_ms : tb.right_ms;
    left = std::max<std::int64_t>(0, left - (t_ - tb.charged_at));
    tb.charged_at = t_;
  }

  ClockReading reading(int b) {
    charge(b);
    const Table& tb = tables_[b];
    ClockReading r;
    r.running = true;
    r.lever_up = tb.lever;
    r.left_ms = tb.left_ms;
    r.right_ms = tb.right_ms;
    r.left_flag = tb.left_ms == 0;
    r.right_flag = tb.right_ms == 0;
    return r;
  }

  template <typename What>
  void send(int b, What what) {
    t_ += 40;
    if (!tables_[b].link) return;  // the board is out of sight: it reports nothing
    check(match_.on_sensor(b, SensorEvent{t_, what}));
  }

  // What the match published holds: both games are valid positions, and each move published (but an
  // illegal one that stood) is legal in its board's game before its ply. While the match has only been
  // played tidily in sight, each move published is the one played at its ply on its board, and nothing is
  // alerted.
  void check(const std::vector<Event>& events) {
    for (int b = 0; b < 2; ++b) require(match_.board(b).game().position().validate().empty());
    for (const Event& e : events) {
      const int b = e.board == cfg_.board_ids[1] ? 1 : 0;
      require(e.board == cfg_.board_ids[std::size_t(b)] || std::holds_alternative<MatchResultEvent>(e.what) ||
              std::holds_alternative<MatchPauseEvent>(e.what));
      const auto* move = std::get_if<MoveEvent>(&e.what);
      if (std::holds_alternative<AlertEvent>(e.what)) alerted_[std::size_t(b)] = true;
      if (tidy_) {
        require(!std::holds_alternative<AlertEvent>(e.what));
        const auto& played = tables_[b].played;
        require(!move || (move->ply >= 1 && std::size_t(move->ply) <= played.size() &&
                          played[std::size_t(move->ply - 1)] == move->uci));
      }
      const Game& g = match_.board(b).game();
      if (!move || move->illegal || move->ply < 1 || move->ply > g.ply_count()) continue;
      require(parse_uci(g.position_at(move->ply - 1), move->uci).has_value());
    }
  }

  MatchConfig cfg_;
  Match match_;
  std::array<Table, 2> tables_;
  std::int64_t t_ = 1000;
  bool tidy_ = true;               // only tidy moves and presses in sight, and time, so far
  bool honest_ = true;             // the same, links lost and back, boards read whole
  std::array<bool, 2> alerted_{};  // an alert told on board A, on board B
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const std::uint8_t flags = in.next();
  MatchConfig cfg;
  cfg.board = bughouse_board_config(flags & 1 ? "bughouse-clock-move" : "bughouse-fqe");
  cfg.board.hold_uncounted_gaps = flags & 2;
  cfg.board.reread_board = flags & 4;
  Hall hall(cfg);
  hall.begin();
  // A bound on the operations: a gap's search may take a good part of a second.
  for (int ops = 0; ops < 160 && !in.empty(); ++ops) {
    const std::uint8_t byte = in.next();
    const int b = byte & 1;
    const int op = (byte >> 1) % 14;
    if (op == 4 || op == 5 || op == 11)
      hall.unseen();
    else if ((op > 3 && op != 10) || hall.over())
      hall.untidy();
    switch (op) {
      case 0:
      case 1:
        hall.make(b, in.next());
        hall.press(b);
        break;  // the usual case, the most often
      case 2:
        hall.make(b, in.next());
        break;  // pressed later, or never
      case 3:
        hall.press(b);
        break;
      case 4:
        hall.link(b, false);
        break;
      case 5:
        hall.link(b, true);
        break;
      case 6:
        hall.lift(b, Square(in.next() % 64));
        break;
      case 7:
        hall.put_down(b, Square(in.next() % 64));
        break;
      case 8: {
        const std::uint8_t square = in.next();
        hall.wrong_piece(b, square, in.next());
        break;
      }
      case 9:
        hall.clock(b, in);
        break;
      case 10:
        hall.wait(std::int64_t(in.next()) * 50);
        break;
      case 11:
        hall.snapshot(b);
        break;
      default:
        hall.arbiter(b, in.next());
        break;
    }
  }
  hall.finish();
  return 0;
}
