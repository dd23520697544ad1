// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/hall.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/clock_control.hpp"
#include "daemon/eboardd/control.hpp"
#include "daemon/eboardd/match_runtime.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/journal/recovery.hpp"
#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "daemon/outputs/pgn_output.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr auto STATE_DEBOUNCE = std::chrono::milliseconds(50);
constexpr auto SAVE_DEBOUNCE = std::chrono::milliseconds(500);
constexpr auto RESEND_RETRY = std::chrono::seconds(5);
// A requester's resends of one board: a burst of RESEND_BURST, then one every RESEND_REFILL. An aggregator
// asks again for one hole every RESEND_RETRY only: this is room for a few holes in a row.
constexpr double RESEND_BURST = 3;
constexpr auto RESEND_REFILL = std::chrono::seconds(2);
constexpr std::size_t MAX_RESEND_BUDGETS = 4096;
// What an aggregator keeps of other hosts, whatever broker users publish: boards and matches in all, the
// match numbers of one match kept beside the delay's span, commands awaiting their answer.
constexpr std::size_t MAX_REMOTE_BOARDS = 4096;
constexpr std::size_t MAX_REMOTE_MATCHES = 2048;
constexpr std::size_t MAX_MATCH_NUMBERS = 16;
constexpr std::size_t MAX_MATCH_RECORDS = 4096;
constexpr std::size_t MAX_RESENDS_AWAITED = 1024;
// The clock over the hall: the aggregator waits REMOTE_CLOCK_WAIT for the host's answer, and the command's
// deadline tells the host not to obey it after; the host answers within HOST_CLOCK_WAIT of taking it (as
// POST /control/<board>/clock does), or sooner when the deadline is nearer. eboardctl clock waits 20 s.
constexpr auto REMOTE_CLOCK_WAIT = std::chrono::seconds(18);
constexpr auto HOST_CLOCK_WAIT = std::chrono::seconds(15);
constexpr std::size_t MAX_CLOCK_AWAITED = 256;

std::string machine_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "eboardd";
  std::string s(name);
  for (char& c : s)
    if (!config::valid_topic_name(std::string(1, c))) c = '-';
  return s.empty() ? "eboardd" : s.substr(0, 64);
}

// eboardd-<hall>-<host>-<8 hex digits of the state directory's absolute path>: two daemons of one machine
// (a host and an aggregator: the same host name) keep their state in two directories.
std::string default_client_id(const std::string& hall, const std::string& host,
                              const std::string& state_dir) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(state_dir, ec), ec);
  if (ec) dir = state_dir;
  std::uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char ch : dir.string()) h = (h ^ ch) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  return "eboardd-" + hall + "-" + host + "-" + hex;
}

http::Response json_response(unsigned status, const json& j) {
  return http::Response::json(status, j.dump());
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A board's game as its host printed it, with the names that tell boards apart in the hall: its Board,
// PartnerBoard and Match tags get the host's name in front, as every remote board's id has.
std::string hall_names(std::string pgn, const std::string& host) {
  for (const std::string tag : {"[Board \"", "[PartnerBoard \"", "[Match \""}) {
    for (std::size_t at = 0; (at = pgn.find(tag, at)) != std::string::npos; at += tag.size()) {
      if (at != 0 && pgn[at - 1] != '\n') continue;
      pgn.insert(at + tag.size(), host + ":");
    }
  }
  return pgn;
}

}  // namespace

Hall::Hall(boost::asio::io_context& io, const config::Config& config, Service& service)
    : io_(io),
      cfg_(config.mqtt),
      state_dir_(config.state_dir),
      delay_ms_(std::int64_t(config.broadcast.delay_s) * 1000),
      service_(service),
      topics_(cfg_.hall, cfg_.host.empty() ? machine_name() : cfg_.host),
      state_timer_(io),
      save_timer_(io) {}

Hall::~Hall() {
  *alive_ = false;
  stop();
}

tl::expected<void, std::string> Hall::start() {
  started_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  mqtt::ClientOptions o;
  o.host = cfg_.broker_host;
  o.port = cfg_.broker_port;
  o.tls = cfg_.tls;
  o.ca_file = cfg_.ca_file;
  o.cert_file = cfg_.cert_file;
  o.key_file = cfg_.key_file;
  o.username = cfg_.username;
  if (!cfg_.password_file.empty()) {
    // Kept out of the configuration, which is often world-readable and shared.
    std::ifstream in(cfg_.password_file);
    std::string line;
    if (!in || !std::getline(in, line))
      return tl::unexpected("mqtt: cannot read a password from " + cfg_.password_file);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    o.password = line;
  }
  o.client_id = client_id_ =
      cfg_.client_id.empty() ? default_client_id(topics_.hall(), topics_.host(), state_dir_) : cfg_.client_id;
  // An aggregator's session outlives its connection: the broker keeps what the hosts publish while it
  // reconnects (the broker restarting keeps it too with persistence on).
  o.clean_session = !cfg_.aggregate;
  o.keepalive_s = cfg_.keepalive_s;
  o.will_topic = topics_.status();
  o.will_payload = "offline";
  for (const auto& [board, id] : mqtt::load_acked(fs::path(state_dir_) / "mqtt" / "acked.json"))
    local_[board].acks.set_acked(id);
  if (cfg_.aggregate) load_remote();
  mqtt::Client::Handlers h;
  h.connected = [this] { on_connected(); };
  h.disconnected = [this](const std::string& why) { on_disconnected(why); };
  h.acknowledged = [this](int mid) { on_ack(mid); };
  h.message = [this](const std::string& topic, std::string_view payload) { on_message(topic, payload); };
  client_ = std::make_unique<mqtt::Client>(io_, o, std::move(h));
  client_->start();
  spdlog::info("mqtt: host {} of hall {} on {}{}{}", topics_.host(), topics_.hall(), cfg_.broker,
               cfg_.username.empty() ? "" : " as " + cfg_.username,
               cfg_.aggregate ? ", aggregating the hall" : "");
  return {};
}

