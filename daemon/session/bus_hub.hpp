// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bus wired for emulated boards: N boards (each a BoardPlayer on its own socket pair) share one host
// wire (a pty master). What the host writes reaches every board, as on the shared line; what the boards
// answer goes to the host frame by frame (cut as the dialect's BusFraming says: bus_line.hpp), never
// interleaved. An answer to discovery leaves after a random delay of up to `ping_spread_ms` (real DGT
// boards answer a ping at a random moment within about a second, so that their answers rarely collide). A
// muted board is unplugged from the chain: it neither hears nor answers; one can be unplugged as a frame
// of its leaves (that frame lost: the board heard the command it answers).
//
// The line's pace: with `baud` > 0 the boards' frames go out one after another, byte by byte at that rate
// (10 bits a byte), as on a real line; a host command written while a frame is on the line (or waiting
// for it) would have collided with it on a real bus (the answer to that command would have been sent
// over the frame): it is counted and reported through on_collision, so that tests fail on it, unless
// every frame on the line came later than a real board answers (see BusHubStats::late_frames), or the
// frame went onto the line in the instant the command was read, or the hub's process was not running a
// while before (its pace or its watch woke late: a stalled process cannot order them: late_overlaps). The
// command still reaches the boards. `baud` 0: frames go out as fast as the sockets take them.
//
// Threading: one io_context run by one thread; call every member from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

#include "daemon/session/bus_line.hpp"

namespace eboard::session {

struct BusHubStats {
  std::uint64_t host_bytes = 0;
  std::uint64_t frames_to_host = 0;
  std::uint64_t bytes_to_host = 0;
  std::uint64_t muted_bytes = 0;  // dropped: to or from a muted board
  std::uint64_t collisions = 0;   // host commands written while a frame was on the line
  // Frames an emulated board produced later than a real board answers (20 ms after the command): a
  // loaded machine's delay, not the wire's. A host command over only such frames is counted here, not
  // as a collision: the master's wait is a real board's, and it was right to give up.
  std::uint64_t late_frames = 0;
  std::uint64_t late_overlaps = 0;  // host commands over such frames, or over one begun that instant
  // Times the hub's timers (its pacing, or its watch every 10 ms) woke more than a few ms late: its
  // process was not running, a command was read late or the line let out at once what the baud rate would
  // have spread; the line's timing meanwhile is the machine's, not the wire's.
  std::uint64_t stalls = 0;
};

class BusHub {
 public:
  static constexpr int kDefaultBaud = 9600;

  // `framing`: the bus dialect's (its row's bus_framing), kept by reference.
  BusHub(boost::asio::io_context& io, const BusFraming& framing, std::size_t boards, std::uint64_t seed = 1,
         std::int64_t ping_spread_ms = 1000, int baud = kDefaultBaud);
  ~BusHub();
  BusHub(const BusHub&) = delete;
  BusHub& operator=(const BusHub&) = delete;

  // The board end of board k's socket pair, to attach a BoardPlayer to (it owns the fd from then on);
  // -1 after it was taken once. Fails only if the socket pairs could not be made.
  [[nodiscard]] int take_board_fd(std::size_t k);
  [[nodiscard]] bool ok() const;
  // The host's wire (a pty master), owned from now on.
  void attach_host(int fd);
  void start();
  void stop();

  void mute(std::size_t k, bool muted);
  // Board k is muted as the first frame it sends from now on for which `lost` says yes leaves it: that
  // frame never reaches the host.
  void mute_at(std::size_t k, std::function<bool(std::span<const std::uint8_t> frame)> lost);
  [[nodiscard]] bool muted(std::size_t k) const;
  [[nodiscard]] std::size_t size() const;
  [[nodiscard]] const BusHubStats& stats() const;

  // A collision: what was on the line when the host wrote.
  std::function<void(const std::string&)> on_collision;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::session
