// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An emulated board played in real time on the board's end of a wire: the master of a pseudo-terminal for
// `eboardctl sim` (and the demo), or a mock USB device's master in the tests. BoardPlayer follows a script
// (a simulated game's sensor events, or a recorded capture's bytes) on a virtual clock (its own, `speed`
// times faster than real time, or a time base it shares with the host: io/time_base.hpp, manual time
// included), answers the host's commands as they come, and can be unplugged and plugged again. Its wire
// is any stream descriptor: a pty master, or a socketpair end (an in-memory wire, io::LinkConfig::
// open_wire on the host's side). What it plays is any emulator behind EmulatedBoard: the DGT one
// (EmulatedDgt, here) or the Millennium one (emulated_millennium.hpp).
//
// Threading: one io_context run by one thread; call every member from it (or before it runs).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "daemon/io/time_base.hpp"
#include "drivers/capture.hpp"
#include "drivers/dgt/emulator.hpp"
#include "rules/sensor.hpp"

namespace eboard::session {

// Bytes a recorded board sent (a capture's `<` record).
struct RecordedBytes {
  std::vector<std::uint8_t> bytes;
};

// One step of what the board does: a sensor event of a simulation (game squares, clock readings), or
// recorded bytes, at a time on the script's clock (0 = when the player starts).
struct ScriptItem {
  std::int64_t t_ms = 0;
  std::variant<rules::SensorEvent, RecordedBytes> what;
};
using BoardScript = std::vector<ScriptItem>;

// A simulation's events (e.g. sim::Timeline::events), at their times.
BoardScript script_from_events(std::span<const rules::SensorEvent> events);

// What a simulation's events show at `t_ms`: the pieces, and the last clock reading with its running
// side's time run on to `t_ms` (none before the first reading).
struct BoardState {
  std::array<rules::Piece, 64> squares{};
  std::optional<rules::ClockReading> clock;
};
BoardState state_at(std::span<const rules::SensorEvent> events, std::int64_t t_ms);
// The same simulation joined at `from_ms` (a board that played on while its host was away): the board
// and clock as they stand then are the set-up at time 0, the events after it follow at their time less
// `from_ms`.
BoardScript script_from_events(std::span<const rules::SensorEvent> events, std::int64_t from_ms);
// A capture's board-to-host records at their times; host-to-board records are left out (the host now
// is whoever opens the board).
BoardScript script_from_capture(const drivers::Capture& capture);

// The board as a capture first shows it, set on the emulator before the replay starts: the first board
// dump (when no field update comes before it) and the first clock reading. A host that asks before the
// recording gets there then sees the pieces that stood on the board, not an empty one.
void preset_from_capture(drivers::dgt::Emulator& emulator, const drivers::Capture& capture);

// The emulator's clock for a reading of a clock model.
drivers::dgt::EmulatedClock emulated_clock(const rules::ClockReading& reading);
// Applies one item to the emulator at the item's time: pieces through the emulator's orientation,
// recorded bytes through pass_through().
void apply(drivers::dgt::Emulator& emulator, const ScriptItem& item);

// What the player needs of an emulator: a script item set on it, the host's bytes in, its output out, its
// time moved on (it may have nothing to do until the next input: next_deadline() is empty then).
class EmulatedBoard {
 public:
  EmulatedBoard() = default;
  virtual ~EmulatedBoard() = default;
  EmulatedBoard(const EmulatedBoard&) = delete;
  EmulatedBoard& operator=(const EmulatedBoard&) = delete;

  virtual void apply(const ScriptItem& item) = 0;
  virtual void receive(std::int64_t now_ms, std::span<const std::uint8_t> bytes) = 0;
  virtual void advance(std::int64_t now_ms) = 0;
  [[nodiscard]] virtual std::optional<std::int64_t> next_deadline() const = 0;
  [[nodiscard]] virtual std::vector<std::uint8_t> take_output() = 0;
  // The board lost power and got it back (after a replug); a board keeping nothing the host set ignores it.
  virtual void power_cycle(std::int64_t /*now_ms*/) {}
  // True for a board that reports its squares only at its scans: the player gives each item's time a scan
  // of its own, so that a lift and the placement a few ms later are not merged into one report.
  [[nodiscard]] virtual bool reports_at_scans() const { return false; }
  // Another program turns the board's automatic reports off; the host is not told. Only a board whose
  // BoardEmulator has report modes has them: the others ignore it.
  virtual void turn_reports_off() {}
  // What the board itself kept of the session, for a note when the script ends (empty: nothing to say).
  [[nodiscard]] virtual std::string account() const { return {}; }
};

// The DGT emulator behind the seam: items through apply() above, clock readings included.
class EmulatedDgt final : public EmulatedBoard {
 public:
  explicit EmulatedDgt(drivers::dgt::Emulator emulator) : emu_(std::move(emulator)) {}
  [[nodiscard]] const drivers::dgt::Emulator& emulator() const { return emu_; }

