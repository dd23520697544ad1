// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/reconstruct.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "rules/gap_search.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/outcome.hpp"
#include "rules/wood.hpp"

namespace eboard::rules {

namespace {

// Pawns on their home ranks, pieces of the right colour on the back ranks, nothing between: somebody set
// up a game. If it is not a start position the setup is wrong (RULES.md: reported, not accepted).
bool looks_like_setup(const Board& b) {
  for (int f = 0; f < 8; ++f) {
    if (b[make_square(f, 1)] != W_PAWN || b[make_square(f, 6)] != B_PAWN) return false;
    Piece w = b[make_square(f, 0)], k = b[make_square(f, 7)];
    if (w == NO_PIECE || color_of(w) != WHITE || type_of(w) == PAWN) return false;
    if (k == NO_PIECE || color_of(k) != BLACK || type_of(k) == PAWN) return false;
  }
  for (int r = 2; r < 6; ++r)
    for (int f = 0; f < 8; ++f)
      if (b[make_square(f, r)] != NO_PIECE) return false;
  return true;
}

// Why a setup's back ranks are no Chess960 start (nullptr: they are one). Guideline II: the pieces of
// the standard set, the bishops on squares of both colours, the king between the rooks, Black mirroring
// White.
const char* chess960_problem(const Board& b) {
  int king_file = -1, light_bishops = 0, rooks_before_king = 0;
  std::array<int, PIECE_TYPE_NB> count{};
  for (int f = 0; f < 8; ++f) {
    Piece w = b[make_square(f, 0)];
    if (b[make_square(f, 7)] != make_piece(BLACK, type_of(w)))
      return "Black's back rank does not mirror White's";
    ++count[type_of(w)];
    if (type_of(w) == KING) king_file = f;
    if (type_of(w) == BISHOP) light_bishops += f % 2;  // b1, d1, f1 and h1 are light squares
    if (type_of(w) == ROOK && king_file < 0) ++rooks_before_king;
  }
  if (count[KING] != 1 || count[QUEEN] != 1 || count[ROOK] != 2 || count[KNIGHT] != 2 || count[BISHOP] != 2)
    return "the back ranks do not hold one king, one queen, two rooks, two bishops and two knights each";
  if (light_bishops != 1) return "the bishops do not stand on squares of both colours";
  if (rooks_before_king != 1) return "the king does not stand between the rooks";
  return nullptr;
}

bool is_chess960_start(const Board& b) { return looks_like_setup(b) && !chess960_problem(b); }

// What is wrong with a setup, for the arbiter: the squares that differ from the standard start, or why
// the back ranks are no Chess960 start.
std::string setup_problem(const Board& b, bool chess960) {
  if (chess960) {
    const char* why = chess960_problem(b);
    return std::string("the pieces are not set up in a Chess960 start position: ") +
           (why ? why : "the position is not accepted");
  }
  const Board start = Position::start(Variant::Chess).board();
  std::string d;
  for (Square q = 0; q < 64; ++q) {
    if (b[q] == start[q]) continue;
    if (!d.empty()) d += ", ";
    d += square_name(q) + " shows " + piece_char(b[q]) + " instead of " + piece_char(start[q]);
  }
  return "the pieces are not set up in the start position: " + d;
}

// The FEN of a Chess960 start from its back rank (castling with the outer rooks).
std::string chess960_fen(const Board& b) {
  std::string rank;
  for (int f = 0; f < 8; ++f) rank += piece_char(b[make_square(f, 7)]);
  std::string upper = rank;
  for (char& c : upper) c = char(c - 'a' + 'A');
  return rank + "/pppppppp/8/8/8/8/PPPPPPPP/" + upper + " w KQkq - 0 1";
}

// The pieces of a reserve as FEN letters (QRBNP order), e.g. "QNpp" style: "NNP" for White, "np" for Black.
std::string reserve_letters(const Position& pos, Color c) {
  std::string out;
  for (PieceType t : {QUEEN, ROOK, BISHOP, KNIGHT, PAWN})
    out.append(std::size_t(pos.pocket(c, t)), piece_char(make_piece(c, t)));
  return out;
}

Square find_piece(const Board& b, Piece p, int* count) {
  Square found = SQ_NONE;
  *count = 0;
  for (Square s = 0; s < 64; ++s)
    if (b[s] == p) {
      found = s;
      ++*count;
    }
  return found;
}

}  // namespace

Reconstructor::Reconstructor(ReconstructConfig cfg)
    : Reconstructor(cfg, Game(Position::start(cfg.profile.variant))) {}

Reconstructor::Reconstructor(ReconstructConfig cfg, Game game)
    : cfg_(std::move(cfg)), game_(std::move(game)) {
  display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
  physical_ = display_;
  recompute_successors();
}

void Reconstructor::emit(std::int64_t t, decltype(Event::what) what) {
  if (missed_gap_ && missed_gap_->holds_moves()) {
    // Its ply waits for the gap's length: a move, and a claim tied to the move at its ply, go out with
    // the gap's moves; a provisional move not at all (its move goes out then).
    if (std::holds_alternative<MoveEvent>(what) || std::holds_alternative<ClaimableEvent>(what)) {
      held_events_.push_back(Event{t, cfg_.board_id, std::move(what)});
      return;
    }
    if (std::holds_alternative<ProvisionalMoveEvent>(what)) return;
    // An alert goes out now: its ply counts the gap as its jump, and it says where it stands after the gap.
    if (auto* a = std::get_if<AlertEvent>(&what)) {
      a->extra.push_back({"gap_first_ply", std::to_string(missed_gap_->first_ply), true});
      a->extra.push_back({"ply_after_gap", std::to_string(a->ply - held_gap_end()), true});
    }
  }
  out_.push_back(Event{t, cfg_.board_id, std::move(what)});
}

Position Reconstructor::extended_position() const {
  Position pos = game_.position();
  reserves_.extend(pos);
  return pos;
}

void Reconstructor::recompute_successors() {
  successors_.clear();
  const Position& official = game_.position();
  std::optional<Position> extended;
  if (reserves_.extends()) extended = extended_position();
  const Position& pos = extended ? *extended : official;
  Color us = pos.side_to_move();
  const Profile& pr = cfg_.profile;
  // A promotion may be shown with the pawn left on the last rank: a queen promotion by default (FIDE
  // 7.5.2 makes it an illegal move counted as a queen); FQE 11 makes it legal in bughouse, standing for
  // the piece the player named (queen unless told otherwise).
  PieceType pawn_stands_for = pr.pawn_may_stay_on_last_rank ? reserves_.promotion_piece(us) : QUEEN;
  for (Move m : MoveList(pos)) {
    if (m.is_promotion() && !(pr.promotion_types & (1u << m.promotion_type()))) continue;
    bool early = m.is_drop() && official.pocket(us, m.drop_type()) == 0;
    successors_.push_back({m, board_after(display_, pos, m), false, early});
    if (m.is_promotion() && m.promotion_type() == pawn_stands_for) {
      Successor s{m, successors_.back().board, true, false};
      s.board[m.to()] = make_piece(us, PAWN);
      successors_.push_back(s);
    }
  }
}

const Reconstructor::Successor* Reconstructor::successor_for(const std::array<Piece, 64>& board) const {
  const Successor* found = nullptr;
  for (const auto& s : successors_) {
    if (s.board != board) continue;
    if (!found) {
      found = &s;
      continue;
    }
    // Two moves, one board: a Chess960 castling where the king or the rook does not move, and the plain
    // king or rook move. Castling needs both king and rook touched (4.4.1); otherwise the plain move.
    const Successor* castle = s.move.kind() == Move::CASTLING ? &s : found;
    const Successor* plain = castle == &s ? found : &s;
    Square king = castle->move.from(), rook = castle->move.to();
    found = touches_.touched_both(king, rook) ? castle : plain;
  }
  return found;
}

std::optional<std::pair<Reconstructor::Successor, Move>> Reconstructor::two_ply_for(
    const std::array<Piece, 64>& board) const {
  std::optional<std::pair<Successor, Move>> found;
  Position pos = extended_position();
  for (const auto& s : successors_) {
    if (s.pawn_left_on_last_rank) continue;
    pos.do_move(s.move);
    for (Move m2 : MoveList(pos)) {
      if (m2.is_promotion() && !(cfg_.profile.promotion_types & (1u << m2.promotion_type()))) continue;
      if (board_after(s.board, pos, m2) == board) {
        if (found) {  // two explanations: do not guess
          pos.undo_move(s.move);
          return std::nullopt;
        }
        found = std::make_pair(s, m2);
      }
    }
    pos.undo_move(s.move);
  }
  return found;
}

bool Reconstructor::own_piece_in_air() const {
  Color us = game_.position().side_to_move();
  int before = 0, now = 0;
  for (Square q = 0; q < 64; ++q) {
    before += display_[q] != NO_PIECE && color_of(display_[q]) == us;
    now += physical_[q] != NO_PIECE && color_of(physical_[q]) == us;
  }
  return now < before;
}

std::vector<Event> Reconstructor::on_sensor(const SensorEvent& e) {
  if (adjournment()) {
    follow_adjourned(e);
    return {};
  }
  // A whole-board read of a clockless board after a silence (reports off, a missed scan) can hold the
  // mover setting his moved piece right (the move the board showed before) and the replier's first lift
  // at once. The read cannot order
  // them; the mover's part first is the order that binds nobody wrongly (the replier's lift then ends
  // the turn, as field updates would have shown it), so such a read is taken as two.
  if (const auto* b = std::get_if<BoardSnapshot>(&e.what);
      b && clockless() && have_board_ && !game_.outcome() && !gaps_.link_changed()) {
    const Color mover = game_.position().side_to_move();
    std::array<Piece, 64> mid = physical_;
    for (Square q = 0; q < 64; ++q)
      if ((physical_[q] != NO_PIECE && color_of(physical_[q]) == mover) ||
          (b->squares[q] != NO_PIECE && color_of(b->squares[q]) == mover))
        mid[q] = b->squares[q];
    // Only a move the board showed before, set right again: a piece first seen on its way (a slide
    // through f6 to take on f7) is no move shown.
    if (mid != physical_ && mid != b->squares && last_match_ && last_match_->successor.board == mid) {
      std::vector<Event> out = on_sensor(SensorEvent{e.t_ms, BoardSnapshot{mid}});
      std::vector<Event> rest = on_sensor(e);
      out.insert(out.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
      return out;
    }
  }
  std::vector<Event> pending = advance(e.t_ms);  // deadlines before this event fire first
  out_ = std::move(pending);
  if (clockless() && have_board_ && !game_.outcome()) {
    std::array<Piece, 64> next = physical_;
    if (const auto* l = std::get_if<PieceLifted>(&e.what); l && is_ok(l->square)) next[l->square] = NO_PIECE;
    if (const auto* p = std::get_if<PiecePlaced>(&e.what); p && is_ok(p->square)) next[p->square] = p->piece;
    if (const auto* b = std::get_if<BoardSnapshot>(&e.what); b && !gaps_.link_changed()) next = b->squares;
    if (next != physical_) complete_before_reply(next, e.t_ms);
  }
  bool board_event = true;
  // A reconnect's dump waiting for the mover's pieces one of which may be in his hand
  // (dump_lacks_the_movers_pieces): one of those kinds set down goes on to the press; any other change says
  // the hand held nothing, and the dump is searched as it stood, before the change (the next move's first
  // lift). A lift that may be the held piece's doing is judged by what follows (GapTracker::HeldLift): one
  // of those kinds lifted, a scan later (Wake::HeldLift), its square filled again by then was brushed by the
  // hand setting the held piece down (the hall's blitz game 199: 18...fxe4 set down past the e5 pawn); an
  // opponent's piece lifted, by the next change: one of those kinds set down where it stood is the held
  // piece capturing (the hall's blitz game 118: 21.Bxa8 with the bishop in the air at the reconnect).
  if (const std::uint32_t held = gaps_.held();
      held && gaps_.suspected() && !game_.outcome() && (gaps_.held_untouched() || gaps_.held_lift())) {
    const auto* placed = std::get_if<PiecePlaced>(&e.what);
    const auto* lifted = std::get_if<PieceLifted>(&e.what);
    if (placed || lifted) gaps_.held_touched();
    const bool held_set_down = placed && placed->piece != NO_PIECE && ((held >> placed->piece) & 1u);
    const Color mover = gaps_.held_by();
    const std::optional<Square> victim = gaps_.victim();
    if (const std::optional<GapTracker::HeldLift>& lift = gaps_.held_lift();
        lift && victim && held_set_down && placed->square == *victim) {
      gaps_.take_held_lift();  // the victim taken: the wait goes on to the press
      deadlines_.clear(Wake::HeldLift);
    } else if (lift) {
      const Piece off = lift->before[lift->square];
      // A piece of the mover's of another kind short of its count, set where the opponent's was lifted with
      // none of his lifted since the reading: it came from the hand, the held piece capturing (the hall's
      // blitz game 271: 48...Nxf6, the knight in the hand, the bishop taken within the gap waited for).
      const bool from_the_hand = placed && placed->piece != NO_PIECE && !held_set_down &&
                                 color_of(placed->piece) == mover &&
                                 std::count(physical_.begin(), physical_.end(), placed->piece) <
                                     std::count(display_.begin(), display_.end(), placed->piece);
      if (placed && placed->square == lift->square &&
          (placed->piece == off || ((held_set_down || from_the_hand) && color_of(off) != mover))) {
        if (from_the_hand) gaps_.hold_instead(1u << placed->piece);
        gaps_.take_held_lift();  // a brush, or the held piece's capture: the wait goes on
        deadlines_.clear(Wake::HeldLift);
      } else if (placed && !victim && placed->piece == off && wait_for_the_victim_on(placed->square, off)) {
        // The mover's piece of another kind set on a square the board read showed empty, where an
        // opponent's piece may have stood, reached a shorter story than the board read as it stands
        // (victim_in_the_hand): the capture under way, the victim lifted before the reading (the hall's
        // blitz game 372: 8...Nc6 .. 15.exd5 unseen, the pawn on d5 lifted for 16...Nxd5 at the reading,
        // Black's d-pawn taken within the gap; searched as it stood, ten plies of a knight's detour took
        // both pawns off). The wait goes on to the press.
        gaps_.take_held_lift();
      } else if ((!held_set_down || victim) && (placed || lifted)) {
        end_dump_wait(e.t_ms, lift->before);  // (a taker set down elsewhere: no capture of the victim)
      }
    } else if (lifted && is_ok(lifted->square) && physical_[lifted->square] != NO_PIECE &&
               (((held >> physical_[lifted->square]) & 1u) || color_of(physical_[lifted->square]) != mover)) {
      // (A taker lifted for the victim: its capture under way, judged when it is set down.)
      if (color_of(physical_[lifted->square]) == mover && !victim)
        deadlines_.set(Wake::HeldLift, e.t_ms + cfg_.scan_ms);
      gaps_.lifted_while_held(lifted->square, physical_);
    } else if (lifted && is_ok(lifted->square) && !victim && physical_[lifted->square] != NO_PIECE &&
               gaps_.dump_wait() == GapTracker::DumpWait::PieceInHand) {
      // A piece of the mover's of another kind lifted: the next move begun on a board at rest, or a capture
      // under way whose victim was lifted first, before the reading. Judged when it is set down (below).
      gaps_.lifted_while_held(lifted->square, physical_);
    } else if (placed && !held_set_down && wait_for_the_victim_on(placed->square, placed->piece)) {
      // A piece of the mover's set down from the hand on a square the board read showed empty, where an
      // opponent's piece lifted before the reading makes a shorter story: the taker was in the air too, its
      // capture set down now (the hall's blitz game 25: 16.e5 among plies 13-19 unseen, 16...dxe5 under way
      // at the reading, the pawns of e5 and d6 both lifted; the victim first judged to be the e4 pawn, the
      // knight its taker). The wait goes on to the press.
    } else if (!held_set_down && (placed || lifted)) {
      end_dump_wait(e.t_ms, physical_);
    }
  }
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, PieceLifted>) {
          if (is_ok(v.square) && physical_[v.square] != NO_PIECE) {
            touches_.touched(
                {e.t_ms, v.square, physical_[v.square], own_piece_in_air(), ending_lift_uncertain_});
            physical_[v.square] = NO_PIECE;
          }
        } else if constexpr (std::is_same_v<T, PiecePlaced>) {
          // A piece set where another stood: that one was lifted within the same scan, unseen (a king
          // leaving f8 as the rook arrives in Chess960 castling). It was touched all the same.
          if (is_ok(v.square) && physical_[v.square] != NO_PIECE && physical_[v.square] != v.piece)
            touches_.touched({e.t_ms, v.square, physical_[v.square], own_piece_in_air()});
          if (is_ok(v.square)) physical_[v.square] = v.piece;
        } else if constexpr (std::is_same_v<T, BoardSnapshot>) {
          if (clockless() && have_board_ && !gaps_.link_changed()) {
            // A scan of a board that reports whole positions: its lifts are touches, as field updates'.
            for (Square q = 0; q < 64; ++q)
              if (physical_[q] != NO_PIECE && v.squares[q] != physical_[q])
                touches_.touched({e.t_ms, q, physical_[q], own_piece_in_air(), ending_lift_uncertain_});
            physical_ = v.squares;
            board_from_dump_ = false;
            return;
          }
          const bool first = !have_board_;
          physical_ = v.squares;
          have_board_ = true;
          board_from_dump_ = true;
          // After a reconnect or a restart the board may be several moves on: searched once it settles.
          // Not a board re-read on request (board_read_wanted): that corrects field updates lost on the
          // wire, and an illegal move left standing must not find a "gap" to explain it.
          if ((first || gaps_.link_changed()) && physical_ != display_ && !matching_successor())
            gaps_.suspect(first, e.t_ms, board_changes_ + 1, physical_);  // (counted by on_board_changed)
          gaps_.board_read(e.t_ms);
        } else if constexpr (std::is_same_v<T, ClockReading>) {
          board_event = false;
          on_clock(v, e.t_ms);
        } else {
          board_event = false;  // a link change: the game is kept; the next snapshot tells the board
          // The hand at work as the board goes out of sight (a board followed until then): what the gap's
          // first move was under way to (the ranking's evidence, and a touch he had to move). A link that
          // comes up on a board followed until then (a restart: the daemon stopped, nothing told the loss)
          // finds the board as the hands left it when the daemon stopped reading.
          if (gaps_.link() == GapTracker::Link::Read && !gaps_.suspected())
            hand_at_loss_ = physical_ != display_ ? std::optional(physical_) : std::nullopt;
          gaps_.on_link(v.connected, e.t_ms);
          flush_open_tail(e.t_ms);
        }
      },
      e.what);
  if (board_event && !std::holds_alternative<BoardSnapshot>(e.what)) board_from_dump_ = false;
  if (board_event) on_board_changed(e.t_ms);
  if (board_event && clockless()) complete_two_shown(e.t_ms);
  ending_lift_uncertain_ = false;
  return std::move(out_);
}

