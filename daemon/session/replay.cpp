// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/replay.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <memory>

#include "daemon/session/board_protocol.hpp"
#include "daemon/session/bus_board_feed.hpp"
#include "daemon/session/link_gate.hpp"
#include "drivers/dgt/protocol.hpp"

namespace eboard::session {

using namespace eboard::rules;

namespace {

// A board without a clock completes a move once it has rested this long, unless the caller says otherwise:
// the configuration's default `settle_ms` (daemon/config/config.hpp), which the daemon journals per game.
constexpr std::int64_t kClocklessSettleMs = 1500;

// One board's side of a replay: the capture's records through its protocol's decoder and the link gate,
// as the session runs them live (board_session.cpp), into sensor events for reconstruction.
class CaptureFeed {
 public:
  explicit CaptureFeed(const BoardProtocol& protocol) : decoder_(protocol.make_decoder()) {}

  // What reconstruction gets of one record. The adapter's own conversation with the board (Millennium's
  // settings) runs as live; what it would send is dropped: the capture holds what was sent, and the
  // board's answers.
  std::vector<SensorEvent> record(const drivers::CaptureRecord& r) {
    if (r.link) {
      decoder_->reset_link();
      if (!*r.link) return gate_.disconnected(r.t_ms);
      std::vector<SensorEvent> out = gate_.connected(r.t_ms);
      decoder_->connected(r.t_ms);
      (void)decoder_->take_commands();
      return out;
    }
    if (r.direction != drivers::Direction::FromBoard) return {};  // what was sent tells nothing new
    std::vector<SensorEvent> decoded = decoder_->feed(r.t_ms, r.bytes);
    (void)decoder_->take_commands();
    return gate_.pass(decoded);
  }
  // Time went on to `t` (before the record at `t` is read): a connect left without a dump opens the gate.
  std::vector<SensorEvent> advance(std::int64_t t) {
    decoder_->advance(t);
    (void)decoder_->take_commands();
    return gate_.advance(t);
  }

