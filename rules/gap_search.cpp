// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "rules/gap_search.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "rules/movegen.hpp"

namespace eboard::rules {

namespace {

constexpr int FAR = 64;  // no piece of that kind can ever stand there

// Moves a knight needs between two squares on an empty board (breadth-first, once).
const std::array<std::array<std::uint8_t, 64>, 64>& knight_distances() {
  static const auto table = [] {
    std::array<std::array<std::uint8_t, 64>, 64> d{};
    for (Square s = 0; s < 64; ++s) {
      d[s].fill(FAR);
      d[s][s] = 0;
      std::array<Square, 64> queue{};
      int head = 0, tail = 0;
      queue[tail++] = s;
      while (head < tail) {
        Square q = queue[head++];
        for (Bitboard b = knight_attacks(q); b; b &= b - 1) {
          Square n = lsb(b);
          if (d[s][n] != FAR) continue;
          d[s][n] = std::uint8_t(d[s][q] + 1);
          queue[tail++] = n;
        }
      }
    }
    return d;
  }();
  return table;
}

bool same_line(Square a, Square b) { return file_of(a) == file_of(b) || rank_of(a) == rank_of(b); }
bool same_diagonal(Square a, Square b) {
  return std::abs(file_of(a) - file_of(b)) == std::abs(rank_of(a) - rank_of(b));
}

// Moves a pawn of `c` needs from `s` to `q` (straight advances, captures to the side), blockers ignored.
int pawn_distance(Color c, Square s, Square q) {
  int dr = relative_rank(c, q) - relative_rank(c, s);
  int df = std::abs(file_of(q) - file_of(s));
  if (dr <= 0 || df > dr) return FAR;
  // The double step from the home rank is a straight advance of two ranks in one move.
  if (relative_rank(c, s) == 1 && dr - df >= 2) return dr - 1;
  return dr;
}

// Moves a piece of type `t` needs from `s` to `q`, blockers ignored (computed once: the search asks it for
// every square to set at every node).
int computed_piece_distance(PieceType t, Square s, Square q) {
  if (s == q) return 0;
  switch (t) {
    case KNIGHT:
      return knight_distances()[s][q];
    case BISHOP:
      if ((file_of(s) + rank_of(s)) % 2 != (file_of(q) + rank_of(q)) % 2) return FAR;
      return same_diagonal(s, q) ? 1 : 2;
    case ROOK:
      return same_line(s, q) ? 1 : 2;
    case QUEEN:
      return same_line(s, q) || same_diagonal(s, q) ? 1 : 2;
    case KING:
      return std::max(std::abs(file_of(s) - file_of(q)), std::abs(rank_of(s) - rank_of(q)));
    default:
      return FAR;
  }
}

// The squares a piece of a colour and type can reach a square from, blockers ignored (its distance is not
// FAR): by colour, type and the square.
using ReachTable = std::array<std::array<std::array<Bitboard, 64>, PIECE_TYPE_NB>, 2>;

// By kind, then the squares: a kind is a piece type, the colour mattering only for a pawn, whose black kind
// takes the place of no type (NO_PIECE_TYPE). 28 KiB, within a processor's first cache beside the search's
// other data where a table by colour and type was twice that (the search reads it at every position).
using DistanceTable = std::array<std::array<std::array<std::uint8_t, 64>, 64>, PIECE_TYPE_NB>;
constexpr std::size_t distance_kind(Color c, PieceType t) {
  return t == PAWN && c == BLACK ? std::size_t(NO_PIECE_TYPE) : std::size_t(t);
}

const DistanceTable& piece_distances() {
  static const auto table = [] {
    auto d = std::make_unique<DistanceTable>();
    for (Color c : {WHITE, BLACK})
      for (int t = PAWN; t < PIECE_TYPE_NB; ++t)
        for (Square s = 0; s < 64; ++s)
          for (Square q = 0; q < 64; ++q)
            (*d)[distance_kind(c, PieceType(t))][s][q] = std::uint8_t(
                t == PAWN ? pawn_distance(c, s, q) : computed_piece_distance(PieceType(t), s, q));
    return d;
  }();
  return *table;
}

// The squares from which a piece of a colour and type reaches a square in at most `most` moves.
ReachTable squares_within(int most) {
  ReachTable r{};
  const DistanceTable& d = piece_distances();
  for (Color c : {WHITE, BLACK})
    for (std::size_t t = PAWN; t < PIECE_TYPE_NB; ++t)
      for (Square q = 0; q < 64; ++q)
        for (Square s = 0; s < 64; ++s)
          if (d[distance_kind(c, PieceType(t))][s][q] <= most) r[c][t][q] |= square_bb(s);
  return r;
}

const ReachTable& piece_reach() {
  static const auto table = std::make_unique<ReachTable>(squares_within(FAR - 1));
  return *table;
}

// Those one move away (or there already).
const ReachTable& piece_near() {
  static const auto table = std::make_unique<ReachTable>(squares_within(1));
  return *table;
}

// The dead ends of a search: the keys of positions (Searcher::memo_key) known to reach nothing, in a table of
// fixed size that forgets the oldest of a bucket when one fills (a cache: forgetting costs only a search
// again, never an answer). The search asks it at every node: a table that grew with the search spent most
// of the search's time waiting for memory, and one that fits the processor's caches does not.
class KeySet {
 public:
  // The table is made at the first dead end: most searches end at a ply or two and need none.
  explicit KeySet(int bits) : size_(std::size_t(1) << bits), mask_(size_ - kWays) {}
  bool contains(Key k) const {
    if (k == EMPTY || keys_ == nullptr) return false;
    const Key* bucket = &keys_[slot(k)];
    for (std::size_t i = 0; i < kWays; ++i)
      if (bucket[i] == k) return true;
    return false;
  }
  // Where a look-up of `k` reads (none before the table is made): for asking the processor for it early.
  // (A function that only prefetched would be found to have no effect and its calls dropped.)
  const Key* bucket(Key k) const { return keys_ == nullptr ? nullptr : &keys_[slot(k)]; }
  // Room for 2^bits keys from now on (the keys kept).
  void grow(int bits) {
    if (std::size_t(1) << bits <= size_) return;
    const std::vector<Key> kept(keys_, keys_ == nullptr ? keys_ : keys_ + size_);
    storage_.clear();
    keys_ = nullptr;
    size_ = std::size_t(1) << bits;
    mask_ = size_ - kWays;
    for (Key k : kept) insert(k);
  }
  void insert(Key k) {
    if (k == EMPTY) return;
    if (keys_ == nullptr) allocate();
    Key* bucket = &keys_[slot(k)];
    for (std::size_t i = 0; i < kWays; ++i)
      if (bucket[i] == k || bucket[i] == EMPTY) {
        bucket[i] = k;
        return;
      }
    for (std::size_t i = kWays - 1; i > 0; --i) bucket[i] = bucket[i - 1];  // the oldest goes
    bucket[0] = k;
  }