void Reconstructor::on_board_changed(std::int64_t t) {
  if (illegal_position_) wood_made_legal();
  last_board_event_ = t;
  ++board_changes_;
  if (gap_length_told_by_a_move(t)) return;
  illegal_.board_changed();
  // The start position set up on the board starts a new game, unless a legal move leads to it (knights
  // going home in a repetition) or the game is already there.
  bool fresh_start =
      !board_matches_game() && !matching_successor() &&
      (game_.ply_count() > 0 || game_.outcome().has_value() || game_.start().board() != physical_);
  if (fresh_start && physical_ == Position::start(cfg_.profile.variant).board()) {
    start_new_game(Position::start(cfg_.profile.variant), t);
  } else if (fresh_start && cfg_.chess960 && is_chess960_start(physical_)) {
    if (auto p = Position::from_fen(chess960_fen(physical_), cfg_.profile.variant, true))
      start_new_game(*p, t);
  }
  if (history_.size() >= 1024)
    history_.erase(history_.begin(), history_.begin() + 512);  // a bound, never reached in play
  history_.push_back({t, physical_, touches_.size()});
  if (stood_.held_press()) stood_on_board_changed(t);
  // FQE 19: a reserve piece that stood on its square longer than a scan was placed there. (A shorter
  // sight is a scan catching a piece's new square before its old one emptied.)
  {
    const Successor* shown = matching_successor();
    std::optional<Move> drop;
    if (shown && shown->move.is_drop()) drop = shown->move;
    reserves_.see_drop(drop, t, cfg_.scan_ms);
  }
  if (wait_.stage() == PressWait::Stage::Waiting && matching_successor()) {
    resolve_pending_on_settle(t, false);
    return;
  }
  if (const Successor* s = matching_successor()) {
    if (!last_match_ || last_match_->successor.move != s->move || !touches_.release_at())
      touches_.release_due(t +
                           cfg_.profile.release_ms);  // resting this long on the square releases the piece
    last_match_ = LastShown{*s, touches_.size(), history_.size() - 1};
  } else {
    touches_.release_cancelled();
    if (board_matches_game()) last_match_.reset();  // the move was taken back before the press
  }
  deadlines_.set(Wake::Settle, t + cfg_.settle_ms);
  deadlines_.set(Wake::Provisional, t + cfg_.provisional_ms);
  deadlines_.clear(Wake::RestComplete);
  if (clockless() && !game_.outcome())
    if (const Successor* s = matching_successor();
        s && !(s->pawn_left_on_last_rank && !cfg_.profile.pawn_may_stay_on_last_rank))
      deadlines_.set(Wake::RestComplete, t + cfg_.complete_after_ms);
}

void Reconstructor::complete_two_shown(std::int64_t t) {
  if (game_.outcome() || wait_.pending() || stood_.standing() || matching_successor() || board_matches_game())
    return;
  // The reply began on the piece just moved (a recapture: its lift looked like the mover's own hand) and
  // the board now shows a move the board showed this turn and a legal reply to it: the first is complete.
  // Only a move the board did show: a board with pieces in the air can look like two moves that never were
  // (Qxe5 fxe5 for a hand holding the f6 pawn and the queen). The latest such board decides.
  for (std::size_t i = history_.size(); i-- > 0;) {
    const Successor* first = successor_for(history_[i].board);
    if (!first || first->pawn_left_on_last_rank || first->early) continue;
    Position pos = game_.position();
    pos.do_move(first->move);
    bool replied = false;
    for (Move m2 : MoveList(pos)) {
      if (m2.is_promotion() && !(cfg_.profile.promotion_types & (1u << m2.promotion_type()))) continue;
      if (board_after(first->board, pos, m2) == physical_) {
        replied = true;
        break;
      }
    }
    if (!replied) continue;
    const Successor done = *first;
    commit(done, t, {}, history_[i].touches, i);
    on_board_changed(t);
    return;
  }
}

void Reconstructor::complete_before_reply(const std::array<Piece, 64>& next, std::int64_t t) {
  const Successor* s = matching_successor();
  if (!s || s->early || wait_.pending()) return;
  const Color replier = ~game_.position().side_to_move();
  // A piece the mover's piece may still slide on to capture (h7-g7 seen on the way to h7xf7): its lift may
  // be the mover's as well as the replier's. The board tells later (the capture, or the reply set down).
  auto slide_target = [&](Square q) {
    for (const auto& o : successors_)
      if (!o.move.is_drop() && o.move.kind() != Move::CASTLING && o.move.from() == s->move.from() &&
          o.move.to() == q && (between(s->move.from(), q) & square_bb(s->move.to())))
        return true;
    return false;
  };
  // The mover's pieces changing in the same scan: his hand is still at work (a slide going on to e2 while
  // the replier's first lift shares the scan); a reply set down will show both moves (complete_two_shown).
  const Color mover = game_.position().side_to_move();
  for (Square q = 0; q < 64; ++q)
    if (next[q] != s->board[q] && ((s->board[q] != NO_PIECE && color_of(s->board[q]) == mover) ||
                                   (next[q] != NO_PIECE && color_of(next[q]) == mover)))
      return;
  bool begun = false;
  for (Square q = 0; q < 64 && !begun; ++q)
    begun = s->board[q] != NO_PIECE && color_of(s->board[q]) == replier && next[q] != s->board[q] &&
            !slide_target(q);
  if (!begun) return;
  commit_current(*s, t, {});
  // The lift that ended the turn may be the mover's hand as well (a piece knocked and set back, 4.2): it
  // does not bind the replier under touch-move.
  ending_lift_uncertain_ = true;
}

void Reconstructor::publish_provisional(std::int64_t t) {
  if (game_.outcome()) return;
  const Successor* s = matching_successor();
  if (!s || published_provisional_ == s->move) return;
  // An open gap's tail (OpenTail): the move shown is one story's last among others, not published.
  if (open_tail_ && game_.ply_count() + 1 == open_tail_->ply) return;
  published_provisional_ = s->move;
  Position pos = s->early ? extended_position() : game_.position();
  emit(t, ProvisionalMoveEvent{game_.ply_count() + 1, to_uci(pos, s->move), to_san(pos, s->move)});
}

void Reconstructor::start_new_game(const Position& start, std::int64_t t) {
  flush_open_tail(t);
  game_ = Game(start);
  uncertain_recovery_.reset();
  if (missed_gap_ && missed_gap_->holds_moves()) {
    missed_gap_.reset();  // the moves held back were another game's
    held_events_.clear();
  }
  display_ = physical_view(start, cfg_.profile.pawn_may_stay_on_last_rank);
  reset_turn();
  forget_mismatch();
  illegal_.new_game();
  forget_stood();
  illegal_position_.reset();
  reserves_.new_game();
  recompute_successors();
}

void Reconstructor::reset_turn() {
  wait_.clear();
  deadlines_.clear(Wake::RestComplete);
  last_match_.reset();
  published_provisional_.reset();
  illegal_.turn_over();
  touches_.clear();
  next_turns_lifts_.clear();
  history_.clear();
  hand_at_loss_.reset();
  reserves_.new_turn();
}

std::optional<Reconstructor::ClockNow> Reconstructor::clock_now() const {
  const auto& last = clock_.last();
  if (!last || !last->present || !clock_.left_player()) return std::nullopt;
  ClockNow c{clock_.times(*last), std::nullopt, clock_.last_ms()};
  // The lever is up on the side whose clock runs (the player on move presses it down).
  if (last->running) c.running = clock_.player_at(last->lever_up);
  return c;
}

