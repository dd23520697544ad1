// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Gap recovery through the simulator (issue 12): corpus games played by simulated hands on a scanning board
// with a clock; in the middle of each game the link is lost for 1 to 8 plies (the players go on), then the
// board comes back as a reconnect does: the link, the board dump, the clock readings held for it. Every
// unique gap must be recovered exactly (recovered moves), every ambiguous one must raise exactly one
// moves-missed alert with the true sequence among its candidates, and the game must go on being followed
// live: every move after the gap published as played, and no other alert.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "daemon/sim/timeline.hpp"
#include "rules/gap_search.hpp"
#include "rules/match.hpp"
#include "rules/movegen.hpp"
#include "rules/notation.hpp"
#include "rules/pgn.hpp"
#include "rules/reconstruct.hpp"
#include "tests/sim/bughouse_match_sim.hpp"

using namespace eboard;

namespace {

// One sensor event as a line of the GAP_SENSORS trace.
std::string sensor_line(const rules::SensorEvent& e) {
  std::string d = "  sensor " + std::to_string(e.t_ms) + " ";
  if (auto* x = std::get_if<rules::PieceLifted>(&e.what)) d += "lift " + rules::square_name(x->square);
  if (auto* x = std::get_if<rules::PiecePlaced>(&e.what)) d += "place " + rules::square_name(x->square);
  if (std::get_if<rules::BoardSnapshot>(&e.what)) d += "snapshot";
  if (auto* x = std::get_if<rules::ClockReading>(&e.what))
    d += std::string("clock lever ") + (x->lever_up == rules::ClockSide::Left ? "L" : "R");
  if (auto* x = std::get_if<rules::DeviceLink>(&e.what)) d += x->connected ? "link up" : "link down";
  return d;
}

// A board's wood as its scanner reports it: a snapshot, or a piece lifted or set down (a clock reading
// leaves it).
void read_into(std::array<rules::Piece, 64>& wood, const rules::SensorEvent& e) {
  if (auto* s = std::get_if<rules::BoardSnapshot>(&e.what)) wood = s->squares;
  if (auto* l = std::get_if<rules::PieceLifted>(&e.what)) wood[std::size_t(l->square)] = rules::NO_PIECE;
  if (auto* p = std::get_if<rules::PiecePlaced>(&e.what)) wood[std::size_t(p->square)] = p->piece;
}

// Every candidate of the gap waiting for the arbiter, as UCI lists in JSON (one list after another).
std::string all_candidates(const rules::Reconstructor& rec) {
  std::string out;
  if (!rec.missed_gap()) return out;
  const auto& gap = *rec.missed_gap();
  for (const auto& c : gap.candidates) {
    rules::Position p = rec.game().position_at(std::max(0, gap.first_ply - 1));
    std::vector<std::string> uci;
    for (rules::Move m : c) {
      uci.push_back(rules::to_uci(p, m));
      p.do_move(m);
    }
    out += nlohmann::json(uci).dump();
  }
  return out;
}

int open_gaps_settled = 0;  // by settle_open_gap, since run_late began
// Late reconnects since run_late began whose moves-missed said "length_uncertain" (a longer story may be the
// one): told short of the plies played, and told at their length.
int uncertain_told_short = 0, uncertain_told_right = 0;
int recovered_open = 0;  // of those, recovered as their one story (no alert), open to the arbiter's moves

// The arbiter's part for a gap told with its length open (ReconstructConfig::hold_uncounted_gaps: a clock
// without increment counts no presses), as soon as it is told: the moves played from its first ply, given
// as `eboardctl recover --moves` gives them. The arbiter knows how far the game went unseen: the moves up
// to `played_to` (the ply the board showed at the reconnect) or the ply before, when those reach the
// board; otherwise (the gap told later) the shortest run of the moves played that does. (A repetition's
// shorter run reaches the same board: Chess960 game 10, Kb1-a1-b1 and Qc2-c3-c2 twice.) The events that
// publishes (the gap's moves recovered, then the moves held back since, each at its ply); none when no such
// gap waits.
std::optional<std::vector<rules::Event>> settle_open_gap(rules::Reconstructor& rec,
                                                         const std::vector<std::string>& want, std::int64_t t,
                                                         std::size_t played_to) {
  if (!rec.missed_gap() || rec.missed_gap()->length != rules::Reconstructor::MissedGap::Length::Uncounted)
    return std::nullopt;
  const std::size_t first = std::size_t(rec.missed_gap()->first_ply);
  const std::size_t shortest = rec.missed_gap()->candidates.front().size();
  std::string why;  // each length tried, and the answer
  auto settle_with = [&](std::size_t n) -> std::optional<std::vector<rules::Event>> {
    if (n == 0 || first - 1 + n > want.size()) return std::nullopt;
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += want[first - 1 + i] + " ";
    auto done = rec.settle_gap(text, t);
    if (!done) {
      why += "\n  " + text + ": " + done.error();
      return std::nullopt;
    }
    ++open_gaps_settled;
    return std::move(*done);
  };
  for (std::size_t last : {played_to, played_to - 1})
    if (last + 1 >= first + shortest)
      if (auto done = settle_with(last + 1 - first)) return done;
  for (std::size_t n = shortest; first - 1 + n <= want.size() && n <= shortest + 12; ++n)
    if (auto done = settle_with(n)) return done;
  ADD_FAILURE() << "no length of the moves played from ply " << first << " settles the open gap (played to "
                << played_to << ", shortest " << shortest << ")" << why;
  return std::nullopt;
}

const std::filesystem::path PGN_DIR = std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "pgn";

std::vector<rules::GameRecord> load(const std::filesystem::path& file, std::size_t limit) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<rules::GameRecord> out;
  auto games = rules::read_pgn(text.str());
  if (!games) return out;
  for (const auto& g : *games)
    if (auto rec = rules::replay(g); rec && out.size() < limit) out.push_back(*rec);
  return out;
}

struct Outcome {
  bool recovered_exactly = false;  // a unique gap: every move right, the gap's plies marked recovered
  bool missed_ok = false;          // an ambiguous gap: one moves-missed with the truth among the candidates
  bool shorter = false;            // fewer plies explain the board (moves undone within the gap)
  bool beyond_bound = false;       // nothing found within the search's bound: one mismatch, then adopted
  std::string problem;
};

// `g` played by tidy hands on a clock of three hours (and `increment_ms` a move).
sim::Timeline tidy_timeline(const rules::GameRecord& g, std::uint64_t seed, std::int64_t increment_ms = 0) {
  sim::TimelineSpec spec;
  spec.start = g.start;
  for (const auto& m : g.moves) spec.moves.push_back(m.move);
  spec.white = spec.black = sim::HandStyle::tidy();
  spec.clock = sim::ClockSettings{3 * 3600000, increment_ms};
  spec.seed = seed;
  return sim::build_timeline(spec);
}

// When the link goes after ply `at`: as the next player's hand sets out (his press read before: the
// reading comes soon after a press, and a link lost before it is a gap one ply longer).
std::int64_t link_lost_after(const sim::Timeline& tl, int at) {
  for (const auto& a : tl.actions)
    if (a.t_ms > tl.press_ms[std::size_t(at - 1)]) return a.t_ms - 1;
  return tl.end_ms;
}

