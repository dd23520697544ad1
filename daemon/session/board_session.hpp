// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// One board as the daemon runs it: a serial or USB HID link (reconnecting by itself), the protocol's adapter
// that turns the board's bytes into sensor events (board_protocol.hpp: DGT, Millennium …), the reconstruction
// that turns those into moves, and the timer that wakes reconstruction at its deadlines. Events come out
// through a callback; every byte on the wire can be tapped (for recording captures).
//
// On every (re)connect it sends the protocol's init commands (DGT: UPDATE_NICE mode, a board dump request
// and one clock request; Millennium: a snapshot request), so that a reconnect re-reads the whole board and
// the clock. Until that whole-board snapshot is in, square events are dropped (the snapshot shows their
// result) and clock readings are held back and delivered right after it, so that reconstruction never sees
// a lever change against a board it has not re-read. A disconnect is fed to reconstruction as
// DeviceLink{false}, a connect as DeviceLink{true}.
//
// Time is the config's time base (io/time_base.hpp: system, scaled or manual): its clock stamps every
// event and its scheduler wakes reconstruction, the dump wait, the adapter's polls and the clock queue at
// their deadlines, all in the game's ms. Only the link's reconnect backoff stays on the steady clock (it is
// about the device, not the game). Threading: one io_context run by one thread, the time base's; call
// every member from it (or before it runs).
// Callbacks may call send() and stop(), but must not destroy the session.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

#include "daemon/io/serial_link.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/io/usb_hid.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/clock_port.hpp"
#include "drivers/capture.hpp"
#include "rules/reconstruct.hpp"

namespace eboard::session {

struct BoardSessionConfig {
  std::string board_id = "A";
  // The board's protocol (session::find_protocol): "dgt", "millennium", "chessnut". It sets the line
  // settings of `link`; empty or unknown: the table's first row (board_protocols()). Name it.
  std::string protocol;
  // Device path and backoff (its line settings are the protocol's). For a USB HID board (Chessnut) the
  // device is "BUS:ADDRESS", the USB serial number, or empty for the first board with the protocol's ids.
  io::LinkConfig link;
  // USB HID boards: the libusb seam (tests put a fake here); null: libusb.
  std::shared_ptr<io::HidBackend> usb_backend;
  rules::ReconstructConfig rules;  // its board_id is replaced by `board_id`
  // Continue this game (after a restart) instead of a fresh one. On the heap, shared by copies of the
  // config like `reconstruction` (and taken by the session alike): a game is most of a kilobyte.
  std::shared_ptr<rules::Game> game;
  // Continue this reconstruction (replayed from the journal after a restart) instead of one built from
  // `rules` and `game`: it remembers what the game does not (which clock side is White's, the last lever
  // reading, an adjournment), so a clock press made while the daemon was down still completes the move.
  // On the heap: a Reconstructor is some kilobytes, and the session keeps its config after taking it.
  // Copies of a config share it; each session started from one gets the reconstruction as it was.
  std::shared_ptr<rules::Reconstructor> reconstruction;
  // The game's time (Unix ms) and the scheduler of the session's deadlines; empty: the system clock on
  // the session's io_context. A time base given must run on that same io_context.
  std::shared_ptr<io::TimeBase> time;
  // After a connect, wait this long (clock ms) for the board dump before giving up on holding readings.
  std::int64_t dump_wait_ms = 3000;
  // Sensor events only (a bughouse match reconstructs both boards together, elsewhere): on_sensor gets
  // them as always, `rules`/`game` are unused and on_event never fires.
  bool sensor_only = false;
  // With sensor_only: whether the reconstruction elsewhere wants the board read again (its
  // Reconstructor::board_read_wanted), so that the session sends the dump request as it does for its own.
  std::function<std::optional<std::int64_t>()> read_wanted;
};

enum class LogLevel : std::uint8_t { info, warning };

struct BoardSessionHandlers {
  std::function<void(const rules::Event&)> on_event;
  // The time reconstruction's timers were run at, just before the events they made (only when they made
  // some) go to on_event: a journal must hold it, even when sensor events came in the same handler, for
  // replay to make those events again.
  std::function<void(std::int64_t t_ms)> on_advance;
  // Every byte on the wire, as it went: FromBoard when received, ToBoard when queued for writing.
  std::function<void(std::int64_t t_ms, drivers::Direction, std::span<const std::uint8_t>)> on_wire;
  // Every sensor event exactly as reconstruction gets it (after the hold-until-dump rule above, link
  // changes included), just before it does: for a journal that must replay to the same game.
  std::function<void(const rules::SensorEvent&)> on_sensor;
  // Connection news worth a log line: connected (and how: e.g. the pty fallback), lost, waiting.
  std::function<void(LogLevel, const std::string&)> on_log;
  // The link as the arbiter should know it: `online` on every connect, offline on every loss and on the
  // first failed open of an outage (a board absent at start), each with a reason for a person ("device
  // removed: ...", "read error: ...", "device absent: ..."). Repeated failed opens are not reported.
  std::function<void(std::int64_t t_ms, bool online, const std::string& reason)> on_link;
};

struct BoardSessionStats {
  std::uint64_t connects = 0;
  std::uint64_t disconnects = 0;
  std::uint64_t sensor_events = 0;
  std::uint64_t events = 0;
  std::uint64_t field_updates_before_dump = 0;  // dropped: the dump after the (re)connect shows them
  std::uint64_t readings_held = 0;              // clock readings delivered after that dump
  std::uint64_t dump_timeouts = 0;
  std::uint64_t board_rereads = 0;          // dumps asked for mid-game: a press the board showed no move for
  std::uint64_t clock_commands = 0;         // queued by clock_command()
  std::uint64_t clock_commands_failed = 0;  // refused (no clock port), rejected by the clock, or unanswered
};

class BoardSession {
 public:
  BoardSession(boost::asio::io_context& io, BoardSessionConfig config, BoardSessionHandlers handlers);
  ~BoardSession();
  BoardSession(const BoardSession&) = delete;
  BoardSession& operator=(const BoardSession&) = delete;

