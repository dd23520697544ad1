// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/control.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <future>

#include <spdlog/spdlog.h>

#include "daemon/core/event_json.hpp"
#include "daemon/session/board_protocol.hpp"
#include "rules/notation.hpp"

namespace eboard::eboardd {

using nlohmann::json;
using namespace eboard::rules;

namespace {

std::string utc_time(std::int64_t ms) {
  std::time_t s = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&s, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string clock_text(std::int64_t ms) {
  if (ms < 0) return "?";
  std::int64_t s = ms / 1000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  return buf;
}

const char* color_name(Color c) { return c == WHITE ? "white" : "black"; }

json clock_json(const ClockTimes& c) {
  if (!c.known()) return nullptr;
  return {{"white", c.white_ms}, {"black", c.black_ms}};
}

json game_json(const BoardRuntime& b) {
  const Game& g = b.game();
  json j{{"number", b.ledger().game_number()},
         {"ply", g.ply_count()},
         {"result", g.outcome() ? result_string(g.outcome()->result) : "*"}};
  if (g.outcome()) j["reason"] = g.outcome()->reason;
  return j;
}

json adjournment_json(const Reconstructor::Adjournment& a) {
  // The sealed move itself is never shown (Guidelines I): only that there is one.
  return {{"sealed_by", color_name(a.sealer)},
          {"ply", a.ply},
          {"move_number", a.ply / 2 + 1},
          {"clock", clock_json(a.clock)},
          {"since", a.t_ms}};
}

}  // namespace

nlohmann::json missed_gap_json(const Reconstructor& rec, const std::vector<std::size_t>* order,
                               bool by_engine, const std::vector<double>* shares) {
  const auto& gap = *rec.missed_gap();
  // Longer than the search reaches: no candidates, no last ply; recover takes the moves typed.
  if (gap.past_bound())
    return {{"first_ply", gap.first_ply},  {"length_unknown", true}, {"past_bound", true},
            {"candidates", json::array()}, {"candidates_total", 0},  {"ranked_by", "rules"}};
  const Game& g = rec.game();
  // (An engine's order is not the shares': they weigh the rules' costs.)
  const bool weighed = !order && shares && shares->size() == gap.candidates.size();
  double listed = 0;
  json candidates = json::array();
  for (std::size_t i = 0; i < gap.candidates.size() && i < Reconstructor::kShownCandidates; ++i) {
    const auto& seq = gap.candidates[order ? (*order)[i] : i];
    Position p = g.position_at(std::max(0, gap.first_ply - 1));
    json uci = json::array(), san = json::array();
    for (Move m : seq) {
      uci.push_back(to_uci(p, m));
      san.push_back(to_san(p, m));
      p.do_move(m);
    }
    candidates.push_back({{"number", i + 1}, {"uci", uci}, {"san", san}});
    if (weighed) {
      candidates.back()["share"] = std::round((*shares)[i] * 1000) / 1000;
      listed += (*shares)[i];
    }
  }
  // Its length unknown (the candidates within the search's bound, a longer story past it, or a detour the
  // clock did not count): recover takes a candidate or the moves typed, of any number.
  json out = {{"first_ply", gap.first_ply},
              {"candidates", candidates},
              {"candidates_total", gap.candidates.size()},
              {"ranked_by", order && by_engine ? "engine" : "rules"}};
  if (weighed) out["listed_share"] = std::round(listed * 1000) / 1000;
  // (A gap its clock did not count: the candidates' last ply, and longer stories may be the one played.)
  if (gap.holds_moves()) out["length_unknown"] = true;
  // (Told at the shortest stories' length on a clock that counts no presses: a longer one may be the one.)
  if (gap.length_uncertain) out["length_uncertain"] = true;
  // (The shortest candidate's last ply, as the alert told it: an Uncounted gap may list longer ones too.)
  if (!gap.holds_moves() || gap.length == Reconstructor::MissedGap::Length::Uncounted)
    out["last_ply"] = gap.first_ply + int(gap.shortest_plies()) - 1;
  return out;
}

namespace {

// The missed gap's candidate at `index` (of its list in the rules' order), as UCI moves separated by spaces.
std::string candidate_moves(const Reconstructor& rec, std::size_t index) {
  const auto& gap = *rec.missed_gap();
  Position p = rec.game().position_at(std::max(0, gap.first_ply - 1));
  std::string text;
  for (Move m : gap.candidates[index]) {
    text += (text.empty() ? "" : " ") + to_uci(p, m);
    p.do_move(m);
  }
  return text;
}

// A JSON field as a side, a 400 answer when it is not one.
tl::expected<std::string, http::Response> side_field(const json& body) {
  if (!body.contains("side"))
    return tl::unexpected(control_error(400, "missing \"side\" (\"white\" or \"black\")"));
  const json& v = body["side"];
  std::string s = v.is_string() ? v.get<std::string>() : "";
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (s == "w") s = "white";
  if (s == "b") s = "black";
  if (s != "white" && s != "black")
    return tl::unexpected(control_error(400, "\"side\" must be \"white\" or \"black\", not " + v.dump()));
  return s;
}

bool valid_board_id(const std::string& id) {
  return !id.empty() && id.size() <= 32 && std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
}

// A clock time: milliseconds, or "h:mm:ss" / "m:ss" as a clock shows it.
std::optional<std::int64_t> clock_ms(const json& v) {
  if (v.is_number_integer()) {
    long long ms = v.get<long long>();
    return ms >= 0 && ms < 100LL * 3600 * 1000 ? std::optional<std::int64_t>(ms) : std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  const std::string& text = v.get_ref<const std::string&>();
  std::vector<std::string> parts{""};
  for (char c : text) {
    if (c == ':')
      parts.emplace_back();
    else if (std::isdigit(static_cast<unsigned char>(c)) && parts.back().size() < 3)
      parts.back() += c;
    else
      return std::nullopt;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  std::int64_t total = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].empty()) return std::nullopt;
    int n = std::stoi(parts[k]);
    if (k > 0 && (n > 59 || parts[k].size() != 2)) return std::nullopt;
    total = total * 60 + n;
  }
  return total * 1000;
}

// One typed move of a "moves" body: its text and the clocks after it (-1: not given).
struct TypedMove {
  std::string text;
  std::int64_t white_ms = -1, black_ms = -1;
};

tl::expected<TypedMove, std::string> typed_move(const json& item, const json* clock) {
  TypedMove m;
  const json* text = &item;
  if (item.is_object()) {
    for (const auto& [k, v] : item.items())
      if (k != "move" && k != "clock")
        return tl::unexpected("unknown field \"" + k + "\" in a move (move, clock)");
    if (!item.contains("move")) return tl::unexpected(std::string("a move object needs \"move\""));
    text = &item["move"];
    clock = item.contains("clock") ? &item["clock"] : nullptr;
  }
  if (!text->is_string() || text->get_ref<const std::string&>().empty() ||
      text->get_ref<const std::string&>().size() > 16)
    return tl::unexpected("a move is its SAN or UCI text (e.g. \"Nf3\" or \"g1f3\"), not " + text->dump());
  m.text = text->get<std::string>();
  if (clock && !clock->is_null()) {
    const json& c = *clock;
    auto w = c.is_object() && c.contains("white") ? clock_ms(c["white"]) : std::nullopt;
    auto b = c.is_object() && c.contains("black") ? clock_ms(c["black"]) : std::nullopt;
    if (!w || !b || c.size() != 2)
      return tl::unexpected("\"clock\" is {\"white\": ms, \"black\": ms} (or \"h:mm:ss\" texts), not " +
                            c.dump());
    m.white_ms = *w;
    m.black_ms = *b;
  }
  return m;
}

// POST /control/<board>/moves: moves typed for a board without wood, all of them played or none.
http::Response typed_moves(BoardRuntime& b, const json& body) {
  if (b.options().protocol != config::NO_DEVICE)
    return control_error(409, "board " + b.id() +
                                  " has a device: its moves come from the board (typed moves are for a "
                                  "board without a device, protocol = \"none\")");
  for (const auto& [k, v] : body.items())
    if (k != "moves" && k != "move" && k != "clock")
      return control_error(400, "unknown field \"" + k + "\" (moves, or move with clock)");
  std::vector<json> items;
  const json* clock = body.contains("clock") ? &body["clock"] : nullptr;
  if (body.contains("moves") == body.contains("move"))
    return control_error(400,
                         "give \"moves\" (a list, or a text of moves separated by spaces) or one \"move\"");
  if (body.contains("move")) {
    items.push_back(body["move"]);
  } else if (body["moves"].is_array()) {
    if (clock)
      return control_error(400, "\"clock\" goes with one \"move\" (or inside each move of the list)");
    for (const auto& m : body["moves"]) items.push_back(m);
  } else if (body["moves"].is_string()) {
    if (clock)
      return control_error(400, "\"clock\" goes with one \"move\" (or inside each move of the list)");
    const std::string& text = body["moves"].get_ref<const std::string&>();
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
      std::size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != ',') ++j;
      std::string token = text.substr(i, j - i);
      i = j;
      // Move numbers as written in a score ("1.", "12...", "1.e4") are not moves.
      std::size_t dots = token.find_last_of('.');
      if (dots != std::string::npos &&
          std::all_of(token.begin(), token.begin() + std::ptrdiff_t(token.find('.')),
                      [](unsigned char c) { return std::isdigit(c); }))
        token = token.substr(dots + 1);
      if (!token.empty()) items.push_back(token);
    }
  } else {
    return control_error(400, "\"moves\" must be a list of moves or a text of moves separated by spaces");
  }
  if (items.empty()) return control_error(400, "no move given");
  if (items.size() > 600) return control_error(400, "at most 600 moves at once");
  std::vector<TypedMove> moves;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto m = typed_move(items[i], clock);
    if (!m) return control_error(400, "move " + std::to_string(i + 1) + ": " + m.error());
    moves.push_back(std::move(*m));
  }
  const Reconstructor* live = b.reconstructor();
  if (!live) return control_error(409, "the board is not running");
  if (const auto& o = b.game().outcome())
    return control_error(409, "the game is over (" + result_string(o->result) + ")");
  if (live->adjournment()) return control_error(409, "the game is adjourned: resume it first");
  // Tried on a copy first: a list with a wrong move changes nothing, and its answer names that move.
  Reconstructor trial = *live;
  const std::int64_t now = b.now_ms();
  for (std::size_t i = 0; i < moves.size(); ++i) {
    ClockTimes c;
    if (moves[i].white_ms >= 0) c = {moves[i].white_ms, moves[i].black_ms};
    if (auto ok = trial.enter_move(moves[i].text, c, now); !ok) {
      json err{{"error", "move " + std::to_string(i + 1) + " of " + std::to_string(moves.size()) + ", " +
                             ok.error() + "; no move of this request was played"},
               {"move", moves[i].text},
               {"index", i + 1},
               {"reason", ok.error()}};
      return http::Response::json(400, err.dump(-1, ' ', false, json::error_handler_t::replace));
    }
  }
  json published = json::array();
  for (const TypedMove& m : moves) {
    journal::ControlEntry c;
    c.action = "move";
    c.value = m.text;
    c.white_ms = m.white_ms;
    c.black_ms = m.black_ms;
    auto evs = b.control(c);
    if (!evs) return control_error(409, "move '" + m.text + "': " + evs.error());  // not after the trial
    for (const Event& e : *evs) published.push_back(daemon::to_json(e));
  }
  spdlog::info("board {}: {} move(s) typed", b.id(), moves.size());
  json answer{{"board", b.id()}, {"action", "moves"}, {"events", published}, {"game", game_json(b)}};
  return http::Response::json(200, answer.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace

http::Response control_error(unsigned status, const std::string& reason) {
  return http::Response::json(status,
                              json{{"error", reason}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

namespace {

// One PendingAnswers an io_context; its answers given up when the io_context is destroyed.
class PendingAnswersService : public boost::asio::execution_context::service {
 public:
  using key_type = PendingAnswersService;
  static inline boost::asio::execution_context::id id;
  explicit PendingAnswersService(boost::asio::execution_context& ctx)
      : boost::asio::execution_context::service(ctx) {}
  PendingAnswers answers;

 private:
  void shutdown() override { answers.abandon(); }
};

http::Response stopped_before(const std::string& what) {
  return control_error(503, "the daemon stopped before " + what + " was done");
}

}  // namespace

void PendingAnswers::add(std::weak_ptr<std::promise<http::Response>> answer, std::string what) {
  std::lock_guard lock(mutex_);
  std::erase_if(pending_, [](const auto& p) { return p.first.expired(); });
  pending_.emplace_back(std::move(answer), std::move(what));
}

std::size_t PendingAnswers::abandon() {
  decltype(pending_) pending;
  {
    std::lock_guard lock(mutex_);
    pending.swap(pending_);
  }
  std::size_t given_up = 0;
  for (auto& [weak, what] : pending) {
    auto answer = weak.lock();
    if (!answer) continue;
    try {
      answer->set_value(stopped_before(what));
      ++given_up;
    } catch (const std::future_error&) {
      // Settled already: that answer stands.
    }
  }
  return given_up;
}

PendingAnswers& pending_answers(boost::asio::io_context& io) {
  return boost::asio::use_service<PendingAnswersService>(io).answers;
}

LaterAnswer later_answer(boost::asio::io_context& io, std::chrono::milliseconds within, std::string what,
                         std::string advice) {
  auto answer = std::make_shared<std::promise<http::Response>>();
  auto ready = std::make_shared<std::shared_future<http::Response>>(answer->get_future().share());
  pending_answers(io).add(answer, what);
  LaterAnswer later;
  later.settle = [answer](http::Response r) {
    try {
      answer->set_value(std::move(r));
    } catch (const std::future_error&) {
      // Settled already: the first answer stands.
    }
  };
  later.response = [ready, within, what = std::move(what), advice = std::move(advice)]() -> http::Response {
    if (ready->wait_for(std::chrono::seconds(0)) == std::future_status::ready) return ready->get();
    http::Response res;
    res.deferred = [ready, within, what, advice]() -> http::Response {
      if (ready->wait_for(within) != std::future_status::ready)
        return control_error(
            504, what + " is not done after " + std::to_string(within.count() / 1000) + " s: " + advice);
      try {
        return ready->get();
      } catch (const std::future_error&) {
        return stopped_before(what);
      }
    };
    return res;
  };
  return later;
}

tl::expected<std::vector<Event>, std::string> BoardRuntime::control(journal::ControlEntry c) {
  c.t_ms = now_ms();
  if (c.action == "ack") {
    // An acknowledgement is the daemon's record, not reconstruction's: the ledger keeps it. (A match
    // board's journal is the match's: there it is not journaled, and a restart forgets it.)
    int n = 0;
    try {
      n = std::stoi(c.value);
    } catch (const std::exception&) {
      n = 0;
    }
    if (!ledger_.acknowledge(n))
      return tl::unexpected("no alert " + c.value + " in this game (" +
                            std::to_string(ledger_.alert_count()) + " so far)");
    c.value = std::to_string(n);
    if (!options_.match_member) {
      append(c);
      want_sync(true);  // durable off the loop (when_durable tells when)
    }
    return std::vector<Event>{};
  }
  if (!source_) return tl::unexpected(std::string("the board is not running"));
  // A bughouse match board: the match applies it to both games, journals and publishes it itself.
  if (options_.match_member) return source_->control(c);
  auto evs = source_->control(c);
  if (!evs) return evs;
  append(c);  // before its events: recovery replays it at the same point
  control_applied(c);
  // Made durable by the syncer, off the loop; its events are published once it is (when_durable).
  want_sync(true);
  events(*evs);
  return evs;
}

std::optional<http::Response> control_action(BoardRuntime& b, const std::string& action, const json& body,
                                             const std::string& match) {
  static const char* handled[] = {"promotion", "ack",    "draw",    "resign",
                                  "adjourn",   "resume", "recover", "adopt"};
  if (action == "moves" || action == "move") return typed_moves(b, body);
  if (std::none_of(std::begin(handled), std::end(handled), [&](const char* a) { return action == a; }))
    return std::nullopt;
  // A bughouse match board: resignation, agreement and the promotion piece go to the match (a draw
  // agreement ends the match, FQE 17); bughouse games are not adjourned. A configured match whose boards
  // run alone (the match not running) takes none of these.
  if (!match.empty() && action != "ack" &&
      (action == "adjourn" || action == "resume" || !b.options().match_member))
    return control_error(409,
                         "board " + b.id() + " is in the bughouse match " + match + ": " + action +
                             (b.options().match_member ? " does not apply to a bughouse game"
                                                       : " is not supported while the match is not running"));

  journal::ControlEntry c;
  c.action = action;
  json answer{{"board", b.id()}, {"action", action}};
  if (action == "promotion" || action == "resign" || action == "adjourn") {
    auto side = side_field(body);
    if (!side) return side.error();
    c.side = *side;
  }
  if (action == "promotion") {
    const json& p = body.contains("piece") ? body["piece"] : json();
    std::string s = p.is_string() ? p.get<std::string>() : "";
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if (s == "queen") s = "q";
    if (s == "rook") s = "r";
    if (s == "bishop") s = "b";
    if (s == "knight") s = "n";
    if (s.size() != 1 || std::string("qrbn").find(s[0]) == std::string::npos)
      return control_error(400, "\"piece\" must be one of q, r, b, n (or queen, rook, bishop, knight)");
    c.value = s;
    answer["side"] = c.side;
    answer["piece"] = s;
  } else if (action == "ack") {
    const json& a = body.contains("alert") ? body["alert"] : json();
    if (a.is_number_integer()) {
      c.value = std::to_string(a.get<long long>());
    } else if (a.is_string() && !a.get<std::string>().empty() &&
               std::all_of(a.get<std::string>().begin(), a.get<std::string>().end(),
                           [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
      c.value = a.get<std::string>();
    } else {
      return control_error(400,
                           "\"alert\" must be the alert's number (see /status: boards[].control.alerts)");
    }
  } else if (action == "recover") {
    // The gap of a moves-missed alert: a candidate's number as /status shows it, or the moves as typed.
    const bool has_candidate = body.contains("candidate"), has_moves = body.contains("moves");
    if (has_candidate == has_moves)
      return control_error(400,
                           "give either \"candidate\" (its number, see /status: boards[].control.missed_gap) "
                           "or \"moves\" (the gap's moves, e.g. \"g7g6 f2f3 f8g7\")");
    if (has_candidate) {
      const json& n = body["candidate"];
      if (!n.is_number_integer() || n.get<long long>() < 1 || n.get<long long>() > 999)
        return control_error(400, "\"candidate\" must be a candidate's number (1, 2, …), not " + n.dump());
      c.value = std::to_string(n.get<long long>());
      answer["candidate"] = n;
      // Journaled as the moves of the candidate shown as that number, not the number: the order is the
      // ranking's (its weights, the opening lines in use) or an engine's, neither of which a replay by
      // another start of the daemon need share; the moves it settles alike.
      const std::vector<std::size_t>* order = b.shown_order();
      const std::size_t shown = n.get<std::size_t>();
      const rules::Reconstructor* rec = b.reconstructor();
      if (order ? shown <= order->size()
                : rec && rec->missed_gap() && shown <= rec->missed_gap()->candidates.size())
        c.value = candidate_moves(*rec, order ? (*order)[shown - 1] : shown - 1);
    } else {
      const json& m = body["moves"];
      std::string text = m.is_string() ? m.get<std::string>() : "";
      // At most 8 plies of a few characters each: a long text is no gap's moves.
      if (text.find_first_not_of(" ,") == std::string::npos || text.size() > 200 ||
          std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch); }))
        return control_error(400, "\"moves\" must be the gap's moves in UCI or SAN separated by spaces");
      c.value = text;
      answer["moves"] = text;
    }
  } else if (action == "adopt") {
    if (body.contains("side")) {
      auto side = side_field(body);
      if (!side) return side.error();
      c.side = *side;
      answer["side"] = c.side;
    }
  } else if (action == "adjourn") {
    const json& s = body.contains("sealed") ? body["sealed"] : json();
    if (!s.is_string() || s.get<std::string>().empty() || s.get<std::string>().size() > 16)
      return control_error(400, "\"sealed\" must be the sealed move as written (SAN or UCI, e.g. \"Nf3\")");
    c.value = s.get<std::string>();
  }

  const Reconstructor* rec = b.reconstructor();
  bool board_showed_position = rec && rec->board_matches_game();
  auto evs = b.control(c);
  if (!evs) return control_error(action == "ack" ? 404 : 409, evs.error());

  json published = json::array();
  for (const Event& e : *evs) published.push_back(daemon::to_json(e));
  answer["events"] = published;
  if (action == "adjourn") {
    rec = b.reconstructor();
    if (rec && rec->adjournment()) {
      const auto& a = *rec->adjournment();
      answer["adjourned"] = adjournment_json(a);
      // Told to the arbiter who entered it (a typo would lose the game at the resumption, I.8).
      Position pos = b.game().position();
      bool playable = parse_uci(pos, a.sealed).has_value() || parse_san(pos, a.sealed).has_value();
      answer["sealed_move_playable"] = playable;
      std::string note = std::string(a.sealer == WHITE ? "White" : "Black") + " sealed move " +
                         std::to_string(a.ply / 2 + 1) + " at " + utc_time(a.t_ms);
      if (a.clock.known())
        note += "; clocks White " + clock_text(a.clock.white_ms) + ", Black " + clock_text(a.clock.black_ms);
      b.set_tags({{"Adjourned", note}, {"Resumed", ""}});
    }
  } else if (action == "resume") {
    answer["board_showed_position"] = board_showed_position;
    b.set_tags({{"Resumed", utc_time(b.now_ms())}});
  }
  answer["game"] = game_json(b);
  spdlog::info("board {}: control {}{}", b.id(), action, c.side.empty() ? "" : " (" + c.side + ")");
  return http::Response::json(200, answer.dump());
}

tl::expected<config::BoardConfig, std::string> board_from_json(const json& body) {
  config::BoardConfig bc;
  auto str = [&](const char* key) -> tl::expected<std::optional<std::string>, std::string> {
    if (!body.contains(key)) return std::optional<std::string>{};
    if (!body[key].is_string()) return tl::unexpected(std::string("\"") + key + "\" must be a string");
    return std::optional<std::string>(body[key].get<std::string>());
  };
  for (const auto& [k, v] : body.items())
    if (k != "id" && k != "port" && k != "protocol" && k != "rules" && k != "chess960" && k != "raw_log")
      return tl::unexpected("unknown field \"" + k + "\" (id, port, protocol, rules, chess960, raw_log)");
  auto id = str("id");
  if (!id) return tl::unexpected(id.error());
  if (!*id || !valid_board_id(**id))
    return tl::unexpected(std::string("\"id\" must be 1 to 32 letters, digits, '_' or '-'"));
  bc.id = **id;
  auto port = str("port");
  if (!port) return tl::unexpected(port.error());
  auto protocol = str("protocol");
  if (!protocol) return tl::unexpected(protocol.error());
  if (*protocol) {
    if (!session::find_protocol(**protocol) && **protocol != config::NO_DEVICE)
      return tl::unexpected("protocol '" + **protocol + "' is not supported by the daemon yet (supported: " +
                            session::protocol_names() + "; \"none\" for a board without a device)");
    bc.protocol = **protocol;
  }
  // A board without wood is asked for by name, as in the configuration: a port left out stays a mistake.
  if (bc.woodless()) {
    if (*port || body.contains("raw_log"))
      return tl::unexpected(
          std::string("protocol \"none\" is a board without a device: no \"port\" nor "
                      "\"raw_log\" (its moves are typed, its result entered)"));
    bc.raw_log = false;
  } else {
    if (!*port || (*port)->empty() || (**port)[0] != '/')
      return tl::unexpected(
          std::string("\"port\" must be a device path such as /dev/ttyUSB0 (or give "
                      "\"protocol\": \"none\" for a board without a device)"));
    bc.port = **port;
  }
  auto rules = str("rules");
  if (!rules) return tl::unexpected(rules.error());
  if (*rules) {
    if (!profile_by_name(**rules)) return tl::unexpected("unknown rules profile '" + **rules + "'");
    bc.rules = **rules;
  }
  for (const char* key : {"chess960", "raw_log"}) {
    if (!body.contains(key)) continue;
    if (!body[key].is_boolean()) return tl::unexpected(std::string("\"") + key + "\" must be true or false");
    (std::string(key) == "chess960" ? bc.chess960 : bc.raw_log) = body[key].get<bool>();
  }
  return bc;
}

void add_control_status(json& status, const std::vector<std::unique_ptr<BoardRuntime>>& boards) {
  if (!status.contains("boards") || !status["boards"].is_array()) return;
  json& out = status["boards"];
  for (std::size_t i = 0; i < boards.size() && i < out.size(); ++i) {
    const BoardRuntime& b = *boards[i];
    const journal::Ledger& l = b.ledger();
    // The ledger keeps the game's last notes; the alerts among them end with number alert_count().
    json alerts = json::array();
    int number = l.alert_count();
    const auto& notes = l.notes();
    for (auto it = notes.rbegin(); it != notes.rend() && number > 0; ++it) {
      const auto* a = std::get_if<AlertEvent>(&it->what);
      if (!a) continue;
      alerts.insert(alerts.begin(), json{{"number", number},
                                         {"code", a->code},
                                         {"ply", a->ply},
                                         {"side", color_name(a->side)},
                                         {"detail", a->detail},
                                         {"t", it->t_ms},
                                         {"acknowledged", l.acknowledged(number)}});
      --number;
    }
    int open = 0;
    for (int n = 1; n <= l.alert_count(); ++n) open += l.acknowledged(n) ? 0 : 1;
    json control{
        {"alerts", alerts}, {"unacknowledged_alerts", open}, {"adjourned", nullptr}, {"missed_gap", nullptr}};
    const Reconstructor* rec = b.reconstructor();
    if (rec && rec->adjournment()) control["adjourned"] = adjournment_json(*rec->adjournment());
    if (rec && rec->missed_gap())
      control["missed_gap"] = missed_gap_json(*rec, b.shown_order(), b.shown_by_engine(), b.gap_shares());
    // The last gap recovered as its one story where a longer one may be the one played: `recover` with the
    // moves typed still corrects it (Reconstructor::uncertain_recovery).
    if (rec && !rec->missed_gap() && rec->uncertain_recovery())
      control["recovered_gap"] = {
          {"first_ply", rec->uncertain_recovery()->first_ply},
          {"last_ply", rec->uncertain_recovery()->first_ply + rec->uncertain_recovery()->plies - 1},
          {"length_uncertain", true}};
    out[i]["control"] = control;
  }
}

}  // namespace eboard::eboardd