 private:
  static constexpr Key EMPTY = 0;  // a key of 0 is never remembered (one position in 2^64)
  static constexpr std::size_t kWays = 4;
  // A bucket (32 bytes) within one cache line of 64: a look-up that misses the caches waits for one line.
  static constexpr std::size_t kLine = 64 / sizeof(Key);
  void allocate() {
    storage_.assign(size_ + kLine, EMPTY);
    const auto misalign = reinterpret_cast<std::uintptr_t>(storage_.data()) % 64 / sizeof(Key);
    keys_ = storage_.data() + (misalign == 0 ? 0 : kLine - misalign);
  }
  std::size_t slot(Key k) const { return std::size_t(k ^ (k >> 29)) * kWays & mask_; }
  std::vector<Key> storage_;
  Key* keys_ = nullptr;  // in storage_, at a cache line's start
  std::size_t size_;
  std::size_t mask_;
};

// 2^16 keys (512 KiB, buckets of four) for the default work bound: enough for the dead ends of a 10-ply
// search that spends it, as few forgotten as in a table that grew without end (bench_gap_recovery: the same
// answers). A search allowed more work grows its table to 2^18 keys (2 MiB) once it has spent the default
// bound: one that needed 7.7 million positions with 2^16 keys needs 4.5 million. (2^20 keys saved a tenth
// of that again, at a tenth more time a position: the table no longer fits the processor's caches.)
constexpr int kDeadEndBits = 16;
constexpr int kDeadEndBitsPastTheBound = 18;
constexpr std::uint64_t kDefaultWork = GapQuery{}.max_nodes;

// The work bound (GapQuery::max_nodes) counts the moves the search skips before making them
// (may_keep_within_reach) this many to a position: about what each costs beside a position made, taken back
// and bounded (perf), so that the bound stays one of time.
constexpr std::uint64_t kSkipsPerNode = 8;

class Searcher {
 public:
  explicit Searcher(const GapQuery& q) : q_(q), pos_(q.from) {
    for (Square s = 0; s < 64; ++s)
      if (q.board[s] != NO_PIECE) {
        ++target_count_[color_of(q.board[s])];
        target_bb_[color_of(q.board[s])][type_of(q.board[s])] |= square_bb(s);
        shown_kind_bb_[type_of(q.board[s])] |= square_bb(s);
        shown_bb_[color_of(q.board[s])] |= square_bb(s);
      }
    generated_.resize(std::size_t(q.max_plies + 1) * MAX_MOVES);
    child_memos_.resize(generated_.size());
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (auto& k : depth_keys_) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      k = x;
    }
  }

