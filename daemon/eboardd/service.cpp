// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/service.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/arbiter.hpp"
#include "daemon/eboardd/bus_source.hpp"
#include "daemon/eboardd/clock_control.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/eboardd/opening_book.hpp"
#include "daemon/eboardd/serial_source.hpp"
#include "daemon/eboardd/woodless_source.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/background_work.hpp"
#include "daemon/outputs/pairings.hpp"
#include "daemon/outputs/round_results.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "daemon/web/assets.hpp"
#include "rules/notation.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

http::Response error_json(unsigned status, const std::string& message) {
  return control_error(status, message);
}

std::string hex4(std::uint16_t v) {
  static const char* digits = "0123456789abcdef";
  std::string s(4, '0');
  for (int i = 3; i >= 0; --i, v = std::uint16_t(v >> 4)) s[std::size_t(i)] = digits[v & 0xf];
  return s;
}

// "0403:6001 serial A1B2C3 on ttyUSB0", for the log.
std::string describe(const hotplug::UsbBoard& u) {
  std::string s = hex4(u.vid) + ":" + hex4(u.pid) + " serial " + (u.serial.empty() ? "(none)" : u.serial) +
                  " on " + u.tty;
  if (!u.product.empty()) s += " (" + u.product + ")";
  return s;
}

// A discovered board's id: <protocol>-<serial> (or -path-<usb position> without a serial), in the
// characters a board id may hold.
std::string discovered_id(const hotplug::UsbBoard& u) {
  std::string id = u.protocol + "-" + (u.serial.empty() ? "path-" + u.usb_path : u.serial);
  for (char& c : id)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
      c = '_';
  if (id.size() > 32) id.resize(32);
  return id;
}

bool same_node(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code e1, e2;
  fs::path ca = fs::canonical(a, e1), cb = fs::canonical(b, e2);
  return !e1 && !e2 && ca == cb;
}

// The PID of the process that holds a flock on the file `fd` is open on, from /proc/locks; 0 if none is
// listed (or the holder is in another PID namespace). Lines read "1: FLOCK  ADVISORY  WRITE 1234
// fe:00:5678 0 EOF" (a waiter's has "->" before FLOCK), the device's major and minor in hex.
long flock_holder(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  std::ifstream in("/proc/locks");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, node;
    long pid = 0;
    fields >> number >> kind;
    if (kind == "->") continue;  // waiting, not holding
    fields >> mode >> access >> pid >> node;
    unsigned maj = 0, min = 0;
    unsigned long long ino = 0;
    if (kind != "FLOCK" || std::sscanf(node.c_str(), "%x:%x:%llu", &maj, &min, &ino) != 3) continue;
    if (ino == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev) && pid > 0) return pid;
  }
  return 0;
}

// "127.0.0.1:7780", "[::1]:7780".
std::string address_text(const boost::asio::ip::tcp::endpoint& ep) {
  return ep.address().is_v6() ? "[" + ep.address().to_string() + "]:" + std::to_string(ep.port())
                              : ep.address().to_string() + ":" + std::to_string(ep.port());
}

// The PID a running eboardd wrote into its lock file; 0 if the file is gone or holds none.
long pid_in(const fs::path& lock_file) {
  std::ifstream in(lock_file);
  long pid = 0;
  return in >> pid ? pid : 0;
}

}  // namespace

Service::Service(boost::asio::io_context& io, config::Config config, ServiceOptions options)
    : io_(io), config_(std::move(config)), options_(std::move(options)) {
  if (!options_.time)
    options_.time =
        options_.clock ? io::TimeBase::scaled(io_, 1.0, options_.clock) : io::TimeBase::system(io_);
  if (!options_.clock) options_.clock = [time = options_.time] { return time->now_ms(); };
  options_.http.max_clients = config_.http.max_clients;
  options_.http.max_ws_clients = config_.http.max_ws_clients;
  options_.http.ws_max_lifetime = std::chrono::seconds(config_.http.ws_max_lifetime_s);
  options_.http.ws_queue_bytes = config_.http.ws_queue_bytes;
  tickets_ = Tickets(options_.ticket_ttl);
  http::ServerHandlers h;
  h.on_request = [this](const http::Request& r) { return handle(r); };
  h.ws_snapshot = [this](const http::Request&, int feed) { return snapshot(feed == DELAYED_FEED); };
  h.is_control = [this](const http::Request& r) { return is_control(r); };
  // A pairings file as large as `eboardctl pairings` reads (its UTF-8 form, every byte escaped in JSON at
  // worst), for the control token only: anyone else's body stays within the small limit.
  options_.http.large_body_limit = 2 * outputs::MAX_PAIRINGS_TEXT_BYTES;
  h.large_body = [this](const http::Request& r) {
    return r.method == "POST" && r.path == "/control/pairings" && !config_.http.token.empty() &&
           right_of_token(r.token(), config_.http) == Right::control;
  };
  http_ = std::make_unique<http::Server>(io_, options_.http, std::move(h));
  if (config_.broadcast.delay_s > 0)
    delay_ = std::make_unique<DelayLine>(io_, std::int64_t(config_.broadcast.delay_s) * 1000, options_.clock,
                                         [this](const std::string& line) { release(line); });
  if (!config_.broadcast.listen.empty()) {
    // The world's door: reading only, always behind the delay, whatever token a request carries.
    http::ServerHandlers p;
    p.on_request = [this](const http::Request& r) { return handle_public(r); };
    p.ws_snapshot = [this](const http::Request&, int) { return snapshot(true); };
    public_http_ = std::make_unique<http::Server>(io_, options_.http, std::move(p));
  }
  add_parts();
}

void Service::start_push() {
  // The token stays out of the configuration (which is often world-readable and shared): a file of its own.
  const auto& p = config_.push_lichess;
  std::ifstream in(p.token_file);
  std::string token;
  if (!(in >> token) || token.empty()) {
    push_problem_ = "cannot read a token from " + p.token_file;
    spdlog::error("lichess push off: {}", push_problem_);
    return;
  }
  push_token_ = token;
  retarget_push();
}

void Service::retarget_push() {
  if (push_token_.empty()) return;
  const auto& p = config_.push_lichess;
  const std::vector<std::string>& targets = p.targets(round_.name);
  if (targets == push_targets_ && !pushes_.empty()) return;
  for (auto& push : pushes_) push->stop();
  pushes_.clear();
  push_targets_ = targets;
  if (targets.empty())
    spdlog::warn(
        "lichess push: no lichess round for round {} ([push.lichess] round or rounds): nothing pushed",
        round_.name.empty() ? "?" : round_.name);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    LichessPush::Options o;
    o.url = p.push_url(targets[i]);
    o.token = push_token_;
    o.interval = std::chrono::seconds(p.interval_s);
    o.timeout = std::chrono::seconds(p.timeout_s);
    // What the public may see: never a move before the delay lets it out; this target's share of it.
    pushes_.push_back(std::make_unique<LichessPush>(
        io_, o, [this, i] { return push_plan().pgn.at(i); }, options_.clock));
    pushes_.back()->start();
    spdlog::info("round {}: pushing {} to {} every {} s at most{}", round_.name.empty() ? "?" : round_.name,
                 targets.size() > 1 ? "games " + std::to_string(i * LICHESS_ROUND_GAMES + 1) + "-" +
                                          std::to_string((i + 1) * LICHESS_ROUND_GAMES)
                                    : std::string("the games"),
                 o.url, p.interval_s, delay_ ? " (behind the broadcast delay)" : "");
  }
}

PushPlan Service::push_plan() const { return plan_push(games_pgn(true), push_targets_.size()); }

json Service::push_status() const {
  if (!config_.push_lichess.enabled()) return nullptr;
  if (push_token_.empty()) return json{{"off", push_problem_}};
  // The first target's fields at the top (as with one target), every target's under "targets".
  json s = pushes_.empty() ? json::object() : pushes_.front()->status();
  json targets = json::array();
  for (std::size_t i = 0; i < pushes_.size(); ++i) {
    json t = pushes_[i]->status();
    t["lichess_round"] = push_targets_[i];
    t["games"] = json{{"first", i * LICHESS_ROUND_GAMES + 1}, {"last", (i + 1) * LICHESS_ROUND_GAMES}};
    targets.push_back(std::move(t));
  }
  s["round"] = round_.name;
  s["targets"] = std::move(targets);
  s["left_out"] = push_plan().left_out;
  return s;
}

