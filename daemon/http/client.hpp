// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A small HTTP(S) client on the daemon's io_context (Boost.Beast; TLS through OpenSSL with the system's
// certificate authorities and the host name checked): one request, one answer, within a deadline. For
// what eboardd sends to others (the lichess broadcast push); never waits on the loop.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

namespace eboard::http {

struct Url {
  bool tls = false;
  std::string host;
  std::string port;
  std::string target;  // path and query, "/" at least
};
// "http://host[:port]/path" or "https://…"; the error says what is wrong.
tl::expected<Url, std::string> parse_url(std::string_view text);

struct ClientRequest {
  std::string method = "POST";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::chrono::milliseconds timeout{10000};  // the whole exchange: resolve, connect, TLS, request, answer
};

struct ClientResponse {
  unsigned status = 0;  // 0: no answer (see error)
  std::string body;
  std::string error;  // why there was no answer: refused, timed out, TLS …
};

// Sends `request`; `done` is called once, on the io_context, with the answer or why there is none.
void fetch(boost::asio::io_context& io, ClientRequest request, std::function<void(ClientResponse)> done);

}  // namespace eboard::http