// Plays `g` with the link lost after ply `at` until ply `at + plies` was pressed.
Outcome play_with_gap(const rules::GameRecord& g, int at, int plies, std::uint64_t seed, bool chess960) {
  const sim::Timeline tl = tidy_timeline(g, seed);
  // The outage: from just after the press of ply `at` to halfway between the press of ply `at + plies` and
  // the first action of the next move (the board at rest in the position after the gap).
  const std::int64_t lost = link_lost_after(tl, at);
  if (lost - tl.press_ms[std::size_t(at - 1)] < 400) {
    Outcome skip;
    skip.problem = "skip";
    return skip;
  }
  const std::int64_t press_end = tl.press_ms[std::size_t(at + plies - 1)];
  std::int64_t next_action = tl.end_ms;
  for (const auto& a : tl.actions)
    if (a.t_ms > press_end) {
      next_action = a.t_ms;
      break;
    }
  const std::int64_t back = press_end + (next_action - press_end) / 2;
  if (back - press_end < 300 || lost >= tl.press_ms[std::size_t(at)]) {
    Outcome skip;
    skip.problem = "skip";
    return skip;
  }
  rules::Position shown = g.start;
  for (int i = 0; i < at + plies; ++i) shown.do_move(g.moves[std::size_t(i)].move);

  std::vector<rules::SensorEvent> events;
  std::optional<rules::ClockReading> held;
  for (const auto& e : tl.events) {
    if (e.t_ms > lost && e.t_ms <= back) {
      if (auto* r = std::get_if<rules::ClockReading>(&e.what)) held = *r;
      continue;
    }
    events.push_back(e);
  }
  // Insert the link loss and the reconnect (link, dump, held reading) at their times.
  std::vector<rules::SensorEvent> with_gap;
  bool inserted_loss = false, inserted_back = false;
  for (const auto& e : events) {
    if (!inserted_loss && e.t_ms > lost) {
      with_gap.push_back({lost, rules::DeviceLink{false}});
      inserted_loss = true;
    }
    if (!inserted_back && e.t_ms > back) {
      with_gap.push_back({back, rules::DeviceLink{true}});
      with_gap.push_back({back, rules::BoardSnapshot{shown.board()}});
      if (held) with_gap.push_back({back, *held});
      inserted_back = true;
    }
    with_gap.push_back(e);
  }

  rules::ReconstructConfig cfg;
  cfg.chess960 = chess960;
  rules::Reconstructor rec(cfg, rules::Game(g.start));
  std::vector<std::string> got;
  std::vector<bool> recovered;
  std::vector<nlohmann::json> missed;
  std::vector<std::string> other_alerts;
  std::vector<std::string> published;  // every move in the order it was published, whatever its ply
  int mismatches = 0, adoptions = 0;
  std::vector<std::string> trace;
  auto take = [&](const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      trace.push_back(std::to_string(e.t_ms) + " " + rules::event_type(e));
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what))
        trace.back() += " " + std::to_string(m->ply) + " " + m->uci + (m->recovered ? " recovered" : "");
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) trace.back() += " " + a->code + " " + a->detail;
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
        if (m->ply != int(got.size()) + 1) {
          // After a missed gap the next live move carries its true ply number.
          while (int(got.size()) + 1 < m->ply) {
            got.push_back("?");
            recovered.push_back(false);
          }
        }
        got.push_back(m->uci);
        recovered.push_back(m->recovered);
        published.push_back(m->uci);
      }
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        if (a->code == "moves-missed") {
          nlohmann::json j;
          for (const auto& f : a->extra)
            j[f.name] = f.is_number ? nlohmann::json::parse(f.value) : nlohmann::json(f.value);
          missed.push_back(j);
        } else if (a->code == "position-mismatch") {
          ++mismatches;
        } else if (a->code == "position-adopted") {
          ++adoptions;
        } else {
          other_alerts.push_back(a->code + " at ply " + std::to_string(a->ply) + ": " + a->detail);
        }
      }
    }
  };
  for (const auto& e : with_gap) {
    if (std::getenv("GAP_SENSORS") && e.t_ms > lost - 2000 && e.t_ms < back + 15000)
      trace.push_back(sensor_line(e));
    // Timers fire as the daemon fires them (at their deadline), not only when the next input arrives.
    for (auto d = rec.next_deadline(); d && *d <= e.t_ms; d = rec.next_deadline()) take(rec.advance(*d));
    take(rec.on_sensor(e));
  }
  take(rec.advance(tl.end_ms + 10000));

  std::vector<std::string> want;
  rules::Position p = g.start;
  for (const auto& m : g.moves) {
    want.push_back(rules::to_uci(p, m.move));
    p.do_move(m.move);
  }
  Outcome out;
  std::string where = "gap of " + std::to_string(plies) + " after ply " + std::to_string(at) + ": ";
  if (std::getenv("GAP_TRACE") && std::atoi(std::getenv("GAP_TRACE")) == plies) {
    std::printf("--- %s lost %lld back %lld\n", where.c_str(), static_cast<long long>(lost),
                static_cast<long long>(back));
    for (const auto& l : trace) std::printf("  %s\n", l.c_str());
    std::string truth;
    for (int i = at; i < at + plies + 2 && i < int(want.size()); ++i) truth += want[std::size_t(i)] + " ";
    std::printf("  truth from ply %d: %s\n", at + 1, truth.c_str());
    for (const auto& m : missed) std::printf("  candidates %s\n", m.dump().c_str());
  }
  if (!other_alerts.empty()) {
    out.problem = where + "alert " + other_alerts.front();
    return out;
  }
  // The moves after the gap, published live: the game is followed again.
  const std::size_t after_gap = want.size() - std::size_t(at + plies);
  auto tail_followed = [&](std::size_t allowance) {
    std::size_t n = after_gap > allowance ? after_gap - allowance : 0;
    return published.size() >= n &&
           std::equal(want.end() - std::ptrdiff_t(n), want.end(), published.end() - std::ptrdiff_t(n));
  };
  if (mismatches || adoptions) {
    // Nothing within the bound explained the board: told once, and the game followed again within two
    // presses from the board's position.
    if (mismatches != 1 || adoptions != 1 || !tail_followed(2)) {
      out.problem = where + std::to_string(mismatches) + " position-mismatch, " + std::to_string(adoptions) +
                    " position-adopted, moves after the gap " +
                    (tail_followed(2) ? "followed" : "not followed");
      return out;
    }
    out.beyond_bound = true;
    return out;
  }
  if (got.size() < want.size() && (want.size() - got.size()) % 2 == 0 && tail_followed(0)) {
    // Fewer plies than were played: moves undone within the gap (a piece out and back), which no board
    // shows. The game goes on live all the same.
    out.shorter = true;
    return out;
  }
  if (missed.size() > 1) {
    out.problem = where + std::to_string(missed.size()) + " moves-missed alerts";
    return out;
  }
  if (got.size() != want.size()) {
    out.problem =
        where + std::to_string(got.size()) + " plies published, want " + std::to_string(want.size());
    return out;
  }
  if (missed.size() == 1) {
    const auto& m = missed.front();
    int first = m["first_ply"], last = m["last_ply"];
    std::vector<std::string> truth(want.begin() + first - 1, want.begin() + last);
    bool among = false;
    for (const auto& c : m["candidates"]) among |= c.get<std::vector<std::string>>() == truth;
    // The alert lists the likeliest 16 of candidates_total: the others are in the gap's whole list.
    among |= all_candidates(rec).find(nlohmann::json(truth).dump()) != std::string::npos;
    // An incomplete list (the search's work bound reached) may lack it; it says so.
    if (!among && !m.contains("incomplete")) {
      out.problem = where + "the true sequence is not among the candidates";
      return out;
    }
    for (std::size_t i = 0; i < want.size(); ++i)
      if ((int(i) + 1 < first || int(i) + 1 > last) && got[i] != want[i]) {
        out.problem = where + "ply " + std::to_string(i + 1) + " after a missed gap: " + got[i];
        return out;
      }
    out.missed_ok = true;
    return out;
  }
  for (std::size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      out.problem = where + "ply " + std::to_string(i + 1) + " is " + got[i] + ", want " + want[i];
      return out;
    }
  int marked = 0;
  for (bool r : recovered) marked += r;
  // The press of the ply before the outage may not have been read before the link went: one more.
  if (marked > plies + 1) {
    out.problem = where + std::to_string(marked) + " plies marked recovered";
    return out;
  }
  out.recovered_exactly = true;
  return out;
}

// The sanitizer build plays a quarter of the games: it looks for memory errors, the ci build for coverage.
constexpr std::size_t SHARE = EBOARD_SANITIZED ? 4 : 1;

void run(const std::filesystem::path& file, bool chess960, std::size_t games) {
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "../shared is absent";
  auto corpus = load(file, games / SHARE);
  ASSERT_FALSE(corpus.empty());
  std::array<int, 9> unique{}, ambiguous{}, shorter{}, beyond{}, problems{};
  std::string problem_list;
  int tried = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const auto& g = corpus[i];
    for (int plies = 1; plies <= 8; ++plies) {
      int room = int(g.moves.size()) - plies - 4;
      if (room < 2) continue;
      int at = 1 + int((i * 13 + std::size_t(plies) * 7) % std::size_t(room));
      Outcome o = play_with_gap(g, at, plies, i + 1, chess960);
      if (o.problem == "skip") continue;
      ++tried;
      if (!o.problem.empty()) {
        ++problems[std::size_t(plies)];
        problem_list += "game " + std::to_string(i) + ": " + o.problem + "\n";
      }
      unique[std::size_t(plies)] += o.recovered_exactly;
      ambiguous[std::size_t(plies)] += o.missed_ok;
      shorter[std::size_t(plies)] += o.shorter;
      beyond[std::size_t(plies)] += o.beyond_bound;
    }
  }
  for (int plies = 1; plies <= 8; ++plies)
    std::printf("  gap of %d: %d recovered, %d moves-missed, %d shorter, %d beyond the bound (adopted)\n",
                plies, unique[std::size_t(plies)], ambiguous[std::size_t(plies)], shorter[std::size_t(plies)],
                beyond[std::size_t(plies)]);
  EXPECT_GT(tried, int(corpus.size()) * 4);
  // Measured residue, as ceilings (lower them as the search improves): none up to 6 plies; at 7 and 8 the
  // search's work bound is reached now and then, and a gap long enough holds a move taken back.
  int short_gaps = 0, beyond_bound = 0;
  for (int plies = 1; plies <= 6; ++plies) short_gaps += problems[std::size_t(plies)];
  for (int plies = 1; plies <= 8; ++plies) beyond_bound += beyond[std::size_t(plies)];
  EXPECT_EQ(short_gaps, 0) << problem_list;
  EXPECT_LE(problems[7] + problems[8], 1) << problem_list;
  EXPECT_LE(beyond_bound, 2);
  if (!problem_list.empty()) std::printf("%s", problem_list.c_str());
}

// A wrong ply after a gap whose length the board cannot show (a shorter story reaches it, the same side on
// move): counted apart.
constexpr const char* kUnshownLength = "[length not shown]";