void Service::publish(const std::string& board, std::int64_t t_ms, const std::string& line) {
  http_->broadcast(line, LIVE_FEED);
  if (delay_)
    delay_->push(board, t_ms, line);
  else
    release(line);
}

void Service::publish_line(const std::string& line) {
  // A link line (daemon::LinkEvent): its board and time from the line itself.
  auto j = json::parse(line, nullptr, false);
  std::string board =
      j.is_object() && j.contains("board") && j["board"].is_string() ? j["board"].get<std::string>() : "";
  publish(board, event_time_of(line).value_or(options_.clock()), line);
}

void Service::release(const std::string& line) {
  http_->broadcast(line, DELAYED_FEED);
  if (public_http_) public_http_->broadcast(line, DELAYED_FEED);
}

Service::~Service() {
  stop();
  // Released last: the boards' destructors (after this body) may still write their last files.
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void Service::add_parts() {
  lifecycle_.add("state directory", [this] { return lock_state_dir(); });
  // Started on first use (the io_context's: background_files(), background_work()); stopped after every
  // part that hands it work (signatures, archives, PGN files), so that all of it is on disk once stop()
  // returns.
  lifecycle_.add("background writer", {}, [this] {
    background_work(io_).stop();  // the signatures it makes, and their archives, go to the writer
    background_files(io_).stop();
  });
  // Before any board: its PGN files carry the round.
  lifecycle_.add("round", [this] { return open_round(); });
  // Before any board: a game finished at start-up (recovered) is signed when its archive is written.
  lifecycle_.add("signing key", [this] { return load_signing_key(); });
  // Before any board: a journal's replay ranks its missed gaps with the book the live game had.
  lifecycle_.add("opening lines ([gaps] openings)", [this] { return load_opening_lines(); });
  lifecycle_.add(
      "gap judge", [this] { return start_gap_judge(); },
      [this] {
        if (gap_judge_) gap_judge_->stop();  // the engine reaped
      });
  // Before the boards: a board named by serial without udev opens the tty found here.
  lifecycle_.add(
      "USB watcher", [this] { return start_usb_watch(); },
      [this] {
        if (usb_) usb_->stop();
      });
  lifecycle_.add(
      "boards", [this] { return start_boards(); }, [this] { stop_boards(); });
  // Once the boards are in place: the USB boards present are assigned (or discovered), later reports acted
  // on.
  lifecycle_.add(
      "USB boards", [this] { return assign_present_usb(); }, [this] { usb_ready_ = false; });
  lifecycle_.add(
      "HTTP listener", [this] { return listen_http(); }, [this] { http_->stop(); });
  lifecycle_.add(
      "public listener ([broadcast] listen)", [this] { return listen_public(); },
      [this] {
        if (public_http_) public_http_->stop();
      });
  lifecycle_.add(
      "lichess push",
      [this]() -> tl::expected<void, std::string> {
        if (config_.push_lichess.enabled()) start_push();  // a push that cannot start is off, reported
        return {};
      },
      [this] {
        for (auto& push : pushes_) push->stop();
      });
  lifecycle_.add(
      "MQTT hall", [this] { return start_hall(); },
      [this] {
        if (hall_) hall_->stop();
      });
  // After the hall: an aggregator's records of other hosts' boards are among what it re-queues.
  lifecycle_.add("broadcast delay", [this] { return requeue_delayed(); });
  lifecycle_.add(
      "LiveChess listener ([livechess])", [this] { return start_livechess(); },
      [this] {
        if (livechess_) livechess_->stop();
      });
  // Stopped first: the control answers not given yet are given up (503, "the daemon stopped before ..."),
  // so that no thread (an HTTP worker, the hall's AnswerWaits) waits out its bound for a loop that has
  // stopped; the parts stopped after it then join theirs at once.
  lifecycle_.add("pending answers", {}, [this] { pending_answers(io_).abandon(); });
  // Last: the file tells tools and tests that the daemon is up; it stays after a stop (the next start
  // writes it again).
  lifecycle_.add("listen file", [this] { return write_listen_file(); });
}

tl::expected<void, std::string> Service::start() {
  started_ms_ = options_.clock();
  return lifecycle_.start();
}

void Service::stop() { lifecycle_.stop(); }

tl::expected<void, std::string> Service::lock_state_dir() {
  const fs::path dir = config_.state_dir;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return tl::unexpected("cannot create the state directory " + dir.string() + ": " + ec.message());
  // One daemon per state directory: two would interleave their journals. The lock is on the directory
  // itself, which nobody deletes by mistake; a lock on eboardd.lock alone was lost with the file (deleted
  // by a cleanup), and a second daemon then ran on the same journals. The file only tells who holds it.
  // Held until the service is destroyed.
  const fs::path lock = dir / "eboardd.lock";
  auto refuse = [&](int fd) {
    long pid = fd >= 0 ? flock_holder(fd) : 0;
    if (pid <= 0) pid = pid_in(lock);
    return tl::unexpected("another eboardd (" + (pid > 0 ? "PID " + std::to_string(pid) : "PID unknown") +
                          ") is using the state directory " + dir.string());
  };
  if (dir_fd_ < 0) dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) return tl::unexpected("cannot open " + dir.string() + ": " + std::strerror(errno));
  if (::flock(dir_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) return refuse(dir_fd_);
    // A file system without flock on directories (some network ones): the lock file alone, as before.
    spdlog::warn("cannot lock the state directory {} ({}); relying on {}", dir.string(), std::strerror(errno),
                 lock.string());
  }
  if (lock_fd_ < 0) lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) return tl::unexpected("cannot open " + lock.string() + ": " + std::strerror(errno));
  // Still locked as well: an older eboardd locks only this file.
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) return refuse(lock_fd_);
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size()))
    spdlog::warn("cannot write the PID to {}: {}", lock.string(), std::strerror(errno));
  return {};
}

tl::expected<void, std::string> Service::open_round() {
  const fs::path dir = config_.state_dir;
  finished_games_ = FinishedGames(dir / "games", &background_files(io_));
  auto round = load_round(dir);
  if (!round) return tl::unexpected(round.error());
  if (*round) {
    round_ = **round;
  } else {
    round_ = Round{valid_round_name(config_.event.round) ? config_.event.round : "", started_ms_, {}, {}};
    if (auto ok = save_round(dir, round_); !ok) return tl::unexpected(ok.error());
  }
  return {};
}

tl::expected<void, std::string> Service::load_signing_key() {
  const fs::path dir = config_.state_dir;
  auto key = journal::load_or_create_key(dir / "keys");
  if (!key) return tl::unexpected(key.error());
  signing_key_ = std::make_shared<const journal::SigningKey>(*key);
  spdlog::info("signing finished games' records with the key {} ({})",
               signing_key_->public_key().fingerprint(), (dir / "keys" / journal::PUBLIC_KEY_FILE).string());
  return {};
}

tl::expected<void, std::string> Service::load_opening_lines() {
  auto book = read_opening_book(config_.gaps);
  if (!book) return tl::unexpected("gaps.openings: " + book.error());
  spdlog::info("gaps.openings: {}", book->said);
  rules::use_opening_lines(std::move(book->lines));
  return {};
}

tl::expected<void, std::string> Service::start_gap_judge() {
  if (config_.gaps.ranker != "stockfish" || gap_judge_) return {};
  engine::GapEngineSettings judge{config_.gaps.engine, config_.gaps.engine_nodes};
  judge.timeout_ms = config_.gaps.engine_timeout_ms;
  if (::access(judge.path.c_str(), X_OK) != 0)
    spdlog::warn("gaps.ranker: {} is not executable: missed gaps stay in the rules' order", judge.path);
  gap_judge_ = std::make_unique<GapJudge>(io_, judge);
  return {};
}

tl::expected<void, std::string> Service::start_usb_watch() {
  if (!options_.usb_watch || options_.demo) return {};
  usb_ = std::make_unique<hotplug::UsbWatcher>(io_, options_.usb,
                                               [this](const hotplug::UsbChange& c) { on_usb(c, false); });
  usb_->start();
  spdlog::info("USB boards: {} ({} present{})", usb_->mechanism(), usb_->boards().size(),
               config_.discovery.usb ? ", discovery on" : "");
  return {};
}

