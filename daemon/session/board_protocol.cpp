// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/board_protocol.hpp"

#include <array>
#include <cstdio>
#include <string>
#include <utility>

#include "daemon/boards/dgt_board.hpp"
#include "daemon/boards/dgt_bus_line.hpp"
#include "daemon/boards/dgt_clock_port.hpp"
#include "daemon/boards/snapshot_board.hpp"
#include "daemon/session/board_emulator.hpp"
#include "daemon/session/dgt_bus_replay.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/emulated_millennium.hpp"
#include "drivers/chessnut/protocol.hpp"
#include "drivers/dgt/encoder.hpp"
#include "drivers/millennium/protocol.hpp"

namespace eboard::session {

namespace {

namespace dgt = drivers::dgt;
namespace millennium = drivers::millennium;
namespace chessnut = drivers::chessnut;

class DgtDecoder final : public BoardDecoder {
 public:
  std::vector<rules::SensorEvent> feed(std::int64_t t, std::span<const std::uint8_t> bytes) override {
    return board_.feed(t, bytes);
  }
  void reset_link() override { board_.reset_link(); }
  bool rotated() const override { return board_.rotated(); }
  rules::BoardSnapshot snapshot() const override { return board_.snapshot(); }
  daemon::DgtBoard& board() { return board_; }

 private:
  daemon::DgtBoard board_;
};

// The clock behind a DGT board, its ACKs read from that board's decoder.
std::unique_ptr<ClockPort> make_dgt_clock_port(BoardDecoder& decoder) {
  auto* dgt = dynamic_cast<DgtDecoder*>(&decoder);
  return dgt ? std::make_unique<daemon::DgtClockPort>(dgt->board()) : nullptr;
}

template <class Board>
class SnapshotDecoder final : public BoardDecoder {
 public:
  std::vector<rules::SensorEvent> feed(std::int64_t t, std::span<const std::uint8_t> bytes) override {
    return board_.feed(t, bytes);
  }
  void reset_link() override { board_.reset_link(); }
  rules::BoardSnapshot snapshot() const override { return board_.snapshot(); }

 private:
  Board board_;
};

std::vector<std::uint8_t> dgt_init() {
  // UPDATE_NICE mode, then a board dump and one clock reading: a reconnect re-reads board and clock.
  std::vector<std::uint8_t> out = dgt::encode::update_nice();
  for (const auto& cmd : {dgt::encode::send_board(), dgt::encode::send_clock()})
    out.insert(out.end(), cmd.begin(), cmd.end());
  return out;
}

class MillenniumDecoder final : public BoardDecoder {
 public:
  std::vector<rules::SensorEvent> feed(std::int64_t t, std::span<const std::uint8_t> bytes) override {
    return board_.feed(t, bytes);
  }
  void reset_link() override { board_.reset_link(); }
  rules::BoardSnapshot snapshot() const override { return board_.snapshot(); }
  void connected(std::int64_t t) override { board_.connected(t); }
  void advance(std::int64_t t) override { board_.host().advance(t); }
  std::optional<std::int64_t> next_deadline() const override { return board_.host().next_deadline(); }
  std::vector<std::uint8_t> take_commands() override { return board_.host().take_output(); }

