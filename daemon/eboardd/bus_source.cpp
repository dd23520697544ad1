// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/bus_source.hpp"

namespace eboard::eboardd {

BusSource::BusSource(BoardSink& sink, config::BoardConfig board, std::shared_ptr<session::BusSession> line,
                     rules::Game game, journal::NewGameEntry current)
    : board_(std::move(board)),
      line_(std::move(line)),
      current_(std::move(current)),
      idle_game_(std::move(game)),
      feed_(sink, board_.id) {}

BusSource::~BusSource() { stop(); }

session::BusBoardConfig BusSource::session_config() {
  session::BusBoardConfig cfg;
  cfg.board_id = board_.id;
  if (auto rc = journal::reconstruct_config(board_.id, current_)) cfg.rules = std::move(*rc);
  cfg.game = std::make_shared<rules::Game>(idle_game_);
  if (idle_) cfg.reconstruction = std::move(idle_);  // unique_ptr to shared_ptr
  return cfg;
}

void BusSource::continue_from(std::unique_ptr<rules::Reconstructor> replayed) {
  if (!running_) idle_ = std::move(replayed);
}

void BusSource::start() {
  if (running_) return;
  running_ = true;
  line_->attach(board_.bus_address, session_config(), feed_.handlers());
}

void BusSource::stop() {
  if (!running_) return;
  if (line_->attached(board_.bus_address)) {
    idle_ = std::make_unique<rules::Reconstructor>(line_->reconstructor(board_.bus_address));
    idle_game_ = idle_->game();
    line_->detach(board_.bus_address);
  }
  running_ = false;
}

const rules::Game& BusSource::game() const {
  if (attached()) return line_->reconstructor(board_.bus_address).game();
  return idle_ ? idle_->game() : idle_game_;
}

const rules::Reconstructor* BusSource::reconstructor() const {
  if (attached()) return &line_->reconstructor(board_.bus_address);
  return idle_.get();
}

std::string bus_board_link(const session::BusSession& line, std::uint16_t address, bool running) {
  if (!running) return "stopped";
  return line.connected() && line.online(address) ? "connected" : "connecting";
}

nlohmann::json bus_board_info(const session::BusSession& line, const config::BoardConfig& board) {
  const std::uint16_t address = board.bus_address;
  nlohmann::json j{{"device", board.port},
                   {"protocol", board.protocol},
                   {"bus_address", address},
                   {"bus_online", line.online(address)}};
  if (auto p = line.port_info())
    j["port"] = {{"name", p->name}, {"transport", std::string(io::to_string(p->transport))}};
  if (const auto rotated = line.rotated(address)) j["rotated"] = *rotated;
  if (auto s = line.board_stats(address))
    j["bus_stats"] = {{"changes_replies", s->changes_replies},
                      {"sensor_events", s->sensor_events},
                      {"events", s->events},
                      {"dumps", s->dumps},
                      {"clock_reads", s->clock_reads},
                      {"board_rereads", s->board_rereads},
                      {"lost", s->lost},
                      {"from_start", s->from_start}};
  j["link_stats"] = link_stats_json(line.link_stats());
  return j;
}

std::string BusSource::link() const { return bus_board_link(*line_, board_.bus_address, running_); }

nlohmann::json BusSource::info() const { return bus_board_info(*line_, board_); }

tl::expected<void, std::string> BusSource::new_game(const journal::NewGameEntry& g) {
  auto pos = journal::start_position(g);
  if (!pos) return tl::unexpected(pos.error());
  current_ = g;
  // A fresh reconstruction, from the board as it stands: attaching again reads it whole.
  const bool was_running = running_;
  stop();
  idle_.reset();
  idle_game_ = rules::Game(*pos);
  if (was_running) start();
  return {};
}

tl::expected<std::vector<rules::Event>, std::string> BusSource::control(const journal::ControlEntry& c) {
  tl::expected<std::vector<rules::Event>, std::string> out = std::vector<rules::Event>{};
  if (attached()) {
    line_->change_reconstructor(board_.bus_address,
                                [&](rules::Reconstructor& rec) { out = journal::apply_control(rec, c); });
    return out;
  }
  if (!idle_) {
    session::BusBoardConfig cfg = session_config();
    rules::ReconstructConfig rc = cfg.rules;
    rc.board_id = board_.id;
    idle_ = std::make_unique<rules::Reconstructor>(std::move(rc), idle_game_);
  }
  out = journal::apply_control(*idle_, c);
  return out;
}

}  // namespace eboard::eboardd