void Reconstructor::on_clock(const ClockReading& r, std::int64_t t) {
  clock_.begin(r, t);
  if (!r.present) {
    clock_.finish(r);
    return;
  }
  if (clock_.seats() == TurnClock::Seats::Unknown && r.running) guess_seats(r, t);
  const std::optional<ClockReading>& last = clock_.last();
  if (last && last->present && last->lever_up != r.lever_up) {
    // A lever change on a stopped clock (setting up, starting it) is nobody's move.
    if (last->running || clock_.seats() == TurnClock::Seats::Confirmed) {
      const ClockSide pressed = last->lever_up;
      stood_on_press(pressed, r, t);
      on_press(pressed, r, t);
    } else if (r.running)
      guess_seats(r, t);
  } else if (last && r.running && (board_matches_game() || matching_successor()) && !wait_.pending() &&
             clock_.left_player()) {
    // The reconnect's reading, no press, the board at the game's position or one move on (the mover's,
    // not pressed): the gap's last press, by the side not on move, when the clock counts moves that came
    // back to it unseen (counted_return; the hall's TCEC Chess960 game 37: 19.Rf1 Nd5 20.Ra1 Nb6 unseen,
    // the board one rook's move from the position before them, the rook in White's hand at the loss).
    const PendingPress gap_end{t, clock_.times(r), ~game_.position().side_to_move(), board_changes_};
    if (counted_return(gap_end)) recover_counted_return(t, gap_end, false);
  } else if (last && last->present && last->running && r.running && has_drops(game_.position().variant()) &&
             clock_.seats() == TurnClock::Seats::Confirmed && clock_.last_read_ms() < gaps_.back_at() &&
             gaps_.suspected() && !wait_.pending() && !gaps_.held() && !gaps_.dump_deferred() &&
             ran_while_down(*last, r)) {
    // A bughouse reconnect's reading, the lever as it was before the link went down, and the side whose
    // clock stood then has used time since: its clock ran meanwhile, so each side pressed at least once, the
    // last press by the side whose clock stands now. That press is the gap's end, searched at once as a
    // lever change's would be (a restart between 4...Nc6 set down and its press, then 5.Nf3 pressed: read as
    // no press, every later move of the match was completed a press late and the last one never, and the
    // partner's drops judged against captures told late). Not in chess: there the next press tells (one
    // moves-missed, the moves played among its candidates); taken as the gap's end, the reading cut Chess960
    // detours with the next move shown short (sim_gap_recovery_test, held gaps) and missed hands at work.
    // The board that press completed is the dump as read: a loaded daemon reads the dump, the next mover's
    // hand on it (5...Qd6 set down) and this reading in one read, stamped alike, and searched as it stands
    // the board tells two stories, each with the other's move shown (daemon_bus_match_test under ASan).
    const std::optional<std::array<Piece, 64>>& dump = gaps_.read_unsettled();
    const std::array<Piece, 64> read = dump ? *dump : physical_;
    const ClockSide pressed = r.lever_up == ClockSide::Left ? ClockSide::Right : ClockSide::Left;
    const PendingPress gap_end{t, clock_.times(r), clock_.player_at(pressed), board_changes_, true};
    if (!hand_at_work_at(read)) {
      const GapTracker::SearchState before = gaps_.search_state();
      if (read == physical_ || !recover_gap_on(t, &gap_end, read, false)) {
        if (read != physical_) gaps_.restore(before);
        recover_gap(t, &gap_end);
      }
    } else if (read == physical_) {
      // The dump read with the next mover's piece in his hand (its square emptied in the dump's change):
      // put back, the board is the gap's end when one story alone reaches it; else the next press tells.
      const HandRestored held = with_hand_put_back();
      if (held.known && held.hand == ~gap_end.presser && !hand_at_work_at(held.board)) {
        const GapFound probe = search_gap_to(&gap_end, held.board, false, std::nullopt, kGapPlies);
        if (probe.explains() && probe.result.sequences.size() == 1 && !probe.unpressed_too)
          recover_gap_on(t, &gap_end, held.board, false);
      }
    }
  }
  // A flag that has just fallen (6.9): the player on that side loses, unless the opponent cannot mate.
  bool left_fell = r.left_flag && !(last && last->left_flag);
  bool right_fell = r.right_flag && !(last && last->right_flag);
  if ((left_fell || right_fell) && clock_.left_player() && !game_.outcome() && !clock_.paused()) {
    Color side = clock_.player_at(left_fell ? ClockSide::Left : ClockSide::Right);
    Outcome o = game_.flag_outcome(side);
    game_.set_outcome(o);
    emit(t, ResultEvent{o.result, o.reason});
  }
  clock_.finish(r);
}

bool Reconstructor::hand_at_work_at(const std::array<Piece, 64>& board) const {
  return dump_lacks_the_movers_pieces(board) != 0 || victim_in_the_hand(board) || castling_under_way(board) ||
         castling_king_in_hand(board);
}

bool Reconstructor::ran_while_down(const ClockReading& before, const ClockReading& now) {
  // The side whose clock stood before (its lever down) reads less now: its clock ran in between.
  const bool left_stood = before.lever_up == ClockSide::Right;
  return before.lever_up == now.lever_up &&
         (left_stood ? now.left_ms < before.left_ms : now.right_ms < before.right_ms);
}

void Reconstructor::guess_seats(const ClockReading& r, std::int64_t t) {
  // Until a completed move confirms it, the side whose clock runs is taken to be the side on move.
  const Color to_move = game_.position().side_to_move();
  clock_.guess_left(r.lever_up == ClockSide::Left ? to_move : ~to_move);
  guessed_over_move_.reset();
  if (matching_successor()) guessed_over_move_ = GuessOverMove{t, r};
}

void Reconstructor::on_press(ClockSide pressed, const ClockReading& r, std::int64_t t) {
  if (game_.outcome()) return;
  const Position& pos = game_.position();
  Color to_move = pos.side_to_move();
  // Whether the board has shown a legal move since P (which then tells who sits where, below).
  bool candidate = last_match_.has_value() || matching_successor() != nullptr;
  if (clock_.seats() != TurnClock::Seats::Confirmed && candidate) {
    // The first completed move tells who sits where for sure.
    Color left = pressed == ClockSide::Left ? to_move : ~to_move;
    // Seats guessed with a move on the board: a press with that move and a reply shown (two plies, no
    // single move) is the reply's. The guessing reading came after the first move's press: it completes
    // that move, this press the reply.
    const bool reply_pressed = clock_.seats() == TurnClock::Seats::Guessed && guessed_over_move_ &&
                               !matching_successor() && two_ply_explanation() && !wait_.pending();
    const std::optional<GuessOverMove> guess = std::exchange(guessed_over_move_, std::nullopt);
    if (reply_pressed) {
      clock_.confirm_left(~left);
      if (complete_two_from_history(guess->t_ms, clock_.times(guess->reading), t, clock_.times(r))) return;
    } else {
      clock_.confirm_left(left);
    }
  }
  if (!clock_.left_player()) return;
  Color presser = clock_.player_at(pressed);
  // (The reading before this one came before the link did: this is the first since.)
  const PendingPress press{t, clock_.times(r), presser, board_changes_,
                           clock_.last_read_ms() < gaps_.back_at()};
  if (press_tells_held_gap_longer(press)) return;
  if (press_tells_unseen_moves(press, std::exchange(unseen_pass_at_, std::nullopt))) return;
  if (press_tells_waiting_length(press)) return;
  if (press_completes_the_hand_at_the_reading(press)) return;
  // (The mover's press waits to be decided first: decide_pending.)
  if (presser != to_move && press_ends_the_dump_wait(press)) return;
  // A reconnect's board past the search's bound with the other side on move (an odd number of plies
  // unseen), then that side's move from it pressed: the press is the first after the gap. Not when the
  // board at the press is reached within the bound (the board read may show a hand at work: the hall's blitz
  // game 180, nine plies unseen, 21.Nxf6's victim lifted before the reading and the knight after it, told
  // past the bound from the board read without the bishop, the moves played refused); the press is then
  // decided and searched as any other. (Decided later, it was searched already: recover_gap.)
  if (presser != to_move && gaps_.suspected() && gaps_.read_board_unexplained() &&
      !has_drops(pos.variant())) {
    if (!reached_within_the_bound(physical_, ~presser) && tell_gap_past_bound_from_read_board(press)) return;
  }
  if (presser != to_move && !wait_.pending() && (adopt_candidate_ || phase_.mismatch_told())) {
    // The board is not followed (a position nothing explains): whoever presses, the game may go on from
    // what the board shows.
    follow_unexplained_press(press);
    return;
  }
  const auto wait_on_the_movers_press = [&] {
    wait_.start(press, t + cfg_.mismatch_ms);
    // A board showing a legal move when the press is read shows the move pressed: it is completed now
    // (press_read_after_scan), also when the opponent's first lifts share that scan. Not a board that is
    // a dump since its last change (after a reconnect, the readings held until the dump): the press was
    // made while nobody read the board, and the field updates after the dump are still the move's (the
    // kill -9 process test saw moves go wrong when a dump decided them); it waits one scan after the dump. A
    // board showing no move yet waits one scan for the last placement; so does one that two moves explain
    // (the opponent's reply already set down, or the mover's victim set aside for a moment: deciding those at
    // the reading got 17 of 876 corpus games wrong). With a clock read apart from the scan, a move that may
    // be a moment of a longer gesture waits one scan too.
    std::int64_t decide_at = t;
    const Successor* shown = matching_successor();
    const bool after_scan = cfg_.press_read_after_scan && !board_from_dump_;
    if (!shown && !(after_scan && successor_with_lifts(physical_)))
      decide_at = t + cfg_.scan_ms;  // last placement not read yet?
    else if (!after_scan && (board_from_dump_ || may_continue(*shown)))
      decide_at = std::max(t, last_board_event_ + cfg_.scan_ms);
    if (decide_at <= t)
      decide_pending(t);
    else
      wait_.decide_at(decide_at);
  };
  if (presser == to_move) {
    wait_on_the_movers_press();
    return;
  }
  // The player not on move pressed: the mover's press was not read in time, or was not explained yet.
  ClockTimes first = wait_.pending() ? wait_.press().clock : ClockTimes{};
  std::int64_t first_t = wait_.pending() ? wait_.press().t_ms : t;
  if (complete_two_from_history(first_t, first, t, clock_.times(r))) return;
  // Otherwise this press gives the turn back (after an illegal move, or setting the clock): the pending
  // press, if any, is judged on the board as it stands. Judged so, a reconnect's reading can leave the
  // gap's length waiting for this very press (the hall's blitz game 212: 31.Bxh6 pressed unseen, the queen
  // in Black's hand at the reading for 32...Qh4, set down and pressed in the next scan): it tells it.
  if (wait_.pending()) {
    const bool gap_suspected = gaps_.suspected();
    const int plies = game_.ply_count();
    resolve_pending_on_settle(t, true);
    if (press_tells_waiting_length(press)) return;
    // Or it can recover the gap up to the pending press with this presser's move shown after it: this press
    // is that move's (the hall at 3x, seed 815521794: 9.g3 .. 13.Ngf3 unseen, 13...f6 set down after the
    // reading and pressed; its press dropped, every later move went out a press late and the game's last two
    // never).
    if (gap_suspected && game_.ply_count() > plies && !wait_.pending() && !game_.outcome() &&
        game_.position().side_to_move() == presser && matching_successor())
      wait_on_the_movers_press();
  }
}

bool Reconstructor::press_tells_waiting_length(const PendingPress& press) {
  if (gaps_.length() != GapTracker::Length::Waiting || !gaps_.suspected() || game_.outcome() ||
      gaps_.waiting_on_move() != press.presser)
    return false;
  // Or the board read but for one piece of his set down on a square empty there: in his hand at the reading,
  // his move under way (the hall's blitz game 193: ten plies unseen, 23.Bh4's bishop lifted from g3, the
  // board read as one where it was exchanged on e7), the stories to the board read not the gap's.
  if (physical_ != gaps_.waiting_board()) {
    if (!has_drops(game_.position().variant()) &&
        one_piece_set_down(gaps_.waiting_board(), physical_, press.presser))
      gaps_.stop_waiting();  // (his move searched from the board read with that piece put back)
    return false;
  }
  wait_.clear();
  const bool longer_unsearched = gaps_.longer_unsearched();
  gaps_.tell_all_pressed();
  if (longer_unsearched && tell_gap_past_bound(press)) return true;
  return recover_gap_on(press.t_ms, &press, physical_, false);
}

const Reconstructor::Successor* Reconstructor::successor_with_lifts(
    const std::array<Piece, 64>& board) const {
  // While a gap is suspected (the board not followed since the link came back), the opponent's pieces
  // missing are as likely taken in moves nobody saw as in his hand: the board is searched as a gap.
  if (gaps_.suspected()) return nullptr;
  const Color to_move = game_.position().side_to_move();
  const Successor* found = nullptr;
  for (const auto& succ : successors_) {
    bool ok = true;
    for (Square q = 0; q < 64 && ok; ++q)
      ok = board[q] == succ.board[q] ||
           (board[q] == NO_PIECE && succ.board[q] != NO_PIECE && color_of(succ.board[q]) != to_move);
    if (ok) {
      if (found) return nullptr;  // ambiguous
      found = &succ;
    }
  }
  return found;
}

bool Reconstructor::may_continue(const Successor& s) const {
  if (s.pawn_left_on_last_rank) return true;  // the swap for the new piece may follow (7.5.2)
  const Move m = s.move;
  if (m.is_drop() || m.kind() == Move::CASTLING) return false;
  const Color us = game_.position().side_to_move();
  // Whether `m` stops on `end`, or on a square a slide to `end` passes.
  auto on_way_to = [&](Square end) { return m.to() == end || (between(m.from(), end) & square_bb(m.to())); };
  for (const auto& o : successors_) {
    if (o.move == m || o.move.is_drop()) continue;
    if (o.move.kind() == Move::CASTLING) {
      // Castling is encoded king square to rook square. Its king on the way (the rook still to come), or
      // its rook first (4.4.2) with the king still to come.
      if (m.from() == o.move.from() && on_way_to(Position::castle_king_to(us, o.move))) return true;
      if (m.from() == o.move.to() && on_way_to(Position::castle_rook_to(us, o.move))) return true;
    } else if (o.move.from() == m.from() && (between(m.from(), o.move.to()) & square_bb(m.to()))) {
      return true;  // the same piece pushed on across its square
    }
  }
  return false;
}

namespace {

// A castling `mover` keeps the right to in `pos`: its rook's square, and the king's and rook's castled
// squares.
struct KeptCastling {
  Square rook_from, king_to, rook_to;
};

std::vector<KeptCastling> kept_castlings(const Position& pos, Color mover) {
  std::vector<KeptCastling> out;
  for (const bool king_side : {true, false}) {
    const int idx = castling_index(mover, king_side);
    const Square rook_from = pos.castling_rook(idx);
    if (pos.can_castle(std::uint8_t(1u << idx)) && is_ok(rook_from))
      out.push_back({rook_from, Position::castle_king_to(mover, king_side),
                     Position::castle_rook_to(mover, king_side)});
  }
  return out;
}

}  // namespace

bool Reconstructor::castling_under_way(const std::array<Piece, 64>& board) const {
  const std::optional<Color> mover = clock_.on_move();
  if (!mover) return false;
  const Position& pos = game_.position();
  const Piece king = make_piece(*mover, KING);
  const Piece rook = make_piece(*mover, ROOK);
  // (The rook in the hand: fewer of his rooks on the board than in the game's position.)
  const bool rook_in_hand =
      std::count(board.begin(), board.end(), rook) < std::count(display_.begin(), display_.end(), rook);
  for (const KeptCastling& c : kept_castlings(pos, *mover))
    if (pos.king_square(*mover) != c.king_to && board[c.king_to] == king && board[c.rook_to] == NO_PIECE &&
        (board[c.rook_from] == rook || (board[c.rook_from] == NO_PIECE && rook_in_hand)))
      return true;
  return false;
}

