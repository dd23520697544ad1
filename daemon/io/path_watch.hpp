// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Tells its owner when a device path may have come back, so that a board is reopened as soon as its device
// is there rather than at the next retry of a backoff. inotify watches the directory that holds the path and
// the directory of every symlink target on the way to the device (a udev link in /dev/serial/by-id to
// /dev/ttyUSB0, a link an emulator repoints to a new /dev/pts/N), or the nearest ancestor that exists while
// a directory is missing (udev removes /dev/serial/by-id with the last USB serial device). A creation, a
// rename into the directory or an attribute change there (udev setting a new node's mode and group) wakes
// the owner, who tries to open and, when that fails, calls watch() again: the chain may have grown.
// devtmpfs (/dev, where the kernel makes ttyUSB/ttyACM/ttyS/rfcomm nodes) and devpts (/dev/pts) both
// report their creations to inotify.
//
// Threading: the owner's io_context, one thread; on_change runs on it. No callback after stop() or the
// destructor.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

namespace eboard::io {

class PathWatch {
 public:
  PathWatch(boost::asio::io_context& io, std::function<void()> on_change);
  ~PathWatch();
  PathWatch(const PathWatch&) = delete;
  PathWatch& operator=(const PathWatch&) = delete;

  // Watches the directories `path` depends on (replacing earlier watches: those of directories still on
  // the way are kept, with what they reported and was not read yet). False when inotify cannot be had (then
  // the owner's retry timer is all there is).
  bool watch(const std::string& path);
  // Drops the watches and closes the inotify fd (nothing left on the io_context); on_change is not called
  // until the next watch().
  void stop();
  // The directories watched now (for tests and logs).
  [[nodiscard]] std::vector<std::string> directories() const;

  // The directories `path` depends on, as watch() computes them.
  [[nodiscard]] static std::vector<std::string> directories_for(const std::string& path);

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace eboard::io
