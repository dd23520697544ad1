// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/dgt_bus_line.hpp"

#include <algorithm>
#include <utility>
#include <variant>

#include "drivers/dgt/eeprom.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::daemon {

namespace dgt = drivers::dgt;
using session::BusAnswer;
using session::BusAnswerKind;
using session::BusAsk;

namespace {

dgt::BusMasterOptions master_options(const session::BusLineOptions& options) {
  dgt::BusMasterOptions out;
  out.poll_interval_ms = options.poll_interval_ms;
  out.adapter_latency_ms = std::max(out.adapter_latency_ms, options.adapter_latency_ms);
  return out;
}

std::uint8_t command_of(BusAsk what) {
  switch (what) {
    case BusAsk::from_start:
      return dgt::bus::kSendFromStart;
    case BusAsk::board:
      return dgt::bus::kBoard;
    case BusAsk::clock:
      return dgt::bus::kClock;
  }
  return dgt::bus::kSendFromStart;
}

std::optional<BusAsk> ask_of(std::uint8_t command) {
  if (command == dgt::bus::kSendFromStart) return BusAsk::from_start;
  if (command == dgt::bus::kBoard) return BusAsk::board;
  if (command == dgt::bus::kClock) return BusAsk::clock;
  return std::nullopt;
}

BusAnswer changes_answer(BusAnswerKind kind, dgt::EepromLog log) {
  BusAnswer a;
  a.kind = kind;
  a.records = log.records.size();
  a.data = std::move(log);
  return a;
}

BusAnswerKind kind_of(dgt::BusChangesKind kind) {
  switch (kind) {
    case dgt::BusChangesKind::New:
      return BusAnswerKind::changes;
    case dgt::BusChangesKind::Repeated:
      return BusAnswerKind::changes_repeated;
    case dgt::BusChangesKind::FromStart:
      return BusAnswerKind::changes_from_start;
  }
  return BusAnswerKind::changes;
}

const dgt::EepromLog& log_of(const BusAnswer& answer) {
  static const dgt::EepromLog none;
  const auto* log = std::any_cast<dgt::EepromLog>(&answer.data);
  return log ? *log : none;
}

std::span<const std::uint8_t> data_of(const BusAnswer& answer) {
  const auto* data = std::any_cast<std::vector<std::uint8_t>>(&answer.data);
  return data ? std::span<const std::uint8_t>(*data) : std::span<const std::uint8_t>{};
}

std::size_t dgt_frame_size(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 3) return 0;
  if ((bytes[0] & dgt::kMessageStartBit) == 0) return 1;  // not a frame start: passed on alone
  const std::size_t size = std::size_t(bytes[1] & dgt::kSevenBits) << 7 | (bytes[2] & dgt::kSevenBits);
  if (size < 3) return 1;
  return bytes.size() < size ? 0 : size;
}

bool dgt_answers_discovery(std::span<const std::uint8_t> frame) {
  return !frame.empty() && frame[0] == dgt::bus::kReplyPing;
}

}  // namespace

DgtBusLine::DgtBusLine(const session::BusLineOptions& options) : master_(master_options(options)) {}

void DgtBusLine::start_discovery() { master_.start_discovery(); }
void DgtBusLine::add_board(std::uint16_t address) { master_.add_board(address); }

bool DgtBusLine::ask(std::uint16_t address, BusAsk what) {
  return static_cast<bool>(master_.request(address, command_of(what)));
}

std::vector<session::BusWire> DgtBusLine::poll(std::int64_t now_ms) {
  std::vector<session::BusWire> out;
  for (const dgt::BusCommandBytes& c : master_.poll(now_ms))
    out.push_back({dgt::bus_command_address(c), std::vector<std::uint8_t>(c.begin(), c.end())});
  return out;
}

std::vector<session::BusWire> DgtBusLine::on_bytes(std::span<const std::uint8_t> bytes, std::int64_t now_ms) {
  master_.on_bytes(bytes, now_ms);
  std::vector<session::BusWire> out;
  for (const dgt::BusFrame& f : master_.last_frames())
    if (const auto* reply = std::get_if<dgt::BusReply>(&f))
      out.push_back({reply->address, dgt::encode_bus_reply(reply->id, reply->address, reply->data)});
  return out;
}

