// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd's HTTP and WebSocket side against a real server on 127.0.0.1 (an ephemeral port): /games.pgn,
// /status, the WebSocket snapshot followed by live events, a slow client dropped while others keep up,
// hostile clients (garbage, huge headers, slowloris, too many connections), the token for control, and a
// reload that keeps unchanged boards (and their clients) running.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>

#include "../daemon_journal/manual_source.hpp"
#include "daemon/eboardd/service.hpp"
#include "tests/io/io_test_support.hpp"

using namespace eboard;
namespace fs = std::filesystem;
namespace asio = boost::asio;
namespace beast = boost::beast;
using nlohmann::json;
using namespace std::chrono_literals;
using io::test::eventually;
using io::test::kWait;

namespace {

constexpr std::int64_t T0 = 1'700'000'000'000;
// The daemons' clock stands at T0 plus this (a test of the broadcast delay moves it on).
std::atomic<std::int64_t> clock_offset_ms{0};

std::string base_config(const std::string& extra_http = "", const std::string& more = "") {
  return "[http]\nlisten = \"127.0.0.1:0\"\n" + extra_http +
         "\n[[board]]\nid = \"A\"\nport = \"/dev/null\"\n[[board]]\nid = \"B\"\nport = \"/dev/null\"\n" +
         more;
}

// A running service on its own thread; the test talks to it over sockets, and touches it only through
// on_io (run on the service's thread).
class Daemon {
 public:
  // `keep_dir`: run on that state directory and leave it (a restart test); else a fresh one, removed after.
  explicit Daemon(const std::string& toml, http::ServerOptions http_options = {},
                  const fs::path& keep_dir = {}, std::chrono::milliseconds ticket_ttl = 30s)
      : keep_(!keep_dir.empty()) {
    dir_ = keep_ ? keep_dir
                 : fs::temp_directory_path() /
                       ("eboard-http-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    if (!keep_) fs::remove_all(dir_);
    auto cfg = config::parse_config(toml, "test.toml");
    EXPECT_TRUE(cfg) << (cfg ? "" : cfg.error().what());
    cfg->state_dir = dir_.string();
    eboardd::ServiceOptions o;
    o.clock = [] { return T0 + clock_offset_ms.load(); };
    o.http = http_options;
    o.ticket_ttl = ticket_ttl;
    o.source_factory = [this](const config::BoardConfig& b, eboardd::BoardRuntime& rt) {
      auto s = std::make_unique<test_support::ManualSource>(rt, std::move(rt.recovery().machine));
      sources_[b.id] = s.get();
      return s;
    };
    service_ = std::make_unique<eboardd::Service>(io_, *cfg, o);
    auto ok = service_->start();
    EXPECT_TRUE(ok) << (ok ? "" : ok.error());
    port_ = service_->endpoint() ? service_->endpoint()->port() : 0;
    thread_ = std::thread([this] { io_.run(); });
  }
  ~Daemon() {
    on_io([this] { service_->stop(); });
    work_.reset();
    io_.stop();
    thread_.join();
    service_.reset();
    if (!keep_) fs::remove_all(dir_);
  }

  template <class F>
  auto on_io(F f) -> decltype(f()) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto result = task.get_future();
    asio::post(io_, [&task] { task(); });
    return result.get();
  }
  void feed(const std::string& board, const std::vector<rules::SensorEvent>& events) {
    on_io([&] {
      for (const auto& e : events) sources_.at(board)->feed(e);
    });
  }
  // Runs `board`'s timers due up to `t_ms` (the deadlines a live board's timer would have fired).
  void advance(const std::string& board, std::int64_t t_ms) {
    on_io([&] { sources_.at(board)->run_timers_until(t_ms); });
  }
  // Waits until `board` has published what it journaled (its syncs done on the syncer threads: seconds on
  // a disk loaded by other builds).
  void settle(const std::string& board) {
    if (eventually(
            [&] {
              return on_io([&] { return service_->board(board)->status()["journal"]["awaiting_sync"] == 0; });
            },
            kWait, 1ms))
      return;
    ADD_FAILURE() << "board " << board << ": events still waiting for the journal after 15 s";
  }
  int plies(const std::string& board) {
    return on_io([&] { return service_->board(board)->game().ply_count(); });
  }
  std::uint16_t port() const { return port_; }
  eboardd::Service& service() { return *service_; }
  const fs::path& dir() const { return dir_; }

 private:
  static inline int counter_ = 0;
  bool keep_ = false;
  fs::path dir_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::unique_ptr<eboardd::Service> service_;
  std::map<std::string, test_support::ManualSource*> sources_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

// A plain TCP connection with receive timeouts (POSIX, so a test never hangs).
class Conn {
 public:
  // `source`: the client's loopback address (127.0.0.x), for the per-address budgets.
  explicit Conn(std::uint16_t port, int rcvbuf = 0, const char* source = nullptr) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (rcvbuf) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    timeval tv{15, 0};  // bounds a hang; every read here waits for an answer that comes
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (source) {
      sockaddr_in from{};
      from.sin_family = AF_INET;
      ::inet_pton(AF_INET, source, &from.sin_addr);
      ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from);
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Conn() { ::close(fd_); }
  bool connected() const { return connected_; }
  int fd() const { return fd_; }
  bool send(std::string_view s) { return ::send(fd_, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size()); }
  // Everything until the peer closes (or the timeout): "" on a timeout with nothing read.
  std::string read_all() {
    std::string out;
    char buf[65536];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      out.append(buf, std::size_t(n));
    }
    return out;
  }
  // True if the peer closed the connection within the timeout.
  bool closed_by_peer() {
    char c;
    ssize_t n = ::recv(fd_, &c, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

struct Reply {
  int status = 0;
  std::string body;
  std::string head;
};

// Not a GET: a JSON body, as control requires (unless the test names a Content-Type of its own).
Reply request(std::uint16_t port, const std::string& method, const std::string& target,
              const std::string& body = "", const std::string& extra_headers = "") {
  Conn c(port);
  const bool typed = method == "GET" || extra_headers.find("Content-Type:") != std::string::npos;
  c.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
         "\r\nConnection: close\r\n" + extra_headers + (typed ? "" : "Content-Type: application/json\r\n") +
         (body.empty() && method == "GET" ? "" : "Content-Length: " + std::to_string(body.size()) + "\r\n") +
         "\r\n" + body);
  std::string all = c.read_all();
  Reply r;
  if (all.size() > 12 && all.rfind("HTTP/1.1 ", 0) == 0) r.status = std::stoi(all.substr(9, 3));
  auto split = all.find("\r\n\r\n");
  r.head = all.substr(0, split);
  if (split != std::string::npos) r.body = all.substr(split + 4);
  return r;
}

Reply get(std::uint16_t port, const std::string& target, const std::string& headers = "") {
  return request(port, "GET", target, "", headers);
}

// A WebSocket client on its own io_context: every wait is bounded.
class WsClient {
 public:
  explicit WsClient(std::uint16_t port, int rcvbuf = 0, const std::string& target = "/ws",
                    std::vector<std::pair<std::string, std::string>> headers = {}) {
    auto& s = ws_.next_layer();
    s.open(asio::ip::tcp::v4());
    if (rcvbuf) s.set_option(asio::socket_base::receive_buffer_size(rcvbuf));
    ws_.set_option(beast::websocket::stream_base::decorator([headers](beast::websocket::request_type& req) {
      for (const auto& [k, v] : headers) req.set(k, v);
    }));
    beast::error_code ec;
    s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    if (!ec) ws_.handshake(response_, "127.0.0.1:" + std::to_string(port), target, ec);
    ok_ = !ec;
    error_ = ec.message();
  }
  // The handshake's answer when accepted (the chosen subprotocol).
  const beast::websocket::response_type& response() const { return response_; }
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  // The next message, or nullopt on a timeout or a closed connection. A read that times out stays
  // pending (cancelling would break the WebSocket stream) and the next call goes on waiting for it.
  std::optional<std::string> read(std::chrono::milliseconds timeout = kWait) {
    if (closed_) return std::nullopt;
    if (!pending_) {
      pending_ = true;
      done_ = false;
      buf_.clear();
      ws_.async_read(buf_, [this](beast::error_code ec, std::size_t) {
        done_ = true;
        result_ = ec;
      });
    }
    ioc_.restart();
    ioc_.run_for(timeout);
    if (!done_) return std::nullopt;
    pending_ = false;
    if (result_) {
      closed_ = true;
      return std::nullopt;
    }
    return beast::buffers_to_string(buf_.data());
  }
  bool closed() const { return closed_; }
  // Sends a text message (blocking; the server reads while its loop runs on another thread).
  bool write(const std::string& text) {
    beast::error_code ec;
    ws_.text(true);
    ws_.write(asio::buffer(text), ec);
    return !ec;
  }

 private:
  asio::io_context ioc_;
  beast::websocket::stream<asio::ip::tcp::socket> ws_{ioc_};
  beast::websocket::response_type response_;
  beast::flat_buffer buf_;
  beast::error_code result_;
  bool pending_ = false;
  bool done_ = false;
  bool ok_ = false;
  bool closed_ = false;
  std::string error_;
};

// Counts the move messages `ws` gets (`board`'s only, when given): waits up to 15 s for `want` of them, then
// `quiet` more to see that no more come (a starved machine can only make that part pass).
int count_moves(WsClient& ws, int want, std::chrono::milliseconds quiet = 300ms,
                const std::string& board = "") {
  int moves = 0;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!ws.closed()) {
    const bool wanting = moves < want && std::chrono::steady_clock::now() < deadline;
    auto m = ws.read(wanting ? 1000ms : quiet);
    if (!m) {
      if (wanting) continue;
      break;
    }
    json j = json::parse(*m);
    if (j["type"] == "move" && (board.empty() || j["board"] == board)) ++moves;
  }
  return moves;
}

// The status a WebSocket upgrade gets (`headers`: "Name: value\r\n" lines; a Host among them replaces ours).
int upgrade_status(std::uint16_t port, const std::string& headers = "") {
  Conn c(port);
  const bool own_host = headers.find("Host:") != std::string::npos;
  c.send("GET /ws HTTP/1.1\r\n" + (own_host ? "" : "Host: 127.0.0.1:" + std::to_string(port) + "\r\n") +
         "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
         "Sec-WebSocket-Version: 13\r\n" +
         headers + "\r\n");
  std::string reply;
  char buf[4096];
  while (reply.find("\r\n\r\n") == std::string::npos) {
    ssize_t n = ::recv(c.fd(), buf, sizeof buf, 0);
    if (n <= 0) break;
    reply.append(buf, std::size_t(n));
  }
  return reply.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(reply.substr(9, 3)) : 0;
}

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + 1)) ++n;
  return n;
}

}  // namespace

