// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl status`, `eboardctl new-game` … : the control interface of a running eboardd over HTTP (Beast).
// Exit codes: 0 done, 1 the daemon refused (its reason printed), 2 a bad command line, 3 no daemon reached.
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "daemon/outputs/pairings.hpp"
#include "daemon/outputs/text_encoding.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"
#include "rules/position.hpp"

namespace eboard::tools {

namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace asio = boost::asio;
using nlohmann::json;

constexpr int EXIT_REFUSED = 1;
constexpr int EXIT_USAGE = 2;
constexpr int EXIT_UNREACHABLE = 3;

struct Target {
  std::string daemon = "127.0.0.1:7780";
  std::string token;
  std::string token_file;
  bool json_out = false;
  double timeout_s = 10;  // for the whole exchange: resolve, connect, send, answer
};

struct Answer {
  int status = 0;
  std::string body;
};

// A token is one short line; the cap keeps a wrong --token-file (/dev/zero, a log) from being read whole.
constexpr std::size_t MAX_TOKEN_FILE_BYTES = 64 << 10;

// The token to send: --token, else $EBOARD_TOKEN, else the first line of --token-file.
std::optional<std::string> resolve_token(const Target& t, std::string& error) {
  if (!t.token.empty()) return t.token;
  if (const char* env = std::getenv("EBOARD_TOKEN"); env && *env) return std::string(env);
  if (!t.token_file.empty()) {
    auto text = read_input_file(t.token_file, MAX_TOKEN_FILE_BYTES);
    if (!text) {
      error = "cannot read the token file " + text.error();
      return std::nullopt;
    }
    std::string line = text->substr(0, text->find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    return line;
  }
  return std::string();
}

// Runs the io_context until the operation started before it has completed or `deadline` has passed.
// Synchronous Beast calls ignore the stream's expiry (only its asynchronous operations arm the timer), so
// every step is asynchronous and waited for here: a daemon that accepts and never answers cannot hang us.
// Returns false when the deadline came first; the pending operation is then abandoned with the io_context.
bool wait_for(asio::io_context& io, const bool& done, std::chrono::steady_clock::time_point deadline) {
  io.restart();
  while (!done && std::chrono::steady_clock::now() < deadline) {
    if (io.run_one_until(deadline) == 0 && io.stopped()) break;
  }
  return done;
}

// One request; nullopt (and `error`) when the daemon cannot be reached, does not answer HTTP, or does not
// answer within t.timeout_s seconds.
std::optional<Answer> call(const Target& t, bhttp::verb verb, const std::string& path,
                           const std::string& token, const std::string& body, std::string& error) {
  auto colon = t.daemon.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == t.daemon.size()) {
    error = "--daemon must be HOST:PORT, not '" + t.daemon + "'";
    return std::nullopt;
  }
  std::string host = t.daemon.substr(0, colon), port = t.daemon.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(t.timeout_s));
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g s", t.timeout_s);
  const auto unreachable = [&](const std::string& what) {
    error = "cannot reach eboardd at " + t.daemon + ": " + what;
    return std::nullopt;
  };
  const auto timed_out = [&](const char* step) {
    error = "eboardd at " + t.daemon + " did not answer within " + limit + " (" + step + ")";
    return std::nullopt;
  };

  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  beast::error_code ec;
  bool done = false;

  // A numeric address (the usual --daemon) needs no lookup: asio resolves on a thread of its own, and
  // starting that thread was a third of `eboardctl status`'s run time.
  std::vector<asio::ip::tcp::endpoint> endpoints;
  beast::error_code not_numeric;
  const auto address = asio::ip::make_address(host, not_numeric);
  unsigned port_number = 0;
  const auto [end, parse_error] = std::from_chars(port.data(), port.data() + port.size(), port_number);
  if (!not_numeric && parse_error == std::errc() && end == port.data() + port.size() &&
      port_number <= 65535) {
    endpoints.emplace_back(address, static_cast<unsigned short>(port_number));
  } else {
    resolver.async_resolve(host, port, [&](beast::error_code e, asio::ip::tcp::resolver::results_type r) {
      ec = e;
      for (const auto& entry : r) endpoints.push_back(entry.endpoint());
      done = true;
    });
    // A name lookup cannot be interrupted (getaddrinfo runs on asio's resolver thread, which the
    // io_context joins when it goes): the C library's resolver timeouts bound it.
    if (!wait_for(io, done, deadline)) return timed_out("resolving the host name");
    if (ec) return unreachable(ec.message());
  }

  // The stream's timer bounds connect, write and read: on expiry the operation ends with error::timeout.
  stream.expires_at(deadline);
  done = false;
  stream.async_connect(endpoints, [&](beast::error_code e, const asio::ip::tcp::endpoint&) {
    ec = e;
    done = true;
  });
  if (!wait_for(io, done, deadline) || ec == beast::error::timeout) return timed_out("connecting");
  if (ec) return unreachable(ec.message());