void Hall::stop() {
  // The commands' answers still awaited end first (a stopping Service has given them up: at once).
  answer_waits_.stop();
  if (!client_) return;
  if (save_pending_ || acked_ > 0) {
    std::map<std::string, mqtt::EventId> acked;
    for (const auto& [board, l] : local_) acked[board] = l.acks.acked();
    // After (and instead of) what the background writer still holds for it.
    const fs::path file = fs::path(state_dir_) / "mqtt" / "acked.json";
    std::error_code mkdir_error;
    fs::create_directories(file.parent_path(), mkdir_error);
    (void)background_files(io_).write_now(file, mqtt::acked_text(acked));
  }
  client_->stop(topics_.status(), "offline");
  client_.reset();
  // Their HTTP answers say the daemon stopped before the host answered (later_answer's 503).
  for (auto& [id, w] : clock_awaited_) w.timer->cancel();
  clock_awaited_.clear();
  state_timer_.cancel();
  save_timer_.cancel();
}

void Hall::on_connected() {
  takeover_.connected(mqtt::TakeoverWatch::Clock::now());
  if (!takeover_.taken_over()) spdlog::info("mqtt: connected to {}", cfg_.broker);
  client_->publish(topics_.status(), "online", 1, true);
  client_->subscribe(topics_.commands_filter(), 1);
  if (cfg_.aggregate) client_->subscribe(topics_.hall_filter(), 1);
  if (!cfg_.publish) return;
  for (const auto& b : service_.boards()) {
    catch_up(*b);
    publish_state(*b);
  }
  publish_matches(true);
}

void Hall::on_disconnected(const std::string& why) {
  last_disconnect_ = why;
  if (takeover_.lost(mqtt::TakeoverWatch::Clock::now()) ||
      (takeover_.taken_over() && takeover_.short_sessions() % 100 == 0))
    spdlog::error(
        "mqtt: the broker closed this session right after it began, {} times in a row ({} in all): another "
        "client uses the client id '{}' and each throws the other out. Give one of them its own [mqtt] "
        "client_id (or [mqtt] host)",
        takeover_.short_in_a_row(), takeover_.short_sessions(), client_id_);
  if (!takeover_.taken_over())  // else not a line every 200 ms
    spdlog::warn("mqtt: disconnected from {} ({}); what was not acknowledged is published again", cfg_.broker,
                 why);
  inflight_.clear();
  for (auto& [board, l] : local_) {
    l.acks.reset();
    l.caught_up = false;
  }
}

void Hall::catch_up(BoardRuntime& b) {
  Local& l = local_[b.id()];
  l.acks.reset();
  const auto limit = b.last_published();
  const mqtt::EventId upto{limit.journal, limit.at};
  l.chain.reset();
  if (!l.acks.acked().none()) l.chain = l.acks.acked();
  // Nothing published since the acknowledged event: the journal need not be read.
  if (!(l.acks.acked() < upto)) {
    l.caught_up = true;
    return;
  }
  // The journal as outbox: every event after the acknowledged one, published already by this host.
  auto events = mqtt::journal_events_after(b.journal_path(), l.acks.acked());
  if (!events) {
    spdlog::error("mqtt: board {}: cannot read the journal to publish: {}", b.id(), events.error());
    return;
  }
  std::size_t n = 0;
  for (const auto& e : *events) {
    if (upto < e.id) break;
    send(b.id(), e.id, e.game, e.line);
    ++n;
  }
  republished_ += n;
  if (n) spdlog::info("mqtt: board {}: {} event(s) published from the journal", b.id(), n);
  l.caught_up = true;
}

void Hall::send(const std::string& board, mqtt::EventId id, int game, const std::string& line, int resend) {
  json event = json::parse(line, nullptr, false);
  if (!event.is_object()) return;
  mqtt::Envelope env{topics_.host(), board, game, id, std::move(event), resend, std::nullopt};
  if (!resend) {
    std::optional<mqtt::EventId>& chain = local_[board].chain;
    env.after = chain;
    if (!journal::is_daemon_note(line)) chain = id;  // a resend from the journal has no notes either
  }
  auto mid = client_->publish(topics_.event(board), mqtt::encode_envelope(env), 1, false);
  if (!mid || resend) return;
  inflight_[*mid] = {board, id};
  local_[board].acks.sent(id);
  spdlog::debug("mqtt: sent {} {}/{} as message {}", board, id.journal, id.seq, *mid);
  ++sent_;
}

void Hall::published(BoardRuntime& b, const std::string& line) {
  if (!client_ || !cfg_.publish || !b.publishing()) return;
  Local& l = local_[b.id()];
  if (client_->connected()) {
    const auto at = b.last_published();
    if (l.caught_up)
      send(b.id(), mqtt::EventId{at.journal, at.at}, b.game_number(), line);
    else
      catch_up(b);  // a board that began while connected
  }
  changed(b.id());
}

void Hall::changed(const std::string& board) {
  if (!client_ || !cfg_.publish) return;
  local_[board].state_due = true;
  schedule_state();
}

void Hall::schedule_state() {
  if (state_pending_) return;
  state_pending_ = true;
  state_timer_.expires_after(STATE_DEBOUNCE);
  state_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    state_pending_ = false;
    if (!client_ || !client_->connected()) return;  // on_connected publishes them all
    for (auto& [board, l] : local_) {
      if (!l.state_due) continue;
      l.state_due = false;
      if (BoardRuntime* b = service_.board(board)) publish_state(*b);
    }
    publish_matches(false);
  });
}

