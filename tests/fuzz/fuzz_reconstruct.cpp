// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Fuzzes the reconstruction (rules/reconstruct.hpp) with what a board, its clock and its link may report
// around a game played by the fuzzer's choice of legal moves: moves made tidily, seen or unseen (the link
// down: the gaps, the reconnect's reading, the hands at work then), pieces lifted and set anywhere, any
// piece put on any square, clock readings of any kind, whole-board snapshots, time passing, and the
// arbiter settling a gap with any candidate. Whatever it is told, the Reconstructor's game stays a valid
// position, every move it publishes is legal where it is published, and nothing crashes; a game played
// tidily with the link lost and back ends showing what the board shows, or has told an alert.
// First byte: bit 0 a Chess960 start (the next two bytes its number, 0-959), bit 1 [gaps] hold_uncounted,
// bit 2 whole-board re-reads, bit 3 the clock first read at the first press (a clock read late: the seats
// are told by the press after it). Then one operation per byte, its operands in the bytes after it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "daemon/sim/start_positions.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"
#include "tests/fuzz/fuzz_board.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace eboard::rules;

namespace {

using eboard::fuzz::Bytes;

// The game as played (`truth`), the board as it stands (`board`, what its sensors show), the hand, the
// clock and the link, and the Reconstructor told of all of it while the link is up.
class Table {
 public:
  Table(ReconstructConfig cfg, Position start) : rec_(cfg), truth_(start), board_(start.board()) {}

  // The board set up, the clock started (White's running) and read now or, `clock_late`, first at the
  // game's first press.
  void begin(bool clock_late) {
    clock_late_ = clock_late;
    send(BoardSnapshot{board_});
    if (!clock_late) send(reading());
  }

  // A legal move of the game, made tidily on the board (the victim first, then the mover), then pressed,
  // after some thought (0.3 to 3.1 s: the board settles between moves, as under real hands).
  void play(std::uint8_t pick) {
    const MoveList legal(truth_);
    if (legal.empty()) return;
    wait(300 + std::int64_t(pick % 8) * 400);
    const Move m = *(legal.begin() + pick % legal.size());
    const Color us = truth_.side_to_move();
    const Square from = m.from(), to = m.to();
    if (m.kind() == Move::CASTLING) {
      const Square king_to = Position::castle_king_to(us, m), rook_to = Position::castle_rook_to(us, m);
      lift(from);
      lift(to);
      set(king_to, make_piece(us, KING));
      set(rook_to, make_piece(us, ROOK));
    } else if (m.kind() == Move::EN_PASSANT) {
      lift(from);
      set(to, make_piece(us, PAWN));
      lift(Square(to + (us == WHITE ? -8 : 8)));
    } else {
      const Piece mover = m.is_promotion() ? make_piece(us, m.promotion_type()) : truth_.piece_on(from);
      if (!truth_.empty(to)) lift(to);
      lift(from);
      set(to, mover);
    }
    played_.push_back(to_uci(truth_, m));
    truth_.do_move(m);
    press();
  }

  void lift(Square s) {
    if (board_[std::uint8_t(s)] == NO_PIECE) return;
    hand_ = board_[std::uint8_t(s)];
    board_[std::uint8_t(s)] = NO_PIECE;
    send(PieceLifted{s});
  }

  void set(Square s, Piece p) {
    if (board_[std::uint8_t(s)] != NO_PIECE) lift(s);
    board_[std::uint8_t(s)] = p;
    send(PiecePlaced{s, p});
  }

  // The piece in the hand set down on `s` (a hand that was empty sets nothing).
  void put_down(Square s) {
    if (hand_ == NO_PIECE) return;
    set(s, hand_);
    hand_ = NO_PIECE;
  }

  // The clock's lever: the player whose clock runs presses it.
  void press() {
    lever_ = lever_ == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    send(reading());
  }

  void clock(Bytes& in) { send(eboard::fuzz::any_clock_reading(in)); }

  void link(bool up) {
    if (up == link_) return;
    link_ = up;
    send(DeviceLink{up});
    if (!up) return;
    // Read again as the daemon's sessions read a board back: the whole board, then the clock.
    send(BoardSnapshot{board_});
    send(reading());
  }

  void snapshot() { send(BoardSnapshot{board_}); }

