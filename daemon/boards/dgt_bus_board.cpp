// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/dgt_bus_board.hpp"

#include <algorithm>
#include <optional>
#include <variant>

#include "drivers/dgt/message_encoder.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::daemon {

namespace dgt = eboard::drivers::dgt;

std::vector<rules::SensorEvent> DgtBusBoard::feed(std::int64_t t_ms, std::span<const std::uint8_t> message) {
  std::vector<rules::SensorEvent> out = board_.feed(t_ms, message);
  for (const rules::SensorEvent& e : out)
    if (const auto* r = std::get_if<rules::ClockReading>(&e.what)) reading_ = *r;
  return out;
}

namespace {

// Each record's offset from the first, as the header above counts them.
std::vector<std::int64_t> record_offsets(const dgt::EepromLog& log) {
  const auto& records = log.records;
  const std::size_t n = records.size();
  const auto piece = [&](std::size_t i) { return std::get_if<dgt::PieceChangeRecord>(&records[i]); };
  // Offsets from the first record. Piece records first: a chain of their own (the quick bit is about the
  // previous piece record).
  std::vector<std::int64_t> at(n, 0);
  std::optional<std::int64_t> last_piece;
  for (std::size_t i = 0; i < n; ++i) {
    if (const auto* p = piece(i)) {
      at[i] = last_piece ? *last_piece + (p->quick ? DgtBusBoard::kQuickGapMs : DgtBusBoard::kSlowGapMs) : 0;
      last_piece = at[i];
    }
  }
  // Then the others, between their neighbours; and never before the record before them.
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t before = i ? at[i - 1] : 0;
    if (piece(i)) {
      at[i] = std::max(at[i], before);
      continue;
    }
    if (!std::holds_alternative<dgt::TimeRecord>(records[i]) || i == 0) {
      at[i] = before;  // a tag goes with the change before it
      continue;
    }
    std::int64_t t = before + DgtBusBoard::kPressGapMs;
    for (std::size_t k = i + 1; k < n; ++k) {
      if (const auto* p = piece(k)) {
        if (p->quick) t = std::min(t, at[k] - DgtBusBoard::kQuickGapMs / 2);
        break;
      }
    }
    at[i] = std::max(t, before);
  }
  return at;
}

}  // namespace

std::int64_t DgtBusBoard::records_span(const dgt::EepromLog& log) {
  const std::vector<std::int64_t> at = record_offsets(log);
  return at.empty() ? 0 : at.back();
}

std::vector<std::int64_t> DgtBusBoard::record_times(std::int64_t since_ms, std::int64_t t_ms,
                                                    const dgt::EepromLog& log) {
  const std::vector<std::int64_t> at = record_offsets(log);
  const std::size_t n = at.size();
  std::vector<std::int64_t> out(n, t_ms);
  if (n == 0) return out;
  const std::int64_t span = at[n - 1];
  const std::int64_t room = std::max<std::int64_t>(0, t_ms - since_ms - 1);
  if (span <= room) {
    // The last record as early as kQuietMs before the reply, the first one after the previous reply.
    const std::int64_t end = std::min(t_ms, std::max(t_ms - kQuietMs, since_ms + 1 + span));
    for (std::size_t i = 0; i < n; ++i) out[i] = end - (span - at[i]);
  } else {
    for (std::size_t i = 0; i < n; ++i)
      out[i] = t_ms - static_cast<std::int64_t>(static_cast<double>(span - at[i]) *
                                                static_cast<double>(room) / static_cast<double>(span));
  }
  return out;
}

