// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/dgt_bus_replay.hpp"

#include <charconv>
#include <optional>
#include <utility>
#include <vector>

#include "daemon/boards/dgt_bus_line.hpp"
#include "daemon/session/bus_board_feed.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::session {

using namespace eboard::rules;

namespace {

tl::expected<std::uint16_t, std::string> bus_address_of(const drivers::Capture& capture) {
  for (const auto& h : capture.info.other_headers) {
    if (h.key != drivers::kBusAddressHeader) continue;
    int address = 0;
    const char* end = h.value.data() + h.value.size();
    auto [ptr, err] = std::from_chars(h.value.data(), end, address);
    if (err != std::errc() || ptr != end || address < 1 || address > drivers::dgt::bus::kMaxAddress)
      return tl::unexpected("bus-address '" + h.value + "' is not a bus address (1.." +
                            std::to_string(drivers::dgt::bus::kMaxAddress) + ")");
    return static_cast<std::uint16_t>(address);
  }
  return tl::unexpected(std::string("a dgt-bus capture needs a 'bus-address' header"));
}

}  // namespace

// One board of a DGT bus line: its frames through the bus decoder and its BusBoardFeed, the code the
// line's session runs live (bus_session.cpp), and the board's reconstruction advanced as the session's
// timer does it: when the feed is due, to the board's last reply. The host's commands tell which
// question a changes reply answers (REPEAT_CHANGES: maybe one delivered already); what they asked for
// is in the capture already, so the feed's own wishes (a dump, a re-read) are not acted on. A return
// is the board's first answer after `! offline`, as live; `! online` records add nothing.
tl::expected<ReplayResult, std::string> replay_dgt_bus_capture(const drivers::Capture& capture,
                                                               rules::ReconstructConfig cfg) {
  namespace dgt = drivers::dgt;
  auto address = bus_address_of(capture);
  if (!address) return tl::unexpected(address.error());
  std::vector<Event> events;
  BoardSessionHandlers handlers;
  handlers.on_event = [&](const Event& e) { events.push_back(e); };
  BusBoardConfig board;
  board.board_id = cfg.board_id;
  board.rules = std::move(cfg);
  BusBoardFeed feed(*address, "address " + std::to_string(*address) + " in the capture",
                    daemon::make_dgt_bus_reader());
  feed.attach(std::move(board), std::move(handlers));
  dgt::BusDecoder decoder;
  std::vector<std::uint8_t> command;  // the host's bytes, cut into 4-byte commands
  std::uint8_t pending = 0;           // the last command to the board not answered yet (0: none)
  const auto settle = [&] {
    // As the session's timer: a deadline the last reply reached is taken, then the next, if it did too.
    for (std::optional<std::int64_t> due = feed.due(), last; due && due != last; due = feed.due()) {
      last = due;
      feed.advance();
    }
  };
  std::vector<dgt::BusFrame> frames;
  for (const auto& record : capture.records) {
    if (record.link) {
      if (!*record.link) feed.lost(record.t_ms, "offline in the capture");
      continue;
    }
    if (record.direction == drivers::Direction::ToBoard) {
      for (std::uint8_t byte : record.bytes) {
        command.push_back(byte);
        if (command.size() < dgt::bus::kCommandSize) continue;
        const dgt::BusCommandBytes c{command[0], command[1], command[2], command[3]};
        if (dgt::bus_command_address(c) == *address) pending = c[0];
        command.clear();
      }
      continue;
    }
    frames.clear();
    decoder.feed(record.bytes, frames);
    for (const dgt::BusFrame& f : frames) {
      const auto* reply = std::get_if<dgt::BusReply>(&f);
      if (!reply || reply->address != *address) continue;
      const std::uint8_t asked = std::exchange(pending, std::uint8_t{0});
      feed.answer(record.t_ms, daemon::DgtBusLine::answer(*reply, asked == dgt::bus::kRepeatChanges));
      settle();
    }
  }
  return ReplayResult{std::move(events), feed.reconstructor().game(), std::nullopt};
}

}  // namespace eboard::session