tl::expected<void, std::string> Service::start_boards() {
  // A board that cannot start is reported (failed_boards()) and skipped: the others run.
  for (const auto& b : config_.boards)
    if (!match_of(b.id)) add_board(b);
  for (const auto& m : config_.matches) add_match(m);
  // Players of the round's pairings still waiting for a board's first game of the round (not journaled).
  for (const auto& b : boards_) hand_players(*b, /*waiting_only=*/true);
  start_bus_discovery();
  order_boards();
  return {};
}

void Service::stop_boards() {
  for (auto& b : boards_) b->stop();
  for (auto& m : matches_) m->stop();
  for (auto& [port, line] : bus_lines_) line->stop();
}

tl::expected<void, std::string> Service::assign_present_usb() {
  if (!usb_) return {};
  usb_ready_ = true;
  hotplug::UsbChange present;
  present.added = usb_->boards();
  on_usb(present, true);
  return {};
}

tl::expected<void, std::string> Service::listen_http() {
  auto ep = http_->listen(config_.http.host, config_.http.port);
  if (!ep) return tl::unexpected(ep.error());
  endpoint_ = *ep;
  spdlog::info("listening on http://{} ({} board{}, reading {}, control {})", address_text(*ep),
               boards_.size(), boards_.size() == 1 ? "" : "s",
               config_.http.open_read ? "open" : "needs a token",
               config_.http.token.empty() ? "disabled (no http.token)" : "needs the token");
  // Out of descriptors, accept() fails and the reserved control slots are worth nothing.
  const std::size_t budget =
      options_.http.max_pending + options_.http.max_clients + options_.http.max_ws_clients + 64;
  if (rlimit nofile{}; ::getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY &&
                       nofile.rlim_cur < budget)
    spdlog::warn(
        "the file descriptor limit ({}) is below what the HTTP budgets need (about {}): raise it "
        "(LimitNOFILE) or lower http.max_ws_clients",
        nofile.rlim_cur, budget);
  return {};
}

tl::expected<void, std::string> Service::listen_public() {
  if (!public_http_) {
    if (delay_)
      spdlog::info("broadcast delay {} s: /games.pgn, BPGN and /ws without a token run behind",
                   config_.broadcast.delay_s);
    return {};
  }
  auto pub = public_http_->listen(config_.broadcast.host, config_.broadcast.port);
  if (!pub) return tl::unexpected(pub.error());
  public_endpoint_ = *pub;
  spdlog::info("public broadcast on http://{} ({})", address_text(*pub),
               delay_ ? std::to_string(config_.broadcast.delay_s) + " s behind the games" : "no delay");
  return {};
}

tl::expected<void, std::string> Service::start_hall() {
  if (!config_.mqtt.enabled) return {};
  hall_ = std::make_unique<Hall>(io_, config_, *this);
  return hall_->start();
}

tl::expected<void, std::string> Service::requeue_delayed() {
  if (!delay_) return {};
  // What the boards' journals (and an aggregator's records of other hosts' boards) hold from the last
  // delay_s before the start has not reached the public yet (the daemon stopped before it did): it goes
  // out when due, as if there had been no restart.
  const std::int64_t cutoff = delay_->cutoff();
  for (const auto& b : directory().boards())
    for (auto& line : b->snapshot())
      if (auto t = event_time_of(line); t && *t > cutoff) delay_->push(b->id(), *t, std::move(line));
  return {};
}

tl::expected<void, std::string> Service::start_livechess() {
  if (!config_.livechess.enabled) return {};
  livechess::ListenerOptions lo;  // its own server options: not [http]'s lifetime and viewer budget
  lo.control = config_.livechess.control;
  lo.allowed_origins = config_.livechess.allowed_origins;
  lo.boards = config_.livechess.boards;
  lo.host_allowed = [this](std::string_view host) { return host_acceptable(host, config_.http); };
  lo.token_right = [this](std::string_view token) {
    const Right right = right_of_token(token, config_.http);
    return right == Right::control ? livechess::TokenRight::control
           : right == Right::read  ? livechess::TokenRight::read
                                   : livechess::TokenRight::none;
  };
  // Beyond loopback the hall's network reaches it: the public's view, unless the token is shown.
  lo.delayed = !config_.livechess.loopback && delay_ != nullptr;
  livechess::Backend be;
  be.boards = [this](bool live) { return livechess_boards(live); };
  be.round = [this](bool live) { return livechess_round(live); };
  be.setup = [this](const livechess::BoardView& v, const std::string& fen) {
    return livechess_setup(v.board_id, fen);
  };
  be.now_ms = options_.clock;
  livechess_ = std::make_unique<livechess::Listener>(io_, lo, std::move(be));
  auto lep = livechess_->listen(config_.livechess.host, config_.livechess.port);
  if (!lep) return tl::unexpected(lep.error());
  livechess_endpoint_ = *lep;
  const std::string lwhere = address_text(*lep);
  spdlog::info("LiveChess local API on ws://{}/api/v1.0 (setup and flip {}{})", lwhere,
               config_.livechess.control ? "obeyed" : "need the control token",
               lo.delayed ? "; without the token, behind the broadcast delay" : "");
  if (auto ok = outputs::write_file_atomic(fs::path(config_.state_dir) / "eboardd.livechess", lwhere + "\n");
      !ok)
    spdlog::warn("{}", ok.error());
  return {};
}

tl::expected<void, std::string> Service::write_listen_file() {
  // Where we listen, for tools and tests (the port may have been chosen by the kernel).
  if (auto ok = outputs::write_file_atomic(fs::path(config_.state_dir) / "eboardd.listen",
                                           address_text(*endpoint_) + "\n");
      !ok)
    spdlog::warn("{}", ok.error());
  return {};
}

void Service::on_journal_health(const std::string& board, bool ok, const std::string& text) {
  if (ok)
    journal_down_.erase(board);
  else
    journal_down_[board] = text;
  if (!options_.journal_health) return;
  std::string problem;
  for (const auto& [id, error] : journal_down_) {
    problem += problem.empty() ? "journal unwritable, events held back: board " : "; board ";
    problem += id;
    problem += " (";
    problem += error;
    problem += ")";
  }
  options_.journal_health(problem);
}

void Service::add_board(const config::BoardConfig& b) {
  RuntimeOptions ro;
  ro.state_dir = config_.state_dir;
  ro.sync_interval = std::chrono::milliseconds(config_.journal.sync_ms);
  // A board found on a bus is in no file: its line's rules.
  ro.profile = config_.board(b.id) ? config_.profile_of(b.id) : b.rules;
  ro.chess960 = b.chess960;
  // A board whose protocol brings no clock completes moves when they rest (issue 13).
  if (const auto* p = session::find_protocol(b.protocol); p && !p->has_clock)
    ro.complete_after_ms = b.settle_ms;
  ro.hold_uncounted = config_.gaps.hold_uncounted;
  ro.raw_log = b.raw_log;
  ro.protocol = b.protocol;
  ro.bus_address = b.bus_address;
  const std::string device = device_for(b);
  ro.device = device;
  ro.clock = options_.clock;
  ro.log_moves = options_.log_moves;
  ro.signing_key = signing_key_;
  ro.journal_health = [this](const std::string& id, bool ok, const std::string& text) {
    on_journal_health(id, ok, text);
  };
  // The hall reads the runtime that publishes (its journal position), which exists only once made.
  auto self = std::make_shared<BoardRuntime*>(nullptr);
  ro.default_tags = [this, self] { return default_tags_of(*self); };
  ro.publish_link = [this, id = b.id](const std::string& line) {
    publish_line(line);
    livechess_changed();
    if (hall_) hall_->changed(id);
  };
  ro.missed_gap = [this](BoardRuntime& rt) {
    if (gap_judge_) judge_missed_gap(*gap_judge_, rt);
  };
  auto rt = std::make_unique<BoardRuntime>(io_, b.id, ro,
                                           [this, self](const rules::Event& e, const std::string& line) {
                                             publish(e.board, e.t_ms, line);
                                             livechess_changed();
                                             if (hall_ && *self) hall_->published(**self, line);
                                           });
  *self = rt.get();
  if (auto ok = rt->open(); !ok) {
    spdlog::error("board {}: not started: {}", b.id, ok.error());
    failed_[b.id] = ok.error();
    return;
  }
  std::unique_ptr<BoardSource> source;
  if (options_.source_factory) {
    source = options_.source_factory(b, *rt);
  } else if (b.woodless()) {
    journal::GameMachine& m = rt->recovery().machine;
    auto woodless = std::make_unique<WoodlessSource>(b, m.game(), m.current());
    if (m.has_game()) woodless->continue_from(m.take_reconstructor());
    source = std::move(woodless);
    spdlog::info("board {}: no device, moves typed by the arbiter ({} rules)", b.id, ro.profile);
  } else if (b.bus_address != 0) {
    journal::GameMachine& m = rt->recovery().machine;
    auto bus = std::make_unique<BusSource>(*rt, b, bus_line(b.port), m.game(), m.current());
    if (m.has_game()) bus->continue_from(m.take_reconstructor());
    source = std::move(bus);
    spdlog::info("board {}: dgt bus address {} on {} ({} rules)", b.id, b.bus_address, b.port, ro.profile);
  } else {
    journal::GameMachine& m = rt->recovery().machine;
    auto serial = std::make_unique<SerialSource>(io_, *rt, b, m.game(), m.current(), options_.time);
    if (m.has_game()) serial->continue_from(m.take_reconstructor());
    if (device != b.device()) serial->reconnect_now(device);  // before start: only the path
    serial_sources_[b.id] = serial.get();
    source = std::move(serial);
    if (device != b.device())
      spdlog::info("board {}: {} on {} (serial {}, found in sysfs: no udev link {}) ({} rules)", b.id,
                   b.protocol, device, b.serial, b.device(), ro.profile);
    else
      spdlog::info("board {}: {} on {} ({} rules)", b.id, b.protocol, device, ro.profile);
  }
  failed_.erase(b.id);
  rt->attach(std::move(source));
  // A gap still waiting for the arbiter when the daemon stopped is ranked by the engine again: the list he
  // saw keeps its order and its numbers (the journal knows only the rules' order).
  if (gap_judge_ && rt->reconstructor() && rt->reconstructor()->missed_gap())
    judge_missed_gap(*gap_judge_, *rt);
  boards_.push_back(std::move(rt));
}