void Hall::publish_state(BoardRuntime& b) {
  if (!client_ || !client_->connected()) return;
  const rules::Game& g = b.published_game();
  json tags = json::object();
  json tag_order = json::array();  // a JSON object's names come out sorted: the PGN's order is told apart
  for (const auto& t : b.ledger().tags()) {
    tags[t.name] = t.value;
    tag_order.push_back(t.name);
  }
  json alerts = json::array();
  int n = 0;
  for (const auto& e : b.ledger().notes())
    if (const auto* a = std::get_if<rules::AlertEvent>(&e.what)) {
      ++n;
      // Its number is the one an acknowledgement names (control "ack"), here and through an aggregator.
      if (!b.ledger().acknowledged(n))
        alerts.push_back({{"number", n}, {"code", a->code}, {"ply", a->ply}, {"detail", a->detail}});
    }
  const auto& link = b.link_state();
  const auto last = b.last_published();
  const auto& o = g.outcome();
  json state{
      {"host", topics_.host()},
      {"board", b.id()},
      {"game", b.game_number()},
      {"started", b.ledger().game_started_ms()},
      {"start_fen", g.start().fen()},
      {"chess960", g.start().chess960()},
      {"variant", g.start().variant() == rules::Variant::Bughouse     ? "bughouse"
                  : g.start().variant() == rules::Variant::Crazyhouse ? "crazyhouse"
                                                                      : "chess"},
      {"fen", g.position().fen()},
      {"ply", g.ply_count()},
      {"clock",
       {{"white", g.ply_count() ? g.plies().back().clock.white_ms : g.start_clock().white_ms},
        {"black", g.ply_count() ? g.plies().back().clock.black_ms : g.start_clock().black_ms}}},
      {"result", o ? json(rules::result_string(o->result)) : json(nullptr)},
      {"reason", o ? json(o->reason) : json(nullptr)},
      {"tags", tags},
      {"tag_order", tag_order},
      {"link", link ? json{{"online", link->online}, {"since", link->since_ms}, {"reason", link->reason}}
                    : json(nullptr)},
      {"alerts", alerts},
      {"last", {{"journal", last.journal}, {"seq", last.at}}},
      {"woodless", b.options().protocol == "none"}};  // no device: an aggregator shows it as such
  client_->publish(topics_.state(b.id()), state.dump(), 1, true);
}

void Hall::publish_matches(bool all) {
  if (!client_ || !client_->connected()) return;
  for (const auto& m : service_.matches()) {
    json games = json::object();
    json boards = json::array();
    for (BoardRuntime* b : m->boards()) {
      boards.push_back(b->id());
      games[b->id()] = outputs::game_pgn(b->board_game());  // its entry in this host's /games.pgn
    }
    json record{{"match", m->name()},
                {"boards", boards},
                {"number", m->number()},
                {"bpgn", m->bpgn()},
                {"games", games}};
    std::string key = record.dump();
    std::string& last = match_published_[m->name()];
    if (!all && key == last) continue;  // a board's state changed, not the match's record
    last = std::move(key);
    record["t"] = now_ms();
    client_->publish(topics_.match(m->name()), record.dump(), 1, true);
  }
}

void Hall::on_ack(int mid) {
  auto it = inflight_.find(mid);
  if (it == inflight_.end()) return;  // the status, a state, a command
  auto [board, id] = it->second;
  inflight_.erase(it);
  spdlog::debug("mqtt: acknowledged {} {}/{} (message {})", board, id.journal, id.seq, mid);
  ++acked_;
  if (local_[board].acks.acknowledge(id)) schedule_save();
}

void Hall::schedule_save() {
  if (save_pending_) return;
  save_pending_ = true;
  save_timer_.expires_after(SAVE_DEBOUNCE);
  save_timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    save_pending_ = false;
    std::map<std::string, mqtt::EventId> acked;
    for (const auto& [board, l] : local_) acked[board] = l.acks.acked();
    // Durably, off the loop (the writer logs a failure and retries it).
    const fs::path file = fs::path(state_dir_) / "mqtt" / "acked.json";
    std::error_code mkdir_error;
    fs::create_directories(file.parent_path(), mkdir_error);
    background_files(io_).submit(file, mqtt::acked_text(acked), /*urgent=*/true);
  });
}

void Hall::on_message(const std::string& topic, std::string_view payload) {
  // Bounded before anything is parsed or kept: any broker user can publish, and the broker lets big ones
  // through (its own limit is 256 MB).
  if (payload.size() > cfg_.max_message) {
    if (messages_too_large_++ == 0 || (messages_too_large_ & (messages_too_large_ - 1)) == 0)
      spdlog::warn("mqtt: a message of {} bytes on {} dropped (mqtt.max_message = {}; {} so far)",
                   payload.size(), topic, cfg_.max_message, messages_too_large_);
    return;
  }
  auto t = mqtt::parse_topic(topics_.hall(), topic);
  if (!t) return;
  using K = mqtt::TopicParts::Kind;
  if (t->kind == K::Command) {
    if (t->host == topics_.host()) run_command(t->name, payload);
    return;
  }
  if (t->kind == K::Answer) {
    if (t->name != cfg_.username) return;
    auto a = mqtt::decode_answer(payload);
    if (!a) return;
    if (auto r = resends_.find(a->id); r != resends_.end()) {
      auto rb = remote_.find(r->second);
      const bool none =
          a->status == 200 && a->body.is_object() && a->body.contains("sent") && a->body["sent"] == 0;
      if (rb != remote_.end() && rb->second->hole()) {
        if (none) rb->second->nothing_to_resend();
        // Refused: this aggregator's user is not one the host trusts; asking again changes nothing.
        if (a->status == 403) rb->second->nothing_to_resend("the host refused to send them again (403)");
        spdlog::info("mqtt: {} answered the resend for {}: {} {}", t->host, r->second, a->status,
                     a->body.dump());
      }
      resends_.erase(r);
      return;
    }
    auto it = commands_.find(a->id);
    if (it == commands_.end()) return;
    it->second["answer"] = {{"status", a->status}, {"body", a->body}};
    spdlog::info("mqtt: command {} answered by {}: {}", a->id, t->host, a->status);
    if (auto w = clock_awaited_.find(a->id); w != clock_awaited_.end()) {
      ClockAwaited waited = std::move(w->second);
      clock_awaited_.erase(w);
      waited.timer->cancel();
      json body = a->body.is_object() ? a->body : json{{"answer", a->body}};
      body["board"] = waited.board;
      body["host"] = t->host;
      body["command"] = a->id;
      waited.settle(json_response(a->status >= 200 && a->status <= 599 ? unsigned(a->status) : 502u, body));
    }
    return;
  }
  // Its own boards are not aggregated again; but an aggregator that publishes none may share its host name
  // with a host of the same machine (both take the machine's name by default): that host's are served.
  if (!cfg_.aggregate || (t->host == topics_.host() && cfg_.publish && !service_.boards().empty())) return;
  if (t->kind == K::Match) {
    if (take_match(t->host, t->name, payload)) keep_match(t->host, t->name, payload);
    return;
  }
  if (t->kind == K::Status) {
    // Our own host name's status is ours (a host of the same name writes the same topic): not another host.
    if (t->host == topics_.host()) return;
    const bool online = payload == "online";
    hosts_[t->host] = online;
    for (auto& [id, rb] : remote_)
      if (rb->host() == t->host) rb->set_host_online(online);
    return;
  }
  mqtt::RemoteBoard* found = remote_board(t->host, t->name);
  if (!found) return;
  mqtt::RemoteBoard& rb = *found;
  if (t->kind == K::State) {
    json state = json::parse(payload, nullptr, false);
    if (!state.is_object()) return;
    rb.take_state(state);
    // Kept when what the record needs of it changed (tags, the start position), not at every move.
    std::string key = state.value("tags", json()).dump() + state.value("start_fen", json()).dump();
    std::string& kept = kept_state_[rb.id()];
    if (key != kept) {
      kept = std::move(key);
      keep_remote(rb, json{{"state", state}}.dump());
    }
    return;
  }
  auto env = mqtt::decode_envelope(payload);
  // The topic is the identity the broker checked (its ACL): an envelope that claims another is dropped.
  if (!env || env->host != t->host || env->board != t->name) return;
  spdlog::debug("mqtt: received {} {}/{}", rb.id(), env->id.journal, env->id.seq);
  // Nothing of this board taken yet, kept or live: what came before this event is asked of its host.
  // Once only: a board whose history its host refused or did not have (a problem says so) goes on.
  if (rb.taken() == 0 && env->resend == 0 && client_ && !cfg_.username.empty() && rb.problems().empty())
    rb.expect_history();
  if (!rb.take(*env)) {
    if (!rb.hole()) return;
    if (ask_resend(rb)) return;
    rb.nothing_to_resend();  // no way to ask: the record stops at the hole, as the host's problem says
    if (!rb.take(*env)) return;
  }
  keep_remote(rb, payload);
  const std::int64_t t_ms = env->event.contains("t") && env->event["t"].is_number_integer()
                                ? env->event["t"].get<std::int64_t>()
                                : 0;
  service_.publish(rb.id(), t_ms, rb.lines().back());
  service_.livechess_changed();
}