// The reconnect comes late (issue 30): the board is read again while the next move after the gap is
// already on it, set down (`pressed` false) or pressed too. Whatever is told, no move may go out under a
// ply it was not played at: a move of the gap published as the next live ply is a wrong move on the
// broadcast. Returns the first wrong move ("" when none, "skip" when the timeline does not allow it).
std::string late_reconnect(const rules::GameRecord& g, int at, int plies, std::uint64_t seed, bool chess960,
                           bool pressed, int* missed_count = nullptr, std::int64_t increment_ms = 0,
                           bool hold = false, bool under_way = false) {
  const sim::Timeline tl = tidy_timeline(g, seed, increment_ms);
  // (`under_way`: lost just after the board reported the first lift for the gap's first move.)
  std::int64_t lost = link_lost_after(tl, at);
  if (under_way) {
    const auto lift = std::find_if(tl.events.begin(), tl.events.end(), [&](const rules::SensorEvent& e) {
      return e.t_ms > tl.press_ms[std::size_t(at - 1)] && std::holds_alternative<rules::PieceLifted>(e.what);
    });
    if (lift == tl.events.end()) return "skip";
    lost = lift->t_ms + 1;
  }
  if (lost - tl.press_ms[std::size_t(at - 1)] < 400 || lost >= tl.press_ms[std::size_t(at)]) return "skip";
  // The next move's press is at press_ms[at + plies]; back just before it (the move set down, not pressed),
  // or halfway from it to the following move's first action (the move pressed as well).
  const std::int64_t next_press = tl.press_ms[std::size_t(at + plies)];
  std::int64_t back = next_press - 1;
  if (pressed) {
    std::int64_t next_action = tl.end_ms;
    for (const auto& a : tl.actions)
      if (a.t_ms > next_press) {
        next_action = a.t_ms;
        break;
      }
    back = next_press + (next_action - next_press) / 2;
    if (back - next_press < 300) return "skip";
  }
  // The wood at the reconnect: what the scanner had reported by then; the clock reading held for it.
  std::array<rules::Piece, 64> wood{};
  std::optional<rules::ClockReading> held;
  for (const auto& e : tl.events) {
    if (e.t_ms > back) break;
    read_into(wood, e);
    if (auto* r = std::get_if<rules::ClockReading>(&e.what); r && e.t_ms > lost) held = *r;
  }
  std::vector<rules::SensorEvent> with_gap;
  bool inserted_loss = false, inserted_back = false;
  for (const auto& e : tl.events) {
    if (e.t_ms > lost && e.t_ms <= back) continue;
    if (!inserted_loss && e.t_ms > lost) {
      with_gap.push_back({lost, rules::DeviceLink{false}});
      inserted_loss = true;
    }
    if (!inserted_back && e.t_ms > back) {
      with_gap.push_back({back, rules::DeviceLink{true}});
      with_gap.push_back({back, rules::BoardSnapshot{wood}});
      if (held) with_gap.push_back({back, *held});
      inserted_back = true;
    }
    with_gap.push_back(e);
  }
  std::vector<std::string> want;
  rules::Position p = g.start;
  for (const auto& m : g.moves) {
    want.push_back(rules::to_uci(p, m.move));
    p.do_move(m.move);
  }
  rules::ReconstructConfig cfg;
  cfg.chess960 = chess960;
  cfg.hold_uncounted_gaps = hold;
  rules::Reconstructor rec(cfg, rules::Game(g.start));
  std::string wrong;
  bool adopted = false;
  std::string candidates;  // every moves-missed alert's, as told
  bool uncertain = false;  // one said a longer story may be the one
  std::vector<std::string> trace;
  auto take = [&](const std::vector<rules::Event>& evs) {
    for (const auto& e : evs) {
      if (auto* m = std::get_if<rules::MoveEvent>(&e.what)) {
        trace.push_back(std::to_string(e.t_ms) + " move " + std::to_string(m->ply) + " " + m->uci +
                        (m->recovered ? " recovered" : ""));
        // After a position adopted (nothing within the search's bound explains the board) the record
        // holds a jump, and the plies after it are numbered from there: not compared.
        if (adopted) continue;
        const bool right =
            m->ply >= 1 && m->ply <= int(want.size()) && want[std::size_t(m->ply - 1)] == m->uci;
        if (!right && wrong.empty())
          wrong =
              "ply " + std::to_string(m->ply) + " published as " + m->uci +
              (m->recovered ? " (recovered)" : "") + ", played " +
              (m->ply >= 1 && m->ply <= int(want.size()) ? want[std::size_t(m->ply - 1)] : "-") +
              (std::find(want.begin() + at, want.begin() + at + plies, m->uci) != want.begin() + at + plies
                   ? " [a move of the gap]"
                   : "") +
              (!m->recovered && candidates.find('"' + m->uci + '"') != std::string::npos
                   ? " [a candidate's move]"
                   : "") +
              (candidates.empty() ? "" : " [after moves-missed]");
      }
      if (auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
        trace.push_back(std::to_string(e.t_ms) + " " + a->code + " at " + std::to_string(a->ply));
        for (const auto& f : a->extra) trace.back() += " " + f.name + "=" + f.value.substr(0, 300);
        if (a->code == "moves-missed" && missed_count) ++*missed_count;
        if (a->code == "moves-missed") {
          for (const auto& f : a->extra) {
            if (f.name == "candidates") candidates += f.value;
            uncertain |= f.name == "length_uncertain";
          }
          // The alert lists the likeliest 16: every candidate counts (the gap's whole list).
          candidates += all_candidates(rec);
        }
        adopted |= a->code == "position-adopted";
      }
    }
  };
  // (With `hold`, the arbiter settles a gap told with its length open as soon as it is told.)
  auto settle = [&](std::int64_t t) {
    if (auto done = settle_open_gap(rec, want, t, std::size_t(at + plies + 1))) take(*done);
  };
  for (const auto& e : with_gap) {
    if (std::getenv("GAP_SENSORS") && e.t_ms > lost - 2000 && e.t_ms < back + 15000)
      trace.push_back(sensor_line(e));
    for (auto d = rec.next_deadline(); d && *d <= e.t_ms; d = rec.next_deadline()) {
      take(rec.advance(*d));
      settle(*d);
    }
    take(rec.on_sensor(e));
    settle(e.t_ms);
  }
  take(rec.advance(tl.end_ms + 10000));
  if (!wrong.empty()) {
    // Whether the board can show how many plies were played: not when fewer plies, with the same side on
    // move, reach the same board (a piece out and back, a detour: Bg5-h4xf6 for Bxf6, e7-e6-e5 for
    // e7-e5). The search only proposes such a sequence; it is checked here move by move.
    rules::Position from = g.start;
    for (int i = 0; i < at; ++i) from.do_move(g.moves[std::size_t(i)].move);
    rules::Position to = from;
    const int played = plies + 1;  // the gap and the next move, on the board at the reconnect
    for (int i = at; i < at + played; ++i) to.do_move(g.moves[std::size_t(i)].move);
    rules::GapQuery q;
    q.from = from;
    q.board = to.board();
    q.side_to_move = to.side_to_move();
    q.max_plies = played - 2;
    q.max_candidates = 1;
    q.max_nodes = 4'000'000;
    const rules::GapResult r = rules::search_gap(q);
    // Moves that came back to the position before the gap, the other side's clock running: without an
    // increment a press without a move reads the same (the board and the clock alike), and is told as one.
    if (to.board() == from.board())
      wrong = std::string(kUnshownLength) + " (the position before the gap is on the board, " +
              std::to_string(played) + " plies were played) " + wrong;
    else if (r.plies > 0 && !r.sequences.empty()) {
      rules::Position shorter = from;
      bool legal = true;
      for (rules::Move m : r.sequences.front()) {
        bool listed = false;
        for (rules::Move l : rules::MoveList(shorter)) listed |= l == m;
        legal &= listed;
        if (!legal) break;
        shorter.do_move(m);
      }
      if (legal && shorter.board() == to.board() && shorter.side_to_move() == to.side_to_move())
        wrong = std::string(kUnshownLength) + " (" + std::to_string(r.plies) + " plies reach the board, " +
                std::to_string(played) + " were played) " + wrong;
    }
  }
  // (Or recovered as its one story, left open to the arbiter's longer moves:
  // Reconstructor::uncertain_recovery.)
  if (rec.uncertain_recovery()) ++recovered_open;
  uncertain |= rec.uncertain_recovery().has_value();
  if (uncertain && wrong.empty()) ++uncertain_told_right;
  if (uncertain && wrong.rfind(kUnshownLength, 0) == 0) ++uncertain_told_short;
  if (!wrong.empty() && std::getenv("GAP_TRACE")) {
    std::printf("--- gap of %d after ply %d, truth from ply %d:", plies, at, at + 1);
    for (int i = at; i < at + plies + 6 && i < int(want.size()); ++i)
      std::printf(" %s", want[std::size_t(i)].c_str());
    std::printf("\n");
    for (const auto& l : trace) std::printf("  %s\n", l.c_str());
  }
  return wrong;
}

