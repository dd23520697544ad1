// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/machine.hpp"

#include <algorithm>
#include <cctype>

namespace eboard::journal {

using namespace eboard::rules;

tl::expected<ReconstructConfig, std::string> reconstruct_config(const std::string& board_id,
                                                                const NewGameEntry& g) {
  auto profile = profile_by_name(g.profile);
  if (!profile) return tl::unexpected("unknown rules profile '" + g.profile + "'");
  ReconstructConfig cfg;
  cfg.board_id = board_id;
  cfg.profile = *profile;
  cfg.chess960 = g.chess960;
  cfg.complete_after_ms = std::max<std::int64_t>(0, g.complete_after_ms);
  cfg.hold_uncounted_gaps = g.hold_uncounted;
  // A DGT board answers a dump request; other sources never see the request (it changes no event, so
  // replay and live agree whatever the source).
  cfg.reread_board = true;
  return cfg;
}

tl::expected<Position, std::string> start_position(const NewGameEntry& g) {
  auto profile = profile_by_name(g.profile);
  if (!profile) return tl::unexpected("unknown rules profile '" + g.profile + "'");
  if (g.fen.empty()) return Position::start(profile->variant);
  return Position::from_fen(g.fen, profile->variant, g.chess960);
}

GameMachine::GameMachine(std::string board_id) : board_id_(std::move(board_id)) {}

tl::expected<void, std::string> GameMachine::new_game(const NewGameEntry& g) {
  auto cfg = reconstruct_config(board_id_, g);
  if (!cfg) return tl::unexpected(cfg.error());
  auto start = start_position(g);
  if (!start) return tl::unexpected("bad start position: " + start.error());
  rec_ = std::make_unique<Reconstructor>(std::move(*cfg), Game(*start));
  current_ = g;
  sensors_ = 0;
  last_t_ = std::max(last_t_, g.t_ms);
  return {};
}

void GameMachine::resume(Game game) {
  auto cfg = reconstruct_config(board_id_, current_);
  ReconstructConfig fallback;
  fallback.board_id = board_id_;
  rec_ = std::make_unique<Reconstructor>(cfg ? std::move(*cfg) : std::move(fallback), std::move(game));
}

std::vector<Event> GameMachine::on_sensor(const SensorEvent& e) {
  if (!rec_) (void)new_game(NewGameEntry{e.t_ms, "fide-standard", false, ""});
  ++sensors_;
  last_t_ = std::max(last_t_, e.t_ms);
  return rec_->on_sensor(e);
}

std::vector<Event> GameMachine::advance(std::int64_t now_ms) {
  if (!rec_) return {};
  last_t_ = std::max(last_t_, now_ms);
  return rec_->advance(now_ms);
}

std::optional<std::int64_t> GameMachine::next_deadline() const {
  return rec_ ? rec_->next_deadline() : std::nullopt;
}

tl::expected<Color, std::string> control_side(const ControlEntry& c) {
  if (c.side == "white") return WHITE;
  if (c.side == "black") return BLACK;
  return tl::unexpected("side must be \"white\" or \"black\", not \"" + c.side + "\"");
}

tl::expected<PieceType, std::string> control_promotion_piece(const ControlEntry& c) {
  static const std::string LETTERS = "nbrq";
  auto at = c.value.size() == 1 ? LETTERS.find(char(std::tolower(static_cast<unsigned char>(c.value[0]))))
                                : std::string::npos;
  if (at == std::string::npos)
    return tl::unexpected("promotion piece must be one of q, r, b, n, not \"" + c.value + "\"");
  return PieceType(KNIGHT + int(at));
}

tl::expected<std::optional<Color>, std::string> control_optional_side(const ControlEntry& c) {
  if (c.side.empty()) return std::optional<Color>{};
  auto s = control_side(c);
  if (!s) return tl::unexpected(s.error());
  return std::optional<Color>(*s);
}

tl::expected<std::optional<std::size_t>, std::string> control_recover_choice(const ControlEntry& c) {
  const std::string& v = c.value;
  if (v.find_first_not_of(" ,") == std::string::npos)
    return tl::unexpected(std::string("give a candidate's number or the moves of the gap"));
  if (!std::all_of(v.begin(), v.end(), [](unsigned char ch) { return std::isdigit(ch); }))
    return std::optional<std::size_t>{};
  // A number: a candidate. Longer than any count of candidates could be is refused before converting.
  if (v.size() > 6 || std::stoul(v) == 0)
    return tl::unexpected("no candidate " + v + " (candidates are numbered from 1)");
  return std::optional<std::size_t>(std::stoul(v) - 1);
}

tl::expected<Outcome, std::string> control_outcome(const ControlEntry& c) {
  // value "<1-0|0-1|1/2-1/2> <reason>": the arbiter's result as the game has it (a forfeit's PGN result).
  const auto space = c.value.find(' ');
  const std::string result = c.value.substr(0, space);
  const std::string reason = space == std::string::npos ? "" : c.value.substr(space + 1);
  Outcome o;
  if (result == "1-0")
    o.result = Result::WhiteWins;
  else if (result == "0-1")
    o.result = Result::BlackWins;
  else if (result == "1/2-1/2")
    o.result = Result::Draw;
  else
    return tl::unexpected("an arbiter's result is 1-0, 0-1 or 1/2-1/2 here, not \"" + result + "\"");
  if (reason != "arbiter" && reason != "forfeit" && reason != "flag")
    return tl::unexpected("an arbiter's result's reason is arbiter, forfeit or flag, not \"" + reason + "\"");
  o.reason = reason;
  return o;
}

tl::expected<std::vector<Event>, std::string> apply_control(Reconstructor& rec, const ControlEntry& c) {
  auto side = [&] { return control_side(c); };
  const Game& g = rec.game();
  if (c.action == "ack") return std::vector<Event>{};
  if (c.action == "recover") {
    // Completes the record only: allowed after the game ended or while it is adjourned too.
    auto choice = control_recover_choice(c);
    if (!choice) return tl::unexpected(choice.error());
    return *choice ? rec.settle_gap(**choice, c.t_ms) : rec.settle_gap(c.value, c.t_ms);
  }
  if (c.action == "promotion") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    auto piece = control_promotion_piece(c);
    if (!piece) return tl::unexpected(piece.error());
    rec.set_promotion_piece(*s, *piece);
    return std::vector<Event>{};
  }
  if (c.action == "resume") {
    if (!rec.adjournment()) return tl::unexpected(std::string("the game is not adjourned"));
    return rec.resume(c.t_ms);
  }
  if (c.action == "result") {
    // The arbiter's result: ends the game (during an adjournment too), or corrects the result it has.
    auto o = control_outcome(c);
    if (!o) return tl::unexpected(o.error());
    return g.outcome() ? rec.correct(*o, c.t_ms) : rec.declare(*o, c.t_ms);
  }
  if (g.outcome()) return tl::unexpected("the game is over (" + result_string(g.outcome()->result) + ")");
  if (rec.adjournment() && c.action != "resign" && c.action != "draw")
    return tl::unexpected(std::string("the game is adjourned: resume it first"));
  if (c.action == "resign") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    return rec.resign(*s, c.t_ms);
  }
  if (c.action == "draw") return rec.agree_draw(c.t_ms);
  if (c.action == "move") {
    // A board without wood: a move the arbiter typed (UCI or SAN), with the clocks after it if given.
    rules::ClockTimes clock;
    if (c.white_ms >= 0 && c.black_ms >= 0) clock = {c.white_ms, c.black_ms};
    return rec.enter_move(c.value, clock, c.t_ms);
  }
  if (c.action == "adjourn") {
    auto s = side();
    if (!s) return tl::unexpected(s.error());
    if (auto ok = rec.adjourn(*s, c.value, c.t_ms); !ok) return tl::unexpected(ok.error());
    return std::vector<Event>{};
  }
  if (c.action == "adopt") {
    auto s = control_optional_side(c);
    if (!s) return tl::unexpected(s.error());
    return rec.adopt_board(c.t_ms, *s);
  }
  return tl::unexpected("unknown control action \"" + c.action + "\"");
}