bool Hall::take_match(const std::string& host, const std::string& name, std::string_view payload) {
  json j = json::parse(payload, nullptr, false);
  if (!j.is_object() || !j.contains("bpgn") || !j["bpgn"].is_string() || !j.contains("games") ||
      !j["games"].is_object())
    return false;
  RemoteMatch::Record r;
  r.t_ms = j.contains("t") && j["t"].is_number_integer() ? j["t"].get<std::int64_t>() : now_ms();
  r.number = j.contains("number") && j["number"].is_number_integer() ? j["number"].get<int>() : 0;
  r.bpgn = j["bpgn"].get<std::string>();
  r.payload = payload;
  const std::string id = host + ":" + name;
  if (!remote_matches_.count(id) && remote_matches_.size() >= MAX_REMOTE_MATCHES) {
    ++remote_refused_;
    return false;
  }
  for (const auto& [board, pgn] : j["games"].items())
    if (pgn.is_string() && config::valid_topic_name(board)) {
      std::string board_id = host;
      board_id += ':';
      board_id += board;
      r.games[board_id] = hall_names(pgn.get<std::string>(), host);
      remote_board_match_[board_id] = id;
    }
  auto& records = remote_matches_[id].records;
  if (!records.empty() && records.back().t_ms >= r.t_ms) return false;  // taken already (retained, again)
  records.push_back(std::move(r));
  // Kept: what the broadcast delay may still have to show (the records of its span, a minute more for
  // the hosts' clocks), and the last of each match number.
  const std::int64_t kept_from = records.back().t_ms - delay_ms_ - 60 * 1000;
  // Of the match numbers, the last MAX_MATCH_NUMBERS only: a host may count them up without end.
  std::size_t numbers = 0;
  std::vector<bool> keep(records.size(), false);
  for (std::size_t i = records.size(); i-- > 0;) {
    const bool last_of_number = i + 1 == records.size() || records[i + 1].number != records[i].number;
    if (last_of_number) ++numbers;
    if (numbers > MAX_MATCH_NUMBERS) break;
    keep[i] = last_of_number || records[i].t_ms >= kept_from;
  }
  std::vector<RemoteMatch::Record> kept;
  for (std::size_t i = 0; i < records.size(); ++i)
    if (keep[i]) kept.push_back(std::move(records[i]));
  if (kept.size() > MAX_MATCH_RECORDS)  // a host publishing faster than moves are made: the oldest go
    kept.erase(kept.begin(), kept.end() - std::ptrdiff_t(MAX_MATCH_RECORDS));
  records = std::move(kept);
  service_.livechess_changed();
  return true;
}

std::vector<const Hall::RemoteMatch::Record*> Hall::RemoteMatch::seen(
    std::optional<std::int64_t> cutoff) const {
  std::vector<const Record*> out;
  for (const auto& r : records) {
    if (cutoff && r.t_ms > *cutoff) break;
    if (!out.empty() && out.back()->number == r.number)
      out.back() = &r;
    else
      out.push_back(&r);
  }
  return out;
}

const Hall::RemoteMatch* Hall::match_of_remote(const std::string& board) const {
  auto it = remote_board_match_.find(board);
  if (it == remote_board_match_.end()) return nullptr;
  auto m = remote_matches_.find(it->second);
  return m == remote_matches_.end() ? nullptr : &m->second;
}

std::optional<std::string> Hall::match_bpgn(const std::string& id, std::optional<std::int64_t> cutoff) const {
  auto it = remote_matches_.find(id);
  if (it == remote_matches_.end()) return std::nullopt;
  auto seen = it->second.seen(cutoff);
  return seen.empty() ? std::string() : seen.back()->bpgn;
}

mqtt::RemoteBoard* Hall::remote_board(const std::string& host, const std::string& board) {
  const std::string id = host + ":" + board;
  if (auto it = remote_.find(id); it != remote_.end()) return it->second.get();
  if (remote_.size() >= MAX_REMOTE_BOARDS) {
    if (remote_refused_++ == 0)
      spdlog::warn("mqtt: {} remote boards held already: {} and any further one are not taken",
                   remote_.size(), id);
    return nullptr;
  }
  auto& slot = remote_[id];
  slot = std::make_unique<mqtt::RemoteBoard>(host, board);
  slot->set_host_online(hosts_.count(host) ? hosts_[host] : true);
  return slot.get();
}

