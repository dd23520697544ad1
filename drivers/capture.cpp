// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/capture.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>
#include <utility>

#include "drivers/base64.hpp"
#include "drivers/dgt/decoder.hpp"

namespace eboard::drivers {
namespace {

constexpr std::string_view kMagic = "# eboard-capture 1";
constexpr std::string_view kMagicPrefix = "# eboard-capture ";
constexpr std::size_t kMaxTimeDigits = 18;  // stays inside int64

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_key_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '-' || c == '.';
}

// A protocol's name: lower-case letters, digits and '-', as the daemon's protocol rows name them.
bool is_protocol_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || c == '-';
  });
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (is_blank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (is_blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::string at_line(std::size_t line, std::string_view what) {
  return "line " + std::to_string(line) + ": " + std::string(what);
}

// Parses `# key: value`; anything else after a '#' is a comment.
std::optional<CaptureHeader> parse_header(std::string_view line) {
  std::size_t i = 1;
  while (i < line.size() && is_blank(line[i])) ++i;
  const std::size_t key_start = i;
  while (i < line.size() && is_key_char(line[i])) ++i;
  if (i == key_start || i >= line.size() || line[i] != ':') return std::nullopt;
  return CaptureHeader{std::string(line.substr(key_start, i - key_start)),
                       std::string(trim(line.substr(i + 1)))};
}

tl::expected<void, std::string> apply_header(CaptureHeader header, std::size_t line_no, CaptureInfo& info,
                                             bool& seen_protocol, bool& seen_board) {
  if (header.key == "protocol") {
    if (seen_protocol) return tl::unexpected(at_line(line_no, "second 'protocol' header"));
    if (!is_protocol_name(header.value)) {
      return tl::unexpected(at_line(
          line_no,
          "protocol '" + header.value + "' is not a protocol's name (lower-case letters, digits, '-')"));
    }
    seen_protocol = true;
    info.protocol = std::move(header.value);
  } else if (header.key == "board") {
    if (seen_board) return tl::unexpected(at_line(line_no, "second 'board' header"));
    seen_board = true;
    info.board = std::move(header.value);
  } else if (header.key == "note") {
    info.notes.push_back(std::move(header.value));
  } else {
    info.other_headers.push_back(std::move(header));
  }
  return {};
}

tl::expected<CaptureRecord, std::string> parse_record(std::string_view line, std::size_t line_no) {
  CaptureRecord record;
  std::size_t i = 0;
  const auto column = [&](std::size_t at) { return " (column " + std::to_string(at + 1) + ")"; };
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == 0) return tl::unexpected(at_line(line_no, "expected a record '<t> <dir> <hex>' or a '#' line"));
  if (i > kMaxTimeDigits) return tl::unexpected(at_line(line_no, "time too large"));
  if (i < line.size() && !is_blank(line[i])) {
    return tl::unexpected(at_line(line_no, "time must be a whole number of milliseconds" + column(i)));
  }
  record.t_ms = std::stoll(std::string(line.substr(0, i)));
  while (i < line.size() && is_blank(line[i])) ++i;
  if (i < line.size() && line[i] == '!') {
    // A link record. Another word is a record of a kind this reader does not know: given back with no
    // bytes and no link, for the caller to skip (CONTRACTS §1).
    const std::string_view word = trim(line.substr(i + 1));
    if (word == "online") record.link = true;
    if (word == "offline") record.link = false;
    return record;
  }
  if (i >= line.size() || (line[i] != '<' && line[i] != '>')) {
    return tl::unexpected(at_line(line_no, "direction must be '<', '>' or '!'" + column(i)));
  }
  record.direction = line[i] == '<' ? Direction::FromBoard : Direction::ToBoard;
  ++i;
  if (i < line.size() && !is_blank(line[i])) {
    return tl::unexpected(at_line(line_no, "expected a space after the direction" + column(i)));
  }
  while (i < line.size() && is_blank(line[i])) ++i;
  while (i < line.size()) {
    if (i + 1 >= line.size() || hex_value(line[i]) < 0 || hex_value(line[i + 1]) < 0) {
      return tl::unexpected(at_line(line_no, "expected two hex digits" + column(i)));
    }
    record.bytes.push_back(static_cast<std::uint8_t>(hex_value(line[i]) << 4 | hex_value(line[i + 1])));
    i += 2;
    if (i < line.size() && line[i] == ' ') {
      ++i;
      if (i < line.size() && is_blank(line[i])) {
        return tl::unexpected(at_line(line_no, "hex bytes must be separated by a single space" + column(i)));
      }
    }
  }
  if (record.bytes.empty()) return tl::unexpected(at_line(line_no, "record has no bytes"));
  return record;
}

void write_info(std::ostream& out, const CaptureInfo& info) {
  // A value must stay on its line.
  const auto one_line = [](std::string v) {
    std::replace(v.begin(), v.end(), '\n', ' ');
    std::replace(v.begin(), v.end(), '\r', ' ');
    return v;
  };
  out << kMagic << '\n' << "# protocol: " << one_line(info.protocol) << '\n';
  if (!info.board.empty()) out << "# board: " << one_line(info.board) << '\n';
  for (const auto& note : info.notes) out << "# note: " << one_line(note) << '\n';
  for (const auto& h : info.other_headers) out << "# " << h.key << ": " << one_line(h.value) << '\n';
}

}  // namespace

