// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/dgt/bus_master.hpp"

#include <algorithm>
#include <utility>

#include "drivers/dgt/protocol.hpp"

namespace eboard::drivers::dgt {

std::optional<std::uint8_t> expected_bus_reply(std::uint8_t command) {
  switch (command) {
    case bus::kClock:
      return bus::kReplyBwTime;
    case bus::kBoard:
      return bus::kReplyBoardDump;
    case bus::kSendChanges:
    case bus::kRepeatChanges:
      return bus::kReplyChanges;
    case bus::kSetStartGame:
      return bus::kReplyStartWritten;
    case bus::kSendFromStart:
      return bus::kReplyFromStart;
    case bus::kPing:
      return bus::kReplyPing;
    case bus::kVersion:
      return bus::kReplyVersion;
    case bus::kBoard50B:
      return bus::kReplyBoardDump50B;
    // SEND_ALL answers with three frames: they come as events, without waiting for them.
    default:
      return std::nullopt;
  }
}

std::size_t expected_bus_reply_size(std::uint8_t command) {
  switch (command) {
    case bus::kClock:
      return bus::kReplyOverhead + 7;
    case bus::kBoard:
      return bus::kReplyOverhead + 64;
    case bus::kVersion:
      return bus::kReplyOverhead + 2;
    default:
      return expected_bus_reply(command) ? bus::kReplyOverhead : 0;
  }
}

std::int64_t bus_wire_ms(std::size_t bytes, int baud) {
  if (baud <= 0) return 0;
  const auto bits = static_cast<std::int64_t>(bytes) * 10 * 1000;
  return (bits + baud - 1) / baud;
}

BusMaster::BusMaster(BusMasterOptions options) : options_(options) {}

void BusMaster::start_discovery() {
  phase_ = Phase::Discovery;
  ping_pending_ = true;
  rounds_ = 0;
  awaiting_.reset();
}

void BusMaster::add_board(std::uint16_t address) {
  if (find_board(address) != nullptr || address > bus::kMaxAddress) return;
  boards_.push_back(Board{.address = address, .next_command = bus::kSendChanges});
}

tl::expected<void, EncodeError> BusMaster::request(std::uint16_t address, std::uint8_t command) {
  if (auto encoded = encode_bus_command(command, address); !encoded) return tl::unexpected(encoded.error());
  requests_.push_back(Request{address, command});
  return {};
}

BusMaster::Board* BusMaster::find_board(std::uint16_t address) {
  const auto it =
      std::find_if(boards_.begin(), boards_.end(), [&](const Board& b) { return b.address == address; });
  return it == boards_.end() ? nullptr : &*it;
}

std::vector<std::uint16_t> BusMaster::boards() const {
  std::vector<std::uint16_t> out;
  out.reserve(boards_.size());
  for (const Board& b : boards_) out.push_back(b.address);
  return out;
}

void BusMaster::send(std::uint8_t command, std::uint16_t address, std::int64_t now_ms, bool is_poll,
                     std::vector<BusCommandBytes>& out) {
  const auto bytes = encode_bus_command(command, address);
  if (!bytes) return;  // addresses and commands are checked on the way in
  out.push_back(*bytes);
  if (const auto reply = expected_bus_reply(command)) {
    // The whole expected reply on the wire after the board's latency, and at least DGT's time-out for it
    // to begin.
    const std::int64_t on_line = now_ms + wire_ms(bus::kCommandSize);
    const std::int64_t whole = on_line + options_.board_latency_ms +
                               wire_ms(expected_bus_reply_size(command)) + options_.adapter_latency_ms +
                               options_.margin_ms;
    awaiting_ = Exchange{.address = address,
                         .command = command,
                         .expected_reply = *reply,
                         .deadline_ms = std::max(whole, on_line + options_.answer_timeout_ms),
                         .is_poll = is_poll};
  }
}

std::vector<BusCommandBytes> BusMaster::poll(std::int64_t now_ms) {
  std::vector<BusCommandBytes> out;
  if (now_ms < busy_until_) return out;  // a frame is on the wire
  if (awaiting_) {
    if (now_ms < awaiting_->deadline_ms) return out;
    on_failure(now_ms, /*timed_out=*/true);
  }
  if (phase_ == Phase::Discovery) poll_discovery(now_ms, out);
  if (phase_ == Phase::Polling) poll_boards(now_ms, out);
  return out;
}

void BusMaster::poll_discovery(std::int64_t now_ms, std::vector<BusCommandBytes>& out) {
  if (!ping_pending_ && now_ms < window_end_ms_) return;
  if (!ping_pending_) {
    // The answer window is over. Another round is needed if it brought a new board, or garbled answers
    // (boards that answered together and did not hear an IGNORE_NEXT_PING yet).
    const bool again = (round_found_new_ || round_saw_garble_) && rounds_ < options_.max_discovery_rounds;
    if (!again) {
      phase_ = Phase::Polling;
      for (Board& b : boards_) b.due_ms = kDueNow;
      events_.emplace_back(BusDiscoveryFinished{boards()});
      return;
    }
  }
  for (const Board& b : boards_) {
    if (const auto bytes = encode_bus_command(bus::kIgnoreNextPing, b.address)) out.push_back(*bytes);
  }
  if (const auto bytes = encode_bus_command(bus::kPing, 0)) out.push_back(*bytes);
  ping_pending_ = false;
  round_found_new_ = false;
  round_saw_garble_ = false;
  ++rounds_;
  window_end_ms_ = now_ms + options_.discovery_window_ms;
}

void BusMaster::poll_boards(std::int64_t now_ms, std::vector<BusCommandBytes>& out) {
  // One exchange at a time: boards share the line, and each holds a single command.
  while (!awaiting_ && !requests_.empty()) {
    const Request r = requests_.front();
    requests_.pop_front();
    send(r.command, r.address, now_ms, /*is_poll=*/false, out);
  }
  if (awaiting_ || boards_.empty()) return;
  // The board due first; ties go round-robin, starting after the last one served.
  std::optional<std::size_t> chosen;
  for (std::size_t k = 0; k < boards_.size(); ++k) {
    const std::size_t i = (cursor_ + k) % boards_.size();
    if (boards_[i].due_ms > now_ms) continue;
    if (!chosen || boards_[i].due_ms < boards_[*chosen].due_ms) chosen = i;
  }
  if (!chosen) return;
  cursor_ = *chosen + 1;
  Board& b = boards_[*chosen];
  send(b.next_command, b.address, now_ms, /*is_poll=*/true, out);
}

void BusMaster::on_bytes(std::span<const std::uint8_t> bytes, std::int64_t now_ms) {
  frames_.clear();
  decoder_.feed(bytes, frames_);
  for (const BusFrame& f : frames_) on_frame(f, now_ms);
  // A frame still arriving keeps the line busy for what its header announces (at least a byte more), and
  // its next byte is awaited at least DGT's time-out.
  busy_until_ = kDueNow;
  if (const std::size_t pending = decoder_.pending_bytes(); pending > 0) {
    const std::size_t size = decoder_.expected_size();
    const std::size_t left = size > pending ? size - pending : 1;
    busy_until_ = now_ms + wire_ms(left) +
                  std::max(options_.adapter_latency_ms + options_.margin_ms, options_.answer_timeout_ms);
    if (awaiting_) awaiting_->deadline_ms = std::max(awaiting_->deadline_ms, busy_until_);
  }
}

void BusMaster::on_frame(const BusFrame& frame, std::int64_t now_ms) {
  if (phase_ == Phase::Discovery) {
    if (const auto* reply = std::get_if<BusReply>(&frame)) {
      if (reply->id == bus::kReplyPing) {
        if (find_board(reply->address) == nullptr && reply->address <= bus::kMaxAddress) {
          add_board(reply->address);
          events_.emplace_back(BusBoardFound{reply->address});
          round_found_new_ = true;
        }
      } else {
        emit_reply(*reply);
      }
    } else {
      round_saw_garble_ = true;
    }
    return;
  }
  if (const auto* reply = std::get_if<BusReply>(&frame)) {
    on_reply(*reply, now_ms);
  } else if (awaiting_) {
    on_failure(now_ms, /*timed_out=*/false);
  }
}

void BusMaster::emit_reply(const BusReply& reply) {
  if (reply.id == bus::kReplyChanges || reply.id == bus::kReplyFromStart) {
    events_.emplace_back(
        BusChanges{.address = reply.address,
                   .kind = reply.id == bus::kReplyFromStart ? BusChangesKind::FromStart : BusChangesKind::New,
                   .log = parse_eeprom_records(reply.data)});
  } else {
    events_.emplace_back(BusReplyReceived{reply});
  }
}

void BusMaster::on_reply(const BusReply& reply, std::int64_t now_ms) {
  if (!awaiting_ || reply.address != awaiting_->address || reply.id != awaiting_->expected_reply) {
    emit_reply(reply);
    return;
  }
  const Exchange ex = *awaiting_;
  awaiting_.reset();
  if (Board* b = find_board(ex.address)) {
    b->failures = 0;
    if (ex.is_poll) {
      b->repeats = 0;
      b->next_command = bus::kSendChanges;
      b->due_ms = now_ms + options_.poll_interval_ms;
    }
  }
  if (ex.command == bus::kRepeatChanges) {
    events_.emplace_back(BusChanges{
        .address = reply.address, .kind = BusChangesKind::Repeated, .log = parse_eeprom_records(reply.data)});
    return;
  }
  emit_reply(reply);
}

void BusMaster::on_failure(std::int64_t now_ms, bool timed_out) {
  const Exchange ex = *awaiting_;
  awaiting_.reset();
  if (!ex.is_poll) {
    events_.emplace_back(BusRequestFailed{ex.address, ex.command});
    return;
  }
  Board* b = find_board(ex.address);
  if (b == nullptr) return;
  if (timed_out && ++b->failures >= options_.max_failures) {
    events_.emplace_back(BusBoardLost{b->address});
    boards_.erase(boards_.begin() + (b - boards_.data()));
    if (cursor_ >= boards_.size()) cursor_ = 0;
    return;
  }
  // The answer may have been sent and lost: ask for it again, and for everything once repeats do not help.
  if (ex.command != bus::kSendFromStart) {
    if (b->repeats < options_.max_repeats) {
      ++b->repeats;
      b->next_command = bus::kRepeatChanges;
    } else {
      b->repeats = 0;
      b->next_command = bus::kSendFromStart;
    }
  }
  b->due_ms = now_ms;
}

std::optional<std::int64_t> BusMaster::next_deadline() const {
  if (awaiting_) return std::max(awaiting_->deadline_ms, busy_until_);
  std::optional<std::int64_t> next = next_due();
  if (next && *next < busy_until_) next = busy_until_;
  return next;
}

std::optional<std::int64_t> BusMaster::next_due() const {
  if (phase_ == Phase::Discovery) return ping_pending_ ? kDueNow : window_end_ms_;
  if (!requests_.empty()) return kDueNow;
  std::optional<std::int64_t> earliest;
  for (const Board& b : boards_) {
    if (!earliest || b.due_ms < *earliest) earliest = b.due_ms;
  }
  return earliest;
}

std::vector<BusEvent> BusMaster::take_events() { return std::exchange(events_, {}); }

}  // namespace eboard::drivers::dgt