  GapResult run() {
    for (int d = std::max(1, q_.min_plies); d <= q_.max_plies && !result_.exhausted; ++d) {
      const Color after = d % 2 == 0 ? q_.from.side_to_move() : ~q_.from.side_to_move();
      if (q_.side_to_move && *q_.side_to_move != after) continue;
      line_.clear();
      dfs(d);
      if (!result_.sequences.empty()) {
        result_.plies = d;
        break;
      }
    }
    result_.nodes = nodes_ + skipped_ / kSkipsPerNode;
    if (result_.sequences.empty()) result_.plies = 0;
    // The work bound ran out in the depth that found sequences: every shorter depth was searched whole, so
    // the length is certain and only the list is short of some sequences (as when it is cut at
    // max_candidates).
    if (result_.exhausted && !result_.sequences.empty()) {
      result_.exhausted = false;
      result_.truncated = true;
    }
    return std::move(result_);
  }

 private:
  // Moves a piece of `c` of type `t` needs from `s` to `q`, blockers ignored.
  int distance(Color c, PieceType t, Square s, Square q) const { return dist_[distance_kind(c, t)][s][q]; }

  bool may_castle(Color c) const {
    return pos_.can_castle(c == WHITE ? (WHITE_OO | WHITE_OOO) : (BLACK_OO | BLACK_OOO));
  }

  // The fewest moves of `c` that can put a piece showing `want` on `q`.
  int placement_cost(Color c, Piece want, Square q) const {
    PieceType t = type_of(want);
    int best = FAR;
    if (has_drops(pos_.variant())) {
      bool pawn_rank_ok = t != PAWN || (rank_of(q) != 0 && rank_of(q) != 7);
      if (pawn_rank_ok && pos_.pocket(c, t) > 0) return 1;
      // Crazyhouse: a piece of that type captured on the way, then dropped: the drop is the one move this
      // square needs, since the capture may be the move that sets another (a knight setting its square by
      // taking the queen it then drops).
      if (pawn_rank_ok && pos_.variant() == Variant::Crazyhouse && t != KING) best = 1;
    }
    const bool last_rank = relative_rank(c, q) == 7;
    // q differs from the board: no piece that shows `want` stands there, one a move away is the nearest.
    const Bitboard pieces = pos_.pieces(c, t);
    if (pieces & near_[c][t][q]) return 1;
    for (Bitboard b = pieces & reach_[c][t][q]; b; b &= b - 1)
      best = std::min(best, distance(c, t, lsb(b), q));
    if (t == KING || t == ROOK) {
      if (may_castle(c))
        for (bool king_side : {true, false}) {
          Square dest =
              t == KING ? Position::castle_king_to(c, king_side) : Position::castle_rook_to(c, king_side);
          // Castled, then on (a king castled and stepping to the corner: two moves, not three).
          best = std::min(best, 1 + distance(c, t, dest, q));
        }
    }
    if (best <= 1) return best;
    // Promotion: the pawn reaches its last rank (the promoting move sets the new piece down there); the
    // most advanced pawn is the nearest. A pawn dropped on the rank before the last (one of the pocket's, or
    // in crazyhouse one taken on the way) promotes a move later.
    auto promoting = [&] {
      int moves = FAR;
      if (const Bitboard pawns = pos_.pieces(c, PAWN)) {
        const int rank = relative_rank(c, c == WHITE ? Square(63 - __builtin_clzll(pawns)) : lsb(pawns));
        const int to_last = 7 - rank - (rank == 1 ? 1 : 0);
        moves = last_rank ? std::max(1, to_last) : to_last + 1;
      }
      if (has_drops(pos_.variant()) && (pos_.pocket(c, PAWN) > 0 || pos_.variant() == Variant::Crazyhouse))
        moves = std::min(moves, last_rank ? 2 : 3);
      return moves;
    };
    if (t == PAWN && q_.pawn_may_stay_on_last_rank) {
      // A promoted piece stands on the board as the pawn it was (FQE 11) wherever it goes: one already
      // promoted, or a pawn promoted on the way and gone on from its last rank.
      for (Bitboard b = pos_.pieces(c) & pos_.promoted(); b; b &= b - 1) {
        Square s = lsb(b);
        best = std::min(best, distance(c, type_of(pos_.piece_on(s)), s, q));
      }
      best = std::min(best, promoting());
    }
    if (t != PAWN && t != KING && (q_.promotion_types & (1u << t))) best = std::min(best, promoting());
    return best;
  }

  // Whether one castling of `c` may count as two moves in the bounds below: it sets the king and moves a
  // rook, one move that can be a step of the king's path and of a rook's (a rook that goes on, or is
  // taken later, included). Only when the board shows the king where it is not yet.
  bool castling_counts_twice(Color c, Bitboard diff) const {
    return may_castle(c) && (diff & target_bb_[c][KING]) != 0;
  }