std::optional<std::int64_t> DgtBusLine::next_deadline(std::int64_t now_ms) const {
  const auto d = master_.next_deadline();
  if (d && *d == dgt::BusMaster::kDueNow) return now_ms;
  return d;
}

BusAnswer DgtBusLine::answer(const dgt::BusReply& reply, bool to_repeat_changes) {
  if (reply.id == dgt::bus::kReplyChanges || reply.id == dgt::bus::kReplyFromStart) {
    const BusAnswerKind kind = reply.id == dgt::bus::kReplyFromStart ? BusAnswerKind::changes_from_start
                               : to_repeat_changes                   ? BusAnswerKind::changes_repeated
                                                                     : BusAnswerKind::changes;
    return changes_answer(kind, dgt::parse_eeprom_records(reply.data));
  }
  BusAnswer a;
  a.kind = reply.id == dgt::bus::kReplyBoardDump ? BusAnswerKind::board
           : reply.id == dgt::bus::kReplyBwTime  ? BusAnswerKind::clock
                                                 : BusAnswerKind::other;
  a.data = reply.data;
  return a;
}

std::vector<session::BusLineEvent> DgtBusLine::take_events() {
  std::vector<session::BusLineEvent> out;
  for (dgt::BusEvent& ev : master_.take_events()) {
    std::visit(
        [&out](auto& e) {
          using E = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<E, dgt::BusBoardFound>) {
            out.emplace_back(session::BusBoardFound{e.address});
          } else if constexpr (std::is_same_v<E, dgt::BusDiscoveryFinished>) {
            out.emplace_back(session::BusDiscoveryDone{e.boards.size()});
          } else if constexpr (std::is_same_v<E, dgt::BusChanges>) {
            out.emplace_back(
                session::BusAnswered{e.address, changes_answer(kind_of(e.kind), std::move(e.log))});
          } else if constexpr (std::is_same_v<E, dgt::BusBoardLost>) {
            out.emplace_back(session::BusBoardLost{e.address});
          } else if constexpr (std::is_same_v<E, dgt::BusReplyReceived>) {
            out.emplace_back(session::BusAnswered{e.reply.address, answer(e.reply, false)});
          } else if constexpr (std::is_same_v<E, dgt::BusRequestFailed>) {
            if (const auto what = ask_of(e.command))
              out.emplace_back(session::BusAskFailed{e.address, *what});
          }
        },
        ev);
  }
  return out;
}

std::vector<rules::SensorEvent> DgtBusReader::changes(std::int64_t since_ms, std::int64_t t_ms,
                                                      const BusAnswer& answer) {
  return board_.changes(since_ms, t_ms, log_of(answer));
}

std::optional<session::BusBoardReader::Recovered> DgtBusReader::lost_changes(std::int64_t since_ms,
                                                                             std::int64_t t_ms,
                                                                             const BusAnswer& answer) {
  const std::optional<dgt::EepromLog> lost = board_.lost_records(log_of(answer));
  if (!lost) return std::nullopt;
  // As early as they fit: the last one where changes() puts it when the reply comes its quiet span after.
  const std::int64_t until =
      std::min(t_ms, since_ms + 1 + DgtBusBoard::records_span(*lost) + DgtBusBoard::kQuietMs);
  return Recovered{lost->records.size(), board_.changes(since_ms, until, *lost)};
}

std::vector<rules::SensorEvent> DgtBusReader::board(std::int64_t t_ms, const BusAnswer& answer) {
  return board_.board_dump(t_ms, data_of(answer));
}

std::vector<rules::SensorEvent> DgtBusReader::clock(std::int64_t t_ms, const BusAnswer& answer) {
  return board_.clock(t_ms, data_of(answer));
}

std::unique_ptr<session::BusLine> make_dgt_bus_line(const session::BusLineOptions& options) {
  return std::make_unique<DgtBusLine>(options);
}

std::unique_ptr<session::BusBoardReader> make_dgt_bus_reader() { return std::make_unique<DgtBusReader>(); }

const session::BusFraming DGT_BUS_FRAMING{.frame_size = dgt_frame_size,
                                          .answers_discovery = dgt_answers_discovery};

}  // namespace eboard::daemon