TEST(Http, GamesPgnAndStatus) {
  Daemon d(base_config());
  ASSERT_NE(d.port(), 0);
  const sim::Timeline tl = test_support::short_game(T0);
  d.feed("A", tl.events);
  const int plies = d.plies("A");
  ASSERT_EQ(plies, 12);
  d.settle("A");  // /games.pgn shows a move once it is published

  Reply r = get(d.port(), "/games.pgn");
  ASSERT_EQ(r.status, 200) << r.head;
  EXPECT_NE(r.head.find("application/x-chess-pgn"), std::string::npos);
  EXPECT_EQ(count(r.body, "[Event "), 2) << r.body;  // both boards' current games
  EXPECT_NE(r.body.find("[Board \"A\"]"), std::string::npos);
  EXPECT_NE(r.body.find("[Board \"B\"]"), std::string::npos);
  EXPECT_NE(r.body.find("1. e4 {[%clk "), std::string::npos) << r.body;
  EXPECT_NE(r.body.find("6... b5"), std::string::npos) << r.body;
  EXPECT_EQ(count(r.body, "[%clk "), plies) << r.body;

  Reply s = get(d.port(), "/status");
  ASSERT_EQ(s.status, 200);
  json j = json::parse(s.body);
  ASSERT_EQ(j["boards"].size(), 2u);
  EXPECT_EQ(j["boards"][0]["id"], "A");
  EXPECT_EQ(j["boards"][0]["link"], "manual");
  EXPECT_EQ(j["boards"][0]["game"]["ply"], plies);
  EXPECT_EQ(j["boards"][0]["game"]["last_move"], "b7b5");
  EXPECT_EQ(j["boards"][1]["game"]["ply"], 0);

  Reply one = get(d.port(), "/boards/A.pgn");
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(count(one.body, "[Event "), 1);
  EXPECT_EQ(get(d.port(), "/boards/Z.pgn").status, 404);
  EXPECT_EQ(get(d.port(), "/nothing").status, 404);
  EXPECT_EQ(get(d.port(), "/").status, 200);
  EXPECT_EQ(get(d.port(), "/ws").status, 426);  // not an upgrade
  EXPECT_EQ(request(d.port(), "DELETE", "/games.pgn").status, 405);
  // Per-game PGN files are in the state directory.
  EXPECT_TRUE(fs::exists(d.dir() / "games"));
  EXPECT_EQ(std::distance(fs::directory_iterator(d.dir() / "games"), fs::directory_iterator()), 2);
}

// The operator's page: HTML at /, its files at /web/<name> with their types, revalidated by ETag; served
// without a token even when reading needs one (it holds no data: /status and /ws do, and still refuse).
// The service's parts start in order (Service::add_parts, lifecycle.hpp): one that cannot start (the
// LiveChess port is taken) fails the start with an error naming it and stops every part started before it:
// the HTTP listener, which had listened, is closed again and the boards are stopped; eboardd.listen, the
// sign that the daemon is up, is not written. A stop after it is safe.
TEST(Http, APartThatCannotStartStopsThePartsStartedBeforeIt) {
  const int held = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(held, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(held, 1), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(::getsockname(held, reinterpret_cast<sockaddr*>(&a), &len), 0);
  const std::string taken = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));

  const fs::path dir =
      fs::temp_directory_path() / ("eboard-http-test-lifecycle-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto cfg =
      config::parse_config(base_config("", "\n[livechess]\nlisten = \"" + taken + "\"\n"), "test.toml");
  ASSERT_TRUE(cfg) << cfg.error().what();
  cfg->state_dir = dir.string();
  eboardd::ServiceOptions o;
  o.clock = [] { return T0; };
  o.source_factory = [](const config::BoardConfig&, eboardd::BoardRuntime& rt) {
    return std::make_unique<test_support::ManualSource>(rt, std::move(rt.recovery().machine));
  };
  asio::io_context io;
  {
    eboardd::Service service(io, *cfg, o);
    auto ok = service.start();
    ASSERT_FALSE(ok) << "the LiveChess listener started on a port that is taken";
    EXPECT_EQ(ok.error().rfind("LiveChess listener", 0), 0u) << ok.error();
    EXPECT_NE(ok.error().find(taken), std::string::npos) << ok.error();
    ASSERT_TRUE(service.endpoint()) << "the HTTP listener starts before the LiveChess one";
    Conn c(service.endpoint()->port());
    EXPECT_FALSE(c.connected()) << "the HTTP listener is still open after the failed start";
    ASSERT_EQ(service.boards().size(), 2u);
    for (const auto& b : service.boards()) EXPECT_EQ(b->status()["link"], "stopped") << b->id();
    EXPECT_FALSE(fs::exists(dir / "eboardd.listen"));
    service.stop();
  }
  ::close(held);
  fs::remove_all(dir);
}

TEST(Http, ServesTheOperatorsPageWithoutATokenAndTheDataOnlyWithOne) {
  Daemon d(
      base_config("token = \"control-token-456\"\nread_token = \"read-token-789\"\nopen_read = false\n"));
  const auto header = [](const Reply& r, const std::string& name) {
    auto at = r.head.find("\r\n" + name + ": ");
    if (at == std::string::npos) return std::string();
    at += name.size() + 4;
    return r.head.substr(at, r.head.find("\r\n", at) - at);
  };
  Reply page = get(d.port(), "/");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(header(page, "Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("/web/app.js"), std::string::npos);
  EXPECT_NE(header(page, "Content-Security-Policy").find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(header(page, "Cache-Control"), "no-cache");
  const std::pair<const char*, const char*> files[] = {{"/web/app.js", "text/javascript; charset=utf-8"},
                                                       {"/web/style.css", "text/css; charset=utf-8"},
                                                       {"/web/index.html", "text/html; charset=utf-8"}};
  for (const auto& [path, type] : files) {
    Reply f = get(d.port(), path);
    ASSERT_EQ(f.status, 200) << path;
    EXPECT_EQ(header(f, "Content-Type"), type) << path;
    EXPECT_FALSE(f.body.empty()) << path;
    const std::string etag = header(f, "ETag");
    ASSERT_FALSE(etag.empty()) << path;
    // The copy held is still good: nothing sent again. Another copy: the file.
    Reply again = get(d.port(), path, "If-None-Match: " + etag + "\r\n");
    EXPECT_EQ(again.status, 304) << path;
    EXPECT_TRUE(again.body.empty()) << path;
    EXPECT_EQ(get(d.port(), path, "If-None-Match: \"stale\"\r\n").status, 200) << path;
  }
  EXPECT_EQ(get(d.port(), "/web/nothing.js").status, 404);
  EXPECT_EQ(get(d.port(), "/web/../status").status, 404);
  EXPECT_EQ(request(d.port(), "POST", "/web/app.js", "{}").status, 401);  // not a page: the usual rules
  // The data still needs the token.
  EXPECT_EQ(get(d.port(), "/status").status, 401);
  EXPECT_EQ(get(d.port(), "/index.txt").status, 401);
  EXPECT_EQ(get(d.port(), "/status", "Authorization: Bearer read-token-789\r\n").status, 200);
  // The endpoint list, as plain text, for terminals.
  for (const char* list : {"/index.txt", "/?format=text"}) {
    Reply l = get(d.port(), list, "Authorization: Bearer read-token-789\r\n");
    EXPECT_EQ(l.status, 200) << list;
    EXPECT_EQ(header(l, "Content-Type"), "text/plain; charset=utf-8") << list;
    EXPECT_NE(l.body.find("GET  /games.pgn"), std::string::npos) << list;
  }
  // Still only this daemon's names and origins.
  EXPECT_EQ(get(d.port(), "/", "Origin: http://evil.example\r\n").status, 403);
}

// The board directory is what the outputs read: each board of this host once, in the configuration's
// order, answering as its runtime does (the game, its number, its PGN as /boards/<id>.pgn serves it).
TEST(Http, TheBoardDirectoryAnswersForEveryBoardAsItsRuntimeDoes) {
  Daemon d(base_config());
  const sim::Timeline tl = test_support::short_game(T0);
  d.feed("A", tl.events);
  d.settle("A");
  const Reply served = get(d.port(), "/boards/A.pgn");
  ASSERT_EQ(served.status, 200);
  d.on_io([&] {
    eboardd::Service& s = d.service();
    const auto boards = s.directory().boards();
    ASSERT_EQ(boards.size(), 2u);
    EXPECT_EQ(boards[0]->id(), "A");
    EXPECT_EQ(boards[1]->id(), "B");
    const auto a = s.directory().find("A");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->runtime(), s.board("A"));
    EXPECT_EQ(a->game(std::nullopt).ply_count(), s.board("A")->game().ply_count());
    EXPECT_EQ(a->game_number(), s.board("A")->ledger().game_number());
    EXPECT_EQ(a->record(std::nullopt).number, a->game_number());
    EXPECT_FALSE(a->record(std::nullopt).outcome.has_value());
    EXPECT_EQ(a->pgn(std::nullopt), s.board("A")->pgn());
    EXPECT_EQ(served.body, s.board("A")->pgn());
    EXPECT_EQ(a->status()["id"], "A");
    EXPECT_EQ(s.directory().find("Z"), nullptr);
  });
}

// /index.txt is printed from the route table: every method and path it lists reaches a route of its own,
// never the answer to a path nobody serves (a listed path with a typo, or a route dropped from the table).
TEST(Http, EveryPathTheEndpointListNamesIsServed) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  const std::string auth = "Authorization: Bearer test-token-123\r\n";
  Reply list = get(d.port(), "/index.txt", auth);
  ASSERT_EQ(list.status, 200);
  std::istringstream lines(list.body);
  std::string line;
  std::vector<std::pair<std::string, std::string>> listed;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string method, path;
    words >> method >> path;
    if (method == "GET" || method == "POST" || method == "DELETE") listed.push_back({method, path});
  }
  // The daemon's paths (CONTRACTS §4 and what the page and eboardctl use), each listed.
  for (const char* path : {"/", "/games.pgn", "/matches/<A>-<B>.bpgn", "/status", "/boards/<id>.pgn", "/ws",
                           "/control/<id>/new-game", "/control/round", "/control/pairings", "/boards",
                           "/boards/<id>", "/auth/ticket", "/round/results.trf", "/boards/<id>/capture.cap"})
    EXPECT_TRUE(std::any_of(listed.begin(), listed.end(), [&](const auto& l) { return l.second == path; }))
        << path << " is not in /index.txt";
  for (auto [method, path] : listed) {
    for (auto [from, to] : {std::pair<std::string, std::string>{"<A>-<B>", "A-B"}, {"<id>", "A"}})
      if (auto at = path.find(from); at != std::string::npos) path.replace(at, from.size(), to);
    // The board is removed last (the list ends with it): every other request still finds it.
    Reply r = request(d.port(), method, path, method == "GET" ? "" : "{}", auth);
    const bool unserved =
        (r.status == 404 && (r.body.find("not found (see / for what is here)") != std::string::npos ||
                             r.body.find("use /control/<board>/<action>") != std::string::npos ||
                             r.body.find("unknown control action") != std::string::npos ||
                             r.body.find("use DELETE /boards/<id>") != std::string::npos)) ||
        r.status == 405;
    EXPECT_FALSE(unserved) << method << " " << path << ": " << r.status << " " << r.body;
  }
}