  // The squares whose piece differs from the board's.
  Bitboard unshown() const {
    // A square whose piece differs in colour, or in kind.
    Bitboard diff = (pos_.pieces(WHITE) ^ shown_bb_[WHITE]) | (pos_.pieces(BLACK) ^ shown_bb_[BLACK]);
    for (int t = PAWN; t <= KING; ++t) diff |= pos_.pieces(PieceType(t)) ^ shown_kind_bb_[std::size_t(t)];
    if (q_.pawn_may_stay_on_last_rank && pos_.promoted()) {
      for (Bitboard b = diff & pos_.promoted(); b; b &= b - 1) {
        Square s = lsb(b);
        if (q_.board[s] == make_piece(color_of(pos_.piece_on(s)), PAWN)) diff &= ~square_bb(s);
      }
    }
    return diff;
  }

  // How much room within_reach's bounds leave the side on move (FAR: the bound asks nothing, as with drops).
  struct Spare {
    int placing = FAR;        // the moves it has left beyond those its squares to set need
    int leaving = FAR;        // the moves it has left beyond those its pieces off their squares need
    int their_leaving = FAR;  // the same of the opponent's
    int setting = FAR;        // the plies left beyond those the squares to set and the pieces to lose need
    bool taking = false;      // the opponent's pieces it must take need every move it has left
    Bitboard off = 0;         // the squares whose piece differs from the board's (unshown())
  };

  // Whether `plies` more moves (the side to move first) can turn the position into the board. Lower bounds,
  // blockers ignored: every square of a side's piece that is not shown needs a move of that side to set
  // it there (as many as the nearest such piece needs); every piece of a side not on its square must move
  // or be taken; the material must match with the captures and drops left. When it can, `spare` (if given)
  // says which of the bounds the side on move meets with no move to spare.
  bool within_reach(int plies, Spare* spare = nullptr) const {
    std::array<int, 2> moves{};
    Color us = pos_.side_to_move();
    moves[us] = (plies + 1) / 2;
    moves[~us] = plies / 2;
    const Bitboard diff = unshown();
    if (spare) spare->off = diff;
    std::array<int, 2> need{}, castle_bonus{}, castle_twice{}, lost{};
    for (Color c : {WHITE, BLACK}) {
      castle_bonus[c] = may_castle(c) ? 1 : 0;  // a castling takes two pieces off their squares
      castle_twice[c] = castling_counts_twice(c, diff) ? 1 : 0;
      lost[c] = popcount(pos_.pieces(c)) - target_count_[c];  // pieces the opponent must take (net of drops)
      if (lost[c] > moves[~c]) return false;
      if (lost[c] < 0 && (!has_drops(pos_.variant()) || -lost[c] > moves[c])) return false;
      // Pieces off their squares: each moves, or is taken (in chess exactly `lost` are taken).
      int off = popcount(diff & pos_.pieces(c));
      int taken = has_drops(pos_.variant()) ? moves[~c] : std::max(0, lost[c]);
      if (off - taken > moves[c] + castle_bonus[c]) return false;
      if (spare)
        (c == us ? spare->leaving : spare->their_leaving) = moves[c] + castle_bonus[c] - (off - taken);
    }
    int targets = 0;
    for (Bitboard b = diff; b; b &= b - 1) {
      Square s = lsb(b);
      Piece want = q_.board[s];
      if (want == NO_PIECE) continue;
      ++targets;
      Color c = color_of(want);
      int cost = placement_cost(c, want, s);
      if (cost >= FAR) return false;
      need[c] += cost;
      if (need[c] > moves[c] + castle_twice[c]) return false;
    }
    // Pieces to be taken. One taken where it stands, on a square where the board shows a piece of the
    // taker, may be taken by the move that sets that piece (so may the pawn an en-passant capture can
    // take now). Any other either moves first (a move that sets nothing the board shows: the piece is
    // lost) or is taken where it stands by a move that sets nothing the board shows (the square shows no
    // piece of the taker). One move can serve two of them (a piece's first move taking one that never
    // moved): at least half as many moves that set nothing, beside one move per square still to be set.
    int unexplained_losses = 0;
    const Square ep = pos_.ep_square();
    for (Color c : {WHITE, BLACK}) {
      if (lost[c] <= 0) continue;
      Bitboard free = pos_.pieces(c) & shown_bb_[~c];
      if (ep != SQ_NONE && c != us) {
        const Bitboard beside = (rank_of(ep) < 7 ? rank_bb(rank_of(ep) + 1) : 0) |
                                (rank_of(ep) > 0 ? rank_bb(rank_of(ep) - 1) : 0);
        free |= pos_.pieces(c, PAWN) & file_bb(file_of(ep)) & beside;
      }
      unexplained_losses += std::max(0, lost[c] - popcount(free));
    }
    const int slack =
        plies + castle_twice[WHITE] + castle_twice[BLACK] - targets - (unexplained_losses + 1) / 2;
    // With drops too: a drop sets one square, and a piece of `c` the board no longer shows was taken (drops
    // only add to a side's pieces, so `lost` of them at least). Of the bounds of single moves (`spare`) only
    // setting and taking are told there: the others count a piece's steps, and a drop's square is anywhere.
    const bool drops = has_drops(pos_.variant());
    if (spare && drops) *spare = Spare{.off = diff};
    if (spare && slack >= 0) {
      if (!drops)
        spare->placing = q_.pawn_may_stay_on_last_rank ? FAR : moves[us] + castle_twice[us] - need[us];
      spare->setting = slack;
      spare->taking = lost[~us] > 0 && lost[~us] == moves[us];
    }
    return slack >= 0;
  }

