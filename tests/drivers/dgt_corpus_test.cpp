// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The decoder against the real captures of arnsholt/dgtdriver (read from ../shared at run time) and the
// messages that project decoded from them (.json).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "dgt_test_support.hpp"
#include "drivers/capture.hpp"
#include "drivers/dgt/decoder.hpp"

namespace eboard::drivers::dgt {
namespace {

using test::ByteVector;

struct Corpus {
  std::vector<ByteVector> chunks;
  std::vector<nlohmann::json> expected;
};

std::optional<Corpus> load(const std::string& name) {
  auto chunks = test::load_inbytes(name);
  const auto json = test::read_text(test::corpus_dir() / (name + ".json"));
  if (!chunks || !json) return std::nullopt;
  Corpus c{std::move(*chunks), {}};
  for (const auto& line : test::lines_of(*json)) c.expected.push_back(nlohmann::json::parse(line));
  return c;
}

#define LOAD_OR_SKIP(var, name)                                                                     \
  const auto var##_loaded = load(name);                                                             \
  if (!var##_loaded) GTEST_SKIP() << "corpus " << (name) << " not found in " << test::corpus_dir(); \
  const Corpus& var = *var##_loaded

std::string piece_char(std::uint8_t code) {
  static constexpr std::string_view kChars = ".PRNBKQprnbkq";
  return code < kChars.size() ? std::string(1, kChars[code]) : "?";
}

std::string square_name(std::uint8_t sq) {
  return std::string{static_cast<char>('a' + sq % 8), static_cast<char>('8' - sq / 8)};
}

void expect_face(const ClockFace& face, const nlohmann::json& j, std::size_t index) {
  const std::int64_t expected_ms =
      ((j["hours"].get<std::int64_t>() * 60 + j["minutes"].get<std::int64_t>()) * 60 +
       j["seconds"].get<std::int64_t>()) *
      1000;
  EXPECT_EQ(face.time_ms, expected_ms) << "message " << index;
  EXPECT_EQ(face.flag_fallen, j["final_flag"].get<bool>()) << "message " << index;
  EXPECT_EQ(face.flag_shown, j["flag"].get<bool>()) << "message " << index;
  EXPECT_EQ(face.time_per_move, j["time_per_move"].get<bool>()) << "message " << index;
}

void expect_matches(const Message& m, const nlohmann::json& j, std::size_t index) {
  if (j.contains("board")) {
    ASSERT_TRUE(std::holds_alternative<BoardDump>(m)) << "message " << index;
    const auto& dump = std::get<BoardDump>(m);
    for (std::uint8_t sq = 0; sq < 64; ++sq)
      EXPECT_EQ(piece_char(dump.pieces[sq]), j["board"][sq].get<std::string>());
  } else if (j.contains("field")) {
    ASSERT_TRUE(std::holds_alternative<FieldUpdate>(m)) << "message " << index;
    const auto& fu = std::get<FieldUpdate>(m);
    EXPECT_EQ(square_name(fu.square), j["field"].get<std::string>()) << "message " << index;
    EXPECT_EQ(piece_char(fu.piece), j["piece"].get<std::string>()) << "message " << index;
  } else {
    ASSERT_TRUE(std::holds_alternative<ClockTimes>(m)) << "message " << index;
    const auto& ct = std::get<ClockTimes>(m);
    expect_face(ct.left, j["left_clock"], index);
    expect_face(ct.right, j["right_clock"], index);
    EXPECT_EQ(ct.running, j["clock_running"].get<bool>()) << "message " << index;
    EXPECT_EQ(ct.right_lever_high, j["right_high"].get<bool>()) << "message " << index;
    EXPECT_EQ(ct.battery_low, j["battery_indicator"].get<bool>()) << "message " << index;
    // arnsholt calls b3 "left_turn" and b4 "right_turn", which is what the data shows (the header says
    // otherwise).
    EXPECT_EQ(ct.turn_b3, j["left_turn"].get<bool>()) << "message " << index;
    EXPECT_EQ(ct.turn_b4, j["right_turn"].get<bool>()) << "message " << index;
    EXPECT_EQ(ct.clock_connected, !j["no_clock"].get<bool>()) << "message " << index;
  }
}

class DgtCorpus : public ::testing::TestWithParam<const char*> {};

TEST_P(DgtCorpus, DecodesLikeTheReferenceJson) {
  LOAD_OR_SKIP(corpus, GetParam());
  Decoder d;
  std::vector<Message> messages;
  for (const auto& chunk : corpus.chunks) d.feed(chunk, messages);
  ASSERT_EQ(messages.size(), corpus.expected.size());
  for (std::size_t i = 0; i < messages.size(); ++i) expect_matches(messages[i], corpus.expected[i], i);
  // These captures are clean: one message per read, no garbage, nothing garbled or unknown.
  EXPECT_EQ(d.stats().garbage_bytes, 0U);
  EXPECT_EQ(d.stats().garbled_messages, 0U);
  EXPECT_EQ(d.stats().unknown_messages, 0U);
  EXPECT_EQ(d.pending_bytes(), 0U);
}

TEST_P(DgtCorpus, ChunkingDoesNotMatter) {
  LOAD_OR_SKIP(corpus, GetParam());
  const ByteVector all = test::concat(corpus.chunks);
  Decoder whole_decoder;
  const auto whole = whole_decoder.feed(all);
  ASSERT_EQ(whole.size(), corpus.expected.size());

  Decoder per_read;
  std::vector<Message> by_read;
  for (const auto& chunk : corpus.chunks) per_read.feed(chunk, by_read);
  EXPECT_EQ(by_read, whole);

  Decoder bytewise;
  std::vector<Message> by_byte;
  for (const auto b : all) bytewise.feed(std::span(&b, 1), by_byte);
  EXPECT_EQ(by_byte, whole);

  for (unsigned seed = 1; seed <= 5; ++seed) {
    std::mt19937 rng(seed);
    Decoder d;
    std::vector<Message> out;
    for (std::size_t i = 0; i < all.size();) {
      const std::size_t n = std::min<std::size_t>(all.size() - i, rng() % 97);
      d.feed(std::span(all).subspan(i, n), out);
      i += n;
    }
    EXPECT_EQ(out, whole) << "seed " << seed;
  }
}

TEST_P(DgtCorpus, GarbageBetweenReadsLosesNothing) {
  LOAD_OR_SKIP(corpus, GetParam());
  Decoder reference;
  const auto expected = reference.feed(test::concat(corpus.chunks));
  std::mt19937 rng(99);
  ByteVector noisy;
  for (const auto& chunk : corpus.chunks) {
    for (std::size_t g = rng() % 8; g > 0; --g) noisy.push_back(static_cast<std::uint8_t>(rng()));
    test::append(noisy, chunk);
  }
  Decoder d;
  const auto got = d.feed(noisy);
  std::size_t next = 0;
  for (const auto& m : got) {
    if (next < expected.size() && m == expected[next]) ++next;
  }
  EXPECT_EQ(next, expected.size());
}

// Which turn bit goes with which falling time, measured on the real data.
TEST_P(DgtCorpus, TurnBitsFollowTheFallingClock) {
  LOAD_OR_SKIP(corpus, GetParam());
  Decoder d;
  std::optional<ClockTimes> previous;
  int left_falls = 0;
  int right_falls = 0;
  for (const auto& m : d.feed(test::concat(corpus.chunks))) {
    const auto* ct = std::get_if<ClockTimes>(&m);
    if (ct == nullptr) continue;
    if (previous && ct->running) {
      if (ct->left.time_ms == previous->left.time_ms - 1000) {
        ++left_falls;
        EXPECT_TRUE(ct->turn_b3);
        EXPECT_FALSE(ct->turn_b4);
        EXPECT_EQ(ct->running_side(), ClockSide::Left);
      }
      if (ct->right.time_ms == previous->right.time_ms - 1000) {
        ++right_falls;
        EXPECT_TRUE(ct->turn_b4);
        EXPECT_FALSE(ct->turn_b3);
        EXPECT_EQ(ct->running_side(), ClockSide::Right);
      }
    }
    previous = *ct;
  }
  EXPECT_GT(left_falls, 100);
  EXPECT_GT(right_falls, 100);
}

TEST_P(DgtCorpus, ImportedCaptureReplaysTheSameBytes) {
  LOAD_OR_SKIP(corpus, GetParam());
  const auto text = test::read_text(test::corpus_dir() / (std::string(GetParam()) + ".inbytes"));
  ASSERT_TRUE(text);
  InbytesImportOptions options;
  options.board = "A";
  const auto capture = import_dgt_inbytes(*text, options);
  ASSERT_TRUE(capture) << capture.error();
  ASSERT_EQ(capture->records.size(), corpus.chunks.size());
  std::int64_t previous = 0;
  for (std::size_t i = 0; i < corpus.chunks.size(); ++i) {
    EXPECT_EQ(capture->records[i].bytes, corpus.chunks[i]);
    EXPECT_GE(capture->records[i].t_ms, previous);
    previous = capture->records[i].t_ms;
  }
  // Clock ticks are a second apart, so the game lasts at least as long as the clock readings count down.
  Decoder d;
  std::int64_t ticks = 0;
  std::optional<std::pair<std::int64_t, std::int64_t>> shown;
  for (const auto& m : d.feed(test::concat(corpus.chunks))) {
    if (const auto* ct = std::get_if<ClockTimes>(&m)) {
      const std::pair now{ct->left.time_ms, ct->right.time_ms};
      if (shown && now != *shown) ++ticks;
      shown = now;
    }
  }
  EXPECT_GE(capture->records.back().t_ms, (ticks - 1) * 1000);
  EXPECT_LE(capture->records.back().t_ms,
            (ticks + 1) * 1000 + static_cast<std::int64_t>(corpus.chunks.size()) * 40);

  const auto reparsed = parse_capture(format_capture(*capture));
  ASSERT_TRUE(reparsed) << reparsed.error();
  EXPECT_EQ(*reparsed, *capture);
}

INSTANTIATE_TEST_SUITE_P(
    Arnsholt, DgtCorpus, ::testing::ValuesIn(test::kCorpora), [](const auto& param_info) {
      return std::string(param_info.param).substr(std::string("arnsholt-dgtdriver_").size());
    });

}  // namespace
}  // namespace eboard::drivers::dgt