TEST(Http, WebSocketSnapshotThenLiveEvents) {
  Daemon d(base_config());
  const sim::Timeline tl = test_support::short_game(T0);
  const std::size_t half = tl.events.size() / 2;
  d.feed("A", {tl.events.begin(), tl.events.begin() + std::ptrdiff_t(half)});
  const int before = d.plies("A");
  ASSERT_GE(before, 3);
  d.settle("A");  // the snapshot holds what was published: a move waiting for its sync comes after it

  WsClient ws(d.port());
  ASSERT_TRUE(ws.ok()) << ws.error();
  // The snapshot: every move so far as §3 move events.
  for (int ply = 1; ply <= before; ++ply) {
    auto m = ws.read();
    ASSERT_TRUE(m) << "snapshot move " << ply;
    json j = json::parse(*m);
    EXPECT_EQ(j["type"], "move");
    EXPECT_EQ(j["board"], "A");
    EXPECT_EQ(j["ply"], ply);
    EXPECT_TRUE(j.contains("uci") && j.contains("san") && j.contains("t"));
  }
  EXPECT_FALSE(ws.read(200ms)) << "nothing more before new events";
  // Live: the rest of the game, each move exactly once, in order.
  d.feed("A", {tl.events.begin() + std::ptrdiff_t(half), tl.events.end()});
  const int after = d.plies("A");
  int next = before + 1;
  while (next <= after) {
    auto m = ws.read();
    ASSERT_TRUE(m) << "waiting for ply " << next;
    json j = json::parse(*m);
    if (j["type"] != "move") continue;  // provisional moves and the like
    ASSERT_EQ(j["ply"], next) << *m;
    ++next;
  }
  EXPECT_EQ(after, 12);
  // A second client now gets the whole game as its snapshot.
  d.settle("A");
  WsClient late(d.port());
  EXPECT_EQ(count_moves(late, after), after);
}

TEST(Http, SlowWebSocketClientIsDroppedOthersKeepUp) {
  Daemon d(base_config("ws_queue_bytes = 65536\n"));
  WsClient slow(d.port(), 4096);  // never reads
  ASSERT_TRUE(slow.ok());
  std::atomic<long> fast_got{0};
  std::atomic<bool> stop{false};
  std::atomic<bool> fast_gone{false};  // no more to wait for: it failed to connect or was closed
  std::thread fast([&] {
    WsClient c(d.port());
    while (c.ok() && !stop) {
      auto m = c.read(500ms);
      if (m) ++fast_got;
      if (c.closed()) break;
    }
    fast_gone = true;
  });
  // Wait for both clients to be registered.
  eventually([&] {
    return fast_gone || d.on_io([&] { return d.service().http_server().websocket_clients(); }) >= 2;
  });
  const std::string msg(1024, 'x');
  long sent = 0;
  auto dropped = [&] { return d.on_io([&] { return d.service().http_server().stats().ws_dropped_slow; }); };
  // Events at a pace a healthy client keeps up with (the fast client is never more than a few dozen
  // messages behind), until the slow client's queue passes its limit.
  while (dropped() == 0 && sent < 64 * 1024) {
    d.on_io([&] { d.service().http_server().broadcast(msg); });
    ++sent;
    eventually([&] { return fast_got >= sent - 32 || fast_gone; }, kWait, 1ms);
  }
  EXPECT_EQ(dropped(), 1u) << "after " << sent << " KiB";
  // The fast client got everything.
  eventually([&] { return fast_got >= sent || fast_gone; });
  EXPECT_EQ(fast_got.load(), sent);
  stop = true;
  fast.join();
  // The fast client has hung up and the slow one was dropped: the server notices the hang-up on its
  // next read, so wait for it rather than sample once.
  auto clients = [&] { return d.on_io([&] { return d.service().http_server().websocket_clients(); }); };
  eventually([&] { return clients() == 0; });
  EXPECT_EQ(clients(), 0u);
}

TEST(Http, KeepAliveAndPipelinedRequests) {
  Daemon d(base_config());
  Conn c(d.port());
  // Two requests in one write, the second closing the connection: two answers, in order.
  c.send(
      "GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /games.pgn HTTP/1.1\r\nHost: "
      "127.0.0.1\r\nConnection: "
      "close\r\n\r\n");
  std::string all = c.read_all();
  EXPECT_EQ(count(all, "HTTP/1.1 200 OK"), 2) << all;
  auto second = all.find("HTTP/1.1 200 OK", 1);
  ASSERT_NE(second, std::string::npos);
  EXPECT_NE(all.find("application/json"), std::string::npos);
  EXPECT_NE(all.find("application/x-chess-pgn", second), std::string::npos);
}

TEST(Http, HostileClientsNeverHurtTheDaemon) {
  http::ServerOptions o;
  o.request_timeout = 300ms;
  Daemon d(base_config("max_clients = 4\n"), o);
  {
    Conn c(d.port());
    c.send("NOT HTTP AT ALL\r\n\r\n");
    std::string reply = c.read_all();
    EXPECT_EQ(reply.rfind("HTTP/1.1 400", 0), 0u) << reply;
  }
  {
    Conn c(d.port());
    c.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
    EXPECT_EQ(c.read_all().rfind("HTTP/1.1 431", 0), 0u);
  }
  {
    Conn c(d.port());
    c.send("POST /control/A/tags HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n" +
           std::string(70000, '{'));
    EXPECT_EQ(c.read_all().rfind("HTTP/1.1 413", 0), 0u);
  }
  {
    Conn c(d.port());
    std::string junk;
    for (int i = 0; i < 4096; ++i) junk.push_back(char((i * 7919) & 0xff));
    c.send(junk);
    (void)c.read_all();
  }
  {
    // Slowloris: a request trickling in is cut off after the request timeout.
    Conn c(d.port());
    auto t0 = std::chrono::steady_clock::now();
    c.send("GET /games.pgn HTTP/1.1\r\n");
    bool closed = false;
    for (int i = 0; i < 30 && !closed; ++i) {
      std::this_thread::sleep_for(100ms);
      if (!c.send("X-Slow: 1\r\n")) closed = true;
    }
    if (!closed) closed = c.closed_by_peer();
    EXPECT_TRUE(closed) << "still open after "
                        << std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - t0)
                               .count()
                        << " ms";
    EXPECT_GE(d.on_io([&] { return d.service().http_server().stats().timeouts; }), 1u);
  }
  {
    // Many idle connections: however many, a whole request is still answered (the oldest idle ones go).
    std::vector<std::unique_ptr<Conn>> idle;
    for (int i = 0; i < 100; ++i) idle.push_back(std::make_unique<Conn>(d.port()));
    EXPECT_EQ(get(d.port(), "/status").status, 200);
  }
  // Still serving.
  eventually([&] { return d.on_io([&] { return d.service().http_server().open_connections(); }) == 0; });
  EXPECT_EQ(get(d.port(), "/status").status, 200);
  json s = json::parse(get(d.port(), "/status").body);
  EXPECT_GE(s["http"]["bad_requests"], 3);
  EXPECT_GE(s["http"]["evicted_pending"], 1);
}

TEST(Http, ControlNeedsTheToken) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  const std::string auth = "Authorization: Bearer test-token-123\r\n";
  Reply none = request(d.port(), "POST", "/control/A/new-game");
  EXPECT_EQ(none.status, 401);
  EXPECT_NE(none.head.find("WWW-Authenticate: Bearer"), std::string::npos) << none.head;
  EXPECT_EQ(
      request(d.port(), "POST", "/control/A/new-game", "", "Authorization: Bearer wrong-token-12\r\n").status,
      401);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/new-game?token=nope").status, 401);
  // The right token in the URL is refused all the same (URLs are logged and replayed).
  EXPECT_EQ(request(d.port(), "POST", "/control/A/new-game?token=test-token-123").status, 401);
  // A body that is not JSON (what a cross-origin form or "simple" fetch can send) is refused.
  EXPECT_EQ(
      request(d.port(), "POST", "/control/A/new-game", "{}", auth + "Content-Type: text/plain\r\n").status,
      415);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/new-game", "",
                    auth + "Content-Type: application/x-www-form-urlencoded\r\n")
                .status,
            415);
  EXPECT_EQ(get(d.port(), "/control/A/new-game", auth).status, 405);

  const sim::Timeline tl = test_support::short_game(T0, 5, 4);
  d.feed("A", tl.events);
  ASSERT_EQ(d.plies("A"), 4);
  Reply ng = request(d.port(), "POST", "/control/A/new-game", "", auth);
  ASSERT_EQ(ng.status, 200) << ng.body;
  EXPECT_EQ(json::parse(ng.body)["game"], 2);
  EXPECT_EQ(d.plies("A"), 0);
  // The answer means the effect is there: the game just ended is in /games.pgn at once (its file's
  // background write may still be on its way), and the board's new game, empty, is not (set up again).
  {
    const std::string round = get(d.port(), "/games.pgn").body;
    EXPECT_NE(round.find("2... Nc6"), std::string::npos) << round;  // the 4th ply of game 1
    EXPECT_EQ(round.find("[Board \"A\"]"), round.rfind("[Board \"A\"]")) << round;
  }
  Reply fen =
      request(d.port(), "POST", "/control/B/new-game", R"({"fen": "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"})",
              "Authorization: Bearer test-token-123\r\nContent-Type: application/json; charset=utf-8\r\n");
  ASSERT_EQ(fen.status, 200) << fen.body;
  EXPECT_EQ(request(d.port(), "POST", "/control/B/new-game", R"({"fen": "nonsense"})", auth).status, 400);

  Reply tags = request(d.port(), "POST", "/control/A/tags",
                       R"({"White": "Anna", "Black": "Boris", "Round": "3"})", auth);
  ASSERT_EQ(tags.status, 200) << tags.body;
  EXPECT_EQ(json::parse(tags.body)["tags"]["White"], "Anna");
  EXPECT_EQ(request(d.port(), "POST", "/control/A/tags", R"({"Result": "1-0"})", auth).status, 400);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/tags", "[1,2]", auth).status, 400);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/tags", "{not json", auth).status, 400);
  // The tags are the board's current game's: /boards/A.pgn has them as soon as they are answered.
  std::string pgn = get(d.port(), "/boards/A.pgn").body;
  EXPECT_NE(pgn.find("[White \"Anna\"]"), std::string::npos) << pgn;
  pgn = get(d.port(), "/games.pgn").body;
  EXPECT_NE(pgn.find("[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]"), std::string::npos) << pgn;

  for (const char* a : {"promotion", "ack", "draw", "resign", "adjourn", "resume"}) {
    EXPECT_EQ(request(d.port(), "POST", std::string("/control/A/") + a, "{}").status, 401) << a;
    EXPECT_EQ(
        request(d.port(), "POST", std::string("/control/A/") + a, "{}", "Authorization: Bearer x\r\n").status,
        401)
        << a;
  }
  EXPECT_EQ(request(d.port(), "POST", "/boards", R"({"id": "C", "port": "/dev/null"})").status, 401);
  EXPECT_EQ(request(d.port(), "DELETE", "/boards/A").status, 401);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/fly", "", auth).status, 404);
  EXPECT_EQ(request(d.port(), "POST", "/control/Z/new-game", "", auth).status, 404);

  // Without a configured token, control is off altogether.
  Daemon open(base_config());
  EXPECT_EQ(request(open.port(), "POST", "/control/A/new-game", "", auth).status, 403);
}