  // Starts connecting (the first attempt is posted: no callback runs inside start()).
  void start();
  // Closes the port and cancels its timer; no callback after this.
  void stop();
  // Writes bytes to the board (tapped as ToBoard). Fails while disconnected.
  tl::expected<void, io::IoError> send(std::vector<std::uint8_t> bytes);
  // Queues a request for the clock behind the board (a text, the times, a beep) through the protocol's
  // clock port (clock_port.hpp): sent once connected and the board re-read, one at a time, each waiting
  // for the clock's answer and resent when none comes, as the port's make does it. A reconnect drops what
  // is still queued: the display shows current news. A board without a clock port (Millennium, Chessnut)
  // counts it as failed; one its clock cannot do (a text too long) is dropped uncounted.
  void clock_command(const ClockRequest& request);
  // The same, with `done` called (on the loop) once the clock has answered it: Acknowledged, Rejected, or
  // TimedOut after the port's resends; also TimedOut with 0 attempts when a reconnect dropped it. Refused
  // at once (done not called), with the reason for the arbiter, when the board has no clock port, is
  // offline, or its clock cannot do the request.
  using ClockDone = std::function<void(const ClockResult&)>;
  tl::expected<void, std::string> clock_command(const ClockRequest& request, ClockDone done);
  // Whether the board's protocol has a clock port: clock commands can reach its clock.
  [[nodiscard]] bool has_clock_port() const;
  // Lights these squares (bit n = square n, a1 = 0; 0: all off) on a board that has LEDs. Fails while
  // disconnected; false when the board has none.
  bool leds(std::uint64_t squares);
  // The board's device may be back (a hotplug arrival): the link retries now rather than after its
  // backoff; `device`, if not empty, is the path to open from now on (io::SerialLink::reconnect_now).
  void reconnect_now(const std::string& device = {});
  // The path the link opens.
  [[nodiscard]] const std::string& device() const;

  [[nodiscard]] std::int64_t now_ms() const;
  [[nodiscard]] bool connected() const;
  [[nodiscard]] std::optional<io::PortInfo> port_info() const;
  [[nodiscard]] const io::LinkStats& link_stats() const;
  [[nodiscard]] const BoardSessionStats& stats() const;
  [[nodiscard]] const rules::Reconstructor& reconstructor() const;
  // Arbiter input (the daemon's control interface): `change` runs on the reconstruction, then the timer
  // is re-armed for its new deadlines. Events `change` gets are the caller's to deliver, not on_event's.
  void change_reconstructor(const std::function<void(rules::Reconstructor&)>& change);
  [[nodiscard]] const rules::Game& game() const;
  [[nodiscard]] const BoardProtocol& protocol() const;
  // The board is set up turned round (as its protocol can tell).
  [[nodiscard]] bool rotated() const;
  [[nodiscard]] const std::string& board_id() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
