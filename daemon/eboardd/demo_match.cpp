#include "daemon/eboardd/demo_match.hpp"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <boost/asio/steady_timer.hpp>

#include "daemon/sim/rng.hpp"
#include "daemon/sim/timeline.hpp"

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

namespace {

std::string tag_of(const PgnTags& tags, const char* name, const char* fallback = "?") {
  auto v = find_tag(tags, name);
  return v ? std::string(*v) : std::string(fallback);
}

// "120" → 120 s; "180+2" → 180 s (the increment is not simulated); anything else → 3 minutes.
std::int64_t base_time_ms(const PgnTags& tags) {
  std::string v = tag_of(tags, "TimeControl", "");
  v = v.substr(0, v.find('+'));
  if (v.empty() || v.size() > 6 ||
      !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 180000;
  return std::stoll(v) * 1000;
}

// The demo's clocks get two minutes more than the record's: simulated hands are slower than the online
// premoves the record's times came from. The TimeControl tag says what the clocks really had.
std::int64_t demo_clock_ms(std::int64_t record_base_ms) { return record_base_ms + 120000; }

using Item = DemoMatchInput;

struct Plan {
  std::vector<Item> items;  // in time order (board A first at equal times)
  std::int64_t end_ms = 0;
};

// Both boards' timelines: each board's moves timed from the record's clocks; the k-th drop of a piece
// waits for the capture that supplied it (the capturer's press), which in turn moves that board's later
// presses, so the timelines are rebuilt until the waits settle.
Plan plan_match(const BughouseRecord& rec, double speed, std::uint64_t seed) {
  struct Board {
    Position start;
    std::vector<Move> moves;
    std::vector<std::optional<std::int64_t>> clk;
    std::vector<int> supplier;  // per move: for a drop, the other board's move that supplied it (-1: none)
  };
  std::array<Board, 2> boards;
  std::array<Position, 2> pos = rec.start;
  std::map<std::tuple<int, int, int>, std::deque<int>> supply;  // (board, colour, type) → supplying moves
  for (int b = 0; b < 2; ++b) boards[std::size_t(b)].start = rec.start[std::size_t(b)];
  for (const auto& m : rec.moves) {
    Board& bd = boards[std::size_t(m.board)];
    const Position& p = pos[std::size_t(m.board)];
    int supplier = -1;
    if (m.move.is_drop()) {
      auto& q = supply[{m.board, int(p.side_to_move()), int(m.move.drop_type())}];
      if (!q.empty()) {
        supplier = q.front();
        q.pop_front();
      }
    } else if (p.is_capture(m.move)) {
      Square victim = m.move.kind() == Move::EN_PASSANT
                          ? Square(m.move.to() + (p.side_to_move() == WHITE ? -8 : 8))
                          : m.move.to();
      Piece v = p.piece_on(victim);
      supply[{m.board ^ 1, int(color_of(v)), int(p.captured_hand_type(victim))}].push_back(
          int(bd.moves.size()));
    }
    bd.moves.push_back(m.move);
    bd.clk.push_back(m.clock_ms);
    bd.supplier.push_back(supplier);
    play_bughouse_move(pos, m.board, m.move);
  }
  const std::int64_t base = base_time_ms(rec.tags);
  sim::HandStyle style = sim::HandStyle::casual();
  style.reaction_ms = 300;  // no premoves: a scanning board cannot see a reply begun at the press
  style.think_ms.min_ms = std::int64_t(double(style.think_ms.min_ms) / speed);
  style.think_ms.max_ms =
      std::max(style.think_ms.min_ms, std::int64_t(double(style.think_ms.max_ms) / speed));
  std::array<sim::Timeline, 2> tl;
  std::array<std::vector<std::optional<std::int64_t>>, 2> not_before;
  for (int b = 0; b < 2; ++b) not_before[std::size_t(b)].resize(boards[std::size_t(b)].moves.size());
  for (int round = 0; round < 200; ++round) {
    for (int b = 0; b < 2; ++b) {
      const Board& bd = boards[std::size_t(b)];
      sim::TimelineSpec spec;
      spec.start = bd.start;
      spec.moves = bd.moves;
      spec.spent_ms = sim::spent_from_clk(bd.clk, base, 0);
      for (auto& s : spec.spent_ms)
        if (s) *s = std::int64_t(double(*s) / speed);
      spec.not_before_ms = not_before[std::size_t(b)];
      spec.clock = sim::ClockSettings{demo_clock_ms(base), 0};
      spec.white = style;
      spec.black = style;
      spec.seed = sim::derive_seed(seed, std::uint64_t(b) + 1);
      tl[std::size_t(b)] = sim::build_timeline(spec);
    }
    bool changed = false;
    for (int b = 0; b < 2; ++b) {
      const Board& bd = boards[std::size_t(b)];
      for (std::size_t i = 0; i < bd.moves.size(); ++i) {
        if (bd.supplier[i] < 0) continue;
        std::int64_t want = tl[std::size_t(b ^ 1)].press_ms[std::size_t(bd.supplier[i])];
        if (not_before[std::size_t(b)][i] != want) {
          not_before[std::size_t(b)][i] = want;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  Plan out;
  for (int b = 0; b < 2; ++b) {
    for (const auto& e : tl[std::size_t(b)].events) out.items.push_back({e.t_ms, b, e, {}});
    out.end_ms = std::max(out.end_ms, tl[std::size_t(b)].end_ms);
    // An under-promotion's piece is named at the start of the promoting player's turn.
    const Board& bd = boards[std::size_t(b)];
    for (std::size_t i = 0; i < bd.moves.size(); ++i)
      if (bd.moves[i].is_promotion() && bd.moves[i].promotion_type() != QUEEN) {
        bool white = (bd.start.side_to_move() == WHITE) == (i % 2 == 0);
        std::int64_t t = i == 0 ? 0 : tl[std::size_t(b)].press_ms[i - 1];
        static const char* LETTERS = "??nbrq";
        out.items.push_back({t, b, std::nullopt,
                             journal::ControlEntry{0, "promotion", white ? "white" : "black",
                                                   std::string(1, LETTERS[bd.moves[i].promotion_type()])}});
      }
  }
  // Namings before the sensor events of their time (as the corpus test does).
  std::stable_sort(out.items.begin(), out.items.end(), [](const Item& x, const Item& y) {
    return std::make_tuple(x.t, x.sensor.has_value(), x.board) <
           std::make_tuple(y.t, y.sensor.has_value(), y.board);
  });
  return out;
}

class DemoMatchFeed : public MatchFeed {
 public:
  DemoMatchFeed(boost::asio::io_context& io, MatchRuntime& match,
                std::shared_ptr<const DemoMatchCorpus> corpus, DemoMatchOptions options,
                std::function<std::int64_t()> clock)
      : match_(match), corpus_(std::move(corpus)), options_(options), clock_(std::move(clock)), timer_(io) {
    if (!(options_.speed > 0)) options_.speed = 1.0;
  }
  ~DemoMatchFeed() override {
    stop();
    *alive_ = false;
  }

  void start() override {
    if (running_) return;
    running_ = true;
    plan();
    schedule();
  }
  void stop() override {
    running_ = false;
    timer_.cancel();
  }
  void new_match() override {
    next_match_at_.reset();
    if (!running_) return;
    plan();
    schedule();
  }
  std::string link(int) const override { return running_ ? "demo" : "stopped"; }
  nlohmann::json info(int) const override {
    return {{"corpus", corpus_->source()},
            {"match", label_},
            {"inputs_fed", next_},
            {"inputs", plan_.items.size()},
            {"speed", options_.speed}};
  }

 private:
  std::int64_t now() {
    last_t_ = std::max({last_t_, clock_(), match_.now_ms()});
    return last_t_;
  }

  void plan() {
    const int n = std::max(1, match_.number());
    const std::size_t index = std::size_t(n - 1) % corpus_->size();
    const BughouseRecord& rec = corpus_->match(index);
    const std::uint64_t seed = std::uint64_t(n) * 1000 + 7;
    try {
      plan_ = plan_match(rec, options_.speed, seed);
    } catch (const std::exception& e) {
      match_.boards()[0]->log(BoardSink::Level::error,
                              std::string("demo: cannot simulate the match: ") + e.what());
      plan_ = {};
    }
    char speed[32];
    std::snprintf(speed, sizeof speed, "%g", options_.speed);
    label_ =
        "corpus match " + std::to_string(index + 1) + ", seed " + std::to_string(seed) + ", speed " + speed;
    const std::string recorded = [&] {
      for (const auto& t : match_.boards()[0]->ledger().tags())
        if (t.name == "EboardDemo") return t.value;
      return std::string();
    }();
    const auto* r = match_.recovery();
    const std::size_t done = r ? r->inputs_since_start : 0;
    BoardRuntime& a = *match_.boards()[0];
    if (done > 0 && (recorded != label_ || done > plan_.items.size())) {
      a.log(BoardSink::Level::warning,
            "demo: the journaled match is not the demo's current match; starting a new one");
      (void)match_.new_match();  // → new_match() → plan() again, from the start
      return;
    }
    if (done > 0) {
      next_ = done;
      a.log(BoardSink::Level::info, "demo: resuming " + label_ + " at input " + std::to_string(next_) +
                                        " of " + std::to_string(plan_.items.size()));
      const std::int64_t at = now() + 500;
      origin_ = next_ < plan_.items.size() ? at - plan_.items[next_].t : at;
    } else {
      next_ = 0;
      origin_ = now() + 500;
      for (int b = 0; b < 2; ++b) {
        const char* white = b == 0 ? "WhiteA" : "WhiteB";
        const char* black = b == 0 ? "BlackA" : "BlackB";
        PgnTags tags{{"Event", "eboardd demo"},
                     {"Site", "eboardd --demo"},
                     {"Round", std::to_string(n)},
                     {"White", tag_of(rec.tags, white)},
                     {"Black", tag_of(rec.tags, black)},
                     {"TimeControl", std::to_string(demo_clock_ms(base_time_ms(rec.tags)) / 1000)}};
        if (b == 0) tags.push_back({"EboardDemo", label_});
        match_.boards()[std::size_t(b)]->set_tags(tags);
      }
      a.log(BoardSink::Level::info, "demo: playing " + label_ + ": " + tag_of(rec.tags, "WhiteA") + " & " +
                                        tag_of(rec.tags, "BlackB") + " vs " + tag_of(rec.tags, "BlackA") +
                                        " & " + tag_of(rec.tags, "WhiteB") + ", " +
                                        std::to_string(rec.moves.size()) + " moves");
    }
  }

  void wake() {
    if (!running_) return;
    const std::int64_t t = now();
    if (next_match_at_ && t >= *next_match_at_) {
      next_match_at_.reset();
      (void)match_.new_match();  // → new_match() → plan(), schedule()
      return;
    }
    while (next_ < plan_.items.size() && origin_ + plan_.items[next_].t <= t) {
      const Item& it = plan_.items[next_++];
      if (it.sensor) {
        SensorEvent e = *it.sensor;
        e.t_ms += origin_;
        match_.on_sensor(it.board, e);
      } else {
        journal::ControlEntry c = it.naming;
        c.t_ms = origin_ + it.t;
        (void)match_.control(it.board, c);
      }
      if (!running_) return;
    }
    if (next_ >= plan_.items.size() && !next_match_at_) next_match_at_ = t + options_.pause_ms;
    schedule();
  }

  void schedule() {
    if (!running_) return;
    std::optional<std::int64_t> at;
    if (next_ < plan_.items.size()) at = origin_ + plan_.items[next_].t;
    if (next_ >= plan_.items.size() && !next_match_at_) next_match_at_ = now() + options_.pause_ms;
    if (next_match_at_) at = at ? std::min(*at, *next_match_at_) : *next_match_at_;
    if (!at) return;
    timer_.expires_after(std::chrono::milliseconds(std::max<std::int64_t>(0, *at - clock_())));
    timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
      if (ec || alive.expired()) return;
      wake();
    });
  }

  MatchRuntime& match_;
  std::shared_ptr<const DemoMatchCorpus> corpus_;
  DemoMatchOptions options_;
  std::function<std::int64_t()> clock_;
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool running_ = false;
  Plan plan_;
  std::size_t next_ = 0;
  std::int64_t origin_ = 0;
  std::optional<std::int64_t> next_match_at_;
  std::string label_;
  std::int64_t last_t_ = 0;
};

}  // namespace

std::vector<DemoMatchInput> plan_demo_match(const BughouseRecord& rec, double speed, std::uint64_t seed) {
  return plan_match(rec, speed, seed).items;
}

tl::expected<std::shared_ptr<const DemoMatchCorpus>, std::string> DemoMatchCorpus::load(
    const fs::path& path) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.path().extension() == ".bpgn") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    return tl::unexpected("demo corpus " + path.string() + " does not exist");
  }
  auto corpus = std::make_shared<DemoMatchCorpus>();
  corpus->source_ = path.string();
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    auto games = read_bpgn(text.str());
    if (!games) continue;
    for (const auto& g : *games) {
      auto rec = replay_bughouse(g);
      if (rec && rec->moves.size() >= 20) corpus->matches_.push_back(std::move(*rec));
    }
  }
  if (corpus->matches_.empty())
    return tl::unexpected("demo corpus " + path.string() +
                          " holds no bughouse match (BPGN) of 20 moves or more");
  return std::shared_ptr<const DemoMatchCorpus>(std::move(corpus));
}

std::vector<fs::path> DemoMatchCorpus::default_locations(const fs::path& executable) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path exe = fs::weakly_canonical(executable, ec);
  if (ec) exe = executable;
  for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    out.push_back(dir / "shared" / "corpora" / "bughouse");
    if (dir == dir.parent_path()) break;
  }
  out.push_back(exe.parent_path().parent_path() / "share" / "eboardd" / "demo");
  return out;
}

std::unique_ptr<MatchFeed> make_demo_feed(boost::asio::io_context& io, MatchRuntime& match,
                                          std::shared_ptr<const DemoMatchCorpus> corpus,
                                          DemoMatchOptions options, std::function<std::int64_t()> clock) {
  return std::make_unique<DemoMatchFeed>(io, match, std::move(corpus), options, std::move(clock));
}

}  // namespace eboard::eboardd