void Hall::keep_remote(const mqtt::RemoteBoard& rb, std::string_view line) {
  // Names that are not plain file names are served but not kept.
  if (!config::valid_topic_name(rb.host()) || !config::valid_topic_name(rb.board())) return;
  append_kept("remote", rb.id() + ".jsonl", line);
}

void Hall::keep_match(const std::string& host, const std::string& name, std::string_view payload) {
  if (!config::valid_topic_name(host) || !config::valid_topic_name(name)) return;
  append_kept("matches", host + ":" + name + ".jsonl", payload);
}

void Hall::append_kept(const char* folder, const std::string& file, std::string_view line) {
  const fs::path dir = fs::path(state_dir_) / "mqtt" / folder;
  if (!kept_dirs_.count(folder)) {  // once, not at every event
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec) kept_dirs_.insert(folder);
  }
  // Appended and closed at once (no descriptor kept open per board); no fsync: a crash of the process
  // loses nothing the kernel has, a power cut what the broker's session sends again or a host republishes.
  std::FILE* f = std::fopen((dir / file).c_str(), "ae");
  if (!f) {
    if (!remote_write_error_) spdlog::warn("mqtt: cannot keep what came of {} in {}", file, dir.string());
    remote_write_error_ = true;
    return;
  }
  std::fwrite(line.data(), 1, line.size(), f);
  std::fputc('\n', f);
  std::fclose(f);
}

std::size_t Hall::read_kept(const char* folder, const KeptFile& take) {
  const fs::path dir = fs::path(state_dir_) / "mqtt" / folder;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    // "<host>:<name>.jsonl"
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".jsonl")) continue;
    const std::string id = name.substr(0, name.size() - 6);
    const auto colon = id.find(':');
    if (colon == std::string::npos) continue;
    std::ifstream in(entry.path());
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
    in.close();
    take(entry.path(), id.substr(0, colon), id.substr(colon + 1), lines);
    ++files;
  }
  return files;
}

void Hall::load_remote() {
  std::size_t events = 0;
  const std::size_t boards =
      read_kept("remote", [&](const fs::path&, const std::string& host, const std::string& board,
                              const std::vector<std::string>& lines) {
        mqtt::RemoteBoard* found = remote_board(host, board);
        if (!found) return;
        mqtt::RemoteBoard& rb = *found;
        for (const auto& line : lines) {
          if (line.size() > cfg_.max_message) continue;  // kept before the bound was lowered
          json j = json::parse(line, nullptr, false);
          if (j.is_object() && j.contains("state") && j["state"].is_object()) {
            rb.take_state(j["state"]);
            kept_state_[rb.id()] =
                j["state"].value("tags", json()).dump() + j["state"].value("start_fen", json()).dump();
          } else if (auto env = mqtt::decode_envelope(line);
                     env && env->host == rb.host() && env->board == rb.board()) {
            events += rb.take(*env, true) ? 1 : 0;
          }
        }
      });
  if (boards) spdlog::info("mqtt: {} event(s) of {} remote board(s) read back", events, boards);
  const std::size_t matches =
      read_kept("matches", [&](const fs::path& file, const std::string& host, const std::string& name,
                               const std::vector<std::string>& lines) {
        for (const auto& line : lines) (void)take_match(host, name, line);  // a damaged line is skipped
        // A record per move of the match, each whole: the file is written again with what is still needed.
        auto it = remote_matches_.find(host + ":" + name);
        if (it == remote_matches_.end() || it->second.records.size() >= lines.size()) return;
        std::string kept;
        for (const auto& r : it->second.records) kept += r.payload + "\n";
        if (auto ok = outputs::write_file_atomic(file, kept); !ok)
          spdlog::warn("mqtt: {}: {}", file.string(), ok.error());
      });
  if (matches) spdlog::info("mqtt: {} remote match(es) read back", matches);
}

void Hall::run_command(const std::string& user, std::string_view payload) {
  auto c = mqtt::decode_command(payload);
  if (!c) return;  // nothing to answer to
  mqtt::Answer a;
  a.id = c->id;
  a.board = c->board;
  const bool trusted = std::find(cfg_.trusted.begin(), cfg_.trusted.end(), user) != cfg_.trusted.end();
  // A resend too: it costs the host a journal read and the hall a burst of messages, so only users it
  // trusts may ask for one, and only so often (resend_allowed).
  if (!trusted) {
    ++commands_refused_;
    a.status = 403;
    a.body = {{"error", "host " + topics_.host() + " does not take commands from '" + user +
                            "' (not in its mqtt.trusted)"}};
    spdlog::warn("mqtt: command {} {} on board {} from untrusted '{}' refused", c->id, c->action, c->board,
                 user);
  } else if (c->action == "resend") {
    if (service_.board(c->board) && !resend_allowed(user, c->board)) {
      ++resends_limited_;
      a.status = 429;
      a.body = {
          {"error", "too many resends of board " + c->board + " asked by '" + user + "'"},
          {"retry_after_ms", std::chrono::duration_cast<std::chrono::milliseconds>(RESEND_REFILL).count()}};
    } else {
      a = resend(*c);
    }
  } else if (!service_.board(c->board)) {
    a.status = 404;
    a.body = {{"error", "no board '" + c->board + "' on host " + topics_.host()}};
  } else if (c->action.empty() || c->action.find('/') != std::string::npos) {
    a.status = 400;
    a.body = {{"error", "bad action"}};
  } else if (c->deadline_ms > 0 && now_ms() > c->deadline_ms) {
    // Its sender stopped waiting: obeyed now, it would do what the arbiter was told had failed.
    a.status = 504;
    a.body = {{"error", "command " + c->id + " reached host " + topics_.host() + " " +
                            std::to_string(now_ms() - c->deadline_ms) + " ms after its deadline: not obeyed"},
              {"late", true}};
    spdlog::warn("mqtt: command {} {} on board {} from {} came after its deadline: not obeyed", c->id,
                 c->action, c->board, user);
  } else if (c->action == "clock") {
    clock_command(user, *c);  // answered when the clock has
    return;
  } else {
    // The broker vouched for the user (its password or certificate, its ACL on the topic): the command
    // runs as a control request with the token.
    http::Request r;
    r.method = "POST";
    r.path = "/control/" + c->board + "/" + c->action;
    r.target = r.path;
    r.body = c->body.dump();
    r.content_type = "application/json";
    http::Response res = service_.control_authorized(r);
    if (res.deferred) {
      // Answered once the control's effect is durable (a new game's journal file, a result, tags: the
      // background worker's or the syncer's work, LaterAnswer): waited for off the loop (AnswerWaits), then
      // published from the loop.
      answer_waits_.wait(std::move(res.deferred),
                         [this, a, user, action = c->action](http::Response done) mutable {
                           publish_answer(user, action, std::move(a), done);
                         });
      return;
    }
    return publish_answer(user, c->action, std::move(a), res);
  }
  if (client_) client_->publish(topics_.answer(user), mqtt::encode_answer(a), 1, false);
}