void DgtBusBoard::press(std::int64_t t_ms, const dgt::TimeRecord& record,
                        std::vector<rules::SensorEvent>& out) {
  const std::int64_t ran_t = std::min(t_ms, std::max(t_ms - 1, out.empty() ? t_ms - 1 : out.back().t_ms));
  // The lever stopped this side's clock: the player of that side pressed, the other side runs now.
  const rules::ClockSide stopped =
      record.side == dgt::ClockSide::Left ? rules::ClockSide::Left : rules::ClockSide::Right;
  const rules::ClockSide other =
      stopped == rules::ClockSide::Left ? rules::ClockSide::Right : rules::ClockSide::Left;
  rules::ClockReading r = reading_.value_or(rules::ClockReading{.left_ms = -1, .right_ms = -1});
  r.present = true;
  if (!reading_ || !reading_->running) {
    // That clock ran until the press: the reading that says so, just before it.
    rules::ClockReading ran = r;
    (stopped == rules::ClockSide::Left ? ran.left_ms : ran.right_ms) = record.time_ms;
    ran.running = true;
    ran.lever_up = stopped;
    out.push_back(rules::SensorEvent{ran_t, ran});
  }
  (stopped == rules::ClockSide::Left ? r.left_ms : r.right_ms) = record.time_ms;
  r.running = true;
  r.lever_up = other;
  reading_ = r;
  out.push_back(rules::SensorEvent{t_ms, r});
}

std::optional<dgt::EepromLog> DgtBusBoard::lost_records(const dgt::EepromLog& from_start) const {
  const auto& want = last_packet_.records;
  const auto& all = from_start.records;
  if (want.empty() || all.size() < want.size()) return std::nullopt;
  // The last place the packet was recorded: what follows it is what was lost.
  for (std::size_t at = all.size() - want.size() + 1; at-- > 0;) {
    if (!std::equal(want.begin(), want.end(), all.begin() + static_cast<std::ptrdiff_t>(at))) continue;
    dgt::EepromLog lost;
    lost.records.assign(all.begin() + static_cast<std::ptrdiff_t>(at + want.size()), all.end());
    return lost;
  }
  return std::nullopt;
}

std::vector<rules::SensorEvent> DgtBusBoard::changes(std::int64_t since_ms, std::int64_t t_ms,
                                                     const dgt::EepromLog& reply) {
  // What repeats the last changes given (a whole packet sent again, maybe with records written since) is
  // dropped: its time records would be presses again.
  std::size_t repeated = 0;
  if (last_log_ && !last_log_->records.empty() && reply.records.size() >= last_log_->records.size() &&
      std::equal(last_log_->records.begin(), last_log_->records.end(), reply.records.begin()))
    repeated = last_log_->records.size();
  last_log_ = reply;
  if (!reply.records.empty()) last_packet_ = reply;
  dgt::EepromLog log;
  log.records.assign(reply.records.begin() + static_cast<std::ptrdiff_t>(repeated), reply.records.end());
  const std::vector<std::int64_t> times = record_times(since_ms, t_ms, log);
  std::vector<rules::SensorEvent> out;
  for (std::size_t i = 0; i < log.records.size(); ++i) {
    const dgt::EepromRecord& record = log.records[i];
    const std::int64_t t = times[i];
    if (const auto* p = std::get_if<dgt::PieceChangeRecord>(&record)) {
      if (p->square >= raw_.size() || raw_[p->square] == p->piece) continue;
      const auto msg = dgt::board_message::field_update(p->square, p->piece);
      if (!msg) continue;
      raw_[p->square] = p->piece;
      auto events = feed(t, *msg);
      out.insert(out.end(), events.begin(), events.end());
    } else if (const auto* tr = std::get_if<dgt::TimeRecord>(&record)) {
      press(t, *tr, out);
    }
  }
  return out;
}

std::vector<rules::SensorEvent> DgtBusBoard::board_dump(std::int64_t t_ms,
                                                        std::span<const std::uint8_t> data) {
  if (data.size() != raw_.size()) return {};
  const auto msg = dgt::board_message::frame(dgt::message::kBoardDump, data);
  if (!msg) return {};
  for (std::size_t i = 0; i < raw_.size(); ++i) raw_[i] = data[i];
  dumped_ = true;
  return feed(t_ms, *msg);
}

std::vector<rules::SensorEvent> DgtBusBoard::clock(std::int64_t t_ms, std::span<const std::uint8_t> data) {
  const auto msg = dgt::board_message::frame(dgt::message::kBwTime, data);
  if (!msg) return {};
  return feed(t_ms, *msg);
}

}  // namespace eboard::daemon