 private:
  daemon::MillenniumBoard board_;
};

// The line is opened 8N1 and the parity is ours (protocol.hpp): every byte sent carries it in bit 7.
std::vector<std::uint8_t> millennium_snapshot() { return millennium::command::snapshot(); }

std::vector<std::uint8_t> millennium_leds(std::uint64_t squares) {
  // A square is lit by its four corner LEDs (9×9 grid, LED 0 at the a8 corner, running down the a-file).
  std::array<std::uint8_t, 81> patterns{};
  for (int sq = 0; sq < 64; ++sq) {
    if (!((squares >> sq) & 1)) continue;
    const int file = sq % 8, row_from_top = 7 - sq / 8;
    for (int df = 0; df < 2; ++df)
      for (int dr = 0; dr < 2; ++dr)
        patterns[std::size_t(file + df) * 9 + std::size_t(row_from_top + dr)] = 0xFF;
  }
  std::string data = "00";  // slot time: unused with every slot on
  static constexpr char HEX[] = "0123456789ABCDEF";
  for (std::uint8_t p : patterns) {
    data.push_back(HEX[p >> 4]);
    data.push_back(HEX[p & 15]);
  }
  return millennium::frame('L', data);
}

constexpr io::LineSettings DGT_LINE{9600, 8, io::Parity::none, 1, io::FlowControl::none};
// The board's line is 7O1; read and written 8N1 it carries the parity bit as bit 7 of each byte, which the
// driver sets and checks itself, so no tty, pty or bridge has to apply it.
constexpr io::LineSettings MILLENNIUM_LINE{38400, 8, io::Parity::none, 1, io::FlowControl::none};

// DGT's own USB id, and the two bridge chips its boards use (reference/hardware.md §1.8).
constexpr std::array<UsbSerialId, 3> DGT_USB{{
    {0x0403, 0x6001, true},  // FTDI FT232 bridge (ttyUSB)
    {0x04d8, 0x000a, true},  // Microchip CDC (ttyACM)
    {0x045b, 0x8111, false},
}};

// The emulators, for `eboardctl sim` (board_emulator.hpp).
std::unique_ptr<EmulatedBoard> make_dgt_emulator(const EmulatorSetup& setup) {
  dgt::EmulatorConfig config;
  config.rotated = setup.rotated;
  if (setup.capture) config.spontaneous = false;  // the recording speaks; the emulator only answers
  if (setup.bus_address != 0) {
    char serial[16];
    std::snprintf(serial, sizeof serial, "%05u", unsigned(setup.bus_address));
    config.serial = serial;
    config.long_serial = std::string("EBSIM") + serial;
    config.start_in_bus_mode = true;
  }
  dgt::Emulator emulator(config);
  if (setup.capture) preset_from_capture(emulator, *setup.capture);
  return std::make_unique<EmulatedDgt>(std::move(emulator));
}

const BoardEmulator DGT_EMULATOR{
    .summary = "a DGT board and its clock",
    .wire = "9600 8N1",
    .plays_captures = true,
    .replugs = true,
    .rotates = true,
    .report_modes = {},
    .make = make_dgt_emulator,
};

// As the board's E2ROM 02 names them; the first is how it leaves the factory.
constexpr std::array<std::string_view, 3> MILLENNIUM_REPORT_MODES{"every-scan", "on-change", "off"};

std::unique_ptr<EmulatedBoard> make_millennium_emulator(const EmulatorSetup& setup) {
  millennium::EmulatorConfig config;
  config.reports = setup.reports == "off"         ? millennium::ReportMode::off
                   : setup.reports == "on-change" ? millennium::ReportMode::on_change
                                                  : millennium::ReportMode::every_scan;
  return std::make_unique<EmulatedMillennium>(millennium::Emulator{config});
}

const BoardEmulator MILLENNIUM_EMULATOR{
    .summary = "a Millennium ChessLink board (no clock)",
    .wire =
        "38400 8N1 carrying 7O1 characters: the odd parity in bit 7 of every byte, checked on what the "
        "board reads",
    .plays_captures = false,
    .replugs = false,
    .rotates = false,
    .report_modes = MILLENNIUM_REPORT_MODES,
    .make = make_millennium_emulator,
};

const std::array<BoardProtocol, 3> PROTOCOLS{{
    {
        .name = "dgt",
        .description = "DGT e-Board on USB, serial or Bluetooth, its clock read through the board",
        .transport = Transport::serial,
        .line = DGT_LINE,
        .has_clock = true,
        .init_commands = dgt_init,
        .board_request = dgt::encode::send_board,
        .leds = nullptr,
        .make_decoder = []() -> std::unique_ptr<BoardDecoder> { return std::make_unique<DgtDecoder>(); },
        .make_clock_port = make_dgt_clock_port,
        .usb_vendor = 0,
        .usb_product = nullptr,
        .usb_serial_ids = DGT_USB,
        .usb_descriptor_mark = "DGT",
        .bus_dialect = "dgt-bus",
        .replay_bus = replay_dgt_bus_capture,
        .make_bus_line = daemon::make_dgt_bus_line,
        .make_bus_board = daemon::make_dgt_bus_reader,
        .bus_framing = &daemon::DGT_BUS_FRAMING,
        .emulator = &DGT_EMULATOR,
    },
    // Its connect conversation (settings written and read back, then S) is the adapter's: no init commands.
    {
        .name = "millennium",
        .description = "Millennium ChessLink or eONE on a serial port",
        .transport = Transport::serial,
        .line = MILLENNIUM_LINE,
        .has_clock = false,
        .init_commands = nullptr,
        .board_request = millennium_snapshot,
        .leds = millennium_leds,
        .make_decoder = []() -> std::unique_ptr<BoardDecoder> {
          return std::make_unique<MillenniumDecoder>();
        },
        .make_clock_port = nullptr,
        .usb_vendor = 0,
        .usb_product = nullptr,
        .usb_serial_ids = {},
        .usb_descriptor_mark = {},
        .bus_dialect = {},
        .replay_bus = nullptr,
        .make_bus_line = nullptr,
        .make_bus_board = nullptr,
        .bus_framing = nullptr,
        .emulator = &MILLENNIUM_EMULATOR,
    },
    // A USB HID device: no pty can play it, so `eboardctl sim` has no emulator for it.
    {
        .name = "chessnut",
        .description = "Chessnut Air or Pro over USB",
        .transport = Transport::usb_hid,
        .line = io::LineSettings{},
        .has_clock = false,
        .init_commands = chessnut::command::realtime_mode,
        .board_request = nullptr,
        .leds = chessnut::command::leds,
        .make_decoder = []() -> std::unique_ptr<BoardDecoder> {
          return std::make_unique<SnapshotDecoder<daemon::ChessnutBoard>>();
        },
        .make_clock_port = nullptr,
        .usb_vendor = chessnut::VENDOR_ID,
        .usb_product = [](std::uint16_t product) { return chessnut::is_board_product(product); },
        .usb_serial_ids = {},
        .usb_descriptor_mark = {},
        .bus_dialect = {},
        .replay_bus = nullptr,
        .make_bus_line = nullptr,
        .make_bus_board = nullptr,
        .bus_framing = nullptr,
        .emulator = nullptr,
    },
}};

}  // namespace

const BoardProtocol* find_protocol(std::string_view name) {
  for (const auto& p : PROTOCOLS)
    if (p.name == name) return &p;
  return nullptr;
}

std::span<const BoardProtocol> board_protocols() { return PROTOCOLS; }

std::string protocol_names() {
  return protocol_names([](const BoardProtocol&) { return true; });
}

std::string protocol_names(bool (*keep)(const BoardProtocol&)) {
  std::string out;
  for (const auto& p : PROTOCOLS)
    if (keep(p)) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

std::optional<CaptureProtocol> find_capture_protocol(std::string_view name) {
  for (const auto& p : PROTOCOLS) {
    if (p.name == name) return CaptureProtocol{&p, false};
    if (!p.bus_dialect.empty() && p.bus_dialect == name) return CaptureProtocol{&p, true};
  }
  return std::nullopt;
}

std::string capture_protocol_name(std::string_view protocol, bool on_bus) {
  const BoardProtocol* p = find_protocol(protocol);
  if (on_bus && p && !p->bus_dialect.empty()) return std::string(p->bus_dialect);
  return std::string(protocol);
}

std::string capture_protocol_names() {
  std::string out;
  for (const auto& p : PROTOCOLS) {
    out += (out.empty() ? "" : ", ") + std::string(p.name);
    if (!p.bus_dialect.empty()) out += ", " + std::string(p.bus_dialect);
  }
  return out;
}

}  // namespace eboard::session
