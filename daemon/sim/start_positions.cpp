// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/sim/start_positions.hpp"

#include <array>
#include <cctype>

namespace eboard::sim {

std::string chess960_start_fen(int index) {
  int n = ((index % 960) + 960) % 960;
  std::array<char, 8> rank{};  // files a..h, 0 = still free
  // The n-th free file, counting from a.
  auto free_file = [&](int k) {
    for (int f = 0; f < 8; ++f)
      if (rank[f] == 0 && k-- == 0) return f;
    return -1;
  };
  rank[2 * (n % 4) + 1] = 'B';  // light-squared bishop: b, d, f or h
  n /= 4;
  rank[2 * (n % 4)] = 'B';  // dark-squared bishop: a, c, e or g
  n /= 4;
  rank[free_file(n % 6)] = 'Q';
  n /= 6;
  // The two knights among the five free squares: the ten pairs in order.
  static constexpr std::array<std::array<int, 2>, 10> knights{
      {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}}};
  const int k1 = free_file(knights[n][0]), k2 = free_file(knights[n][1]);
  rank[k1] = rank[k2] = 'N';
  // Rook, king, rook in the three squares left: the king always between the rooks.
  const char rkr[] = "RKR";
  for (int i = 0; i < 3; ++i) rank[free_file(0)] = rkr[i];

  std::string white(rank.begin(), rank.end()), black;
  for (char c : white) black += char(std::tolower(static_cast<unsigned char>(c)));
  return black + "/pppppppp/8/8/8/8/PPPPPPPP/" + white + " w KQkq - 0 1";
}

}  // namespace eboard::sim
