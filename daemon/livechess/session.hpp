// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One LiveChess WebSocket client's conversation, with no I/O: its requests answered (eboards, sources,
// subscribe, unsubscribe, call setup/flip) and its eboardevent feeds, each sent only what changed for it.
// The boards and what a setup does are the Host's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/livechess/protocol.hpp"

namespace eboard::livechess {

class Host {
 public:
  virtual ~Host() = default;
  virtual std::vector<BoardView> boards() = 0;
  // `call` setup: the board is to follow a game from `fen` (LiveChess: the position the client expects).
  virtual tl::expected<void, std::string> setup(const BoardView& board, const std::string& fen) = 0;
  // `call` flip: the board is set up turned round (or not).
  virtual tl::expected<void, std::string> flip(const BoardView& board, bool flipped) = 0;
  virtual std::int64_t now_ms() = 0;
};

class Session {
 public:
  // Feeds one client may hold at once (a client subscribing in a loop costs no more than this).
  static constexpr std::size_t MAX_FEEDS = 64;

  explicit Session(Host& host) : host_(host) {}

  // The answers to one message: its response (or error), then the first feed message of a subscription.
  std::vector<std::string> handle(std::string_view text);
  // Feed messages for this client's subscriptions to `boards`' boards that changed since it was last told.
  std::vector<std::string> changed(const std::vector<BoardView>& boards);
  std::size_t feeds() const { return feeds_.size(); }

 private:
  struct Feed {
    nlohmann::json id;  // the client's feed id, as it sent it
    std::string serialnr;
    std::optional<BoardView> last;  // what the client was sent last
  };
  std::vector<std::string> subscribe(const Request& r);
  std::vector<std::string> call(const Request& r);
  std::optional<BoardView> find(const std::string& serialnr);
  std::string feed_message(Feed& f, const BoardView& v);

  Host& host_;
  std::map<std::string, Feed> feeds_;  // by the feed id's JSON text
};

}  // namespace eboard::livechess
