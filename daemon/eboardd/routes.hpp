// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The HTTP routes as data: each route is a method, a path pattern, the door it is reached through (what
// the request must carry) and its handler; the service's table (service_routes.cpp) is the one place a
// path is declared, and the endpoint list (/index.txt) is printed from it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/http/server.hpp"

namespace eboard::eboardd {

// What a request must carry to reach a route; each door has its own checks before any route runs.
enum class Door {
  page,     // the operator's page's files (GET): no token, since they hold no data
  ticket,   // POST /auth/ticket: a token in the Authorization header
  read,     // GET: the read or control token (none with open_read); without one, behind the broadcast delay
  control,  // POST or DELETE: the control token in the Authorization header, a JSON body
};

// The door a request comes in by, from its method and path alone: "/control" and below, "/boards" (not a
// WebSocket) and a DELETE below "/boards/" are control; "/auth/ticket" is the ticket's; a GET (not a
// WebSocket) of "/" (unless ?format=text), "/index.html" or below "/web/" is the page's; the rest is read.
Door door_of(const http::Request& r);

std::vector<std::string> split_path(std::string_view path);

// A request as a handler sees it.
struct RouteCall {
  explicit RouteCall(const http::Request& r) : request(r), parts(split_path(r.path)) {}
  const http::Request& request;
  std::vector<std::string> parts;     // the path's segments (empty segments skipped)
  bool delayed = false;               // read door: behind the broadcast delay (a reader without a token)
  std::optional<std::string> ticket;  // read door: the WebSocket ticket the request offered
};

class Service;

struct Route {
  Door door;
  std::string_view method;  // GET, POST or DELETE
  // Literal segments; "<name>" is any one segment, "<name>.ext" one ending in ".ext" after at least one
  // character; a last "*" is whatever follows, nothing included. The control door compares segments (an
  // empty one is none); the others compare a pattern without "<" as written, "/x/*" as a prefix "/x/".
  std::string_view path;
  // What /index.txt says the route serves (its body, the token it needs …); empty: not listed.
  std::string_view summary;
  http::Response (*handler)(Service&, const RouteCall&);
  // The path as /index.txt shows it, when not `path`.
  std::string_view shown = {};
  // Only requests this accepts (null: all) take the route.
  bool (*accepts)(const http::Request&) = nullptr;
};

bool path_matches(Door door, std::string_view pattern, std::string_view path);

// The first route of `table` by `door` for the request's method and path.
const Route* find_route(std::span<const Route> table, Door door, const http::Request& r);

// The endpoint list: `heading`, then a line per listed route (method, path and summary in columns).
std::string index_text(std::string_view heading, std::span<const Route> table);

// What the routes of numbered records share: a record's number in a query (?game=N, ?match=N: 1, 2, …;
// nothing for anything else); "1, 2 and 3 (the current one)", the numbers below `current` that have a
// file, then `current` (none below 1: the numbers as given); a PGN (or BPGN) answer.
std::optional<int> record_number(std::string_view s);
std::string numbers_text(std::vector<int> numbers, int current);
http::Response pgn_response(std::string text);

}  // namespace eboard::eboardd