bool Reconstructor::castling_king_in_hand(const std::array<Piece, 64>& board) const {
  const std::optional<Color> mover = clock_.on_move();
  if (!mover) return false;
  const Piece king = make_piece(*mover, KING);
  const Piece rook = make_piece(*mover, ROOK);
  if (std::find(board.begin(), board.end(), king) != board.end()) return false;
  for (const KeptCastling& c : kept_castlings(game_.position(), *mover))
    if (board[c.king_to] == NO_PIECE && (board[c.rook_from] == NO_PIECE || board[c.rook_from] == rook) &&
        (board[c.rook_to] == NO_PIECE || (board[c.rook_to] == rook && board[c.rook_from] == NO_PIECE)))
      return true;
  return false;
}

bool Reconstructor::held_piece_in_the_air() const {
  // (Not with drops: the press's moves hand pieces to the partner's board, which a wait would hold back.)
  const std::uint32_t held = gaps_.held();
  if (!held || !gaps_.suspected() || has_drops(game_.position().variant())) return false;
  // In the air while no kind waited for has more on the board than on the board judged (one set down ends
  // it; not "back to its count before the gap": one of that kind taken within the gap never is, the hall's
  // blitz game 236, 12...Qc6 13.Nxe5 ... 20...f6 with the f-pawn in the hand).
  // The victim lifted first: until one of the takers stands on its square.
  if (const std::optional<Square> victim = gaps_.victim())
    return physical_[*victim] == NO_PIECE || !((held >> physical_[*victim]) & 1u);
  const std::array<Piece, 64>& judged = gaps_.held_judged_on();
  for (int pc = 0; pc < PIECE_NB; ++pc)
    if (((held >> pc) & 1u) && std::count(physical_.begin(), physical_.end(), Piece(pc)) >
                                   std::count(judged.begin(), judged.end(), Piece(pc)))
      return false;
  return true;
}

bool Reconstructor::wait_for_the_victim_on(Square square, Piece taker) {
  const std::array<Piece, 64> judged = gaps_.held_judged_on();
  if ((gaps_.dump_wait() != GapTracker::DumpWait::PieceInHand && gaps_.victim().value_or(square) == square) ||
      taker == NO_PIECE || color_of(taker) != gaps_.held_by() || !is_ok(square) || judged[square] != NO_PIECE)
    return false;
  const std::optional<Victim> victim = victim_in_the_hand(judged, square);
  if (!victim || !((victim->takers >> taker) & 1u)) return false;
  gaps_.wait_for_victim(victim->takers, judged, victim->square);
  gaps_.held_touched();
  return true;
}

void Reconstructor::decide_pending(std::int64_t now) {
  wait_.decision_came();
  if (!wait_.pending()) return;
  PendingPress press = wait_.press();
  if (press_ends_the_dump_wait(press)) return;
  if (press_refutes_the_open_tail(press) || press_takes_a_piece_lifted_at_the_reading(press)) return;
  Color to_move = game_.position().side_to_move();
  // The latest board since P that shows a legal move is the move the press completed; later states
  // are the opponent's beginning: a state that shows a move with some of the opponent's pieces lifted
  // shows that move too (successor_with_lifts). If the opponent has even completed his reply by now, the
  // latest state shows both moves.
  // A reading with lifts in which the moved piece stood on its new square while its old square was still
  // occupied for longer than a scan: a piece cannot arrive before it left, so the old square was emptied
  // by the opponent taking that piece (his reply), not by this move (bughouse: a drop next to it).
  auto arrived_before_leaving = [&](const Successor& succ, std::size_t upto) {
    Move m = succ.move;
    // (A promotion's new piece may well be set down before the pawn is taken off.)
    if (m.is_drop() || m.kind() == Move::CASTLING || m.is_promotion()) return false;
    Square from = m.from(), to = m.to();
    // Only states of this turn: the history may still hold the boards of the previous move.
    std::int64_t since =
        game_.plies().empty() ? std::numeric_limits<std::int64_t>::min() : game_.plies().back().time_ms;
    for (std::size_t k = 0; k < upto; ++k) {
      const auto& b = history_[k].board;
      if (history_[k].t_ms < since) continue;
      if (b[to] == succ.board[to] && b[from] == display_[from] &&
          history_[k + 1].t_ms - history_[k].t_ms >= cfg_.scan_ms)
        return true;
    }
    return false;
  };
  // A press read after a reconnect's reading: the boards before it are of before the loss, and the move
  // they showed was completed unseen, if at all (the hall's blitz game 45: 6.dxe5 shown at the loss and
  // pressed unseen, 6...Nd7 unseen, 7.Qxd5 pressed after the reading): no move of this press.
  const std::int64_t since = gaps_.suspected() && !press_at_the_reading(press)
                                 ? gaps_.suspected_at()
                                 : std::numeric_limits<std::int64_t>::min();
  // The move the board showed exactly when the press was read (the latest such state up to then).
  std::optional<Move> shown_at_press;
  for (std::size_t i = history_.size(); i-- > 0 && history_[i].t_ms >= since;)
    if (history_[i].t_ms <= press.t_ms)
      if (const Successor* s = successor_for(history_[i].board)) {
        shown_at_press = s->move;
        break;
      }
  // The move whose piece stood on its square, for at least a scan, right up to the press reading: the
  // piece still there when the clock was pressed. If the same piece then shows another move, the
  // opponent has taken it and set it down aside, not the mover changed his mind after pressing.
  std::optional<Move> stood_at_press;
  for (std::size_t i = history_.size(); i-- > 0 && history_[i].t_ms >= since;) {
    if (history_[i].t_ms >= press.t_ms) continue;
    if (const Successor* s = successor_for(history_[i].board); s && !s->move.is_drop()) {
      std::size_t first = i;
      while (first > 0 && successor_for(history_[first - 1].board) &&
             successor_for(history_[first - 1].board)->move == s->move)
        --first;
      if (press.t_ms - history_[first].t_ms >= cfg_.scan_ms) stood_at_press = s->move;
    }
    break;
  }
  // (Not on a board read after a reconnect and not searched yet: two moves there are one story of the gap
  // among others, which the search tells.)
  if (!history_.empty() && !successor_for(history_.back().board) && !gaps_.suspected()) {
    auto two = two_ply_for(history_.back().board);
    // Two moves explain the latest board, but the board showed another move at the press: that one was
    // pressed (what came after is the opponent's reply, with a piece set aside, a stray or a knock).
    if (two && shown_at_press && *shown_at_press != two->first.move) two.reset();
    if (two) {
      wait_.clear();
      // The reply stays pending on the board (it is the last state): the opponent's press completes it.
      commit(two->first, press.t_ms, press.clock, touches_.size(), SIZE_MAX, false);
      return;
    }
  }
  for (std::size_t i = history_.size(); i-- > 0 && history_[i].t_ms >= since;) {
    const auto& state = history_[i];
    std::size_t touch_count = state.touches;
    const Successor* exact = successor_for(state.board);
    const Successor* s = exact ? exact : successor_with_lifts(state.board);
    if (s && arrived_before_leaving(*s, i)) s = exact = nullptr;
    // After the press was read, a board that needs the opponent's lifts to show a move does not outweigh
    // the move the board showed exactly at the press: it is the opponent's reply under way (his capture,
    // the victim set down aside for a moment).
    if (s && s != exact && state.t_ms >= press.t_ms && shown_at_press && s->move != *shown_at_press) continue;
    // Nor does any other move after the press when the piece of the move shown at the press had rested
    // there long enough to be released (4.7): what changes now is the opponent's hand (his victim set
    // down for a moment on a square the mover's piece could have reached).
    if (s && state.t_ms > press.t_ms && shown_at_press && touches_.released() == shown_at_press &&
        s->move != *shown_at_press)
      continue;
    if (s && state.t_ms >= press.t_ms && stood_at_press && s->move != *stood_at_press && !s->move.is_drop() &&
        s->move.from() == stood_at_press->from())
      continue;
    if (s && s != exact) {
      // The lifts of the opponent's pieces in this state are his, not the mover's: from the lift that
      // emptied such a square (the last one on it; an earlier lift there was put back, a knock) on.
      std::size_t limit = std::min(touch_count, touches_.size()), first_his = limit;
      const auto& touches = touches_.touches();
      for (std::size_t k = 0; k < limit; ++k) {
        Square q = touches[k].square;
        if (state.board[q] != NO_PIECE || s->board[q] == NO_PIECE || color_of(touches[k].piece) == to_move)
          continue;
        bool last_on_square = true;
        for (std::size_t j = k + 1; j < limit && last_on_square; ++j) last_on_square = touches[j].square != q;
        if (last_on_square) first_his = std::min(first_his, k);
      }
      touch_count = first_his;
    }
    if (s && s->move.is_drop() && state.t_ms >= press.t_ms) {
      // A drop shown only once the press was read, after another drop of the same piece that vanished:
      // when the opponent can take that piece, he did (his capture has begun, the victim set aside for a
      // moment), rather than the mover dropping it again after his press.
      for (std::size_t j = i; j-- > 0;) {
        const Successor* d = successor_for(history_[j].board);
        if (!d || !d->move.is_drop() || d->move == s->move || d->move.drop_type() != s->move.drop_type() ||
            state.board[d->move.to()] != NO_PIECE)
          continue;
        Position after = d->early ? extended_position() : game_.position();
        after.do_move(d->move);
        if (!(after.attackers_to(d->move.to()) & after.pieces(~to_move))) continue;
        s = d;
        i = j;
        touch_count = history_[j].touches;
        break;
      }
    }
    if (s) {
      // Touches belong to the mover up to the first state of the streak that shows his final move; what
      // came after (a knock by the opponent, his first lift) is the next turn's.
      std::size_t first = i;
      while (first > 0 && successor_for(history_[first - 1].board) &&
             successor_for(history_[first - 1].board)->move == s->move)
        --first;
      if (first < i) touch_count = std::min(touch_count, history_[first].touches);
      wait_.clear();
      commit(*s, press.t_ms, press.clock, touch_count, i);
      return;
    }
  }
  // An illegal move on the board is what the press completed (7.5.1); an unchanged board, a press
  // without a move (7.5.3); otherwise wait for the board.
  if (shown_move() || board_matches_game()) {
    resolve_pending_on_settle(now, true);
    return;
  }
  if (auto settle = deadlines_.at(Wake::Settle); !settle || *settle < now + cfg_.settle_ms)
    deadlines_.set(Wake::Settle, now + cfg_.settle_ms);
}

std::size_t Reconstructor::leading_touches_of(Move m) const {
  std::size_t n = 0;
  for (const TouchTracker::Touch& touch : touches_.touches()) {
    if (touch.square != m.from() && touch.square != m.to()) break;
    ++n;
  }
  return n;
}

bool Reconstructor::complete_two_from_history(std::int64_t first_t, ClockTimes first_clock, std::int64_t t,
                                              ClockTimes clock) {
  for (std::size_t i = history_.size(); i-- > 0;) {
    auto two = two_ply_for(history_[i].board);
    if (!two) continue;
    wait_.clear();
    // The first move's touches are consumed unjudged; the states from i on show the reply and go on.
    commit(two->first, first_t, first_clock, leading_touches_of(two->first.move), i == 0 ? SIZE_MAX : i - 1,
           false);
    if (last_match_)
      commit(last_match_->successor, t, clock, last_match_->touches, last_match_->history_index, false);
    return true;
  }
  return false;
}

