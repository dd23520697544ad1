// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/lichess_push.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "daemon/http/client.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

PushPlan plan_push(std::string_view pgn, std::size_t targets) {
  PushPlan plan;
  plan.pgn.resize(targets);
  // Each game's text: from its first line to the next game's (the reader numbers the lines).
  std::vector<std::size_t> line_at{0};  // offset of each line (1-based: line_at[n] is line n's)
  line_at.push_back(0);
  for (std::size_t i = 0; i < pgn.size(); ++i)
    if (pgn[i] == '\n') line_at.push_back(i + 1);
  struct Game {
    std::size_t from;
    std::string board, white, black, variant;
  };
  std::vector<Game> games;
  rules::PgnReader reader(pgn);
  while (auto next = reader.next()) {
    if (!*next) continue;  // the writer's own text: not expected; such a game is not pushed
    const auto& g = **next;
    const std::size_t line = std::size_t(std::max(1, g.line));
    games.push_back({line < line_at.size() ? line_at[line] : pgn.size(),
                     std::string(g.tag("Board").value_or("")), std::string(g.tag("White").value_or("?")),
                     std::string(g.tag("Black").value_or("?")), std::string(g.tag("Variant").value_or(""))});
  }
  std::size_t sent = 0;
  for (std::size_t i = 0; i < games.size(); ++i) {
    const Game& g = games[i];
    const std::size_t to = i + 1 < games.size() ? games[i + 1].from : pgn.size();
    std::string_view text = pgn.substr(g.from, to - g.from);
    std::string reason;
    if (!g.variant.empty() && g.variant != "Chess960" && g.variant != "Standard")
      reason = "variant " + g.variant + ": lichess broadcasts take standard chess and Chess960 only";
    else if (sent >= targets * LICHESS_ROUND_GAMES)
      reason = targets == 0 ? "no lichess round for this round ([push.lichess] round or rounds)"
                            : "more than " + std::to_string(targets * LICHESS_ROUND_GAMES) + " games for " +
                                  std::to_string(targets) + " lichess round" + (targets > 1 ? "s" : "") +
                                  " (64 each): name more in [push.lichess] rounds";
    if (!reason.empty()) {
      plan.left_out.push_back(
          {{"board", g.board}, {"white", g.white}, {"black", g.black}, {"reason", reason}});
      continue;
    }
    std::string& out = plan.pgn[sent / LICHESS_ROUND_GAMES];
    out.append(text);
    if (!out.ends_with("\n\n")) out += out.ends_with('\n') ? "\n" : "\n\n";
    ++sent;
  }
  return plan;
}

LichessPush::LichessPush(boost::asio::io_context& io, Options options, std::function<std::string()> pgn,
                         std::function<std::int64_t()> now_ms)
    : io_(io), options_(std::move(options)), pgn_(std::move(pgn)), now_ms_(std::move(now_ms)), timer_(io) {}

LichessPush::~LichessPush() { stop(); }

void LichessPush::start() {
  running_ = true;
  arm(std::chrono::milliseconds(0));
}

void LichessPush::stop() {
  running_ = false;
  timer_.cancel();
}

void LichessPush::arm(std::chrono::milliseconds after) {
  timer_.expires_after(after);
  // A wait that has already fired runs even after a cancel: the token tells it whether the pusher is still
  // here.
  timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (!ec && !alive.expired() && running_) tick();
  });
}

void LichessPush::tick() {
  if (!in_flight_) {
    std::string pgn = pgn_();
    if (pgn != pushed_) push(std::move(pgn));
  }
  if (!in_flight_) arm(options_.interval);
}

void LichessPush::push(std::string pgn) {
  in_flight_ = true;
  last_attempt_ms_ = now_ms_();
  http::ClientRequest req;
  req.url = options_.url;
  req.timeout = options_.timeout;
  req.headers.push_back({"Authorization", "Bearer " + options_.token});
  req.body = pgn;
  http::fetch(io_, std::move(req), [this, alive = std::weak_ptr<bool>(alive_), pgn](http::ClientResponse r) {
    if (alive.expired()) return;  // the pusher is gone (a reload)
    in_flight_ = false;
    last_status_ = r.status;
    if (r.status >= 200 && r.status < 300) {
      pushed_ = pgn;
      ++pushes_ok_;
      last_ok_ms_ = now_ms_();
      if (failures_ > 0) spdlog::info("lichess push: works again after {} failures", failures_);
      failures_ = 0;
      last_error_.clear();
      // {"games": [{"tags": {...}, "moves": N} or {"tags": {...}, "error": "..."}]}
      games_accepted_ = 0;
      game_errors_.clear();
      auto j = nlohmann::json::parse(r.body, nullptr, false);
      if (j.is_object() && j.contains("games") && j["games"].is_array())
        for (const auto& g : j["games"]) {
          if (g.is_object() && g.contains("error") && g["error"].is_string()) {
            if (!game_errors_.empty()) game_errors_ += "; ";
            game_errors_ += g["error"].get<std::string>();
          } else {
            ++games_accepted_;
          }
        }
      if (!game_errors_.empty()) spdlog::warn("lichess push: lichess refused games: {}", game_errors_);
      if (running_) arm(options_.interval);
      return;
    }
    ++failures_;
    ++pushes_failed_;
    last_error_ = r.status ? "HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 200) : r.error;
    // Half as long again after every failure in a row, from the interval up to max_backoff: a short
    // outage costs a few seconds, a long one no more than a push a minute.
    double factor = 1;
    for (int i = 0;
         i < failures_ && factor * double(options_.interval.count()) < double(options_.max_backoff.count());
         ++i)
      factor *= 1.5;
    auto wait = std::min(options_.max_backoff,
                         std::chrono::milliseconds(std::int64_t(factor * double(options_.interval.count()))));
    next_attempt_ms_ = now_ms_() + wait.count();
    if (failures_ == 1 || failures_ % 10 == 0)
      spdlog::warn("lichess push failed ({} in a row): {}; next try in {} s", failures_, last_error_,
                   wait.count() / 1000);
    if (running_) arm(wait);
  });
}

nlohmann::json LichessPush::status() const {
  return {{"url", options_.url},
          {"pushes_ok", pushes_ok_},
          {"pushes_failed", pushes_failed_},
          {"failures_in_a_row", failures_},
          {"last_attempt", last_attempt_ms_},
          {"last_ok", last_ok_ms_},
          {"last_status", last_status_},
          {"last_error", last_error_},
          {"next_attempt", failures_ ? next_attempt_ms_ : 0},
          {"in_flight", in_flight_},
          {"games_accepted", games_accepted_},
          {"game_errors", game_errors_}};
}

}  // namespace eboard::eboardd