const config::MatchConfig* Service::match_of(const std::string& board_id) const {
  for (const auto& m : config_.matches)
    if ((m.boards[0] == board_id || m.boards[1] == board_id) && config_.board(m.boards[0]) &&
        config_.board(m.boards[1]))
      return &m;
  return nullptr;
}

std::pair<MatchFeed*, int> Service::match_feed_of(const std::string& board_id) {
  for (auto& m : matches_) {
    const auto& ids = m->config().boards;
    for (int b = 0; b < 2; ++b)
      if (ids[std::size_t(b)] == board_id) return {m->feed(), b};
  }
  return {nullptr, 0};
}

MatchRuntime* Service::match(std::string_view name) {
  for (auto& m : matches_)
    if (m->name() == name) return m.get();
  return nullptr;
}

void Service::add_match(const config::MatchConfig& m) {
  if (match(m.name())) return;
  const config::BoardConfig* configured[2] = {config_.board(m.boards[0]), config_.board(m.boards[1])};
  if (!configured[0] || !configured[1] || m.boards[0] == m.boards[1]) {
    spdlog::error("match {}: needs two configured boards", m.name());
    return;
  }
  // A board named by serial without udev: its tty found in sysfs now (port, which device() prefers; the
  // serial number stays for /status). Arrivals and departures re-resolve it (on_usb → the feed).
  std::array<config::BoardConfig, 2> resolved{*configured[0], *configured[1]};
  for (auto& r : resolved)
    if (!r.serial.empty()) {
      std::string dev = device_for(r);
      if (dev != r.device()) r.port = dev;
    }
  const config::BoardConfig* bc[2] = {&resolved[0], &resolved[1]};
  std::array<std::unique_ptr<BoardRuntime>, 2> rts;
  for (int b = 0; b < 2; ++b) {
    RuntimeOptions ro;
    ro.state_dir = config_.state_dir;
    ro.sync_interval = std::chrono::milliseconds(config_.journal.sync_ms);
    ro.profile = m.rules;
    ro.raw_log = bc[b]->raw_log;
    ro.device = bc[b]->device();
    ro.clock = options_.clock;
    ro.log_moves = options_.log_moves;
    ro.match_member = true;
    ro.hold_uncounted = config_.gaps.hold_uncounted;  // (the match's boards: MatchRuntime::match_config)
    ro.match_partner = m.boards[std::size_t(1 - b)];
    ro.match_name = m.name();
    ro.signing_key = signing_key_;
    ro.journal_health = [this](const std::string& id, bool ok, const std::string& text) {
      on_journal_health(id, ok, text);
    };
    ro.publish_link = [this, id = bc[b]->id](const std::string& line) {
      publish_line(line);
      livechess_changed();
      if (hall_) hall_->changed(id);
    };
    auto self = std::make_shared<BoardRuntime*>(nullptr);
    ro.default_tags = [this, self] { return default_tags_of(*self); };
    auto rt = std::make_unique<BoardRuntime>(io_, bc[b]->id, ro,
                                             [this, self](const rules::Event& e, const std::string& line) {
                                               publish(e.board, e.t_ms, line);
                                               livechess_changed();
                                               if (hall_ && *self) hall_->published(**self, line);
                                             });
    *self = rt.get();
    if (auto ok = rt->open(); !ok) {
      spdlog::error("board {}: not started: {}", bc[b]->id, ok.error());
      failed_[bc[b]->id] = ok.error();
      const std::string& partner = bc[b ^ 1]->id;
      failed_[partner] = "not started with its match: board " + bc[b]->id + " could not start";
      spdlog::error("board {}: {}", partner, failed_[partner]);
      return;
    }
    rts[std::size_t(b)] = std::move(rt);
  }
  auto mr = std::make_unique<MatchRuntime>(io_, m, std::array<BoardRuntime*, 2>{rts[0].get(), rts[1].get()},
                                           options_.time);
  if (auto ok = mr->open(); !ok) {
    spdlog::error("match {}: not started: {}", m.name(), ok.error());
    for (const auto& id : m.boards) failed_[id] = ok.error();
    return;
  }
  if (options_.match_feed_factory) {
    mr->set_feed(options_.match_feed_factory(*mr));
  } else {
    mr->set_feed(make_board_feed(io_, *mr, {*bc[0], *bc[1]}, options_.time,
                                 [this](const std::string& port) { return bus_line(port); }));
    auto where = [](const config::BoardConfig& b) {
      return b.bus_address ? "bus address " + std::to_string(b.bus_address) + " on " + b.port : b.device();
    };
    spdlog::info("match {}: boards {} on {} and {} on {} ({} rules)", m.name(), bc[0]->id, where(*bc[0]),
                 bc[1]->id, where(*bc[1]), m.rules);
  }
  MatchRuntime* raw = mr.get();
  matches_.push_back(std::move(mr));
  for (int b = 0; b < 2; ++b) {
    failed_.erase(bc[b]->id);
    rts[std::size_t(b)]->attach(raw->board_source(b));
    boards_.push_back(std::move(rts[std::size_t(b)]));
  }
}

void Service::remove_board(const std::string& id) {
  failed_.erase(id);
  journal_down_.erase(id);
  serial_sources_.erase(id);
  // A match board goes with its match and its partner.
  for (auto mit = matches_.begin(); mit != matches_.end(); ++mit) {
    const auto& ids = (*mit)->config().boards;
    if (ids[0] != id && ids[1] != id) continue;
    (*mit)->stop();
    for (const auto& bid : ids) {
      auto it = std::find_if(boards_.begin(), boards_.end(), [&](const auto& b) { return b->id() == bid; });
      if (it == boards_.end()) continue;
      (*it)->stop();
      boards_.erase(it);
    }
    matches_.erase(mit);
    return;
  }
  auto it = std::find_if(boards_.begin(), boards_.end(), [&](const auto& b) { return b->id() == id; });
  if (it == boards_.end()) return;
  (*it)->stop();
  boards_.erase(it);
}

void Service::order_boards() {
  auto rank = [this](const std::string& id) {
    for (std::size_t i = 0; i < config_.boards.size(); ++i)
      if (config_.boards[i].id == id) return i;
    return config_.boards.size();
  };
  std::stable_sort(boards_.begin(), boards_.end(),
                   [&](const auto& a, const auto& b) { return rank(a->id()) < rank(b->id()); });
}

