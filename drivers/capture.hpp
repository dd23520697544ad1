// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Capture files (`.cap`, CONTRACTS §1): what one board sent and was sent, with times. A reader, a streaming
// writer, and an importer for the `.inbytes` captures of the arnsholt/dgtdriver test corpus.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::drivers {

enum class Direction : std::uint8_t {
  FromBoard,  // '<'
  ToBoard,    // '>'
};

struct CaptureRecord {
  std::int64_t t_ms = 0;
  Direction direction = Direction::FromBoard;
  std::vector<std::uint8_t> bytes;
  // A link record (`<t> ! online` / `<t> ! offline`): the host regained (true) or lost (false) the board's
  // link at t_ms. Such a record has no bytes and its direction means nothing.
  std::optional<bool> link;
  bool operator==(const CaptureRecord&) const = default;
};

struct CaptureHeader {
  std::string key;
  std::string value;
  bool operator==(const CaptureHeader&) const = default;
};

// The header of a `dgt-bus` capture that names the board's bus address (1..16383).
inline constexpr const char* kBusAddressHeader = "bus-address";

// Everything above the records.
struct CaptureInfo {
  // Lower-case letters, digits and '-'. Which protocols exist is the reader's business, not the format's:
  // the daemon's protocol rows (daemon/session/board_protocol.hpp) name its makes (`dgt`, `millennium`,
  // `chessnut`) and their bus dialects (`dgt-bus`, see kBusAddressHeader); CONTRACTS §1 names `certabo` too.
  std::string protocol = "dgt";
  std::string board;  // a label, "A"/"B" in a bughouse match; may be empty
  std::vector<std::string> notes;
  std::vector<CaptureHeader> other_headers;  // any other `# key: value`, in file order
  bool operator==(const CaptureInfo&) const = default;
};

struct Capture {
  CaptureInfo info;
  std::vector<CaptureRecord> records;
  bool operator==(const Capture&) const = default;
};

// Parses a whole capture. Errors read "line N: what is wrong".
[[nodiscard]] tl::expected<Capture, std::string> parse_capture(std::string_view text);
[[nodiscard]] tl::expected<Capture, std::string> read_capture_file(const std::filesystem::path& path);

// One record line, without the newline: "<t> <dir> xx xx ...".
[[nodiscard]] std::string format_capture_record(const CaptureRecord& record);
// A whole capture as text (header and records).
[[nodiscard]] std::string format_capture(const Capture& capture);

// Streams a capture: the header at construction, then one line per append. Flushing is the caller's choice.
class CaptureWriter {
 public:
  CaptureWriter(std::ostream& out, const CaptureInfo& info);
  // Refuses a time before the previous record's, and an empty record.
  tl::expected<void, std::string> append(std::int64_t t_ms, Direction direction,
                                         std::span<const std::uint8_t> bytes);
  // A link record: the link came up (`online`) or went down at t_ms. Refuses a time before the previous.
  tl::expected<void, std::string> append_link(std::int64_t t_ms, bool online);

 private:
  std::ostream& out_;
  std::optional<std::int64_t> last_t_ms_;
};

// `.inbytes` (arnsholt/dgtdriver): one base64 line per serial read, no times. The importer makes times up so
// that a replay looks like the real game: every line is decoded as DGT and
//  - a line holding a clock reading whose displayed time changed while the clock runs is a clock tick: it is
//    placed `tick_ms` after the previous tick (or later, if the lines in between already took longer);
//  - every other line comes `step_ms` after the previous line.
// The first line is at t = 0. Times never decrease.
struct InbytesImportOptions {
  std::int64_t tick_ms = 1000;
  std::int64_t step_ms = 40;
  std::string board;
  std::string note;
};
[[nodiscard]] tl::expected<Capture, std::string> import_dgt_inbytes(std::string_view text,
                                                                    const InbytesImportOptions& options = {});

}  // namespace eboard::drivers
