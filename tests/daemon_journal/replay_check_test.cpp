// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The check both recoveries share: replayed events against journaled ones, and the reading of published
// moves and results.
#include "daemon/journal/replay_check.hpp"

#include <gtest/gtest.h>

#include "daemon/core/event_json.hpp"
#include "rules/notation.hpp"

namespace {

using namespace eboard;

rules::Event move_event(int ply, const std::string& uci, const std::string& san) {
  rules::MoveEvent m;
  m.ply = ply;
  m.uci = uci;
  m.san = san;
  m.clock = {300000, 299000};
  return rules::Event{1000 + ply, "A", m};
}

TEST(ReplayCheck, CountsMatchesMismatchesAndEventsNotDerived) {
  journal::ReplayCheck check(2);
  const rules::Event e1 = move_event(1, "e2e4", "e4");
  const rules::Event e2 = move_event(2, "e7e5", "e5");
  check.derived(e1);
  check.derived(e2);
  EXPECT_TRUE(check.has_pending());
  check.journaled(daemon::to_json_line(e1));
  check.journaled(daemon::to_json_line(move_event(2, "c7c5", "c5")));
  EXPECT_FALSE(check.has_pending());
  check.journaled("{\"type\":\"result\"}");
  check.journaled("{\"type\":\"result\",\"again\":1}");
  EXPECT_EQ(check.journaled_events(), 4u);
  EXPECT_EQ(check.matched_events(), 1u);
  EXPECT_EQ(check.mismatched_events(), 3u);
  ASSERT_EQ(check.problems().size(), 2u);  // capped
  EXPECT_NE(check.problems()[0].find("but replay derived"), std::string::npos);
  EXPECT_NE(check.problems()[1].find("journaled but not derived"), std::string::npos);
}

TEST(ReplayCheck, TheUnjournaledTailIsGivenOnlyWhenTrusted) {
  journal::ReplayCheck trusted(5), untrusted(5);
  for (auto* c : {&trusted, &untrusted}) {
    c->derived(move_event(1, "e2e4", "e4"));
    c->derived(move_event(2, "e7e5", "e5"));
    c->derived(move_event(3, "g1f3", "Nf3"));
    c->journaled(daemon::to_json_line(move_event(1, "e2e4", "e4")));
  }
  auto tail = trusted.unjournaled(true);
  ASSERT_EQ(tail.size(), 2u);
  EXPECT_EQ(std::get<rules::MoveEvent>(tail[0].what).uci, "e7e5");
  EXPECT_EQ(std::get<rules::MoveEvent>(tail[1].what).uci, "g1f3");
  EXPECT_FALSE(trusted.has_pending());
  EXPECT_TRUE(untrusted.unjournaled(false).empty());
  EXPECT_FALSE(untrusted.has_pending());
}

TEST(ReadPublished, ReadsMovesResultsAndMatchResults) {
  auto m = journal::read_published(daemon::to_json_line(move_event(3, "g1f3", "Nf3")));
  ASSERT_TRUE(m);
  const auto& mv = std::get<journal::PublishedMove>(*m);
  EXPECT_EQ(mv.ply, 3);
  EXPECT_EQ(mv.uci, "g1f3");
  EXPECT_EQ(mv.clock.white_ms, 300000);
  EXPECT_EQ(mv.clock.black_ms, 299000);
  EXPECT_EQ(mv.t, 1003);

  auto r = journal::read_published(R"({"type":"result","result":"0-1","reason":"resignation"})");
  ASSERT_TRUE(r);
  EXPECT_EQ(std::get<journal::PublishedResult>(*r).outcome.result, rules::Result::BlackWins);
  EXPECT_EQ(std::get<journal::PublishedResult>(*r).outcome.reason, "resignation");

  auto mr = journal::read_published(R"({"type":"match-result","result":"1/2-1/2","reason":"agreement"})");
  ASSERT_TRUE(mr);
  EXPECT_EQ(std::get<journal::PublishedMatchResult>(*mr).result.result, rules::Result::Draw);
}

TEST(ReadPublished, IgnoresOtherEventsAndBadInput) {
  EXPECT_FALSE(journal::read_published(R"({"type":"alert","code":"illegal-move"})"));
  EXPECT_FALSE(journal::read_published(R"({"type":"move","ply":0,"uci":"e2e4"})"));
  EXPECT_FALSE(journal::read_published("not json {"));
  EXPECT_FALSE(journal::read_published("[1,2]"));
  EXPECT_FALSE(journal::read_published(""));
}

}  // namespace