// GAP_LONGER (a measurement, issue 30): whether a story two plies longer than the `played` plies after ply
// `at`, the same side on move, reaches the same board (so that a gap told at its length played could as
// well be two plies longer, and the next moves' plies be two off), what that probe costs, and what the
// clock readings say of it: the least time a move of a side would have taken on the clock in the longer
// story, and how much likelier each side's time used over the gap is with one move more than with the
// moves played, its moves before the gap taken as its pace (a normal model of their times).
struct LongerProbe {
  bool exists = false;
  bool exhausted = false;  // the work bound ran out first
  double cpu_ms = 0;
  std::int64_t least_per_move_ms = 0;
  double pace_log_ratio = 0;  // log likelihood of one move more per side over the moves `played` holds
};

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// log p(time used | n moves) - log p(time used | k moves), each move's time normal with the pace's mean
// and spread (at least 15 % of the mean); 0 with fewer than 3 moves to take the pace from.
double pace_log_ratio(std::int64_t used, int k, int n, const std::vector<std::int64_t>& past) {
  if (past.size() < 3 || k <= 0) return 0;
  double mean = 0, var = 0;
  for (auto t : past) mean += double(t);
  mean /= double(past.size());
  for (auto t : past) var += (double(t) - mean) * (double(t) - mean);
  const double sd = std::max(std::sqrt(var / double(past.size())), 0.15 * mean);
  auto log_p = [&](int moves) {
    const double v = double(moves) * sd * sd;
    return -0.5 * std::log(2 * std::numbers::pi * v) -
           (double(used) - double(moves) * mean) * (double(used) - double(moves) * mean) / (2 * v);
  };
  return log_p(n) - log_p(k);
}

LongerProbe probe_longer(const rules::GameRecord& g, const sim::Timeline& tl, int at, int played, int told) {
  rules::Position from = g.start;
  for (int i = 0; i < at; ++i) from.do_move(g.moves[std::size_t(i)].move);
  rules::Position to = from;
  for (int i = at; i < at + played; ++i) to.do_move(g.moves[std::size_t(i)].move);
  rules::GapQuery q;
  q.from = from;
  q.board = to.board();
  q.side_to_move = to.side_to_move();
  q.min_plies = q.max_plies = told + 2;
  q.max_candidates = 1;
  const double c0 = thread_cpu_ms();
  const rules::GapResult r = rules::search_gap(q);
  LongerProbe out;
  out.cpu_ms = thread_cpu_ms() - c0;
  out.exists = r.plies > 0;
  out.exhausted = r.exhausted;
  // Each side's time over the gap and its moves before (from the presses: what the clock readings tell).
  std::array<std::int64_t, 2> used{};
  std::array<int, 2> moves{};
  std::array<std::vector<std::int64_t>, 2> past;
  for (int i = 1; i < at + played; ++i) {
    const std::int64_t spent = tl.press_ms[std::size_t(i)] - tl.press_ms[std::size_t(i - 1)];
    if (i < at) past[std::size_t(i % 2)].push_back(spent);
    if (i >= at) used[std::size_t(i % 2)] += spent, ++moves[std::size_t(i % 2)];
  }
  // The story told has `told` plies: each side one move fewer than played when told is two short.
  const int fewer = (played - told) / 2;
  out.least_per_move_ms = std::numeric_limits<std::int64_t>::max();
  for (int side = 0; side < 2; ++side) {
    const int k = moves[std::size_t(side)] - fewer;
    out.least_per_move_ms = std::min(out.least_per_move_ms, used[std::size_t(side)] / (k + 1));
    out.pace_log_ratio += pace_log_ratio(used[std::size_t(side)], k, k + 1, past[std::size_t(side)]);
  }
  return out;
}

struct LongerTally {
  int runs = 0, exists = 0, exhausted = 0;
  std::vector<double> cpu_ms;
  std::int64_t least_per_move_ms = std::numeric_limits<std::int64_t>::max();
  std::array<int, 4> held_right{}, held_unshown{};  // pace_log_ratio above -1, 0, 1, 2
  int unshown = 0;
  void add(const LongerProbe& p, bool unshown_run) {
    ++runs;
    cpu_ms.push_back(p.cpu_ms);
    unshown += unshown_run;
    // The runs told short: a longer story is the one played.
    exhausted += p.exhausted && !unshown_run;
    if (!p.exists && !unshown_run) return;
    exists += !unshown_run;
    least_per_move_ms = std::min(least_per_move_ms, p.least_per_move_ms);
    for (int th = 0; th < 4; ++th)
      (unshown_run ? held_unshown : held_right)[std::size_t(th)] += p.pace_log_ratio > th - 1;
  }
  void print(const char* what) {
    std::sort(cpu_ms.begin(), cpu_ms.end());
    const auto at = [&](double q) {
      return cpu_ms.empty() ? 0.0 : cpu_ms[std::size_t(q * double(cpu_ms.size() - 1))];
    };
    std::printf("  %s: %d runs; a story two plies longer reaches the board in %d told at the length played",
                what, runs, exists);
    std::printf(" (%d probes cut by the work bound; the %d told short aside)\n", exhausted, unshown);
    std::printf("    probe CPU p50 %.2f ms, p99 %.1f ms, max %.1f ms;", at(0.5), at(0.99), at(1.0));
    std::printf(" the least time a move of the longer story takes: %lld ms\n",
                static_cast<long long>(least_per_move_ms));
    for (int th = 0; th < 4; ++th)
      std::printf(
          "    held where the pace favours one move more (log ratio over %d): %d told at the length, %d"
          " of the %d told short\n",
          th - 1, held_right[std::size_t(th)], held_unshown[std::size_t(th)], unshown);
  }
};

// Measured (issue 30): before the gap's length waited for the next press, 119 of 636 standard and 77 of 320
// Chess960 late reconnects published a move at a wrong ply, 3 of them a candidate's move as a live move; 25
// and 33 before the wait covered a story a ply longer and the press of a reconnect's shown move; 0 and 1
// before it covered a story more than a ply shorter with its last move shown (Chess960 game 11). What is
// left are gaps whose length the board cannot show (a shorter story, the same side on move, reaches it, and
// the clock readings do not tell either: GAP_LONGER measures it): counted and printed, not failed. Any other
// move at a wrong ply fails, and so does a candidate's move gone out live.
// With `hold` (ReconstructConfig::hold_uncounted_gaps), gaps of 4 plies or more are told with their length
// open and settled by the arbiter at once: what stays told short is the gaps shorter than that and those
// whose next move is shown, not pressed, at the reconnect (told when it is pressed).
void run_late(const std::filesystem::path& file, bool chess960, std::size_t games,
              std::int64_t increment_ms = 0, bool hold = false, int unshown_at_most = -1,
              bool under_way = false) {
  if (!std::filesystem::exists(file)) GTEST_SKIP() << "../shared is absent";
  auto corpus = load(file, games / SHARE);
  ASSERT_FALSE(corpus.empty());
  int tried = 0, missed = 0, unshown = 0, wrong = 0, candidate_live = 0;
  open_gaps_settled = 0;
  uncertain_told_short = uncertain_told_right = recovered_open = 0;
  std::string problems, unshown_list;
  LongerTally longer;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const auto& g = corpus[i];
    for (int plies = 1; plies <= 8; ++plies)
      for (int pressed = 0; pressed < 2; ++pressed) {
        int room = int(g.moves.size()) - plies - 4;
        if (room < 2) continue;
        int at = 1 + int((i * 13 + std::size_t(plies) * 7 + std::size_t(pressed) * 5) % std::size_t(room));
        std::string what = late_reconnect(g, at, plies, i + 1, chess960, pressed != 0, &missed, increment_ms,
                                          hold, under_way);
        if (what == "skip") continue;
        ++tried;
        if (std::getenv("GAP_LONGER")) {
          // The unshown runs are told short of the plies played (the gap and the next move): "(N plies reach
          // the board", or the position before the gap (0).
          const bool short_told = what.rfind(kUnshownLength, 0) == 0;
          int told = plies + 1;
          if (short_told)
            told = std::isdigit(static_cast<unsigned char>(what[std::strlen(kUnshownLength) + 2]))
                       ? std::atoi(what.c_str() + std::strlen(kUnshownLength) + 2)
                       : 0;
          longer.add(probe_longer(g, tidy_timeline(g, i + 1), at, plies + 1, told), short_told);
        }
        if (what.empty()) continue;
        const std::string line = "game " + std::to_string(i) + ", gap of " + std::to_string(plies) +
                                 " after ply " + std::to_string(at) +
                                 (pressed ? ", next move pressed: " : ", next move shown: ") + what + "\n";
        candidate_live += what.find("[a candidate's move]") != std::string::npos;
        if (what.rfind(kUnshownLength, 0) == 0) {
          ++unshown;
          unshown_list += line;
        } else {
          ++wrong;
          problems += line;
        }
      }
  }
  std::printf(
      "  %d late reconnects, %d moves-missed alerts, %d with a move at a wrong ply where the board shows the "
      "length played, %d where it cannot\n",
      tried, missed, wrong, unshown);
  if (hold)
    std::printf("  %d gaps told with their length open, settled by the arbiter\n", open_gaps_settled);
  else
    std::printf(
        "  a longer story said to be possible (a moves-missed's length_uncertain, or one story recovered and "
        "left open to the arbiter's longer moves, %d): in %d of the %d told short, and in %d told at the "
        "length played\n",
        recovered_open, uncertain_told_short, unshown, uncertain_told_right);
  if (std::getenv("GAP_LONGER")) longer.print(chess960 ? "Chess960" : "standard");
  EXPECT_GT(tried, int(corpus.size()) * 8);
  EXPECT_EQ(candidate_live, 0) << problems << unshown_list;
  EXPECT_EQ(wrong, 0) << problems;
  // An increment clock counts the gap's presses, also of moves that came back to the position before the
  // gap (Reconstructor::counted_return): what it leaves unshown is stories past the search's work bound.
  if (increment_ms > 0) {
    EXPECT_LE(unshown * 50, tried) << unshown_list;
  }
  if (unshown_at_most >= 0) {
    EXPECT_LE(unshown, unshown_at_most) << unshown_list;
  }
  if (std::getenv("GAP_PROBLEMS")) std::printf("%s%s", problems.c_str(), unshown_list.c_str());
}

}  // namespace