tl::expected<config::ConfigDiff, std::string> Service::reload(config::Config next) {
  config::ConfigDiff d = config::diff(config_, next);
  // A configuration with no board at all is far more often a file emptied or truncated by mistake (an
  // editor, a deployment) than a hall closing down: it would stop every game at once. Only a file that
  // still serves boards, by USB discovery, may do that; stopping eboardd is the way otherwise. A file that
  // names other boards (the next round's) is a deliberate change and applies.
  if (!next.discovery.usb && next.boards.empty()) {
    std::vector<std::string> running;
    for (const auto& b : config_.boards)
      if (board(b.id)) running.push_back(b.id);
    const bool all_removed =
        !running.empty() && std::all_of(running.begin(), running.end(),
                                        [&](const auto& id) { return next.board(id) == nullptr; });
    if (all_removed) {
      std::string ids;
      for (const auto& id : running) ids += (ids.empty() ? "" : ", ") + id;
      return tl::unexpected(
          next.source + " names no board, which would stop every running board (" + ids +
          "); refused. Set [discovery] usb = true to run on discovered boards only, or stop "
          "eboardd to stop them all");
    }
  }
  if (d.http_access_changed) {
    // The token and open_read are checked per request, so they apply now: a token replaced because it
    // leaked must stop working at once, not at the next restart. The token itself is never logged.
    const bool same_socket = next.http.host == config_.http.host && next.http.port == config_.http.port;
    if (next.http.token != config_.http.token || next.http.read_token != config_.http.read_token)
      tickets_.clear();  // issued under a token that may have leaked
    config_.http.token = next.http.token;
    config_.http.read_token = next.http.read_token;
    config_.http.server_names = next.http.server_names;
    config_.http.allowed_origins = next.http.allowed_origins;
    if (same_socket) {
      config_.http.open_read = next.http.open_read;
      config_.http.open_read_set = next.http.open_read_set;
    } else if (next.http.open_read != config_.http.open_read) {
      // open_read was decided for the new address; the socket stays on the old one until a restart.
      spdlog::warn("reload: http.open_read for {} applies after a restart", next.http.listen);
    }
    spdlog::info("reload: http access changed: control {}, reading {}",
                 config_.http.token.empty() ? "disabled (no http.token)" : "needs the new token",
                 config_.http.open_read ? "open" : "needs the token");
  }
  if (d.http_changed) spdlog::warn("reload: [http] listen or limits changed; they apply after a restart");
  if (d.buses_changed)
    spdlog::warn("reload: [[bus]] changed; a line's poll interval and discovery apply after a restart");
  if (d.mqtt_changed) {
    spdlog::warn("reload: [mqtt] changed; it applies after a restart");
    next.mqtt = config_.mqtt;
  }
  if (d.livechess_changed) {
    spdlog::warn("reload: [livechess] changed; it applies after a restart");
    next.livechess = config_.livechess;
  }
  next.http = config_.http;
  if (d.broadcast_changed) {
    // A shorter delay would let out at once what the public was promised not to see yet.
    spdlog::warn("reload: [broadcast] or [push.lichess] changed; they apply after a restart");
    next.broadcast = config_.broadcast;
    next.push_lichess = config_.push_lichess;
  }
  if (d.state_dir_changed) {
    spdlog::warn("reload: state_dir changed; it applies after a restart");
    next.state_dir = config_.state_dir;
  }
  if (next.gaps != config_.gaps) {
    spdlog::warn("reload: [gaps] changed; it applies after a restart");
    next.gaps = config_.gaps;
  }
  config::Config before = std::move(config_);
  config_ = std::move(next);
  if (d.discovery_changed) spdlog::info("reload: USB discovery {}", config_.discovery.usb ? "on" : "off");
  drop_claimed_discovered();  // before the configured boards start: one link per device
  for (const auto& id : d.removed) {
    spdlog::info("reload: board {} removed", id);
    remove_board(id);
  }
  for (const auto& id : d.changed) {
    spdlog::info("reload: board {} changed; restarting it (its game continues)", id);
    remove_board(id);
  }
  for (std::size_t i = 0; i < config_.boards.size(); ++i) {
    const auto& b = config_.boards[i];
    bool again = std::find(d.changed.begin(), d.changed.end(), b.id) != d.changed.end();
    bool added = std::find(d.added.begin(), d.added.end(), b.id) != d.added.end();
    if (added) spdlog::info("reload: board {} added", b.id);
    if (const config::MatchConfig* m = match_of(b.id)) {
      if (!match(m->name())) add_match(*m);
      continue;
    }
    if (again || added || failed_.count(b.id)) add_board(b);
  }
  order_boards();
  reassign_usb();
  return d;
}

BoardRuntime* Service::board(std::string_view id) {
  for (auto& b : boards_)
    if (b->id() == id) return b.get();
  return nullptr;
}

std::vector<std::string> Service::snapshot(bool delayed) const {
  std::vector<std::string> lines;
  // Other hosts' boards (an aggregator) too: their events went through the same delay line as the local ones.
  for (const auto& b : directory().boards()) {
    auto s = b->snapshot();
    for (auto& line : s)
      if (!delayed || !delay_ || delay_->is_public(b->id(), event_time_of(line).value_or(0)))
        lines.push_back(std::move(line));
  }
  return lines;
}

std::string Service::games_pgn(bool delayed) const {
  std::string out;
  for (const auto& b : directory().boards()) out += b->round_pgn(cutoff_of(delayed));
  return out;
}

BoardDirectory Service::directory() const {
  return BoardDirectory({boards_, hall_.get(), finished_games_, round_, default_tags(),
                         [this](const BoardRuntime& b) { return livechess_serial(b); }});
}

rules::PgnTags Service::default_tags() const {
  rules::PgnTags tags;
  const auto& e = config_.event;
  for (auto [name, value] :
       {std::pair{"Event", &e.name}, std::pair{"Site", &e.site}, std::pair{"Date", &e.date},
        std::pair{"Round", &e.round}, std::pair{"TimeControl", &e.time_control}})
    if (!value->empty()) tags.push_back({name, *value});
  if (!round_.name.empty()) {
    auto it =
        std::find_if(tags.begin(), tags.end(), [](const rules::PgnTag& t) { return t.name == "Round"; });
    if (it != tags.end())
      it->value = round_.name;
    else
      tags.push_back({"Round", round_.name});
  }
  return tags;
}

rules::PgnTags Service::default_tags_of(const BoardRuntime* b) const {
  rules::PgnTags tags = default_tags();
  // A game of the round before keeps that round's name (its file is written again on a restart).
  if (!b || round_.name.empty() ||
      in_round(round_, b->id(), b->ledger().game_number(), b->ledger().game_started_ms()))
    return tags;
  for (auto& t : tags)
    if (t.name == "Round") t.value = round_.previous.empty() ? config_.event.round : round_.previous;
  std::erase_if(tags, [](const rules::PgnTag& t) { return t.name == "Round" && t.value.empty(); });
  return tags;
}

BoardRuntime* Service::board_of_number(int number) {
  if (BoardRuntime* b = board(std::to_string(number))) return b;
  if (number >= 1 && std::size_t(number) <= config_.boards.size())
    return board(config_.boards[std::size_t(number - 1)].id);
  return nullptr;
}

http::Response Service::start_round(const json& body) {
  if (!body.contains("round") || !body["round"].is_string() ||
      !valid_round_name(body["round"].get<std::string>()))
    return error_json(400,
                      "give the new round as {\"round\": \"3\"}: 1 to 32 letters, digits, '.', '_' or '-'");
  if (round_changing_) return error_json(409, "the round is changing now: ask again once that is answered");
  Round next{body["round"].get<std::string>(), options_.clock(), {}, {}};
  next.previous = round_.name;
  auto waiting = load_waiting_players(config_.state_dir, next.name);
  if (!waiting) return error_json(500, "the round did not change: " + waiting.error());
  next.players = std::move(*waiting);
  // A board's game finished now belongs to the round that ends; one under way or not begun, to the next.
  for (const auto& b : boards_) {
    const outputs::BoardGame current = b->board_game();
    next.first_game[b->id()] = current.number + (current.game->outcome() ? 1 : 0);
  }
  // The round's archive and the next round's file are written on the background worker (data, rename,
  // directory synced); the loop takes the new round, and the request its answer, once both are on disk.
  struct Written {
    tl::expected<fs::path, std::string> archived;
    tl::expected<void, std::string> saved;
  };
  round_changing_ = true;
  LaterAnswer later = later_answer(io_, std::chrono::seconds(30), "the round's archive");
  // The worker touches nothing of the service (which may be gone when the job runs): the loop's part
  // checks `alive` first.
  background_work(io_).post([this, io = &io_, dir = fs::path(config_.state_dir), ending = round_, next,
                             pgn = games_pgn(), settle = later.settle,
                             alive = std::weak_ptr<bool>(alive_)]() mutable {
    auto w = std::make_shared<Written>(Written{archive_round(dir, ending, pgn), {}});
    if (w->archived) w->saved = save_round(dir, next);
    boost::asio::post(*io, [this, w, next = std::move(next), settle, alive]() mutable {
      if (alive.expired()) return settle(error_json(503, "the daemon is stopping"));
      round_changing_ = false;
      if (!w->archived)
        return settle(error_json(500, "the round is not archived, so it goes on: " + w->archived.error()));
      if (!w->saved) return settle(error_json(500, "the round did not change: " + w->saved.error()));
      settle(round_started(std::move(next), *w->archived));
    });
  });
  return later.response();
}

