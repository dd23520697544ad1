// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// DGT's bus dialect (`dgt-bus`) behind the session's bus line (daemon/session/bus_line.hpp): the line's
// master is drivers/dgt/bus_master (SEND_CHANGES, REPEAT_CHANGES and SEND_FROM_START polls, pings,
// BRD and CLK asks, DGT's timeouts), each board's answers are read by a DgtBusBoard, and the frames are
// DGT's (`[id][len_hi][len_lo]...`, the total length in the header). The DGT row names these.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "daemon/boards/dgt_bus_board.hpp"
#include "daemon/session/bus_line.hpp"
#include "drivers/dgt/bus_master.hpp"

namespace eboard::daemon {

class DgtBusLine final : public session::BusLine {
 public:
  // DGT's own timing, with the line's poll interval and the least adapter latency it is given.
  explicit DgtBusLine(const session::BusLineOptions& options);

  void start_discovery() override;
  void add_board(std::uint16_t address) override;
  bool ask(std::uint16_t address, session::BusAsk what) override;
  std::vector<session::BusWire> poll(std::int64_t now_ms) override;
  std::vector<session::BusWire> on_bytes(std::span<const std::uint8_t> bytes, std::int64_t now_ms) override;
  std::optional<std::int64_t> next_deadline(std::int64_t now_ms) const override;
  std::vector<session::BusLineEvent> take_events() override;

  // A DGT reply as the line's answer: changes as a parsed EepromLog (`kind`: what asked for them), the
  // others with their data bytes; what DgtBusReader reads. Capture replay makes its answers so too.
  static session::BusAnswer answer(const drivers::dgt::BusReply& reply, bool to_repeat_changes);

 private:
  drivers::dgt::BusMaster master_;
};

// One DGT board's bus answers through its DgtBusBoard.
class DgtBusReader final : public session::BusBoardReader {
 public:
  std::vector<rules::SensorEvent> changes(std::int64_t since_ms, std::int64_t t_ms,
                                          const session::BusAnswer& answer) override;
  std::optional<Recovered> lost_changes(std::int64_t since_ms, std::int64_t t_ms,
                                        const session::BusAnswer& answer) override;
  std::vector<rules::SensorEvent> board(std::int64_t t_ms, const session::BusAnswer& answer) override;
  std::vector<rules::SensorEvent> clock(std::int64_t t_ms, const session::BusAnswer& answer) override;
  std::int64_t quiet_ms() const override { return DgtBusBoard::kQuietMs; }
  bool clock_known() const override { return board_.last_reading().has_value(); }
  bool rotated() const override { return board_.board().rotated(); }

 private:
  DgtBusBoard board_;
};

// The DGT row's bus dialect entries.
std::unique_ptr<session::BusLine> make_dgt_bus_line(const session::BusLineOptions& options);
std::unique_ptr<session::BusBoardReader> make_dgt_bus_reader();
extern const session::BusFraming DGT_BUS_FRAMING;

}  // namespace eboard::daemon
