// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/millennium/emulator.hpp"

#include <algorithm>

namespace eboard::drivers::millennium {

namespace {

constexpr char HEX[] = "0123456789ABCDEF";
constexpr std::int64_t COMMAND_TIMEOUT_MS = 1000;  // a frame left unfinished this long is dropped

// Data characters of each command, by letter; -1: not a command.
int command_size(char letter) {
  switch (letter) {
    case 'S':
    case 'V':
    case 'X':
    case 'T':
      return 0;
    case 'R':
      return 2;
    case 'W':
    case 'I':
      return 4;
    case 'L':
      return 2 + 81 * 2;
    default:
      return -1;
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

int hex_byte(const std::string& s, std::size_t at) {
  if (at + 2 > s.size()) return -1;
  const int hi = hex_value(s[at]), lo = hex_value(s[at + 1]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::string hex2(int v) { return {HEX[(v >> 4) & 15], HEX[v & 15]}; }

}  // namespace

Emulator::Emulator(EmulatorConfig config) : config_(config) {
  squares_.fill('.');
  reported_.fill('.');
  last_scan_.fill('.');
  e2rom_[e2rom::SCAN_TIME] = config_.scan_time;
  e2rom_[e2rom::REPORTS] = static_cast<std::uint8_t>(config_.reports);
  e2rom_[e2rom::REPORT_PERIOD] = config_.report_period;
}

std::int64_t Emulator::scan_ms() const {
  const int units =
      e2rom_[e2rom::SCAN_TIME] < e2rom::MIN_SCAN_TIME ? e2rom::DEFAULT_SCAN_TIME : e2rom_[e2rom::SCAN_TIME];
  return (units * 2048 + 500) / 1000;
}

void Emulator::set_square(int square, char piece) {
  if (square < 0 || square > 63) return;
  char& at = squares_[std::size_t(board_index(square))];
  at = piece;
}

void Emulator::set_board(const Squares& squares) { squares_ = squares; }

void Emulator::host_bytes(std::int64_t now, std::span<const std::uint8_t> bytes) {
  advance(now);
  if (!frame_.empty() && now - frame_started_ > COMMAND_TIMEOUT_MS) frame_.clear();
  for (std::uint8_t b : bytes) {
    if (config_.check_parity && !odd_parity(b)) {
      ++stats_.parity_errors;
      continue;
    }
    const char c = static_cast<char>(b & 0x7F);
    if (frame_.empty()) {
      if (command_size(c) < 0) {
        ++stats_.unknown_bytes;
        continue;
      }
      frame_started_ = now;
    }
    frame_.push_back(c);
    const std::size_t total = 1 + std::size_t(command_size(frame_[0])) + 2;
    if (frame_.size() < total) continue;
    unsigned x = 0;
    for (std::size_t i = 0; i + 2 < total; ++i) x ^= static_cast<unsigned char>(frame_[i]);
    const int check = hex_byte(frame_, total - 2);
    const bool checked = (e2rom_[e2rom::SERIAL_SETUP] & 1) == 0;
    if (checked && (check < 0 || unsigned(check) != x)) {
      ++stats_.bad_checks;
    } else {
      ++stats_.commands;
      command(frame_[0], frame_.substr(1, total - 3));
    }
    frame_.clear();
  }
}

void Emulator::command(char letter, const std::string& data) {
  switch (letter) {
    case 'S':
      reply('s', std::string(squares_.begin(), squares_.end()));
      break;
    case 'V':
      reply('v', hex2(config_.version.major) + hex2(config_.version.minor));
      break;
    case 'X':
      leds_.fill(0);
      reply('x', "");
      break;
    case 'L':
      for (std::size_t i = 0; i < 81; ++i) {
        const int v = hex_byte(data, 2 + 2 * i);
        leds_[i] = static_cast<std::uint8_t>(v < 0 ? 0 : v);
      }
      reply('l', "");
      break;
    case 'W': {
      const int address = hex_byte(data, 0), value = hex_byte(data, 2);
      if (address < 0 || value < 0) break;
      e2rom_[std::size_t(address)] = static_cast<std::uint8_t>(value);
      reply('w', data);
      break;
    }
    case 'R': {
      const int address = hex_byte(data, 0);
      if (address < 0) break;
      reply('r', data + hex2(e2rom_[std::size_t(address)]));
      break;
    }
    case 'T':
      out_.clear();  // the board restarts: what it had not sent is gone, and the next scan reports
      leds_.fill(0);
      dirty_ = true;
      break;
    default:  // 'I': seen only in other emulators, unconfirmed; not answered
      break;
  }
}

void Emulator::reply(char letter, const std::string& data) {
  const auto bytes = frame(letter, data, true);
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

void Emulator::advance(std::int64_t now) {
  if (!scanning_) {
    scanning_ = true;
    next_scan_ = next_timed_ = now;
  }
  if (now < next_scan_) return;
  // One report for the scans that passed (a host far behind gets the squares as they are now).
  const std::int64_t scan = scan_ms();
  const std::int64_t scans = (now - next_scan_) / scan + 1;
  next_scan_ += scans * scan;
  if (squares_ == last_scan_) {
    stable_scans_ += static_cast<int>(std::min<std::int64_t>(scans, 1000));
  } else {
    last_scan_ = squares_;
    stable_scans_ = static_cast<int>(std::min<std::int64_t>(scans, 1000));
  }
  const bool report = report_due(now);
  dirty_ = false;
  if (!report) return;
  reported_ = squares_;
  ++stats_.reports;
  reply('s', std::string(squares_.begin(), squares_.end()));
}

bool Emulator::report_due(std::int64_t now) {
  const bool changed = dirty_ || squares_ != reported_;
  switch (reports()) {
    case ReportMode::every_scan:
      return true;
    case ReportMode::off:
      return false;
    case ReportMode::timed: {
      if (now < next_timed_) return false;
      const std::int64_t period =
          std::max<std::int64_t>(1, (e2rom_[e2rom::REPORT_PERIOD] * 4096 + 500) / 1000);
      next_timed_ = now + period;
      return true;
    }
    case ReportMode::on_change:
      return changed;
    default:  // on change, once the squares have stood for 2-5 scans
      return changed && stable_scans_ >= static_cast<int>(reports()) - 2;
  }
}

std::optional<std::int64_t> Emulator::next_deadline() const {
  const ReportMode mode = reports();
  if (mode == ReportMode::off) return std::nullopt;
  const bool changed = dirty_ || squares_ != reported_;
  if (mode != ReportMode::every_scan && mode != ReportMode::timed && !changed) return std::nullopt;
  return scanning_ ? next_scan_ : 0;
}

std::vector<std::uint8_t> Emulator::take_output() {
  std::vector<std::uint8_t> out;
  out.swap(out_);
  return out;
}

}  // namespace eboard::drivers::millennium
