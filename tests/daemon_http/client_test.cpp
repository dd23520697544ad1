// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The HTTP client (daemon/http/client.hpp): URLs, an exchange with the daemon's own server on loopback, and
// the answers it gives when there is none (refused, timed out).
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "daemon/http/client.hpp"
#include "daemon/http/server.hpp"

using namespace eboard;
using namespace std::chrono_literals;

TEST(HttpClient, Urls) {
  auto u = http::parse_url("https://lichess.org/api/broadcast/round/abCD1234/push");
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->tls);
  EXPECT_EQ(u->host, "lichess.org");
  EXPECT_EQ(u->port, "443");
  EXPECT_EQ(u->target, "/api/broadcast/round/abCD1234/push");
  u = http::parse_url("http://127.0.0.1:8080");
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->tls);
  EXPECT_EQ(u->port, "8080");
  EXPECT_EQ(u->target, "/");
  u = http::parse_url("http://[::1]:81/x?y=1");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->host, "::1");
  EXPECT_EQ(u->port, "81");
  EXPECT_EQ(u->target, "/x?y=1");
  EXPECT_FALSE(http::parse_url("ftp://x/"));
  EXPECT_FALSE(http::parse_url("http://"));
  EXPECT_FALSE(http::parse_url("http://host:99999/"));
  EXPECT_FALSE(http::parse_url("http://[::1/"));
  EXPECT_FALSE(http::parse_url("https://user:secret@host/"));
}

TEST(HttpClient, PostsToARealServerAndTellsWhyWhenThereIsNoAnswer) {
  boost::asio::io_context io;
  http::Request seen;
  http::ServerHandlers h;
  h.on_request = [&](const http::Request& r) {
    seen = r;
    return http::Response::json(200, R"({"games":[]})");
  };
  http::Server server(io, {}, h);
  auto ep = server.listen("127.0.0.1", 0);
  ASSERT_TRUE(ep) << ep.error();
  const std::string base = "http://127.0.0.1:" + std::to_string(ep->port());

  std::optional<http::ClientResponse> answer;
  http::ClientRequest req;
  req.url = base + "/api/push";
  req.body = "[Event \"x\"]\n\n1. e4 *\n";
  req.headers.push_back({"Authorization", "Bearer secret-token"});
  http::fetch(io, req, [&](http::ClientResponse r) { answer = std::move(r); });
  io.restart();                              // it ran out of work after the exchange before
  while (!answer && io.run_one_for(15s)) {}  // ends with the answer
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 200u) << answer->error;
  EXPECT_EQ(answer->body, "{\"games\":[]}\n");
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.body, req.body);
  EXPECT_EQ(seen.token(), "secret-token");
  EXPECT_EQ(seen.content_type, "text/plain; charset=utf-8");

  // Nobody listens: refused, said so.
  server.stop();
  answer.reset();
  http::fetch(io, req, [&](http::ClientResponse r) { answer = std::move(r); });
  io.restart();                              // it ran out of work after the exchange before
  while (!answer && io.run_one_for(15s)) {}  // ends with the answer
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 0u);
  EXPECT_NE(answer->error.find("cannot connect"), std::string::npos) << answer->error;

  // A listener that never answers: the deadline ends the wait.
  boost::asio::ip::tcp::acceptor silent(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  req.url = "http://127.0.0.1:" + std::to_string(silent.local_endpoint().port()) + "/";
  req.timeout = 300ms;
  answer.reset();
  http::fetch(io, req, [&](http::ClientResponse r) { answer = std::move(r); });
  io.restart();                              // it ran out of work after the exchange before
  while (!answer && io.run_one_for(15s)) {}  // ends with the answer
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status, 0u);
  EXPECT_NE(answer->error.find("timed out"), std::string::npos) << answer->error;

  // Not a URL: an answer all the same, never a throw.
  req.url = "lichess.org";
  answer.reset();
  http::fetch(io, req, [&](http::ClientResponse r) { answer = std::move(r); });
  io.restart();                              // it ran out of work after the exchange before
  while (!answer && io.run_one_for(15s)) {}  // ends with the answer
  ASSERT_TRUE(answer);
  EXPECT_NE(answer->error.find("not an http"), std::string::npos) << answer->error;
}