http::Response Service::round_started(Round next, const fs::path& archived) {
  remove_waiting_players(config_.state_dir, next.name);
  spdlog::info("round {} begins; round {} archived in {}", next.name, round_.name.empty() ? "?" : round_.name,
               archived.string());
  const std::string finished = round_.name;
  round_ = std::move(next);
  json named = json::array();
  for (const auto& b : boards_)
    if (hand_players(*b, false)) named.push_back(b->id());
  retarget_push();  // the new round's lichess rounds
  return http::Response::json(200, json{{"round", round_.name},
                                        {"started", round_.started_ms},
                                        {"archived", archived.string()},
                                        {"archived_round", finished},
                                        {"paired_boards", named}}
                                       .dump(-1, ' ', false, json::error_handler_t::replace));
}

bool Service::hand_players(BoardRuntime& b, bool waiting_only) {
  auto it = round_.players.find(b.id());
  if (it == round_.players.end()) return false;
  // A game of an earlier round (finished when this one began) keeps its players: they go to the next game.
  const outputs::BoardGame current = b.board_game();
  const bool earlier = current.number > 0 && current.game->outcome() &&
                       !in_round(round_, b.id(), current.number, current.started_ms);
  if (waiting_only && !earlier) return false;  // set when its game of the round began (journaled)
  auto ok = earlier ? b.update_tags_from_game(current.number + 1, it->second) : b.update_tags(it->second);
  if (!ok) {
    spdlog::error("board {}: the pairings' players are not set: {}", b.id(), ok.error());
    return false;
  }
  return true;
}

http::Response Service::load_pairings(const json& body) {
  if (!body.contains("text") || !body["text"].is_string())
    return error_json(400, "give the pairings file as {\"text\": \"...\", \"round\": \"3\"}");
  if (round_changing_) return error_json(409, "the round is changing now: ask again once that is answered");
  // The round the pairings are for: the one given, else the current one (an unnamed current round takes
  // any). A TRF-16 file's round columns are the round's number.
  std::string round_name = round_.name;
  if (body.contains("round")) {
    if (body["round"].is_number_integer())
      round_name = std::to_string(body["round"].get<long long>());
    else if (body["round"].is_string())
      round_name = body["round"].get<std::string>();
    else
      round_name.clear();
    if (!valid_round_name(round_name))
      return error_json(400,
                        "pairings: \"round\" is a round's name (e.g. \"3\": 1 to 32 letters, digits, "
                        "'.', '_' or '-')");
  }
  // Pairings belong to their round: a round played keeps its players.
  const bool other_round = !round_.name.empty() && round_name != round_.name;
  if (other_round && round_archived(config_.state_dir, round_name))
    return error_json(409, "pairings: round " + round_name + " is over (archived in " +
                               (fs::path(config_.state_dir) / "rounds" / (round_name + ".pgn")).string() +
                               "); its games keep their players. The current round is " + round_.name);
  int number = 0;
  std::from_chars(round_name.data(), round_name.data() + round_name.size(), number);
  // JSON carries UTF-8 only: `eboardctl pairings` decoded the file (its "encoding" is what it read).
  auto pairings = outputs::parse_pairings(body["text"].get<std::string>(), number, "UTF-8");
  if (!pairings) return error_json(400, "pairings: " + pairings.error());
  // Every board known before any tag changes: a file that names a missing board changes nothing.
  std::vector<std::pair<BoardRuntime*, const outputs::Pairing*>> targets;
  json unknown = json::array();
  for (const auto& p : *pairings) {
    if (BoardRuntime* b = board_of_number(p.board))
      targets.push_back({b, &p});
    else
      unknown.push_back(p.board);
  }
  if (!unknown.empty())
    return error_json(409,
                      "pairings: no board for board number(s) " + unknown.dump() +
                          " (a board number is a board's id, else its position in the configuration; a "
                          "game without an e-board needs a board without a device: [[board]] with protocol "
                          "= \"none\", or POST /boards {\"id\": \"<number>\", \"protocol\": \"none\"})");
  std::map<std::string, rules::PgnTags, std::less<>> players;
  json boards = json::array();
  for (auto [b, p] : targets) {
    rules::PgnTags tags = outputs::pairing_tags(*p);
    if (auto ok = BoardRuntime::check_tags(tags); !ok)
      return error_json(400, "pairings: line " + std::to_string(p->line) + ": " + ok.error());
    players[b->id()] = std::move(tags);
    boards.push_back(
        {{"number", p->board}, {"board", b->id()}, {"white", p->white.name}, {"black", p->black.name}});
  }
  // A TRF file is kept for the round: the results go back into it (GET /round/results.trf). A CSV
  // replaces it: its board numbers are the round's now.
  if (!round_name.empty()) {
    const fs::path trf = fs::path(config_.state_dir) / "pairings" / (round_name + ".trf");
    std::error_code ec;
    if (outputs::is_trf(body["text"].get_ref<const std::string&>())) {
      fs::create_directories(trf.parent_path(), ec);
      if (auto ok = outputs::write_file_atomic(trf, body["text"].get_ref<const std::string&>()); !ok)
        return error_json(500, "pairings: not kept: " + ok.error());
    } else {
      fs::remove(trf, ec);
    }
  }
  const auto answer = [&](unsigned status, json extra) {
    extra["pairings"] = boards;
    extra["round"] = round_name;
    return http::Response::json(status, extra.dump(-1, ' ', false, json::error_handler_t::replace));
  };
  if (other_round) {
    // A round to come waits for `POST /control/round` (its games are not begun; the boards still show
    // the current round's).
    if (auto ok = save_waiting_players(config_.state_dir, round_name, players); !ok)
      return error_json(500, "pairings: not kept: " + ok.error());
    spdlog::info("pairings: {} boards named for round {}, which waits for its start (current round: {})",
                 boards.size(), round_name, round_.name.empty() ? "unnamed" : round_.name);
    return answer(202, json{{"waiting", true}, {"current_round", round_.name}});
  }
  const Round before = round_;
  for (auto& [id, tags] : players) round_.players[id] = tags;
  if (auto ok = save_round(config_.state_dir, round_); !ok) {
    round_ = before;
    return error_json(500, "pairings: not kept: " + ok.error());
  }
  json waiting = json::array();
  for (auto [b, p] : targets) {
    hand_players(*b, false);
    if (b->tags_waiting_for() != 0) waiting.push_back(b->id());
  }
  spdlog::info("pairings: {} boards named for round {}", boards.size(),
               round_name.empty() ? "?" : round_name);
  return answer(200, json{{"waiting_for_next_game", waiting}});
}

