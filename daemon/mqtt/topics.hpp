// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The hall's topic tree and payloads (README "Many hosts, one hall"), pure: no broker, no clock.
//
//   eboard/<hall>/<host>/status                  retained "online"; the last will (retained) "offline"
//   eboard/<hall>/<host>/board/<id>/event        QoS 1: an envelope {"host","board","game","journal","seq",
//                                                "event":{CONTRACTS §3 event}}
//   eboard/<hall>/<host>/board/<id>/state        retained: the board as it stands (position, clocks, tags,
//                                                link, open alerts, result, the last event's id)
//   eboard/<hall>/<host>/match/<name>            retained: a bughouse match of the host ("A-B"): {"match",
//                                                "boards":[A,B],"number","bpgn","games":{A: PGN,
//                                                B: PGN},"t"}, its BPGN and each board's game as the
//                                                host prints them, and when it published them
//   eboard/<hall>/<host>/command/<username>      an aggregator's command; the broker's ACL lets only user
//                                                <username> write there (pattern write eboard/+/+/command/%u)
//   eboard/<hall>/<host>/answer/<username>       the host's answer to that user's command
//
// An event's id is where its record lies in the board's journal: the journal file (its header's creation
// time, Unix ms) and the record's byte offset in it. Ids grow with the journal, so a receiver drops any
// envelope whose id is not above the last it took from that board: a republished event is a duplicate.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

namespace eboard::mqtt {

struct EventId {
  std::int64_t journal = 0;  // the journal file's creation time (Unix ms)
  std::uint64_t seq = 0;     // the record's offset in that file
  // clang-tidy 14 reads a literal 0 into the defaulted <=> (modernize-use-nullptr): a false alarm.
  auto operator<=>(const EventId&) const = default;  // NOLINT(modernize-use-nullptr)
  bool none() const { return journal == 0 && seq == 0; }
};

class Topics {
 public:
  Topics(std::string hall, std::string host) : hall_(std::move(hall)), host_(std::move(host)) {}
  const std::string& hall() const { return hall_; }
  const std::string& host() const { return host_; }
  std::string status() const { return base(host_) + "/status"; }
  std::string event(std::string_view board) const {
    return base(host_) + "/board/" + std::string(board) + "/event";
  }
  std::string state(std::string_view board) const {
    return base(host_) + "/board/" + std::string(board) + "/state";
  }
  std::string match(std::string_view name) const { return base(host_) + "/match/" + std::string(name); }
  // The commands this host takes (every user's), and where it answers `user`.
  std::string commands_filter() const { return base(host_) + "/command/+"; }
  std::string answer(std::string_view user) const { return base(host_) + "/answer/" + std::string(user); }
  // Where `user` sends a command to `host`, and the whole hall (an aggregator's subscription).
  std::string command(std::string_view host, std::string_view user) const {
    return base(host) + "/command/" + std::string(user);
  }
  std::string hall_filter() const { return "eboard/" + hall_ + "/#"; }

 private:
  std::string base(std::string_view host) const { return "eboard/" + hall_ + "/" + std::string(host); }
  std::string hall_;
  std::string host_;
};

// A topic of the hall, taken apart.
struct TopicParts {
  enum class Kind { Status, Event, State, Command, Answer, Match } kind = Kind::Status;
  std::string host;
  std::string name;  // the board (event, state), the username (command, answer) or the match
};
// Nothing for a topic outside eboard/<hall>/ or of a shape this tree does not have.
std::optional<TopicParts> parse_topic(std::string_view hall, std::string_view topic);

struct Envelope {
  std::string host;
  std::string board;
  int game = 0;  // the board's game number (0: unknown)
  EventId id;
  nlohmann::json event;  // the CONTRACTS §3 event
  // Published again at an aggregator's request (a "resend" command): 1, and 2 for the last of the batch.
  // 0: published live (or from the journal after a reconnect, which the host does by itself).
  int resend = 0;
  // Live and after a reconnect: the board's event published before this one, as its journal holds them
  // (daemon notes aside); none when the host does not know it (its first event since it started). An
  // aggregator whose last event taken is older lost some on the way, even at a game's end.
  std::optional<EventId> after;
};
std::string encode_envelope(const Envelope& e);
// Fails on anything that is not a well-formed envelope (a receiver drops it).
tl::expected<Envelope, std::string> decode_envelope(std::string_view payload);

// A command from an aggregator: a control action on one board (POST /control/<board>/<action>, `body` its
// JSON body), with the sender's id for matching the answer, and the time after which it is not obeyed.
struct Command {
  std::string id;
  std::string board;
  std::string action;
  nlohmann::json body = nlohmann::json::object();
  // When set (Unix ms): the sender stops waiting for the answer then, so the host does not obey it after
  // (a clock set late, after the arbiter was told it failed). 0: no deadline.
  std::int64_t deadline_ms = 0;
};
std::string encode_command(const Command& c);
tl::expected<Command, std::string> decode_command(std::string_view payload);

struct Answer {
  std::string id;
  std::string board;
  int status = 0;  // HTTP status the action had on the host (403: refused)
  nlohmann::json body;
};
std::string encode_answer(const Answer& a);
tl::expected<Answer, std::string> decode_answer(std::string_view payload);

}  // namespace eboard::mqtt
