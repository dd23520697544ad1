// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A named set of deadlines (times in ms, each set or not) and the next of them: the earliest, and among
// deadlines due at the same time the first in the order of the names. `Name` is an enum whose
// enumerators run from 0 to `Name::Count`. The Reconstructor (rules/reconstruct.hpp) keeps its own in one
// and computes its next wake-up, with the deadlines of its parts, in one. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace eboard::rules {

template <class Name>
class Deadlines {
 public:
  std::optional<std::int64_t> at(Name n) const { return at_[index(n)]; }
  void set(Name n, std::int64_t t_ms) { at_[index(n)] = t_ms; }
  void set(Name n, std::optional<std::int64_t> t_ms) { at_[index(n)] = t_ms; }
  // Set unless it is set already (a deadline that nothing pushes back).
  void set_unless_set(Name n, std::int64_t t_ms) {
    if (!at_[index(n)]) at_[index(n)] = t_ms;
  }
  void clear(Name n) { at_[index(n)].reset(); }

  struct Due {
    Name name;
    std::int64_t t_ms;
  };
  // The deadline that comes first: the earliest, the first name among equal times. None when none is set.
  std::optional<Due> next() const {
    std::optional<Due> best;
    for (std::size_t i = 0; i < kCount; ++i)
      if (at_[i] && (!best || *at_[i] < best->t_ms)) best = Due{Name(i), *at_[i]};
    return best;
  }

 private:
  static constexpr std::size_t kCount = std::size_t(Name::Count);
  static std::size_t index(Name n) { return std::size_t(n); }
  std::array<std::optional<std::int64_t>, kCount> at_{};
};

}  // namespace eboard::rules
