// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A bughouse match inside eboardd (a `[[match]]` of the configuration): its two boards are reconstructed
// together by one rules::Match, which hands captured pieces over to the partner's reserve and decides the
// match. Each board keeps its BoardRuntime (journal, PGN file, events published with its board id); its
// source is a MatchBoardSource, a view of the match. Sensor events come from a MatchFeed (two boards
// whose sessions only read sensors, each on a serial line or a DGT bus, or the demo's simulated match), in
// arrival order; one timer on the service's time base (io/time_base.hpp) wakes the match at its next
// deadline, in the game's time (a scaled clock's deadlines come as many times sooner).
//
// Journal: every input of the match (new game, sensor event, timer advance, arbiter input) goes to its
// board's journal (advances to the first board's) with the match's sequence number; recovery
// (journal/match_recovery.hpp) feeds both journals' inputs to a fresh Match in that order.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>
#include <tl/expected.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/board_runtime.hpp"
#include "daemon/eboardd/board_source.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/journal/match_recovery.hpp"
#include "rules/match.hpp"

namespace eboard::session {
class BusSession;
}

namespace eboard::eboardd {

class MatchRuntime;

// Where the match's sensor events come from.
class MatchFeed {
 public:
  virtual ~MatchFeed() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // A new match began (the demo plans its next one).
  virtual void new_match() {}
  virtual std::string link(int board) const = 0;
  virtual nlohmann::json info(int board) const = 0;
  // Shows up to eight characters on the board's clock (a DGT 3000); feeds without a clock ignore it.
  virtual void show(int /*board*/, const std::string& /*text*/) {}
  // The board's clock set by the arbiter (clock_control.hpp), as BoardSource's clock_settable and
  // clock_command: a DGT 3000 behind a serial board of the match, as on a single board. Feeds without a
  // clock refuse, saying why.
  virtual tl::expected<void, std::string> clock_settable(int /*board*/) const {
    return tl::unexpected(std::string("the daemon cannot set this match board's clock"));
  }
  virtual tl::expected<void, std::string> clock_command(int board, const session::ClockRequest& /*request*/,
                                                        BoardSource::ClockDone /*done*/) {
    auto ok = clock_settable(board);
    return ok ? tl::unexpected(std::string("the daemon cannot set this match board's clock")) : ok;
  }
  // The board's USB device arrived (hotplug): its link reconnects now rather than after its backoff.
  // `device`, if not empty, is the node to open from now on (a board named by serial number whose tty
  // was found in sysfs, where no udev symlink exists). Feeds without a link ignore it.
  virtual void device_arrived(int /*board*/, const std::string& /*device*/) {}
  // The board's USB device left: `device`, if not empty, is the node its link retries from now on (a
  // board named by serial goes back to its udev name: its tty may be another board's by the next retry).
  virtual void device_left(int /*board*/, const std::string& /*device*/) {}
};

class MatchRuntime {
 public:
  MatchRuntime(boost::asio::io_context& io, config::MatchConfig config, std::array<BoardRuntime*, 2> boards,
               std::shared_ptr<io::TimeBase> time);
  ~MatchRuntime();
  MatchRuntime(const MatchRuntime&) = delete;
  MatchRuntime& operator=(const MatchRuntime&) = delete;

  // Recovers the match from both boards' journals (opened as match members), or begins the first one.
  tl::expected<void, std::string> open();
  // The boards' sources (attach them to the boards); the feed starts when both have started.
  std::unique_ptr<BoardSource> board_source(int board);
  void set_feed(std::unique_ptr<MatchFeed> feed) { feed_ = std::move(feed); }
  MatchFeed* feed() const { return feed_.get(); }
  void stop();

  // Inputs, from the feed (or a test).
  void on_sensor(int board, const rules::SensorEvent& e);
  void advance(std::int64_t now_ms);
  tl::expected<std::vector<rules::Event>, std::string> control(int board, journal::ControlEntry c);
  // Both games start afresh; returns the number of the new match.
  tl::expected<int, std::string> new_match();

