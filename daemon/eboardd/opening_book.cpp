// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/opening_book.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace eboard::eboardd {

tl::expected<OpeningBook, std::string> read_opening_book(const config::GapsConfig& gaps) {
  const std::string path = gaps.openings.value_or(config::kDefaultOpenings);
  if (path.empty()) return OpeningBook{nullptr, "none ([gaps] openings = \"\")"};
  std::error_code ec;
  if (!gaps.openings && !std::filesystem::exists(path, ec))
    return OpeningBook{nullptr, "none: " + path + " is absent (Debian's pgn-extract)"};
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || in.bad() || std::filesystem::is_directory(path, ec))
    return tl::unexpected("cannot read " + path);
  auto lines = rules::OpeningLines::from_pgn(text.str());
  if (!lines) return tl::unexpected(path + ": " + lines.error());
  OpeningBook book;
  book.said = fmt::format("{} lines ({} positions) from {}", lines->lines(), lines->positions(), path);
  if (lines->skipped())
    book.said += fmt::format(", {} games not read, not replayed or without moves", lines->skipped());
  book.lines = std::make_shared<const rules::OpeningLines>(std::move(*lines));
  return book;
}

}  // namespace eboard::eboardd