tl::expected<Capture, std::string> parse_capture(std::string_view text) {
  Capture capture;
  bool seen_protocol = false;
  bool seen_board = false;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line_no == 1) {
      if (trim(line) == kMagic) continue;
      if (line.starts_with(kMagicPrefix)) {
        return tl::unexpected(at_line(
            1, "unsupported capture version '" + std::string(trim(line.substr(kMagicPrefix.size()))) + "'"));
      }
      return tl::unexpected(at_line(1, "not a capture file (expected '# eboard-capture 1')"));
    }
    const std::string_view content = trim(line);
    if (content.empty()) continue;
    if (content.front() == '#') {
      if (auto header = parse_header(content)) {
        if (auto ok = apply_header(std::move(*header), line_no, capture.info, seen_protocol, seen_board);
            !ok) {
          return tl::unexpected(ok.error());
        }
      }
      continue;
    }
    auto record = parse_record(content, line_no);
    if (!record) return tl::unexpected(record.error());
    if (record->bytes.empty() && !record->link) continue;  // a `!` record of a later kind
    if (!capture.records.empty() && record->t_ms < capture.records.back().t_ms) {
      return tl::unexpected(at_line(line_no, "time " + std::to_string(record->t_ms) +
                                                 " is before the previous record's " +
                                                 std::to_string(capture.records.back().t_ms)));
    }
    capture.records.push_back(std::move(*record));
  }
  if (line_no == 0) return tl::unexpected(at_line(1, "empty file (expected '# eboard-capture 1')"));
  return capture;
}

tl::expected<Capture, std::string> read_capture_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return tl::unexpected(path.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  auto capture = parse_capture(text.str());
  if (!capture) return tl::unexpected(path.string() + ": " + capture.error());
  return capture;
}

std::string format_capture_record(const CaptureRecord& record) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string line = std::to_string(record.t_ms);
  if (record.link) return line + (*record.link ? " ! online" : " ! offline");
  line += record.direction == Direction::FromBoard ? " <" : " >";
  line.reserve(line.size() + record.bytes.size() * 3);
  for (const std::uint8_t b : record.bytes) {
    line += ' ';
    line += kHex[b >> 4];
    line += kHex[b & 0x0F];
  }
  return line;
}

std::string format_capture(const Capture& capture) {
  std::ostringstream out;
  write_info(out, capture.info);
  for (const auto& r : capture.records) out << format_capture_record(r) << '\n';
  return out.str();
}

CaptureWriter::CaptureWriter(std::ostream& out, const CaptureInfo& info) : out_(out) {
  write_info(out_, info);
}

tl::expected<void, std::string> CaptureWriter::append(std::int64_t t_ms, Direction direction,
                                                      std::span<const std::uint8_t> bytes) {
  if (bytes.empty()) return tl::unexpected(std::string("a record needs at least one byte"));
  if (t_ms < 0) return tl::unexpected(std::string("negative time"));
  if (last_t_ms_ && t_ms < *last_t_ms_) {
    return tl::unexpected("time " + std::to_string(t_ms) + " is before the previous record's " +
                          std::to_string(*last_t_ms_));
  }
  last_t_ms_ = t_ms;
  out_ << format_capture_record(CaptureRecord{t_ms, direction, {bytes.begin(), bytes.end()}, std::nullopt})
       << '\n';
  return {};
}

tl::expected<void, std::string> CaptureWriter::append_link(std::int64_t t_ms, bool online) {
  if (t_ms < 0) return tl::unexpected(std::string("negative time"));
  if (last_t_ms_ && t_ms < *last_t_ms_) {
    return tl::unexpected("time " + std::to_string(t_ms) + " is before the previous record's " +
                          std::to_string(*last_t_ms_));
  }
  last_t_ms_ = t_ms;
  CaptureRecord r;
  r.t_ms = t_ms;
  r.link = online;
  out_ << format_capture_record(r) << '\n';
  return {};
}

tl::expected<Capture, std::string> import_dgt_inbytes(std::string_view text,
                                                      const InbytesImportOptions& options) {
  Capture capture;
  capture.info.protocol = "dgt";
  capture.info.board = options.board;
  if (!options.note.empty()) capture.info.notes.push_back(options.note);
  capture.info.notes.emplace_back("imported from .inbytes; times synthesised (clock ticks " +
                                  std::to_string(options.tick_ms) + " ms apart, other reads " +
                                  std::to_string(options.step_ms) + " ms)");
  dgt::Decoder decoder;
  std::vector<dgt::Message> messages;
  std::optional<std::pair<std::int64_t, std::int64_t>> shown;  // last displayed left/right times
  bool was_running = false;
  std::optional<std::int64_t> last_tick;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = trim(text.substr(pos, eol - pos));
    pos = eol + 1;
    ++line_no;
    if (line.empty()) continue;
    auto bytes = decode_base64(line);
    if (!bytes) return tl::unexpected(at_line(line_no, bytes.error()));
    if (bytes->empty()) continue;

    messages.clear();
    decoder.feed(*bytes, messages);
    bool tick = false;
    bool clock_started = false;
    for (const auto& m : messages) {
      const auto* times = std::get_if<dgt::ClockTimes>(&m);
      if (times == nullptr) continue;
      const std::pair<std::int64_t, std::int64_t> now_shown{times->left.time_ms, times->right.time_ms};
      // A change while the clock runs, or in the reading that reports it stopped, is the clock ticking.
      if (shown && now_shown != *shown && (times->running || was_running)) tick = true;
      if (times->running && !was_running) clock_started = true;
      shown = now_shown;
      was_running = times->running;
    }

    std::int64_t t = 0;
    if (!capture.records.empty()) {
      const std::int64_t previous = capture.records.back().t_ms;
      t = previous + options.step_ms;
      if (tick && last_tick) t = std::max(t, *last_tick + options.tick_ms);
    }
    if (tick || clock_started || (!last_tick && shown)) last_tick = t;
    capture.records.push_back(CaptureRecord{t, Direction::FromBoard, std::move(*bytes), std::nullopt});
  }
  return capture;
}

}  // namespace eboard::drivers