json Service::status() const {
  json boards = json::array();
  // Other hosts' boards (an aggregator) come after the local ones (add_control_status counts on that order).
  for (const auto& b : directory().boards()) boards.push_back(b->status());
  json failed = json::object();
  for (const auto& [id, why] : failed_) failed[id] = why;
  json matches = json::array();
  for (const auto& m : config_.matches) {
    bool running = false;
    for (const auto& mr : matches_)
      if (mr->name() == m.name()) {
        matches.push_back(mr->status());
        running = true;
      }
    if (!running)
      matches.push_back({{"name", m.name()},
                         {"boards", {m.boards[0], m.boards[1]}},
                         {"rules", m.rules},
                         {"running", false},
                         {"why", "its boards are not configured or did not start"}});
  }
  json usb_boards = json::array();
  if (usb_)
    for (const auto& u : usb_->boards()) {
      auto served = usb_served_.find(u.device);
      usb_boards.push_back(
          {{"vid", hex4(u.vid)},
           {"pid", hex4(u.pid)},
           // A device's strings are whatever its firmware says: never text JSON cannot carry.
           {"serial", outputs::utf8_or_replaced(u.serial)},
           {"tty", outputs::utf8_or_replaced(u.tty)},
           {"device", outputs::utf8_or_replaced(u.device)},
           {"usb_path", outputs::utf8_or_replaced(u.usb_path)},
           {"manufacturer", outputs::utf8_or_replaced(u.manufacturer)},
           {"product", outputs::utf8_or_replaced(u.product)},
           {"protocol", u.protocol},
           {"board", served == usb_served_.end() ? json(nullptr) : json(served->second)},
           {"discovered", served != usb_served_.end() && discovered_.count(served->second) > 0}});
    }
  json usb{{"mode", usb_ ? usb_->mode() : "off"},
           {"watch", usb_ ? usb_->mechanism() : "off"},
           {"discovery", config_.discovery.usb},
           {"generic_bridges", config_.discovery.generic_bridges},
           {"boards", usb_boards}};
  const auto& hs = http_->stats();
  std::int64_t now = options_.clock();
  return {{"daemon", "eboardd"},
          {"version", options_.version},
          {"mode", options_.demo ? "demo" : "boards"},
          {"started", started_ms_},
          {"uptime_s", (now - started_ms_) / 1000},
          {"state_dir", config_.state_dir},
          {"round", {{"name", round_.name}, {"started", round_.started_ms}}},
          {"signing", signing_key_ ? json{{"fingerprint", signing_key_->public_key().fingerprint()},
                                          {"public_key", signing_key_->public_key().text()}}
                                   : json(nullptr)},
          {"config", config_.source},
          {"boards", boards},
          {"failed_boards", failed},
          {"matches", matches},
          {"usb", usb},
          {"mqtt", hall_ ? hall_->status() : json(nullptr)},
          // "control": "off" without an http.token (the page then says so instead of offering a sign-in).
          {"http",
           {{"control", config_.http.token.empty() ? "off" : "token"},
            {"open_connections", http_->open_connections()},
            {"websocket_clients", http_->websocket_clients()},
            {"pending_connections", http_->pending_connections()},
            {"connections", hs.connections},
            {"evicted_pending", hs.evicted_pending},
            {"requests", hs.requests},
            {"bad_requests", hs.bad_requests},
            {"timeouts", hs.timeouts},
            {"rejected_busy", hs.rejected_busy},
            {"ws_accepted", hs.ws_accepted},
            {"ws_dropped_slow", hs.ws_dropped_slow}}},
          {"broadcast",
           {{"delay_s", config_.broadcast.delay_s},
            {"waiting_events", delay_ ? delay_->waiting() : 0},
            {"public_listen", public_endpoint_ ? json(public_endpoint_->address().to_string() + ":" +
                                                      std::to_string(public_endpoint_->port()))
                                               : json(nullptr)},
            {"public_websocket_clients", public_http_ ? public_http_->websocket_clients() : 0},
            {"push_lichess", push_status()}}}};
}

const config::BoardConfig* Service::configured_for(const hotplug::UsbBoard& u) const {
  for (const auto& b : config_.boards) {
    if (b.woodless()) continue;
    if (!b.serial.empty()) {
      if (b.serial == u.serial && b.protocol == u.protocol) return &b;
      continue;
    }
    if (b.port == u.device || b.port == u.stable_name() || same_node(b.port, u.device)) return &b;
  }
  return nullptr;
}

std::string Service::device_for(const config::BoardConfig& b) const {
  std::string udev = b.device();
  if (b.serial.empty() || !usb_) return udev;
  std::error_code ec;
  if (fs::exists(udev, ec)) return udev;
  for (const auto& u : usb_->boards())
    if (u.serial == b.serial && u.protocol == b.protocol) return u.device;
  return udev;
}

void Service::on_usb(const hotplug::UsbChange& change, bool initial) {
  if (!usb_ready_) return;  // start(): the boards are not in place yet; start() reports what is present
  for (const auto& u : change.removed) {
    auto served = usb_served_.find(u.device);
    std::string id = served == usb_served_.end() ? "" : served->second;
    if (served != usb_served_.end()) usb_served_.erase(served);
    auto d = discovered_.find(id);
    if (!id.empty() && d != discovered_.end() && d->second.device == u.device) {
      discovered_.erase(d);
      remove_board(id);
      spdlog::info("USB board left: {}: discovered board {} removed until it comes back (its journal stays)",
                   describe(u), id);
    } else if (!id.empty()) {
      spdlog::info("USB board left: {} (board {}; it reconnects when the board is back)", describe(u), id);
      // A board named by serial that was opened on its tty goes back to its udev name: the tty may be
      // another board's by the next retry.
      const config::BoardConfig* b = config_.board(id);
      if (b && !b->serial.empty()) {
        auto src = serial_sources_.find(id);
        if (src != serial_sources_.end()) {
          if (src->second->device() != b->device()) src->second->reconnect_now(device_for(*b));
        } else if (auto [feed, index] = match_feed_of(id); feed) {
          feed->device_left(index, device_for(*b));  // a match board: the same, on the match's link
        }
      }
    } else {
      spdlog::info("USB board left: {}", describe(u));
    }
  }
  for (const auto& u : change.added) {
    if (const config::BoardConfig* b = configured_for(u)) {
      usb_served_[u.device] = b->id;
      spdlog::info("USB board {}: {} is board {}", initial ? "present" : "arrived", describe(u), b->id);
      if (initial) continue;  // just started: its link is opening anyway
      auto s = serial_sources_.find(b->id);
      if (s != serial_sources_.end()) {
        // A board named by serial follows its tty (udev symlink if there is one, else the tty itself).
        s->second->reconnect_now(b->serial.empty() ? std::string() : device_for(*b));
      } else if (auto [feed, index] = match_feed_of(b->id); feed) {
        // A match board: the match's feed holds its link; the same as above.
        feed->device_arrived(index, b->serial.empty() ? std::string() : device_for(*b));
      }
      continue;
    }
    if (config_.discovery.usb && discoverable(u)) {
      discover(u);
    } else if (config_.discovery.usb) {
      spdlog::info(
          "USB board {}: {} is a generic USB-serial bridge whose descriptors name no board: not "
          "discovered (name it with serial = \"{}\", or set [discovery] generic_bridges = true)",
          initial ? "present" : "arrived", describe(u), u.serial);
    } else {
      spdlog::info(
          "USB board {}: {} is no configured board (set [discovery] usb = true, or name it with "
          "serial = \"{}\")",
          initial ? "present" : "arrived", describe(u), u.serial);
    }
  }
}

bool Service::discoverable(const hotplug::UsbBoard& u) const {
  return u.names_board() || config_.discovery.generic_bridges;
}

void Service::discover(const hotplug::UsbBoard& u) {
  for (const auto& [id, d] : discovered_)
    if (d.device == u.device) return;  // serves it already
  const std::string id = discovered_id(u);
  if (board(id) || config_.board(id) || discovered_.count(id)) {
    spdlog::warn("USB board arrived: {}: not discovered, the id {} is taken", describe(u), id);
    return;
  }
  config::BoardConfig bc;
  bc.id = id;
  bc.port = u.device;
  bc.protocol = u.protocol;
  add_board(bc);
  if (failed_.count(id)) {
    failed_.erase(id);  // not a configured board: it is tried again when it comes back
    return;
  }
  discovered_[id] = u;
  usb_served_[u.device] = id;
  spdlog::info("USB board arrived: {}: discovered as board {} (journal in {})", describe(u), id,
               config_.state_dir);
}

void Service::drop_claimed_discovered() {
  for (auto it = discovered_.begin(); it != discovered_.end();) {
    const std::string id = it->first;
    bool claimed = !config_.discovery.usb || !discoverable(it->second) || config_.board(id) ||
                   configured_for(it->second);
    if (!claimed) {
      ++it;
      continue;
    }
    const char* why = !config_.discovery.usb      ? "discovery is off"
                      : !discoverable(it->second) ? "discovery no longer claims generic USB-serial bridges"
                                                  : "the configuration names its device";
    usb_served_.erase(it->second.device);
    it = discovered_.erase(it);
    remove_board(id);
    spdlog::info("discovered board {} removed ({})", id, why);
  }
}

