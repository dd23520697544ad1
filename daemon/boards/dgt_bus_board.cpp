// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/boards/dgt_bus_board.hpp"

#include <algorithm>
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

std::vector<rules::SensorEvent> DgtBusBoard::changes(std::int64_t since_ms, std::int64_t t_ms,
                                                     const dgt::EepromLog& log) {
  // Offsets back from the last record (at t_ms), then squeezed into (since_ms, t_ms].
  const std::size_t n = log.records.size();
  std::vector<std::int64_t> back(n, 0);
  for (std::size_t i = n; i-- > 1;) {
    std::int64_t gap = kSlowGapMs;
    if (const auto* p = std::get_if<dgt::PieceChangeRecord>(&log.records[i]))
      gap = p->quick ? kQuickGapMs : kSlowGapMs;
    else if (std::holds_alternative<dgt::TimeRecord>(log.records[i]))
      gap = kPressGapMs;
    else
      gap = 0;  // a tag is written with the change that caused it
    back[i - 1] = back[i] + gap;
  }
  const std::int64_t room = std::max<std::int64_t>(0, t_ms - since_ms - 1);
  const std::int64_t span = n ? back[0] : 0;
  const auto time_of = [&](std::size_t i) {
    if (span <= room || span == 0) return t_ms - back[i];
    return t_ms - static_cast<std::int64_t>(static_cast<double>(back[i]) * static_cast<double>(room) /
                                            static_cast<double>(span));
  };
  std::vector<rules::SensorEvent> out;
  for (std::size_t i = 0; i < n; ++i) {
    const dgt::EepromRecord& record = log.records[i];
    const std::int64_t t = time_of(i);
    if (const auto* p = std::get_if<dgt::PieceChangeRecord>(&record)) {
      if (p->square >= raw_.size() || raw_[p->square] == p->piece) continue;
      const auto msg = dgt::board_message::field_update(p->square, p->piece);
      if (!msg) continue;
      raw_[p->square] = p->piece;
      auto events = feed(t, *msg);
      out.insert(out.end(), events.begin(), events.end());
    } else if (const auto* tr = std::get_if<dgt::TimeRecord>(&record)) {
      // The lever stopped this side's clock: the player of that side pressed, the other side runs now.
      rules::ClockReading r = reading_.value_or(rules::ClockReading{});
      const bool left = tr->side == dgt::ClockSide::Left;
      (left ? r.left_ms : r.right_ms) = tr->time_ms;
      r.running = true;
      r.present = true;
      r.lever_up = left ? rules::ClockSide::Right : rules::ClockSide::Left;
      reading_ = r;
      out.push_back(rules::SensorEvent{t, r});
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