TEST(GapRecoverySim, StandardGamesWithTheLinkLostForOneToEightPlies) {
  run(PGN_DIR / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn", false, 40);
}

TEST(GapRecoverySim, Chess960GamesWithTheLinkLostForOneToEightPlies) {
  run(PGN_DIR / "chess960" / "tcec_s20_frc3_final_50games.pgn", true, 20);
}

namespace {

// Bughouse: board A's link is lost for 1 to 6 of its plies (drops included) while both boards play on;
// board B is followed throughout. A's gap is searched with the pieces B handed over meanwhile; A's captures
// in the gap reach B when they are recovered. With `arbiter`, a gap told with a longer story possible
// (length_uncertain) is settled at once with the moves played, as `eboardctl recover --moves` gives them.
void run_bughouse(bool arbiter, bool hold = false) {
  const auto bpgn =
      std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
  if (!std::filesystem::exists(bpgn)) GTEST_SKIP() << "../shared is absent";
  auto games = rules::read_bpgn(sim::test::slurp(bpgn));
  ASSERT_TRUE(games);
  std::array<int, 7> unique{}, ambiguous{}, problems{};
  int tried = 0, drops_in_gaps = 0;
  int moves_wrong = 0;  // gaps after which a move went out at a ply it was not played at (no alert first)
  // Gaps told short of the plies played by a moves-missed that said a longer story may be the one (a piece
  // dropped and taken, or a detour, leaves no trace on the board): the moves after it go out at the shorter
  // story's plies, as it said; counted and printed, not failed (as the chess late reconnects' unshown).
  int told_short = 0;
  int settled_right = 0;   // with the arbiter: gaps settled with the moves played, both records right after
  int held_gaps = 0;       // with the hold: gaps told with their length open, moves held until settled
  int held_moves_max = 0;  // the most moves of A held behind one such gap when the arbiter settled it
  std::string first_problem, told_short_list;
  for (std::size_t gi = 0; gi < games->size(); ++gi) {
    auto rec = rules::replay_bughouse((*games)[gi]);
    if (!rec) continue;
    sim::test::MatchPlan mp = sim::test::plan(*rec);
    sim::test::Built built = sim::test::build(mp, sim::HandStyle::tidy(), gi + 1);
    const auto& a_tl = built.tl[0];
    const auto& a_moves = mp.boards[0].moves;
    for (int attempt = 0; attempt < 18; ++attempt) {
      const int plies = attempt < 12 ? 1 + attempt % 4 : 5 + attempt % 2;
      int room = int(a_moves.size()) - plies - 3;
      if (room < 2) continue;
      int at = 1 + int((gi * 11 + std::size_t(attempt) * 17) % std::size_t(room));
      std::int64_t lost = a_tl.end_ms;
      for (const auto& act : a_tl.actions)
        if (act.t_ms > a_tl.press_ms[std::size_t(at - 1)]) {
          lost = act.t_ms - 1;
          break;
        }
      const std::int64_t press_end = a_tl.press_ms[std::size_t(at + plies - 1)];
      std::int64_t next_action = a_tl.end_ms;
      for (const auto& act : a_tl.actions)
        if (act.t_ms > press_end) {
          next_action = act.t_ms;
          break;
        }
      const std::int64_t back = press_end + (next_action - press_end) / 2;
      if (lost - a_tl.press_ms[std::size_t(at - 1)] < 400 || back - press_end < 300) continue;
      for (int i = at; i < at + plies; ++i) drops_in_gaps += a_moves[std::size_t(i)].is_drop();
      ++tried;
      // Board A's wood at the reconnect: what its scanner had reported by then.
      std::array<rules::Piece, 64> wood{};
      std::optional<rules::ClockReading> held;
      for (const auto& e : a_tl.events) {
        if (e.t_ms > back) break;
        read_into(wood, e);
        if (auto* r = std::get_if<rules::ClockReading>(&e.what); r && e.t_ms > lost) held = *r;
      }
      struct Item {
        std::int64_t t;
        int board;
        rules::SensorEvent e;
      };
      std::vector<Item> items;
      for (int b = 0; b < 2; ++b)
        for (const auto& e : built.tl[std::size_t(b)].events)
          if (b == 1 || e.t_ms <= lost || e.t_ms > back) items.push_back({e.t_ms, b, e});
      items.push_back({lost, 0, {lost, rules::DeviceLink{false}}});
      items.push_back({back, 0, {back, rules::DeviceLink{true}}});
      items.push_back({back, 0, {back, rules::BoardSnapshot{wood}}});
      if (held) items.push_back({back, 0, {back, *held}});
      const std::vector<sim::test::Naming> namings = sim::test::promotion_namings(mp, built);
      rules::MatchConfig mc;
      mc.board.hold_uncounted_gaps = hold;
      rules::Match match(mc, rules::Game(mp.boards[0].start), rules::Game(mp.boards[1].start));
      std::vector<std::string> other;
      std::vector<nlohmann::json> missed;
      bool said_uncertain = false;   // a moves-missed on A said a longer story may be the one
      std::optional<int> to_settle;  // its first ply, for the arbiter
      std::optional<int> held_from;  // with the hold: the first ply of a gap told with its length open
      int told_to = 0;               // its last ply, as told
      bool settled = false;
      // A's moves gone out live at a ply they were not played at (want_a: the moves played).
      std::string live_wrong;
      std::vector<std::string> played_a;
      std::vector<std::array<rules::Piece, 64>> boards_a;  // after each ply played (0: the start)
      {
        rules::Position p = mp.boards[0].start;
        boards_a.push_back(p.board());
        for (rules::Move m : a_moves) {
          played_a.push_back(rules::to_uci(p, m));
          if (m.is_drop() && p.pocket(p.side_to_move(), m.drop_type()) == 0)
            p.set_pocket(p.side_to_move(), m.drop_type(), 1);
          p.do_move(m);
          boards_a.push_back(p.board());
        }
      }
      const std::string trace_key =
          std::to_string(gi) + ":" + std::to_string(plies) + ":" + std::to_string(at);
      const bool tracing = std::getenv("GAP_MATCH_TRACE") && trace_key == std::getenv("GAP_MATCH_TRACE");
      auto take = [&](const std::vector<rules::Event>& evs) {
        for (const auto& e : evs) {
          if (tracing) {
            std::string line = "  " + std::to_string(e.t_ms) + " " + e.board + " " + rules::event_type(e);
            if (auto* m = std::get_if<rules::MoveEvent>(&e.what))
              line += " " + std::to_string(m->ply) + " " + m->uci + (m->recovered ? " recovered" : "");
            if (auto* al = std::get_if<rules::AlertEvent>(&e.what)) {
              line += " " + al->code + " " + al->detail;
              for (const auto& f : al->extra) line += " " + f.name + "=" + f.value;
            }
            if (std::getenv("GAP_MATCH_FEN"))
              line += " | " + match.board(0).game().position().fen() + " | " +
                      match.board(1).game().position().fen();
            std::printf("%s\n", line.c_str());
          }
          if (auto* m = std::get_if<rules::MoveEvent>(&e.what);
              m && e.board == "A" && !m->recovered && live_wrong.empty() &&
              (m->ply < 1 || m->ply > int(played_a.size()) || played_a[std::size_t(m->ply - 1)] != m->uci))
            live_wrong = m->uci + " went out as ply " + std::to_string(m->ply);
          if (auto* al = std::get_if<rules::AlertEvent>(&e.what)) {
            if (al->code == "moves-missed" && e.board == "A") {
              for (const auto& f : al->extra) said_uncertain |= f.name == "length_uncertain";
              for (const auto& f : al->extra)
                if (f.name == "length_unknown") held_from = al->ply;
              if (arbiter && said_uncertain) {
                to_settle = al->ply;
                for (const auto& f : al->extra)
                  if (f.name == "last_ply") told_to = std::atoi(f.value.c_str());
              }
              nlohmann::json j;
              for (const auto& f : al->extra)
                j[f.name] = f.is_number ? nlohmann::json::parse(f.value) : nlohmann::json(f.value);
              missed.push_back(j);
            } else if (al->code != "drop-before-partner-clock") {
              // (B may drop a piece A captured in the gap before A's recovery hands it over: told as early.)
              other.push_back(e.board + " " + al->code + " at ply " + std::to_string(al->ply) + ": " +
                              al->detail);
            }
          }
        }
      };
      if (tracing) {
        std::printf("--- %s lost %lld back %lld; truth of A from ply %d:", trace_key.c_str(),
                    static_cast<long long>(lost), static_cast<long long>(back), at + 1);
        rules::Position p = mp.boards[0].start;
        for (std::size_t i = 0; i < a_moves.size() && int(i) < at + plies + 3; ++i) {
          if (int(i) >= at) std::printf(" %s", rules::to_uci(p, a_moves[i]).c_str());
          if (a_moves[i].is_drop() && p.pocket(p.side_to_move(), a_moves[i].drop_type()) == 0)
            p.set_pocket(p.side_to_move(), a_moves[i].drop_type(), 1);
          p.do_move(a_moves[i]);
        }
        std::printf("\n");
      }
      // Named promotion pieces (FQE 11), told at the start of the promoting player's turn.
      for (const auto& n : namings) items.push_back({n.t, -1 - n.board, {n.t, rules::ClockReading{}}});
      std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.t < y.t; });
      std::size_t next_naming = 0;
      for (const auto& it : items) {
        if (it.board < 0) {
          for (; next_naming < namings.size() && namings[next_naming].t <= it.t; ++next_naming)
            match.set_promotion_piece(namings[next_naming].board, namings[next_naming].color,
                                      namings[next_naming].type);
          continue;
        }
        // Timers fire at their deadlines, as the daemon fires them.
        for (auto d = match.next_deadline(); d && *d <= it.t; d = match.next_deadline())
          take(match.advance(*d));
        take(match.on_sensor(it.board, it.e));
        // With the hold: the arbiter gives the moves played once two of A's moves wait behind the gap (or
        // its game ended): the gap's moves from its first ply to the position it was held at.
        if (held_from && !settled &&
            (match.board(0).held_moves() >= 2 || match.board(0).game().outcome() || &it == &items.back())) {
          const auto held_board = match.board(0).game().position_at(match.board(0).held_gap_end()).board();
          held_moves_max = std::max(held_moves_max, match.board(0).held_moves());
          std::string why;
          for (int last = *held_from; last <= int(played_a.size()) && !settled; ++last) {
            if (boards_a[std::size_t(last)] != held_board) continue;
            std::string text;
            for (int i = *held_from; i <= last; ++i) text += played_a[std::size_t(i - 1)] + " ";
            auto done = match.settle_gap(0, text, it.t);
            if (!done) {
              why += " [" + text + "refused: " + done.error() + "]";
            } else {
              settled = true;
              ++held_gaps;
              take(*done);
            }
          }
          if (!settled) other.push_back("A settle-gap (held)" + why);
          held_from.reset();
        }
        if (to_settle) {
          // The arbiter's moves: those played from the gap's first ply to the position the gap was told to
          // (he knows the game: the plies played that reach the board the gap's stories reach).
          const rules::Game& told = match.board(0).game();
          const auto told_board = told.position_at(std::min(told_to, told.ply_count())).board();
          std::vector<int> lasts;
          for (int last = *to_settle; last <= int(played_a.size()); ++last)
            if (boards_a[std::size_t(last)] == told_board) lasts.push_back(last);
          std::string why;
          for (int last : lasts) {
            if (settled || last < *to_settle || last > int(played_a.size())) continue;
            std::string text;
            for (int i = *to_settle; i <= last; ++i) text += played_a[std::size_t(i - 1)] + " ";
            auto done = match.settle_gap(0, text, it.t);
            if (!done) {
              why += " [" + text + "refused: " + done.error() + "]";
            } else {
              settled = true;
              take(*done);
            }
          }
          if (!settled) other.push_back("A settle-gap" + why);
          to_settle.reset();
        }
      }
      take(match.advance(std::max(built.tl[0].end_ms, built.tl[1].end_ms) + 10000));
      std::string where = "match " + std::to_string(gi) + ": gap of " + std::to_string(plies) +
                          " after ply " + std::to_string(at) + ": ";
      auto moves_of = [&](int b) {
        std::vector<std::string> out;
        rules::Position p = match.board(b).game().start();
        for (const auto& ply : match.board(b).game().plies()) {
          out.push_back(ply.jump ? "--" : rules::to_uci(p, ply.move));
          if (!ply.jump) p.do_move(ply.move);
        }
        return out;
      };
      auto want_of = [&](int b) {
        std::vector<std::string> out;
        rules::Position p = mp.boards[std::size_t(b)].start;
        for (rules::Move m : mp.boards[std::size_t(b)].moves) {
          out.push_back(rules::to_uci(p, m));
          if (m.is_drop() && p.pocket(p.side_to_move(), m.drop_type()) == 0)
            p.set_pocket(p.side_to_move(), m.drop_type(), 1);  // the partner's piece: only moves compared
          p.do_move(m);
        }
        return out;
      };
      std::string problem;
      std::vector<std::string> got_a = moves_of(0), want_a = want_of(0);
      if (settled && other.empty() && live_wrong.empty()) {
        // Settled: the record of both boards is the moves played (B's reserves took the gap's captures).
        if (got_a != want_a || moves_of(1) != want_of(1))
          problem = "after the arbiter's moves, plies " + std::to_string(got_a.size()) + "/" +
                    std::to_string(moves_of(1).size()) + ", want " + std::to_string(want_a.size()) + "/" +
                    std::to_string(want_of(1).size());
        // The match's record in the order the moves were completed, the gap's where it was told: a BPGN
        // whose every drop comes after the capture that handed its piece over (Match::renumber).
        if (auto text = rules::write_bpgn(match.record()); problem.empty() && !text)
          problem = "the BPGN after the arbiter's moves: " + text.error();
        if (problem.empty()) {
          ++settled_right;
          ambiguous[std::size_t(plies)] += 1;
        } else {
          ++problems[std::size_t(plies)];
          first_problem += where + problem + "\n";
        }
        continue;
      }
      if (other.empty() && missed.size() == 1 && said_uncertain && got_a.size() < want_a.size()) {
        ++told_short;
        told_short_list += where + "told " + std::to_string(want_a.size() - got_a.size()) +
                           " plies short, said so" + (live_wrong.empty() ? "" : " (" + live_wrong + ")") +
                           "\n";
        continue;
      }
      if (!live_wrong.empty() && other.empty()) {
        // (A move at a wrong ply with no alert that said it might be: the broadcast's wrong move.)
        ++problems[std::size_t(plies)];
        ++moves_wrong;
        first_problem += where + live_wrong + "\n";
        continue;
      }
      if (!other.empty())
        problem = "alert " + other.front();
      else if (missed.size() > 1)
        problem = std::to_string(missed.size()) + " moves-missed";
      else if (got_a.size() != want_a.size() || moves_of(1).size() != want_of(1).size())
        problem = "plies " + std::to_string(got_a.size()) + "/" + std::to_string(moves_of(1).size()) +
                  ", want " + std::to_string(want_a.size()) + "/" + std::to_string(want_of(1).size());
      else if (missed.size() == 1) {
        int first = missed[0]["first_ply"], last = missed[0]["last_ply"];
        std::vector<std::string> truth(want_a.begin() + first - 1, want_a.begin() + last);
        bool among = false;
        for (const auto& c : missed[0]["candidates"]) among |= c.get<std::vector<std::string>>() == truth;
        if (!among && !missed[0].contains("incomplete"))
          problem = "the true sequence is not among the candidates";
        for (std::size_t i = std::size_t(last); i < want_a.size() && problem.empty(); ++i)
          if (got_a[i] != want_a[i]) problem = "A ply " + std::to_string(i + 1) + " after the gap";
        moves_wrong += !problem.empty();
      } else if (got_a != want_a || moves_of(1) != want_of(1)) {
        for (int b = 0; b < 2 && problem.empty(); ++b) {
          auto got = moves_of(b), want = want_of(b);
          for (std::size_t i = 0; i < want.size() && problem.empty(); ++i)
            if (got[i] != want[i])
              problem = std::string(b ? "B" : "A") + " ply " + std::to_string(i + 1) + " is " + got[i] +
                        ", want " + want[i];
        }
        moves_wrong += !problem.empty();
      }
      if (!problem.empty()) {
        ++problems[std::size_t(plies)];
        first_problem += where + problem + "\n";
        continue;
      }
      unique[std::size_t(plies)] += missed.empty();
      ambiguous[std::size_t(plies)] += !missed.empty();
    }
  }
  for (int plies = 1; plies <= 6; ++plies)
    std::printf("  bughouse gap of %d: %d recovered, %d moves-missed, %d wrong\n", plies,
                unique[std::size_t(plies)], ambiguous[std::size_t(plies)], problems[std::size_t(plies)]);
  std::printf("  %d gaps, %d drops in them; %d told short by a moves-missed that said so\n", tried,
              drops_in_gaps, told_short);
  if (arbiter || hold)
    std::printf("  %d settled by the arbiter's moves, both records right\n", settled_right);
  if (hold)
    std::printf("  %d held with their length open, up to %d of A's moves behind one\n", held_gaps,
                held_moves_max);
  EXPECT_GT(tried, 40);
  EXPECT_GT(drops_in_gaps, 5);
  // Every gap right (the last residue: a press decided a scan late, the reply already on the board when
  // the gap's length began to wait for it, told a false illegal move at the next press).
  int wrong = problems[1] + problems[2] + problems[3] + problems[4];
  EXPECT_EQ(wrong, 0) << first_problem;
  // Past kDropHandPlies (5 and 6 plies: Reconstructor::drop_gap_bound), told as shorter ones are (measured
  // 2026-12-07: 33 of 44 right, 36 with the arbiter's moves; with the bound of 4 none was, and with last
  // session's rule of no story a ply longer or shorter, 4). No move goes out at a ply it was not played at
  // but after an alert that said it might (told_short).
  EXPECT_GE(unique[5] + ambiguous[5] + unique[6] + ambiguous[6], 30) << first_problem;
  EXPECT_EQ(moves_wrong, 0) << first_problem;
  if (std::getenv("GAP_PROBLEMS")) std::printf("%s%s", first_problem.c_str(), told_short_list.c_str());
  EXPECT_EQ(problems[1], 0) << first_problem;
  if (arbiter || hold) {
    EXPECT_EQ(told_short, 0) << told_short_list;
    EXPECT_GT(settled_right, 20);
  }
  if (hold) {
    EXPECT_GT(held_gaps, 20);
    EXPECT_GE(held_moves_max, 2);  // settled with moves held behind the gap, not only at once
  }
}