  // Whether the move `m` (legal here) can leave a position within_reach keeps, by the room its bounds leave
  // the side on move (`spare`, from within_reach here). What the move does to each bound is told before it
  // is made; one it would leave short is a sound cut (the moves skipped are those within_reach would cut
  // after making them: the answers do not change, only the work). A piece that stood where the board shows
  // it leaves one more square to set.
  // - placing: the bound is the sum, over the squares to set, of the nearest piece's distance; a move
  //   takes one of the side's moves and brings its piece at most one nearer to each square to set of its
  //   kind (pawn moves, promotions and castling are not told);
  // - leaving: a piece that stands where the board shows it and moves where it does not adds one to the
  //   pieces off their squares, and one that moves and is still off its square takes a move: the moves
  //   left beyond that bound must cover it (castling always may). A piece of the opponent's taken where
  //   the board shows it leaves the opponent one piece fewer to lose and none fewer off its square;
  // - setting: a move takes a ply, sets the square it reaches if the board shows its piece there, adds
  //   the square it leaves and that of a piece it takes where the board shows it to those to set, and
  //   may leave one piece fewer to lose unexplained when it takes, goes where the board shows a piece of
  //   the opponent's (a piece of its own that must be lost can be taken there) or makes an en-passant
  //   victim (a pawn's double step); castling and en passant are not told;
  // - taking: the move must take a piece.
  // With drops only setting and taking are told (within_reach); a drop sets its square or not.
  bool may_keep_within_reach(Move m, const Spare& spare) const {
    if (m.is_drop()) {
      // A drop takes nothing, and adds a piece that must stand where the board shows it or be taken: one
      // that does not set its square leaves the setting bound a ply shorter, and its losses no fewer.
      const bool sets = q_.board[m.to()] == make_piece(pos_.side_to_move(), m.drop_type());
      return !spare.taking && (sets || spare.setting >= 1);
    }
    if (m.kind() == Move::CASTLING) return true;
    const Piece moved = pos_.piece_on(m.from());
    const Color us = color_of(moved);
    const Piece set = m.is_promotion() ? make_piece(us, m.promotion_type()) : moved;
    const Piece shown = q_.board[m.to()];
    // FQE 11: a promoted piece (one promoting now too) sets a square that shows its side's pawn.
    const bool sets = shown == set || (q_.pawn_may_stay_on_last_rank && shown == make_piece(us, PAWN) &&
                                       (m.is_promotion() || (pos_.promoted() & square_bb(m.from())) != 0));
    const bool was_off = q_.board[m.from()] != moved;
    const int unsets = was_off ? 0 : 1;  // the square it leaves is one more to set
    if (spare.leaving - 1 + (was_off ? 1 : 0) - (sets ? 0 : 1) < 0) return false;
    if (spare.taking && pos_.empty(m.to()) && m.kind() != Move::EN_PASSANT) return false;
    const Piece taken = pos_.piece_on(m.to());
    const bool takes_shown = taken != NO_PIECE && shown == taken;
    if (takes_shown && spare.their_leaving < 1) return false;
    if (spare.setting < 2 && m.kind() != Move::EN_PASSANT) {
      const int added = unsets - (sets ? 1 : 0) + (takes_shown ? 1 : 0);
      const bool may_free = taken != NO_PIECE || (shown != NO_PIECE && color_of(shown) != us) ||
                            (type_of(moved) == PAWN && std::abs(rank_of(m.to()) - rank_of(m.from())) == 2);
      if (spare.setting - 1 - added + (may_free ? 1 : 0) < 0) return false;
    }
    if (spare.placing < 1 + unsets && m.kind() == Move::NORMAL && type_of(moved) != PAWN &&
        spare.placing - 1 - unsets + goals_brought_nearer(m, us, type_of(moved), 1 + unsets - spare.placing) <
            0)
      return false;
    return true;
  }

