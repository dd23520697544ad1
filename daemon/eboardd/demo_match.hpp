// `eboardd --demo` plays bughouse: the two demo boards are a match, and real matches from a BPGN corpus
// are played on them by simulated hands and clocks (daemon/sim), in real time. A drop waits for the
// capture on the other board that puts its piece in the reserve (the capturer's clock press), so the
// two boards' timelines are built together; their sensor events are fed to the match in time order.
//
// After a restart the demo continues where the journals stop: the same corpus match, seed and speed
// (the `EboardDemo` tag of the first board) give the same timelines, so the inputs already journaled are
// skipped and the rest follow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <tl/expected.hpp>

#include "daemon/eboardd/match_runtime.hpp"
#include "rules/pgn.hpp"

namespace eboard::eboardd {

class DemoMatchCorpus {
 public:
  // A BPGN file, or a directory whose *.bpgn files are read in name order.
  static tl::expected<std::shared_ptr<const DemoMatchCorpus>, std::string> load(
      const std::filesystem::path& path);
  // ../shared/corpora/bughouse near the executable, or the installed data directory.
  static std::vector<std::filesystem::path> default_locations(const std::filesystem::path& executable);

  std::size_t size() const { return matches_.size(); }
  const rules::BughouseRecord& match(std::size_t i) const { return matches_[i % matches_.size()]; }
  const std::string& source() const { return source_; }

 private:
  std::vector<rules::BughouseRecord> matches_;
  std::string source_;
};

struct DemoMatchOptions {
  double speed = 1.0;            // thinking time is divided by this (the hands keep their pace)
  std::int64_t pause_ms = 5000;  // between the end of a match and the next
};

// One input of a demo match: a sensor event of a board, or the piece of an under-promotion named (FQE 11),
// times from the match's start.
struct DemoMatchInput {
  std::int64_t t = 0;
  int board = 0;
  std::optional<rules::SensorEvent> sensor;
  journal::ControlEntry naming;
};
// Both boards' simulated inputs for a match record, in time order. Deterministic for a seed.
std::vector<DemoMatchInput> plan_demo_match(const rules::BughouseRecord& rec, double speed,
                                            std::uint64_t seed);

std::unique_ptr<MatchFeed> make_demo_feed(boost::asio::io_context& io, MatchRuntime& match,
                                          std::shared_ptr<const DemoMatchCorpus> corpus,
                                          DemoMatchOptions options, std::function<std::int64_t()> clock);

}  // namespace eboard::eboardd