void Reconstructor::resolve_pending_on_settle(std::int64_t t, bool final) {
  if (!wait_.pending()) return;
  PendingPress press = wait_.press();
  if (const Successor* s = matching_successor()) {
    wait_.clear();
    commit_current(*s, press.t_ms, press.clock);
    return;
  }
  // At rest and no move: the board is read whole once for this press (a field update lost on the wire
  // leaves the board so); what follows goes on as if no answer came, and the answer is a new board.
  if (cfg_.reread_board && !final && t - last_board_event_ >= cfg_.settle_ms) gaps_.ask_reread(press.t_ms);
  Color presser = press.presser;
  // The reconnect's reading, the board back at the game's position: moves that came back to it unseen
  // when the clock counts more presses than this one (counted_return).
  if (board_matches_game() && counted_return(press)) {
    if (t - last_board_event_ < cfg_.settle_ms && !final) return;
    if (recover_counted_return(t, press, true)) {
      wait_.clear();
      return;
    }
  }
  if (board_matches_game()) {
    wait_.clear();
    if (cfg_.profile.clock_press_without_move_is_reserve_claim) {
      hidden_reserve(presser, press.t_ms);
      return;
    }
    // The lever moved while the board was out of sight, and the board shows the position before: a press
    // without a move (the shortest story), or moves that came back to it, which a clock without increment
    // does not count (counted_return). Told as the press, but nobody saw it: not an illegal move counted
    // towards 7.5.5, no penalty proposed; the arbiter judges.
    if (press.across_link)
      unseen_press_without_move(presser, press.t_ms);
    else
      illegal_move(
          "clock-without-move", presser, press.t_ms, "clock-without-move",
          std::string(presser == WHITE ? "White" : "Black") + " pressed the clock without moving (7.5.3)");
    remember_stood_pass(press);
    return;
  }
  if (auto shown = shown_move(); shown && shown->from == SQ_NONE) {
    if (switch_gap_story(*shown, press.t_ms))
      if (const Successor* s = matching_successor()) {
        wait_.clear();
        commit_current(*s, press.t_ms, press.clock);
        return;
      }
    wait_.clear();
    // A piece set on an empty square that no legal drop explains (FQE 7, 18).
    const auto why = IllegalMoves::why_not_legal(extended_position(), *shown, presser);
    illegal_move("illegal-move", presser, press.t_ms, why.reason, why.detail);
    remember_replaced(*shown);
    return;
  }
  if (auto shown = shown_move()) {
    wait_.clear();
    const auto why = IllegalMoves::why_not_legal(game_.position(), *shown, presser);
    illegal_move("illegal-move", presser, press.t_ms, why.reason, why.detail);
    remember_replaced(*shown);
    remember_stood(*shown, press);
    return;
  }
  // Pieces in the air on the way to a legal move: wait for them, up to the mismatch time.
  if (!final) {
    // The reconnect's reading pending as a press, and the board changed before it settled: the dump is
    // judged for the mover's piece in his hand as a settled one is (on_settled), on the board the press came
    // with (the hall's blitz game 378: 15.Nxf7's knight in the air at the reading, the pawn lifted next).
    if (gaps_.suspected() && !gaps_.dump_deferred() && !gaps_.held_judged() && !gaps_.first_board_dump() &&
        !clockless() && press_at_the_reading(press)) {
      gaps_.judge_held();
      const BoardState* read = state_at(press.t_ms);
      const std::array<Piece, 64>& judged = read ? read->board : physical_;
      if (const std::uint32_t held = dump_lacks_the_movers_pieces(judged))
        gaps_.wait_for_piece_in_hand(held, judged);
      else if (const std::optional<Victim> victim = victim_in_the_hand(judged))
        gaps_.wait_for_victim(victim->takers, judged, victim->square);
      if (gaps_.dump_deferred()) {
        gaps_.held_touched();  // the changes since were the hand's: the press is searched once it is done
        deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
      }
    }
    // A reconnect's dump that waits for the mover's piece in his hand: searched as it is, the piece would
    // read as taken (a longer story); the press waits with the dump for it to be set down. So does the
    // reconnect's reading with a castling half done on the board (up to the mismatch time).
    // The held piece's mover pressing after the reading, nothing touched since it was judged: his hand held
    // nothing, his move was done on the board read, and the board is searched as it stands (the hall's blitz
    // game 403: ten plies unseen and 11.Nge2 set down, pressed a third of a second after the reading, the
    // board short of White's bishops taken within the gap; waited on, Black's castling came first and the
    // press told a position-mismatch).
    if (gaps_.held() && gaps_.held_untouched() && press.presser == gaps_.held_by() &&
        !press_at_the_reading(press) && physical_ == gaps_.held_judged_on())
      gaps_.take_dump_deferral();
    if (held_piece_in_the_air()) return;
    // Or with the king of that castling in the hand since the reading (the hall's Chess960 game 7: 10...O-O
    // with the king lifted from g8, its castled square, and the rook from h8; searched so, no story has a
    // king missing); lifted only since, it may be any move's (the hall's blitz game 403 read late).
    const auto king_in_hand_since_the_reading = [&] {
      const BoardState* at_reading = state_at(press.t_ms);
      return at_reading && castling_king_in_hand(physical_) && castling_king_in_hand(at_reading->board);
    };
    if (gaps_.suspected() && press_at_the_reading(press) && !clockless() &&
        (castling_under_way(physical_) || king_in_hand_since_the_reading())) {
      deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
      return;
    }
    // After a reconnect or a restart the press may complete moves made unseen: a board the search explains
    // exactly is that story, before the one of a move with pieces still in the air (an exchange on a square
    // looks so: the pawns that took there gone from their squares).
    if (gaps_.suspected() && t - last_board_event_ >= cfg_.settle_ms && recover_gap(t, &press)) return;
    for (const auto& succ : successors_) {
      bool consistent = true;
      for (Square q = 0; q < 64 && consistent; ++q) {
        Piece pc = physical_[q];
        consistent = pc == NO_PIECE || pc == display_[q] || pc == succ.board[q];
      }
      if (consistent) return;
    }
    // The opponent may already be answering: two moves on the board wait for his press. (Not on a board
    // read after a reconnect and not searched yet: there two moves are a story of the gap among others,
    // told by the search once the board is at rest.)
    if (!gaps_.suspected() && two_ply_explanation()) return;
    // After a reconnect or a restart: the press completes the moves made meanwhile, once the board is at
    // rest (the updates after a dump may still be arriving).
    if (gaps_.suspected()) {
      if (t - last_board_event_ < cfg_.settle_ms) return;
      if (recover_gap(t, &press)) return;
    }
  }
  wait_.clear();
  // A promotion to a piece the profile does not allow (clock-move bughouse: queen or knight only).
  const Position& pos = game_.position();
  for (Move m : MoveList(pos))
    if (m.is_promotion() && !(cfg_.profile.promotion_types & (1u << m.promotion_type())) &&
        board_after(display_, pos, m) == physical_) {
      illegal_move("illegal-move", presser, press.t_ms, "promotion-not-allowed",
                   to_uci(pos, m) + ": promotion to a " + piece_name(m.promotion_type()) +
                       " is not allowed by the rules of this event");
      return;
    }
  // Moves made unseen (a reconnect's board): the press completes them. A board that went wrong under the
  // daemon's eyes is not searched: an illegal move left standing would find some legal "explanation".
  if (gaps_.suspected() && recover_gap(t, &press)) return;
  // A story found whose length waits for the next press (GapTracker::Length): not a board nothing explains.
  if (gaps_.suspected() && gaps_.length() == GapTracker::Length::Waiting) return;
  // A reconnect's board read with the hand at work within the bound, the board now past it (his move from it
  // the one past), or the board read past the search's bound, then the presser's move from it (or his move
  // shown on it).
  if (gaps_.suspected() && recover_gap_before_the_pressed_move(press)) return;
  if (gaps_.suspected() && tell_gap_past_bound_from_read_board(press)) return;
  // A board nothing explains: told once (position-mismatch), not at every press.
  const auto tell_mismatch = [&](const char* detail) {
    phase_.tell_mismatch();
    deadlines_.clear(Wake::Mismatch);
    emit(press.t_ms,
         AlertEvent{"position-mismatch", game_.ply_count(), game_.position().side_to_move(), detail, {}});
  };
  if (gaps_.suspected() || phase_.mismatch_told() || adopt_candidate_) {
    // Play going on from a legal position is followed from there (follow_unexplained_press).
    if (follow_unexplained_press(press)) return;
    // The first press after a reconnect may be one made while the board was blind, read with the next
    // mover's hand at work on the board: its board is searched again at the next press before anything is
    // told (a board that stays unexplained still gets its one alert, at the second press or by the timer).
    const bool first_search_after_gap = gaps_.suspected() && gaps_.searches_failed() < 2;
    // Bughouse: while the partner board is blind, its captures not followed yet may hand over the piece
    // this board's gap dropped (a restart's two gaps, read in either order: daemon_bus_match_test). The
    // board is searched again when a piece comes (receive); the timer tells it if none explains it.
    const bool partner_may_hand_over = gaps_.suspected() && reserves_.partner_blind();
    if (partner_may_hand_over && !phase_.mismatch_told())
      deadlines_.set_unless_set(Wake::Mismatch, press.t_ms + cfg_.mismatch_ms);
    if (!phase_.mismatch_told() && !first_search_after_gap && !partner_may_hand_over)
      tell_mismatch("the board shows a position no sequence of legal moves explains");
    return;
  }
  if (retell_past_bound_with_the_piece_put_back(press)) return;
  // With drops, the first press after a gap told at its shortest with a longer story possible
  // (MissedGap::length_uncertain, or held with its length open), no move since: a board no move explains says
  // the story was not the one played (a longer one's last move shown at the reading, a piece dropped and
  // taken), not that the presser moved illegally (sim_gap_recovery_test's bughouse match 10: 16.Kf2 N@e4 Ke2
  // Ng5 Nc3 N@d4 unseen and 19.Kd1 on the board, told as five plies with the king from e1 to d1, and 19.Kd1's
  // press then read as no legal move). Told as a position nothing explains, once.
  if (last_gap_may_be_longer()) {
    tell_mismatch(
        "the board shows a position no legal move explains: the gap told before it may be longer than its "
        "shortest story");
    return;
  }
  illegal_move("illegal-move", presser, press.t_ms, "no-legal-move",
               "the clock was pressed but the board shows no legal move");
}

void Reconstructor::remember_replaced(const ShownMove& m) {
  if (cfg_.profile.same_piece_after_completed_illegal) illegal_.completed(m, game_.ply_count() + 1);
}

std::optional<ShownMove> Reconstructor::shown_move() const {
  auto m = IllegalMoves::on_board(game_.position(), display_, physical_);
  // A piece set from outside the board: a legal drop (or one of a piece the partner is about to hand
  // over) explains it, or it is one from nowhere, or from the other board by mistake.
  if (m && m->from == SQ_NONE && matching_successor()) return std::nullopt;
  return m;
}

void Reconstructor::illegal_move(const char* code, Color side, std::int64_t t, const std::string& reason,
                                 const std::string& detail) {
  forget_stood();  // a later irregularity: the earlier illegal move can no longer stand by itself
  std::optional<ClockTimes> clock;
  if (clock_.left_player() && clock_.latest() && clock_.latest()->present)
    clock = clock_.times(*clock_.latest());
  emit(t, illegal_.complete(cfg_.profile, code, side, game_.ply_count() + 1, game_.position(), reason, detail,
                            clock));
  // 7.5.1: the position before the illegal move stands; the players put it back on the board.
  reset_turn();
}

void Reconstructor::unseen_press_without_move(Color side, std::int64_t t) {
  forget_stood();
  const std::string who = side == WHITE ? "White" : "Black";
  AlertEvent a{"clock-without-move",
               game_.ply_count() + 1,
               side,
               who +
                   "'s clock was pressed while the board was out of sight, and the board shows the position "
                   "it had before: a press without a move (7.5.3), or moves that came back to this position "
                   "(a clock without increment does not count them). Nobody saw which: not counted as an "
                   "illegal move, no penalty proposed",
               {}};
  a.extra.push_back({"reason", "clock-without-move", false});
  a.extra.push_back({"unseen", "true", true});
  emit(t, std::move(a));
  reset_turn();
  unseen_pass_at_ = game_.ply_count();
}

void Reconstructor::check_touches(const Successor& s, std::size_t touch_count, std::int64_t t) {
  const Position& p = game_.position();
  Color us = p.side_to_move();
  int ply = game_.ply_count() + 1;
  std::string who = us == WHITE ? "White" : "Black";
  // A reserve piece resting on its square is no released piece of 4.7: FQE 19 is the rule made for it
  // (reserve-touch-move below), and a profile without touch-move lets it be placed elsewhere.
  const std::optional<Move>& released = touches_.released();
  const bool released_drop = released && released->is_drop();
  const bool drop_rule_applies = !cfg_.profile.reserve_touch_move && cfg_.profile.touch_move;
  if (released && *released != s.move && (!released_drop || drop_rule_applies))
    emit(t, AlertEvent{"released-piece-moved",
                       ply,
                       us,
                       who + " released a piece on " + square_name(released->to()) + " (" +
                           to_uci(p, *released) + ") and then played " + to_uci(p, s.move) + " (4.7)",
                       {}});
  Square same_piece_square = SQ_NONE;  // already reported by same-piece-required: no touch-move for it
  if (const auto shown = illegal_.made()) {
    emit(t, AlertEvent{"illegal-move-corrected",
                       ply,
                       us,
                       who + " showed " + describe(*shown) +
                           ", not a legal move, and corrected it before pressing the clock",
                       {}});
    // FQE 21a: the corrected move must be played with the same piece if it can move.
    if (cfg_.profile.same_piece_after_illegal)
      same_piece_square = judge_same_piece(*shown, s, "took back", "FQE 21a", t);
  }
  // FIDE 7.5.1: the move replacing a completed illegal move, 4.3 applying to it.
  if (const auto& replaced = illegal_.replaced(); replaced && replaced->ply == ply &&
                                                  color_of(replaced->shown.piece) == us &&
                                                  same_piece_square == SQ_NONE)
    same_piece_square = judge_same_piece(replaced->shown, s, "completed the illegal move", "7.5.1, 4.3", t);
  if (s.pawn_left_on_last_rank && !cfg_.profile.pawn_may_stay_on_last_rank)
    illegal_move("illegal-move", us, t, "promotion-not-completed",
                 who + " pressed the clock with the pawn still on " + square_name(s.move.to()) +
                     "; it counts as a queen (7.5.2)");
  // FQE 19: a reserve piece placed on a square must be dropped there.
  if (cfg_.profile.reserve_touch_move) {
    std::optional<Move> placed = reserves_.placed_drop(s.move, t, cfg_.scan_ms);
    if (!placed && released_drop) placed = released;
    if (placed && *placed != s.move) {
      AlertEvent a{"reserve-touch-move",
                   ply,
                   us,
                   who + " placed " + to_uci(p, *placed) + " from the reserve and then played " +
                       to_uci(p, s.move) + " (FQE 19)",
                   {}};
      a.extra.push_back({"square", square_name(placed->to()), false});
      emit(t, std::move(a));
    }
  }
  if (!cfg_.profile.touch_move) return;
  const std::optional<std::int64_t> drop_placed = s.move.is_drop() ? drop_placed_at(s.move) : std::nullopt;
  for (AlertEvent& a : touches_.judge(p, ply, display_, s.move, touch_count, same_piece_square, drop_placed,
                                      cfg_.touch_order_ms))
    emit(t, std::move(a));
}

Square Reconstructor::judge_same_piece(const ShownMove& illegal, const Successor& s, const std::string& what,
                                       const char* rule, std::int64_t t) {
  auto alert = IllegalMoves::same_piece(illegal, game_.position(), s.move, game_.ply_count() + 1, what, rule);
  if (!alert) return SQ_NONE;
  emit(t, std::move(*alert));
  return illegal.from;
}