  // The end, the board long settled: a game played tidily in sight is published whole, each pressed move
  // completed (unless the game ended, 9.6, while the fuzzer's moves went on). A clock first read at the
  // first press, no press after it: the first move may be pressed or only shown (the seats are not known
  // until the next press), so it may wait. A game played tidily but with the link lost and back (and the
  // board read whole) has told an alert or shows what the board shows.
  void finish() {
    wait(10'000);
    const std::size_t published = std::size_t(rec_.game().ply_count());
    const bool first_waits = clock_late_ && played_.size() == 1 && published == 0;
    if (rec_.game().outcome() || first_waits) return;
    if (tidy_ && published != played_.size()) std::abort();
    if (honest_ && !alerted_ && link_ && rec_.game().position().board() != board_) std::abort();
  }

  // The link lost and back, the board read whole: the game published may tell gaps, not play otherwise.
  void unseen() { tidy_ = false; }
  // Anything but a tidy move, the link or time: the game published need no longer be the game played.
  void untidy() { tidy_ = honest_ = false; }

  void wait(std::int64_t ms) {
    const std::int64_t until = t_ + ms;
    while (auto due = rec_.next_deadline()) {
      if (*due > until) break;
      t_ = std::max(t_, *due);
      check(rec_.advance(t_));
    }
    t_ = until;
    check(rec_.advance(t_));
  }

  // The arbiter picks a candidate, or (255) says no move was made ("none": a held gap that came back).
  void settle(std::uint8_t pick) {
    const auto& gap = rec_.missed_gap();
    if (!gap) return;
    if (pick == 255 || gap->candidates.empty()) {
      if (auto r = rec_.settle_gap("none", t_)) check(*r);
      return;
    }
    auto r = rec_.settle_gap(std::size_t(pick) % gap->candidates.size(), t_);
    if (r) check(*r);
  }

  void wrong_piece(std::uint8_t square, std::uint8_t piece) {
    const Square s = Square(square % 64);
    const Piece p = eboard::fuzz::any_piece(piece);
    if (p == NO_PIECE)
      lift(s);
    else
      set(s, p);
  }

 private:
  ClockReading reading() {
    // The clock as it stands: the running side's time went down with every event (send).
    ClockReading r;
    r.running = true;
    r.lever_up = lever_;
    r.left_ms = left_ms_;
    r.right_ms = right_ms_;
    return r;
  }

  template <typename What>
  void send(What what) {
    t_ += 40;
    (lever_ == ClockSide::Left ? left_ms_ : right_ms_) -= 40;
    if (!link_) return;  // the board is out of sight: it reports nothing
    check(rec_.on_sensor(SensorEvent{t_, what}));
  }

  // What the Reconstructor published holds: its game is a valid position, and each move it published
  // (but an illegal one that stood, FIDE A.4.2) is legal in the game's position before its ply. While the
  // game has only been played tidily in sight (moves and time), it is the game played: each move published
  // is the one played at its ply, and nothing is alerted.
  void check(const std::vector<Event>& events) {
    const Game& g = rec_.game();
    if (!g.position().validate().empty()) std::abort();
    for (const Event& e : events) {
      alerted_ = alerted_ || std::holds_alternative<AlertEvent>(e.what);
      if (tidy_) {
        if (std::holds_alternative<AlertEvent>(e.what)) std::abort();
        if (const auto* move = std::get_if<MoveEvent>(&e.what);
            move && (move->ply < 1 || std::size_t(move->ply) > played_.size() ||
                     played_[std::size_t(move->ply - 1)] != move->uci))
          std::abort();
      }
      const auto* move = std::get_if<MoveEvent>(&e.what);
      if (!move || move->illegal || move->ply < 1 || move->ply > g.ply_count()) continue;
      if (!parse_uci(g.position_at(move->ply - 1), move->uci)) std::abort();
    }
  }

  Reconstructor rec_;
  Position truth_;
  std::vector<std::string> played_;  // the moves played, in UCI
  std::array<Piece, 64> board_;
  Piece hand_ = NO_PIECE;
  ClockSide lever_ = ClockSide::Left;
  std::int64_t left_ms_ = 300'000, right_ms_ = 300'000;
  std::int64_t t_ = 1000;
  bool link_ = true;
  bool tidy_ = true;         // only moves made tidily in sight, and time, so far
  bool honest_ = true;       // the same, the link lost and back, the board read whole
  bool alerted_ = false;     // an alert told
  bool clock_late_ = false;  // the clock first read at the first press
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Bytes in(data, size);
  const std::uint8_t flags = in.next();
  ReconstructConfig cfg;
  cfg.chess960 = flags & 1;
  cfg.hold_uncounted_gaps = flags & 2;
  cfg.reread_board = flags & 4;
  Position start = Position::start();
  if (cfg.chess960) {
    const int n = (in.next() << 8 | in.next()) % 960;
    auto p = Position::from_fen(eboard::sim::chess960_start_fen(n), Variant::Chess, true);
    if (!p) std::abort();  // every numbered start is a position
    start = *p;
  }
  Table table(cfg, start);
  table.begin(flags & 8);
  // A bound on the operations: a gap's search may take a good part of a second.
  for (int ops = 0; ops < 160 && !in.empty(); ++ops) {
    const int op = in.next() % 12;
    if (op == 3 || op == 4 || op == 10)
      table.unseen();
    else if (op > 2 && op != 9)
      table.untidy();
    switch (op) {
      case 0:
      case 1:
      case 2:
        table.play(in.next());
        break;  // the usual case, the most often
      case 3:
        table.link(false);
        break;
      case 4:
        table.link(true);
        break;
      case 5:
        table.lift(Square(in.next() % 64));
        break;
      case 6:
        table.put_down(Square(in.next() % 64));
        break;
      case 7: {
        const std::uint8_t square = in.next();
        table.wrong_piece(square, in.next());
        break;
      }
      case 8:
        table.clock(in);
        break;
      case 9:
        table.wait(std::int64_t(in.next()) * 50);
        break;
      case 10:
        table.snapshot();
        break;
      default:
        table.settle(in.next());
        break;
    }
  }
  table.finish();
  return 0;
}
