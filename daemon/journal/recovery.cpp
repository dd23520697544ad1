// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/recovery.hpp"

#include <cstdlib>
#include <map>

#include <nlohmann/json.hpp>

#include "daemon/journal/replay_check.hpp"
#include "daemon/journal/replay_loop.hpp"
#include "rules/notation.hpp"

namespace eboard::journal {

using namespace eboard::rules;

namespace {

// A single board's reconstruction as the replay's target.
class MachineTarget final : public ReplayTarget {
 public:
  explicit MachineTarget(GameMachine& m) : m_(m) {}
  tl::expected<bool, std::string> new_game(int, const NewGameEntry& g, std::int64_t) override {
    if (auto ok = m_.new_game(g); !ok) return tl::unexpected(ok.error());
    return true;
  }
  std::vector<Event> sensor(int, const SensorEvent& e) override { return m_.on_sensor(e); }
  std::vector<Event> advance(std::int64_t now_ms) override { return m_.advance(now_ms); }
  tl::expected<std::vector<Event>, std::string> control(int, const ControlEntry& c) override {
    return m_.control(c);
  }
  const Game* game(int) const override { return m_.has_game() ? &m_.game() : nullptr; }
  int board_of(const Event&) const override { return 0; }

 private:
  GameMachine& m_;
};

// The time a published event carries ("t"), if it does.
std::optional<std::int64_t> event_time(std::string_view event_json) {
  const auto j = nlohmann::json::parse(event_json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto t = j.find("t");
  return t != j.end() && t->is_number_integer() ? std::optional(t->get<std::int64_t>()) : std::nullopt;
}

}  // namespace

Result parse_result(std::string_view text) {
  return text == "1-0"       ? Result::WhiteWins
         : text == "0-1"     ? Result::BlackWins
         : text == "1/2-1/2" ? Result::Draw
                             : Result::Ongoing;
}

ClockTimes event_clock(const nlohmann::json& event) {
  ClockTimes c;
  if (event.is_object() && event.contains("clock") && event["clock"].is_object()) {
    // (A field of another type, from a hall's host or a damaged record, is as none.)
    const nlohmann::json& clock = event["clock"];
    auto ms = [&](const char* side) {
      const auto it = clock.find(side);
      return it != clock.end() && it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t{-1};
    };
    c = {ms("white"), ms("black")};
  }
  return c;
}

bool is_daemon_note(std::string_view event_json) {
  if (event_json.find("\"journal-") == std::string_view::npos) return false;
  auto j = nlohmann::json::parse(event_json, nullptr, false);
  return j.is_object() && j.value("type", "") == "alert" && j.value("code", "").rfind("journal-", 0) == 0;
}

std::optional<PublishedGap> read_published_gap(std::string_view event_json) {
  if (event_json.find("\"moves-missed\"") == std::string_view::npos) return std::nullopt;
  const auto j = nlohmann::json::parse(event_json, nullptr, false);
  if (!j.is_object() || j.value("type", "") != "alert" || j.value("code", "") != "moves-missed")
    return std::nullopt;
  const auto first = j.find("first_ply");
  if (first == j.end() || !first->is_number_integer()) return std::nullopt;
  PublishedGap gap{first->get<int>(), {}};
  const auto list = j.find("candidates");
  if (list != j.end() && list->is_array())
    for (const auto& seq : *list) {
      if (!seq.is_array()) return std::nullopt;
      std::vector<std::string>& moves = gap.candidates.emplace_back();
      for (const auto& m : seq) {
        if (!m.is_string()) return std::nullopt;
        moves.push_back(m.get<std::string>());
      }
    }
  return gap;
}

Recovery recover(const JournalScan& scan, const std::string& board_id) {
  Recovery r(board_id);
  r.torn = scan.problem;
  MachineTarget target(r.machine);
  ReplayLoop loop(target, {""}, 5);
  // For each record, the time of the next sensor record (a fallback for journals without advances).
  std::vector<std::optional<std::int64_t>> next_sensor_t(scan.records.size() + 1);
  for (std::size_t i = scan.records.size(); i-- > 0;) {
    next_sensor_t[i] = next_sensor_t[i + 1];
    if (scan.records[i].type == 'S')
      if (auto e = decode_entry('S', scan.records[i].body); e)
        next_sensor_t[i] = std::get<SensorEvent>(*e).t_ms;
  }
  for (std::size_t index = 0; index < scan.records.size(); ++index) {
    const FileRecord& rec = scan.records[index];
    if (rec.type == 'O') {  // the order the gap is shown in since its alert (an engine's)
      if (auto order = decode_entry('O', rec.body))
        if (const auto* o = std::get_if<GapOrderEntry>(&*order))
          r.published_gap = PublishedGap{o->first_ply, o->candidates, true};
      continue;
    }
    if (rec.type != 'E') {
      loop.input(0, rec);
      continue;
    }
    if (is_daemon_note(rec.body)) continue;  // published by the daemon, not derived from the board
    if (auto gap = read_published_gap(rec.body)) r.published_gap = std::move(*gap);
    // An event from a timer whose advance was not journaled (a journal written before every advance that
    // made events was): it fired at its own time, at the latest before the next sensor event; advancing to
    // either fires what it would have fired first anyway. Its own time comes first: the journal may end
    // with it (kill -9), or the next sensor event be a restart's, long after.
    if (!loop.has_pending(0))
      if (const auto t = event_time(rec.body)) loop.take(r.machine.advance(*t));
    if (!loop.has_pending(0) && next_sensor_t[index]) loop.take(r.machine.advance(*next_sensor_t[index]));
    loop.journaled(0, rec.body);
  }
  r.header = loop.header(0);
  r.sensor_records = loop.sensor_records();
  r.raw_records = loop.raw_records();
  r.bad_records = loop.bad_records();
  r.last_t = loop.last_t();
  r.damaged = !scan.damaged.empty();
  ReplayLoop::Summary s = loop.finish(r.damaged);
  r.ledger = std::move(loop.ledger(0));  // as finish() left it: the published notes
  r.journaled_events = s.journaled_events;
  r.matched_events = s.matched_events;
  r.mismatched_events = s.mismatched_events;
  r.mismatches = std::move(s.problems);
  r.unjournaled = std::move(loop.unjournaled(0));
  if (r.machine.has_game() && !loop.published(0).agrees_with(r.machine.game())) {
    // What the world saw wins over a replay that disagrees with it or lacks some of it.
    r.machine.resume(loop.published(0).merged(r.machine.game()));
    r.continue_from_published = true;
  }
  return r;
}

namespace {

// One journal record as a capture record, if it makes one: a raw record's bytes, a link sensor record's
// `! online` / `! offline`. The first such record's time becomes the capture's t = 0 (`origin`, and the note
// saying so in `info`); times never decrease, even if the system clock stepped back (`last`).
std::optional<drivers::CaptureRecord> capture_record(const FileRecord& rec, drivers::CaptureInfo& info,
                                                     std::optional<std::int64_t>& origin,
                                                     std::int64_t& last) {
  if (rec.type != 'R' && rec.type != 'S') return std::nullopt;
  auto e = decode_entry(rec.type, rec.body);
  if (!e) return std::nullopt;
  drivers::CaptureRecord r;
  std::int64_t t_ms = 0;
  if (const auto* s = std::get_if<rules::SensorEvent>(&*e)) {
    const auto* link = std::get_if<rules::DeviceLink>(&s->what);
    if (!link) return std::nullopt;
    t_ms = s->t_ms;
    r.link = link->connected;
  } else {
    auto* raw = std::get_if<RawEntry>(&*e);
    if (!raw || raw->bytes.empty()) return std::nullopt;
    t_ms = raw->t_ms;
    r.direction = raw->direction;
    r.bytes = std::move(raw->bytes);
  }
  if (!origin) {
    origin = t_ms;
    info.notes.push_back("exported by eboardd from its journal; t = 0 is Unix time " + std::to_string(t_ms) +
                         " ms");
  }
  last = std::max(last, t_ms - *origin);
  r.t_ms = last;
  return r;
}

// The board a header record names, if `rec` is one.
std::optional<std::string> header_board(const FileRecord& rec) {
  if (rec.type != 'H') return std::nullopt;
  if (auto h = decode_entry(rec.type, rec.body); h && std::get_if<HeaderEntry>(&*h))
    return std::get<HeaderEntry>(*h).board;
  return std::nullopt;
}

}  // namespace

drivers::Capture export_capture(const JournalScan& scan, const std::string& board_id,
                                const std::string& protocol, std::vector<drivers::CaptureHeader> headers) {
  drivers::Capture cap;
  cap.info.protocol = protocol;
  cap.info.other_headers = std::move(headers);
  cap.info.board = board_id;
  std::optional<std::int64_t> origin;
  std::int64_t last = 0;
  for (const FileRecord& rec : scan.records) {
    if (auto board = header_board(rec)) cap.info.board = *board;
    if (auto r = capture_record(rec, cap.info, origin, last)) cap.records.push_back(std::move(*r));
  }
  return cap;
}

tl::expected<CaptureExport, std::string> CaptureExport::open(const std::filesystem::path& journal,
                                                             const std::string& board_id,
                                                             const std::string& protocol,
                                                             std::vector<drivers::CaptureHeader> headers) {
  auto reader = RecordReader::open(journal);
  if (!reader) return tl::unexpected(reader.error());
  CaptureExport e(std::move(*reader));
  e.info_.protocol = protocol;
  e.info_.other_headers = std::move(headers);
  e.info_.board = board_id;
  return e;
}

void CaptureExport::header(std::string& out) {
  if (header_written_) return;
  header_written_ = true;
  out += drivers::format_capture(drivers::Capture{info_, {}});
}

std::string CaptureExport::next(std::size_t piece) {
  std::string out;
  while (!done_ && out.size() < piece) {
    std::optional<FileRecord> rec = reader_.next();
    if (!rec) {
      header(out);  // a journal without a record for the capture: the header alone
      done_ = true;
      break;
    }
    if (auto board = header_board(*rec); board && !header_written_) info_.board = *board;
    auto r = capture_record(*rec, info_, origin_, last_);
    if (!r) continue;
    header(out);  // once the first record gave t = 0
    out += drivers::format_capture_record(*r);
    out += '\n';
  }
  return out;
}

}  // namespace eboard::journal
