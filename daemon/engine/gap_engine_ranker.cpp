// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/engine/gap_engine_ranker.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "rules/movegen.hpp"

namespace eboard::engine {

using namespace rules;

namespace {
constexpr int kMateScore = 1000;      // centipawns: a mate found counts as ten pawns
constexpr int kMaxLossPerMove = 500;  // a blunder costs at most five pawns: the worst is not likelier
}  // namespace

std::optional<int> uci_info_score(std::string_view line) {
  if (line.substr(0, 5) != "info ") return std::nullopt;
  const auto at = line.find(" score ");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 7);
  const auto space = rest.find(' ');
  const std::string_view kind = rest.substr(0, space);
  if (space == std::string_view::npos) return std::nullopt;
  rest = rest.substr(space + 1);
  long long v = 0;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc() || (end != rest.data() + rest.size() && *end != ' ')) return std::nullopt;
  if (kind == "mate") return v > 0 ? kMateScore : -kMateScore;  // "mate 0": the side on move is mated
  if (kind == "cp") return int(std::clamp<long long>(v, -kMateScore, kMateScore));
  return std::nullopt;
}

GapEngineRanker::GapEngineRanker(GapEngineSettings settings) : settings_(std::move(settings)) {}

GapEngineRanker::~GapEngineRanker() { engine_.stop(); }

tl::expected<void, std::string> GapEngineRanker::ready(bool chess960,
                                                       UciProcess::Clock::time_point deadline) {
  if (!engine_.running()) {
    if (auto started = engine_.start(settings_.path, deadline); !started)
      return tl::unexpected(started.error());
    engine_.send("setoption name Threads value 1");
    engine_.send("setoption name Hash value 16");
    chess960_ = false;
    scores_.clear();
  }
  if (chess960 != chess960_) {
    engine_.send(std::string("setoption name UCI_Chess960 value ") + (chess960 ? "true" : "false"));
    chess960_ = chess960;
  }
  engine_.send("ucinewgame");  // each gap judged alike, whatever came before
  if (!engine_.send("isready") || !engine_.wait_for("readyok", deadline))
    return tl::unexpected(settings_.path + " stopped answering");
  return {};
}

tl::expected<int, std::string> GapEngineRanker::score(const Position& p,
                                                      UciProcess::Clock::time_point deadline) {
  if (auto it = scores_.find(p.key()); it != scores_.end()) return it->second;
  engine_.send("position fen " + p.fen(p.chess960()));
  if (!engine_.send("go nodes " + std::to_string(settings_.nodes)))
    return tl::unexpected(settings_.path + " exited");
  int value = 0;
  for (;;) {
    const auto line = engine_.read_line(deadline);
    if (!line)
      return tl::unexpected(settings_.path + (engine_.running() ? " exited" : " gave no answer in time"));
    if (line->rfind("bestmove", 0) == 0) break;
    if (const auto v = uci_info_score(*line)) value = *v;  // the last, deepest, counts
  }
  scores_.emplace(p.key(), value);
  return value;
}

tl::expected<std::vector<double>, std::string> GapEngineRanker::engine_costs(
    const Position& before, const std::vector<std::vector<Move>>& candidates,
    UciProcess::Clock::time_point deadline) {
  if (before.variant() != Variant::Chess)
    return tl::unexpected(std::string("the engine ranks standard chess and Chess960 only"));
  if (auto ok = ready(before.chess960(), deadline); !ok) return tl::unexpected(ok.error());
  scores_.clear();  // each gap's own positions: its time is its own
  std::vector<double> out;
  out.reserve(candidates.size());
  for (const auto& seq : candidates) {
    Position p = before;
    auto e = score(p, deadline);
    if (!e) return tl::unexpected(e.error());
    double cost = 0;
    for (Move m : seq) {
      p.do_move(m);
      // A position with no legal move: the engine has nothing to search; mated or stalemated is the end.
      const bool over = MoveList(p).size() == 0;
      auto after = over ? tl::expected<int, std::string>(p.in_check() ? -kMateScore : 0) : score(p, deadline);
      if (!after) return tl::unexpected(after.error());
      // The mover's score before, less what it became (the other side's score after, negated).
      cost += std::clamp(*e + *after, 0, kMaxLossPerMove) / 100.0;
      e = after;
    }
    out.push_back(cost);
  }
  return out;
}

tl::expected<std::vector<std::size_t>, std::string> GapEngineRanker::rank(
    const Position& before, const std::vector<std::vector<Move>>& candidates, const GapEvidence& evidence) {
  return reorder(before, candidates, rank_gap_candidates(before, candidates, evidence), evidence);
}

tl::expected<std::vector<std::size_t>, std::string> GapEngineRanker::reorder(
    const Position& before, const std::vector<std::vector<Move>>& candidates, std::vector<std::size_t> order,
    const GapEvidence& evidence) {
  const auto deadline = UciProcess::Clock::now() + std::chrono::milliseconds(settings_.timeout_ms);
  if (order.size() != candidates.size())
    return tl::unexpected(std::string("the order is not the candidates'"));
  const std::size_t top = std::min(settings_.top, order.size());
  if (top < 2) return order;
  std::vector<std::vector<Move>> head;
  head.reserve(top);
  for (std::size_t i = 0; i < top; ++i) head.push_back(candidates[order[i]]);
  const auto engine = engine_costs(before, head, deadline);
  if (!engine) return tl::unexpected(engine.error());
  GapEvidence per_head = evidence;  // the per-sequence parts follow the candidates' indices, not head's
  per_head.seen.clear();
  per_head.outside_cost.clear();
  const std::vector<double> pure = gap_sequence_costs(before, head, per_head);
  auto seen = [&](std::size_t i) { return order[i] < evidence.seen.size() ? evidence.seen[order[i]] : 0; };
  std::vector<std::size_t> by(top);
  std::iota(by.begin(), by.end(), std::size_t(0));
  std::stable_sort(by.begin(), by.end(), [&](std::size_t a, std::size_t b) {
    if (seen(a) != seen(b)) return seen(a) > seen(b);
    return pure[a] + settings_.weight * (*engine)[a] < pure[b] + settings_.weight * (*engine)[b];
  });
  std::vector<std::size_t> out;
  out.reserve(order.size());
  for (std::size_t i : by) out.push_back(order[i]);
  out.insert(out.end(), order.begin() + std::ptrdiff_t(top), order.end());
  return out;
}

}  // namespace eboard::engine