 private:
  std::unique_ptr<BoardDecoder> decoder_;
  LinkGate gate_;
};

// The capture's row; `bus`: a board of a bus line (the row's bus dialect) is allowed.
tl::expected<CaptureProtocol, std::string> protocol_of(const drivers::Capture& capture, bool bus) {
  const auto p = find_capture_protocol(capture.info.protocol);
  if (!p || !p->row->make_decoder || (p->bus && !bus))
    return tl::unexpected("protocol '" + capture.info.protocol + "' cannot be replayed (replay knows " +
                          (bus ? capture_protocol_names() : protocol_names()) + ")");
  return *p;
}

tl::expected<std::uint16_t, std::string> bus_address_of(const drivers::Capture& capture) {
  for (const auto& h : capture.info.other_headers) {
    if (h.key != drivers::kBusAddressHeader) continue;
    int address = 0;
    const char* end = h.value.data() + h.value.size();
    auto [ptr, err] = std::from_chars(h.value.data(), end, address);
    if (err != std::errc() || ptr != end || address < 1 || address > drivers::dgt::bus::kMaxAddress)
      return tl::unexpected("bus-address '" + h.value + "' is not a bus address (1.." +
                            std::to_string(drivers::dgt::bus::kMaxAddress) + ")");
    return static_cast<std::uint16_t>(address);
  }
  return tl::unexpected(std::string("a dgt-bus capture needs a 'bus-address' header"));
}

// One board of a DGT bus line: its frames through the bus decoder and its BusBoardFeed, the code the
// line's session runs live (bus_session.cpp), and the board's reconstruction advanced as the session's
// timer does it: when the feed is due, to the board's last reply. The host's commands tell which
// question a changes reply answers (REPEAT_CHANGES: maybe one delivered already); what they asked for
// is in the capture already, so the feed's own wishes (a dump, a re-read) are not acted on. A return
// is the board's first answer after `! offline`, as live; `! online` records add nothing.
tl::expected<ReplayResult, std::string> replay_bus_capture(const drivers::Capture& capture,
                                                           ReconstructConfig cfg) {
  namespace dgt = drivers::dgt;
  auto address = bus_address_of(capture);
  if (!address) return tl::unexpected(address.error());
  std::vector<Event> events;
  BoardSessionHandlers handlers;
  handlers.on_event = [&](const Event& e) { events.push_back(e); };
  BusBoardConfig board;
  board.board_id = cfg.board_id;
  board.rules = std::move(cfg);
  BusBoardFeed feed(*address, "address " + std::to_string(*address) + " in the capture");
  feed.attach(std::move(board), std::move(handlers));
  dgt::BusDecoder decoder;
  std::vector<std::uint8_t> command;  // the host's bytes, cut into 4-byte commands
  std::uint8_t pending = 0;           // the last command to the board not answered yet (0: none)
  const auto settle = [&] {
    // As the session's timer: a deadline the last reply reached is taken, then the next, if it did too.
    for (std::optional<std::int64_t> due = feed.due(), last; due && due != last; due = feed.due()) {
      last = due;
      feed.advance();
    }
  };
  std::vector<dgt::BusFrame> frames;
  for (const auto& record : capture.records) {
    if (record.link) {
      if (!*record.link) feed.lost(record.t_ms, "offline in the capture");
      continue;
    }
    if (record.direction == drivers::Direction::ToBoard) {
      for (std::uint8_t byte : record.bytes) {
        command.push_back(byte);
        if (command.size() < dgt::bus::kCommandSize) continue;
        const dgt::BusCommandBytes c{command[0], command[1], command[2], command[3]};
        if (dgt::bus_command_address(c) == *address) pending = c[0];
        command.clear();
      }
      continue;
    }
    frames.clear();
    decoder.feed(record.bytes, frames);
    for (const dgt::BusFrame& f : frames) {
      const auto* reply = std::get_if<dgt::BusReply>(&f);
      if (!reply || reply->address != *address) continue;
      const std::uint8_t asked = std::exchange(pending, std::uint8_t{0});
      if (reply->id == dgt::bus::kReplyChanges || reply->id == dgt::bus::kReplyFromStart) {
        const dgt::BusChangesKind kind = reply->id == dgt::bus::kReplyFromStart
                                             ? dgt::BusChangesKind::FromStart
                                         : asked == dgt::bus::kRepeatChanges ? dgt::BusChangesKind::Repeated
                                                                             : dgt::BusChangesKind::New;
        feed.changes(record.t_ms, kind, dgt::parse_eeprom_records(reply->data));
      } else {
        feed.reply(record.t_ms, *reply);
      }
      settle();
    }
  }
  return ReplayResult{std::move(events), feed.reconstructor().game()};
}

void append(std::vector<Event>& events, std::vector<Event>&& more) {
  events.insert(events.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

tl::expected<ReplayResult, std::string> replay_capture(const drivers::Capture& capture,
                                                       ReconstructConfig cfg) {
  if (!capture.info.board.empty()) cfg.board_id = capture.info.board;
  auto protocol = protocol_of(capture, true);
  if (!protocol) return tl::unexpected(protocol.error());
  if (protocol->bus) return replay_bus_capture(capture, std::move(cfg));
  const BoardProtocol& row = *protocol->row;
  if (!row.has_clock && cfg.complete_after_ms == 0) cfg.complete_after_ms = kClocklessSettleMs;
  const std::int64_t settle = std::max(cfg.settle_ms, cfg.complete_after_ms);
  CaptureFeed feed(row);
  Reconstructor rec(std::move(cfg));
  std::vector<Event> events;
  const auto deliver = [&](const std::vector<SensorEvent>& sensed) {
    for (const SensorEvent& s : sensed) append(events, rec.on_sensor(s));
  };
  std::int64_t last_t = 0;
  for (const auto& record : capture.records) {
    last_t = record.t_ms;
    deliver(feed.advance(record.t_ms));
    append(events, rec.advance(record.t_ms));
    deliver(feed.record(record));
  }
  // Let the last movement settle, as a running daemon would a moment later.
  deliver(feed.advance(last_t + settle));
  append(events, rec.advance(last_t + settle));
  return ReplayResult{std::move(events), rec.game()};
}

tl::expected<MatchReplayResult, std::string> replay_match(const drivers::Capture& a,
                                                          const drivers::Capture& b, MatchConfig cfg) {
  const std::array<const drivers::Capture*, 2> captures{&a, &b};
  std::array<std::unique_ptr<CaptureFeed>, 2> feeds;
  for (std::size_t i = 0; i < 2; ++i) {
    auto protocol = protocol_of(*captures[i], false);
    if (!protocol) return tl::unexpected("board " + cfg.board_ids[i] + ": " + protocol.error());
    if (!protocol->row->has_clock)
      return tl::unexpected("board " + cfg.board_ids[i] + ": a bughouse match needs the boards' clocks (" +
                            captures[i]->info.protocol + " brings none)");
    feeds[i] = std::make_unique<CaptureFeed>(*protocol->row);
    if (!captures[i]->info.board.empty()) cfg.board_ids[i] = captures[i]->info.board;
  }
  if (cfg.board_ids[0] == cfg.board_ids[1])
    return tl::unexpected("both captures are board '" + cfg.board_ids[0] + "'");
  if (cfg.tags.empty())
    cfg.tags = {{"Event", "eboardd"}, {"Site", "?"},   {"Date", "????.??.??"}, {"WhiteA", "?"},
                {"BlackA", "?"},      {"WhiteB", "?"}, {"BlackB", "?"}};
  const std::int64_t settle = cfg.board.settle_ms;
  Match match(cfg);
  std::vector<Event> events;
  const auto deliver = [&](int which, const std::vector<SensorEvent>& sensed) {
    for (const SensorEvent& s : sensed) append(events, match.on_sensor(which, s));
  };
  // Both captures' records in time order (board A first at equal times).
  std::array<std::size_t, 2> next{0, 0};
  std::int64_t last_t = 0;
  for (;;) {
    int which = -1;
    for (int i = 0; i < 2; ++i) {
      const auto& recs = captures[std::size_t(i)]->records;
      if (next[std::size_t(i)] >= recs.size()) continue;
      if (which < 0 || recs[next[std::size_t(i)]].t_ms <
                           captures[std::size_t(which)]->records[next[std::size_t(which)]].t_ms)
        which = i;
    }
    if (which < 0) break;
    const auto& record = captures[std::size_t(which)]->records[next[std::size_t(which)]++];
    last_t = std::max(last_t, record.t_ms);
    for (int i = 0; i < 2; ++i) deliver(i, feeds[std::size_t(i)]->advance(record.t_ms));
    append(events, match.advance(record.t_ms));
    deliver(which, feeds[std::size_t(which)]->record(record));
  }
  for (int i = 0; i < 2; ++i) deliver(i, feeds[std::size_t(i)]->advance(last_t + settle));
  append(events, match.advance(last_t + settle));
  // The boards' events interleave in time; a move is stamped with its press, which may be read a scan
  // before the other board's events that came out first.
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& x, const Event& y) { return x.t_ms < y.t_ms; });
  BughouseRecord record = match.record();
  if (match.result()) {
    record.tags.push_back({"Termination", match.result()->reason});
    for (auto& t : record.tags)
      if (t.name == "Result") t.value = record.result;
  }
  return MatchReplayResult{std::move(events), std::move(record)};
}

}  // namespace eboard::session