void Reconstructor::commit(const Successor& s, std::int64_t t, ClockTimes clock, std::size_t touch_count,
                           std::size_t history_index, bool judge_touches) {
  forget_stood();  // a move from the position before the illegal one: that one was taken back (7.5.1)
  // The move shown on a board read before the one that raised a gap's suspicion (a press pending when
  // the link went down, read with the reconnect): that board, and any since, may be moves further on.
  const bool shown_before_the_reading = gaps_.suspected() && history_index < history_.size() &&
                                        history_[history_index].t_ms < gaps_.suspected_at();
  if (judge_touches) check_touches(s, touch_count, t);
  illegal_.replaced_done();  // replaced now (or the turn passed on without a judgement)
  if (s.move.is_drop() && game_.position().variant() == Variant::Bughouse) judge_drop_timing(s.move, t);
  const Position& before = game_.position();
  // Bughouse: the captured piece goes to the partner, in its colour, a promoted one as a pawn (FQE 6, 11).
  std::optional<Piece> handed;
  if (before.variant() == Variant::Bughouse) handed = handed_piece(before, s.move);
  MoveEvent ev;
  ev.uci = to_uci(before, s.move);
  ev.san = to_san(before, s.move);
  ev.clock = clock;
  Color mover = before.side_to_move();
  game_.play(s.move, clock, t);
  ev.ply = game_.ply_count();
  if (s.move.is_promotion()) reserves_.promotion_played(mover);
  // The wood after the move: in bughouse as the board showed it (the pawn may stay, FQE 11); under A.4.4
  // a pawn left on the last rank stays on the wood until the next move is completed.
  const bool keep_wood = cfg_.profile.pawn_may_stay_on_last_rank ||
                         (illegal_position_draws() && (s.pawn_left_on_last_rank || illegal_position_));
  display_ = keep_wood ? s.board : game_.position().board();
  if (!close_open_tail(t)) emit(t, ev);
  if (handed) reserves_.hand_over({*handed, t, game_.ply_count()});
  // Lifts and board states after the board first showed this move belong to the opponent's turn.
  touch_count = std::min(touch_count, touches_.size());
  std::vector<TouchTracker::Touch> carried = touches_.after(touch_count);
  // (The next mover's lifts kept aside when a gap was told came before any read since: first.)
  std::vector<TouchTracker::Touch> first = std::exchange(next_turns_lifts_, {});
  std::erase_if(first, [&](const TouchTracker::Touch& touch) {
    return color_of(touch.piece) != game_.position().side_to_move();
  });
  carried.insert(carried.begin(), first.begin(), first.end());
  std::vector<BoardState> later;
  std::size_t carry_from = history_index == SIZE_MAX ? 0 : history_index + 1;  // SIZE_MAX: carry all
  if (carry_from < history_.size())
    later.assign(history_.begin() + std::ptrdiff_t(carry_from), history_.end());
  for (auto& st : later) st.touches = st.touches > touch_count ? st.touches - touch_count : 0;
  reset_turn();
  // A lift of the new mover's own piece before the press was read is his first touch: whether "another
  // piece was in the air" was judged for the previous mover's hand, not his.
  touches_.resume(std::move(carried), game_.position().side_to_move());
  history_ = std::move(later);
  forget_mismatch();
  // A press pending when the link went down, read with the reconnect, completes the move shown before;
  // the board the reconnect read may be moves further on: still a gap, searched once it settles (also
  // when the hands have changed it since the reading).
  const bool dump_further_on = gaps_.suspected() && (board_from_dump_ || shown_before_the_reading);
  gaps_.forget_searched();
  gaps_.reset_failures();
  adopt_candidate_.reset();
  recompute_successors();
  if (dump_further_on && physical_ != display_ && !matching_successor())
    deadlines_.set_unless_set(Wake::Settle, t + cfg_.settle_ms);
  else
    gaps_.clear_suspicion();
  if (judge_illegal_position(t)) return;
  check_end(t);
  match_from_history();
}

bool Reconstructor::illegal_position_draws() const {
  return cfg_.profile.illegal_moves == IllegalMovePolicy::StandsUnlessClaimed;
}

bool Reconstructor::wood_illegal() const {
  if (!cfg_.profile.pawn_may_stay_on_last_rank)
    for (Square q = 0; q < 64; ++q)
      if (display_[q] != NO_PIECE && type_of(display_[q]) == PAWN && (rank_of(q) == 0 || rank_of(q) == 7))
        return true;
  const Position& p = game_.position();
  return (p.attackers_to(p.king_square(WHITE)) & p.pieces(BLACK)) &&
         (p.attackers_to(p.king_square(BLACK)) & p.pieces(WHITE));
}

bool Reconstructor::judge_illegal_position(std::int64_t t) {
  if (!illegal_position_draws()) return false;
  // A.4.4: an illegal position seen (two kings in check, a pawn on the last rank) is judged once the next
  // move is completed: still on the board, the game is drawn.
  const bool illegal = wood_illegal();
  if (illegal_position_ && game_.ply_count() > *illegal_position_ && illegal && !game_.outcome()) {
    illegal_position_.reset();
    Outcome o{Result::Draw, "illegal-position"};
    game_.set_outcome(o);
    emit(t, ResultEvent{o.result, o.reason});
    return true;
  }
  illegal_position_.reset();
  if (illegal) illegal_position_ = game_.ply_count();
  return false;
}

void Reconstructor::wood_made_legal() {
  // 7.5.2 carried out late: the pawn left on the last rank replaced by the piece it counts as.
  bool changed = false;
  for (Square q = 0; q < 64; ++q)
    if (display_[q] != NO_PIECE && type_of(display_[q]) == PAWN && (rank_of(q) == 0 || rank_of(q) == 7) &&
        physical_[q] != NO_PIECE && physical_[q] == game_.position().piece_on(q)) {
      display_[q] = physical_[q];
      changed = true;
    }
  if (changed) recompute_successors();
}

void Reconstructor::match_from_history() {
  // The opponent may already have moved on: the latest board that shows one of his moves is his move.
  for (std::size_t i = history_.size(); i-- > 0;) {
    if (const Successor* next = successor_for(history_[i].board)) {
      last_match_ = LastShown{*next, history_[i].touches, i};
      touches_.release_due(history_[i].t_ms + cfg_.profile.release_ms);
      break;
    }
  }
}

void Reconstructor::check_end(std::int64_t t) {
  if (auto o = game_.automatic_outcome()) {
    game_.set_outcome(*o);
    emit(t, ResultEvent{o->result, o->reason});
    return;
  }
  // Bughouse has its own repetition claim (FQE 22: four times, no drop in between) and no fifty-move rule
  // worth telling (reserves change what a position is).
  if (game_.position().variant() == Variant::Bughouse) {
    if (game_.fourfold_no_drops_claimable()) emit(t, ClaimableEvent{"fourfold-no-drops", game_.ply_count()});
    return;
  }
  if (game_.threefold_claimable()) emit(t, ClaimableEvent{"threefold", game_.ply_count()});
  if (game_.position().rule50() == 100) emit(t, ClaimableEvent{"fifty-moves", game_.ply_count()});
}

bool Reconstructor::result_gesture(std::int64_t t) {
  // DGT convention: both kings on the centre squares. Light squares (e4, d5): 1-0; dark (d4, e5): 0-1;
  // one of each: draw. Only when the kings are not simply where the game has them.
  int wn = 0, bn = 0;
  Square wk = find_piece(physical_, W_KING, &wn), bk = find_piece(physical_, B_KING, &bn);
  if (wn != 1 || bn != 1) return false;
  auto central = [](Square s) {
    return (file_of(s) == 3 || file_of(s) == 4) && (rank_of(s) == 3 || rank_of(s) == 4);
  };
  if (!central(wk) || !central(bk)) return false;
  const Position& pos = game_.position();
  if (pos.king_square(WHITE) == wk && pos.king_square(BLACK) == bk) return false;
  auto light = [](Square s) { return (file_of(s) + rank_of(s)) % 2 == 1; };
  Result r = light(wk) && light(bk) ? Result::WhiteWins
                                    : (!light(wk) && !light(bk) ? Result::BlackWins : Result::Draw);
  Outcome o{r, "board-gesture"};
  game_.set_outcome(o);
  emit(t, ResultEvent{o.result, o.reason});
  return true;
}

bool Reconstructor::unrested_without_a_clock(std::int64_t t) {
  if (!clockless() || t - last_board_event_ >= cfg_.complete_after_ms) return false;
  deadlines_.set(Wake::Settle, last_board_event_ + cfg_.complete_after_ms);
  return true;
}

void Reconstructor::on_settled(std::int64_t t) {
  // A wrong setup is worth telling even after a game has ended (the next game is being set up).
  if (physical_ != display_ && looks_like_setup(physical_) && !matching_successor())
    deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
  if (game_.outcome()) return;
  if (wait_.stage() == PressWait::Stage::Waiting) {
    resolve_pending_on_settle(t, false);
    if (wait_.pending()) return;
  }
  if (const Successor* s = matching_successor()) {
    deadlines_.clear(Wake::Mismatch);
    Position after = s->early ? extended_position() : game_.position();
    after.do_move(s->move);
    // A move that mates or stalemates is complete at once (FIDE 6.2.1, FQE 20): no press needed. Not a
    // pawn standing on the last rank in chess: the hand is about to swap it for the new piece (7.5.2 is
    // judged at the press).
    bool swap_pending = s->pawn_left_on_last_rank && !cfg_.profile.pawn_may_stay_on_last_rank;
    if (!swap_pending && (is_checkmate(after) || is_stalemate(after))) {
      commit_current(*s, t, clock_.last_times());
      return;
    }
    publish_provisional(t);
    return;
  }
  // (Not a gap's length waiting on the game's own board: counted_return.)
  if (board_matches_game() &&
      !(gaps_.length() == GapTracker::Length::Waiting && physical_ == gaps_.waiting_board())) {
    forget_mismatch();
    gaps_.clear_suspicion();
    gaps_.reset_failures();
    adopt_candidate_.reset();
    // The position before the illegal move is back: a claim upheld, or corrected (7.5.1). Not after a
    // pass, whose position is that one (a piece touched and put back is no claim).
    if (stood_.standing() && !stood_.stood().shown.is_none()) forget_stood();
    return;
  }
  if (result_gesture(t)) return;
  // An illegal move resting on the board for the release time was made (4.7), though not completed; a
  // shorter sight of one is the scanning of a hand in motion.
  if (auto shown = shown_move()) {
    if (illegal_.shown_phase() != IllegalMoves::Shown::Made)
      illegal_.resting(*shown, last_board_event_ + cfg_.profile.release_ms);
    return;
  }
  // After a reconnect or a restart: the moves made meanwhile, on the snapshot itself (later boards may
  // show a hand at work, a piece in the air: they are searched at the next press).
  if (gaps_.suspected() && board_from_dump_) {
    // Without a clock no press says the hands are done: the dump is searched once it has rested as long as
    // a move must to be complete (a promotion under way at the reading, the pawn lifted and its victim
    // taken off, the new piece not yet set down, reads as a longer story: the Millennium restart test's
    // 11.cxb7 Qxb5 12.bxa8=Q, told as seven plies whose promoted queen takes the place of one captured).
    // A board changed before is no dump: it is searched, with every scan since, once it has rested as long.
    if (unrested_without_a_clock(t)) return;
    // A press since the reading waiting to be decided decides: the presser's hand is done, the board came to
    // rest before the other side's could begin, and the board read is kept as it was read for the press's
    // search (the hall's blitz game 403 read 0.3 s late: ten plies unseen and 11.Nge2, White's press a sixth
    // of a second after the dump, which was then judged for Black's hand, his clock running, and the press
    // waited on it; Chess960 game 4 read 2 s late: 13.a4's pawn set down and pressed in the reading's burst,
    // the board read without it forgotten at rest, and a ten-ply story with a2-a4 told).
    if (!clockless() && wait_.pending() && !press_at_the_reading(wait_.press())) return;
    gaps_.read_settled();
    // A piece perhaps in the hand (a bus board polled for the first time while its game went on): the
    // hand sets it down and presses, and the press finds the moves (recover_gap), or the board rests so
    // until the mismatch time and is searched as it is then. Searched now as it is, the piece would read
    // as taken, and the move the hand then presses as illegal.
    // After a reconnect, what the board showed before and the presses read meanwhile are the better
    // evidence, and are judged with the dump as they were (the simulated gaps of
    // tests/sim/gap_recovery_test.cpp come out worse otherwise): there only a piece of the side whose clock
    // runs is waited for (his hand at work on the next move), also with the reconnect's reading pending as a
    // press (the lever moved while the board was away): that reading is what tells whose clock runs.
    if (!clockless() && !gaps_.dump_deferred()) {
      if (gaps_.first_board_dump()) {
        if (!wait_.pending() && dump_shows_a_hand_at_work()) gaps_.wait_for_first_dumps_hand(physical_);
      } else {
        gaps_.judge_held();
        if (const std::uint32_t held = dump_lacks_the_movers_pieces(physical_))
          gaps_.wait_for_piece_in_hand(held, physical_);
        else if (castling_under_way(physical_))
          gaps_.wait_for_castling(physical_);
        else if (const std::optional<Victim> victim = victim_in_the_hand(physical_))
          gaps_.wait_for_victim(victim->takers, physical_, victim->square);
      }
    }
    // (A dump judged already and waiting is not searched either: a press decided meanwhile settles it again.)
    if (!clockless() && gaps_.dump_deferred()) {
      deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
      return;
    }
    if (recover_gap(t, nullptr)) return;
    // Nothing within the search's bound, and no length to wait for: the next press may tell a gap past it.
    if (gaps_.length() == GapTracker::Length::Open) gaps_.unexplained(physical_);
  }
  if (game_.ply_count() > 0 || clock_.left_player()) {
    // (complete_after_ms: complete_two_shown has done it when the board showed the first move; a board
    // that never did is a hand at work, not two moves.)
    if (auto two = two_ply_explanation(); two && !clock_.left_player() && !clockless()) {
      // Without a clock, a settled board two moves ahead completes the first of them.
      commit_current(two->first, t, {});
      return;
    }
  }
  // After an illegal move that may stand (A.4.2), the opponent's reply under way is no mismatch either.
  if (stood_.shows_reply(physical_, true)) return;
  // Without a clock, once the board was told a mismatch: scans read late are looked into at every
  // settled board (follow_late_scans), so that the board can be followed again. So is, after a reconnect,
  // a board changed since the dump, once it has rested as long as a move must to be complete.
  if (clockless() && gaps_.suspected() && !board_from_dump_ && !phase_.mismatch_told() &&
      !unrested_without_a_clock(t) && follow_late_scans(t))
    return;
  if (clockless() && phase_.mismatch_told() && follow_late_scans(t)) return;
  // Pieces in the air on the way to a legal move are not a mismatch: every square must agree with the
  // position or with one successor, or be empty.
  for (const auto& s : successors_) {
    bool consistent = true;
    for (Square q = 0; q < 64 && consistent; ++q) {
      Piece p = physical_[q];
      consistent = p == NO_PIECE || p == display_[q] || p == s.board[q];
    }
    if (consistent) return;
  }
  deadlines_.set_unless_set(Wake::Mismatch, t + cfg_.mismatch_ms);
}