// Both boards' links lost at once (a hub's cable pulled, the host down) while each board plays 2 to 5
// plies, then back one after the other: board `first` at its first moment at rest, its partner `late_ms`
// later (at its own first moment at rest from then), both boards playing on meanwhile. A gap may drop a
// piece the partner's gap captured (daemon_bus_match_test's restart: 7.P@b5 on A with the pawn of B's
// 8...dxe4), searched again once the partner's gap hands it over. Each board's gap is recovered, or told
// once (a moves-missed); one told with a longer story possible is settled at once with the moves played (as
// the daemon test's arbiter does). No other alert, no move at a ply it was not played at, every ply of both
// games at the end. Returns the problems, one line each.
std::string run_bughouse_both_lost(int first, std::int64_t late_ms, int& tried) {
  const auto bpgn =
      std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse" / "chesscom_bughouse_20matches.bpgn";
  auto games = rules::read_bpgn(sim::test::slurp(bpgn));
  if (!games) return "the corpus does not read";
  std::string problems;
  for (std::size_t gi = 0; gi < games->size(); ++gi) {
    auto rec = rules::replay_bughouse((*games)[gi]);
    if (!rec) continue;
    sim::test::MatchPlan mp = sim::test::plan(*rec);
    sim::test::Built built = sim::test::build(mp, sim::HandStyle::tidy(), gi + 1);
    std::array<std::vector<std::string>, 2> want;
    std::array<std::vector<std::array<rules::Piece, 64>>, 2> boards;  // after each ply played (0: the start)
    for (int b = 0; b < 2; ++b) {
      rules::Position p = mp.boards[std::size_t(b)].start;
      boards[std::size_t(b)].push_back(p.board());
      for (rules::Move m : mp.boards[std::size_t(b)].moves) {
        want[std::size_t(b)].push_back(rules::to_uci(p, m));
        if (m.is_drop() && p.pocket(p.side_to_move(), m.drop_type()) == 0)
          p.set_pocket(p.side_to_move(), m.drop_type(), 1);
        p.do_move(m);
        boards[std::size_t(b)].push_back(p.board());
      }
    }
    // Each board's readings: from each event's time, whether its wood is the position after the plies
    // pressed by then (no piece in the air, no move shown and not pressed).
    std::array<std::vector<std::pair<std::int64_t, bool>>, 2> rest;
    for (int b = 0; b < 2; ++b) {
      std::array<rules::Piece, 64> wood{};
      std::size_t done = 0;
      const auto& tl = built.tl[std::size_t(b)];
      for (const auto& e : tl.events) {
        read_into(wood, e);
        while (done < tl.press_ms.size() && tl.press_ms[done] <= e.t_ms) ++done;
        rest[std::size_t(b)].push_back({e.t_ms, wood == boards[std::size_t(b)][done]});
      }
    }
    // At rest: board b's reading at `t` is so, and has been for 100 ms and stays so 100 ms more.
    const auto at_rest = [&](int b, std::int64_t t) {
      const auto& r = rest[std::size_t(b)];
      auto it = std::upper_bound(
          r.begin(), r.end(), t,
          [](std::int64_t x, const std::pair<std::int64_t, bool>& y) { return x < y.first; });
      if (it == r.begin()) return false;
      const auto& cur = *std::prev(it);
      return cur.second && t - cur.first >= 100 && (it == r.end() || it->first - t >= 100);
    };
    // The first moment from `from` when the boards in `which` are at rest; -1 if none.
    const auto quiet = [&](std::int64_t from, std::initializer_list<int> which) -> std::int64_t {
      const std::int64_t end = std::min(built.tl[0].end_ms, built.tl[1].end_ms) - 1000;
      for (std::int64_t t = from; t < end; t += 10)
        if (std::all_of(which.begin(), which.end(), [&](int b) { return at_rest(b, t); })) return t;
      return -1;
    };
    const auto pressed_by = [&](int b, std::int64_t t) {
      const auto& p = built.tl[std::size_t(b)].press_ms;
      return int(std::count_if(p.begin(), p.end(), [&](std::int64_t x) { return x <= t; }));
    };
    std::vector<std::int64_t> windows;  // the moments lost so far (attempts can land on one)
    for (std::size_t from = 2; from < built.tl[0].press_ms.size(); from += 2) {
      const std::int64_t lost = quiet(built.tl[0].press_ms[from], {0, 1});
      if (lost < 0) break;
      if (std::any_of(windows.begin(), windows.end(),
                      [&](std::int64_t w) { return std::abs(w - lost) < 1000; }))
        continue;
      windows.push_back(lost);
      const int plies =
          2 + (int(gi) + int(from / 2)) % 3;  // 2 to 4 plies of each board before the first is back
      std::int64_t t = lost;
      while (t < built.tl[0].end_ms && (pressed_by(0, t) < pressed_by(0, lost) + plies ||
                                        pressed_by(1, t) < pressed_by(1, lost) + plies))
        t += 50;
      std::array<std::int64_t, 2> back{};
      back[std::size_t(first)] = quiet(t, {0, 1});
      if (back[std::size_t(first)] < 0) break;
      back[std::size_t(first ^ 1)] = quiet(back[std::size_t(first)] + late_ms, {first ^ 1});
      if (back[std::size_t(first ^ 1)] < 0) break;
      const std::array<int, 2> gap_plies{pressed_by(0, back[0]) - pressed_by(0, lost),
                                         pressed_by(1, back[1]) - pressed_by(1, lost)};
      if (gap_plies[0] > 5 || gap_plies[1] > 5) continue;  // past the daemon's bound (kDropGapPlies)
      ++tried;
      struct Item {
        std::int64_t t;
        int board;
        rules::SensorEvent e;
      };
      std::vector<Item> items;
      for (int b = 0; b < 2; ++b) {
        // Each board's wood when it is back, and its clock reading held over the gap.
        std::array<rules::Piece, 64> wood{};
        std::optional<rules::ClockReading> held;
        for (const auto& e : built.tl[std::size_t(b)].events) {
          if (e.t_ms <= lost || e.t_ms > back[std::size_t(b)]) items.push_back({e.t_ms, b, e});
          if (e.t_ms > back[std::size_t(b)]) continue;
          read_into(wood, e);
          if (auto* r = std::get_if<rules::ClockReading>(&e.what); r && e.t_ms > lost) held = *r;
        }
        const std::int64_t bt = back[std::size_t(b)];
        items.push_back({lost, b, {lost, rules::DeviceLink{false}}});
        items.push_back({bt, b, {bt, rules::DeviceLink{true}}});
        items.push_back({bt, b, {bt, rules::BoardSnapshot{wood}}});
        if (held) items.push_back({bt, b, {bt, *held}});
      }
      const std::vector<sim::test::Naming> namings = sim::test::promotion_namings(mp, built);
      for (const auto& n : namings) items.push_back({n.t, -1 - n.board, {n.t, rules::ClockReading{}}});
      std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.t < y.t; });
      rules::Match match(rules::MatchConfig{}, rules::Game(mp.boards[0].start),
                         rules::Game(mp.boards[1].start));
      const std::string where = "match " + std::to_string(gi) + " lost " + std::to_string(lost) + " back " +
                                std::to_string(back[0]) + "/" + std::to_string(back[1]) + " (" +
                                std::to_string(gap_plies[0]) + "/" + std::to_string(gap_plies[1]) +
                                " plies): ";
      const bool tracing = std::getenv("GAP_BOTH_TRACE") && where.find(std::getenv("GAP_BOTH_TRACE")) == 0;
      if (tracing)
        for (int b = 0; b < 2; ++b) {
          std::printf("--- %c from ply %d:", b ? 'B' : 'A', pressed_by(b, lost) + 1);
          for (int i = pressed_by(b, lost);
               i < int(want[std::size_t(b)].size()) && i < pressed_by(b, lost) + 10; ++i)
            std::printf(" %s", want[std::size_t(b)][std::size_t(i)].c_str());
          std::printf("\n");
        }
      std::string problem;
      std::array<int, 2> missed{};
      // A gap told with a longer story possible, its first and last ply as told, settled by
      // the arbiter's moves (those played from its first ply to the position it was told at).
      std::array<std::optional<std::pair<int, int>>, 2> to_settle;
      const auto settle = [&](std::int64_t now, const auto& take_events) {
        for (int b = 0; b < 2; ++b) {
          if (!to_settle[std::size_t(b)]) continue;
          const auto [first_ply, last_ply] = *to_settle[std::size_t(b)];
          to_settle[std::size_t(b)].reset();
          const rules::Game& g = match.board(b).game();
          const auto told = g.position_at(std::min(last_ply, g.ply_count())).board();
          bool settled = false;
          std::string why;
          for (int last = first_ply; last < int(boards[std::size_t(b)].size()) && !settled; ++last) {
            if (boards[std::size_t(b)][std::size_t(last)] != told) continue;
            std::string text;
            for (int i = first_ply; i <= last; ++i) text += want[std::size_t(b)][std::size_t(i - 1)] + " ";
            if (auto done = match.settle_gap(b, text, now)) {
              settled = true;
              take_events(*done);
            } else {
              why += " [" + text + "refused: " + done.error() + "]";
            }
          }
          if (!settled && problem.empty()) problem = std::string(b ? "B" : "A") + " settle-gap" + why;
        }
      };
      auto take = [&](const std::vector<rules::Event>& evs) {
        for (const auto& e : evs) {
          const int b = e.board == "A" ? 0 : 1;
          if (tracing) {
            std::string line = "  " + std::to_string(e.t_ms) + " " + e.board + " " + rules::event_type(e);
            if (auto* m = std::get_if<rules::MoveEvent>(&e.what))
              line += " " + std::to_string(m->ply) + " " + m->uci + (m->recovered ? " recovered" : "");
            if (auto* al = std::get_if<rules::AlertEvent>(&e.what)) line += " " + al->code + " " + al->detail;
            std::printf("%s\n", line.c_str());
          }
          if (auto* m = std::get_if<rules::MoveEvent>(&e.what);
              m && !m->recovered && problem.empty() &&
              (m->ply < 1 || m->ply > int(want[std::size_t(b)].size()) ||
               want[std::size_t(b)][std::size_t(m->ply - 1)] != m->uci))
            problem = e.board + " " + m->uci + " went out as ply " + std::to_string(m->ply);
          if (auto* al = std::get_if<rules::AlertEvent>(&e.what)) {
            if (al->code == "moves-missed") {
              ++missed[std::size_t(b)];
              bool maybe_longer = false;
              for (const auto& f : al->extra) maybe_longer |= f.name == "length_uncertain";
              for (const auto& f : al->extra)
                if (maybe_longer && f.name == "last_ply")
                  to_settle[std::size_t(b)] = {al->ply, std::atoi(f.value.c_str())};
            } else if (al->code != "drop-before-partner-clock" && problem.empty()) {
              problem = e.board + " " + al->code + " at ply " + std::to_string(al->ply) + ": " + al->detail;
            }
          }
        }
      };
      std::size_t next_naming = 0;
      for (const auto& it : items) {
        for (auto d = match.next_deadline(); d && *d <= it.t; d = match.next_deadline()) {
          take(match.advance(*d));
          settle(*d, take);
        }
        if (it.board < 0) {
          for (; next_naming < namings.size() && namings[next_naming].t <= it.t; ++next_naming)
            match.set_promotion_piece(namings[next_naming].board, namings[next_naming].color,
                                      namings[next_naming].type);
          continue;
        }
        if (tracing) std::printf("%c%s\n", it.board ? 'B' : 'A', sensor_line(it.e).c_str());
        take(match.on_sensor(it.board, it.e));
        settle(it.t, take);
      }
      take(match.advance(std::max(built.tl[0].end_ms, built.tl[1].end_ms) + 10000));
      for (int b = 0; b < 2 && problem.empty(); ++b) {
        if (missed[std::size_t(b)] > 1) problem = std::string(b ? "B" : "A") + " told moves-missed twice";
        std::vector<std::string> got;
        rules::Position p = match.board(b).game().start();
        for (const auto& ply : match.board(b).game().plies()) {
          got.push_back(ply.jump ? "--" : rules::to_uci(p, ply.move));
          if (!ply.jump) p.do_move(ply.move);
        }
        if (got.size() != want[std::size_t(b)].size())
          problem = std::string(b ? "B" : "A") + " has " + std::to_string(got.size()) + " plies, want " +
                    std::to_string(want[std::size_t(b)].size());
      }
      if (!problem.empty()) problems += where + problem + "\n";
    }
  }
  return problems;
}

}  // namespace

