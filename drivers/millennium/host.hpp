// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The host's side of the conversation with a Millennium ChessLink board, sans-I/O: what it sends when the
// line opens, which replies confirm it, and when it asks again. Knows bytes and E2ROM settings, not chess.
//
// At connect it writes its settings to the board's E2ROM and reads them back before it asks for the squares:
//   W 02 <report mode>, W 01 <scan time>, R 02, R 01, then S.
// The settings survive power-off on the board, so another program may have left them anything (reports off:
// the board would never speak by itself). One command is in flight at a time; a command is matched by its
// reply's letter and address (automatic `s` reports may come between a command and its reply), resent after
// `reply_timeout_ms`, and given up after `attempts` sends (counted; the next one goes). A setting read back
// different from what was written is written and read again, `attempts` times at most.
//
// Report mode: on change (E2ROM 02 = 3) by default. The board then speaks only when a piece moves, so the
// journal and any raw log hold moves, not 24 scans a second of the same squares. Silence is therefore
// normal while a player thinks; the host cannot tell it from a board whose reports were turned off (another
// program on the same board, a board replaced by one with reports off). So when the board has sent nothing
// for `silence_ms` (1 s by default, game or not: the host knows no games), the host asks for the squares
// again (S) and reads E2ROM 02 back (R 02); a mode read back different is written again (W 02) and read
// back. One second, shorter than a move takes: reports turned off cost at most a ply unseen, never a gap
// of several whose orders the arbiter must pick from (at 3 s a game at blitz pace lost 5 or 6). It does
// not rewrite the setting at every silence: each W is an EEPROM write cycle on the board, and a long game
// has thousands of silences.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "drivers/millennium/protocol.hpp"

namespace eboard::drivers::millennium {

struct HostConfig {
  ReportMode reports = ReportMode::on_change;
  std::uint8_t scan_time = e2rom::DEFAULT_SCAN_TIME;  // 2.048 ms units: 20 is the document's safe value
  std::int64_t reply_timeout_ms = 500;                // a command unanswered this long is sent again
  int attempts = 3;                                   // sends of one command, and rewrites of one setting
  std::int64_t silence_ms = 1000;                     // nothing from the board this long: S and R 02 again
};

struct HostStats {
  std::uint64_t commands_sent = 0;  // resends included
  std::uint64_t resends = 0;
  std::uint64_t unanswered = 0;          // commands given up after `attempts` sends
  std::uint64_t settings_confirmed = 0;  // connects whose settings both read back as written
  std::uint64_t settings_rewritten = 0;  // a setting read back different, written again
  std::uint64_t settings_refused = 0;    // a setting still different after `attempts` writes
  std::uint64_t silence_polls = 0;       // S and R 02 sent after `silence_ms` of silence
};

class Host {
 public:
  explicit Host(HostConfig config = {});

  // The line is open (again): the settings are written and read back, then the squares asked.
  void connected(std::int64_t now_ms);
  // The line is gone: nothing more to send until connected().
  void disconnected();
  // Every reply the decoder gives, automatic reports included, at the time it was read.
  void reply(std::int64_t now_ms, const Reply& reply);
  // Resends, gives up and polls what is due by `now_ms`.
  void advance(std::int64_t now_ms);
  // When advance() has something to do; nullopt while disconnected.
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const;
  // The commands to write to the line, in order (parity set).
  [[nodiscard]] std::vector<std::uint8_t> take_output();

  // Both settings read back as written since the last connect.
  [[nodiscard]] bool settings_confirmed() const { return confirmed_ == 3; }
  [[nodiscard]] const HostStats& stats() const { return stats_; }
  [[nodiscard]] const HostConfig& config() const { return config_; }

 private:
  struct Step {
    char command = 'S';  // 'W', 'R' or 'S'
    std::uint8_t address = 0;
    std::uint8_t value = 0;  // W: the value written; R: the value expected back
  };
  [[nodiscard]] std::uint8_t wanted(std::uint8_t address) const;
  [[nodiscard]] bool answers(const Step& step, const Reply& reply) const;
  void send_next(std::int64_t now_ms);
  void send(std::int64_t now_ms);
  void read_back(const Step& step, const E2rom& got);

  HostConfig config_;
  bool connected_ = false;
  std::deque<Step> steps_;  // front: in flight once sent
  bool in_flight_ = false;
  int sends_ = 0;  // of the step in flight
  std::int64_t sent_at_ = 0;
  std::int64_t last_heard_ = 0;  // the last reply, or the connect
  std::int64_t last_poll_ = 0;   // the last silence poll
  int rewrites_[2] = {0, 0};     // per setting (02, 01) since the connect or the last poll
  int confirmed_ = 0;            // bit 0: E2ROM 02, bit 1: E2ROM 01, read back as written since the connect
  std::vector<std::uint8_t> out_;
  HostStats stats_;
};

}  // namespace eboard::drivers::millennium