  // The squares a move may leave and reach for the bounds to keep it (castlings aside): every move
  // may_keep_within_reach keeps and within_reach does not surely cut a ply later, so that the moves not
  // generated are only some of those the search would cut.
  struct Squares {
    Bitboard from = ~Bitboard(0);
    Bitboard to = ~Bitboard(0);
  };
  Squares squares_kept(const Spare& spare) const {
    Squares s;
    const Color us = pos_.side_to_move();
    // taking: onto a piece of the opponent's; setting: onto a square the board shows a piece on, or one of
    // the opponent's, or a pawn's double step.
    if (spare.taking) s.to = pos_.pieces(~us);
    if (spare.setting <= 0)
      s.to &= shown_bb_[WHITE] | shown_bb_[BLACK] | pos_.pieces(~us) | rank_bb(us == WHITE ? 3 : 4);
    // An en-passant capture is asked neither (and is generated if its square is kept).
    if (pos_.ep_square() != SQ_NONE) s.to |= square_bb(pos_.ep_square());
    const Bitboard off = spare.off;
    // placing: a piece (not a pawn) of a kind with no square still to set moves no nearer to one: with no
    // move to spare none moves, with one none that stands where the board shows it.
    if (spare.placing <= 1)
      for (PieceType t : {KNIGHT, BISHOP, ROOK, QUEEN, KING})
        if (!(target_bb_[us][t] & ~pos_.pieces(us, t)))
          s.from &= ~(pos_.pieces(us, t) & (spare.placing <= 0 ? ~Bitboard(0) : ~off));
    // leaving, none to spare: a piece off its square set where the board shows it.
    if (spare.leaving <= 0) {
      s.from &= off;
      s.to &= shown_bb_[us];
    }
    // A pawn that stands where the board shows it, and no other pawn of its side could ever stand there
    // (none behind it within reach): the square it leaves could never be set again.
    if (!has_drops(pos_.variant()) && !q_.pawn_may_stay_on_last_rank) {
      const Bitboard pawns = pos_.pieces(us, PAWN);
      for (Bitboard b = pawns & ~off & shown_bb_[us]; b; b &= b - 1) {
        const Square at = lsb(b);
        if (!(reach_[us][PAWN][at] & pawns & ~square_bb(at))) s.from &= ~square_bb(at);
      }
    }
    return s;
  }

  // How many squares the board shows a piece of its kind on that none of its kind stands on yet the move
  // (not a pawn's) brings its piece nearer to, counted up to `enough`.
  int goals_brought_nearer(Move m, Color us, PieceType t, int enough) const {
    int n = 0;
    for (Bitboard b = target_bb_[us][t] & ~pos_.pieces(us, t); b && n < enough; b &= b - 1) {
      const Square goal = lsb(b);
      if (distance(us, t, m.to(), goal) < distance(us, t, m.from(), goal)) ++n;
    }
    return n;
  }
  bool brings_nearer(Move m, Color us, PieceType t) const { return goals_brought_nearer(m, us, t, 1) > 0; }

  // How likely the move (legal here) is to be on a way to the board, 0 likeliest (below kPromises): it sets
  // a piece where the board shows it; it brings a piece nearer to a square the board shows it on (pawn
  // moves and castlings included); it takes; anything else.
  std::uint8_t promise(Move m) const {
    if (m.is_drop()) return q_.board[m.to()] == make_piece(pos_.side_to_move(), m.drop_type()) ? 0 : 1;
    if (m.kind() == Move::CASTLING) return 1;
    const Piece moved = pos_.piece_on(m.from());
    const Color us = color_of(moved);
    if (q_.board[m.to()] == (m.is_promotion() ? make_piece(us, m.promotion_type()) : moved)) return 0;
    const PieceType t = type_of(moved);
    if (t == PAWN || brings_nearer(m, us, t)) return 1;
    return pos_.empty(m.to()) ? 3 : 2;
  }
  static constexpr std::uint8_t kPromises = 4;

  bool board_reached() const { return unshown() == 0; }

  void record(const std::vector<Move>& sequence) {
    if (result_.sequences.size() < q_.max_candidates)
      result_.sequences.push_back(sequence);
    else
      result_.truncated = true;
  }

  // A position counted as searched (the work bound's count): false once the bound is spent.
  bool count_position() {
    if (++nodes_ + skipped_ / kSkipsPerNode > q_.max_nodes) {
      result_.exhausted = true;
      return false;
    }
    if (nodes_ == kDefaultWork) dead_ends_.grow(kDeadEndBitsPastTheBound);
    return true;
  }

