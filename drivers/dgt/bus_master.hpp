// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The bus master: finds the boards on a DGT bus and polls them round-robin for changes.
// Pure state machine: bytes and time in; commands to write, deadlines and events out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include <tl/expected.hpp>

#include "drivers/dgt/bus.hpp"
#include "drivers/dgt/eeprom.hpp"

namespace eboard::drivers::dgt {

// Wire timing. One line carries every board's replies, so a command written while a reply is still on
// the wire collides with it. The master writes its next command only when the awaited reply is in whole,
// or when the time the whole expected reply needs has passed: the command's bytes and the reply's at the
// line's baud rate (10 bits a byte: start, 8 data, stop), plus the board's latency, the serial adapter's
// and a margin. A reply whose header announces more bytes (a changes reply of many records) extends that
// wait to its length; any frame still arriving keeps the line busy. The adapter's latency is the time a
// USB serial adapter may hold received bytes before it hands them to the host (FTDI's latency timer,
// 16 ms by default): a reply read that late is still on time, and a command written then would collide.
// Two waits are never shorter than DGT's time-out (about 80 ms, as DGT's header gives it): the wait for
// a reply's first byte after the command, and the wait for the rest of a frame after the last byte seen.
// A board that answers sends its reply whole, byte after byte: a frame's bytes that stop coming were cut
// on the line or are still held on their way to the host (a loaded host, a pty or network bridge whose
// kernel or server hands them over late), and a command written before they come would go over them. A
// reply that is in whole frees the line at once, so these waits cost time only when a board is silent or
// a reply was cut.
struct BusMasterOptions {
  int baud = 9600;
  std::int64_t board_latency_ms = 20;  // a board answers within a few ms, up to 20 ms during an EEPROM write
  std::int64_t adapter_latency_ms = 16;  // bytes received are handed to the host up to this late
  std::int64_t margin_ms = 10;
  std::int64_t answer_timeout_ms = 80;      // DGT's time-out: the least wait for a reply to begin, or go on
  std::int64_t discovery_window_ms = 1200;  // boards answer a ping at a random moment within 1.1 s
  int max_discovery_rounds = 16;
  std::int64_t poll_interval_ms = 1000;  // each board is asked for changes at most this often
  int max_repeats = 2;                   // REPEAT_CHANGES tries before falling back to SEND_FROM_START
  int max_failures = 5;                  // unanswered exchanges in a row before a board counts as lost
};

struct BusBoardFound {
  std::uint16_t address = 0;
  bool operator==(const BusBoardFound&) const = default;
};

struct BusDiscoveryFinished {
  std::vector<std::uint16_t> boards;
  bool operator==(const BusDiscoveryFinished&) const = default;
};

enum class BusChangesKind : std::uint8_t {
  // Answer to SEND_CHANGES; also any changes reply that answers no exchange awaited (one that came after
  // the master gave its exchange up): that may be a repeat too.
  New,
  // Answer to REPEAT_CHANGES: may repeat records already delivered. A time record given twice would be a
  // second press: a reader drops what repeats.
  Repeated,
  FromStart,  // answer to SEND_FROM_START: the whole record since SET_START_GAME; replaces what came before
};

struct BusChanges {
  std::uint16_t address = 0;
  BusChangesKind kind = BusChangesKind::New;
  EepromLog log;
  bool operator==(const BusChanges&) const = default;
};

struct BusBoardLost {
  std::uint16_t address = 0;
  bool operator==(const BusBoardLost&) const = default;
};

// A reply that is not a change report: answers to request(), or anything unexpected.
struct BusReplyReceived {
  BusReply reply;
  bool operator==(const BusReplyReceived&) const = default;
};

struct BusRequestFailed {
  std::uint16_t address = 0;
  std::uint8_t command = 0;
  bool operator==(const BusRequestFailed&) const = default;
};

using BusEvent = std::variant<BusBoardFound, BusDiscoveryFinished, BusChanges, BusBoardLost, BusReplyReceived,
                              BusRequestFailed>;

// The reply id a bus command is answered with, if any.
[[nodiscard]] std::optional<std::uint8_t> expected_bus_reply(std::uint8_t command);
// The least number of bytes that answer (header and checksum included); 0 for a command not answered.
[[nodiscard]] std::size_t expected_bus_reply_size(std::uint8_t command);
// Milliseconds `bytes` take on a line at `baud` (10 bits a byte), rounded up.
[[nodiscard]] std::int64_t bus_wire_ms(std::size_t bytes, int baud);

class BusMaster {
 public:
  static constexpr std::int64_t kDueNow = std::numeric_limits<std::int64_t>::min();