void Hall::clock_command(const std::string& user, const mqtt::Command& c) {
  BoardRuntime* b = service_.board(c.board);
  if (!b) return;  // the caller answered
  auto within = std::chrono::milliseconds(HOST_CLOCK_WAIT);
  if (c.deadline_ms > 0)
    within = std::clamp(std::chrono::milliseconds(c.deadline_ms - now_ms() - 500),
                        std::chrono::milliseconds(500), within);
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, within);
  auto given = std::make_shared<bool>(false);
  // Once, on the loop: the clock's answer, or the bound's.
  auto answer = [this, alive = std::weak_ptr<bool>(alive_), given, timer, user, id = c.id,
                 board = c.board](const http::Response& res) {
    if (alive.expired() || *given) return;
    *given = true;
    timer->cancel();
    mqtt::Answer a;
    a.id = id;
    a.board = board;
    publish_answer(user, "clock", std::move(a), res);
  };
  timer->async_wait([answer, board = c.board, within](const boost::system::error_code& ec) {
    if (ec) return;
    answer(http::Response::json(
        504, json{{"board", board},
                  {"action", "clock"},
                  {"clock", "not-confirmed"},
                  {"error", "the clock did not answer within " + std::to_string(within.count()) +
                                " ms: check the clock and the cable to the board"}}
                 .dump()));
  });
  clock_control_then(*b, c.body, answer);
}

void Hall::publish_answer(const std::string& user, const std::string& action, mqtt::Answer a,
                          const http::Response& res) {
  a.status = int(res.status);
  a.body = json::parse(res.body, nullptr, false);
  if (a.body.is_discarded()) a.body = res.body;
  spdlog::info("mqtt: command {} {} on board {} from {}: {}", a.id, action, a.board, user, res.status);
  if (client_) client_->publish(topics_.answer(user), mqtt::encode_answer(a), 1, false);
}