  // The key a position is remembered by (a dead end, a transposition's endings): its own, with the plies
  // left and the pieces that are promoted, which Position's key leaves out (drop variants): a promoted
  // piece goes to the pocket as a pawn and stands on the board as its pawn (FQE 11), so two positions that
  // differ only there may reach different boards. (A move's key_after is such a key only where nothing is
  // promoted before it: a plain move or a drop promotes nothing.)
  Key memo_key(int plies) const {
    Key k = pos_.key() ^ depth_keys_[std::size_t(plies)];
    if (Bitboard promoted = pos_.promoted()) {
      promoted = (promoted ^ (promoted >> 30)) * 0xbf58476d1ce4e5b9ULL;
      promoted = (promoted ^ (promoted >> 27)) * 0x94d049bb133111ebULL;
      k ^= promoted ^ (promoted >> 31);
    }
    return k;
  }

  // Whether the position after a move, of key `memo` with the plies left after it (0: not known before the
  // move is made), is a dead end: counted as its search would count it, and not made.
  bool known_dead_end(Key memo) {
    if (memo == 0 || !dead_ends_.contains(memo)) return false;
    count_position();
    return true;
  }

  // `looked_up`: the position's dead end was looked up before its move was made (known_dead_end).
  void dfs(int plies, bool looked_up = false) {
    if (!count_position()) return;
    if (plies == 0) {
      if (board_reached()) record(line_);
      return;
    }
    // The dead ends first: a look-up (its bucket fetched when the move was generated, below) costs less than
    // the bound, which a third of the positions searched meet there (bench_gap_recovery: a tenth less time
    // at 9 and 10 plies, the same answers); most plain moves into one were not even made (known_dead_end).
    // A position the bound cuts is not remembered (it would only push out of the table the dead ends that
    // took a search to find).
    const Key memo = memo_key(plies);
    if (!looked_up && dead_ends_.contains(memo)) return;
    Spare spare;
    if (!within_reach(plies, &spare)) return;
    if (auto known = reached_.empty() ? reached_.end() : reached_.find(memo); known != reached_.end()) {
      // A transposition of a position already searched to this depth: its endings, not its search again
      // (the moves that lead nowhere from it would be tried once more for every order of the moves before).
      const std::size_t prefix = line_.size();
      const Endings endings = known->second;
      for (std::size_t i = endings.first; i < endings.last; ++i) {
        const std::vector<Move>& found = result_.sequences[i];
        line_.insert(line_.end(), found.begin() + std::ptrdiff_t(endings.from), found.end());
        record(line_);
        line_.resize(prefix);
        if (result_.truncated) return;
      }
      return;
    }
    const std::size_t found_before = result_.sequences.size();
    auto descend = [&](Move m, bool looked_up_after) {  // m made
      line_.push_back(m);
      dfs(plies - 1, looked_up_after);
      line_.pop_back();
      pos_.undo_move(m);
      return !(result_.exhausted || result_.truncated);
    };
    auto visit = [&](Move m, bool looked_up_after) {
      pos_.do_move(m);
      return descend(m, looked_up_after);
    };
    // The moves to try: the legal moves the bounds may keep (those squares_kept rules out are not even
    // generated), in this depth's own room.
    Move* const moves = &generated_[std::size_t(plies) * MAX_MOVES];
    std::size_t n = 0;
    const Squares keepable = squares_kept(spare);
    for (Move *m = moves, *end = generate_legal(pos_, moves, keepable.from, keepable.to); m != end; ++m) {
      if (m->is_promotion() && !(q_.promotion_types & (1u << m->promotion_type()))) continue;
      if (!may_keep_within_reach(*m, spare)) {
        ++skipped_;
        continue;
      }
      moves[n++] = *m;
    }
    // The dead ends these moves' positions will look up, asked for now: each is searched in turn, and a
    // look-up that waited for memory was a sixth of the search's time (perf). Where the key is known before
    // the move is made, so is a dead end: such a move is not made (known_dead_end).
    Key* const memos = &child_memos_[std::size_t(plies) * MAX_MOVES];
    for (std::size_t i = 0; i < n; ++i) {
      const Key after = pos_.key_after(moves[i]) ^ depth_keys_[std::size_t(plies - 1)];
      if (const Key* b = dead_ends_.bucket(after)) __builtin_prefetch(b);
      memos[i] = plies > 1 && pos_.key_after_is_exact(moves[i]) && !pos_.promoted() ? after : 0;
    }
    if (q_.max_candidates == 1) {
      // Whether any story exists: the likeliest moves first (promise), so that one is met early (a probe a
      // ply longer that spent the whole work bound in the order of the move generator finds one in a tenth
      // of it, bench_gap_recovery). Where none exists every move is tried all the same: within the work
      // bound the answer is that of any order.
      std::array<std::uint8_t, MAX_MOVES> stage;  // NOLINT(cppcoreguidelines-pro-type-member-init)
      for (std::size_t i = 0; i < n; ++i) stage[i] = promise(moves[i]);
      for (std::uint8_t level = 0; level < kPromises; ++level)
        for (std::size_t i = 0; i < n; ++i)
          if (stage[i] == level &&
              (known_dead_end(memos[i]) ? result_.exhausted : !visit(moves[i], memos[i] != 0)))
            return;
    } else {
      // Every story: moves that give up a castling right (a king or rook moved and put back) come last, so
      // that when the candidates are cut at max_candidates, the first ones keep the rights the players may
      // still use.
      // The moves put off are kept at the front of the list, over those already searched.
      const std::uint8_t rights = pos_.castling_rights();
      std::size_t deferred = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const Move m = moves[i];
        if (known_dead_end(memos[i])) {
          if (result_.exhausted) return;
          continue;
        }
        pos_.do_move(m);
        if (m.kind() != Move::CASTLING && pos_.castling_rights() != rights) {
          pos_.undo_move(m);
          moves[deferred++] = m;
          continue;
        }
        if (!descend(m, memos[i] != 0)) return;
      }
      for (std::size_t i = 0; i < deferred; ++i)
        if (!visit(moves[i], false)) return;
    }
    if (result_.sequences.size() == found_before) {
      dead_ends_.insert(memo);
      return;
    }
    // Every ending from here was found (a search cut short returned above): kept for its transpositions.
    reached_.emplace(memo, Endings{found_before, result_.sequences.size(), line_.size()});
  }

