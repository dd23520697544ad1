// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The hall's deferred answers (daemon/eboardd/answer_waits.hpp) with control.hpp's real LaterAnswer: a result
// reaches the loop; at a stop, the pending answers given up end the waiting threads, which stop() joins,
// and nothing reaches the loop after it. (A wait that stop() could not end would hang the test: ctest's
// timeout, not a timed assertion, catches it.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "daemon/eboardd/answer_waits.hpp"
#include "daemon/eboardd/control.hpp"

using namespace eboard;
using namespace eboard::eboardd;

namespace {

constexpr std::chrono::hours LONG_BOUND{1};  // never reached: the answers are settled or given up

}  // namespace

TEST(AnswerWaits, ASettledAnswerReachesTheLoop) {
  boost::asio::io_context io;
  auto guard = boost::asio::make_work_guard(io);
  AnswerWaits waits(io);
  LaterAnswer later = later_answer(io, LONG_BOUND, "the test's record");
  http::Response pending = later.response();
  ASSERT_TRUE(pending.deferred) << "not settled yet: the answer must be deferred";
  std::optional<http::Response> given;
  std::thread::id given_on;
  waits.wait(std::move(pending.deferred), [&](http::Response r) {
    given = std::move(r);
    given_on = std::this_thread::get_id();
  });
  boost::asio::post(io, [settle = later.settle] { settle(http::Response::text(200, "done")); });
  while (!given) io.run_one();
  EXPECT_EQ(given->status, 200u);
  EXPECT_EQ(given->body, "done\n");  // Response::text ends the line
  EXPECT_EQ(given_on, std::this_thread::get_id()) << "the result is handed over on the loop";
  waits.stop();
  EXPECT_EQ(waits.waiting(), 0u);
}

TEST(AnswerWaits, AStopAfterTheAnswersAreGivenUpEndsEveryWaitAndHandsNothingOver) {
  boost::asio::io_context io;
  AnswerWaits waits(io);
  LaterAnswer first = later_answer(io, LONG_BOUND, "the first record");
  LaterAnswer second = later_answer(io, LONG_BOUND, "the second record");
  std::atomic<unsigned> first_status{0}, second_status{0};
  bool handed = false;
  auto deferred = first.response().deferred;
  waits.wait(
      [deferred, &first_status] {
        http::Response r = deferred();
        first_status = r.status;
        return r;
      },
      [&](http::Response) { handed = true; });
  auto deferred2 = second.response().deferred;
  waits.wait(
      [deferred2, &second_status] {
        http::Response r = deferred2();
        second_status = r.status;
        return r;
      },
      [&](http::Response) { handed = true; });
  EXPECT_EQ(pending_answers(io).abandon(), 2u);
  waits.stop();  // joins: returns only once both threads have ended
  EXPECT_EQ(first_status.load(), 503u);
  EXPECT_EQ(second_status.load(), 503u);
  EXPECT_EQ(waits.waiting(), 0u);
  io.poll();
  EXPECT_FALSE(handed) << "an answer reached the loop after stop()";
  // A settle after the stop changes nothing: the first answer (given up) stands.
  first.settle(http::Response::text(200, "late"));
  EXPECT_EQ(pending_answers(io).abandon(), 0u) << "nothing is pending any more";
}

TEST(AnswerWaits, AResultPostedBeforeTheStopIsDropped) {
  boost::asio::io_context io;
  AnswerWaits waits(io);
  bool handed = false;
  waits.wait([] { return http::Response::text(200, "at once"); }, [&](http::Response) { handed = true; });
  while (waits.waiting() > 0) std::this_thread::yield();  // its result is posted, not yet run
  waits.stop();
  io.poll();
  EXPECT_FALSE(handed);
}

TEST(AnswerWaits, AfterTheStopNothingIsWaitedFor) {
  boost::asio::io_context io;
  AnswerWaits waits(io);
  waits.stop();
  bool called = false;
  waits.wait(
      [&] {
        called = true;
        return http::Response::text(200, "");
      },
      [](http::Response) {});
  waits.stop();
  EXPECT_FALSE(called);
}

TEST(PendingAnswers, TheIoContextsDestructionGivesUpItsAnswers) {
  auto io = std::make_unique<boost::asio::io_context>();
  LaterAnswer later = later_answer(*io, LONG_BOUND, "the record");
  auto deferred = later.response().deferred;
  ASSERT_TRUE(deferred);
  io.reset();  // `later` (its settle) outlives the io_context, as a dropped handler's capture would
  EXPECT_EQ(deferred().status, 503u);
}
