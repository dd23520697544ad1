// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/board_protocol.hpp"

#include <array>

#include "daemon/boards/dgt_board.hpp"
#include "daemon/boards/snapshot_board.hpp"
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
  daemon::DgtBoard* dgt() override { return &board_; }

 private:
  daemon::DgtBoard board_;
};

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

const std::array<BoardProtocol, 3> PROTOCOLS{{
    {"dgt", Transport::serial, DGT_LINE, true, dgt_init, dgt::encode::send_board, nullptr,
     []() -> std::unique_ptr<BoardDecoder> { return std::make_unique<DgtDecoder>(); }, 0, nullptr, DGT_USB,
     "DGT"},
    // Its connect conversation (settings written and read back, then S) is the adapter's: no init commands.
    {"millennium",
     Transport::serial,
     MILLENNIUM_LINE,
     false,
     nullptr,
     millennium_snapshot,
     millennium_leds,
     []() -> std::unique_ptr<BoardDecoder> { return std::make_unique<MillenniumDecoder>(); },
     0,
     nullptr,
     {},
     {}},
    {"chessnut",
     Transport::usb_hid,
     io::LineSettings{},
     false,
     chessnut::command::realtime_mode,
     nullptr,
     chessnut::command::leds,
     []() -> std::unique_ptr<BoardDecoder> {
       return std::make_unique<SnapshotDecoder<daemon::ChessnutBoard>>();
     },
     chessnut::VENDOR_ID,
     [](std::uint16_t product) { return chessnut::is_board_product(product); },
     {},
     {}},
}};

}  // namespace

const BoardProtocol* find_protocol(std::string_view name) {
  for (const auto& p : PROTOCOLS)
    if (p.name == name) return &p;
  return nullptr;
}

std::span<const BoardProtocol> board_protocols() { return PROTOCOLS; }

std::string protocol_names() {
  std::string out;
  for (const auto& p : PROTOCOLS) out += (out.empty() ? "" : ", ") + std::string(p.name);
  return out;
}

}  // namespace eboard::session