  bhttp::request<bhttp::string_body> req{verb, path, 11};
  req.set(bhttp::field::host, t.daemon);  // HOST:PORT as given ([v6]:PORT): what eboardd checks Host against
  req.set(bhttp::field::user_agent, "eboardctl");
  if (!token.empty()) req.set(bhttp::field::authorization, "Bearer " + token);
  if (verb != bhttp::verb::get) {
    req.set(bhttp::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
  }
  done = false;
  bhttp::async_write(stream, req, [&](beast::error_code e, std::size_t) {
    ec = e;
    done = true;
  });
  if (!wait_for(io, done, deadline) || ec == beast::error::timeout) return timed_out("sending the request");
  if (ec) return unreachable(ec.message());

  beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  done = false;
  bhttp::async_read(stream, buffer, res, [&](beast::error_code e, std::size_t) {
    ec = e;
    done = true;
  });
  if (!wait_for(io, done, deadline) || ec == beast::error::timeout)
    return timed_out("waiting for the answer");
  if (ec) return unreachable(ec.message());
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  return Answer{static_cast<int>(res.result_int()), res.body()};
}

std::string reason_of(const Answer& a) {
  json j = json::parse(a.body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  std::string b = a.body;
  while (!b.empty() && (b.back() == '\n' || b.back() == '\r')) b.pop_back();
  return b.empty() ? "HTTP " + std::to_string(a.status) : b;
}

// A string field of `j`, or `fallback` when it is absent, null or not a string.
std::string text_of(const json& j, const char* key, const std::string& fallback) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() && !it->get<std::string>().empty() ? it->get<std::string>()
                                                                             : fallback;
}

// The USB section of /status: how the daemon watches, then one line per USB board present and the board
// it serves ("unassigned": neither configured nor discovered). Nothing from a daemon without it.
void print_usb(const json& s) {
  if (!s.contains("usb") || !s["usb"].is_object()) return;
  const json& u = s["usb"];
  const std::string mode = text_of(u, "mode", "off");
  std::cout << "USB boards: " << mode;
  if (mode == "off") {
    std::cout << "\n";
    return;
  }
  const json boards = u.value("boards", json::array());
  std::cout << ", discovery " << (u.value("discovery", false) ? "on" : "off") << ", " << boards.size()
            << " present\n";
  for (const auto& b : boards) {
    std::cout << "  " << text_of(b, "vid", "????") << ":" << text_of(b, "pid", "????") << "  "
              << text_of(b, "serial", "(no serial)") << "  " << text_of(b, "tty", "?") << " -> "
              << text_of(b, "board", "unassigned");
    if (b.is_object() && b.value("discovered", false)) std::cout << " (discovered)";
    std::cout << "\n";
  }
}

// "OFFLINE since 14:03:07 UTC (device removed: ...)" for a board whose link is down; empty otherwise.
std::string offline_text(const json& board) {
  const json link = board.value("link_state", json::object());
  if (!link.is_object() || link.value("state", "") != "offline") return {};
  std::string text = "  OFFLINE";
  if (auto since = link.find("since"); since != link.end() && since->is_number_integer()) {
    const std::time_t secs = static_cast<std::time_t>(since->get<std::int64_t>() / 1000);
    std::tm utc{};
    char buf[32];
    if (gmtime_r(&secs, &utc) && std::strftime(buf, sizeof buf, "%H:%M:%S UTC", &utc) > 0)
      text += std::string(" since ") + buf;
  }
  const std::string reason = text_of(link, "reason", "");
  if (!reason.empty()) text += " (" + reason + ")";
  return text;
}

// A candidate's share as a percentage: "42 %", "<1 %" below half a percent, ">99 %" above 99.5.
std::string share_text(double share) {
  const double pct = share * 100;
  if (pct < 0.5) return "<1 %";
  if (pct > 99.5) return ">99 %";
  return std::to_string(int(std::lround(pct))) + " %";
}

void print_status(const json& s) {
  std::cout << s.value("daemon", "eboardd") << " " << s.value("version", "") << " (" << s.value("mode", "")
            << "), up " << s.value("uptime_s", 0) << " s\n";
  if (!s.contains("boards") || s["boards"].empty()) std::cout << "no boards\n";
  for (const auto& b : s.value("boards", json::array())) {
    const json g = b.value("game", json::object());
    // A board without wood has no link: it is not offline, nothing is missing.
    const std::string link = b.value("link", "?");
    std::cout << b.value("id", "?") << "  " << (link == "none" ? "no device (moves typed)" : link) << "  "
              << b.value("device", "") << "  game " << g.value("number", 0) << "  ply " << g.value("ply", 0)
              << "  " << g.value("result", "*");
    if (g.contains("reason")) std::cout << " (" << g["reason"].get<std::string>() << ")";
    std::cout << offline_text(b);
    const json tags = g.value("tags", json::object());
    if (tags.contains("White") || tags.contains("Black"))
      std::cout << "  " << tags.value("White", "?") << " - " << tags.value("Black", "?");
    const json c = b.value("control", json::object());
    if (c.contains("adjourned") && c["adjourned"].is_object())
      std::cout << "  ADJOURNED (" << c["adjourned"].value("sealed_by", "?") << " sealed)";
    if (c.value("unacknowledged_alerts", 0) > 0)
      std::cout << "  " << c["unacknowledged_alerts"].get<int>() << " alert(s) to acknowledge";
    std::cout << "\n";
    if (c.contains("missed_gap") && c["missed_gap"].is_object()) {
      const json& gap = c["missed_gap"];
      if (gap.value("past_bound", false))
        std::cout << "    missed gap from ply " << gap.value("first_ply", 0)
                  << ", longer than the search reaches (moves since held back): eboardctl recover "
                  << b.value("id", "?") << " --moves \"...\"\n";
      else if (gap.value("length_unknown", false))
        std::cout << "    missed gap from ply " << gap.value("first_ply", 0) << ", its length unknown"
                  << (gap.contains("last_ply")
                          ? ", " + std::to_string(gap.value("last_ply", 0) - gap.value("first_ply", 0) + 1) +
                                " plies or more"
                          : std::string())
                  << " (moves since held back): eboardctl recover " << b.value("id", "?")
                  << " N (or --moves \"...\", any number)"
                  << (gap.value("ranked_by", "") == "engine" ? ", in the engine's order" : "") << "\n";
      else
        std::cout << "    missed gap, plies " << gap.value("first_ply", 0) << "-" << gap.value("last_ply", 0)
                  << ": eboardctl recover " << b.value("id", "?") << " N (or --moves \"...\")"
                  << (gap.value("ranked_by", "") == "engine" ? ", in the engine's order" : "") << "\n";
      // Told at its shortest on a clock that counts no presses (/status: length_uncertain).
      if (gap.value("length_uncertain", false))
        std::cout
            << "    (the clock counts no presses: a longer story, with a piece's detour, may be the one "
               "played; its moves given with --moves put every later move at its ply)\n";
      for (const auto& cand : gap.value("candidates", json::array())) {
        std::cout << "      " << cand.value("number", 0) << ":";
        for (const auto& m : cand.value("san", json::array()))
          std::cout << " " << (m.is_string() ? m.get<std::string>() : "?");
        std::cout << "  (";
        bool first = true;
        for (const auto& m : cand.value("uci", json::array())) {
          std::cout << (first ? "" : " ") << (m.is_string() ? m.get<std::string>() : "?");
          first = false;
        }
        std::cout << ")";
        // How sure the rules' ranking is of it (/status: share, 0 to 1).
        if (cand.contains("share") && cand["share"].is_number())
          std::cout << "  " << share_text(cand["share"].get<double>());
        std::cout << "\n";
      }
      const std::size_t listed = gap.value("candidates", json::array()).size();
      const std::size_t total = gap.value("candidates_total", listed);
      if (total > listed) {
        std::cout << "      ... and " << total - listed << " less likely";
        if (gap.contains("listed_share") && gap["listed_share"].is_number())
          std::cout << ", " << share_text(1.0 - gap["listed_share"].get<double>()) << " together";
        std::cout << " (numbers up to " << total << " are taken; or type the moves)\n";
      }
    }
    // The last gap recovered as its one story, a longer one possible: the arbiter may still correct it.
    if (c.contains("recovered_gap") && c["recovered_gap"].is_object()) {
      const json& gap = c["recovered_gap"];
      std::cout << "    gap recovered, plies " << gap.value("first_ply", 0) << "-" << gap.value("last_ply", 0)
                << ", as the one story that reaches the board; the clock counts no presses: a longer story, "
                   "with a piece's detour, may be the one played: eboardctl recover "
                << b.value("id", "?") << " --moves \"...\" puts every later move at its ply\n";
    }
    for (const auto& a : c.value("alerts", json::array()))
      if (!a.value("acknowledged", true))
        std::cout << "    alert " << a.value("number", 0) << ": " << a.value("code", "") << " (ply "
                  << a.value("ply", 0) << ", " << a.value("side", "") << ") " << a.value("detail", "")
                  << "\n";
  }
  if (auto failed = s.find("failed_boards"); failed != s.end() && failed->is_object())
    for (const auto& [id, why] : failed->items())
      std::cout << id << "  not running: " << (why.is_string() ? why.get<std::string>() : why.dump()) << "\n";
  print_usb(s);
}

// What a successful action answered, for a human: the events it published, the game after it.
void print_done(const json& j) {
  if (j.contains("added")) {
    std::cout << "board " << j["added"].get<std::string>() << " added on " << j.value("port", "") << "\n";
    return;
  }
  if (j.contains("archived")) {
    std::cout << "round " << j.value("round", "?") << " begins; the finished round is archived in "
              << j["archived"].get<std::string>() << "\n";
    return;
  }
  if (j.contains("pairings")) {
    for (const auto& p : j["pairings"])
      std::cout << "board " << p.value("number", 0) << " (" << p.value("board", "?")
                << "): " << p.value("white", "?") << " - " << p.value("black", "?") << "\n";
    if (j.value("waiting", false))
      std::cout << "round " << j.value("round", "?") << " has not begun (the current round is "
                << j.value("current_round", "?") << "): these players wait for `eboardctl round "
                << j.value("round", "?") << "`\n";
    for (const auto& b : j.value("waiting_for_next_game", json::array()))
      if (b.is_string())
        std::cout << "board " << b.get<std::string>()
                  << ": its game is of the round before; the players take its next game\n";
    return;
  }
  if (j.contains("removed")) {
    std::cout << "board " << j["removed"].get<std::string>() << " removed\n";
    return;
  }
  if (j.value("action", "") == "clock" && j.contains("sent")) {
    const json& sent = j["sent"];
    std::cout << "board " << j.value("board", "?") << ": " << j.value("message", "clock set") << ": left "
              << sent.value("left", "?") << ", right " << sent.value("right", "?");
    if (sent.contains("white_ms"))
      std::cout << " (White " << (sent.value("left_ms", -1) == sent.value("white_ms", -2) ? "left" : "right")
                << ")";
    std::cout << "\n";
    return;
  }
  std::cout << "board " << j.value("board", "?") << ": " << j.value("action", "done");
  if (j.contains("game") && j["game"].is_object()) {
    const json& g = j["game"];
    std::cout << "; game " << g.value("number", 0) << " ply " << g.value("ply", 0) << " "
              << g.value("result", "*");
    if (g.contains("reason")) std::cout << " (" << g["reason"].get<std::string>() << ")";
  } else if (j.contains("game") && j["game"].is_number()) {
    std::cout << ": game " << j["game"].get<int>() << " begins";
  }
  std::cout << "\n";
  if (j.contains("adjourned") && j["adjourned"].is_object()) {
    std::cout << "adjourned: " << j["adjourned"].value("sealed_by", "?") << " sealed move "
              << j["adjourned"].value("move_number", 0) << "\n";
    if (!j.value("sealed_move_playable", true))
      std::cout
          << "warning: the sealed move is not a legal move here: it loses at the resumption (Guidelines "
             "I.8)\n";
  }
  if (j.contains("board_showed_position") && !j["board_showed_position"].get<bool>())
    std::cout << "warning: the board did not show the position of the adjournment\n";
  for (const auto& e : j.value("events", json::array())) std::cout << e.dump() << "\n";
  if (j.contains("tags"))
    for (const auto& [k, v] : j["tags"].items())
      std::cout << "[" << k << " \"" << v.get<std::string>() << "\"]\n";
}

int run(const Target& t, bhttp::verb verb, const std::string& path, const json& body, bool needs_token) {
  std::string error;
  auto token = resolve_token(t, error);
  if (!token) {
    std::cerr << "eboardctl: " << error << "\n";
    return EXIT_USAGE;
  }
  if (needs_token && token->empty())
    std::cerr << "eboardctl: no token (--token, $EBOARD_TOKEN or --token-file): the daemon will refuse\n";
  // Replaced, not thrown: a string of the command line that is not UTF-8 must not abort the tool.
  auto answer = call(t, verb, path, *token,
                     body.is_null() ? "" : body.dump(-1, ' ', false, json::error_handler_t::replace), error);
  if (!answer) {
    std::cerr << "eboardctl: " << error << "\n";
    return EXIT_UNREACHABLE;
  }
  if (answer->status < 200 || answer->status >= 300) {
    std::cerr << "eboardctl: the daemon said no (" << answer->status << "): " << reason_of(*answer) << "\n";
    return EXIT_REFUSED;
  }
  json j = json::parse(answer->body, nullptr, false);
  if (t.json_out || j.is_discarded()) {
    std::cout << (j.is_discarded() ? answer->body : j.dump(2, ' ', false, json::error_handler_t::replace))
              << "\n";
  } else if (path == "/status") {
    print_status(j);
  } else {
    print_done(j);
  }
  return 0;
}

// A query value with everything but unreserved characters percent-encoded (RFC 3986).
std::string percent_encoded(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += char(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A GET whose answer is a file: printed as it is (its bytes, whatever their encoding).
int run_raw(const Target& t, const std::string& path) {
  std::string error;
  auto token = resolve_token(t, error);
  if (!token) {
    std::cerr << "eboardctl: " << error << "\n";
    return EXIT_USAGE;
  }
  auto answer = call(t, bhttp::verb::get, path, *token, "", error);
  if (!answer) {
    std::cerr << "eboardctl: " << error << "\n";
    return EXIT_UNREACHABLE;
  }
  if (answer->status < 200 || answer->status >= 300) {
    std::cerr << "eboardctl: the daemon said no (" << answer->status << "): " << reason_of(*answer) << "\n";
    return EXIT_REFUSED;
  }
  std::cout << answer->body;
  return 0;
}

CLI::App* command(CLI::App& app, const std::string& name, const std::string& what, Target& t) {
  CLI::App* c = app.add_subcommand(name, what);
  c->add_option("--daemon", t.daemon, "the daemon's HTTP address HOST:PORT")->capture_default_str();
  c->add_option("--token", t.token, "the control token ([http] token of eboardd); else $EBOARD_TOKEN")
      ->envname("EBOARD_TOKEN");
  c->add_option("--token-file", t.token_file, "read the token from the first line of this file");
  c->add_flag("--json", t.json_out, "print the daemon's JSON answer as it is");
  c->add_option("--timeout", t.timeout_s,
                "give up when the daemon has not answered within this many seconds (exit 3)")
      ->check(finite_range(0.001, 3600))
      ->capture_default_str();
  return c;
}

std::string control_path(const std::string& board, const std::string& action) {
  return "/control/" + board + "/" + action;
}

}  // namespace

// `eboardctl result`: every result an arbiter gives (daemon/eboardd/arbiter.hpp), on the current game or an
// earlier one of the round.
void add_result_command(CLI::App& app, int& exit_code, Target& t, std::string& board, std::string& result,
                        std::string& reason, std::string& kind, std::string& rule, std::string& arbiter,
                        int& game, const std::string& control_note) {
  CLI::App* cmd = command(app, "result",
                          "Enter the arbiter's result of BOARD's game (the current one, or --game N of the "
                          "round): a decision, a forfeit, a flag the arbiter saw; on a game over already, a "
                          "correction. On a board of a bughouse match, the match's result" +
                              control_note,
                          t);
  cmd->add_option("BOARD", board, "board id")->required();
  cmd->add_option(
         "RESULT", result,
         "1-0, 0-1, 1/2-1/2 (a decision or a flag), +/- or -/+ (a forfeit: PGN 1-0 / 0-1, TRF + -), "
         "-/- (a double forfeit: PGN *, TRF - for both; earlier games only). -/+ and -/- begin with '-': "
         "write them after -- (eboardctl result 3 --reason \"...\" -- -/+)")
      ->required()
      ->check(CLI::IsMember({"1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"}));
  cmd->add_option("--reason", reason, "the arbiter's words, written into the record (1 to 200 characters)")
      ->required();
  cmd->add_option("--kind", kind,
                  "decision, forfeit or flag (default: forfeit for +/- -/+ -/-, else decision)")
      ->check(CLI::IsMember({"decision", "forfeit", "flag"}));
  cmd->add_option(
      "--rule", rule,
      "the FIDE Laws article (default: 6.7.1 for a forfeit, 6.9 for a flag, 12.2 for a decision)");
  cmd->add_option("--game", game, "the board's game number (default: the current game)")
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  cmd->add_option("--arbiter", arbiter, "the arbiter's name, kept in the record and the log");
  cmd->footer(
      "The record keeps the earlier version beside it (<file>.v1, <file>.v1.sig, ...), carries the tags "
      "Termination, ArbiterResult, ArbiterRule, ArbiterReason, ArbiterBy, ArbiterTime (ArbiterPrevious on "
      "a correction), and is signed again; /games.pgn, /ws (a result event), the round's TRF/CSV "
      "(eboardctl results) and, when the round ends, its archive show it. Every entry is appended to "
      "state_dir/arbiter.log. A game of an archived round (--game N, or the current game if over) is "
      "corrected in its round's archive too (rounds/<round>.pgn, kept as .v1 ...).\n"
      "On a board of a bughouse match ([[match]]) the result decides the match at once, the other game "
      "stopped (partner-board), or corrects the match's result; the match's BPGN (/matches/<match>.bpgn, "
      "state_dir/games/match-<match>-<n>.bpgn) carries it with ArbiterBoard (the board it was given on) "
      "and its ArbiterResult as team 1 (White A, Black B) sees it, kept and signed again alike; --game N "
      "is the board's game of match N.\n");
  cmd->callback([&t, &board, &result, &reason, &kind, &rule, &arbiter, &game, &exit_code] {
    json body{{"result", result}, {"reason", reason}};
    if (!kind.empty()) body["kind"] = kind;
    if (!rule.empty()) body["rule"] = rule;
    if (!arbiter.empty()) body["arbiter"] = arbiter;
    if (game > 0) body["game"] = game;
    exit_code = run(t, bhttp::verb::post, control_path(board, "result"), body, true);
  });
}

// `eboardctl moves`: the moves of an earlier game corrected in its record (daemon/eboardd/arbiter.hpp).
void add_moves_command(CLI::App& app, int& exit_code, Target& t, std::string& board, std::string& moves,
                       std::string& reason, std::string& arbiter, int& game, int& from_ply,
                       const std::string& control_note) {
  CLI::App* cmd =
      command(app, "moves",
              "Correct the moves of BOARD's earlier game --game N of the round (a match board's: of an "
              "earlier match), from ply --from-ply on (the current game's moves are the board's)" +
                  control_note,
              t);
  cmd->add_option("BOARD", board, "board id")->required();
  cmd->add_option("--game", game,
                  "the board's game number (an earlier game of the round; on a bughouse match board, its "
                  "game of an earlier match)")
      ->required()
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  cmd->add_option("--from-ply", from_ply, "the first ply replaced (1 = White's first move)")
      ->required()
      ->check(CLI::Range(1, 10000));
  cmd->add_option(
         "--moves", moves,
         "the moves from that ply on, SAN or UCI separated by spaces (\"\": the record ends before it)")
      ->required();
  cmd->add_option("--reason", reason, "the arbiter's words, written into the record (1 to 200 characters)")
      ->required();
  cmd->add_option("--arbiter", arbiter, "the arbiter's name, kept in the record and the log");
  cmd->footer(
      "Each move is checked against the rules; the moves before keep their clocks, the result stays "
      "(eboardctl "
      "result corrects it). The record keeps the earlier version beside it (<file>.v1, <file>.v1.sig, ...), "
      "carries the tag MovesCorrected (from which ply, and the moves it replaced), and is signed again; "
      "/games.pgn shows it. The entry is appended to state_dir/arbiter.log.\n"
      "On a bughouse match board, --game N is the board's game of an earlier match (the running match's "
      "moves are the boards'): the whole match is replayed with the corrected plies in the places of those "
      "they replace, both boards in the order they were played, extra plies after the match's last; if a "
      "later ply of either board no longer "
      "stands (a drop whose piece came from a capture the correction takes away), the answer names it and "
      "nothing changes; else the board's record and the match's BPGN are kept, rewritten and signed "
      "again.\n");
  cmd->callback([&t, &board, &moves, &reason, &arbiter, &game, &from_ply, &exit_code] {
    json body{{"game", game}, {"from_ply", from_ply}, {"moves", moves}, {"reason", reason}};
    if (!arbiter.empty()) body["arbiter"] = arbiter;
    exit_code = run(t, bhttp::verb::post, control_path(board, "moves"), body, true);
  });
}

void add_control_commands(CLI::App& app, int& exit_code) {
  // One set of values per subcommand: CLI11 keeps the pointers for the whole parse.
  struct Values {
    Target t;
    int alert = 0;
    int candidate = 0;
    std::string board, side, piece, sealed, fen, white, black, event, site, round, id, port,
        protocol = "dgt", moves, file, encoding = "auto", format = "trf", result, reason, kind, rule, arbiter;
    int game = 0, from_ply = 0;
    std::vector<std::string> tags;
    std::vector<std::string> typed;  // `move`'s moves
    std::vector<std::string> clock;  // `move --clock WHITE BLACK`
    std::string clock_white, clock_black, clock_left, clock_right, clock_add, clock_side, clock_run;
  };
  auto v = std::make_shared<Values>();
  const std::string control_note = " (needs the token)";

  CLI::App* status = command(app, "status",
                             "Show the daemon's boards and their games (GET /status); a missed gap's "
                             "candidates with how sure the ranking is of each (its share of the likelihood)",
                             v->t);
  status->callback([v, &exit_code] { exit_code = run(v->t, bhttp::verb::get, "/status", nullptr, false); });

  CLI::App* ng =
      command(app, "new-game", "Start a new game on BOARD, or set up a position" + control_note, v->t);
  ng->add_option("BOARD", v->board, "board id")->required();
  ng->add_option("--fen", v->fen, "the position to start from (FEN); default: the standard start");
  ng->callback([v, &exit_code] {
    json body = json::object();
    if (!v->fen.empty()) {
      // The daemon refuses a bad FEN too, but saying why here needs no daemon and no token. The board's
      // variant is the daemon's to know: crazyhouse parsing accepts every FEN any variant could (pockets
      // included), so only what no board could start from is refused here.
      if (auto pos = rules::Position::from_fen(v->fen, rules::Variant::Crazyhouse); !pos) {
        std::cerr << "eboardctl: new-game: " << pos.error() << "\n";
        exit_code = EXIT_USAGE;
        return;
      }
      body["fen"] = v->fen;
    }
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "new-game"), body, true);
  });