TEST(Http, ReadingNeedsTheTokenWhenNotOpen) {
  Daemon d(
      base_config("token = \"control-token-456\"\nread_token = \"read-token-789\"\nopen_read = false\n"));
  EXPECT_EQ(get(d.port(), "/games.pgn").status, 401);
  EXPECT_EQ(get(d.port(), "/games.pgn", "Authorization: Bearer read-token-789\r\n").status, 200);
  EXPECT_EQ(get(d.port(), "/games.pgn", "Authorization: Bearer control-token-456\r\n").status, 200);
  // A relay that only takes a URL may carry the read token there; the control token never rides in one.
  EXPECT_EQ(get(d.port(), "/status?token=read-token-789").status, 200);
  EXPECT_EQ(get(d.port(), "/status?token=control-token-456").status, 401);
  WsClient anonymous(d.port());
  EXPECT_FALSE(anonymous.ok());
  WsClient with(d.port(), 0, "/ws?token=read-token-789");
  EXPECT_TRUE(with.ok()) << with.error();
  // The read token reads and never controls.
  Reply no = request(d.port(), "POST", "/control/A/draw", "{}", "Authorization: Bearer read-token-789\r\n");
  EXPECT_EQ(no.status, 403) << no.body;
  EXPECT_EQ(request(d.port(), "DELETE", "/boards/A", "", "Authorization: Bearer read-token-789\r\n").status,
            403);
}

TEST(Http, MatchesEndpoint) {
  Daemon d(base_config("", "[[match]]\nboards = [\"A\", \"B\"]\n"));
  Reply r = get(d.port(), "/matches/A-B.bpgn");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("[WhiteA "), std::string::npos) << r.body;
  Reply unknown = get(d.port(), "/matches/X-Y.bpgn");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_NE(unknown.body.find("no match X-Y (configured matches: A-B)"), std::string::npos) << unknown.body;
}

TEST(Http, ReloadKeepsUnchangedBoardsAndTheirClients) {
  Daemon d(base_config());
  const sim::Timeline tl = test_support::short_game(T0, 9, 6);
  const std::size_t half = tl.events.size() / 2;
  d.feed("A", {tl.events.begin(), tl.events.begin() + std::ptrdiff_t(half)});
  const int before = d.plies("A");
  d.settle("A");  // the snapshot holds what was published: a move waiting for its sync would come after it
  eboardd::BoardRuntime* a = d.on_io([&] { return d.service().board("A"); });
  eboardd::BoardRuntime* b = d.on_io([&] { return d.service().board("B"); });
  WsClient ws(d.port());
  ASSERT_TRUE(ws.ok());
  for (int ply = 1; ply <= before; ++ply) {
    auto m = ws.read();
    ASSERT_TRUE(m) << "snapshot move " << ply;
    json j = json::parse(*m);
    ASSERT_EQ(j["type"], "move") << *m;
    ASSERT_EQ(j["ply"], ply) << *m;
  }

  auto next = config::parse_config(
      "[http]\nlisten = \"127.0.0.1:0\"\n[[board]]\nid = \"A\"\nport = \"/dev/null\"\n"
      "[[board]]\nid = \"B\"\nport = \"/dev/zero\"\n[[board]]\nid = \"C\"\nport = \"/dev/null\"\n",
      "reload.toml");
  ASSERT_TRUE(next);
  next->state_dir = d.dir().string();
  auto diff = d.on_io([&] { return d.service().reload(*next); });
  ASSERT_TRUE(diff) << diff.error();
  EXPECT_EQ(diff->unchanged, std::vector<std::string>{"A"});
  EXPECT_EQ(diff->changed, std::vector<std::string>{"B"});
  EXPECT_EQ(diff->added, std::vector<std::string>{"C"});
  EXPECT_EQ(d.on_io([&] { return d.service().board("A"); }), a);  // the same, still running
  EXPECT_NE(d.on_io([&] { return d.service().board("C"); }), nullptr);
  (void)b;
  // The client connected before the reload still gets board A's live moves.
  d.feed("A", {tl.events.begin() + std::ptrdiff_t(half), tl.events.end()});
  const int moves = count_moves(ws, d.plies("A") - before, 500ms);
  EXPECT_EQ(moves, d.plies("A") - before);
  EXPECT_GT(moves, 0);
  json s = json::parse(get(d.port(), "/status").body);
  ASSERT_EQ(s["boards"].size(), 3u);
  EXPECT_EQ(s["boards"][2]["id"], "C");

  auto fewer = config::parse_config(
      "[http]\nlisten = \"127.0.0.1:0\"\n[[board]]\nid = \"A\"\nport = \"/dev/null\"\n", "reload.toml");
  fewer->state_dir = d.dir().string();
  auto d2 = d.on_io([&] { return d.service().reload(*fewer); });
  ASSERT_TRUE(d2) << d2.error();
  EXPECT_EQ(d2->removed, (std::vector<std::string>{"B", "C"}));
  EXPECT_EQ(json::parse(get(d.port(), "/status").body)["boards"].size(), 1u);
  EXPECT_EQ(d.on_io([&] { return d.service().board("A"); }), a);
}

// The server alone: a snapshot larger than the per-client queue limit is still delivered whole (the
// limit is for falling behind on live events), and live events after it are limited as usual.
// [broadcast] delay_s: a reader without a token sees no move younger than the delay (the daemon's clock
// stands at the game's start, so every move is), while the token holder and /status see them at once; the
// public listener serves the same delayed views, whatever token it is shown, and nothing else. When the
// clock has moved on past the delay, the moves reach the public feed in order and the public views.
TEST(Http, BroadcastDelayHoldsThePublicViewsBackAndNotTheArbiters) {
  clock_offset_ms = 0;
  Daemon d(base_config("token = \"control-token-456\"\n",
                       "[broadcast]\ndelay_s = 60\nlisten = \"127.0.0.1:0\"\n"));
  const auto public_ep = d.on_io([&] { return d.service().public_endpoint(); });
  ASSERT_TRUE(public_ep);
  const std::uint16_t pub = public_ep->port();
  const std::string token = "Authorization: Bearer control-token-456\r\n";
  WsClient early(d.port());  // a public viewer from before the game
  ASSERT_TRUE(early.ok()) << early.error();
  d.feed("A", test_support::short_game(T0).events);
  ASSERT_EQ(d.plies("A"), 12);
  d.settle("A");

  // The arbiter: live.
  EXPECT_NE(get(d.port(), "/games.pgn", token).body.find("1. e4"), std::string::npos);
  EXPECT_EQ(json::parse(get(d.port(), "/status").body)["boards"][0]["game"]["ply"], 12);
  EXPECT_NE(get(d.port(), "/boards/A.pgn", token).body.find("6... b5"), std::string::npos);
  // The public, on either listener: the games without their moves.
  for (std::uint16_t port : {d.port(), pub}) {
    for (std::string target : {"/games.pgn", "/boards/A.pgn"}) {
      Reply r = get(port, target, port == pub ? token : "");
      ASSERT_EQ(r.status, 200) << target << r.head;
      EXPECT_NE(r.body.find("[Board \"A\"]"), std::string::npos) << r.body;
      EXPECT_EQ(count(r.body, "[%clk "), 0) << port << target << r.body;
      EXPECT_EQ(r.body.find("e4"), std::string::npos) << r.body;
    }
  }
  WsClient arbiter(d.port(), 0, "/ws", {{"Authorization", "Bearer control-token-456"}});
  EXPECT_EQ(count_moves(arbiter, 12), 12);
  WsClient reader(d.port());
  EXPECT_EQ(count_moves(reader, 0), 0);
  WsClient world(pub);
  ASSERT_TRUE(world.ok()) << world.error();
  EXPECT_EQ(count_moves(world, 0), 0);
  EXPECT_EQ(count_moves(early, 0), 0) << "the public feed let a move out before its time";
  // The public listener only reads the delayed views: no control, no live status, no live wire bytes.
  EXPECT_EQ(request(pub, "POST", "/control/A/draw", token).status, 405);
  EXPECT_EQ(get(pub, "/status", token).status, 404);
  EXPECT_EQ(get(pub, "/boards/A/capture.cap", token).status, 404);
  EXPECT_EQ(get(d.port(), "/boards/A/capture.cap").status, 401);
  EXPECT_EQ(get(d.port(), "/boards/A/capture.cap", token).status, 200);
  json st = json::parse(get(d.port(), "/status").body)["broadcast"];
  EXPECT_EQ(st["delay_s"], 60);
  EXPECT_GE(st["waiting_events"].get<int>(), 12);

  // Past the delay: the next event lets every due one out, in order, to the public feeds.
  clock_offset_ms = 3'600'000;
  d.feed("B", test_support::short_game(T0, 7, 2).events);
  for (WsClient* ws : {&early, &world, &reader}) {
    int next = 1;
    while (next <= 12) {
      auto m = ws->read();
      ASSERT_TRUE(m) << "waiting for ply " << next;
      json j = json::parse(*m);
      if (j["type"] != "move" || j["board"] != "A") continue;
      ASSERT_EQ(j["ply"], next) << *m;
      ++next;
    }
  }
  d.settle("B");
  EXPECT_NE(get(pub, "/games.pgn").body.find("6... b5"), std::string::npos);
  EXPECT_NE(get(d.port(), "/boards/A.pgn").body.find("6... b5"), std::string::npos);
  clock_offset_ms = 0;
}

TEST(HttpServer, SnapshotLargerThanTheQueueLimitIsDelivered) {
  asio::io_context io;
  http::ServerOptions o;
  o.ws_queue_bytes = 1000;
  http::ServerHandlers h;
  h.on_request = [](const http::Request& r) {
    http::Response res;
    res.status = r.websocket ? 101 : 404;
    return res;
  };
  h.ws_snapshot = [](const http::Request&, int) {
    return std::vector<std::string>(100, std::string(100, 's'));
  };
  http::Server server(io, o, h);
  auto ep = server.listen("127.0.0.1", 0);
  ASSERT_TRUE(ep) << ep.error();
  auto work = asio::make_work_guard(io);
  std::thread t([&] { io.run(); });
  auto on_io = [&](auto f) {
    std::packaged_task<void()> task(f);
    auto done = task.get_future();
    asio::post(io, [&task] { task(); });
    done.get();
  };
  {
    WsClient c(ep->port());
    ASSERT_TRUE(c.ok()) << c.error();
    int got = 0;
    for (int i = 0; i < 100; ++i) got += c.read() ? 1 : 0;
    EXPECT_EQ(got, 100);
    on_io([&] { server.broadcast("live"); });
    EXPECT_EQ(c.read().value_or(""), "live");
    // A burst beyond the limit while this client reads nothing in between: dropped.
    on_io([&] {
      for (int i = 0; i < 20; ++i) server.broadcast(std::string(100, 'x'));
    });
    for (auto end = std::chrono::steady_clock::now() + kWait;
         !c.closed() && std::chrono::steady_clock::now() < end;)
      (void)c.read(1000ms);
    EXPECT_TRUE(c.closed());
  }
  on_io([&] { server.stop(); });
  work.reset();
  t.join();
  EXPECT_EQ(server.stats().ws_dropped_slow, 1u);
}