  explicit BusMaster(BusMasterOptions options = {});

  // Pings address 0, tells the boards found to ignore the next ping, and repeats until a round brings no new
  // board (nor a garbled answer, which means answers collided). Then polling resumes.
  void start_discovery();
  // A board known in advance (e.g. from the configuration).
  void add_board(std::uint16_t address);
  // A one-off command (e.g. SET_START_GAME, CLOCK, BOARD), sent between polls. Its reply comes as an event.
  tl::expected<void, EncodeError> request(std::uint16_t address, std::uint8_t command);

  // The commands to write now (possibly several during discovery).
  [[nodiscard]] std::vector<BusCommandBytes> poll(std::int64_t now_ms);
  void on_bytes(std::span<const std::uint8_t> bytes, std::int64_t now_ms);
  void on_frame(const BusFrame& frame, std::int64_t now_ms);

  // Until when the line is known busy with a frame on the wire (no command goes out before).
  [[nodiscard]] std::int64_t line_busy_until() const noexcept { return busy_until_; }
  // When poll next has something to do: kDueNow, a time, or nothing.
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const;
  [[nodiscard]] std::vector<BusEvent> take_events();
  // The frames the last on_bytes decoded, in order (what each board sent, for its capture).
  [[nodiscard]] const std::vector<BusFrame>& last_frames() const noexcept { return frames_; }

  [[nodiscard]] std::vector<std::uint16_t> boards() const;
  [[nodiscard]] bool discovering() const noexcept { return phase_ == Phase::Discovery; }
  [[nodiscard]] const BusDecoderStats& decoder_stats() const noexcept { return decoder_.stats(); }

 private:
  enum class Phase : std::uint8_t { Polling, Discovery };
  struct Board {
    std::uint16_t address = 0;
    std::uint8_t next_command = 0;
    int repeats = 0;
    int failures = 0;
    std::int64_t due_ms = kDueNow;
  };
  struct Exchange {
    std::uint16_t address = 0;
    std::uint8_t command = 0;
    std::uint8_t expected_reply = 0;
    std::int64_t deadline_ms = 0;
    bool is_poll = false;  // a SEND_CHANGES / REPEAT_CHANGES / SEND_FROM_START of the round-robin
  };
  struct Request {
    std::uint16_t address;
    std::uint8_t command;
  };

  Board* find_board(std::uint16_t address);
  [[nodiscard]] std::optional<std::int64_t> next_due() const;
  void poll_discovery(std::int64_t now_ms, std::vector<BusCommandBytes>& out);
  void poll_boards(std::int64_t now_ms, std::vector<BusCommandBytes>& out);
  void send(std::uint8_t command, std::uint16_t address, std::int64_t now_ms, bool is_poll,
            std::vector<BusCommandBytes>& out);
  void on_reply(const BusReply& reply, std::int64_t now_ms);
  void on_failure(std::int64_t now_ms, bool timed_out);
  void emit_reply(const BusReply& reply);
  [[nodiscard]] std::int64_t wire_ms(std::size_t bytes) const { return bus_wire_ms(bytes, options_.baud); }

  BusMasterOptions options_;
  Phase phase_ = Phase::Polling;
  bool ping_pending_ = false;
  std::int64_t window_end_ms_ = 0;
  bool round_found_new_ = false;
  bool round_saw_garble_ = false;
  int rounds_ = 0;
  std::vector<Board> boards_;
  std::size_t cursor_ = 0;  // where the round-robin looks first
  std::optional<Exchange> awaiting_;
  std::int64_t busy_until_ = kDueNow;
  std::deque<Request> requests_;
  std::vector<BusEvent> events_;
  BusDecoder decoder_;
  std::vector<BusFrame> frames_;  // scratch for on_bytes
};

}  // namespace eboard::drivers::dgt
