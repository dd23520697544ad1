// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/mqtt/remote_board.hpp"

#include "daemon/journal/recovery.hpp"
#include "rules/notation.hpp"
#include "rules/position.hpp"

namespace eboard::mqtt {

using nlohmann::json;

RemoteBoard::RemoteBoard(std::string host, std::string board)
    : host_(std::move(host)),
      board_(std::move(board)),
      id_(host_ + ":" + board_),
      game_(rules::Position::start()) {}

void RemoteBoard::begin_game(int number, std::int64_t t_ms) {
  if (game_.ply_count() > 0 || game_.outcome()) {
    if (earlier_.size() >= 64) earlier_.erase(earlier_.begin());
    earlier_.push_back({game_, tags_, started_ms_, game_number_, last_event_ms_});
  }
  rules::Position start = rules::Position::start(variant_);
  if (number == start_fen_game_ && !start_fen_.empty())
    if (auto p = rules::Position::from_fen(start_fen_, variant_, start_chess960_)) start = *p;
  game_ = rules::Game(start);
  game_number_ = number;
  started_ms_ = t_ms;
  gap_told_ = false;
  last_move_ply_ = 0;
  held_gap_.reset();
  settling_.clear();
  over_limit_told_ = false;
  result_ms_ = 0;
  lines_.clear();
  problems_.clear();
  game_problems_.clear();
}

void RemoteBoard::use_variant(rules::Variant v) {
  if (variant_ == v) return;
  variant_ = v;
  if (auto p = rules::Position::from_fen(game_.start().fen(), v, game_.start().chess960()))
    replay_from(*p);
  else
    replay_from(rules::Position::start(v));
}

void RemoteBoard::replay_from(const rules::Position& start) {
  game_ = rules::Game(start);
  game_problems_.clear();
  held_gap_.reset();
  settling_.clear();
  result_ms_ = 0;
  for (const std::string& line : lines_) {
    const json ev = json::parse(line, nullptr, false);
    if (!ev.is_discarded()) apply(ev);
  }
}

namespace {

// A field as what a host should send, or `none` when it is missing or of another type: a hall's payloads are
// read, never thrown on.
std::string text_of(const json& j, const char* name, const std::string& none = "") {
  const auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : none;
}

bool flag_of(const json& j, const char* name) {
  const auto it = j.find(name);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

int int_of(const json& j, const char* name, int none) {
  const auto it = j.find(name);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : none;
}

// What every event is read by: its type, time, ply and whether it is a recovered move.
struct EventFields {
  std::string type;
  std::int64_t t = 0;
  int ply = 0;
  bool recovered = false;
};

EventFields fields_of(const json& ev) {
  if (!ev.is_object()) return {};
  EventFields f;
  f.type = text_of(ev, "type");
  const auto t = ev.find("t");
  f.t = t != ev.end() && t->is_number_integer() ? t->get<std::int64_t>() : 0;
  f.ply = int_of(ev, "ply", 0);
  f.recovered = f.type == "move" && flag_of(ev, "recovered");
  return f;
}

rules::PieceType dropped_type(char c) {
  switch (c) {
    case 'P':
    case 'p':
      return rules::PAWN;
    case 'N':
    case 'n':
      return rules::KNIGHT;
    case 'B':
    case 'b':
      return rules::BISHOP;
    case 'R':
    case 'r':
      return rules::ROOK;
    case 'Q':
    case 'q':
      return rules::QUEEN;
    default:
      return rules::NO_PIECE_TYPE;
  }
}

}  // namespace

void RemoteBoard::take_drop(rules::PieceType t) {
  if (t == rules::NO_PIECE_TYPE) return;
  if (!rules::has_drops(game_.position().variant())) use_variant(rules::Variant::Bughouse);
  // Crazyhouse: the board's own captures fill the pockets, and a drop of a piece not there is a problem.
  if (game_.position().variant() == rules::Variant::Crazyhouse) return;
  const rules::Color side = game_.position().side_to_move();
  if (game_.position().pocket(side, t) == 0) game_.add_to_pocket(side, t);
}

void RemoteBoard::problem(std::string text) {
  if (problems_.size() < MAX_PROBLEMS) problems_.push_back(std::move(text));
}

void RemoteBoard::game_problem(std::string text) {
  if (game_problems_.size() < MAX_PROBLEMS) game_problems_.push_back(std::move(text));
}

std::vector<std::string> RemoteBoard::problems() const {
  std::vector<std::string> all = problems_;
  all.insert(all.end(), game_problems_.begin(), game_problems_.end());
  if (all.size() > MAX_PROBLEMS) all.resize(MAX_PROBLEMS);
  return all;
}

bool RemoteBoard::take(const Envelope& e, bool kept) {
  if (!(last_ < e.id)) {
    ++duplicates_;
    return false;
  }
  const json& ev = e.event;
  const auto [type, t, ply, recovered] = fields_of(ev);
  // Lost on the way: a move past the next ply, or an event whose predecessor at its host was not taken
  // (a game's tail, its result: nothing in the next game's first move tells those).
  // (Counted in the host's plies: a move this board could not apply, its start not told yet, is no hole.)
  const bool lost =
      !kept && !gap_told_ &&
      ((type == "move" && ply > last_move_ply_ + 1) || (taken_ > 0 && e.after && last_ < *e.after));
  if (e.resend == 0 && (hole_ || lost)) {
    if (!hole_) hole_ = last_;
    ++waiting_;  // told again in the resend, in its place
    return false;
  }
  if (lines_.size() >= MAX_GAME_EVENTS && !(type == "move" && ply == 1)) {
    // A game longer than any played: what follows is dropped (the host's own record keeps it).
    ++over_limit_;
    if (!over_limit_told_)
      problem("more than " + std::to_string(MAX_GAME_EVENTS) + " events in game " +
              std::to_string(game_number_) + ": the later ones are not taken");
    over_limit_told_ = true;
    if (e.resend == 2) hole_.reset();
    last_ = e.id;
    return false;
  }
  if (e.resend == 2) hole_.reset();
  last_ = e.id;
  ++taken_;
  // A first move while the game has moves: the pieces were set up again (the host's game numbers are
  // informative only: they are counted from the journal's records, which do not mark every new game).
  // (Not a recovered one: a gap from the first ply told again, its moves settled by the arbiter.)
  if (type == "move" && ply == 1 && game_.ply_count() > 0 && !recovered)
    begin_game(std::max(e.game, game_number_ + 1), t);
  if (type == "move") {
    if (ply > last_move_ply_ + 1) gap_told_ = true;  // a hole in what was resent: the host has no more
    // (The highest: the arbiter's moves for a gap come after the moves since, at the gap's plies.)
    last_move_ply_ = std::max(last_move_ply_, ply);
  } else if (const auto gap = told_gap(ev)) {
    last_move_ply_ = std::max(last_move_ply_, gap->last_ply);  // the moves since come at their plies
  }
  if (game_number_ == 0) game_number_ = std::max(1, e.game);
  if (started_ms_ == 0) started_ms_ = t;
  apply(ev);
  lines_.push_back(served_line(e));
  return true;
}

void RemoteBoard::apply(const json& ev) {
  if (!ev.is_object()) return;
  const auto [type, t, ply, recovered] = fields_of(ev);
  if (const auto gap = told_gap(ev)) hold_gap(*gap, t);
  if (recovered && settle_held_gap(ply, text_of(ev, "uci"), journal::event_clock(ev), t)) {
    // (A move of the held gap: gathered, or put in the candidate's place with the rest.)
  } else if (type == "move") {
    const std::string uci = text_of(ev, "uci");
    // A recovered move that is another move at a ply the game holds (the host's gap settled with another
    // length: its plies and those since told again, rules::Reconstructor::settle_gap_length) takes the game
    // back to there, and is played below as the next.
    if (recovered && ply >= 1 && ply <= game_.ply_count() && uci.find('@') == std::string::npos &&
        rules::to_uci(game_.position_at(ply - 1), game_.plies()[std::size_t(ply - 1)].move) != uci)
      while (game_.ply_count() >= ply) game_.undo();
    if (ply != game_.ply_count() + 1) {
      if (ply > game_.ply_count() + 1)
        game_problem("ply " + std::to_string(ply) + " " + uci + ": after a hole");
      // A move already in the game (a recovered one told again) changes nothing.
    } else if (flag_of(ev, "illegal")) {
      // The host let it stand (FIDE A.4.2): the game goes on from the position it left, which the record
      // shows as a new segment (SetUp/FEN), as the host's own PGN does.
      const rules::Square from = uci.size() >= 4 ? rules::parse_square(uci.substr(0, 2)) : rules::SQ_NONE;
      const rules::Square to = uci.size() >= 4 ? rules::parse_square(uci.substr(2, 2)) : rules::SQ_NONE;
      tl::expected<rules::Position, std::string> after = tl::unexpected(std::string("not a move"));
      if (from != rules::SQ_NONE && to != rules::SQ_NONE)
        after = game_.position().after_illegal_move(from, to);
      if (after)
        game_.play_illegal(rules::Move::make(from, to), std::move(*after), journal::event_clock(ev), t);
      else
        game_problem("ply " + std::to_string(ply) + " " + uci + ": an illegal move that stood, " +
                     after.error());
    } else {
      if (uci.size() == 4 && uci[1] == '@') take_drop(dropped_type(uci[0]));
      if (auto m = rules::parse_uci(game_.position(), uci)) {
        game_.play(*m, journal::event_clock(ev), t);
        if (recovered) game_.mark_last(true, false);
      } else {
        game_problem("ply " + std::to_string(ply) + " " + uci + ": " + m.error());
      }
    }
  } else if (type == "result") {
    game_.set_outcome(
        rules::Outcome{journal::parse_result(text_of(ev, "result", "*")), text_of(ev, "reason")});
    result_ms_ = t;
  }
  if (type == "move" || type == "result") last_event_ms_ = std::max(last_event_ms_, t);
}

std::optional<RemoteBoard::ToldGap> RemoteBoard::told_gap(const json& ev) {
  if (!ev.is_object() || text_of(ev, "type") != "alert" || text_of(ev, "code") != "moves-missed" ||
      flag_of(ev, "length_unknown"))
    return std::nullopt;
  const json* list = ev.contains("candidates") ? &ev["candidates"] : nullptr;
  if (!list || !list->is_array() || list->empty() || !(*list)[0].is_array() || !ev.contains("first_ply") ||
      !ev["first_ply"].is_number_integer())
    return std::nullopt;
  ToldGap gap;
  gap.first_ply = ev["first_ply"].get<int>();
  for (const json& m : (*list)[0])
    if (m.is_string()) gap.first.push_back(m.get<std::string>());
  gap.last_ply = gap.first_ply + int(gap.first.size()) - 1;
  if (gap.first_ply < 1 || gap.first.empty()) return std::nullopt;
  return gap;
}

void RemoteBoard::hold_gap(const ToldGap& gap, std::int64_t t_ms) {
  // Told again from the same ply (its first alert superseded): the moves held for it give way.
  if (held_gap_ && held_gap_->first_ply == gap.first_ply && game_.ply_count() == held_gap_->last_ply)
    while (game_.ply_count() >= gap.first_ply) game_.undo();
  held_gap_.reset();
  settling_.clear();
  if (gap.first_ply != game_.ply_count() + 1) return;
  // The host goes on from one of the gap's candidates (the first), never shown as fact (missed): the moves
  // since come at their plies, and the arbiter's moves, recovered, take the candidate's place.
  for (const std::string& uci : gap.first) {
    auto m = rules::parse_uci(game_.position(), uci);
    if (!m) {
      game_problem("ply " + std::to_string(game_.ply_count() + 1) + " " + uci + ": a gap's candidate, " +
                   m.error());
      while (game_.ply_count() >= gap.first_ply) game_.undo();
      return;
    }
    game_.play(*m, {}, t_ms);  // (told at the alert's time: a broadcast delay holds them as long)
    game_.mark_last(false, true);
  }
  held_gap_ = gap;
}

bool RemoteBoard::settle_held_gap(int ply, const std::string& uci, rules::ClockTimes clock, std::int64_t t) {
  if (!held_gap_ || ply < held_gap_->first_ply || game_.ply_count() < held_gap_->last_ply) return false;
  const int first = held_gap_->first_ply;
  if (ply != first + int(settling_.size())) {
    settling_.clear();
    if (ply != first) return false;
  }
  settling_.push_back({uci, clock, t});
  if (ply < held_gap_->last_ply) return true;  // the rest of the arbiter's moves are on their way
  // The gap's moves whole: in the candidate's place when they reach the same position (the moves since
  // stay); else (the arbiter's moves are of another number: the host tells every ply since again) the
  // game goes on from them.
  std::vector<rules::Move> moves;
  rules::Position p = game_.position_at(first - 1);
  for (const Settling& s : settling_) {
    auto m = rules::parse_uci(p, s.uci);
    if (!m) break;
    moves.push_back(*m);
    p.do_move(*m);
  }
  const bool whole = moves.size() == settling_.size();
  const rules::Position held = game_.position_at(held_gap_->last_ply);
  const bool same = whole && p.board() == held.board() && p.side_to_move() == held.side_to_move() &&
                    game_.replace_plies(first - 1, moves);
  if (!same) {
    while (game_.ply_count() >= first) game_.undo();
    for (std::size_t i = 0; i < moves.size(); ++i) {
      game_.play(moves[i], settling_[i].clock, settling_[i].t_ms);
      game_.mark_last(true, false);
    }
    if (!whole)
      game_problem("ply " + std::to_string(first + int(moves.size())) + " " + settling_[moves.size()].uci +
                   ": not a move where the gap's moves stand");
  }
  held_gap_.reset();
  settling_.clear();
  return true;
}

void RemoteBoard::nothing_to_resend(const std::string& why) {
  if (!hole_) return;
  hole_.reset();
  gap_told_ = true;
  problem("ply " + std::to_string(game_.ply_count() + 1) + " and on: lost on the way, and " + why);
}

rules::Game RemoteBoard::public_game(std::int64_t cutoff) const {
  rules::Game g = game_;
  const auto& plies = game_.plies();
  int hidden = 0;
  while (hidden < int(plies.size()) && plies[plies.size() - 1 - std::size_t(hidden)].time_ms > cutoff)
    ++hidden;
  if (hidden == 0 && !(game_.outcome() && result_ms_ > cutoff)) return g;
  for (int i = 0; i < hidden; ++i) g.undo();
  g.clear_outcome();
  return g;
}

std::string RemoteBoard::served_line(const Envelope& e) const {
  json j = e.event;
  j["board"] = id_;
  j["host"] = host_;
  j["journal"] = e.id.journal;
  j["seq"] = e.id.seq;
  return j.dump();
}

void RemoteBoard::take_state(const json& state) {
  if (!state.is_object()) return;
  const int game = int_of(state, "game", 0);
  if (state.contains("start_fen") && state["start_fen"].is_string()) {
    start_fen_ = state["start_fen"].get<std::string>();
    start_fen_game_ = game;
    // (A host that does not say: any other set-up of the back ranks than chess'.)
    start_chess960_ = state.contains("chess960") && state["chess960"].is_boolean()
                          ? state["chess960"].get<bool>()
                          : !start_fen_.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    // The current game's start told after its first events (a Chess960 set-up read by the host once the
    // game had begun here from the standard start): the game again from it.
    if (game == game_number_ || game_number_ == 0)
      if (auto p = rules::Position::from_fen(start_fen_, variant_, start_chess960_);
          p && p->fen() != game_.start().fen())
        replay_from(*p);
  }
  if (game >= game_number_ && state.contains("tags") && state["tags"].is_object()) {
    tags_.clear();
    const json& tags = state["tags"];
    auto add = [&](const std::string& name) {
      auto v = tags.find(name);
      if (v == tags.end() || !v->is_string()) return;
      for (const auto& have : tags_)
        if (have.name == name) return;
      tags_.push_back({name, v->get<std::string>()});
    };
    // In the host's order when it tells it (its PGN's), then any other in the object's order.
    if (state.contains("tag_order") && state["tag_order"].is_array())
      for (const auto& name : state["tag_order"])
        if (name.is_string()) add(name.get<std::string>());
    for (const auto& [name, value] : tags.items()) add(name);
    // A state of thousands of tags or of huge values is not kept whole.
    if (tags_.size() > MAX_TAGS) tags_.resize(MAX_TAGS);
    for (auto& tag : tags_)
      if (tag.value.size() > MAX_TAG_BYTES) tag.value.resize(MAX_TAG_BYTES);
  }
  // Told by hosts that know variants; a drop tells it too (take_drop), whichever comes first.
  if (state.contains("variant") && state["variant"] == "bughouse") use_variant(rules::Variant::Bughouse);
  if (state.contains("variant") && state["variant"] == "crazyhouse") use_variant(rules::Variant::Crazyhouse);
  link_ = state.contains("link") ? state["link"] : json();
  woodless_ = state.contains("woodless") && state["woodless"].is_boolean() && state["woodless"].get<bool>();
  if (link_.dump().size() > MAX_TAG_BYTES) link_ = nullptr;
  alerts_ = state.contains("alerts") ? state["alerts"] : json::array();
  if (alerts_.is_array() && alerts_.size() > MAX_ALERTS)
    alerts_.erase(alerts_.begin() + MAX_ALERTS, alerts_.end());
}

json RemoteBoard::status() const {
  json tags = json::object();
  for (const auto& t : tags_) tags[t.name] = t.value;
  const auto& o = game_.outcome();
  return {
      {"id", id_},
      {"host", host_},
      {"board", board_},
      {"host_online", host_online_},
      {"game", game_number_},
      {"plies", game_.ply_count()},
      {"fen", game_.position().fen()},
      {"result", o ? json(rules::result_string(o->result)) : json(nullptr)},
      {"tags", tags},
      {"link", link_},
      {"open_alerts", alerts_},
      {"last", {{"journal", last_.journal}, {"seq", last_.seq}}},
      {"events", taken_},
      {"duplicates_dropped", duplicates_},
      {"over_limit_dropped", over_limit_},
      {"waiting_for_resend", hole_ ? json{{"journal", hole_->journal}, {"seq", hole_->seq}} : json(nullptr)},
      {"held_for_resend", waiting_},
      {"problems", problems()}};
}

json RemoteBoard::board_status() const {
  json tags = json::object();
  for (const auto& t : tags_) tags[t.name] = t.value;
  const auto& o = game_.outcome();
  json game{{"number", game_number_},
            {"started", started_ms_},
            {"ply", game_.ply_count()},
            {"published_ply", game_.ply_count()},
            {"fen", game_.position().fen()},
            {"result", o ? rules::result_string(o->result) : "*"},
            {"tags", tags}};
  if (o) game["reason"] = o->reason;
  if (game_.ply_count() > 0)
    game["last_move"] = rules::to_uci(game_.position_at(game_.ply_count() - 1), game_.plies().back().move);
  if (rules::ClockTimes c = game_.clock_at(game_.ply_count()); c.known())
    game["clock"] = {{"white", c.white_ms}, {"black", c.black_ms}};
  // The host tells its open alerts only (acknowledging is done there, through a command that names the
  // host's number of the alert: the acknowledged ones before it are not in the list).
  // Taken as they came over the wire: a field of the wrong type is left out, never thrown on.
  auto field = [](const json& a, const char* name, const json& none) {
    return a.contains(name) && a[name].type() == none.type() ? a[name] : none;
  };
  auto number = [](const json& a, std::size_t position) {
    if (a.contains("number") && a["number"].is_number_integer() && a["number"].get<std::int64_t>() > 0)
      return a["number"];
    return json(position);  // a host that does not number them: in order, as it did before acknowledging
  };
  json alerts = json::array();
  if (alerts_.is_array())
    for (const auto& a : alerts_)
      if (a.is_object())
        alerts.push_back({{"number", number(a, alerts.size() + 1)},
                          {"code", field(a, "code", "")},
                          {"ply", a.contains("ply") && a["ply"].is_number_integer() ? a["ply"] : json(0)},
                          {"detail", field(a, "detail", "")},
                          {"acknowledged", false}});
  const bool up = online();
  json j{{"id", id_},
         {"device", "mqtt:" + host_},
         {"link", up ? "online" : "offline"},
         {"game", game},
         {"control",
          {{"alerts", alerts},
           {"unacknowledged_alerts", alerts.size()},
           {"adjourned", nullptr},
           {"missed_gap", nullptr}}},
         {"link_state", {{"state", up ? "online" : "offline"}}},
         {"remote", {{"host", host_}, {"board", board_}, {"host_online", host_online_}}},
         {"woodless", woodless_}};
  if (link_.is_object() && link_.contains("since")) j["link_state"]["since"] = link_["since"];
  if (!host_online_)
    j["link_state"]["reason"] = "host " + host_ + " is offline";
  else if (link_.is_object() && link_.contains("reason") && link_["reason"].is_string())
    j["link_state"]["reason"] = link_["reason"];
  return j;
}

}  // namespace eboard::mqtt
