// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/lifecycle.hpp"

#include <utility>

namespace eboard::eboardd {

void Lifecycle::add(std::string name, Start start, Stop stop) {
  parts_.push_back(Part{std::move(name), std::move(start), std::move(stop)});
}

tl::expected<void, std::string> Lifecycle::start() {
  while (started_ < parts_.size()) {
    Part& p = parts_[started_++];
    if (!p.start) continue;
    if (auto ok = p.start(); !ok) {
      std::string error = p.name + ": " + ok.error();
      stop();  // this part too: it may have half started
      return tl::unexpected(std::move(error));
    }
  }
  return {};
}

void Lifecycle::stop() {
  while (started_ > 0) {
    // Counted down first: a stop that throws, or that calls stop() again, never stops its part twice.
    Part& p = parts_[--started_];
    if (p.stop) p.stop();
  }
}

std::vector<std::string> Lifecycle::started() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < started_; ++i) names.push_back(parts_[i].name);
  return names;
}

std::vector<std::string> Lifecycle::names() const {
  std::vector<std::string> all;
  for (const Part& p : parts_) all.push_back(p.name);
  return all;
}

}  // namespace eboard::eboardd
