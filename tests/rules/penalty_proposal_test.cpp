// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// FIDE 7.5.5 proposed with the illegal-move alert (issue 27): the clock as the press left it, the
// opponent's time raised by the profile's bonus (`proposed_clock`), only where the profile gives time;
// and the arbiter's usual action for every alert code of CONTRACTS §3 (rules/arbiter_action.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "rules/arbiter_action.hpp"
#include "rules/reconstruct.hpp"

using namespace eboard::rules;

namespace {

struct Played {
  std::vector<AlertEvent> alerts;
};

// White (on the clock's left) plays an illegal Nb1-b3 and presses with `white_left_ms` on their clock;
// with `twice`, after the reinstated position, the same again.
Played illegal_knight(const char* profile, std::int64_t white_left_ms, std::int64_t black_ms, bool twice) {
  ReconstructConfig cfg;
  cfg.profile = *profile_by_name(profile);
  Reconstructor r(cfg, Game(*Position::from_fen(START_FEN)));
  Played out;
  std::int64_t t = 0;
  auto collect = [&](const std::vector<Event>& evs) {
    for (const Event& e : evs)
      if (const auto* a = std::get_if<AlertEvent>(&e.what)) out.alerts.push_back(*a);
  };
  auto feed = [&](decltype(SensorEvent::what) what) {
    t += 40;
    collect(r.on_sensor(SensorEvent{t, what}));
  };
  auto wait = [&](std::int64_t ms) {
    t += ms;
    collect(r.advance(t));
  };
  feed(BoardSnapshot{Position::from_fen(START_FEN)->board()});
  ClockReading clock{white_left_ms + 9000, black_ms, true, ClockSide::Left};
  feed(clock);
  for (int n = 0; n < (twice ? 2 : 1); ++n) {
    feed(PieceLifted{parse_square("b1")});
    feed(PiecePlaced{parse_square("b3"), W_KNIGHT});
    wait(300);
    clock.left_ms = white_left_ms - n * 5000;
    clock.lever_up = ClockSide::Right;  // White pressed
    feed(clock);
    wait(500);
    // The arbiter reinstates: the knight back, the turn handed back to White.
    feed(PieceLifted{parse_square("b3")});
    feed(PiecePlaced{parse_square("b1"), W_KNIGHT});
    wait(300);
    clock.lever_up = ClockSide::Left;
    feed(clock);
    wait(500);
  }
  return out;
}

const AlertEvent::Field* field(const AlertEvent& a, const std::string& name) {
  for (const auto& f : a.extra)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

TEST(PenaltyProposal, FirstIllegalMoveGivesTheOpponentTwoMinutesOnTheClockAsPressed) {
  Played p = illegal_knight("fide-standard", 271000, 288000, false);
  ASSERT_EQ(p.alerts.size(), 1u);
  const auto* f = field(p.alerts[0], "proposed_clock");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(f->is_number);  // JSON text, an object
  EXPECT_EQ(f->value, R"({"add_ms":120000,"add_to":"black","black":408000,"white":271000})");
}

TEST(PenaltyProposal, BlitzGivesOneMinute) {
  Played p = illegal_knight("fide-blitz", 50000, 61000, false);
  ASSERT_EQ(p.alerts.size(), 1u);
  const auto* f = field(p.alerts[0], "proposed_clock");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, R"({"add_ms":60000,"add_to":"black","black":121000,"white":50000})");
}

TEST(PenaltyProposal, NoTimeWhenTheMoveLosesOrTheProfileGivesNone) {
  Played second = illegal_knight("fide-standard", 271000, 288000, true);
  ASSERT_EQ(second.alerts.size(), 2u);
  EXPECT_NE(field(second.alerts[0], "proposed_clock"), nullptr);
  EXPECT_EQ(field(second.alerts[1], "proposed_clock"), nullptr);  // the second one loses (7.5.5)
  const auto* penalty = field(second.alerts[1], "penalty");
  ASSERT_NE(penalty, nullptr);
  EXPECT_EQ(penalty->value, "loss");
  for (const char* bughouse : {"bughouse-fqe", "bughouse-clock-move"}) {
    Played p = illegal_knight(bughouse, 271000, 288000, false);
    ASSERT_FALSE(p.alerts.empty()) << bughouse;
    EXPECT_EQ(field(p.alerts[0], "proposed_clock"), nullptr) << bughouse << ": loss if claimed, no time";
  }
}

TEST(ArbiterAction, EveryAlertCodeOfTheContractHasASentence) {
  const std::filesystem::path contracts = std::filesystem::path(EBOARD_SHARED_DIR) / "CONTRACTS.md";
  if (!std::filesystem::exists(contracts)) GTEST_SKIP() << contracts << " is absent";
  std::ifstream in(contracts);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const auto from = s.find("Alert codes:");
  ASSERT_NE(from, std::string::npos);
  const std::string list = s.substr(from, s.find("\n\n", from) - from);
  std::regex code("`([a-z][a-z-]+)`");
  int codes = 0;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), code); it != std::sregex_iterator(); ++it) {
    const std::string c = (*it)[1];
    if (c == "candidates" || c == "fen" || c == "reason" || c == "drop-not-in-reserve") continue;  // fields
    ++codes;
    EXPECT_FALSE(arbiter_action(c).empty()) << "no usual action for alert " << c;
  }
  EXPECT_EQ(codes, static_cast<int>(alert_codes().size()));
  EXPECT_TRUE(arbiter_action("no-such-code").empty());
}
