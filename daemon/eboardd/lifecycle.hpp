// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The start and stop of a daemon's parts in one place: an ordered list of named parts, each with a start
// and a stop. start() starts them in the order they were added (a part may rely on every part before it);
// stop() stops the started ones in reverse. A part that fails to start is stopped (it may have half
// started), then every part started before it, last first, and start() returns its error: a failed start
// leaves nothing running. So every stop must be safe on a part whose start failed part-way. Runs on the
// caller's thread; the parts' functions must not add parts.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::eboardd {

class Lifecycle {
 public:
  using Start = std::function<tl::expected<void, std::string>()>;
  using Stop = std::function<void()>;

  // A part after those added before: it starts after them and stops before them. An empty start always
  // succeeds; an empty stop does nothing (a part that needs no stopping, or whose end is its owner's
  // destruction).
  void add(std::string name, Start start, Stop stop = {});

  // Starts every part not started yet, in order. On the first failure, that part and the parts started
  // before it are stopped (last first) and the error is "<name>: <the part's error>". A start after stop()
  // starts the parts again from the first.
  tl::expected<void, std::string> start();
  // Stops the started parts, last first, each once; then none is started. Safe at any time: before start,
  // after a partial or failed one, twice.
  void stop();

  bool running() const { return started_ == parts_.size() && !parts_.empty(); }
  // The names of the parts started now, in their start order.
  std::vector<std::string> started() const;
  // The names of every part, in their start order.
  std::vector<std::string> names() const;

 private:
  struct Part {
    std::string name;
    Start start;
    Stop stop;
  };
  std::vector<Part> parts_;
  std::size_t started_ = 0;  // parts_[0, started_) are started
};

}  // namespace eboard::eboardd
