// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "drivers/capture.hpp"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "drivers/base64.hpp"
#include "drivers/dgt/decoder.hpp"

namespace eboard::drivers {
namespace {

using ByteVector = std::vector<std::uint8_t>;

constexpr std::string_view kExample =
    "# eboard-capture 1\n"
    "# protocol: dgt\n"
    "# board: A\n"
    "# note: first note\n"
    "# a comment without a key\n"
    "# round: 3\n"
    "\n"
    "0 < 86 00 43 08\n"
    "1250 < 8e00053400\n"
    "1250 < 8E 00 05 24 01\n"
    "1980 > 2b 0a 03 0a 00 05 00 00 05 00 01 00\n"
    "# note: second note\n";

TEST(CaptureReader, ReadsTheContractFormat) {
  const auto cap = parse_capture(kExample);
  ASSERT_TRUE(cap) << cap.error();
  EXPECT_EQ(cap->info.protocol, "dgt");
  EXPECT_EQ(cap->info.board, "A");
  EXPECT_EQ(cap->info.notes, (std::vector<std::string>{"first note", "second note"}));
  EXPECT_EQ(cap->info.other_headers, (std::vector<CaptureHeader>{{"round", "3"}}));
  ASSERT_EQ(cap->records.size(), 4U);
  EXPECT_EQ(cap->records[0],
            (CaptureRecord{0, Direction::FromBoard, {0x86, 0x00, 0x43, 0x08}, std::nullopt}));
  EXPECT_EQ(cap->records[1],
            (CaptureRecord{1250, Direction::FromBoard, {0x8E, 0x00, 0x05, 0x34, 0x00}, std::nullopt}));
  EXPECT_EQ(cap->records[2].bytes, (ByteVector{0x8E, 0x00, 0x05, 0x24, 0x01}));
  EXPECT_EQ(cap->records[3].direction, Direction::ToBoard);
  EXPECT_EQ(cap->records[3].bytes.size(), 12U);
}

TEST(CaptureReader, DefaultsAndLineEndings) {
  const auto cap =
      parse_capture("# eboard-capture 1\r\n5 > 40\r\n\r\n7 < 8e 00 05 00 00");  // no final newline
  ASSERT_TRUE(cap) << cap.error();
  EXPECT_EQ(cap->info.protocol, "dgt");
  EXPECT_TRUE(cap->info.board.empty());
  ASSERT_EQ(cap->records.size(), 2U);
  EXPECT_EQ(cap->records[1].bytes.size(), 5U);
  EXPECT_TRUE(parse_capture("# eboard-capture 1\n# protocol: millennium\n"));
  EXPECT_TRUE(parse_capture("# eboard-capture 1\n"));
}

// CONTRACTS §1: `<t> ! offline` / `<t> ! online` say the host lost or regained the link; a `!` record of
// another word is a later kind, skipped; the times stay in order with the byte records.
TEST(CaptureReader, LinkRecords) {
  const auto cap = parse_capture(
      "# eboard-capture 1\n0 < 86 00\n40 ! offline\n41 ! battery-low\n900  !  online \n950 < 8e 00 05 00 "
      "00\n");
  ASSERT_TRUE(cap) << cap.error();
  ASSERT_EQ(cap->records.size(), 4U);
  EXPECT_EQ(cap->records[1].t_ms, 40);
  EXPECT_EQ(cap->records[1].link, std::optional<bool>(false));
  EXPECT_TRUE(cap->records[1].bytes.empty());
  EXPECT_EQ(cap->records[2].t_ms, 900);
  EXPECT_EQ(cap->records[2].link, std::optional<bool>(true));
  EXPECT_FALSE(cap->records[3].link);
  EXPECT_EQ(format_capture_record(cap->records[1]), "40 ! offline");
  EXPECT_EQ(format_capture_record(cap->records[2]), "900 ! online");
  // Written back, read back: the same capture.
  auto again = parse_capture(format_capture(*cap));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(*again, *cap);
  // Out of order, a link record is refused like any other.
  EXPECT_FALSE(parse_capture("# eboard-capture 1\n50 < 86\n40 ! offline\n"));
  EXPECT_FALSE(parse_capture("# eboard-capture 1\n40 ? offline\n"));
}

TEST(CaptureWriter, WritesLinkRecordsInOrder) {
  std::ostringstream out;
  CaptureWriter w(out, CaptureInfo{});
  const ByteVector dump{0x86, 0x00};
  ASSERT_TRUE(w.append(10, Direction::FromBoard, dump));
  ASSERT_TRUE(w.append_link(20, false));
  EXPECT_FALSE(w.append_link(19, true));
  ASSERT_TRUE(w.append_link(30, true));
  auto cap = parse_capture(out.str());
  ASSERT_TRUE(cap) << cap.error();
  ASSERT_EQ(cap->records.size(), 3U);
  EXPECT_EQ(cap->records[1].link, std::optional<bool>(false));
  EXPECT_EQ(cap->records[2].link, std::optional<bool>(true));
}

TEST(CaptureReader, MixedHexSeparationIsAccepted) {
  const auto cap = parse_capture("# eboard-capture 1\n0 < 8e0005 34 00\n");
  ASSERT_TRUE(cap) << cap.error();
  EXPECT_EQ(cap->records[0].bytes, (ByteVector{0x8E, 0x00, 0x05, 0x34, 0x00}));
}

void expect_error(std::string_view text, std::string_view expected_fragment) {
  const auto cap = parse_capture(text);
  ASSERT_FALSE(cap) << "accepted: " << text;
  EXPECT_NE(cap.error().find(expected_fragment), std::string::npos) << cap.error();
}

// The format does not judge which protocols exist (the daemon's protocol rows do, where a capture is
// replayed or played): any protocol's name reads, and comes back as written.
TEST(CaptureReader, AnyProtocolNameReads) {
  for (const char* name : {"dgt", "dgt-bus", "millennium", "certabo", "chessnut", "dgtx", "make2"}) {
    const auto cap = parse_capture(std::string("# eboard-capture 1\n# protocol: ") + name + "\n0 < 00\n");
    ASSERT_TRUE(cap) << name << ": " << cap.error();
    EXPECT_EQ(cap->info.protocol, name);
    const auto again = parse_capture(format_capture(*cap));
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(*again, *cap);
  }
}

TEST(CaptureReader, ErrorsNameTheLine) {
  expect_error("", "line 1: empty");
  expect_error("0 < 8e\n", "line 1: not a capture file");
  expect_error("# eboard-capture 2\n", "line 1: unsupported capture version '2'");
  expect_error("# eboard-capture 1\n# protocol: dg tx\n",
               "line 2: protocol 'dg tx' is not a protocol's name");
  expect_error("# eboard-capture 1\n# protocol:\n", "line 2: protocol '' is not a protocol's name");
  expect_error("# eboard-capture 1\n# protocol: DGT\n", "line 2: protocol 'DGT' is not a protocol's name");
  expect_error("# eboard-capture 1\n# protocol: dgt\n# protocol: dgt\n", "line 3: second 'protocol'");
  expect_error("# eboard-capture 1\n# board: A\n# board: B\n", "line 3: second 'board'");
  expect_error("# eboard-capture 1\n\n0 < 8e\nx < 8e\n", "line 4: expected a record");
  expect_error("# eboard-capture 1\n-5 < 8e\n", "line 2: expected a record");
  expect_error("# eboard-capture 1\n12a < 8e\n", "line 2: time must be a whole number");
  expect_error("# eboard-capture 1\n1.5 < 8e\n", "line 2: time must be a whole number");
  expect_error("# eboard-capture 1\n0 = 8e\n", "line 2: direction must be");
  expect_error("# eboard-capture 1\n0\n", "line 2: direction must be");
  expect_error("# eboard-capture 1\n0 <8e\n", "line 2: expected a space after the direction");
  expect_error("# eboard-capture 1\n0 < 8e 0\n", "line 2: expected two hex digits (column 8)");
  expect_error("# eboard-capture 1\n0 < 8e zz\n", "line 2: expected two hex digits");
  expect_error("# eboard-capture 1\n0 < 8e  00\n", "line 2: hex bytes must be separated by a single space");
  expect_error("# eboard-capture 1\n0 <\n", "line 2: record has no bytes");
  expect_error("# eboard-capture 1\n100 < 8e\n# note: x\n99 < 00\n",
               "line 4: time 99 is before the previous record's 100");
  expect_error("# eboard-capture 1\n1234567890123456789 < 00\n", "line 2: time too large");
}

TEST(CaptureWriter, StreamsAndRoundTrips) {
  std::ostringstream out;
  CaptureInfo info{
      .protocol = "dgt", .board = "B", .notes = {"round 1\nsplit"}, .other_headers = {{"site", "club"}}};
  CaptureWriter writer(out, info);
  ASSERT_TRUE(writer.append(0, Direction::ToBoard, ByteVector{0x42}));
  ASSERT_TRUE(writer.append(20, Direction::FromBoard, ByteVector{0x8E, 0x00}));
  ASSERT_TRUE(writer.append(20, Direction::FromBoard, ByteVector{0x05, 0x34, 0x00}));
  EXPECT_FALSE(writer.append(19, Direction::FromBoard, ByteVector{0x00}));
  EXPECT_FALSE(writer.append(30, Direction::FromBoard, ByteVector{}));
  EXPECT_EQ(out.str(),
            "# eboard-capture 1\n# protocol: dgt\n# board: B\n# note: round 1 split\n# site: club\n"
            "0 > 42\n20 < 8e 00\n20 < 05 34 00\n");
  const auto cap = parse_capture(out.str());
  ASSERT_TRUE(cap) << cap.error();
  EXPECT_EQ(cap->info.board, "B");
  EXPECT_EQ(cap->info.notes, (std::vector<std::string>{"round 1 split"}));
  EXPECT_EQ(cap->info.other_headers, info.other_headers);
  EXPECT_EQ(cap->records.size(), 3U);
}

TEST(CaptureWriter, RandomCapturesRoundTrip) {
  std::mt19937 rng(11);
  for (int round = 0; round < 20; ++round) {
    Capture cap;
    cap.info.board = "X";
    std::int64_t t = 0;
    for (int i = 0; i < 50; ++i) {
      t += rng() % 500;
      ByteVector bytes(1 + rng() % 70);
      for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
      cap.records.push_back(
          {t, rng() % 3 == 0 ? Direction::ToBoard : Direction::FromBoard, bytes, std::nullopt});
    }
    const auto back = parse_capture(format_capture(cap));
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(*back, cap);
  }
}

TEST(CaptureFiles, ReadsFromDiskAndReportsThePath) {
  const auto missing = read_capture_file("/nonexistent/x.cap");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("/nonexistent/x.cap"), std::string::npos);
}

// The hand-made capture in tests/data/captures decodes to the messages it was written for.
TEST(CaptureFiles, SyntheticCaptureDecodes) {
  const auto cap = read_capture_file(std::string(EBOARD_TEST_DATA) + "/captures/dgt_synthetic_e4e5.cap");
  ASSERT_TRUE(cap) << cap.error();
  EXPECT_EQ(cap->info.board, "A");
  dgt::Decoder d;
  std::vector<dgt::Message> messages;
  for (const auto& r : cap->records) {
    if (r.direction == Direction::FromBoard) d.feed(r.bytes, messages);
  }
  ASSERT_EQ(messages.size(), 13U);
  EXPECT_TRUE(std::holds_alternative<dgt::BoardDump>(messages[0]));
  EXPECT_EQ(std::get<dgt::FieldUpdate>(messages[4]), (dgt::FieldUpdate{52, 0}));
  EXPECT_EQ(std::get<dgt::FieldUpdate>(messages[9]), (dgt::FieldUpdate{28, 7}));
  EXPECT_EQ(std::get<dgt::ClockAck>(messages[11]).echoed_command(), 0x0C);
  EXPECT_EQ(d.stats().garbage_bytes, 0U);
}

TEST(Base64, Rfc4648Vectors) {
  const auto text = [](std::string_view s) {
    auto r = decode_base64(s);
    EXPECT_TRUE(r) << s;
    return r ? std::string(r->begin(), r->end()) : std::string("<error>");
  };
  EXPECT_EQ(text(""), "");
  EXPECT_EQ(text("Zg=="), "f");
  EXPECT_EQ(text("Zm8="), "fo");
  EXPECT_EQ(text("Zm9v"), "foo");
  EXPECT_EQ(text("Zm9vYg=="), "foob");
  EXPECT_EQ(text("Zm9vYmE="), "fooba");
  EXPECT_EQ(text("Zm9vYmFy"), "foobar");
  EXPECT_EQ(text("Zm8"), "fo");  // padding optional
  EXPECT_EQ(*decode_base64("jgAFNAA="), (ByteVector{0x8E, 0x00, 0x05, 0x34, 0x00}));
  EXPECT_EQ(*decode_base64("+/8="), (ByteVector{0xFB, 0xFF}));
}

TEST(Base64, RejectsBadInput) {
  EXPECT_FALSE(decode_base64("Zm9v!"));
  EXPECT_FALSE(decode_base64("Z"));
  EXPECT_FALSE(decode_base64("Zg="));  // padded but not a multiple of 4
  EXPECT_FALSE(decode_base64("Z==="));
  EXPECT_FALSE(decode_base64("Zm 9v"));
  EXPECT_NE(decode_base64("Zm9v*A==").error().find("column 5"), std::string::npos);
}

std::string base64(const ByteVector& bytes) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t n = static_cast<std::uint32_t>(bytes[i]) << 16 |
                            (i + 1 < bytes.size() ? bytes[i + 1] : 0) << 8 |
                            (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    out += kAlphabet[n >> 18 & 63];
    out += kAlphabet[n >> 12 & 63];
    out += i + 1 < bytes.size() ? kAlphabet[n >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

ByteVector clock_reading(int left_s, int right_s, std::uint8_t status) {
  const auto bcd = [](int v) { return static_cast<std::uint8_t>((v / 10) << 4 | v % 10); };
  return {
      0x8D,  0x00, 0x0A, 0x00, bcd(right_s / 60), bcd(right_s % 60), 0x00, bcd(left_s / 60), bcd(left_s % 60),
      status};
}

TEST(InbytesImport, SynthesisesRealisticTimes) {
  const std::vector<ByteVector> reads{
      clock_reading(300, 300, 0x08),   // stopped
      clock_reading(300, 300, 0x09),   // started: the tick clock starts here
      {0x8E, 0x00, 0x05, 0x34, 0x00},  // a field update: small step
      clock_reading(299, 300, 0x09),   // tick: one second after the start
      clock_reading(299, 300, 0x09),   // same reading again: small step
      clock_reading(298, 300, 0x09),   // tick
      clock_reading(298, 300, 0x08),   // stopped, no change: small step
      clock_reading(298, 300, 0x08),
  };
  std::string text;
  for (const auto& r : reads) text += base64(r) + "\n";
  text += "\n";
  const auto cap = import_dgt_inbytes(text, {.tick_ms = 1000, .step_ms = 40, .board = "A", .note = "test"});
  ASSERT_TRUE(cap) << cap.error();
  std::vector<std::int64_t> times;
  for (const auto& r : cap->records) times.push_back(r.t_ms);
  EXPECT_EQ(times, (std::vector<std::int64_t>{0, 40, 80, 1040, 1080, 2040, 2080, 2120}));
  EXPECT_EQ(cap->info.board, "A");
  EXPECT_EQ(cap->info.notes.front(), "test");
  EXPECT_EQ(cap->records[2].bytes, reads[2]);
}

TEST(InbytesImport, ReportsBadLines) {
  const auto cap = import_dgt_inbytes("jgAFNAA=\n!!!!\n");
  ASSERT_FALSE(cap);
  EXPECT_NE(cap.error().find("line 2"), std::string::npos) << cap.error();
}

}  // namespace
}  // namespace eboard::drivers