void Service::reassign_usb() {
  if (!usb_ || !usb_ready_) return;
  for (const auto& u : usb_->boards()) {
    usb_served_.erase(u.device);
    if (const config::BoardConfig* b = configured_for(u)) {
      usb_served_[u.device] = b->id;
      continue;
    }
    bool is_discovered = false;
    for (const auto& [id, d] : discovered_)
      if (d.device == u.device) {
        usb_served_[u.device] = id;
        is_discovered = true;
      }
    if (!is_discovered && config_.discovery.usb && discoverable(u)) discover(u);
  }
}

std::string Service::livechess_serial(const BoardRuntime& b) const {
  if (const config::BoardConfig* c = config_.board(b.id()); c && !c->serial.empty()) return c->serial;
  if (auto it = discovered_.find(b.id()); it != discovered_.end() && !it->second.serial.empty())
    return it->second.serial;
  if (auto it = serial_sources_.find(b.id()); it != serial_sources_.end()) {
    const json info = it->second->info();
    if (info.contains("port") && info["port"].value("usb_serial", "") != "")
      return info["port"]["usb_serial"].get<std::string>();
  }
  return b.id();
}

livechess::BoardView Service::livechess_view(const DirectoryBoard& b, bool live) const {
  livechess::BoardView v;
  v.board_id = b.id();
  v.serialnr = b.serial();
  v.device = b.device();
  v.online = b.online();
  v.match = v.online;
  const std::optional<std::int64_t> cutoff = cutoff_of(!live);
  livechess_game_view(b.game_number(), b.game(cutoff), v, cutoff ? v.board_id + DELAYED_VIEW : v.board_id);
  return v;
}

void Service::livechess_game_view(int game_number, const rules::Game& g, livechess::BoardView& v,
                                  const std::string& key) const {
  // The game's part is made again only when the game changed: the feeds are compared once a second, and
  // a SAN list costs a move generation per ply.
  LiveChessGameStamp stamp{game_number,
                           g.start().key(),
                           g.ply_count(),
                           g.ply_count() > 0 ? g.plies().back().key : 0,
                           g.record_since(),
                           g.outcome().has_value(),
                           g.clock_at(g.ply_count())};
  if (auto it = livechess_games_.find(key); it != livechess_games_.end() && it->second.first == stamp) {
    const livechess::BoardView& cached = it->second.second;
    v.board = cached.board;
    v.start = cached.start;
    v.san = cached.san;
    v.clock = cached.clock;
    return;
  }
  const std::string fen = g.position().fen();
  v.board = fen.substr(0, fen.find_first_of(" ["));
  // LiveChess' san list replays from `start`: it starts after the last ply no SAN can tell (an illegal
  // move that stood, a jump, a move of an unsettled gap).
  const int from = g.record_since();
  rules::Position p = g.position_at(from);
  v.start = p.fen();
  for (int i = from; i < g.ply_count(); ++i) {
    const rules::Move m = g.plies()[std::size_t(i)].move;
    v.san.push_back(rules::to_san(p, m));
    p.do_move(m);
  }
  const rules::ClockTimes c = g.clock_at(g.ply_count());
  if (c.known()) {
    livechess::ClockView cv;
    cv.white_ms = c.white_ms;
    cv.black_ms = c.black_ms;
    // The clock runs for the side to move once the game is under way and until it ends.
    if (g.ply_count() > 0 && !g.outcome()) cv.white_runs = g.position().side_to_move() == rules::WHITE;
    cv.time_ms = g.ply_count() > 0 ? g.plies().back().time_ms : 0;
    v.clock = cv;
  }
  livechess_games_[key] = {stamp, v};
}

std::vector<livechess::BoardView> Service::livechess_boards(bool live) const {
  std::vector<livechess::BoardView> out;
  // Other hosts' boards (an aggregator) are watched like the local ones; a setup stays with their host.
  const auto boards = directory().boards();
  out.reserve(boards.size());
  for (const auto& b : boards) out.push_back(livechess_view(*b, live));
  std::erase_if(livechess_games_, [&](const auto& kv) {
    std::string id = kv.first;
    if (id.ends_with(DELAYED_VIEW)) id.resize(id.size() - DELAYED_VIEW.size());
    return std::none_of(boards.begin(), boards.end(), [&](const auto& b) { return b->id() == id; });
  });
  return out;
}

livechess::RoundView Service::livechess_round(bool live) const {
  livechess::RoundView r;
  const rules::PgnTags defaults = default_tags();
  auto tag = [](const rules::PgnTags& tags, std::string_view name) {
    auto v = rules::find_tag(tags, name);
    return v && *v != "?" ? std::string(*v) : std::string();
  };
  r.name = tag(defaults, "Event");
  if (r.name.empty()) r.name = "eboardd";
  r.site = tag(defaults, "Site");
  r.date = tag(defaults, "Date");
  // Stable for the event (its name): FNV-1a, as hex.
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : r.name) h = (h ^ ch) * 1099511628211ull;
  r.tournament_uuid = fmt::format("eboardd-{:016x}", h);
  // LiveChess numbers rounds: "3" and "3.1" are round 3; a name without a number is round 1.
  const std::string round_name = tag(defaults, "Round");
  r.round = std::max(1, std::atoi(round_name.c_str()));
  const std::vector<livechess::BoardView> views = livechess_boards(live);
  const BoardDirectory boards = directory();
  for (const auto& v : views) {
    const auto b = boards.find(v.board_id);
    if (!b) continue;
    const GameRecord record = b->record(cutoff_of(!live));
    const rules::PgnTags& tags = record.tags;
    const int number = record.number;
    const std::optional<rules::Outcome>& outcome = record.outcome;
    const bool chess960 = record.chess960;
    r.serials.push_back(v.serialnr);
    livechess::PairingView p;
    p.nr = int(r.pairings.size()) + 1;
    p.game_uuid = v.board_id + "-" + std::to_string(number);
    p.white = livechess::player_of_pgn_name(tag(tags, "White"));
    p.black = livechess::player_of_pgn_name(tag(tags, "Black"));
    p.white.fideid = tag(tags, "WhiteFideId");
    p.black.fideid = tag(tags, "BlackFideId");
    p.white.title = tag(tags, "WhiteTitle");
    p.black.title = tag(tags, "BlackTitle");
    p.result = outcome ? rules::result_string(outcome->result) : "*";
    p.live = !outcome;
    p.clock = v.clock;
    p.san = v.san;
    p.chess960 = chess960;
    if (v.start != rules::Position::start().fen()) p.fen = v.start;
    r.pairings.push_back(std::move(p));
  }
  return r;
}

tl::expected<void, std::string> Service::livechess_setup(const std::string& board_id,
                                                         const std::string& fen) {
  const auto entry = directory().find(board_id);
  if (!entry) return tl::unexpected("no board " + board_id);
  BoardRuntime* b = entry->runtime();
  if (!b) return tl::unexpected("board " + board_id + " is on another host: set it up there");
  if (b->options().match_member)
    return tl::unexpected("board " + board_id + " plays in a bughouse match: a position cannot be set up");
  auto pos = rules::Position::from_fen(fen, rules::Variant::Chess, b->options().chess960);
  if (!pos) return tl::unexpected("bad FEN: " + pos.error());
  // A client sets up the position it expects whenever it (re)attaches a game: a board whose game under
  // way stands there already (at its start, or further on: lichess' page attaching a game in progress,
  // or reconnecting) keeps that game; no new game in the record for every reconnect.
  const rules::Game& g = b->game();
  auto placement_to_ep = [](const std::string& f) {  // without the move counters
    std::size_t at = 0;
    for (int field = 0; field < 4 && at != std::string::npos; ++field) at = f.find(' ', at + 1);
    return f.substr(0, at);
  };
  if (!g.outcome() && placement_to_ep(g.position().fen()) == placement_to_ep(pos->fen())) return {};
  auto n = b->new_game(fen);
  if (!n) return tl::unexpected(n.error());
  spdlog::info("board {}: game {} set up by a LiveChess client from {}", board_id, *n, fen);
  return {};
}

}  // namespace eboard::eboardd