  const GapQuery& q_;
  const DistanceTable& dist_ = piece_distances();
  const ReachTable& reach_ = piece_reach();
  const ReachTable& near_ = piece_near();
  Position pos_;
  std::array<int, 2> target_count_{};
  std::array<std::array<Bitboard, PIECE_TYPE_NB>, 2> target_bb_{};
  std::array<Bitboard, 2> shown_bb_{};  // the squares the board shows a piece of each side on
  std::array<Bitboard, PIECE_TYPE_NB> shown_kind_bb_{};  // and of each kind, either side's
  std::array<Key, 64> depth_keys_{};
  KeySet dead_ends_{kDeadEndBits};
  // The positions (with the plies left) that reach the board, with every sequence of moves from each: the
  // sequences found from it, result_.sequences[first, last), from their move `from` on (each begins with
  // the moves that led to it).
  struct Endings {
    std::size_t first, last, from;
  };
  std::unordered_map<Key, Endings> reached_;
  std::vector<Move> line_;
  // Room for the moves generated at each number of plies left, made once (a MoveList made at every position
  // sets its 512 moves to none first).
  std::vector<Move> generated_;
  // The dead-end keys of those moves' positions, where known before they are made (0 where not).
  std::vector<Key> child_memos_;
  std::uint64_t nodes_ = 0;
  std::uint64_t skipped_ = 0;  // moves not made (may_keep_within_reach): work too, a fraction of a node's
  GapResult result_;
};

}  // namespace

namespace {

// Everything the answer depends on, so that equal fingerprints mean equal answers.
std::string fingerprint(const GapQuery& q) {
  std::string f = q.from.fen(true);
  f += '|' + std::to_string(int(q.from.variant())) + '|' + std::to_string(q.from.key()) + '|';
  for (Piece p : q.board) f += char('A' + int(p));
  f += '|' + std::to_string(q.pawn_may_stay_on_last_rank) + std::to_string(q.promotion_types) + '|' +
       (q.side_to_move ? std::to_string(int(*q.side_to_move)) : std::string("-")) + '|' +
       std::to_string(q.min_plies) + '|' + std::to_string(q.max_plies) + '|' +
       std::to_string(q.max_candidates) + '|' + std::to_string(q.max_nodes);
  return f;
}

}  // namespace

GapResult search_gap(const GapQuery& query) {
  GapQuery bounded = query;
  bounded.max_plies = std::min(query.max_plies, 63);
  return Searcher(bounded).run();
}

GapResult remembered_search_gap(const GapQuery& query) {
  struct Remembered {
    std::string question;
    GapResult answer;
  };
  thread_local std::vector<Remembered> memory;
  constexpr std::size_t kRemembered = 64;
  std::string question = fingerprint(query);
  for (auto it = memory.begin(); it != memory.end(); ++it)
    if (it->question == question) {
      std::rotate(memory.begin(), it, it + 1);  // most recent first
      return memory.front().answer;
    }
  GapResult answer = search_gap(query);
  if (memory.size() == kRemembered) memory.pop_back();
  memory.insert(memory.begin(), Remembered{std::move(question), answer});
  return answer;
}

GapResult search_gap_harder(const GapQuery& query) {
  GapQuery more = query;
  more.max_nodes *= kGapRetryWork;
  return remembered_search_gap(more);
}

GapResult search_gap_with_what_is_left(const GapQuery& query, std::uint64_t spent) {
  GapQuery left = query;
  const std::uint64_t all = query.max_nodes * kGapRetryWork;
  left.max_nodes = std::max(query.max_nodes / 4, all - std::min(all, spent));
  return remembered_search_gap(left);
}

}  // namespace eboard::rules