namespace {

using namespace eboard;

rules::Game replayed_game(std::initializer_list<const char*> ucis) {
  rules::Game g(rules::Position::start());
  std::int64_t t = 1000;
  for (const char* uci : ucis) {
    auto mv = rules::parse_uci(g.position(), uci);
    EXPECT_TRUE(mv) << uci;
    if (mv) g.play(*mv, {}, t += 1000);
  }
  return g;
}

TEST(NextPublished, ThePublishedMoveWinsAndTheReplayFillsHolesWhileItAgrees) {
  const rules::Game replay = replayed_game({"e2e4", "e7e5", "g1f3", "b8c6"});
  std::map<int, journal::PublishedMove> published;
  published[1] = {1, "e2e4", {299000, 300000}, 1500};
  // ply 2 lost (a hole)
  published[3] = {3, "g1f3", {298000, 299000}, 3500};
  published[4] = {4, "g8f6", {298000, 297000}, 4500};  // not what the replay has
  bool agrees = true;

  auto n1 = journal::next_published(published, replay, 1, agrees);
  ASSERT_TRUE(n1);
  EXPECT_EQ(n1->move.t, 1500);  // the published time, not the replay's
  EXPECT_NE(n1->replayed, nullptr);
  auto n2 = journal::next_published(published, replay, 2, agrees);
  ASSERT_TRUE(n2);
  EXPECT_EQ(n2->move.uci, "e7e5");  // the hole, from the replay
  EXPECT_EQ(n2->move.t, 3000);
  auto n4 = journal::next_published(published, replay, 4, agrees);
  ASSERT_TRUE(n4);
  EXPECT_EQ(n4->move.uci, "g8f6");
  EXPECT_EQ(n4->replayed, nullptr);
  EXPECT_FALSE(agrees);
  // Once they disagreed the replay fills nothing: ply 2 is a hole now.
  EXPECT_FALSE(journal::next_published(published, replay, 2, agrees));
  EXPECT_FALSE(journal::next_published(published, replay, 9, agrees));
}

}  // namespace

namespace {

// An illegal-move alert as the daemon publishes it now: with `action` (event_json) and `proposed_clock`.
rules::Event illegal_alert(const std::string& detail) {
  rules::AlertEvent a{"illegal-move", 1, rules::WHITE, detail, {}};
  a.extra.push_back({"count", "1", true});
  a.extra.push_back({"penalty", "+2 min to the opponent", false});
  a.extra.push_back(
      {"proposed_clock", R"({"add_ms":120000,"add_to":"black","black":420000,"white":298000})", true});
  return rules::Event{2000, "A", a};
}

}  // namespace

// A journal written before alerts carried `action` and `proposed_clock` replays as agreeing; any other
// difference is still a mismatch, and a journal with the fields is compared as it is.
TEST(ReplayCheck, AnAlertJournaledWithoutTheNewerFieldsAgrees) {
  const rules::Event derived = illegal_alert("Nb1-b3 is not a legal move");
  nlohmann::json old = daemon::to_json(derived);
  ASSERT_TRUE(old.contains("action"));
  ASSERT_TRUE(old.contains("proposed_clock"));
  old.erase("action");
  old.erase("proposed_clock");
  journal::ReplayCheck check(5);
  check.derived(derived);
  check.journaled(old.dump());
  EXPECT_EQ(check.matched_events(), 1u);

  nlohmann::json other = old;
  other["detail"] = "Nb1-c4 is not a legal move";
  check.derived(derived);
  check.journaled(other.dump());
  EXPECT_EQ(check.mismatched_events(), 1u);

  nlohmann::json changed = daemon::to_json(derived);
  changed["proposed_clock"]["black"] = 300000;  // a proposal that differs is no older journal
  check.derived(derived);
  check.journaled(changed.dump());
  EXPECT_EQ(check.mismatched_events(), 2u);
  check.derived(derived);
  check.journaled(daemon::to_json_line(derived));
  EXPECT_EQ(check.matched_events(), 2u);
}
