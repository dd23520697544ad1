// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// [push.lichess]: a hall behind NAT cannot be polled by lichess, so eboardd pushes the round's games to
// lichess' broadcast push API (POST /api/broadcast/round/<id>/push, PGN, a token with study:write) as they
// change. It pushes the public view only (behind [broadcast] delay_s), never more often than `interval`,
// and after a failure (refused, timed out, an error status) waits longer each time, up to a minute, then
// pushes the latest state: nothing queues up, the last push always carries every game.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <nlohmann/json.hpp>

namespace eboard::eboardd {

// lichess takes at most this many games in a broadcast round.
inline constexpr std::size_t LICHESS_ROUND_GAMES = 64;

// The games of a round (PGN as games_pgn writes it) as lichess rounds take them: standard chess and
// Chess960 only (a bughouse or crazyhouse board is left out), at most 64 a lichess round, split in the
// order of the text (board order) across `targets` rounds. What does not go, and why, is in `left_out`
// ([{"board", "white", "black", "reason"}]).
struct PushPlan {
  std::vector<std::string> pgn;  // one text a target, in the targets' order
  nlohmann::json left_out = nlohmann::json::array();
};
PushPlan plan_push(std::string_view pgn, std::size_t targets);

class LichessPush {
 public:
  struct Options {
    std::string url;    // the whole push URL (…/api/broadcast/round/<id>/push)
    std::string token;  // never logged
    std::chrono::milliseconds interval{3000};
    std::chrono::milliseconds timeout{10000};
    std::chrono::milliseconds max_backoff{60000};
  };
  // `pgn`: the games as the public may see them now.
  LichessPush(boost::asio::io_context& io, Options options, std::function<std::string()> pgn,
              std::function<std::int64_t()> now_ms);
  ~LichessPush();
  LichessPush(const LichessPush&) = delete;
  LichessPush& operator=(const LichessPush&) = delete;

  void start();
  void stop();
  // How the last push went (for /status).
  nlohmann::json status() const;

 private:
  void tick();
  void push(std::string pgn);
  void arm(std::chrono::milliseconds after);

  boost::asio::io_context& io_;
  Options options_;
  std::function<std::string()> pgn_;
  std::function<std::int64_t()> now_ms_;
  boost::asio::steady_timer timer_;
  bool running_ = false;
  bool in_flight_ = false;
  std::string pushed_;  // the text lichess last accepted
  int failures_ = 0;    // in a row
  std::uint64_t pushes_ok_ = 0;
  std::uint64_t pushes_failed_ = 0;
  std::int64_t last_attempt_ms_ = 0;
  std::int64_t last_ok_ms_ = 0;
  std::int64_t next_attempt_ms_ = 0;
  unsigned last_status_ = 0;
  std::string last_error_;
  int games_accepted_ = 0;   // in the last answer
  std::string game_errors_;  // lichess' complaints about games of the last push
  // An answer or a timer wait that comes after the pusher is gone finds this expired.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace eboard::eboardd
