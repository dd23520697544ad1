// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/serial_source.hpp"

namespace eboard::eboardd {

SerialSource::SerialSource(boost::asio::io_context& io, BoardSink& sink, config::BoardConfig board,
                           rules::Game game, journal::NewGameEntry current,
                           std::shared_ptr<io::TimeBase> time)
    : io_(io),
      board_(std::move(board)),
      device_(board_.device()),
      current_(std::move(current)),
      time_(std::move(time)),
      idle_game_(std::make_unique<rules::Game>(std::move(game))),
      feed_(sink, board_.id) {}

SerialSource::~SerialSource() { stop(); }

void SerialSource::make_session(std::unique_ptr<rules::Game> game) {
  session::BoardSessionConfig cfg;
  cfg.board_id = board_.id;
  cfg.protocol = board_.protocol;
  cfg.link.device = opened_by_serial() ? board_.serial : device_;
  if (auto rc = journal::reconstruct_config(board_.id, current_)) cfg.rules = std::move(*rc);
  cfg.game = std::move(game);
  cfg.time = time_;

  session::BoardSessionHandlers h = feed_.handlers();
  cfg.reconstruction = std::move(replayed_);  // unique_ptr to shared_ptr
  session_ = std::make_unique<session::BoardSession>(io_, std::move(cfg), std::move(h));
}

void SerialSource::continue_from(std::unique_ptr<rules::Reconstructor> replayed) {
  if (!session_) replayed_ = std::move(replayed);
}

void SerialSource::reconnect_now(const std::string& device) {
  if (!device.empty()) device_ = device;
  if (session_) session_->reconnect_now(opened_by_serial() ? std::string() : device);
}

bool SerialSource::opened_by_serial() const {
  // A USB HID board (Chessnut) has no node to follow: libusb finds it by its serial number, wherever it is
  // plugged in now.
  const session::BoardProtocol* p = session::find_protocol(board_.protocol);
  return p && p->transport == session::Transport::usb_hid && !board_.serial.empty();
}

void SerialSource::start() {
  if (running_) return;
  running_ = true;
  if (!session_) make_session(std::move(idle_game_));
  session_->start();
}

void SerialSource::stop() {
  if (!running_) return;
  running_ = false;
  if (session_) session_->stop();
}

const rules::Game& SerialSource::game() const { return session_ ? session_->game() : *idle_game_; }

std::string SerialSource::link() const {
  if (!running_) return "stopped";
  return session_ && session_->connected() ? "connected" : "connecting";
}

nlohmann::json SerialSource::info() const {
  nlohmann::json j{{"device", device_}, {"protocol", board_.protocol}};
  if (!board_.serial.empty()) j["usb_serial"] = board_.serial;
  if (!session_) return j;
  if (auto p = session_->port_info()) {
    j["port"] = {{"name", p->name},
                 {"transport", std::string(io::to_string(p->transport))},
                 {"usb_serial", p->usb_serial},
                 {"usb_product", p->usb_product}};
    if (p->usb_vid) j["port"]["usb_vid"] = *p->usb_vid;
    if (p->usb_pid) j["port"]["usb_pid"] = *p->usb_pid;
  }
  // Set up turned round (Black at the connector's side): the operator's page draws it as it stands.
  j["rotated"] = session_->rotated();
  j["link_stats"] = link_stats_json(session_->link_stats());
  const auto& ss = session_->stats();
  j["session_stats"] = {{"sensor_events", ss.sensor_events},
                        {"events", ss.events},
                        {"dump_timeouts", ss.dump_timeouts},
                        {"board_rereads", ss.board_rereads}};
  return j;
}

tl::expected<void, std::string> SerialSource::new_game(const journal::NewGameEntry& g) {
  auto pos = journal::start_position(g);
  if (!pos) return tl::unexpected(pos.error());
  current_ = g;
  replayed_.reset();
  // A fresh reconstruction means a fresh session; reconnecting re-reads the board, as a new game should.
  bool was_running = running_;
  stop();
  session_.reset();
  idle_game_ = std::make_unique<rules::Game>(*pos);
  if (was_running) start();
  return {};
}

tl::expected<std::vector<rules::Event>, std::string> SerialSource::control(const journal::ControlEntry& c) {
  if (!session_) make_session(std::move(idle_game_));
  tl::expected<std::vector<rules::Event>, std::string> out = std::vector<rules::Event>{};
  session_->change_reconstructor([&](rules::Reconstructor& rec) { out = journal::apply_control(rec, c); });
  return out;
}

}  // namespace eboard::eboardd

namespace eboard::eboardd {

tl::expected<void, std::string> serial_clock_settable(const config::BoardConfig& board,
                                                      const session::BoardSession* session, bool running,
                                                      const std::optional<rules::ClockReading>& reading) {
  const session::BoardProtocol* p = session::find_protocol(board.protocol);
  if (p && !p->make_clock_port)
    return tl::unexpected("board " + board.id + " is a " + std::string(p->name) +
                          " board: no clock comes through it, so the daemon cannot set one");
  if (!session || !running || !session->connected())
    return tl::unexpected("board " + board.id + " is offline: its clock cannot be reached");
  if (reading && !reading->present)
    return tl::unexpected("board " + board.id + " reports no clock connected");
  return {};
}

tl::expected<void, std::string> SerialSource::clock_settable() const {
  return serial_clock_settable(
      board_, session_.get(), running_,
      session_ ? session_->reconstructor().last_clock_reading() : std::optional<rules::ClockReading>{});
}

tl::expected<void, std::string> SerialSource::clock_command(const session::ClockRequest& request,
                                                            ClockDone done) {
  if (auto ok = clock_settable(); !ok) return ok;
  return session_->clock_command(request, std::move(done));
}

}  // namespace eboard::eboardd
