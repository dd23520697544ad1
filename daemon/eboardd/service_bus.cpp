// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The service's bus lines ([[bus]]): one session::BusSession per port, shared by the boards on it (each a
// board like any other, with a BusSource), and the boards discovery finds on a line without a list. The
// line speaks its boards' protocol row's bus dialect.
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "daemon/eboardd/service.hpp"

namespace eboard::eboardd {

std::shared_ptr<session::BusSession> Service::bus_line(const std::string& port) {
  auto& line = bus_lines_[port];
  if (line) return line;
  const config::BusConfig* bus = nullptr;
  for (const auto& b : config_.buses)
    if (b.port == port) bus = &b;
  // The protocol of the line's boards: a listed board's, or the one a board found by discovery gets.
  std::string protocol = config::BoardConfig{}.protocol;
  for (const auto& b : config_.boards)
    if (b.bus_address != 0 && b.port == port) protocol = b.protocol;
  const session::BoardProtocol* row = session::find_protocol(protocol);
  if (!row || !row->make_bus_line || !row->make_bus_board)
    throw std::runtime_error(
        "bus " + port + ": protocol '" + protocol + "' has no bus mode (boards that share a line: " +
        session::protocol_names([](const session::BoardProtocol& p) { return p.make_bus_line != nullptr; }) +
        ")");
  session::BusSessionConfig cfg;
  cfg.protocol = row;
  cfg.link.device = port;
  cfg.discover = bus && bus->discovery();
  if (bus) cfg.line.poll_interval_ms = bus->poll_ms;
  cfg.time = options_.time;
  line = std::make_shared<session::BusSession>(io_, std::move(cfg));
  line->on_log = [](session::LogLevel level, const std::string& text) {
    if (level == session::LogLevel::info)
      spdlog::info("{}", text);
    else
      spdlog::warn("{}", text);
  };
  if (bus && bus->discovery())
    line->on_board_found = [this, port](std::uint16_t address) { on_bus_board_found(port, address); };
  line->start();
  spdlog::info("bus {}: {} line, {}", port, row->bus_dialect,
               bus && bus->discovery() ? "boards found by ping"
                                       : std::to_string(bus ? bus->addresses.size() : 0) + " boards listed");
  return line;
}

void Service::start_bus_discovery() {
  for (const auto& b : config_.buses)
    if (b.discovery()) (void)bus_line(b.port);
}

void Service::on_bus_board_found(const std::string& port, std::uint16_t address) {
  const std::string id = config::discovered_bus_board_id(address);
  if (board(id)) return;  // found again after a reconnect: it runs already
  if (config_.board(id)) {
    spdlog::warn("bus {}: the board at address {} is not started: the id {} is taken", port, address, id);
    return;
  }
  config::BoardConfig bc;
  bc.id = id;
  bc.port = port;
  bc.bus_address = address;
  for (const auto& b : config_.buses)
    if (b.port == port) bc.rules = b.rules;
  spdlog::info("bus {}: board found at address {}: board {}", port, address, id);
  add_board(bc);
  order_boards();
}

}  // namespace eboard::eboardd
