// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A line shared by several boards (a bus), as the daemon asks things of it, in no dialect's terms: the
// line's master (BusLine: find the boards, poll them for their changes, ask one for its board or its
// clock; what came back as events) and, per board, the reader of its answers (BusBoardReader: answers in,
// sensor events out). A make whose boards can share a line gives its row a bus dialect
// (board_protocol.hpp: `make_bus_line`, `make_bus_board`, `bus_framing`); BusSession, BusBoardFeed and
// BusHub run any dialect through these and name none.
//
// Both are pure state machines (no I/O, no timer): the session passes the time in (the line's: steady ms)
// and writes the commands it gets out. Header only, so that a make's adapter (daemon/boards/) can
// implement it.
#pragma once

#include <any>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "rules/sensor.hpp"

namespace eboard::session {

// What the line asks of one board beside the master's own polls.
enum class BusAsk : std::uint8_t {
  // Its whole record since the game's start, once (a board given up: is it back?). What a reply lost as it
  // went quiet held is among it; what it recorded since its last answer comes with the next poll.
  from_start,
  board,  // the whole board
  clock,  // a clock reading
};

// What a board's answer is. The first three are changes (what the board recorded since it was last
// asked); their order is the trace's kind number.
enum class BusAnswerKind : std::uint8_t {
  changes,             // its news since the last answer (also a late answer to an exchange given up)
  changes_repeated,    // asked again: may repeat records already given (the reader drops what repeats)
  changes_from_start,  // data was lost: its whole record since the game's start
  board,               // the whole board
  clock,               // a clock reading
  other,               // anything else from it: says only that it answers
};

// A board's answer. `data` is the dialect's own reading of it, opened only by the same dialect's
// BusBoardReader.
struct BusAnswer {
  BusAnswerKind kind = BusAnswerKind::other;
  std::any data;
  std::size_t records = 0;  // of changes: how many records they hold (for the trace)
};

// Bytes on the line that belong to one board: a command to its address, or a whole frame it sent
// (address 0: nobody's, e.g. a discovery ping).
struct BusWire {
  std::uint16_t address = 0;
  std::vector<std::uint8_t> bytes;
};

struct BusBoardFound {  // a board answered discovery
  std::uint16_t address = 0;
};
struct BusDiscoveryDone {
  std::size_t boards = 0;  // how many answered
};
struct BusBoardLost {  // it stopped answering: out of the master's polls
  std::uint16_t address = 0;
};
struct BusAnswered {
  std::uint16_t address = 0;
  BusAnswer answer;
};
struct BusAskFailed {  // an ask() got no answer
  std::uint16_t address = 0;
  BusAsk what = BusAsk::from_start;
};
using BusLineEvent = std::variant<BusBoardFound, BusDiscoveryDone, BusBoardLost, BusAnswered, BusAskFailed>;

struct BusLineOptions {
  std::int64_t poll_interval_ms = 1000;  // each board is asked for its changes at most this often
  // The least latency to allow the line's adapter: a line whose bytes another program or a radio hands
  // over (a pty, Bluetooth) is given more than a USB adapter; 0: the dialect's own.
  std::int64_t adapter_latency_ms = 0;
};

// The line's master in its dialect. Times are the line's (steady ms).
class BusLine {
 public:
  virtual ~BusLine() = default;
  BusLine() = default;
  BusLine(const BusLine&) = delete;
  BusLine& operator=(const BusLine&) = delete;

  // Finds the boards that answer (BusBoardFound, then BusDiscoveryDone), then goes back to polling.
  virtual void start_discovery() = 0;
  // A board polled from now on (its answers come as BusAnswered; its silence as BusBoardLost).
  virtual void add_board(std::uint16_t address) = 0;
  // A one-off question to a board, between polls: false if the dialect cannot put it.
  [[nodiscard]] virtual bool ask(std::uint16_t address, BusAsk what) = 0;
  // The commands to write now, in order.
  [[nodiscard]] virtual std::vector<BusWire> poll(std::int64_t now_ms) = 0;
  // Bytes read; the whole frames among them that boards sent, in order (each board's capture).
  [[nodiscard]] virtual std::vector<BusWire> on_bytes(std::span<const std::uint8_t> bytes,
                                                      std::int64_t now_ms) = 0;
  // When poll() next has something to do (at most `now_ms` when it has now); nothing: idle.
  [[nodiscard]] virtual std::optional<std::int64_t> next_deadline(std::int64_t now_ms) const = 0;
  [[nodiscard]] virtual std::vector<BusLineEvent> take_events() = 0;
};

// One board's answers as sensor events (squares in game orientation), the same vocabulary a board on a
// line of its own gives.
class BusBoardReader {
 public:
  virtual ~BusBoardReader() = default;
  BusBoardReader() = default;
  BusBoardReader(const BusBoardReader&) = delete;
  BusBoardReader& operator=(const BusBoardReader&) = delete;

  // A changes answer (changes or changes_repeated) arriving at `t_ms`, nothing in it older than
  // `since_ms`.
  [[nodiscard]] virtual std::vector<rules::SensorEvent> changes(std::int64_t since_ms, std::int64_t t_ms,
                                                                const BusAnswer& answer) = 0;
  // What a changes_from_start answer arriving at `t_ms` holds that no answer brought (changes lost on the
  // line): how many records, and their events, placed as early as they fit after `since_ms` (the board
  // recorded them before the answer that was lost, and before what it recorded since); nothing when it
  // cannot be told (the board is then only read again).
  struct Recovered {
    std::size_t records = 0;
    std::vector<rules::SensorEvent> events;
  };
  [[nodiscard]] virtual std::optional<Recovered> lost_changes(std::int64_t since_ms, std::int64_t t_ms,
                                                              const BusAnswer& answer) = 0;
  // A board answer: a snapshot; a clock answer: a reading.
  [[nodiscard]] virtual std::vector<rules::SensorEvent> board(std::int64_t t_ms, const BusAnswer& answer) = 0;
  [[nodiscard]] virtual std::vector<rules::SensorEvent> clock(std::int64_t t_ms, const BusAnswer& answer) = 0;
  // The span changes() leaves quiet before an answer's arrival: a decision that the previous answer left
  // open no later than this after it is taken before the next answer's records.
  [[nodiscard]] virtual std::int64_t quiet_ms() const = 0;
  // A clock reading is known (read, or made from a press the board recorded).
  [[nodiscard]] virtual bool clock_known() const = 0;
  // The board was found set up turned round.
  [[nodiscard]] virtual bool rotated() const = 0;
};

// How a dialect's frames lie on the wire, for an emulated line that passes each board's frames whole.
struct BusFraming {
  // The length of the frame at the start of `bytes`: 0 while more bytes are needed to tell or to have it
  // whole; 1 for a byte that begins no frame (passed on alone).
  std::size_t (*frame_size)(std::span<const std::uint8_t> bytes) = nullptr;
  // A whole frame that answers discovery (real boards answer it at a random moment).
  bool (*answers_discovery)(std::span<const std::uint8_t> frame) = nullptr;
};

}  // namespace eboard::session