// A client that talks (LiveChess' API): its messages reach the owner with its number, the answer reaches that
// client only, and the owner is told when it is gone.
TEST(HttpServer, ClientMessagesReachTheOwnerAndAnswersOnlyTheirClient) {
  asio::io_context io;
  http::ServerHandlers h;
  h.on_request = [](const http::Request& r) {
    http::Response res;
    res.status = r.websocket ? 101 : 404;
    return res;
  };
  http::Server* server_ptr = nullptr;
  std::vector<std::pair<std::uint64_t, std::string>> heard;
  std::promise<std::uint64_t> gone;
  h.on_ws_message = [&](std::uint64_t client, std::string text) {
    heard.emplace_back(client, text);
    EXPECT_TRUE(server_ptr->send_to(client, "re: " + text));
  };
  h.on_ws_closed = [&](std::uint64_t client) {
    if (!heard.empty() && client == heard.front().first) gone.set_value(client);
  };
  http::Server server(io, {}, h);
  server_ptr = &server;
  auto ep = server.listen("127.0.0.1", 0);
  ASSERT_TRUE(ep) << ep.error();
  auto work = asio::make_work_guard(io);
  std::thread t([&] { io.run(); });
  auto on_io = [&](auto f) {
    std::packaged_task<void()> task(f);
    auto done = task.get_future();
    asio::post(io, [&task] { task(); });
    done.get();
  };
  {
    WsClient talker(ep->port());
    WsClient other(ep->port());
    ASSERT_TRUE(talker.ok() && other.ok());
    ASSERT_TRUE(talker.write("hello"));
    EXPECT_EQ(talker.read().value_or(""), "re: hello");
    // The other client was sent nothing of it: the next thing it gets is the next broadcast.
    on_io([&] { server.broadcast("to all"); });
    EXPECT_EQ(other.read().value_or(""), "to all");
    EXPECT_EQ(talker.read().value_or(""), "to all");
  }
  auto closed = gone.get_future();
  closed.wait();
  on_io([&] {
    ASSERT_EQ(heard.size(), 1u);
    EXPECT_EQ(closed.get(), heard[0].first);
    EXPECT_FALSE(server.send_to(heard[0].first, "too late"));
    server.stop();
  });
  work.reset();
  t.join();
}

// A deferred response (a capture export) is made on a worker thread: while five of them are held, the loop
// still answers other requests; each held one is then answered with its own body.
TEST(HttpServer, DeferredResponsesNeverHoldTheLoop) {
  asio::io_context io;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  http::ServerHandlers h;
  h.on_request = [&](const http::Request& r) {
    if (r.path == "/status") return http::Response::text(200, "fine");
    http::Response res;
    res.deferred = [&started, released, path = r.path] {
      ++started;
      released.wait();
      return http::Response::text(200, "made for " + path);
    };
    return res;
  };
  http::ServerOptions o;
  http::Server server(io, o, h);
  auto ep = server.listen("127.0.0.1", 0);
  ASSERT_TRUE(ep) << ep.error();
  auto work = asio::make_work_guard(io);
  std::thread t([&] { io.run(); });
  std::vector<std::future<Reply>> exports;
  for (int i = 0; i < 5; ++i)
    exports.push_back(
        std::async(std::launch::async, [&, i] { return get(ep->port(), "/slow/" + std::to_string(i)); }));
  eventually([&] { return started >= int(o.worker_threads); });
  EXPECT_EQ(started.load(), int(o.worker_threads));  // every worker holds one; the rest wait for a worker
  for (int i = 0; i < 3; ++i) {
    Reply s = get(ep->port(), "/status");
    EXPECT_EQ(s.status, 200);
    EXPECT_EQ(s.body, "fine\n");
  }
  for (auto& e : exports) EXPECT_EQ(e.wait_for(0ms), std::future_status::timeout);
  release.set_value();
  for (int i = 0; i < 5; ++i) {
    Reply r = exports[std::size_t(i)].get();
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "made for /slow/" + std::to_string(i) + "\n");
  }
  asio::post(io, [&] { server.stop(); });
  work.reset();
  t.join();
}

// Refused requests on the log (issue 11): the operator sees who was refused what, never the token, and a
// flood costs a few lines. The server alone, its log captured.
namespace {

class CapturedLog {
 public:
  CapturedLog() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(10000)) {
    before_ = spdlog::default_logger();
    auto logger = std::make_shared<spdlog::logger>("captured", sink_);
    logger->set_pattern("%v");
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(before_); }
  std::vector<std::string> lines() const { return sink_->last_formatted(); }

 private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
  std::shared_ptr<spdlog::logger> before_;
};

