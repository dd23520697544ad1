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
    if (auto p = rules::Position::from_fen(start_fen_, variant_)) start = *p;
  game_ = rules::Game(start);
  game_number_ = number;
  started_ms_ = t_ms;
  gap_told_ = false;
  over_limit_told_ = false;
  result_ms_ = 0;
  lines_.clear();
  problems_.clear();
}

void RemoteBoard::use_variant(rules::Variant v) {
  if (variant_ == v) return;
  variant_ = v;
  rules::Position start = rules::Position::start(v);
  if (auto p = rules::Position::from_fen(game_.start().fen(), v)) start = *p;
  rules::Game again(start);
  for (const auto& p : game_.plies()) {
    if (p.illegal || p.jump) {  // positions the moves do not give: the replay stops before them
      problem("ply " + std::to_string(again.ply_count() + 1) + ": not replayed as another variant");
      break;
    }
    again.play(p.move, p.clock, p.time_ms);
    if (p.recovered || p.missed) again.mark_last(p.recovered, p.missed);
  }
  if (game_.outcome()) again.set_outcome(*game_.outcome());
  game_ = std::move(again);
}

namespace {

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

bool RemoteBoard::take(const Envelope& e, bool kept) {
  if (!(last_ < e.id)) {
    ++duplicates_;
    return false;
  }
  const json& ev = e.event;
  const std::string type = ev.is_object() ? ev.value("type", "") : "";
  const std::int64_t t = ev.contains("t") && ev["t"].is_number_integer() ? ev["t"].get<std::int64_t>() : 0;
  const int ply = ev.contains("ply") && ev["ply"].is_number_integer() ? ev["ply"].get<int>() : 0;
  // Lost on the way: a move past the next ply, or an event whose predecessor at its host was not taken
  // (a game's tail, its result: nothing in the next game's first move tells those).
  const bool lost =
      !kept && !gap_told_ &&
      ((type == "move" && ply > game_.ply_count() + 1) || (taken_ > 0 && e.after && last_ < *e.after));
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
  const bool recovered = type == "move" && ev.value("recovered", false);
  if (type == "move" && ply == 1 && game_.ply_count() > 0 && !recovered)
    begin_game(std::max(e.game, game_number_ + 1), t);
  if (game_number_ == 0) game_number_ = std::max(1, e.game);
  if (started_ms_ == 0) started_ms_ = t;
  if (type == "move") {
    const std::string uci = ev.value("uci", "");
    // A recovered move that is another move at a ply the game holds (the host's gap settled with another
    // length: its plies and those since told again, rules::Reconstructor::settle_gap_length) takes the game
    // back to there, and is played below as the next.
    if (recovered && ply >= 1 && ply <= game_.ply_count() && uci.find('@') == std::string::npos &&
        rules::to_uci(game_.position_at(ply - 1), game_.plies()[std::size_t(ply - 1)].move) != uci)
      while (game_.ply_count() >= ply) game_.undo();
    if (ply != game_.ply_count() + 1) {
      if (ply > game_.ply_count() + 1) {
        problem("ply " + std::to_string(ply) + " " + uci + ": after a hole");
        gap_told_ = true;  // the host has no more: the game stops here, no resend is asked again
      }
      // A move already in the game (a recovered one told again) changes nothing.
    } else if (ev.value("illegal", false)) {
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
        problem("ply " + std::to_string(ply) + " " + uci + ": an illegal move that stood, " + after.error());
    } else {
      if (uci.size() == 4 && uci[1] == '@') take_drop(dropped_type(uci[0]));
      if (auto m = rules::parse_uci(game_.position(), uci)) {
        game_.play(*m, journal::event_clock(ev), t);
        if (recovered) game_.mark_last(true, false);
      } else {
        problem("ply " + std::to_string(ply) + " " + uci + ": " + m.error());
      }
    }
  } else if (type == "result") {
    game_.set_outcome(rules::Outcome{journal::parse_result(ev.value("result", "*")), ev.value("reason", "")});
    result_ms_ = t;
  }
  if (type == "move" || type == "result") last_event_ms_ = std::max(last_event_ms_, t);
  lines_.push_back(served_line(e));
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
  const int game = state.value("game", 0);
  if (state.contains("start_fen") && state["start_fen"].is_string()) {
    start_fen_ = state["start_fen"].get<std::string>();
    start_fen_game_ = game;
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
  link_ = state.value("link", json());
  woodless_ = state.contains("woodless") && state["woodless"].is_boolean() && state["woodless"].get<bool>();
  if (link_.dump().size() > MAX_TAG_BYTES) link_ = nullptr;
  alerts_ = state.value("alerts", json::array());
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
      {"problems", problems_}};
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