  const config::MatchConfig& config() const { return config_; }
  std::string name() const { return config_.name(); }
  const rules::Match& match() const { return *match_; }
  const std::array<BoardRuntime*, 2>& boards() const { return boards_; }
  int number() const { return boards_[0]->ledger().game_number(); }
  std::int64_t now_ms();
  // The time the match has been advanced to (by its inputs and its timer); no input comes before it.
  std::int64_t time_reached() const { return last_t_; }
  // The match's BPGN (CONTRACTS §4), and its file in state_dir/games. With a cutoff (Unix ms; the
  // broadcast delay): without the moves completed after it, nor a result told after it.
  std::string bpgn(std::optional<std::int64_t> cutoff = std::nullopt) const;
  // The number of the match bpgn(cutoff) shows: an earlier one while the delay holds the next one's start.
  int shown_number(std::optional<std::int64_t> cutoff = std::nullopt) const;
  std::filesystem::path bpgn_path() const;
  // The BPGN archive of match `number` (an earlier one, or the current one).
  std::filesystem::path bpgn_path(int number) const;
  // The BPGN file written again now (the arbiter's tags changed on a board: arbiter.hpp).
  void rewrite_bpgn();
  // Whether match `number`'s archive is still to be written (its last events wait for a journal): until
  // then its file is not the match's record.
  bool archive_pending(int number) const;
  nlohmann::json status() const;
  const journal::MatchRecovery* recovery() const { return recovery_ ? &*recovery_ : nullptr; }

 private:
  friend class MatchBoardSource;
  void dispatch(std::vector<rules::Event> events);
  void reschedule();
  void write_bpgn();
  // Writes an archive (and its signature, when `has_result`) through the boards' background writer, which
  // retries what a full disk refused; on this thread without one.
  void write_archive(std::filesystem::path path, const std::string& text, int number, bool has_result);
  // The archives of matches that ended while events of them waited for a journal, once both boards
  // published them.
  void write_finished();
  // Both boards' deferred rotations are ready: writes both new files and commits them as one.
  void rotate_deferred();
  // The same, made on the background worker (both boards ready).
  void rotate_in_background(outputs::BackgroundWork& work);
  // The BPGN with (`held`) or without what waits for the journals.
  std::string bpgn_text(std::optional<std::int64_t> cutoff, bool held) const;
  // The arbiter's result in the BPGN, once the match's result is shown: the Arbiter* tags of the board he
  // gave it on last (ArbiterBoard names it), ArbiterResult and ArbiterPrevious as team 1 sees them, as the
  // BPGN Result is.
  void add_arbiter_tags(rules::PgnTags& tags, std::optional<std::int64_t> cutoff) const;
  // The signature to make of the BPGN `text` written at `archive` (covering both boards' journals), once the
  // match has a result and there is a key.
  std::optional<SignJob> signature_for(const std::filesystem::path& archive, const std::string& text,
                                       int number, bool has_result);
  void source_started(int board, bool running);
  rules::MatchConfig match_config() const;

  boost::asio::io_context& io_;
  config::MatchConfig config_;
  std::array<BoardRuntime*, 2> boards_;
  std::shared_ptr<io::TimeBase> time_;  // the game's: the match's times and its timer
  std::optional<rules::Match> match_;
  // The matches before the current one and when the next began, oldest first: the public sees one until
  // the delay lets the next one's start out (bpgn(cutoff)).
  struct PreviousMatch {
    rules::Match match;
    std::int64_t ended_ms = 0;
    int number = 0;
  };
  std::deque<PreviousMatch> previous_;
  std::optional<journal::MatchRecovery> recovery_;
  std::unique_ptr<MatchFeed> feed_;
  io::Timer timer_;  // at the match's next deadline
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::array<bool, 2> started_{};
  bool feeding_ = false;
  std::int64_t seq_ = 0;
  std::int64_t last_t_ = 0;
  std::string bpgn_error_;
  // The last signing failure (logged once); touched by the thread that signs (the background worker).
  std::shared_ptr<std::string> sign_error_ = std::make_shared<std::string>();
  struct Finished {
    int number = 0;
    std::filesystem::path path;
    std::string text;  // the whole match, as it ended
    bool has_result = false;
  };
  std::vector<Finished> finished_;
  bool rotating_ = false;
  // The first archive writes after start-up must not replace a richer file (outputs/archive_guard.hpp).
  bool guard_archive_ = true;
  bool archive_kept_ = false;
};

// The bus line on a port (the service's, shared by the line's boards).
using BusLineOf = std::function<std::shared_ptr<session::BusSession>(const std::string& port)>;

// The match's two boards, each read by a session that reads sensor events only: a serial board's
// (session::BoardSessionConfig::sensor_only), or a bus board's on its line (session::BusBoardConfig::
// sensor_only, the line from `bus_line`).
std::unique_ptr<MatchFeed> make_board_feed(boost::asio::io_context& io, MatchRuntime& match,
                                           std::array<config::BoardConfig, 2> boards,
                                           std::shared_ptr<io::TimeBase> time, const BusLineOf& bus_line);

}  // namespace eboard::eboardd