  void apply(const ScriptItem& item) override { session::apply(emu_, item); }
  void receive(std::int64_t now_ms, std::span<const std::uint8_t> bytes) override {
    emu_.receive(now_ms, bytes);
  }
  void advance(std::int64_t now_ms) override { emu_.advance(now_ms); }
  [[nodiscard]] std::optional<std::int64_t> next_deadline() const override { return emu_.next_deadline(); }
  [[nodiscard]] std::vector<std::uint8_t> take_output() override { return emu_.take_output(); }
  void power_cycle(std::int64_t now_ms) override { emu_.power_cycle(now_ms); }

 private:
  drivers::dgt::Emulator emu_;
};

struct PlayerConfig {
  double speed = 1.0;  // virtual milliseconds per real millisecond (without `time`)
  // The clock and scheduler the script runs on (the host's, so that both share one time; manual for a
  // test in virtual time): the script's time 0 is the time base's time at start. Empty: a scaled time
  // base of the player's own at `speed`. Its io_context must be the player's.
  std::shared_ptr<io::TimeBase> time{};
  // Start the script's clock at the host's first byte rather than at start(), so that nothing is played
  // to nobody. Items at time 0 or before (the set-up) are applied at start() either way.
  bool wait_for_host = false;
  std::size_t max_queued_bytes = std::size_t{1} << 20;  // unread output beyond this is dropped
};

struct PlayerStats {
  std::uint64_t host_bytes = 0;
  std::uint64_t board_bytes = 0;    // written to the wire
  std::uint64_t dropped_bytes = 0;  // produced while unplugged, or beyond the queue limit
  std::uint64_t items_played = 0;
  std::uint64_t attaches = 0;
};

class BoardPlayer {
 public:
  BoardPlayer(boost::asio::io_context& io, std::unique_ptr<EmulatedBoard> board, BoardScript script,
              PlayerConfig config = {});
  // A DGT board.
  BoardPlayer(boost::asio::io_context& io, drivers::dgt::Emulator emulator, BoardScript script,
              PlayerConfig config = {});
  ~BoardPlayer();
  BoardPlayer(const BoardPlayer&) = delete;
  BoardPlayer& operator=(const BoardPlayer&) = delete;

  // Applies the set-up items and starts the clock (or waits for the host, see PlayerConfig).
  void start();
  // The board plays `script` from now on instead of what was left of its script: the new script's time
  // 0 is now (returned, on the player's clock, which goes on: at() and now_ms() keep their times), its
  // set-up items are applied at once (changes the host sees if it listens). The emulator keeps its state
  // and what the host set. Before start(), the script simply replaces the old one.
  std::int64_t load(BoardScript script);
  // Stops playing and detaches; nothing runs after this.
  void stop();

  // Plugs the board into a wire: `fd` is the board's end (a pty master), owned from now on (closed by
  // detach()). It is made non-blocking.
  void attach(int fd);
  // Unplugs: closes the fd; the emulator keeps following the script, its output goes nowhere.
  void detach();
  [[nodiscard]] bool attached() const;
  // The board lost power and got it back (after a replug): see Emulator::power_cycle.
  void power_cycle();

  // Runs `fn` when the script's clock reaches `t_ms` (at once if it has).
  void at(std::int64_t t_ms, std::function<void()> fn);

  [[nodiscard]] bool started() const;         // the script's clock runs
  [[nodiscard]] std::int64_t now_ms() const;  // on the script's clock; 0 before it starts
  [[nodiscard]] bool script_done() const;
  [[nodiscard]] std::int64_t script_end_ms() const;  // time of the last item
  [[nodiscard]] const EmulatedBoard& board() const;
  // The emulator played, as the type it was made with (e.g. board_as<EmulatedDgt>()); std::bad_cast if not.
  template <class Board>
  [[nodiscard]] const Board& board_as() const {
    return dynamic_cast<const Board&>(board());
  }
  [[nodiscard]] const PlayerStats& stats() const;

  std::function<void()> on_started;     // the script's clock started (the host's first byte, or start())
  std::function<void()> on_script_end;  // every item has been played
  // Bytes on the wire, with the script's time: from the host, and from the board (as written).
  std::function<void(std::int64_t, std::span<const std::uint8_t>)> on_host_bytes;
  std::function<void(std::int64_t, std::span<const std::uint8_t>)> on_board_bytes;
  // The board's output as it is handed to the wire, in order, right after the write was started: Asio
  // tries the write at once, so the bytes are normally readable by the host by then. on_board_bytes comes
  // later (when the completion runs); benchmarks that time the host's reaction use this one.
  std::function<void(std::span<const std::uint8_t>)> on_board_write;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
