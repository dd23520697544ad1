// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/replay.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "daemon/session/board_protocol.hpp"
#include "daemon/session/link_gate.hpp"

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
  if (!p || !p->row->make_decoder || (p->bus && (!bus || !p->row->replay_bus)))
    return tl::unexpected("protocol '" + capture.info.protocol + "' cannot be replayed (replay knows " +
                          (bus ? capture_protocol_names() : protocol_names()) + ")");
  return *p;
}

void append(std::vector<Event>& events, std::vector<Event>&& more) {
  events.insert(events.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

tl::expected<ReplayResult, std::string> replay_capture(const drivers::Capture& capture, ReconstructConfig cfg,
                                                       const std::optional<std::string>& gap_moves,
                                                       bool at_the_end) {
  if (!capture.info.board.empty()) cfg.board_id = capture.info.board;
  auto protocol = protocol_of(capture, true);
  if (!protocol) return tl::unexpected(protocol.error());
  if (protocol->bus) return protocol->row->replay_bus(capture, std::move(cfg));
  const BoardProtocol& row = *protocol->row;
  if (!row.has_clock && cfg.complete_after_ms == 0) cfg.complete_after_ms = kClocklessSettleMs;
  const std::int64_t settle = std::max(cfg.settle_ms, cfg.complete_after_ms);
  CaptureFeed feed(row);
  Reconstructor rec(std::move(cfg));
  std::vector<Event> events;
  std::optional<std::string> refused;
  bool over = false;
  const auto arbiter = [&](std::int64_t t) {
    if (!gap_moves || refused || !rec.missed_gap() || (at_the_end && !over)) return;
    auto settled = rec.settle_gap(*gap_moves, t);
    refused = settled ? std::string() : settled.error();
    if (settled) append(events, std::move(*settled));
  };
  const auto deliver = [&](const std::vector<SensorEvent>& sensed) {
    for (const SensorEvent& s : sensed) {
      append(events, rec.on_sensor(s));
      arbiter(s.t_ms);
    }
  };
  std::int64_t last_t = 0;
  for (const auto& record : capture.records) {
    last_t = record.t_ms;
    deliver(feed.advance(record.t_ms));
    append(events, rec.advance(record.t_ms));
    arbiter(record.t_ms);
    deliver(feed.record(record));
  }
  // Let the last movement settle, as a running daemon would a moment later.
  deliver(feed.advance(last_t + settle));
  append(events, rec.advance(last_t + settle));
  over = true;
  arbiter(last_t + settle);
  return ReplayResult{std::move(events), rec.game(), std::move(refused)};
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