std::vector<Event> Reconstructor::advance(std::int64_t now) {
  if (adjournment()) return {};
  std::vector<Event> saved = std::move(out_);
  out_.clear();
  for (;;) {
    const auto due = wakeups().next();
    if (!due || due->t_ms > now) break;
    const std::optional<std::int64_t> next = due->t_ms;
    if (due->name == Wake::Provisional) {
      deadlines_.clear(Wake::Provisional);
      publish_provisional(*next);
    } else if (due->name == Wake::Settle) {
      deadlines_.clear(Wake::Settle);
      on_settled(*next);
    } else if (due->name == Wake::ShownIllegal) {
      illegal_.confirm_time_came(shown_move().has_value());
    } else if (due->name == Wake::PressDecision) {
      decide_pending(*next);
    } else if (due->name == Wake::PressDeadline) {
      wait_.deadline_came();
      resolve_pending_on_settle(*next, true);
    } else if (auto* early = due->name == Wake::EarlyDrop ? reserves_.early_drop_due_at(*next) : nullptr) {
      early->alerted = true;
      emit_early_drop(
          early->piece, early->placed_ms, *next, early->ply,
          early->while_blind ? "was not among the moves recovered there" : "is not completed yet");
    } else if (due->name == Wake::RestComplete) {
      deadlines_.clear(Wake::RestComplete);
      // No clock: the legal move the board has rested on this long is complete.
      if (const Successor* s = matching_successor(); s && !game_.outcome()) commit_current(*s, *next, {});
    } else if (due->name == Wake::Release) {
      // 4.7: the piece has rested on a legal square long enough to count as released there.
      const Successor* s = matching_successor();
      touches_.release_time_came(s ? std::optional<Move>(s->move) : std::nullopt);
    } else if (due->name == Wake::HeldLift) {
      deadlines_.clear(Wake::HeldLift);
      const std::optional<GapTracker::HeldLift> lift = gaps_.take_held_lift();
      if (lift && gaps_.held() && gaps_.suspected() && !game_.outcome() &&
          physical_[lift->square] != lift->before[lift->square])
        end_dump_wait(*next, lift->before);
    } else {  // Wake::Mismatch
      deadlines_.clear(Wake::Mismatch);
      // Out of sight (the link is down): what the board last showed may be half a move; its return tells.
      if (gaps_.link_down()) continue;
      // Not at rest (changed within the settle time), or a press still to be decided: judged once they are
      // done (the hall's blitz game 328 at 12x: the daemon stalled, and a reconnect's dump, Black's piece
      // set down from the hand and pressed, and White's next move pressed were read in one burst a
      // millisecond before the mismatch time).
      // (A press is decided a scan after the board's last change: looked at again a scan on, not every ms.)
      if (wait_.pending() || *next - last_board_event_ < cfg_.settle_ms) {
        deadlines_.set(Wake::Mismatch, std::max(*next + (wait_.pending() ? cfg_.scan_ms : 1),
                                                last_board_event_ + cfg_.settle_ms));
        continue;
      }
      // A dump whose piece in the air was waited for: it rested so, searched as it is (as it stood before a
      // lift still unjudged).
      if (const std::optional<GapTracker::HeldLift> lift = gaps_.held_lift();
          gaps_.dump_deferred() && gaps_.suspected() && !game_.outcome() && (lift || board_from_dump_)) {
        if (end_dump_wait(*next, lift ? lift->before : physical_)) continue;
      } else {
        gaps_.take_dump_deferral();
      }
      // A gap whose length waited for a press that did not come: the likelier story (GapTracker::Length),
      // of the board waited on (the board as it is now may show the next hand at work).
      // Unless the story a ply longer is past the search's bound: then the gap's length is not known, and
      // it is told so.
      const bool longer_unsearched = gaps_.longer_unsearched();
      if (gaps_.stop_waiting() && gaps_.suspected() && !game_.outcome()) {
        if (longer_unsearched && tell_gap_length_unknown(*next)) continue;
        gaps_.tell_likelier();
        if (recover_gap_on(*next, nullptr, gaps_.waiting_board(), false, gaps_.waiting_on_move())) continue;
      }
      if (physical_ != display_ && looks_like_setup(physical_) && !matching_successor()) {
        if (!phase_.setup_to_tell(physical_)) continue;  // that wrong setup was told already
        phase_.tell_setup(physical_);
        emit(*next, AlertEvent{"setup-error",
                               game_.ply_count(),
                               game_.position().side_to_move(),
                               setup_problem(physical_, cfg_.chess960),
                               {}});
      } else if (clockless() && !phase_.mismatch_told() && !game_.outcome() && follow_late_scans(*next)) {
        continue;
      } else if (!phase_.mismatch_told() && !game_.outcome() &&
                 (game_.ply_count() > 0 || clock_.left_player())) {
        phase_.tell_mismatch();
        emit(*next, AlertEvent{"position-mismatch",
                               game_.ply_count(),
                               game_.position().side_to_move(),
                               "the board shows a position no legal move explains",
                               {}});
      }
    }
  }
  std::vector<Event> result = std::move(out_);
  out_ = std::move(saved);
  return result;
}

std::optional<std::int64_t> Reconstructor::next_deadline() const {
  if (adjournment()) return std::nullopt;
  const auto next = wakeups().next();
  return next ? std::optional<std::int64_t>(next->t_ms) : std::nullopt;
}

const Reconstructor::BoardState* Reconstructor::state_at(std::int64_t t_ms) const {
  for (std::size_t i = history_.size(); i-- > 0;)
    if (history_[i].t_ms <= t_ms) return &history_[i];
  return nullptr;
}

Deadlines<Reconstructor::Wake> Reconstructor::wakeups() const {
  Deadlines<Wake> all = deadlines_;
  all.set(Wake::ShownIllegal, illegal_.confirm_at());
  all.set(Wake::PressDecision, wait_.decision_time());
  all.set(Wake::PressDeadline, wait_.deadline());
  all.set(Wake::EarlyDrop, reserves_.next_alert());
  all.set(Wake::Release, touches_.release_at());
  return all;
}

// ---------------------------------------------------------------------------------------------------
// Reserves set from outside (bughouse): what the partner's board hands over, and when.

std::vector<Event> Reconstructor::receive(Piece piece, std::int64_t t) {
  return collect([&] {
    Color c = color_of(piece);
    PieceType pt = type_of(piece);
    if (reserves_.repay(c, pt)) {
      // The piece was already dropped (completed before this capture): it makes good the borrowing.
      if (auto early = reserves_.take_early_drop(piece)) {
        // Dropped while the partner's board was blind: when its capture was completed is not known.
        if (!early->alerted && !early->while_blind && t > early->placed_ms + cfg_.handover_tolerance_ms)
          emit_early_drop(piece, early->placed_ms, t, early->ply, "was completed later");
      }
    } else {
      game_.add_to_pocket(c, pt, 1);
      reserves_.received(piece, t);
    }
    received_unsearched_ = true;
    refresh(t);
  });
}

std::vector<Event> Reconstructor::search_received(std::int64_t t) {
  if (!std::exchange(received_unsearched_, false)) return {};
  // A board read after a gap, searched and not explained, nothing told yet: a piece received may be one its
  // gap dropped (a restart's two gaps, the partner's told after this board's was searched:
  // daemon_bus_match_test, 7.P@b5 on A with the pawn of B's 8...dxe4). New pieces are worth a search beyond
  // the failures allowed: of the board searched, as it stands; of one that changed since, the board as it
  // was read when the gap was suspected (the players went on meanwhile: searched as it is, their moves
  // since make the gap longer, past the search's bound; from the gap's end those moves are followed).
  if (!gaps_.suspected() || gaps_.link_down() || gaps_.length() != GapTracker::Length::Open ||
      phase_.mismatch_told() || game_.outcome())
    return {};
  return collect([&] {
    gaps_.limit_failures(1);
    if (gaps_.searched(physical_)) {
      gaps_.forget_searched();
      recover_gap(t, nullptr);
    } else if (const BoardState* read = state_at(gaps_.suspected_at())) {
      gaps_.forget_searched();
      recover_gap_on(t, nullptr, read->board, false);
    }
    refresh(t);
  });
}

std::vector<Event> Reconstructor::set_partner_shown(std::optional<Piece> piece, std::int64_t t) {
  if (piece == reserves_.partner_shown()) return {};
  return collect([&] {
    reserves_.set_partner_shown(piece);
    refresh(t);
  });
}

std::vector<Event> Reconstructor::set_partner_blind(bool blind, std::int64_t t) {
  if (blind == reserves_.partner_blind()) return {};
  return collect([&] {
    // The partner is followed again and its recovered captures were handed over: a drop still borrowed is
    // reported after the usual grace for a press read late.
    reserves_.set_partner_blind(blind, t + cfg_.handover_tolerance_ms + cfg_.scan_ms + cfg_.settle_ms);
    refresh(t);
  });
}

std::optional<Piece> Reconstructor::shown_handover() const {
  if (game_.outcome() || !last_match_) return std::nullopt;
  return handed_piece(game_.position(), last_match_->successor.move);
}

std::vector<Handover> Reconstructor::take_withdrawn() { return reserves_.take_withdrawn(); }

std::vector<Event> Reconstructor::withdraw(Piece piece, std::int64_t t) {
  return collect([&] {
    Color c = color_of(piece);
    PieceType pt = type_of(piece);
    if (game_.position().pocket(c, pt) > 0)
      game_.add_to_pocket(c, pt, -1);
    else
      reserves_.borrow(c, pt);
    refresh(t);
  });
}

bool Reconstructor::switch_gap_story(const ShownMove& drop, std::int64_t t) {
  if (!missed_gap_ || !has_drops(game_.position().variant()) || drop.from != SQ_NONE) return false;
  const int first = missed_gap_->first_ply - 1;
  const int end = first + int(missed_gap_->candidates.front().size());
  for (std::size_t i = 0; i < missed_gap_->candidates.size(); ++i) {
    Game g = game_;
    if (!g.replace_plies(first, missed_gap_->candidates[i], true) ||
        g.position().board() != game_.position().board())
      continue;
    const Position& pos = g.position();
    bool explains = false;
    for (Move m : MoveList(pos))
      if (m.is_drop() && m.to() == drop.to && m.drop_type() == type_of(drop.piece) &&
          board_after(display_, pos, m) == physical_)
        explains = true;
    if (!explains) continue;
    // The partner gives back what the old story handed over and gets what the new one does.
    const Game was = std::exchange(game_, std::move(g));
    hand_over_the_difference(was, end, first, end, t);
    std::rotate(missed_gap_->candidates.begin(), missed_gap_->candidates.begin() + std::ptrdiff_t(i),
                missed_gap_->candidates.begin() + std::ptrdiff_t(i) + 1);
    recompute_successors();
    return true;
  }
  return false;
}

void Reconstructor::hand_over_the_difference(const Game& was, int was_end, int first, int now_end,
                                             std::int64_t t) {
  hand_over_the_difference(captures_handed(was, first, was_end, t), captures_handed(game_, first, now_end, t),
                           t);
}

void Reconstructor::hand_over_the_difference(const std::vector<Handover>& was, std::vector<Handover> now,
                                             std::int64_t t) {
  for (const Handover& h : was) {
    auto it = std::find_if(now.begin(), now.end(), [&](const Handover& a) { return a.piece == h.piece; });
    if (it != now.end())
      now.erase(it);
    else
      reserves_.give_back({h.piece, t, h.ply});
  }
  for (const Handover& h : now) reserves_.hand_over(h);
}

std::vector<Handover> Reconstructor::captures_handed(const Game& g, int first, int end, std::int64_t t) {
  std::vector<Move> moves;
  for (int i = first; i < end && i < g.ply_count() && !g.plies()[std::size_t(i)].jump; ++i)
    moves.push_back(g.plies()[std::size_t(i)].move);
  return captures_handed(g.position_at(first), moves, first + 1, t);
}

std::vector<Handover> Reconstructor::captures_handed(Position from, const std::vector<Move>& moves,
                                                     int first_ply, std::int64_t t) {
  std::vector<Handover> out;
  if (from.variant() != Variant::Bughouse) return out;
  for (std::size_t i = 0; i < moves.size(); ++i) {
    if (std::optional<Piece> h = handed_piece(from, moves[i])) out.push_back({*h, t, first_ply + int(i)});
    from.do_move(moves[i]);
  }
  return out;
}

bool Reconstructor::last_gap_may_be_longer() const {
  if (!has_drops(game_.position().variant()) || !missed_gap_ || phase_.mismatch_told()) return false;
  if (missed_gap_->holds_moves())
    return missed_gap_->length == MissedGap::Length::Uncounted && game_.ply_count() == held_gap_end();
  return missed_gap_->length_uncertain &&
         game_.ply_count() == missed_gap_->first_ply - 1 + int(missed_gap_->shortest_plies());
}

bool Reconstructor::blind() const {
  return gaps_.link_down() || gaps_.suspected() ||
         (missed_gap_ && (missed_gap_->length_uncertain || missed_gap_->holds_moves()) &&
          has_drops(game_.position().variant()));
}

std::vector<Handover> Reconstructor::take_handovers() { return reserves_.take_handovers(); }

void Reconstructor::set_promotion_piece(Color c, PieceType t) {
  if (reserves_.set_promotion_piece(c, t)) recompute_successors();
}

std::vector<Event> Reconstructor::end_game(const Outcome& o, std::int64_t t) {
  if (game_.outcome()) return {};
  return collect([&] {
    flush_open_tail(t);
    game_.set_outcome(o);
    wait_.clear();
    emit(t, ResultEvent{o.result, o.reason});
  });
}

void Reconstructor::refresh(std::int64_t t) {
  recompute_successors();
  if (game_.outcome()) return;
  // The successor last shown may have changed (an early drop is now a plain one) or gone.
  if (last_match_) {
    const Successor* same = nullptr;
    for (const auto& s : successors_)
      if (s.move == last_match_->successor.move && s.board == last_match_->successor.board) same = &s;
    if (same) {
      last_match_->successor = *same;
    } else {
      last_match_.reset();
      touches_.release_cancelled();
    }
  }
  if (const Successor* s = matching_successor()) {
    if (!last_match_ || last_match_->successor.move != s->move) {
      last_match_ = LastShown{*s, touches_.size(), history_.empty() ? 0 : history_.size() - 1};
      touches_.release_due(t + cfg_.profile.release_ms);
    }
    if (s->move.is_drop()) reserves_.see_drop_again(s->move, t);
    if (wait_.stage() == PressWait::Stage::Waiting) {
      resolve_pending_on_settle(t, false);
      return;
    }
  }
  // Judge the board again with the new successors, as after a board change.
  if (auto settle = deadlines_.at(Wake::Settle); !settle || *settle < t)
    deadlines_.set(Wake::Settle, t + cfg_.settle_ms);
}