tl::expected<std::vector<Event>, std::string> GameMachine::control(const ControlEntry& c) {
  if (!rec_) return tl::unexpected(std::string("no game"));
  last_t_ = std::max(last_t_, c.t_ms);
  return apply_control(*rec_, c);
}

const Game& GameMachine::game() const {
  static const Game none(Position::start());
  return rec_ ? rec_->game() : none;
}

void Ledger::begin(std::int64_t t_ms, const Game& g) {
  ++number_;
  replace(t_ms, g);
  // Tournament-wide tags and the players (with their ratings) stay with the board until the arbiter or a
  // pairings file names others: the players of a round play their next game on the same board. The round
  // (the daemon's, state_dir/round.json) and the rest belong to one game.
  static constexpr std::string_view kept[] = {
      "Event",      "Site",        "White",       "Black",     "WhiteElo",  "BlackElo",   "WhiteTitle",
      "BlackTitle", "WhiteFideId", "BlackFideId", "WhiteTeam", "BlackTeam", "TimeControl"};
  PgnTags keep;
  for (const auto& t : tags_)
    if (std::find(std::begin(kept), std::end(kept), t.name) != std::end(kept)) keep.push_back(t);
  tags_ = std::move(keep);
}

void Ledger::replace(std::int64_t t_ms, const Game& g) {
  started_ms_ = t_ms;
  notes_.clear();
  seen_plies_ = g.ply_count();
  seen_outcome_ = g.outcome().has_value();
  seen_start_ = g.start().fen();
  seen_identity_ = g.identity();
  alerts_ = 0;
  acknowledged_.clear();
}