  CLI::App* tags = command(
      app, "tags", "Set PGN tags of BOARD's current game (an empty value removes one)" + control_note, v->t);
  tags->add_option("BOARD", v->board, "board id")->required();
  tags->add_option("--white", v->white, "White's name");
  tags->add_option("--black", v->black, "Black's name");
  tags->add_option("--event", v->event, "the event");
  tags->add_option("--site", v->site, "the site");
  tags->add_option("--round", v->round, "the round");
  tags->add_option("--tag", v->tags, "any other tag, as NAME=VALUE (repeatable)");
  tags->callback([v, &exit_code] {
    json body = json::object();
    const std::pair<const char*, const std::string*> named[] = {{"White", &v->white},
                                                                {"Black", &v->black},
                                                                {"Event", &v->event},
                                                                {"Site", &v->site},
                                                                {"Round", &v->round}};
    for (const auto& [name, value] : named)
      if (!value->empty()) body[name] = *value;
    for (const auto& t : v->tags) {
      auto eq = t.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "eboardctl: tags: --tag takes NAME=VALUE, not '" << t << "'\n";
        exit_code = EXIT_USAGE;
        return;
      }
      body[t.substr(0, eq)] = t.substr(eq + 1);
    }
    if (body.empty()) {
      std::cerr
          << "eboardctl: tags: give at least one of --white, --black, --event, --site, --round, --tag\n";
      exit_code = EXIT_USAGE;
      return;
    }
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "tags"), body, true);
  });

  CLI::App* rnd = command(app, "round",
                          "Start round ROUND: the finished round's games leave /games.pgn, archived in "
                          "state_dir/rounds/<round>.pgn" +
                              control_note,
                          v->t);
  rnd->add_option("ROUND", v->round, "the new round's name (e.g. 3; letters, digits, '.', '_', '-')")
      ->required();
  rnd->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, "/control/round", json{{"round", v->round}}, true);
  });

  CLI::App* pairings =
      command(app, "pairings",
              "Name every board's players from a pairings file: FIDE TRF-16 (as Swiss-Manager exports it) or "
              "CSV board,white,black,white_elo,black_elo. Board N is the board whose id is N, else the N-th "
              "[[board]] of the configuration" +
                  control_note,
              v->t);
  pairings->add_option("FILE", v->file, "the pairings file")->required();
  pairings->add_option("--round", v->round,
                       "the round the pairings are for (TRF-16: the round whose columns to take); default: "
                       "the daemon's current round. Pairings of a round not begun yet wait for `eboardctl "
                       "round`");
  pairings
      ->add_option("--encoding", v->encoding,
                   "the file's encoding: auto (a BOM, else UTF-8 if it is, else WINDOWS-1252, what "
                   "Swiss-Manager's \"ANSI\" export writes in western Europe), or a name iconv knows: "
                   "UTF-8, WINDOWS-1252, ISO-8859-1, WINDOWS-1250, ISO-8859-2, CP850, UTF-16 …")
      ->capture_default_str();
  pairings->callback([v, &exit_code] {
    auto bytes = read_input_file(v->file, outputs::MAX_PAIRINGS_BYTES);
    if (!bytes) {
      std::cerr << "eboardctl: pairings: cannot read " << bytes.error() << "\n";
      exit_code = EXIT_USAGE;
      return;
    }
    // The daemon takes UTF-8 (JSON carries nothing else): the file is decoded here.
    auto decoded = outputs::decode_text(*bytes, v->encoding);
    if (!decoded) {
      std::cerr << "eboardctl: pairings: " << v->file << ": " << decoded.error() << "\n";
      exit_code = EXIT_USAGE;
      return;
    }
    // The whole file: the daemon keeps a TRF as the round's, to give it back with the results in it.
    json body{{"text", decoded->text}, {"encoding", decoded->encoding}};
    if (!v->round.empty()) body["round"] = v->round;
    exit_code = run(v->t, bhttp::verb::post, "/control/pairings", body, true);
  });

  CLI::App* results = command(app, "results",
                              "Print a round's results for the pairing program: TRF-16 (the round's TRF "
                              "pairings file with its results filled in) or CSV",
                              v->t);
  results->add_option("--round", v->round, "the round (default: the current one; else an archived one)");
  results->add_option("--format", v->format, "trf or csv")
      ->check(CLI::IsMember({"trf", "csv"}))
      ->capture_default_str();
  results->add_option("--encoding", v->encoding,
                      "the text's encoding: UTF-8, or e.g. WINDOWS-1252 for a program that reads no Unicode");
  results->callback([v, &exit_code] {
    std::string path = "/round/results." + v->format;
    std::string query;
    auto add = [&](const char* key, const std::string& value) {
      if (value.empty() || value == "auto") return;
      query += (query.empty() ? "?" : "&") + std::string(key) + "=" + percent_encoded(value);
    };
    add("round", v->round);
    add("encoding", v->encoding);
    exit_code = run_raw(v->t, path + query);
  });

  CLI::App* promo =
      command(app, "promotion",
              "Name the piece of SIDE's next promotion on BOARD (bughouse: the pawn stays a pawn on "
              "the board)" +
                  control_note,
              v->t);
  promo->add_option("BOARD", v->board, "board id")->required();
  promo->add_option("SIDE", v->side, "white or black")->required()->check(CLI::IsMember({"white", "black"}));
  promo->add_option("PIECE", v->piece, "q, r, b or n")
      ->required()
      ->check(CLI::IsMember({"q", "r", "b", "n"}));
  promo->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "promotion"),
                    json{{"side", v->side}, {"piece", v->piece}}, true);
  });

  CLI::App* ack = command(
      app, "ack", "Acknowledge alert number ALERT of BOARD's game (numbers: eboardctl status)" + control_note,
      v->t);
  ack->add_option("BOARD", v->board, "board id")->required();
  // An int option: CLI11 refuses what does not fit (a usage error, exit 2) where std::stoi threw.
  ack->add_option("ALERT", v->alert, "the alert's number")
      ->required()
      ->check(CLI::Range(1, std::numeric_limits<int>::max()));
  ack->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "ack"), json{{"alert", v->alert}}, true);
  });

  CLI::App* draw = command(app, "draw", "Record a draw by agreement on BOARD" + control_note, v->t);
  draw->add_option("BOARD", v->board, "board id")->required();
  draw->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "draw"), json::object(), true);
  });

  CLI::App* resign = command(app, "resign", "Record SIDE's resignation on BOARD" + control_note, v->t);
  resign->add_option("BOARD", v->board, "board id")->required();
  resign->add_option("SIDE", v->side, "who resigns: white or black")
      ->required()
      ->check(CLI::IsMember({"white", "black"}));
  resign->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "resign"), json{{"side", v->side}}, true);
  });

  CLI::App* move =
      command(app, "move",
              "Play MOVE... (SAN or UCI, checked by the rules) on BOARD, a board without a device "
              "(protocol \"none\"): all of them, or none when one is illegal or ambiguous" +
                  control_note,
              v->t);
  move->add_option("BOARD", v->board, "board id")->required();
  move->add_option("MOVE", v->typed, "the moves in order, e.g. e4 e5 Nf3 (or e2e4 e7e5 g1f3)")->required();
  move->add_option("--clock", v->clock,
                   "the clock times after the move, WHITE BLACK (h:mm:ss, m:ss or ms); one move only")
      ->expected(2);
  move->callback([v, &exit_code] {
    json body;
    if (!v->clock.empty()) {
      if (v->typed.size() != 1) {
        std::cerr << "eboardctl: move: --clock goes with one move\n";
        exit_code = EXIT_USAGE;
        return;
      }
      // Digits only: milliseconds; else the text as a clock shows it (the daemon reads it).
      auto clock_value = [](const std::string& s) -> json {
        if (!s.empty() && s.size() < 12 && s.find_first_not_of("0123456789") == std::string::npos)
          return std::stoll(s);
        return s;
      };
      body["move"] = v->typed.front();
      body["clock"] = {{"white", clock_value(v->clock[0])}, {"black", clock_value(v->clock[1])}};
    } else {
      body["moves"] = v->typed;
    }
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "moves"), body, true);
  });
  add_result_command(app, exit_code, v->t, v->board, v->result, v->reason, v->kind, v->rule, v->arbiter,
                     v->game, control_note);
  add_moves_command(app, exit_code, v->t, v->board, v->moves, v->reason, v->arbiter, v->game, v->from_ply,
                    control_note);

  CLI::App* adjourn =
      command(app, "adjourn",
              "Adjourn BOARD's game: SIDE (the player on move) seals SEALED, a move in SAN or UCI, "
              "kept secret until the resumption" +
                  control_note,
              v->t);
  adjourn->add_option("BOARD", v->board, "board id")->required();
  adjourn->add_option("SIDE", v->side, "who seals: white or black")
      ->required()
      ->check(CLI::IsMember({"white", "black"}));
  adjourn->add_option("SEALED", v->sealed, "the sealed move, e.g. Nf3 or g1f3")->required();
  adjourn->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "adjourn"),
                    json{{"side", v->side}, {"sealed", v->sealed}}, true);
  });

  CLI::App* resume = command(
      app, "resume",
      "Resume BOARD's adjourned game: the sealed move is played (an illegal one loses)" + control_note, v->t);
  resume->add_option("BOARD", v->board, "board id")->required();
  resume->callback([v, &exit_code] {
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "resume"), json::object(), true);
  });

  CLI::App* recover = command(app, "recover",
                              "Settle BOARD's missed gap (a moves-missed alert): candidate N as eboardctl "
                              "status numbers them, or the moves typed with --moves; they are published as "
                              "recovered moves and enter the PGN. Without one, --moves corrects the gap "
                              "eboardctl status shows as recovered with its length uncertain (a longer "
                              "story's moves)" +
                                  control_note,
                              v->t);
  recover->add_option("BOARD", v->board, "board id")->required();
  auto* n = recover->add_option("N", v->candidate, "the candidate's number (eboardctl status)")
                ->check(CLI::Range(1, 999));
  auto* moves = recover->add_option(
      "--moves", v->moves,
      "the gap's moves in UCI or SAN, separated by spaces, e.g. \"g7g6 f2f3 f8g7\": any number "
      "that reaches the position the game went on from (more than the candidates' when the gap was "
      "told short, a detour no board shows: the moves since move on to their plies), or \"none\" when "
      "no move was made (a held gap that came back to the position before it: a press without a move "
      "read at a reconnect, given back)");
  n->excludes(moves);
  recover->callback([v, &exit_code] {
    json body;
    if (v->candidate > 0) {
      body["candidate"] = v->candidate;
    } else if (v->moves.find_first_not_of(" ,") != std::string::npos) {
      body["moves"] = v->moves;
    } else {
      std::cerr << "eboardctl: recover: give a candidate number N or --moves \"...\"\n";
      exit_code = EXIT_USAGE;
      return;
    }
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "recover"), body, true);
  });

  CLI::App* adopt = command(app, "adopt",
                            "Follow BOARD's game from the position the board shows (after a position no "
                            "moves explain): the record starts a new segment there (PGN: SetUp/FEN)" +
                                control_note,
                            v->t);
  adopt->add_option("BOARD", v->board, "board id")->required();
  adopt
      ->add_option("--side", v->side,
                   "who is on move (default: the side whose clock runs, else the "
                   "side on move in the game)")
      ->check(CLI::IsMember({"white", "black"}));
  adopt->callback([v, &exit_code] {
    json body = json::object();
    if (!v->side.empty()) body["side"] = v->side;
    exit_code = run(v->t, bhttp::verb::post, control_path(v->board, "adopt"), body, true);
  });

  CLI::App* clock =
      command(app, "clock",
              "Set the times of BOARD's DGT 3000 through the board: both (--white and --black, or "
              "--left and --right as seen from the clock's front), or --add time to one --side "
              "(FIDE 7.5.5: --add 2:00 --side of the opponent); the answer waits for the clock's "
              "confirmation, up to 20 s unless --timeout (exit 1 when the clock refused or did not confirm, "
              "or when the board's "
              "clock cannot be set: a board of a protocol without a clock (" +
                  session::protocol_names([](const session::BoardProtocol& p) { return !p.has_clock; }) +
                  "), a DGT bus board, no clock); a board of "
                  "a bughouse match is set alike, and another host's board through an aggregator "
                  "(HOST:BOARD: the host checks the ACK; no answer from it within 18 s is a failure)" +
                  control_note,
              v->t);
  clock->add_option("BOARD", v->board, "board id")->required();
  auto* cw = clock->add_option("--white", v->clock_white, "White's time, H:MM:SS or M:SS");
  auto* cb = clock->add_option("--black", v->clock_black, "Black's time");
  auto* cl =
      clock->add_option("--left", v->clock_left, "the left display's time (before White's side is known)");
  auto* cr = clock->add_option("--right", v->clock_right, "the right display's time");
  auto* ca =
      clock->add_option("--add", v->clock_add, "time to add to --side's clock as last read, M:SS (2:00)");
  clock->add_option("--side", v->clock_side, "with --add: white, black, left or right")
      ->check(CLI::IsMember({"white", "black", "left", "right"}));
  clock
      ->add_option("--run", v->clock_run,
                   "which clock runs afterwards: white, black, left, right or none (default: as it was)")
      ->check(CLI::IsMember({"white", "black", "left", "right", "none"}));
  cw->needs(cb);
  cb->needs(cw);
  cl->needs(cr);
  cr->needs(cl);
  for (auto* o : {cw, cb}) o->excludes(cl)->excludes(cr)->excludes(ca);
  for (auto* o : {cl, cr}) o->excludes(ca);
  clock->callback([v, clock, &exit_code] {
    json body = json::object();
    if (!v->clock_add.empty()) {
      // M:SS, H:MM:SS or seconds; the daemon takes milliseconds.
      long long total = 0;
      std::string part;
      bool ok = !v->clock_add.empty();
      for (char ch : v->clock_add + ":") {
        if (ch == ':') {
          ok = ok && !part.empty() && part.size() <= 4;
          if (ok) total = total * 60 + std::stoll(part);
          part.clear();
        } else if (std::isdigit(static_cast<unsigned char>(ch))) {
          part += ch;
        } else {
          ok = false;
        }
      }
      if (!ok || total <= 0 || v->clock_side.empty()) {
        std::cerr << "eboardctl: clock: --add takes M:SS (e.g. 2:00) and needs --side\n";
        exit_code = EXIT_USAGE;
        return;
      }
      body["add_ms"] = total * 1000;
      body["side"] = v->clock_side;
    } else if (!v->clock_white.empty()) {
      body["white"] = v->clock_white;
      body["black"] = v->clock_black;
    } else if (!v->clock_left.empty()) {
      body["left"] = v->clock_left;
      body["right"] = v->clock_right;
    } else {
      std::cerr << "eboardctl: clock: give --white and --black, --left and --right, or --add and --side\n";
      exit_code = EXIT_USAGE;
      return;
    }
    if (!v->clock_run.empty()) body["run"] = v->clock_run;
    // The daemon answers once the clock has (its resends take up to about 6 s; it gives up after 15 s).
    Target t = v->t;
    if (clock->count("--timeout") == 0) t.timeout_s = 20;
    exit_code = run(t, bhttp::verb::post, control_path(v->board, "clock"), body, true);
  });

  CLI::App* port = app.add_subcommand("port",
                                      "Add or remove a board's port while the daemon runs (no udev); the "
                                      "configuration file wins again on a reload (SIGHUP)");
  port->require_subcommand(1);
  CLI::App* add = command(*port, "add",
                          "Start board ID on the serial device PORT; with --protocol none, a board without a "
                          "device (no PORT: its moves are typed with `eboardctl move`)" +
                              control_note,
                          v->t);
  add->add_option("ID", v->id, "the new board's id")->required();
  add->add_option("PORT", v->port, "its device path, e.g. /dev/ttyUSB0 (none with --protocol none)");
  add->add_option("--protocol", v->protocol,
                  "the board's protocol (" + session::protocol_names() + "; none: no device)")
      ->capture_default_str();
  add->callback([v, &exit_code] {
    json body{{"id", v->id}, {"protocol", v->protocol}};
    if (v->protocol != "none") {
      if (v->port.empty()) {
        std::cerr
            << "eboardctl: port add: PORT is required (or --protocol none for a board without a device)\n";
        exit_code = EXIT_USAGE;
        return;
      }
      body["port"] = v->port;
    } else if (!v->port.empty()) {
      std::cerr << "eboardctl: port add: a board with --protocol none has no PORT\n";
      exit_code = EXIT_USAGE;
      return;
    }
    exit_code = run(v->t, bhttp::verb::post, "/boards", body, true);
  });
  CLI::App* remove =
      command(*port, "remove", "Stop board ID and forget it until a reload" + control_note, v->t);
  remove->add_option("ID", v->id, "the board's id")->required();
  remove->callback(
      [v, &exit_code] { exit_code = run(v->t, bhttp::verb::delete_, "/boards/" + v->id, nullptr, true); });
}

}  // namespace eboard::tools
