// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/demo.hpp"

#include <unistd.h>

#include <algorithm>
#include <optional>
#include <span>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/control.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/session/pty.hpp"

namespace eboard::eboardd {

namespace {

const std::array<std::string, 2> IDS = {"A", "B"};
const std::string MATCH = "A-B";

// One board of a game the journal holds, beside the demo's plan for it.
struct Played {
  const rules::Game& game;
  const std::array<rules::Piece, 64>& physical;  // the board as the daemon last saw it
  const std::vector<rules::Move>& planned;
  const sim::Timeline& timeline;
};

// Where the plan continues the journal's games (a time of the plan): nothing when a game is not the plan's
// (another corpus, speed or version of the simulation). Each board continues where its timeline shows
// what the daemon last saw, and the latest of those points is taken (a match's boards share one clock):
//  - at least at the clock reading that shows the press of the last move the journal holds (0: none yet),
//    not at the press itself: the board reads its clock a moment later (the first readings after it may
//    still show the lever as it was), and the daemon, which has seen the reading with the lever changed,
//    would take the one before it, shown again, for a press;
//  - then, before the next press, at the first board that shows the pieces as the daemon last saw them:
//    a board taken back to before that would make the gesture again, and what was done meanwhile on the
//    other board would come too late (a drop the journal holds, replayed after the partner's capture
//    that supplied it, FQE 21b).
std::optional<std::int64_t> resume_point(std::span<const Played> boards) {
  std::int64_t at = 0;
  for (const Played& p : boards) {
    const auto& plies = p.game.plies();
    if (plies.size() > p.planned.size()) return std::nullopt;
    for (std::size_t i = 0; i < plies.size(); ++i)
      if (plies[i].move != p.planned[i]) return std::nullopt;
    const auto& events = p.timeline.events;
    std::int64_t read = 0;
    if (!plies.empty()) {
      // The first reading after the press whose lever differs from the one before it.
      const std::int64_t press = p.timeline.press_ms[plies.size() - 1];
      std::optional<rules::ClockSide> before;
      read = press;
      for (const rules::SensorEvent& e : events) {
        const auto* r = std::get_if<rules::ClockReading>(&e.what);
        if (!r) continue;
        if (e.t_ms < press) {
          before = r->lever_up;
        } else if (r->lever_up != before) {
          read = e.t_ms;
          break;
        }
      }
    }
    const std::int64_t next_press =
        plies.size() < p.timeline.press_ms.size() ? p.timeline.press_ms[plies.size()] : p.timeline.end_ms;
    std::int64_t seen = read;
    auto board = session::state_at(events, read).squares;
    for (const rules::SensorEvent& e : events) {
      if (board == p.physical || e.t_ms >= next_press) break;
      if (e.t_ms <= read) continue;
      if (const auto* l = std::get_if<rules::PieceLifted>(&e.what)) board[l->square] = rules::NO_PIECE;
      if (const auto* pl = std::get_if<rules::PiecePlaced>(&e.what)) board[pl->square] = pl->piece;
      if (board == p.physical) seen = e.t_ms;
    }
    at = std::max(at, seen);
  }
  return at;
}

}  // namespace

Demo::Demo(boost::asio::io_context& daemon_io, DemoSetup setup) : io_(daemon_io), setup_(std::move(setup)) {
  if (!(setup_.speed > 0)) setup_.speed = 1.0;
  for (auto& p : pause_) p = std::make_unique<boost::asio::steady_timer>(io_);
}

Demo::~Demo() {
  stop();
  *alive_ = false;
  for (int fd : masters_)
    if (fd >= 0) ::close(fd);
}

tl::expected<void, std::string> Demo::open() {
  for (std::size_t b = 0; b < 2; ++b) {
    auto pty = session::open_pseudo_terminal();
    if (!pty)
      return tl::unexpected("demo: cannot open a pseudo-terminal for board " + IDS[b] + ": " + pty.error());
    masters_[b] = pty->master_fd;
    ports_[b] = pty->slave_path;
  }
  return {};
}

void Demo::configure(config::Config& config) const {
  config.boards.clear();
  config.matches.clear();
  for (std::size_t b = 0; b < 2; ++b) {
    config::BoardConfig bc;
    bc.id = IDS[b];
    bc.port = ports_[b];
    bc.protocol = "dgt";
    config.boards.push_back(bc);
  }
  if (setup_.matches) {
    config::MatchConfig m;
    m.boards = {IDS[0], IDS[1]};
    config.matches.push_back(m);
  }
}

std::vector<int> Demo::unit_of(int board) const {
  if (setup_.matches) return {0, 1};
  return {board};
}

void Demo::start(Service& service) {
  service_ = &service;
  for (std::size_t b = 0; b < 2; ++b) {
    // The board stands empty and its clock off until its first script is loaded below.
    players_[b] =
        std::make_unique<session::BoardPlayer>(hall_, drivers::dgt::Emulator{}, session::BoardScript{});
    players_[b]->attach(masters_[b]);
    masters_[b] = -1;  // the player owns it
    players_[b]->start();
  }
  // The first scripts are loaded here, on this thread, before the boards' thread and the daemon's loop
  // run: the daemon's first board dump already shows where the game stands.
  if (setup_.matches)
    begin_match(true);
  else
    for (int b = 0; b < 2; ++b) begin_game(b, true);
  hall_work_ = std::make_unique<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>>(
      hall_.get_executor());
  hall_thread_ = std::thread([this] { hall_.run(); });
}

void Demo::stop() {
  for (auto& p : pause_) p->cancel();
  if (!hall_thread_.joinable()) return;
  boost::asio::post(hall_, [this] {
    for (auto& p : players_)
      if (p) p->stop();
    hall_work_.reset();
  });
  hall_thread_.join();
  players_ = {};
}

void Demo::begin(int board, bool resuming) {
  if (setup_.matches)
    begin_match(resuming);
  else
    begin_game(board, resuming);
}

void Demo::begin_match(bool resuming) {
  MatchRuntime* m = service_->match(MATCH);
  if (!m) {
    spdlog::error("demo: the match {} is not running", MATCH);
    return;
  }
  BoardRuntime& a = *m->boards()[0];
  DemoMatchChoice c = choose_demo_match(*setup_.matches, m->number(), setup_.speed);
  std::array<int, 2> plies{};
  for (int b = 0; b < 2; ++b) plies[std::size_t(b)] = m->match().board(b).game().ply_count();
  std::optional<std::int64_t> at;
  bool begin_new = !resuming;
  if (resuming) {
    const std::string recorded(rules::find_tag(a.ledger().tags(), "EboardDemo").value_or(""));
    const rules::Reconstructor& ra = m->match().board(0);
    const rules::Reconstructor& rb = m->match().board(1);
    const Played played[] = {{ra.game(), ra.physical(), c.plan.moves[0], c.plan.boards[0]},
                             {rb.game(), rb.physical(), c.plan.moves[1], c.plan.boards[1]}};
    if (recorded == c.label) at = resume_point(played);
    // A match begun but without a move or a label yet is this one.
    begin_new = !at && (plies[0] + plies[1] > 0 || !recorded.empty());
    if (begin_new)
      spdlog::warn("demo: the journaled match is not the demo's current one; beginning a new one");
  }
  if (at) {
    spdlog::info("demo: resuming {} at plies {}/{} ({:.1f} s into it)", c.label, plies[0], plies[1],
                 double(*at) / 1000.0);
  } else {
    if (begin_new) {
      // As `eboardctl new-game A` begins one.
      if (auto n = a.new_game(); !n) spdlog::error("demo: cannot begin a new match: {}", n.error());
      c = choose_demo_match(*setup_.matches, m->number(), setup_.speed);
    }
    for (int b = 0; b < 2; ++b)
      if (auto ok = m->boards()[std::size_t(b)]->update_tags(c.tags[std::size_t(b)]); !ok)
        spdlog::error("demo: board {}: {}", IDS[std::size_t(b)], ok.error());
    spdlog::info("demo: playing {}", c.summary);
    at = 0;
    plies = {};
  }
  std::array<std::vector<Naming>, 2> namings;
  for (const DemoMatchInput& in : c.plan.inputs)
    if (!in.sensor && in.move >= plies[std::size_t(in.board)])
      namings[std::size_t(in.board)].push_back({std::max<std::int64_t>(0, in.t - *at), in.naming});
  for (int b = 0; b < 2; ++b)
    post_load(b, std::move(c.plan.boards[std::size_t(b)].events), *at, std::move(namings[std::size_t(b)]));
}

void Demo::begin_game(int board, bool resuming) {
  BoardRuntime* rt = service_->board(IDS[std::size_t(board)]);
  if (!rt) {
    spdlog::error("demo: board {} is not running", IDS[std::size_t(board)]);
    return;
  }
  const auto choose = [&]() -> std::optional<DemoGameChoice> {
    try {
      return choose_demo_game(*setup_.games, rt->game_number(), std::size_t(board), setup_.speed);
    } catch (const std::exception& e) {
      spdlog::error("demo: board {}: cannot simulate the game: {}", rt->id(), e.what());
      return std::nullopt;
    }
  };
  auto c = choose();
  if (!c) return;
  std::optional<std::int64_t> at;
  bool begin_new = !resuming;
  if (resuming) {
    const std::string recorded(rules::find_tag(rt->ledger().tags(), "EboardDemo").value_or(""));
    // The journal's replayed reconstruction, which the board's source took at start-up; the daemon's
    // loop has not run yet, so it is still as the replay left it.
    const rules::Reconstructor* r = rt->reconstructor();
    if (recorded == c->label && r) {
      const Played played[] = {{r->game(), r->physical(), c->moves, c->timeline}};
      at = resume_point(played);
    }
    begin_new = !at && (rt->game().ply_count() > 0 || !recorded.empty());
    if (begin_new)
      spdlog::warn("demo: board {}: the journaled game is not the demo's current one; beginning a new one",
                   rt->id());
  }
  if (at) {
    spdlog::info("demo: board {}: resuming {} at ply {} ({:.1f} s into it)", rt->id(), c->label,
                 rt->game().ply_count(), double(*at) / 1000.0);
  } else {
    if (begin_new) {
      // As `eboardctl new-game` begins one.
      if (auto n = rt->new_game(); !n)
        spdlog::error("demo: board {}: cannot begin a new game: {}", rt->id(), n.error());
      c = choose();
      if (!c) return;
    }
    if (auto ok = rt->update_tags(c->tags); !ok) spdlog::error("demo: board {}: {}", rt->id(), ok.error());
    spdlog::info("demo: board {}: playing {}", rt->id(), c->summary);
    at = 0;
  }
  post_load(board, std::move(c->timeline.events), *at, {});
}

void Demo::post_load(int board, std::vector<rules::SensorEvent> events, std::int64_t from_ms,
                     std::vector<Naming> namings) {
  const auto b = std::size_t(board);
  pause_[b]->cancel();
  ended_[b] = false;
  ++generation_[b];
  const std::uint64_t generation = generation_[b];
  if (!hall_thread_.joinable()) {
    load(board, generation, std::move(events), from_ms, std::move(namings));
    return;
  }
  boost::asio::post(hall_, [this, board, generation, events = std::move(events), from_ms,
                            namings = std::move(namings)]() mutable {
    load(board, generation, std::move(events), from_ms, std::move(namings));
  });
}

void Demo::load(int board, std::uint64_t generation, std::vector<rules::SensorEvent> events,
                std::int64_t from_ms, std::vector<Naming> namings) {
  session::BoardPlayer& p = *players_[std::size_t(board)];
  // The arbiter stops the clock when the game is over, before the next is set up: a clock still running
  // then would make the new game's first lever change look like a press.
  const std::int64_t end = events.empty() ? 0 : events.back().t_ms;
  if (auto clock = session::state_at(events, end + 1000).clock) {
    clock->running = false;
    events.push_back({end + 1000, *clock});
  }
  const std::int64_t base = p.load(session::script_from_events(events, from_ms));
  p.on_script_end = [this, board, generation, alive = std::weak_ptr<bool>(alive_)] {
    boost::asio::post(io_, [this, board, generation, alive] {
      if (!alive.expired()) script_ended(board, generation);
    });
  };
  for (Naming& n : namings)
    p.at(base + n.t, [this, board, c = std::move(n.control), alive = std::weak_ptr<bool>(alive_)] {
      boost::asio::post(io_, [this, board, c, alive] {
        if (!alive.expired()) name_promotion(board, c);
      });
    });
}

void Demo::script_ended(int board, std::uint64_t generation) {
  if (generation != generation_[std::size_t(board)]) return;  // a script replaced since
  ended_[std::size_t(board)] = true;
  const std::vector<int> unit = unit_of(board);
  if (!std::all_of(unit.begin(), unit.end(), [this](int b) { return ended_[std::size_t(b)]; })) return;
  auto& timer = *pause_[std::size_t(unit.front())];
  timer.expires_after(std::chrono::milliseconds(setup_.pause_ms));
  timer.async_wait(
      [this, first = unit.front(), alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
        if (!ec && !alive.expired()) begin(first, false);
      });
}

void Demo::name_promotion(int board, const journal::ControlEntry& c) {
  BoardRuntime* rt = service_->board(IDS[std::size_t(board)]);
  if (!rt) return;
  // What POST /control/<board>/promotion does (eboardctl promotion BOARD SIDE PIECE).
  const nlohmann::json body{{"side", c.side}, {"piece", c.value}};
  auto res = control_action(*rt, "promotion", body, setup_.matches ? MATCH : std::string());
  if (res && res->status != 200)
    spdlog::warn("demo: board {}: naming the promotion piece failed: {}", rt->id(), res->body);
}

}  // namespace eboard::eboardd
