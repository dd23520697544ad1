// eboardd as a whole, minus the process (main.cpp): the boards (each a BoardRuntime fed by a serial or
// demo source), the HTTP/WebSocket server and its routes, and configuration reloads. Everything runs on
// the one io_context the caller runs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/demo_match.hpp"
#include "daemon/eboardd/demo_source.hpp"
#include "daemon/eboardd/match_runtime.hpp"
#include "daemon/http/server.hpp"

namespace eboard::eboardd {

struct ServiceOptions {
  bool demo = false;  // boards are played by the demo (needs demo_corpus)
  std::shared_ptr<const DemoCorpus> demo_corpus;
  double demo_speed = 1.0;
  std::int64_t demo_pause_ms = 5000;
  std::function<std::int64_t()> clock;  // Unix ms; empty: the system clock
  double clock_rate = 1.0;              // clock ms per real ms (tests run serial boards' clocks faster)
  // Makes a board's source (tests); empty: a serial board, or a demo board in demo mode.
  std::function<std::unique_ptr<BoardSource>(const config::BoardConfig&, BoardRuntime&)> source_factory;
  // The demo's bughouse matches (a `[[match]]` in demo mode plays them).
  std::shared_ptr<const DemoMatchCorpus> demo_match_corpus;
  // Makes a match's feed (tests; null: the test feeds MatchRuntime itself); empty: two serial boards, or
  // the demo's matches in demo mode.
  std::function<std::unique_ptr<MatchFeed>(MatchRuntime&)> match_feed_factory;
  http::ServerOptions http;  // limits and timeouts; max_clients and ws_queue_bytes come from the config
  std::string version = "0.1.0";
};

class Service {
 public:
  Service(boost::asio::io_context& io, config::Config config, ServiceOptions options);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Locks the state directory, recovers and starts every board, listens. Fails on what stops the whole
  // daemon (state directory, listening socket); a board that cannot start is reported and skipped.
  tl::expected<void, std::string> start();
  void stop();
  // Applies a new configuration: boards that did not change keep running (and keep their clients);
  // removed ones stop, changed ones restart (their game continues from the journal), new ones start.
  // [http] and state_dir need a restart: they keep their old values, with a warning.
  config::ConfigDiff reload(config::Config next);

  const config::Config& config() const { return config_; }
  std::optional<boost::asio::ip::tcp::endpoint> endpoint() const { return endpoint_; }
  BoardRuntime* board(std::string_view id);
  const std::vector<std::unique_ptr<BoardRuntime>>& boards() const { return boards_; }
  MatchRuntime* match(std::string_view name);
  const std::vector<std::unique_ptr<MatchRuntime>>& matches() const { return matches_; }
  http::Server& http_server() { return *http_; }

  http::Response handle(const http::Request& r);
  std::vector<std::string> snapshot() const;
  std::string games_pgn() const;
  nlohmann::json status() const;

 private:
  void add_board(const config::BoardConfig& b, std::size_t index);
  void remove_board(const std::string& id);
  void add_match(const config::MatchConfig& m);
  const config::MatchConfig* match_of(const std::string& board_id) const;
  void order_boards();
  http::Response control(const http::Request& r);
  bool token_ok(const std::string& given) const;

  boost::asio::io_context& io_;
  config::Config config_;
  ServiceOptions options_;
  std::unique_ptr<http::Server> http_;
  std::optional<boost::asio::ip::tcp::endpoint> endpoint_;
  // Before boards_: a match board's source uses its match until the board is destroyed.
  std::vector<std::unique_ptr<MatchRuntime>> matches_;
  std::vector<std::unique_ptr<BoardRuntime>> boards_;
  std::map<std::string, std::string> failed_;  // board id → why it is not running
  int lock_fd_ = -1;
  std::int64_t started_ms_ = 0;
  bool running_ = false;
};

}  // namespace eboard::eboardd