bool Ledger::acknowledge(int alert) {
  if (alert < 1 || alert > alerts_) return false;
  if (!acknowledged(alert)) acknowledged_.push_back(alert);
  return true;
}

bool Ledger::acknowledged(int alert) const {
  return std::find(acknowledged_.begin(), acknowledged_.end(), alert) != acknowledged_.end();
}

void Ledger::on_new_game(std::int64_t t_ms, const Game& g) { begin(t_ms, g); }

void Ledger::continue_after(int last_game, const PgnTags& tags) {
  number_ = last_game;
  tags_ = tags;
}

bool Ledger::observe(const Game& g, std::int64_t t_ms) {
  if (number_ == 0) {
    begin(t_ms, g);
    return false;
  }
  // (The game a new game's control began is not the reconstruction's own: its identity is taken here.)
  const bool fresh =
      g.identity() != seen_identity_ && (g.ply_count() < seen_plies_ || (seen_outcome_ && !g.outcome()) ||
                                         (g.ply_count() == 0 && g.start().fen() != seen_start_));
  if (fresh) {
    // A game nothing was played in (the standard start a board shows before it is read, then its Chess960
    // set-up) is not counted: the one set up takes its number and its tags.
    if (seen_plies_ == 0 && !seen_outcome_)
      replace(t_ms, g);
    else
      begin(t_ms, g);
    return true;
  }
  seen_identity_ = g.identity();
  seen_plies_ = g.ply_count();
  seen_outcome_ = g.outcome().has_value();
  return false;
}

void Ledger::after_control(const ControlEntry& c, const Game& g) {
  if (number_ == 0 || c.action != "recover") return;
  seen_identity_ = g.identity();
  seen_plies_ = g.ply_count();
  seen_outcome_ = g.outcome().has_value();
}

void Ledger::on_event(const Event& e) {
  if (std::holds_alternative<MoveEvent>(e.what) || std::holds_alternative<ProvisionalMoveEvent>(e.what))
    return;
  if (std::holds_alternative<AlertEvent>(e.what)) ++alerts_;
  notes_.push_back(e);
  if (notes_.size() > 64) notes_.erase(notes_.begin());
}

void Ledger::replace_notes(std::vector<Event> notes, int alerts) {
  if (notes.size() > 64) notes.erase(notes.begin(), notes.end() - 64);
  notes_ = std::move(notes);
  alerts_ = alerts;
  std::erase_if(acknowledged_, [alerts](int a) { return a > alerts; });
}

void Ledger::set_tags(const TagsEntry& t) {
  for (const auto& tag : t.tags) {
    auto it = std::find_if(tags_.begin(), tags_.end(), [&](const PgnTag& x) { return x.name == tag.name; });
    if (tag.value.empty()) {
      if (it != tags_.end()) tags_.erase(it);
    } else if (it != tags_.end()) {
      it->value = tag.value;
    } else {
      tags_.push_back(tag);
    }
  }
}

}  // namespace eboard::journal
