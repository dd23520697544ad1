// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The control interface's actions (issue 6), beside the routing in Service::control(): arbiter input to
// one board's game (promotion piece, acknowledging an alert, draw by agreement, resignation, adjournment
// with a sealed move and its resumption), a board added or removed at runtime (no udev), and what
// /status shows of it. Every action that changes the game goes through BoardRuntime::control(): journaled,
// replayed on recovery, its events published on /ws and written to the PGN like reconstruction's.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/http/server.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::eboardd {

// Answers POST /control/<board>/<action> for promotion, ack, draw, resign, adjourn, resume, recover (a
// missed gap settled) and adopt (the game followed from the board's position) (the token
// was checked). `match` is the name of the bughouse match the board plays in, empty if none. Nothing for
// any other action.
std::optional<http::Response> control_action(BoardRuntime& b, const std::string& action,
                                             const nlohmann::json& body, const std::string& match);

// The board of POST /boards: {"id", "port", "protocol"}, optional "rules", "chess960", "raw_log"; checked
// like a [[board]] of the configuration.
tl::expected<config::BoardConfig, std::string> board_from_json(const nlohmann::json& body);

// Adds to each board of a /status answer ("boards" array, in the order of `boards`) what control keeps:
// the adjournment, the game's alerts numbered for `ack`, with their acknowledgement, the gap waiting for
// `recover` (missed_gap).
void add_control_status(nlohmann::json& status, const std::vector<std::unique_ptr<BoardRuntime>>& boards);

http::Response control_error(unsigned status, const std::string& reason);

// A gap waiting for the arbiter (moves-missed): its plies and candidates, the likeliest first, numbered
// from 1 as `recover` takes them, each in UCI (as in the alert) and SAN: the first as many as the alert
// lists, and candidates_total (recover takes any number up to it, or the moves typed). With `order`
// (BoardRuntime::shown_order: an engine's, `by_engine`, or the one the alert published before a restart) the
// candidates are shown, and numbered, in that order; ranked_by says whose ("rules" or "engine"). In the
// rules' order as ranked now, with `shares` (BoardRuntime::gap_shares), each listed candidate has its share
// (0 to 1, how sure the ranking is of it) and listed_share is theirs together.
nlohmann::json missed_gap_json(const rules::Reconstructor& rec, const std::vector<std::size_t>* order,
                               bool by_engine, const std::vector<double>* shares);

// A control's answer that is made on the loop once work on the background threads is done (a new game's
// journal file, an arbiter's correction written and signed), without the loop waiting for it. `settle` is
// called on the loop with the answer (the first call counts; never called, or given up at a stop: 503).
// `response()` is what the route returns: the answer itself if settled already, else a deferred response
// whose server worker thread waits for it, at most `within` (then 504, naming `what`). Each is one of
// `io`'s pending answers (below) until settled.
struct LaterAnswer {
  std::function<void(http::Response)> settle;
  std::function<http::Response()> response;
};
// `advice` ends the 504's error: what to check.
LaterAnswer later_answer(boost::asio::io_context& io, std::chrono::milliseconds within, std::string what,
                         std::string advice = "the disk is slow; see /status");

// The later answers of one io_context not settled yet. A stopping daemon gives them up (Service's stop,
// and the io_context's destruction): each is settled with 503 ("the daemon stopped before <what> was
// done"), so that no thread (an HTTP worker, the hall's AnswerWaits) waits out its bound for an answer the
// stopped loop will never make. Thread-safe.
class PendingAnswers {
 public:
  void add(std::weak_ptr<std::promise<http::Response>> answer, std::string what);
  // Settles every answer still pending with 503; returns how many were.
  std::size_t abandon();

 private:
  std::mutex mutex_;
  std::vector<std::pair<std::weak_ptr<std::promise<http::Response>>, std::string>> pending_;
};
PendingAnswers& pending_answers(boost::asio::io_context& io);

}  // namespace eboard::eboardd
