// `eboardd --demo`: boards without hardware. Real games from a PGN corpus are played by simulated hands on
// simulated scanning boards with a clock (daemon/sim), and their sensor events are fed, in real time, to
// reconstruction: the daemon sees exactly what a real board would have reported, so everything after
// the driver (reconstruction, journal, PGN, HTTP, WebSocket) runs for real.
//
// After a restart the demo continues where the journal stops: the timeline of a game is the same for the
// same corpus game, seed and speed (recorded in the game's `EboardDemo` tag), so the sensor events the
// journal already holds are skipped and the rest follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <tl/expected.hpp>

#include "daemon/eboardd/board_source.hpp"
#include "daemon/journal/machine.hpp"
#include "daemon/sim/timeline.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

// The games the demo plays: raw PGN games read once, resolved when chosen.
class DemoCorpus {
 public:
  // A PGN file, or a directory whose *.pgn files are read in name order.
  static tl::expected<std::shared_ptr<const DemoCorpus>, std::string> load(const std::filesystem::path& path);
  // Where the corpus is by default: ../shared/corpora/pgn/standard near the executable (the source tree
  // layout, build/<preset>/daemon/eboardd/eboardd), or the installed data directory.
  static std::vector<std::filesystem::path> default_locations(const std::filesystem::path& executable);

  std::size_t size() const { return games_.size(); }
  // Game `i` (modulo the size), resolved; games that do not resolve or are short are skipped.
  const rules::GameRecord& game(std::size_t i, std::size_t* index = nullptr) const;
  const std::string& source() const { return source_; }

 private:
  std::vector<rules::GameRecord> games_;
  std::string source_;
};

struct DemoOptions {
  std::size_t board_index = 0;   // the demo's boards play different games
  double speed = 1.0;            // thinking time is divided by this (the hands keep their pace)
  std::int64_t pause_ms = 5000;  // between the end of a game and the next
};

class DemoSource : public BoardSource {
 public:
  DemoSource(boost::asio::io_context& io, BoardSink& sink, std::shared_ptr<const DemoCorpus> corpus,
             journal::GameMachine machine, DemoOptions options, std::function<std::int64_t()> clock = {});
  ~DemoSource() override;

  void start() override;
  void stop() override;
  const rules::Game& game() const override { return machine_.game(); }
  std::string link() const override { return running_ ? "demo" : "stopped"; }
  nlohmann::json info() const override;
  tl::expected<void, std::string> new_game(const journal::NewGameEntry& g) override;
  tl::expected<std::vector<rules::Event>, std::string> control(const journal::ControlEntry& c) override {
    return machine_.control(c);
  }
  const rules::Reconstructor* reconstructor() const override {
    return machine_.has_game() ? &machine_.reconstructor() : nullptr;
  }

 private:
  void plan();  // the timeline of the current game, resuming after the events already fed
  void wake();
  void schedule();
  std::int64_t now();

  [[maybe_unused]] boost::asio::io_context& io_;  // for the session wiring to come
  BoardSink& sink_;
  std::shared_ptr<const DemoCorpus> corpus_;
  journal::GameMachine machine_;
  DemoOptions options_;
  std::function<std::int64_t()> clock_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool running_ = false;
  sim::Timeline timeline_;
  std::size_t next_ = 0;     // the next timeline event to feed
  std::int64_t origin_ = 0;  // Unix ms of the timeline's time 0
  std::optional<std::int64_t> next_game_at_;
  std::size_t corpus_index_ = 0;
  std::string label_;
  std::int64_t last_t_ = 0;
};

}  // namespace eboard::eboardd
