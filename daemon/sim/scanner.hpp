// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// What a sensor board reports of the hand's actions. A real DGT board does not see actions: it scans its
// 64 squares over and over (a full scan takes about 200–250 ms, reference/hardware.md §1.3) and reports
// every square whose content differs from what it last reported. So quick sequences collapse (a lift and
// a placement on the same square within one scan become one change, or nothing), a piece slid across
// the board may be seen on a square for one scan or not at all, and the new square of a move may be
// reported before the old one is emptied. This models that, deterministically from a seed.
//
// What reconstruction can rely on (with the default configuration):
//  * Each PieceLifted/PiecePlaced is a real change against the previous report of that square; the
//    events of one scan share a time stamp (the end of the scan) and come in scan order.
//  * A change is reported at most two scan periods (≤ 500 ms) after it happened, never before.
//  * The clock reading that shows a press (the lever changed sides) comes after every board change that
//    physically happened before the press, and at most two scan periods after the press. If the next
//    player touches a piece within that window, his first changes may come before it.
//  * While a clock runs, a reading comes about every `clock_period_ms`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "daemon/sim/clock_model.hpp"
#include "daemon/sim/hand.hpp"
#include "rules/sensor.hpp"

namespace eboard::sim {

// The order a scan reads the squares in.
enum class ScanOrder : std::uint8_t {
  FromA8,  // a8, b8 … h8, a7 … h1: a DGT board with its connector on White's left
  FromH1,  // h1, g1 … a1, h2 … a8: the same board turned round (Black at the connector side)
  FromA1,  // a1, b1 … h1, a2 … h8
};
std::array<rules::Square, 64> scan_order(ScanOrder order);

// When the board reads the clock.
enum class ClockPoll : std::uint8_t {
  // Once per scan cycle, before the sweep, and sent after that sweep's field updates: a press is thus
  // always reported after every board change made before it (see above).
  BeforeSweep,
  // At the press itself (a clock with its own link, or a board that reads the clock very often): the
  // press may then be reported before the last placement of the move, by up to one scan period.
  AtPress,
};

struct ScannerConfig {
  // false: no scanning at all, every action is reported the moment it happens (for unit tests).
  bool quantize = true;
  std::int64_t period_min_ms = 200;
  std::int64_t period_max_ms = 250;
  ScanOrder order = ScanOrder::FromA8;
  // true: the squares are read one after another across the scan period, so a piece moving during a scan
  // can be seen on both squares or on neither. false: the whole board is sampled at the scan's start.
  bool sweep = true;
  ClockPoll clock_poll = ClockPoll::BeforeSweep;  // quantized mode only; unquantized reports at the press
  // A reading this often while a clock runs (DGT update mode sends one at least every second).
  std::int64_t clock_period_ms = 1000;

  // Every action reported as it happens.
  static ScannerConfig exact() {
    ScannerConfig c;
    c.quantize = false;
    return c;
  }
};

class Scanner {
 public:
  Scanner(ScannerConfig config, std::uint64_t seed) : config_(config), seed_(seed) {}

  // The board's reports of `actions` (sorted by time, possible on `initial`) from `t0` until `end_ms`.
  // `clock`, when given, is the clock as it stands at `t0` (started or not): presses in the actions go to
  // it and its readings are interleaved. Without a clock, presses are not seen. The start snapshot and the
  // first reading are not included (the caller knows them: see Timeline).
  std::vector<rules::SensorEvent> run(const PhysicalBoard& initial, std::span<const HandAction> actions,
                                      std::optional<ClockModel> clock, std::int64_t t0,
                                      std::int64_t end_ms) const;

  const ScannerConfig& config() const { return config_; }

 private:
  ScannerConfig config_;
  std::uint64_t seed_;
};

}  // namespace eboard::sim