// A server that refuses everything (401) but WebSocket upgrades (taken), on its own thread; a request with an
// Authorization header is control.
class RefusingServer {
 public:
  explicit RefusingServer(http::ServerOptions o) {
    http::ServerHandlers h;
    h.on_request = [](const http::Request& r) {
      if (r.websocket) {
        http::Response ok;
        ok.status = 101;
        return ok;
      }
      return http::Response::json(401, R"({"error": "no"})");
    };
    h.is_control = [](const http::Request& r) { return !r.authorization.empty(); };
    server_ = std::make_unique<http::Server>(io_, o, h);
    auto ep = server_->listen("127.0.0.1", 0);
    EXPECT_TRUE(ep) << ep.error();
    port_ = ep ? ep->port() : 0;
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RefusingServer() { stop(); }
  void stop() {
    if (!thread_.joinable()) return;
    asio::post(io_, [this] { server_->stop(); });
    work_.reset();
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  http::ServerStats stats() {
    std::packaged_task<http::ServerStats()> task([this] { return server_->stats(); });
    auto result = task.get_future();
    asio::post(io_, [&task] { task(); });
    return result.get();
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(io_);
  std::unique_ptr<http::Server> server_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

int refused_lines(const std::vector<std::string>& lines, const std::string& needle) {
  int n = 0;
  for (const auto& l : lines)
    n += l.find("http: refused") != std::string::npos && l.find(needle) != std::string::npos;
  return n;
}

// The sum of the "N more refused requests" lines.
int suppressed_count(const std::vector<std::string>& lines) {
  // Not std::regex: GCC 12 warns maybe-uninitialized inside <regex> at -O1 (the ASan preset).
  static const std::string marker = " more refused request";
  int n = 0;
  for (const auto& l : lines) {
    const auto at = l.find(marker);
    const auto dots = l.rfind("... ", at);
    if (at == std::string::npos || dots == std::string::npos) continue;
    n += std::stoi(l.substr(dots + 4, at - dots - 4));
  }
  return n;
}

}  // namespace

TEST(HttpServer, RefusedRequestsAreLoggedRateLimitedAndWithoutTheToken) {
  CapturedLog log;
  http::ServerOptions o;
  o.reject_log_burst = 5;
  o.reject_log_window = std::chrono::hours(1);  // all of this test falls in one window
  RefusingServer server(o);
  for (int i = 0; i < 30; ++i)
    EXPECT_EQ(request(server.port(), "POST", "/control/A/draw?token=query-secret-1", "{}",
                      "Authorization: Bearer header-secret-2\r\n")
                  .status,
              401);
  {
    Conn garbage(server.port());
    garbage.send("NOT HTTP AT ALL\r\n\r\n");
    EXPECT_NE(garbage.read_all().find(" 400 "), std::string::npos);
  }
  server.stop();  // the rest of the window: its count comes now
  const auto lines = log.lines();
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_EQ(refused_lines(lines, "POST /control/A/draw from 127.0.0.1:"), 5) << all;
  EXPECT_EQ(refused_lines(lines, ": 401"), 5) << all;
  EXPECT_EQ(suppressed_count(lines), 26) << all;  // 25 more 401s and the malformed one
  EXPECT_EQ(all.find("secret"), std::string::npos) << all;
}

TEST(HttpServer, BusyRefusalsAreLoggedAndTheSuppressedCountComesWithoutAnotherRequest) {
  CapturedLog log;
  http::ServerOptions o;
  o.max_ws_clients = 1;
  o.reject_log_burst = 1;
  o.reject_log_window = std::chrono::milliseconds(100);
  RefusingServer server(o);
  WsClient held(server.port());  // the one viewer: every other gets 503
  ASSERT_TRUE(held.ok()) << held.error();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(upgrade_status(server.port()), 503);
  // Each refusal is either on a line of its own or counted by a window's "N more" line, which the
  // window's end writes by itself (a timer): no further request is needed to see it.
  std::vector<std::string> lines;
  eventually(
      [&] {
        lines = log.lines();
        return refused_lines(lines, ": 503") + suppressed_count(lines) == 6;
      },
      kWait, 20ms);
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_EQ(refused_lines(lines, ": 503") + suppressed_count(lines), 6) << all;
  EXPECT_GE(refused_lines(lines, "GET /ws from 127.0.0.1:"), 1) << all;
  server.stop();
}

// --- Control actions (issue 6): every route, its errors, and what it publishes -------------------------

namespace {

const std::string AUTH = "Authorization: Bearer test-token-123\r\n";

Reply post(std::uint16_t port, const std::string& target, const std::string& body) {
  return request(port, "POST", target, body, AUTH);
}

std::string error_of(const Reply& r) {
  json j = json::parse(r.body, nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"].get<std::string>() : "";
}

// WebSocket messages until one contains `needle` (or the deadline).
bool ws_sees(WsClient& ws, const std::string& needle, std::vector<std::string>* seen = nullptr) {
  auto deadline = std::chrono::steady_clock::now() + kWait;
  while (std::chrono::steady_clock::now() < deadline) {
    auto m = ws.read(1000ms);
    if (!m) continue;
    if (seen) seen->push_back(*m);
    if (m->find(needle) != std::string::npos) return true;
  }
  return false;
}

json board_status(std::uint16_t port, const std::string& id) {
  json s = json::parse(get(port, "/status").body);
  for (const auto& b : s["boards"])
    if (b["id"] == id) return b;
  return {};
}

}  // namespace

TEST(Control, ResignDrawAndPromotion) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  d.feed("A", test_support::short_game(T0, 5, 4).events);
  ASSERT_EQ(d.plies("A"), 4);
  WsClient ws(d.port());
  ASSERT_TRUE(ws.ok()) << ws.error();

  EXPECT_EQ(post(d.port(), "/control/A/resign", "{}").status, 400);
  Reply purple = post(d.port(), "/control/A/resign", R"({"side": "purple"})");
  EXPECT_EQ(purple.status, 400);
  EXPECT_NE(error_of(purple).find("\"side\" must be"), std::string::npos) << purple.body;
  EXPECT_EQ(post(d.port(), "/control/A/resign", "{oops").status, 400);
  EXPECT_EQ(post(d.port(), "/control/Z/resign", R"({"side": "black"})").status, 404);

  Reply r = post(d.port(), "/control/A/resign", R"({"side": "black"})");
  ASSERT_EQ(r.status, 200) << r.body;
  json j = json::parse(r.body);
  EXPECT_EQ(j["game"]["result"], "1-0");
  EXPECT_EQ(j["game"]["reason"], "resignation");
  ASSERT_EQ(j["events"].size(), 1u);
  EXPECT_EQ(j["events"][0]["type"], "result");
  EXPECT_TRUE(ws_sees(ws, "\"resignation\""));
  std::string pgn = get(d.port(), "/boards/A.pgn").body;
  EXPECT_NE(pgn.find("[Result \"1-0\"]"), std::string::npos) << pgn;
  Reply again = post(d.port(), "/control/A/resign", R"({"side": "white"})");
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(error_of(again).find("over"), std::string::npos) << again.body;
  EXPECT_EQ(post(d.port(), "/control/A/draw", "").status, 409);

  Reply draw = post(d.port(), "/control/B/draw", "");
  ASSERT_EQ(draw.status, 200) << draw.body;
  EXPECT_EQ(json::parse(draw.body)["game"]["result"], "1/2-1/2");
  EXPECT_TRUE(ws_sees(ws, "\"agreement\""));
  EXPECT_NE(get(d.port(), "/boards/B.pgn").body.find("[Result \"1/2-1/2\"]"), std::string::npos);

  ASSERT_EQ(post(d.port(), "/control/A/new-game", "").status, 200);
  EXPECT_EQ(post(d.port(), "/control/A/promotion", R"({"side": "white", "piece": "k"})").status, 400);
  EXPECT_EQ(post(d.port(), "/control/A/promotion", R"({"piece": "n"})").status, 400);
  Reply promo = post(d.port(), "/control/A/promotion", R"({"side": "white", "piece": "n"})");
  ASSERT_EQ(promo.status, 200) << promo.body;
  EXPECT_EQ(json::parse(promo.body)["piece"], "n");

  // The journal holds them: a restart replays them to the same results.
  EXPECT_EQ(board_status(d.port(), "B")["game"]["result"], "1/2-1/2");
}

TEST(Control, AdjournKeepsTheSealedMoveSecretResumePlaysItAndBothSurviveARestart) {
  const fs::path dir = fs::temp_directory_path() / ("eboard-control-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string cfg = base_config("token = \"test-token-123\"\n");
  {
    Daemon d(cfg, {}, dir);
    d.feed("A", test_support::short_game(T0, 5, 4).events);  // e4 e5 Nf3 Nc6: White on move
    ASSERT_EQ(d.plies("A"), 4);
    Reply wrong = post(d.port(), "/control/A/adjourn", R"({"side": "black", "sealed": "Bb5"})");
    EXPECT_EQ(wrong.status, 409);
    EXPECT_NE(error_of(wrong).find("not on move"), std::string::npos) << wrong.body;
    EXPECT_EQ(post(d.port(), "/control/A/adjourn", R"({"side": "white"})").status, 400);
    EXPECT_EQ(post(d.port(), "/control/A/resume", "").status, 409);  // not adjourned

    Reply adj = post(d.port(), "/control/A/adjourn", R"({"side": "white", "sealed": "Bb5"})");
    ASSERT_EQ(adj.status, 200) << adj.body;
    json j = json::parse(adj.body);
    EXPECT_EQ(j["adjourned"]["sealed_by"], "white");
    EXPECT_EQ(j["adjourned"]["move_number"], 3);
    EXPECT_EQ(j["sealed_move_playable"], true);
    EXPECT_EQ(j["game"]["result"], "*");
    EXPECT_EQ(post(d.port(), "/control/A/adjourn", R"({"side": "white", "sealed": "Bc4"})").status, 409);
    EXPECT_EQ(post(d.port(), "/control/A/promotion", R"({"side": "white", "piece": "q"})").status, 200);

    json st = board_status(d.port(), "A");
    EXPECT_EQ(st["control"]["adjourned"]["sealed_by"], "white") << st.dump();
    std::string pgn = get(d.port(), "/boards/A.pgn").body;
    EXPECT_NE(pgn.find("[Adjourned \"White sealed move 3"), std::string::npos) << pgn;
    EXPECT_NE(pgn.find("[Result \"*\"]"), std::string::npos) << pgn;
    EXPECT_EQ(pgn.find("Bb5"), std::string::npos) << pgn;
    EXPECT_EQ(get(d.port(), "/status").body.find("Bb5"), std::string::npos);
  }
  {
    Daemon d(cfg, {}, dir);  // a restart: the adjournment comes back from the journal
    ASSERT_EQ(d.plies("A"), 4);
    json st = board_status(d.port(), "A");
    ASSERT_TRUE(st["control"]["adjourned"].is_object()) << st.dump();
    WsClient ws(d.port());
    ASSERT_TRUE(ws.ok());
    Reply res = post(d.port(), "/control/A/resume", "");
    ASSERT_EQ(res.status, 200) << res.body;
    json j = json::parse(res.body);
    ASSERT_EQ(j["events"].size(), 1u) << res.body;
    EXPECT_EQ(j["events"][0]["type"], "move");
    EXPECT_EQ(j["events"][0]["san"], "Bb5");
    EXPECT_EQ(j["events"][0]["ply"], 5);
    EXPECT_EQ(d.plies("A"), 5);
    EXPECT_TRUE(ws_sees(ws, "\"Bb5\""));
    std::string pgn = get(d.port(), "/boards/A.pgn").body;
    EXPECT_NE(pgn.find("3. Bb5"), std::string::npos) << pgn;
    EXPECT_NE(pgn.find("[Resumed "), std::string::npos) << pgn;
    EXPECT_TRUE(board_status(d.port(), "A")["control"]["adjourned"].is_null());
  }
  {
    Daemon d(cfg, {}, dir);  // and the resumption too
    EXPECT_EQ(d.plies("A"), 5);
    EXPECT_TRUE(board_status(d.port(), "A")["control"]["adjourned"].is_null());
  }
  fs::remove_all(dir);
}

// A gap waiting for the arbiter when the daemon stops is ranked by the engine again once it is back: the list
// the arbiter read keeps its order, and `recover N` the numbers he read (the replay ranks by the rules).
// Started without the engine (gone, or turned off), the list keeps the engine's order too: it is journaled.
TEST(Control, AGapWaitingAtARestartIsShownInTheEnginesOrderAgain) {
  const char* engine = "/usr/games/stockfish";
  if (::access(engine, X_OK) != 0) GTEST_SKIP() << engine << " is not installed";
  const fs::path dir = fs::temp_directory_path() / ("eboard-gap-order-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string cfg =
      base_config("token = \"test-token-123\"\n",
                  std::string("[gaps]\nranker = \"stockfish\"\nengine = \"") + engine + "\"\n");
  // Followed in the start position, White's clock running; the link lost, and back with the board four plies
  // on (1.e4 e5 2.Nf3 Nc6, which four orders reach), White's clock running again.
  auto after = [](std::initializer_list<const char*> ucis) {
    rules::Position p = rules::Position::start(rules::Variant::Chess);
    for (const char* m : ucis) p.do_move(*rules::parse_uci(p, m));
    return p.board();
  };
  const std::vector<rules::SensorEvent> gap{
      {T0, rules::BoardSnapshot{rules::Position::start(rules::Variant::Chess).board()}},
      {T0 + 10, rules::ClockReading{300'000, 300'000, true, rules::ClockSide::Left}},
      {T0 + 2'000, rules::DeviceLink{false}},
      {T0 + 30'000, rules::DeviceLink{true}},
      {T0 + 30'000, rules::BoardSnapshot{after({"e2e4", "e7e5", "g1f3", "b8c6"})}},
      {T0 + 30'010, rules::ClockReading{286'000, 288'000, true, rules::ClockSide::Left}}};
  const auto engines_order = [](Daemon& d) {
    json shown;
    eventually(
        [&] {
          shown = board_status(d.port(), "A")["control"]["missed_gap"];
          return shown.is_object() && shown["ranked_by"] == "engine";
        },
        kWait, 10ms);
    return shown;
  };
  json before;
  {
    Daemon d(cfg, {}, dir);
    d.feed("A", gap);
    d.advance("A", T0 + 40'000);
    before = engines_order(d);
    ASSERT_EQ(before["ranked_by"], "engine") << before.dump();
    ASSERT_GE(before["candidates"].size(), 2u) << before.dump();
  }
  {
    Daemon d(base_config("token = \"test-token-123\"\n", "[gaps]\nranker = \"rules\"\n"), {}, dir);
    json shown;
    eventually(
        [&] {
          shown = board_status(d.port(), "A")["control"]["missed_gap"];
          return shown.is_object();
        },
        kWait, 10ms);
    EXPECT_EQ(shown["candidates"], before["candidates"]) << shown.dump();
    EXPECT_EQ(shown["ranked_by"], "engine") << shown.dump();
  }
  {
    Daemon d(cfg, {}, dir);  // a restart: the gap comes back from the journal, in the rules' order first
    const json again = engines_order(d);
    EXPECT_EQ(again, before);
    // The number read before the restart settles the gap with the moves it listed.
    Reply r = post(d.port(), "/control/A/recover", R"({"candidate": 1})");
    ASSERT_EQ(r.status, 200) << r.body;
    const std::vector<std::string> played =
        d.on_io([&] { return test_support::move_ucis(d.service().board("A")->game()); });
    EXPECT_EQ(json(played), before["candidates"][0]["uci"]);
  }
  fs::remove_all(dir);
}

TEST(Control, IllegalSealedMoveLosesAtResumption) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  d.feed("A", test_support::short_game(T0, 5, 4).events);
  Reply adj = post(d.port(), "/control/A/adjourn", R"({"side": "white", "sealed": "Ke3"})");
  ASSERT_EQ(adj.status, 200) << adj.body;
  EXPECT_EQ(json::parse(adj.body)["sealed_move_playable"], false);
  Reply res = post(d.port(), "/control/A/resume", "");
  ASSERT_EQ(res.status, 200) << res.body;
  EXPECT_EQ(json::parse(res.body)["game"]["result"], "0-1");
  EXPECT_EQ(json::parse(res.body)["game"]["reason"], "illegal-move");
}

TEST(Control, AcknowledgeAnAlert) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  sim::Timeline tl = test_support::short_game(T0, 5, 2);
  d.feed("A", tl.events);
  ASSERT_EQ(d.plies("A"), 2);
  // A stray queen set on an empty square and left there: the board shows something no move explains.
  std::int64_t t = tl.events.back().t_ms + 1000;
  d.feed("A", {rules::SensorEvent{t, rules::PiecePlaced{rules::parse_square("a5"), rules::W_QUEEN}},
               rules::SensorEvent{t + 20000, rules::PieceLifted{rules::parse_square("h5")}}});
  json st = board_status(d.port(), "A");
  ASSERT_GE(st["control"]["alerts"].size(), 1u) << st.dump();
  EXPECT_EQ(st["control"]["alerts"][0]["number"], 1);
  EXPECT_EQ(st["control"]["alerts"][0]["acknowledged"], false);
  int open = st["control"]["unacknowledged_alerts"];
  EXPECT_GE(open, 1);

  EXPECT_EQ(post(d.port(), "/control/A/ack", R"({"alert": "first"})").status, 400);
  EXPECT_EQ(post(d.port(), "/control/A/ack", "{}").status, 400);
  EXPECT_EQ(post(d.port(), "/control/A/ack", R"({"alert": 99})").status, 404);
  Reply ok = post(d.port(), "/control/A/ack", R"({"alert": 1})");
  ASSERT_EQ(ok.status, 200) << ok.body;
  st = board_status(d.port(), "A");
  EXPECT_EQ(st["control"]["alerts"][0]["acknowledged"], true);
  EXPECT_EQ(st["control"]["unacknowledged_alerts"], open - 1);
}

TEST(Control, BoardsAddedAndRemovedWithoutUdev) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  EXPECT_EQ(post(d.port(), "/boards", "nope").status, 400);
  EXPECT_EQ(post(d.port(), "/boards", R"({"id": "C", "port": "ttyUSB0"})").status, 400);
  EXPECT_EQ(post(d.port(), "/boards", R"({"id": "C", "port": "/dev/null", "protocol": "certabo"})").status,
            400);
  EXPECT_EQ(post(d.port(), "/boards", R"({"id": "bad id", "port": "/dev/null"})").status, 400);
  EXPECT_EQ(post(d.port(), "/boards", R"({"id": "A", "port": "/dev/null"})").status, 409);
  Reply add = post(d.port(), "/boards", R"({"id": "C", "port": "/dev/null", "protocol": "dgt"})");
  ASSERT_EQ(add.status, 201) << add.body;
  EXPECT_FALSE(board_status(d.port(), "C").is_null());
  EXPECT_EQ(get(d.port(), "/boards/C.pgn").status, 200);
  EXPECT_EQ(post(d.port(), "/control/C/draw", "").status, 200);

  EXPECT_EQ(request(d.port(), "DELETE", "/boards/C", "", AUTH).status, 200);
  EXPECT_TRUE(board_status(d.port(), "C").is_null());
  EXPECT_EQ(request(d.port(), "DELETE", "/boards/C", "", AUTH).status, 404);
  EXPECT_EQ(get(d.port(), "/boards/C.pgn").status, 404);
  EXPECT_EQ(request(d.port(), "PUT", "/boards/A", "", AUTH).status, 405);
}

TEST(Control, OnReloadTheConfigurationFileWinsOverRuntimeBoards) {
  const std::string toml = base_config("token = \"test-token-123\"\n");
  Daemon d(toml);
  ASSERT_EQ(post(d.port(), "/boards", R"({"id": "C", "port": "/dev/null"})").status, 201);
  ASSERT_EQ(request(d.port(), "DELETE", "/boards/B", "", AUTH).status, 200);
  EXPECT_TRUE(board_status(d.port(), "B").is_null());
  auto again = config::parse_config(toml, "test.toml");
  ASSERT_TRUE(again);
  again->state_dir = d.dir().string();
  ASSERT_TRUE(d.on_io([&] { return d.service().reload(*again); }));  // what SIGHUP does
  EXPECT_TRUE(board_status(d.port(), "C").is_null());                // added at runtime: not in the file
  EXPECT_FALSE(board_status(d.port(), "B").is_null());               // removed at runtime: the file has it
  EXPECT_FALSE(board_status(d.port(), "A").is_null());
}

TEST(Control, MatchBoardResignsThroughTheMatchAndIsNotAdjourned) {
  Daemon d(base_config("token = \"test-token-123\"\n", "[[match]]\nboards = [\"A\", \"B\"]\n"));
  for (const char* a : {"adjourn", "resume"}) {
    Reply r = post(d.port(), std::string("/control/A/") + a, R"({"side": "white", "sealed": "e4"})");
    EXPECT_EQ(r.status, 409) << a;
    EXPECT_NE(error_of(r).find("match A-B"), std::string::npos) << r.body;
  }
  EXPECT_EQ(request(d.port(), "DELETE", "/boards/A", "", AUTH).status, 409);
  Reply promo = post(d.port(), "/control/B/promotion", R"({"side": "black", "piece": "r"})");
  EXPECT_EQ(promo.status, 200) << promo.body;
  Reply r = post(d.port(), "/control/A/resign", R"({"side": "white"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(json::parse(r.body)["game"]["result"], "0-1") << r.body;
  EXPECT_EQ(board_status(d.port(), "A")["game"]["reason"], "resignation");
}

// --- Finished records by number (issue 27) ----------------------------------------------------------------

namespace {

// The file of state_dir/games whose name begins with `prefix` and ends with `suffix` ("" if none).
std::string archive_text(const fs::path& dir, const std::string& prefix, const std::string& suffix) {
  std::error_code ec;
  for (fs::directory_iterator it(dir / "games", ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(prefix) && name.ends_with(suffix)) {
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      return text.str();
    }
  }
  return "";
}

// Waits until the archive holds `needle` (the writer puts it on disk off the loop), and returns it.
std::string archive_with(const fs::path& dir, const std::string& prefix, const std::string& suffix,
                         const std::string& needle) {
  std::string text;
  eventually(
      [&] {
        text = archive_text(dir, prefix, suffix);
        return text.find(needle) != std::string::npos;
      },
      kWait, 5ms);
  EXPECT_NE(text.find(needle), std::string::npos) << prefix << "…" << suffix << ":\n" << text;
  return text;
}

}  // namespace

// A board's finished game stays readable by its number once the next one has begun, byte for byte as its
// archive (what its signature covers); the current game by number is what /boards/<id>.pgn serves; a
// number with no game is 404 naming the games there are, a number that is none is 400.
TEST(Http, EveryGameOfABoardByNumber) {
  Daemon d(base_config("token = \"test-token-123\"\n"));
  d.feed("A", test_support::short_game(T0, 5, 4).events);  // e4 e5 Nf3 Nc6
  ASSERT_EQ(d.plies("A"), 4);
  d.settle("A");
  ASSERT_EQ(post(d.port(), "/control/A/resign", R"({"side": "black"})").status, 200);
  ASSERT_EQ(post(d.port(), "/control/A/new-game", "").status, 200);

  const std::string archive = archive_with(d.dir(), "A-", "-1.pgn", "[Result \"1-0\"]");
  ASSERT_NE(archive.find("2. Nf3"), std::string::npos) << archive;
  Reply first = get(d.port(), "/boards/A.pgn?game=1");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_NE(first.head.find("application/x-chess-pgn"), std::string::npos) << first.head;
  EXPECT_EQ(first.body, archive);

  Reply current = get(d.port(), "/boards/A.pgn");
  ASSERT_EQ(current.status, 200);
  EXPECT_NE(current.body.find("[Result \"*\"]"), std::string::npos) << current.body;
  EXPECT_EQ(current.body.find("Nf3"), std::string::npos) << current.body;
  EXPECT_EQ(get(d.port(), "/boards/A.pgn?game=2").body, current.body);

  Reply missing = get(d.port(), "/boards/A.pgn?game=3");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("no game 3"), std::string::npos) << missing.body;
  EXPECT_NE(missing.body.find("1 and 2 (the current one)"), std::string::npos) << missing.body;
  EXPECT_EQ(get(d.port(), "/boards/B.pgn?game=2").status, 404);  // B is at its first game
  for (const char* bad : {"0", "-1", "x", "1x", "", "99999999999"})
    EXPECT_EQ(get(d.port(), std::string("/boards/A.pgn?game=") + bad).status, 400) << bad;
  EXPECT_EQ(get(d.port(), "/boards/Z.pgn?game=1").status, 404);
}

// A match that ended stays readable by its number once the next one has begun (it used to leave
// /matches/A-B.bpgn at once, ?match=1 ignored), byte for byte as its archive. (A resignation entered on a
// match without a move does not reach its BPGN, live or archived: the Round tag tells the matches apart.)
TEST(Http, EveryMatchByNumber) {
  Daemon d(base_config("token = \"test-token-123\"\n", "[[match]]\nboards = [\"A\", \"B\"]\n"));
  ASSERT_EQ(post(d.port(), "/control/A/resign", R"({"side": "white"})").status, 200);
  Reply next = post(d.port(), "/control/A/new-game", "");
  ASSERT_EQ(next.status, 200) << next.body;

  // Each match's BPGN names its number in the Round tag (no round is named here).
  const std::string archive = archive_with(d.dir(), "match-A-B-1.bpgn", "", "[Round \"1\"]");
  Reply first = get(d.port(), "/matches/A-B.bpgn?match=1");
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.body, archive);

  Reply current = get(d.port(), "/matches/A-B.bpgn");
  ASSERT_EQ(current.status, 200);
  EXPECT_NE(current.body.find("[Round \"2\"]"), std::string::npos) << current.body;
  EXPECT_EQ(get(d.port(), "/matches/A-B.bpgn?match=2").body, current.body);

  Reply missing = get(d.port(), "/matches/A-B.bpgn?match=5");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("1 and 2 (the current one)"), std::string::npos) << missing.body;
  for (const char* bad : {"0", "two", "2.0", ""})
    EXPECT_EQ(get(d.port(), std::string("/matches/A-B.bpgn?match=") + bad).status, 400) << bad;
  EXPECT_EQ(get(d.port(), "/matches/X-Y.bpgn?match=1").status, 404);
}

// Asked by number, the public's game is as delayed as without: the game under way shows no move younger
// than the delay, the next game is not there until its start is public, and a finished game is served
// from its archive only once the delay has passed its last write. The token holder reads them live.
TEST(Http, BroadcastDelayHoldsBackAGameAskedByNumber) {
  clock_offset_ms = 0;
  Daemon d(base_config("token = \"test-token-123\"\n", "[broadcast]\ndelay_s = 60\n"));
  d.feed("A", test_support::short_game(T0).events);
  ASSERT_EQ(d.plies("A"), 12);
  d.settle("A");

  Reply held = get(d.port(), "/boards/A.pgn?game=1");
  ASSERT_EQ(held.status, 200) << held.body;
  EXPECT_NE(held.body.find("[Board \"A\"]"), std::string::npos) << held.body;
  EXPECT_EQ(held.body.find("e4"), std::string::npos) << held.body;
  EXPECT_NE(get(d.port(), "/boards/A.pgn?game=1", AUTH).body.find("6... b5"), std::string::npos);

  // Game 2 begins: the public goes on seeing game 1 as the delay lets it out, never its archive.
  ASSERT_EQ(post(d.port(), "/control/A/new-game", "").status, 200);
  archive_with(d.dir(), "A-", "-1.pgn", "6... b5");
  Reply still = get(d.port(), "/boards/A.pgn?game=1");
  ASSERT_EQ(still.status, 200) << still.body;
  EXPECT_EQ(still.body.find("e4"), std::string::npos) << still.body;
  EXPECT_EQ(still.body, get(d.port(), "/boards/A.pgn").body);
  Reply early = get(d.port(), "/boards/A.pgn?game=2");
  EXPECT_EQ(early.status, 404) << early.body;
  EXPECT_NE(early.body.find("its games: 1 (the current one)"), std::string::npos) << early.body;
  EXPECT_EQ(get(d.port(), "/boards/A.pgn?game=2", AUTH).status, 200);

  // Long after (the archive's time is the wall clock's): game 2 is public, game 1 comes from its file.
  const std::int64_t wall = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
  clock_offset_ms = wall - T0 + 3'600'000;
  const std::string archive = archive_text(d.dir(), "A-", "-1.pgn");
  Reply finished = get(d.port(), "/boards/A.pgn?game=1");
  ASSERT_EQ(finished.status, 200) << finished.body;
  EXPECT_EQ(finished.body, archive);
  EXPECT_NE(finished.body.find("6... b5"), std::string::npos) << finished.body;
  EXPECT_EQ(get(d.port(), "/boards/A.pgn?game=2").status, 200);
  clock_offset_ms = 0;
}

// --- Browsers and crowds (the HTTP hardening issue) ------------------------------------------------------

TEST(HttpServer, OldestPendingConnectionsMakeRoomAndWholeRequestsAreServed) {
  http::ServerOptions o;
  o.max_pending = 5;
  o.max_pending_per_address = 3;
  RefusingServer server(o);
  auto pending = [&](const char* source) {
    // Counted before the connect: the server may accept it before this thread looks again.
    const auto before = server.stats().connections;
    auto c = std::make_unique<Conn>(server.port(), 0, source);
    c->send("GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // never finished
    // Accepted before the next one comes: the order of arrival is the order of age.
    eventually([&] { return server.stats().connections != before; });
    return c;
  };
  std::vector<std::unique_ptr<Conn>> one;
  for (int i = 0; i < 3; ++i) one.push_back(pending("127.0.0.1"));
  // A fourth from the same address: that address's oldest goes, nobody else's.
  one.push_back(pending("127.0.0.1"));
  EXPECT_TRUE(one[0]->closed_by_peer());
  EXPECT_EQ(server.stats().evicted_pending, 1u);
  // Two from another address fill the total (5); one more from a third address: the oldest of all goes.
  auto two_a = pending("127.0.0.2");
  auto two_b = pending("127.0.0.2");
  auto three = pending("127.0.0.3");
  EXPECT_TRUE(one[1]->closed_by_peer());
  EXPECT_EQ(server.stats().evicted_pending, 2u);
  // A whole request from the crowded address is answered (here: the server's 401 for everything).
  EXPECT_EQ(request(server.port(), "GET", "/status").status, 401);
  // The newer slow ones were left alone.
  EXPECT_TRUE(three->send("X-More: 1\r\n"));
  EXPECT_GE(server.stats().evicted_pending, 3u);  // the request above made room too
}

TEST(HttpServer, ViewerBudgetPerAddressAndControlIsNeverTurnedAway) {
  http::ServerOptions o;
  o.max_ws_clients = 3;
  o.max_ws_per_address = 2;
  RefusingServer server(o);
  WsClient a(server.port()), b(server.port());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(upgrade_status(server.port()), 503);  // the address's share is used up
  // The arbiter's (control) connection is taken anyway.
  WsClient arbiter(server.port(), 0, "/ws", {{"Authorization", "Bearer anything"}});
  EXPECT_TRUE(arbiter.ok()) << arbiter.error();
  EXPECT_EQ(server.stats().rejected_busy, 1u);
}

TEST(HttpServer, ViewersAreClosedAfterTheirLifetime) {
  http::ServerOptions o;
  o.ws_max_lifetime = 200ms;
  RefusingServer server(o);
  WsClient viewer(server.port());
  ASSERT_TRUE(viewer.ok()) << viewer.error();
  // Told "going away" (the client reconnects); bounded wait, no timing asserted.
  for (auto end = std::chrono::steady_clock::now() + kWait;
       !viewer.closed() && std::chrono::steady_clock::now() < end;)
    (void)viewer.read(500ms);
  EXPECT_TRUE(viewer.closed());
}

TEST(Http, HostMustNameTheDaemon) {
  Daemon d(base_config("server_names = [\"Hall-PC.local\"]\n"));
  // DNS rebinding: a page's own name resolved to this address.
  for (std::string host : {"evil.example", "evil.example:7780", "127.0.0.1.evil.example", "localhost.evil"}) {
    Conn c(d.port());
    c.send("GET /status HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(c.read_all().rfind("HTTP/1.1 421", 0), 0u) << host;
  }
  for (std::string host : {"localhost", "LOCALHOST:7780", "hall-pc.local:7780", "hall-pc.local.",
                           "[::1]:7780", "::1", "192.168.1.20:7780", "arbiter.localhost"}) {
    Conn c(d.port());
    c.send("GET /status HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(c.read_all().rfind("HTTP/1.1 200", 0), 0u) << host;
  }
  EXPECT_EQ(upgrade_status(d.port(), "Host: evil.example\r\n"), 421);
  EXPECT_EQ(upgrade_status(d.port(), "Host: hall-pc.local\r\n"), 101);
}

TEST(Http, OriginMustBeTheDaemonsOwnOrAllowed) {
  Daemon d(base_config("token = \"test-token-123\"\nallowed_origins = [\"http://screen.local:8080\"]\n"));
  const std::string own = "http://127.0.0.1:" + std::to_string(d.port());
  EXPECT_EQ(upgrade_status(d.port(), "Origin: http://evil.example\r\n"), 403);
  WsClient null_origin(d.port(), 0, "/ws", {{"Origin", "null"}});
  EXPECT_FALSE(null_origin.ok());
  // Same host, another port: another origin.
  WsClient other_port(d.port(), 0, "/ws", {{"Origin", "http://127.0.0.1:1"}});
  EXPECT_FALSE(other_port.ok());
  WsClient same(d.port(), 0, "/ws", {{"Origin", own}});
  EXPECT_TRUE(same.ok()) << same.error();
  WsClient allowed(d.port(), 0, "/ws", {{"Origin", "http://SCREEN.local:8080"}});
  EXPECT_TRUE(allowed.ok()) << allowed.error();
  // Control from a foreign page is refused even with the token (which it should not have).
  const std::string auth = "Authorization: Bearer test-token-123\r\n";
  EXPECT_EQ(request(d.port(), "POST", "/control/A/tags", R"({"Event": "x"})",
                    auth + "Origin: http://evil.example\r\n")
                .status,
            403);
  EXPECT_EQ(
      request(d.port(), "POST", "/control/A/tags", R"({"Event": "x"})", auth + "Origin: " + own + "\r\n")
          .status,
      200);
}

TEST(Http, TicketOpensTheWebSocketOnceWithoutATokenInTheUrl) {
  const std::string cfg =
      base_config("token = \"control-token-1\"\nread_token = \"read-token-22\"\nopen_read = false\n");
  Daemon d(cfg);
  d.feed("A", test_support::short_game(T0).events);  // something for the snapshot
  EXPECT_EQ(request(d.port(), "POST", "/auth/ticket", "{}").status, 401);
  EXPECT_EQ(get(d.port(), "/auth/ticket", "Authorization: Bearer read-token-22\r\n").status, 405);
  EXPECT_EQ(request(d.port(), "POST", "/auth/ticket", "{}",
                    "Authorization: Bearer read-token-22\r\nContent-Type: text/plain\r\n")
                .status,
            415);
  Reply r = request(d.port(), "POST", "/auth/ticket", "{}", "Authorization: Bearer read-token-22\r\n");
  ASSERT_EQ(r.status, 200) << r.body;
  json t = json::parse(r.body);
  EXPECT_EQ(t["right"], "read");
  const std::string protocol = t["protocol"].get<std::string>();
  EXPECT_EQ(protocol, "eboard-ticket." + t["ticket"].get<std::string>());
  EXPECT_GE(t["ticket"].get<std::string>().size(), 32u);

  // As a browser offers it: among other subprotocols; the chosen one is echoed.
  WsClient first(d.port(), 0, "/ws", {{"Sec-WebSocket-Protocol", "chat, " + protocol}});
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first.response()[beast::http::field::sec_websocket_protocol], protocol);
  EXPECT_TRUE(first.read().has_value());                                                     // the snapshot
  EXPECT_EQ(upgrade_status(d.port(), "Sec-WebSocket-Protocol: " + protocol + "\r\n"), 401);  // used up
  EXPECT_EQ(upgrade_status(d.port(), "Sec-WebSocket-Protocol: eboard-ticket.0123456789abcdef\r\n"), 401);

  // An expired ticket opens nothing.
  Daemon quick(cfg, {}, {}, 0ms);
  Reply q = request(quick.port(), "POST", "/auth/ticket", "{}", "Authorization: Bearer control-token-1\r\n");
  ASSERT_EQ(q.status, 200) << q.body;
  EXPECT_EQ(upgrade_status(quick.port(), "Sec-WebSocket-Protocol: " +
                                             json::parse(q.body)["protocol"].get<std::string>() + "\r\n"),
            401);
}

TEST(Http, ControlActionsAreLoggedWithThePeer) {
  CapturedLog log;
  Daemon d(base_config("token = \"test-token-123\"\n"));
  EXPECT_EQ(request(d.port(), "POST", "/control/A/tags", R"({"Event": "Open"})",
                    "Authorization: Bearer test-token-123\r\n")
                .status,
            200);
  EXPECT_EQ(request(d.port(), "POST", "/control/A/draw", "{}").status, 401);
  d.on_io([] { return 0; });  // the log lines are written on the service's thread: it has moved on
  std::string all;
  for (const auto& l : log.lines()) all += l + "\n";
  EXPECT_NE(all.find("http: control POST /control/A/tags from 127.0.0.1:"), std::string::npos) << all;
  EXPECT_NE(all.find(": 200"), std::string::npos) << all;
  EXPECT_NE(all.find("http: refused POST /control/A/draw from 127.0.0.1:"), std::string::npos) << all;
  EXPECT_EQ(all.find("test-token-123"), std::string::npos) << all;
}

TEST(Http, ReloadReplacesTheReadTokenServerNamesAndTicketsAtOnce) {
  const auto cfg = [](const std::string& read_token, const std::string& name) {
    return base_config("token = \"control-token-1\"\nread_token = \"" + read_token +
                       "\"\nopen_read = false\nserver_names = [\"" + name + "\"]\n");
  };
  Daemon d(cfg("old-read-token", "old-name"));
  const auto reads = [&](const std::string& token) {
    return get(d.port(), "/status", "Authorization: Bearer " + token + "\r\n").status;
  };
  const auto named = [&](const std::string& host) {
    Conn c(d.port());
    c.send("GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    return c.read_all().rfind("HTTP/1.1 421", 0) != 0;
  };
  EXPECT_EQ(reads("old-read-token"), 200);
  EXPECT_TRUE(named("old-name"));
  Reply t = request(d.port(), "POST", "/auth/ticket", "{}", "Authorization: Bearer old-read-token\r\n");
  ASSERT_EQ(t.status, 200) << t.body;
  const std::string protocol = json::parse(t.body)["protocol"].get<std::string>();

  auto next = config::parse_config(cfg("new-read-token", "new-name"), "test.toml");
  ASSERT_TRUE(next);
  next->state_dir = d.dir().string();
  auto diff = d.on_io([&] { return d.service().reload(*next); });
  ASSERT_TRUE(diff) << diff.error();
  EXPECT_TRUE(diff->http_access_changed);
  // A token replaced because it leaked stops working at once, and so do the tickets it got.
  EXPECT_EQ(reads("old-read-token"), 401);
  EXPECT_EQ(reads("new-read-token"), 200);
  EXPECT_EQ(upgrade_status(d.port(), "Sec-WebSocket-Protocol: " + protocol + "\r\n"), 401);
  EXPECT_FALSE(named("old-name"));
  EXPECT_TRUE(named("new-name"));
}