std::optional<std::int64_t> Reconstructor::drop_placed_at(Move m) const {
  Piece p = make_piece(game_.position().side_to_move(), m.drop_type());
  for (const auto& st : history_)
    if (st.board[m.to()] == p) return st.t_ms;
  return std::nullopt;
}

void Reconstructor::emit_early_drop(Piece p, std::int64_t placed, std::int64_t t, int ply,
                                    const std::string& when) {
  Color c = color_of(p);
  AlertEvent a{"drop-before-partner-clock",
               ply,
               c,
               std::string(c == WHITE ? "White" : "Black") + " dropped a " + piece_name(type_of(p)) +
                   " whose capture on the partner's board " + when + " (FQE 21b)",
               {}};
  a.extra.push_back({"piece", std::string(1, piece_char(p)), false});
  a.extra.push_back({"placed", std::to_string(placed), true});
  emit(t, std::move(a));
}

void Reconstructor::judge_drop_timing(Move m, std::int64_t t) {
  const Position& pos = game_.position();
  Color us = pos.side_to_move();
  PieceType pt = m.drop_type();
  Piece piece = make_piece(us, pt);
  std::int64_t placed = drop_placed_at(m).value_or(t);
  // How many of these pieces arrived after the drop was set down: was one in the reserve by then?
  const auto [arrived_after, first_after] = reserves_.arrived_after(piece, placed);
  int ply = game_.ply_count() + 1;
  if (pos.pocket(us, pt) == 0) {
    // Completed before the capture that brings the piece: borrowed until the capture is completed.
    game_.add_to_pocket(us, pt, 1);
    reserves_.borrow(us, pt);
    if (reserves_.partner_blind() && reserves_.partner_shown() != piece) {
      reserves_.add_early_drop({piece, placed, t, ply, false, true});
      return;
    }
    std::int64_t deadline = placed + cfg_.handover_tolerance_ms;
    bool late = t > deadline + cfg_.scan_ms + cfg_.settle_ms;
    // The partner's press may be read and decided a little after this one: wait for it before telling.
    reserves_.add_early_drop(
        {piece, placed, std::max(t, deadline + cfg_.scan_ms + cfg_.settle_ms), ply, late, false});
    if (late) emit_early_drop(piece, placed, t, ply, "was not completed");
    return;
  }
  if (pos.pocket(us, pt) - arrived_after >= 1 || !first_after) return;  // in the reserve when placed
  if (*first_after > placed + cfg_.handover_tolerance_ms)
    emit_early_drop(piece, placed, t, ply, "was completed only later");
}

void Reconstructor::hidden_reserve(Color claimant, std::int64_t t) {
  // FQE 18: the player on move presses without moving to see the opponent's reserve, which must stay
  // visible. Not an illegal move.
  Color owner = ~claimant;
  const Position& p = game_.position();
  std::string reserve = reserve_letters(p, owner);
  AlertEvent a{"hidden-reserve",
               game_.ply_count() + 1,
               owner,
               std::string(claimant == WHITE ? "White" : "Black") +
                   " pressed the clock without moving: a claim to see " +
                   (owner == WHITE ? "White" : "Black") + "'s reserve, which officially holds " +
                   (reserve.empty() ? std::string("nothing") : reserve) + " (FQE 18)",
               {}};
  a.extra.push_back({"reserve", reserve, false});
  a.extra.push_back({"claimant", claimant == WHITE ? "white" : "black", false});
  emit(t, std::move(a));
}

// ---------------------------------------------------------------------------------------------------
// Arbiter input: resignation, agreement, adjournment.

std::vector<Event> Reconstructor::resign(Color c, std::int64_t t) {
  // During an adjournment too (a player who does not come back resigns): the sealed move is never played.
  if (!game_.outcome()) phase_.end_adjournment();
  return end_game(Outcome{c == WHITE ? Result::BlackWins : Result::WhiteWins, "resignation"}, t);
}

std::vector<Event> Reconstructor::declare(const Outcome& o, std::int64_t t) {
  if (!game_.outcome()) phase_.end_adjournment();
  return end_game(o, t);
}

std::vector<Event> Reconstructor::correct(const Outcome& o, std::int64_t t) {
  if (!game_.outcome()) return declare(o, t);
  return collect([&] {
    game_.set_outcome(o);
    emit(t, ResultEvent{o.result, o.reason});
  });
}

std::vector<Event> Reconstructor::agree_draw(std::int64_t t) {
  if (!game_.outcome()) phase_.end_adjournment();  // agreed during the adjournment: the sealed move is void
  return end_game(Outcome{Result::Draw, "agreement"}, t);
}

tl::expected<void, std::string> Reconstructor::adjourn(Color sealer, const std::string& sealed,
                                                       std::int64_t t, ClockTimes clock) {
  if (game_.outcome()) return tl::unexpected(std::string("the game is over"));
  if (adjournment()) return tl::unexpected(std::string("the game is already adjourned"));
  if (sealer != game_.position().side_to_move())
    return tl::unexpected(std::string(sealer == WHITE ? "White" : "Black") +
                          " is not on move: the player on move seals (Guidelines I)");
  if (sealed.empty()) return tl::unexpected(std::string("no sealed move"));
  if (!clock.known() && clock_.last()) clock = clock_.last_times();
  phase_.adjourn(Adjournment{sealer, sealed, game_.ply_count(), clock, t});
  // What was under way (a move shown, a press waiting, timers) belongs to no move now.
  reset_turn();
  forget_stood();
  wait_.clear();
  illegal_.forget_shown();
  deadlines_.clear(Wake::Settle);
  deadlines_.clear(Wake::Provisional);
  deadlines_.clear(Wake::Mismatch);  // what was told of the board is void: adjourned, it is not judged
  return {};
}

void Reconstructor::follow_adjourned(const SensorEvent& e) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, PieceLifted>) {
          if (is_ok(v.square)) physical_[v.square] = NO_PIECE;
        } else if constexpr (std::is_same_v<T, PiecePlaced>) {
          if (is_ok(v.square)) physical_[v.square] = v.piece;
        } else if constexpr (std::is_same_v<T, BoardSnapshot>) {
          physical_ = v.squares;
          have_board_ = true;
          board_from_dump_ = true;
        } else if constexpr (std::is_same_v<T, ClockReading>) {
          clock_.set_last(v);  // the clock as set for the resumption
        }
      },
      e.what);
  last_board_event_ = e.t_ms;
}

std::vector<Event> Reconstructor::resume(std::int64_t t) {
  const std::optional<Adjournment> adjourned = phase_.end_adjournment();
  if (!adjourned) return {};
  const Adjournment& a = *adjourned;
  std::vector<Event> saved = std::move(out_);
  out_.clear();
  const Position& pos = game_.position();
  auto m = parse_uci(pos, a.sealed);
  if (!m) m = parse_san(pos, a.sealed);
  const Successor* s = nullptr;
  if (m)
    for (const Successor& c : successors_)
      if (c.move == *m) s = &c;
  if (!s) {
    // I.8: an illegal or ambiguous sealed move loses.
    AlertEvent alert{"illegal-move",
                     game_.ply_count() + 1,
                     a.sealer,
                     std::string(a.sealer == WHITE ? "White" : "Black") + "'s sealed move '" + a.sealed +
                         "' is " + (m ? "not playable here" : m.error()) +
                         " (Guidelines I.8: the game is lost)",
                     {}};
    alert.extra.push_back({"reason", "sealed-move", false});
    emit(t, std::move(alert));
    game_.set_outcome(Outcome{a.sealer == WHITE ? Result::BlackWins : Result::WhiteWins, "illegal-move"});
    emit(t, ResultEvent{game_.outcome()->result, game_.outcome()->reason});
  } else {
    Successor chosen = *s;
    reset_turn();
    commit(chosen, t, a.clock, 0, 0, false);
  }
  std::vector<Event> result = std::move(out_);
  out_ = std::move(saved);
  return result;
}

// ---------------------------------------------------------------------------------------------------
// FIDE A.4.2: an illegal move that stood.

void Reconstructor::remember_stood(const ShownMove& m, const PendingPress& press) {
  if (!StoodIllegal::applies(cfg_.profile) || m.from == SQ_NONE) return;
  stood_.remember_move(game_.position(), m.from, m.to, press.clock, press.t_ms);
}

void Reconstructor::remember_stood_pass(const PendingPress& press) {
  if (!StoodIllegal::applies(cfg_.profile)) return;
  stood_.remember_pass(game_.position(), press.clock, press.t_ms);
}

void Reconstructor::stood_on_press(ClockSide pressed, const ClockReading& r, std::int64_t t) {
  stood_.drop_press();
  if (!stood_.standing() || !clock_.left_player() || game_.outcome()) return;
  Color presser = clock_.player_at(pressed);
  if (presser == game_.position().side_to_move()) return;  // the illegal mover's press, not a reply
  if (stood_.shows_reply(physical_)) {
    adopt_stood();
    return;
  }
  // The reply's last placement may come one scan after the press (see decide_pending): wait for it. A
  // board still showing the illegal move, or the position before it, is no reply: a press handing the
  // turn back, as under 7.5.1.
  if (physical_ != stood_.stood().after.board() && !board_matches_game()) stood_.hold_press({pressed, r, t});
}

void Reconstructor::stood_on_board_changed(std::int64_t t) {
  const StoodIllegal::Press press = *stood_.held_press();
  if (!stood_.standing() || t > press.t_ms + 2 * cfg_.scan_ms) {
    stood_.drop_press();
    return;
  }
  if (!stood_.shows_reply(physical_)) return;
  adopt_stood();
  on_press(press.pressed, press.reading, press.t_ms);  // now the press of the player on move
}

void Reconstructor::adopt_stood() {
  StoodIllegal::Stood s = stood_.take();
  illegal_.replaced_done();  // it stood: nothing replaces it
  const Position& before = game_.position();
  // Clock-move bughouse: a capture that stood hands its piece over like any other (FQE 6, 11).
  std::optional<Piece> handed;
  if (before.variant() == Variant::Bughouse && !s.shown.is_none() &&
      before.piece_on(s.shown.to()) != NO_PIECE)
    handed = make_piece(color_of(before.piece_on(s.shown.to())), before.captured_hand_type(s.shown.to()));
  MoveEvent ev;
  ev.uci = to_uci(before, s.shown);
  ev.san = to_long_algebraic(before, s.shown);
  ev.clock = s.clock;
  ev.illegal = true;
  // Stamped with its own press, as the ply record (and a snapshot rebuilt from it) has it.
  game_.play_illegal(s.shown, std::move(s.after), s.clock, s.t_ms);
  ev.ply = game_.ply_count();
  display_ = game_.position().board();
  emit(s.t_ms, ev);
  if (handed) reserves_.hand_over({*handed, s.t_ms, game_.ply_count()});
  // Lifts and boards since the illegal move's press were the opponent's turn: they stay, judged for him.
  touches_.hand_to(game_.position().side_to_move());
  last_match_.reset();
  touches_.forget_release();
  published_provisional_.reset();
  illegal_.forget_shown();
  forget_mismatch();
  recompute_successors();
  if (judge_illegal_position(s.t_ms)) return;
  check_end(s.t_ms);
  match_from_history();
}

const char* event_type(const Event& e) {
  switch (e.what.index()) {
    case 0:
      return "move";
    case 1:
      return "provisional";
    case 2:
      return "alert";
    case 3:
      return "claimable";
    case 4:
      return "result";
    case 5:
      return "match-result";
    default:
      return std::get<MatchPauseEvent>(e.what).paused ? "match-paused" : "match-resumed";
  }
}

}  // namespace eboard::rules

// ---------------------------------------------------------------------------------------------------
// A game without wood: the arbiter types its moves.

namespace eboard::rules {

namespace {

// Written as UCI (`e2e4`, `e7e8q`, `N@f3`): its error is the one to show, not SAN's.
bool looks_like_uci(std::string_view s) {
  auto square = [&](std::size_t i) {
    return i + 1 < s.size() && s[i] >= 'a' && s[i] <= 'h' && s[i + 1] >= '1' && s[i + 1] <= '8';
  };
  if (s.find('@') != std::string_view::npos) return true;
  return (s.size() == 4 || s.size() == 5) && square(0) && square(2);
}

}  // namespace

tl::expected<std::vector<Event>, std::string> Reconstructor::enter_move(std::string_view text,
                                                                        ClockTimes clock, std::int64_t t) {
  const Position& before = game_.position();
  if (game_.outcome())
    return tl::unexpected("the game is over (" + result_string(game_.outcome()->result) + ")");
  if (adjournment()) return tl::unexpected(std::string("the game is adjourned: resume it first"));
  std::size_t a = text.find_first_not_of(" \t\r\n"), b = text.find_last_not_of(" \t\r\n");
  std::string_view token = a == std::string_view::npos ? std::string_view() : text.substr(a, b - a + 1);
  const std::string where = std::string(before.side_to_move() == WHITE ? "White" : "Black") + "'s move " +
                            std::to_string(game_.ply_count() / 2 + 1);
  if (token.empty()) return tl::unexpected("no move given for " + where);
  auto m = parse_uci(before, token);
  if (!m) {
    auto san = parse_san(before, token);
    if (!san)
      return tl::unexpected("'" + shown_text(token) + "' is refused as " + where + ": " +
                            (looks_like_uci(token) ? m.error() : san.error()));
    m = san;
  }
  return collect([&] {
    flush_open_tail(t);
    MoveEvent ev;
    ev.uci = to_uci(before, *m);
    ev.san = to_san(before, *m);
    ev.clock = clock;
    game_.play(*m, clock, t);
    ev.ply = game_.ply_count();
    emit(t, ev);
    // The wood, which no sensor reports, stands where the game is: nothing is under way.
    reset_turn();
    display_ = physical_view(game_.position(), cfg_.profile.pawn_may_stay_on_last_rank);
    physical_ = display_;
    forget_mismatch();
    gaps_.clear_suspicion();
    adopt_candidate_.reset();
    recompute_successors();
    check_end(t);
  });
}

}  // namespace eboard::rules
