// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/eboardd/opening_book.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace eboard::eboardd {

tl::expected<std::string, std::string> opening_book_path(const config::GapsConfig& gaps) {
  const std::string path = gaps.openings.value_or(config::kDefaultOpenings);
  if (path.empty()) return path;
  std::error_code ec;
  if (!gaps.openings && !std::filesystem::exists(path, ec)) return std::string();
  if (std::filesystem::is_directory(path, ec) || !std::ifstream(path, std::ios::binary))
    return tl::unexpected("cannot read " + path);
  return path;
}

tl::expected<OpeningBook, std::string> read_opening_book(const std::string& path) {
  if (path.empty()) return OpeningBook{nullptr, "none"};
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || in.bad()) return tl::unexpected("cannot read " + path);
  auto lines = rules::OpeningLines::from_pgn(text.str());
  if (!lines) return tl::unexpected(path + ": " + lines.error());
  OpeningBook book;
  book.said = fmt::format("{} lines ({} positions) from {}", lines->lines(), lines->positions(), path);
  if (lines->skipped())
    book.said += fmt::format(", {} games not read, not replayed or without moves", lines->skipped());
  book.lines = std::make_shared<const rules::OpeningLines>(std::move(*lines));
  return book;
}

tl::expected<OpeningBook, std::string> read_opening_book(const config::GapsConfig& gaps) {
  auto path = opening_book_path(gaps);
  if (!path) return tl::unexpected(path.error());
  if (path->empty())
    return OpeningBook{nullptr, gaps.openings ? "none ([gaps] openings = \"\")"
                                              : "none: " + std::string(config::kDefaultOpenings) +
                                                    " is absent (Debian's pgn-extract)"};
  return read_opening_book(*path);
}

}  // namespace eboard::eboardd
