// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The board protocols the session can drive, one row each (gpsd's driver table is the model): how the line
// is opened, what is sent on every connect, how to ask for the whole board, what the board's bytes mean
// as sensor events, and which commands the board takes (a clock behind it, LEDs). A new board protocol is
// a row here, its adapter (daemon/boards/), its clock port if the host can command its clock, its bus
// dialect if its boards can share a line, and its frames (drivers/<make>/); BoardSession and BusSession
// name none.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/io/serial_port.hpp"
#include "daemon/session/bus_line.hpp"
#include "daemon/session/clock_port.hpp"
#include "rules/sensor.hpp"

namespace eboard::drivers {
struct Capture;
}
namespace eboard::rules {
struct ReconstructConfig;
}

namespace eboard::session {

struct ReplayResult;

// One board's bytes as sensor events (squares in game orientation): the protocol's adapter.
class BoardDecoder {
 public:
  virtual ~BoardDecoder() = default;
  // Any chunking; a partial frame waits for the next call.
  virtual std::vector<rules::SensorEvent> feed(std::int64_t t_ms, std::span<const std::uint8_t> bytes) = 0;
  // After a reconnect: a partial frame from before is meaningless.
  virtual void reset_link() = 0;
  // The board was found set up turned round (Black at the connector side).
  [[nodiscard]] virtual bool rotated() const { return false; }
  // The whole board as last known, in game orientation.
  [[nodiscard]] virtual rules::BoardSnapshot snapshot() const = 0;
  // A protocol that keeps a conversation with its board (Millennium: settings written and read back at
  // connect, the squares asked again after a silence) says so through these; the default has none.
  // The line is open (after reset_link() and the row's init commands).
  virtual void connected(std::int64_t /*t_ms*/) {}
  // Resends and polls due by `t_ms`.
  virtual void advance(std::int64_t /*t_ms*/) {}
  // When advance() has something to do (clock ms); nullopt: nothing.
  [[nodiscard]] virtual std::optional<std::int64_t> next_deadline() const { return std::nullopt; }
  // The bytes to send to the board now (after connected(), feed() and advance()).
  [[nodiscard]] virtual std::vector<std::uint8_t> take_commands() { return {}; }
};

enum class Transport : std::uint8_t {
  serial,   // a tty (USB serial, Bluetooth SPP, a pty): io::SerialLink
  usb_hid,  // a USB HID device through libusb: io::UsbHidLink
};

// A USB id under which a make's boards appear as a serial device (ttyUSB, ttyACM).
struct UsbSerialId {
  std::uint16_t vendor = 0;
  std::uint16_t product = 0;
  // A generic USB-serial bridge chip (FTDI FT232, Microchip CDC) that other devices use too: a board only
  // when its USB manufacturer or product string holds the row's `usb_descriptor_mark`.
  bool generic_bridge = false;
};

struct BoardEmulator;

// One row per board make: everything the daemon knows of a make is here, and every other place that
// needs a make (configuration, capture export and replay, `eboardctl sim`, hotplug, the --help texts and
// the man pages made from them) reads it from here (tests/session/protocol_row_test walks the rows through
// them; the udev rules in udev/ are checked against these ids by tests/daemon_hotplug).
struct BoardProtocol {
  // As in the configuration (protocol = "<name>"), in captures (`# protocol: <name>`) and in /dev/eboard.
  std::string_view name;
  // What boards these are, for --help: "Millennium ChessLink or eONE on a serial port".
  std::string_view description;
  Transport transport = Transport::serial;
  io::LineSettings line;
  // Whether a clock reaches the host through this protocol (a DGT clock through the board): its readings
  // come as sensor events. Without one, reconstruction completes a move when the board has rested on it
  // (ReconstructConfig::complete_after_ms).
  bool has_clock = false;
  // Sent on every (re)connect (null: nothing fixed; the adapter's connected() may have its own); the session
  // then holds square events until a whole-board snapshot is in.
  std::vector<std::uint8_t> (*init_commands)() = nullptr;
  // Asks for the whole board now (a DGT dump, a Millennium S); null: the board cannot be asked.
  std::vector<std::uint8_t> (*board_request)() = nullptr;
  // The squares to light (bit n = square n, a1 = 0); null: no LEDs.
  std::vector<std::uint8_t> (*leds)(std::uint64_t squares) = nullptr;
  std::unique_ptr<BoardDecoder> (*make_decoder)() = nullptr;
  // The clock's commands (clock_port.hpp: text, times, beep, and their answers), given the decoder this
  // row made for the same board (the answers arrive in its bytes); null: the host cannot command the
  // clock, and clock commands are refused.
  std::unique_ptr<ClockPort> (*make_clock_port)(BoardDecoder& decoder) = nullptr;
  // A USB HID board: the ids that name it (hotplug, and the device to open when none is configured).
  std::uint16_t usb_vendor = 0;
  bool (*usb_product)(std::uint16_t product_id) = nullptr;
  // A serial board on USB: the ids it appears under, and the word its descriptors hold on a generic bridge.
  std::span<const UsbSerialId> usb_serial_ids;
  std::string_view usb_descriptor_mark;
  // A make whose boards can share one line ([[bus]], DGT's bus mode): the name of such a board's
  // captures (`dgt-bus`, with its `bus-address`), which replay through the bus line's own feed; empty: none,
  // and the entries below are null.
  std::string_view bus_dialect;
  // Such a board's capture replayed through the bus line's per-board feed, as the line runs it live
  // (`eboardctl replay`, replay.hpp).
  tl::expected<ReplayResult, std::string> (*replay_bus)(const drivers::Capture& capture,
                                                        rules::ReconstructConfig cfg) = nullptr;
  // The bus line in this dialect (bus_line.hpp), as BusSession runs it: the line's master (made at every
  // connect), the reader of each board's answers, and how its frames lie on the wire (for BusHub).
  std::unique_ptr<BusLine> (*make_bus_line)(const BusLineOptions& options) = nullptr;
  std::unique_ptr<BusBoardReader> (*make_bus_board)() = nullptr;
  const BusFraming* bus_framing = nullptr;
  // The make's emulated board (board_emulator.hpp: `eboardctl sim`); null: none yet.
  const BoardEmulator* emulator = nullptr;
};

// The row for `name`, or null for a protocol the daemon does not know.
[[nodiscard]] const BoardProtocol* find_protocol(std::string_view name);
// Every row, in the order the documentation lists them.
[[nodiscard]] std::span<const BoardProtocol> board_protocols();
// "dgt, millennium, chessnut": for messages that list what is supported.
[[nodiscard]] std::string protocol_names();
// The same for the rows `keep` says yes to: "dgt, millennium" (e.g. those with an emulator).
[[nodiscard]] std::string protocol_names(bool (*keep)(const BoardProtocol&));

// A capture's `protocol` header as the rows know it: a row's name (a board alone on its line), or its
// bus dialect (a board of a bus line).
struct CaptureProtocol {
  const BoardProtocol* row = nullptr;
  bool bus = false;
};
[[nodiscard]] std::optional<CaptureProtocol> find_capture_protocol(std::string_view name);
// The name a board's captures carry: its row's name, or its bus dialect for a board on a bus line. An
// unknown protocol keeps its name.
[[nodiscard]] std::string capture_protocol_name(std::string_view protocol, bool on_bus);
// "dgt, dgt-bus, millennium, chessnut": every name a capture of ours may carry.
[[nodiscard]] std::string capture_protocol_names();

}  // namespace eboard::session
