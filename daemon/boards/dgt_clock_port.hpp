// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The clock behind a DGT board (a DGT 3000, or an XL through the board) as a session::ClockPort: requests
// become DGT clock commands, wrapped for the board; one goes at a time, each waiting for the clock's ACK
// and resent when none comes (drivers::dgt::ClockQueue's rules). The ACKs come in the board's bytes: the
// port reads them from the DgtBoard it is given (its on_message), which must outlive the port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/boards/dgt_board.hpp"
#include "daemon/session/clock_port.hpp"
#include "drivers/dgt/clock_queue.hpp"

namespace eboard::daemon {

class DgtClockPort final : public session::ClockPort {
 public:
  explicit DgtClockPort(DgtBoard& board, drivers::dgt::ClockQueueOptions options = {});
  ~DgtClockPort() override;

  // The DGT command a request becomes (times floored to seconds; a beep in 64 ms steps, 1 to 127), or
  // why the clock cannot take it.
  [[nodiscard]] static tl::expected<drivers::dgt::ClockCommand, std::string> command_of(
      const session::ClockRequest& request);

  [[nodiscard]] tl::expected<std::uint64_t, std::string> enqueue(
      const session::ClockRequest& request) override;
  [[nodiscard]] std::optional<std::vector<std::uint8_t>> next_to_send(std::int64_t now_ms) override;
  [[nodiscard]] bool waiting_for_answer() const override { return queue_.waiting_for_ack(); }
  [[nodiscard]] std::optional<std::int64_t> next_deadline(std::int64_t now_ms) const override;
  [[nodiscard]] std::vector<session::ClockResult> take_results() override;
  void clear() override;
  void settle(std::int64_t now_ms) override;

 private:
  DgtBoard& board_;
  drivers::dgt::ClockQueue queue_;
  std::vector<drivers::dgt::ClockAck> acks_;  // received, not yet settled
};

}  // namespace eboard::daemon