TEST(GapRecoverySim, BughouseBoardALostForOneToSixPlies) { run_bughouse(false); }

// Both boards lost together and back in either order, the second a moment to three seconds after the first
// (a restart reads the bus's boards one after the other; a loaded host reads them seconds apart).
TEST(GapRecoverySim, BughouseBothBoardsLostAndBackOneAfterTheOther) {
  if (!std::filesystem::exists(std::filesystem::path(EBOARD_SHARED_DIR) / "corpora" / "bughouse"))
    GTEST_SKIP() << "../shared is absent";
  std::string problems;
  int tried = 0;
  for (int first = 0; first < 2; ++first)
    for (std::int64_t late : {0, 300, 1000, 3000}) {
      const int before = tried;
      const std::string p = run_bughouse_both_lost(first, late, tried);
      std::printf("  %s back first, the other %lld ms later: %d windows, %zu problems\n", first ? "B" : "A",
                  static_cast<long long>(late), tried - before,
                  std::size_t(std::count(p.begin(), p.end(), '\n')));
      problems += p;
    }
  EXPECT_GT(tried, 400);
  // Measured 2026-12-08 on 561 windows: 87 with a problem; 130 when a board searched again at each piece
  // its partner's gap handed over, only if its board had not changed, within the failures allowed (now once
  // per batch, one search more, the board as read if it moved on: Reconstructor::search_received). The rest
  // (issue 30): 5-ply gaps with drops past the search's work, the arbiter's moves refused where the told
  // story's reserves differ, a board whose gap waits for a press its partner's gap then changes.
  const auto count = std::count(problems.begin(), problems.end(), '\n');
  EXPECT_LE(count, 87) << problems;
  if (std::getenv("GAP_PROBLEMS")) std::printf("%s", problems.c_str());
}