bool Hall::resend_allowed(const std::string& user, const std::string& board) {
  const auto now = std::chrono::steady_clock::now();
  auto key = std::make_pair(user, board);
  auto it = resend_budget_.find(key);
  if (it == resend_budget_.end()) {
    if (resend_budget_.size() >= MAX_RESEND_BUDGETS) {
      // Forget the requesters whose budgets are full again: they are as new ones.
      for (auto i = resend_budget_.begin(); i != resend_budget_.end();)
        i = now - i->second.at >= RESEND_REFILL * RESEND_BURST ? resend_budget_.erase(i) : std::next(i);
      if (resend_budget_.size() >= MAX_RESEND_BUDGETS) return false;
    }
    it = resend_budget_.emplace(key, ResendBudget{RESEND_BURST, now}).first;
  }
  ResendBudget& b = it->second;
  const double refill = std::chrono::duration<double>(now - b.at) / RESEND_REFILL;
  b.tokens = std::min(RESEND_BURST, b.tokens + refill);
  b.at = now;
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

mqtt::Answer Hall::resend(const mqtt::Command& c) {
  mqtt::Answer a;
  a.id = c.id;
  a.board = c.board;
  BoardRuntime* b = service_.board(c.board);
  const json& body = c.body;
  if (!b || !cfg_.publish) {
    a.status = 404;
    a.body = {{"error", "no board '" + c.board + "' published by host " + topics_.host()}};
    return a;
  }
  if (!body.is_object() || !body.contains("journal") || !body["journal"].is_number_integer() ||
      !body.contains("seq") || !body["seq"].is_number_unsigned()) {
    a.status = 400;
    a.body = {{"error", "a resend names the last event taken: {\"journal\": n, \"seq\": n}"}};
    return a;
  }
  const mqtt::EventId after{body["journal"].get<std::int64_t>(), body["seq"].get<std::uint64_t>()};
  const auto limit = b->last_published();
  const mqtt::EventId upto{limit.journal, limit.at};
  auto events = mqtt::journal_events_after(b->journal_path(), after);
  if (!events) {
    a.status = 500;
    a.body = {{"error", "cannot read the journal: " + events.error()}};
    return a;
  }
  std::vector<const mqtt::JournalEvent*> batch;
  for (const auto& e : *events)
    if (!(upto < e.id)) batch.push_back(&e);
  for (std::size_t i = 0; i < batch.size(); ++i)
    send(c.board, batch[i]->id, batch[i]->game, batch[i]->line, i + 1 == batch.size() ? 2 : 1);
  a.status = 200;
  a.body = {{"sent", batch.size()}};
  spdlog::info("mqtt: board {}: {} event(s) after {}/{} published again (a resend)", c.board, batch.size(),
               after.journal, after.seq);
  return a;
}

bool Hall::ask_resend(const mqtt::RemoteBoard& rb) {
  if (!client_ || cfg_.username.empty() || !rb.hole()) return false;
  const auto now = std::chrono::steady_clock::now();
  auto it = resend_asked_.find(rb.id());
  if (it != resend_asked_.end() && it->second.after == *rb.hole() && now - it->second.at < RESEND_RETRY)
    return true;
  resend_asked_[rb.id()] = {*rb.hole(), now};
  mqtt::Command c;
  c.id = topics_.host() + "-" + std::to_string(started_ms_) + "-" + std::to_string(++command_seq_);
  c.board = rb.board();
  c.action = "resend";
  c.body = {{"journal", rb.hole()->journal}, {"seq", rb.hole()->seq}};
  // Not sent now (the connection is down): asked again at the next event after the retry time.
  if (!client_->publish(topics_.command(rb.host(), cfg_.username), mqtt::encode_command(c), 1, false))
    return true;
  resends_[c.id] = rb.id();
  if (resends_.size() > MAX_RESENDS_AWAITED) resends_.erase(resends_.begin());
  spdlog::warn("mqtt: {}: events lost on the way after {}/{}; asked {} to publish them again", rb.id(),
               rb.hole()->journal, rb.hole()->seq, rb.host());
  return true;
}

http::Response Hall::send_command(const std::string& id, const std::string& action, const json& body) {
  auto it = remote_.find(id);
  if (it == remote_.end()) return json_response(404, {{"error", "no board '" + id + "'"}});
  if (!client_ || !client_->connected())
    return json_response(503, {{"error", "not connected to the broker " + cfg_.broker}});
  if (cfg_.username.empty())
    return json_response(409, {{"error", "commands need a broker identity: set mqtt.username"}});
  const std::string& host = it->second->host();
  // The clock is answered as on its host, once the host has its clock's answer: sent to an offline host,
  // or sent at all while the aggregator cannot wait for more, it would be set behind the arbiter's back.
  const bool clock = action == "clock";
  if (clock) {
    if (auto h = hosts_.find(host); h != hosts_.end() && !h->second)
      return json_response(503, {{"board", id},
                                 {"action", "clock"},
                                 {"clock", "not-sent"},
                                 {"error", "host " + host + " is offline: the clock was not set"}});
    if (clock_awaited_.size() >= MAX_CLOCK_AWAITED)
      return json_response(503, {{"board", id},
                                 {"action", "clock"},
                                 {"clock", "not-sent"},
                                 {"error", "too many clock commands await their hosts' answers"}});
  }
  mqtt::Command c;
  // Unique across this aggregator's restarts too: an answer to an earlier life's command matches nothing.
  c.id = topics_.host() + "-" + std::to_string(started_ms_) + "-" + std::to_string(++command_seq_);
  c.board = it->second->board();
  c.action = action;
  c.body = body;
  if (clock)
    c.deadline_ms =
        now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(REMOTE_CLOCK_WAIT).count();
  if (!client_->publish(topics_.command(host, cfg_.username), mqtt::encode_command(c), 1, false))
    return json_response(503, {{"error", "the command could not be sent: " + client_->last_error()}});
  commands_[c.id] = {{"id", c.id}, {"board", id}, {"action", action}, {"answer", nullptr}};
  if (commands_.size() > 256) commands_.erase(commands_.begin());
  if (!clock)
    return json_response(202, {{"command", c.id}, {"host", host}, {"board", c.board}, {"sent", true}});
  // The loop's timer answers at the deadline; later_answer's own bound only if the loop could not.
  LaterAnswer later =
      later_answer(io_, REMOTE_CLOCK_WAIT + std::chrono::seconds(5), "host " + host + "'s answer");
  auto timer = std::make_shared<boost::asio::steady_timer>(io_, REMOTE_CLOCK_WAIT);
  clock_awaited_[c.id] = {later.settle, timer, id};
  timer->async_wait([this, alive = std::weak_ptr<bool>(alive_), cid = c.id, host,
                     timer](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    auto w = clock_awaited_.find(cid);
    if (w == clock_awaited_.end()) return;
    ClockAwaited waited = std::move(w->second);
    clock_awaited_.erase(w);
    spdlog::warn("mqtt: command {} clock on {}: no answer from {} in time", cid, waited.board, host);
    waited.settle(json_response(
        504,
        {{"board", waited.board},
         {"action", "clock"},
         {"host", host},
         {"command", cid},
         {"clock", "not-confirmed"},
         {"error",
          "host " + host + " did not answer within " +
              std::to_string(std::chrono::duration_cast<std::chrono::seconds>(REMOTE_CLOCK_WAIT).count()) +
              " s: the clock was not confirmed (the host will not obey the command later); check the "
              "host and set the times again"}}));
  });
  return later.response();
}

namespace {

std::string remote_game_pgn(const mqtt::RemoteBoard& rb, const rules::PgnTags& defaults,
                            std::optional<std::int64_t> cutoff) {
  if (!cutoff)
    return outputs::game_pgn(
        {rb.id(), &rb.game(), rb.tags(), rb.started_ms(), rb.game_number(), defaults, "", ""});
  const rules::Game seen = rb.public_game(*cutoff);
  return outputs::game_pgn({rb.id(), &seen, rb.tags(), rb.started_ms(), rb.game_number(), defaults, "", ""});
}

// Behind the delay, while the current game's start is not public yet (`cutoff` before it): the game before,
// without what came after the cutoff. Nothing otherwise.
std::optional<std::string> earlier_public_pgn(const mqtt::RemoteBoard& rb, const rules::PgnTags& defaults,
                                              std::int64_t cutoff) {
  if (cutoff >= rb.started_ms() || rb.earlier().empty()) return std::nullopt;
  const mqtt::RemoteBoard::Earlier& e = rb.earlier().back();
  rules::Game seen = e.game;
  while (seen.ply_count() > 0 && seen.plies().back().time_ms > cutoff) seen.undo();
  if (e.ended_ms > cutoff) seen.clear_outcome();  // its result may have been told after the cutoff
  return outputs::game_pgn({rb.id(), &seen, e.tags, e.started_ms, e.number, defaults, "", ""});
}

}  // namespace

std::string Hall::round_pgn(const mqtt::RemoteBoard& rb, const rules::PgnTags& defaults,
                            std::optional<std::int64_t> cutoff) const {
  std::string out;
  const std::string& id = rb.id();
  if (const RemoteMatch* m = match_of_remote(id)) {  // as its host prints it
    for (const RemoteMatch::Record* r : m->seen(cutoff))
      if (auto g = r->games.find(id); g != r->games.end()) out += g->second;
    return out;
  }
  for (const auto& e : rb.earlier())
    if (!cutoff || e.ended_ms <= *cutoff)  // the game's end is public
      out += outputs::game_pgn({id, &e.game, e.tags, e.started_ms, e.number, defaults, "", ""});
  if (cutoff && *cutoff < rb.started_ms() && !rb.earlier().empty()) {
    // The new game is not public yet: the one before is, as far as the cutoff goes, unless listed above.
    if (rb.earlier().back().ended_ms > *cutoff) out += *earlier_public_pgn(rb, defaults, *cutoff);
    return out;
  }
  return out + remote_game_pgn(rb, defaults, cutoff);
}

std::optional<std::string> Hall::board_pgn(const std::string& id, const rules::PgnTags& defaults,
                                           std::optional<std::int64_t> cutoff) const {
  auto it = remote_.find(id);
  if (it == remote_.end()) return std::nullopt;
  if (const RemoteMatch* m = match_of_remote(id)) {
    auto seen = m->seen(cutoff);
    if (!seen.empty())
      if (auto g = seen.back()->games.find(id); g != seen.back()->games.end()) return g->second;
  }
  if (cutoff)
    if (auto earlier = earlier_public_pgn(*it->second, defaults, *cutoff)) return earlier;
  return remote_game_pgn(*it->second, defaults, cutoff);
}

http::Response Hall::numbered_board_pgn(const std::string& id, std::string_view query,
                                        const rules::PgnTags& defaults,
                                        std::optional<std::int64_t> cutoff) const {
  const std::optional<int> n = record_number(query);
  if (!n) return http::Response::text(400, "game must be a game number: 1, 2, … (see /status)");
  auto it = remote_.find(id);
  if (it == remote_.end()) return http::Response::text(404, "no board " + id);
  const mqtt::RemoteBoard& rb = *it->second;
  std::vector<int> numbers;
  if (const RemoteMatch* m = match_of_remote(id)) {
    // A match board's games are numbered as its match is (one journal for both boards).
    for (const RemoteMatch::Record* r : m->seen(cutoff)) {
      auto g = r->games.find(id);
      if (g == r->games.end()) continue;
      if (r->number == *n) return pgn_response(g->second);
      numbers.push_back(r->number);
    }
  } else {
    const bool current_public = !cutoff || *cutoff >= rb.started_ms() || rb.earlier().empty();
    for (const auto& e : rb.earlier()) {
      // Behind the delay, the game before a new one not public yet is shown as far as the cutoff goes.
      const bool shown = cutoff && !current_public && &e == &rb.earlier().back();
      if (cutoff && e.ended_ms > *cutoff && !shown) continue;
      if (e.number == *n)
        return pgn_response(
            shown ? *earlier_public_pgn(rb, defaults, *cutoff)
                  : outputs::game_pgn({id, &e.game, e.tags, e.started_ms, e.number, defaults, "", ""}));
      numbers.push_back(e.number);
    }
    if (current_public && rb.game_number() >= 1) {
      if (rb.game_number() == *n) return pgn_response(remote_game_pgn(rb, defaults, cutoff));
      numbers.push_back(rb.game_number());
    }
  }
  return http::Response::text(404, "board " + id + " has no game " + std::to_string(*n) +
                                       " on record here; its games: " + numbers_text(numbers, 0) +
                                       " (the aggregator keeps those it saw; the rest are on host " +
                                       rb.host() + ")");
}

std::optional<http::Response> Hall::numbered_match_bpgn(const std::string& id, std::string_view query,
                                                        std::optional<std::int64_t> cutoff) const {
  auto it = remote_matches_.find(id);
  if (it == remote_matches_.end()) return std::nullopt;
  const std::optional<int> n = record_number(query);
  if (!n) return http::Response::text(400, "match must be a match number: 1, 2, … (see /status)");
  std::vector<int> numbers;
  for (const RemoteMatch::Record* r : it->second.seen(cutoff)) {
    if (r->number == *n) return pgn_response(r->bpgn);
    numbers.push_back(r->number);
  }
  return http::Response::text(404, "no match " + std::to_string(*n) + " of " + id +
                                       " on record here; its matches: " + numbers_text(numbers, 0) +
                                       " (the aggregator keeps those it saw; the rest are on their host)");
}

json Hall::status() const {
  json boards = json::array();
  for (const auto& [board, l] : local_)
    boards.push_back({{"board", board},
                      {"acked", {{"journal", l.acks.acked().journal}, {"seq", l.acks.acked().seq}}},
                      {"inflight", l.acks.inflight()}});
  json remote = json::array();
  for (const auto& [id, rb] : remote_) remote.push_back(rb->status());
  json hosts = json::object();
  for (const auto& [h, online] : hosts_) hosts[h] = online ? "online" : "offline";
  json commands = json::array();
  for (const auto& [id, c] : commands_) commands.push_back(c);
  const bool taken_over = takeover_.taken_over_at(mqtt::TakeoverWatch::Clock::now());
  return {{"broker", cfg_.broker},
          {"hall", topics_.hall()},
          {"host", topics_.host()},
          {"username", cfg_.username},
          {"connected", client_ && client_->connected()},
          {"connects", client_ ? client_->connects() : 0},
          {"last_error", client_ ? client_->last_error() : ""},
          {"last_disconnect", last_disconnect_},
          {"client_id", client_id_},
          {"taken_over", taken_over},
          {"short_sessions", takeover_.short_sessions()},
          {"taken_over_hint", taken_over ? json("another client uses the client id '" + client_id_ +
                                                "': set [mqtt] client_id (or [mqtt] host) of one of them")
                                         : json(nullptr)},
          {"aggregate", cfg_.aggregate},
          {"events_sent", sent_},
          {"events_acknowledged", acked_},
          {"events_republished", republished_},
          {"commands_refused", commands_refused_},
          {"resends_limited", resends_limited_},
          {"max_message", cfg_.max_message},
          {"messages_too_large", messages_too_large_},
          {"remote_refused", remote_refused_},
          {"outbox", boards},
          {"hosts", hosts},
          {"remote_boards", remote},
          {"commands", commands}};
}

}  // namespace eboard::eboardd
