// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/gap_judge.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/board_runtime.hpp"
#include "rules/notation.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::eboardd {

GapJudge::GapJudge(boost::asio::io_context& io, engine::GapEngineSettings settings)
    : io_(io), settings_(settings), ranker_(std::move(settings)), thread_([this] { run(); }) {}

GapJudge::~GapJudge() { stop(); }

void GapJudge::submit(Job job, Done done) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  std::erase_if(queue_, [&](const auto& waiting) { return waiting.first.board == job.board; });
  queue_.emplace_back(std::move(job), std::move(done));
  wake_.notify_one();
}

void GapJudge::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    queue_.clear();
  }
  ranker_.cancel();
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  ranker_.stop();
  engine_pid_ = -1;
}

void GapJudge::run() {
  for (;;) {
    std::pair<Job, Done> next;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    Job& job = next.first;
    std::vector<std::size_t> order(job.candidates.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto judged = ranker_.reorder(job.before, job.candidates, std::move(order), job.evidence);
    engine_pid_ = ranker_.engine_pid();
    std::optional<std::vector<std::size_t>> answer;
    if (judged) {
      answer = std::move(*judged);
    } else {
      bool stopping;
      {
        std::lock_guard lock(mutex_);
        stopping = stopping_;
      }
      if (stopping) break;
      spdlog::warn(
          "board {}: the engine gave no order for the gap from ply {} ({}): the candidates stay in the "
          "rules' order",
          job.board, job.first_ply, judged.error());
    }
    ++ranked_;
    boost::asio::post(io_, [done = std::move(next.second), answer = std::move(answer)]() mutable {
      done(std::move(answer));
    });
  }
}

void judge_missed_gap(GapJudge& judge, BoardRuntime& b) {
  const rules::Reconstructor* rec = b.reconstructor();
  if (!rec || !rec->missed_gap() || rec->missed_gap()->candidates.size() < 2) return;
  const auto& gap = *rec->missed_gap();
  GapJudge::Job job{b.id(), gap.first_ply, rec->game().position_at(std::max(0, gap.first_ply - 1)),
                    gap.candidates, gap.evidence};
  if (job.before.variant() != rules::Variant::Chess) return;
  judge.submit(std::move(job), [&b, alive = b.alive_token(), first_ply = gap.first_ply,
                                candidates = gap.candidates](std::optional<std::vector<std::size_t>> order) {
    if (alive.expired() || !order) return;
    b.set_engine_order(first_ply, candidates, std::move(*order));
    const std::vector<std::size_t>* shown = b.engine_order();
    if (!shown) return;  // the gap was settled, or replaced, meanwhile
    rules::Position p = b.reconstructor()->game().position_at(std::max(0, first_ply - 1));
    std::string first;
    for (rules::Move m : candidates[shown->front()]) {
      first += (first.empty() ? "" : " ") + rules::to_san(p, m);
      p.do_move(m);
    }
    spdlog::info("board {}: the engine ranked the gap from ply {}: its candidate 1 is now {}", b.id(),
                 first_ply, first);
  });
}

}  // namespace eboard::eboardd