// The gaps told with a longer story possible, settled by the arbiter's moves: every later move at its ply,
// and the pieces the longer story captured handed to the partner (Reconstructor::hand_over_the_difference).
TEST(GapRecoverySim, BughouseGapsToldShortAreSettledByTheArbitersMoves) { run_bughouse(true); }

// [gaps] hold_uncounted (issue 30): a gap whose length the clock cannot count is held, the shortest story's
// captures handed to B meanwhile; A's moves since wait, and go out at their plies once the arbiter gives the
// gap's moves (settled after two of them): no move of A at a wrong ply, and B's reserves right after.
TEST(GapRecoverySim, BughouseGapsOfUnknownLengthAreHeldUntilTheArbitersMoves) { run_bughouse(false, true); }

// No candidate of a gap goes out as a live move, and no move at a wrong ply where the board shows how many
// plies the gap held (issue 30).
TEST(GapRecoverySim, ALateReconnectPublishesNoCandidateLiveAndNoMoveAtAWrongPly) {
  run_late(PGN_DIR / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn", false, 40);
}

TEST(GapRecoverySim, ALateReconnectInChess960PublishesNoCandidateLiveAndNoMoveAtAWrongPly) {
  run_late(PGN_DIR / "chess960" / "tcec_s20_frc3_final_50games.pgn", true, 20);
}

// On a clock adding 5 s a move its presses are counted (rules/press_count.hpp): the stories two plies shorter
// than the one played are no longer told, nor a press without a move where moves came back to the position
// before the gap. Left: one story at the count's length past the search's work bound (standard game 39).
TEST(GapRecoverySim, ALateReconnectOnAnIncrementClockIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn", false, 40, 5000,
           false, 1);
}

TEST(GapRecoverySim, ALateReconnectInChess960OnAnIncrementClockIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "chess960" / "tcec_s20_frc3_final_50games.pgn", true, 20, 5000, false, 0);
}

// [gaps] hold_uncounted (issue 30): on the clock without increment, a gap of 4 plies or more is told with its
// length open and the moves since held back until the arbiter settles it; here he gives the moves played at
// once. Measured 2026-12-01: none of 636 standard runs told short (15 without the hold; 2 before an unseen
// press given back held the moves since), none of 320 Chess960 (19 without; 11 before the players' pace
// held gaps told at a reading too).
TEST(GapRecoverySim, ALateReconnectHeldWhereTheClockCountsNoPressesIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn", false, 40, 0, true,
           0);
}

TEST(GapRecoverySim, ALateReconnectInChess960HeldWhereTheClockCountsNoPressesIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "chess960" / "tcec_s20_frc3_final_50games.pgn", true, 20, 0, true, 0);
}

// The link lost with the gap's first move under way (the mover's piece lifted as the board goes out of
// sight): a story of fewer plies that does not begin with a move of that piece is not the one played
// (Reconstructor::stories_from_the_hand_at_loss). Measured 2026-12-01: 12 of 636 standard and 16 of 320
// Chess960 runs told short (15 and 19 before the hand was read; the rest detours after the first move):
// ceilings, lower them as it improves.
TEST(GapRecoverySim, ALateReconnectLostWithTheFirstMoveUnderWayIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "standard" / "shakmaty_lichess_db_2025-05_blitz_438games_clk.pgn", false, 40, 0, false,
           12, true);
}

TEST(GapRecoverySim, ALateReconnectInChess960LostWithTheFirstMoveUnderWayIsToldAtTheLengthPlayed) {
  run_late(PGN_DIR / "chess960" / "tcec_s20_frc3_final_50games.pgn", true, 20, 0, false, 16, true);
}
