#include "daemon/eboardd/demo_source.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace eboard::eboardd {

namespace fs = std::filesystem;
using namespace eboard::rules;

namespace {

std::int64_t system_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// "180+2" → {180000, 2000}; anything else: a classical default.
std::pair<std::int64_t, std::int64_t> time_control(const GameRecord& g) {
  for (const auto& t : g.tags)
    if (t.name == "TimeControl") {
      const std::string& v = t.value;
      auto plus = v.find('+');
      std::string base = v.substr(0, plus), inc = plus == std::string::npos ? "0" : v.substr(plus + 1);
      auto digits = [](const std::string& s) {
        return !s.empty() && s.size() < 7 &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
      };
      if (digits(base) && digits(inc)) return {std::stoll(base) * 1000, std::stoll(inc) * 1000};
    }
  return {5400000, 30000};
}

std::string tag_or(const GameRecord& g, const char* name, const char* fallback) {
  for (const auto& t : g.tags)
    if (t.name == name) return t.value;
  return fallback;
}

}  // namespace

tl::expected<std::shared_ptr<const DemoCorpus>, std::string> DemoCorpus::load(const fs::path& path) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.path().extension() == ".pgn") files.push_back(e.path());
    std::sort(files.begin(), files.end());
  } else if (fs::exists(path, ec)) {
    files.push_back(path);
  } else {
    return tl::unexpected("demo corpus " + path.string() + " does not exist");
  }
  auto corpus = std::make_shared<DemoCorpus>();
  corpus->source_ = path.string();
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string content = text.str();  // the reader keeps a view of it
    PgnReader reader(content);
    while (auto g = reader.next()) {
      if (!*g) continue;
      auto rec = replay(**g);
      // Standard chess from the usual start, long enough to watch.
      if (!rec || rec->start.fen() != Position::start().fen() || rec->moves.size() < 20) continue;
      corpus->games_.push_back(std::move(*rec));
    }
  }
  if (corpus->games_.empty())
    return tl::unexpected("demo corpus " + path.string() + " holds no standard game of 20 plies or more");
  return std::shared_ptr<const DemoCorpus>(std::move(corpus));
}

std::vector<fs::path> DemoCorpus::default_locations(const fs::path& executable) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path exe = fs::weakly_canonical(executable, ec);
  if (ec) exe = executable;
  for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    out.push_back(dir / "shared" / "corpora" / "pgn" / "standard");
    if (dir == dir.parent_path()) break;
  }
  out.push_back(exe.parent_path().parent_path() / "share" / "eboardd" / "demo");
  return out;
}

const GameRecord& DemoCorpus::game(std::size_t i, std::size_t* index) const {
  std::size_t k = i % games_.size();
  if (index) *index = k;
  return games_[k];
}

DemoSource::DemoSource(boost::asio::io_context& io, BoardSink& sink, std::shared_ptr<const DemoCorpus> corpus,
                       journal::GameMachine machine, DemoOptions options, std::function<std::int64_t()> clock)
    : io_(io),
      sink_(sink),
      corpus_(std::move(corpus)),
      machine_(std::move(machine)),
      options_(options),
      clock_(clock ? std::move(clock) : system_unix_ms),
      timer_(io) {
  if (!(options_.speed > 0)) options_.speed = 1.0;
}

DemoSource::~DemoSource() {
  stop();
  *alive_ = false;
}

std::int64_t DemoSource::now() {
  last_t_ = std::max({last_t_, clock_(), machine_.last_t()});
  return last_t_;
}

void DemoSource::start() {
  if (running_) return;
  running_ = true;
  plan();
  schedule();
}

void DemoSource::stop() {
  running_ = false;
  timer_.cancel();
}

nlohmann::json DemoSource::info() const {
  return {{"corpus", corpus_->source()},       {"game", label_},          {"events_fed", next_},
          {"events", timeline_.events.size()}, {"speed", options_.speed}, {"corpus_index", corpus_index_}};
}

tl::expected<void, std::string> DemoSource::new_game(const journal::NewGameEntry& g) {
  if (auto ok = machine_.new_game(g); !ok) return ok;
  next_game_at_.reset();
  if (running_) {
    plan();
    schedule();
  }
  return {};
}

void DemoSource::plan() {
  const int n = std::max(1, sink_.game_number());
  const std::size_t wanted = std::size_t(n - 1) * 2 + options_.board_index;
  const GameRecord& g = corpus_->game(wanted, &corpus_index_);
  const std::uint64_t seed = std::uint64_t(n) * 1000 + options_.board_index + 1;

  sim::TimelineSpec spec;
  spec.start = g.start;
  auto [base, inc] = time_control(g);
  std::vector<std::optional<std::int64_t>> clk;
  for (const auto& m : g.moves) {
    spec.moves.push_back(m.move);
    clk.push_back(m.clock_ms);
  }
  spec.spent_ms = sim::spent_from_clk(clk, base, inc);
  for (auto& s : spec.spent_ms)
    if (s) *s = std::int64_t(double(*s) / options_.speed);
  // Hands need longer than a lichess premove: give the clock spare time so no flag falls for that.
  spec.clock = sim::ClockSettings{base + 300000, inc};
  // Thinking for moves without a [%clk] time comes from the style: faster too at a higher speed.
  sim::HandStyle style = sim::HandStyle::tidy();
  style.think_ms.min_ms = std::int64_t(double(style.think_ms.min_ms) / options_.speed);
  style.think_ms.max_ms = std::int64_t(double(style.think_ms.max_ms) / options_.speed);
  spec.white = style;
  spec.black = style;
  spec.seed = seed;
  spec.start_ms = 0;
  try {
    timeline_ = sim::build_timeline(spec);
  } catch (const std::exception& e) {
    sink_.log(BoardSink::Level::error, std::string("demo: cannot simulate the game: ") + e.what());
    timeline_ = {};
  }
  char speed[32];
  std::snprintf(speed, sizeof speed, "%g", options_.speed);
  label_ = "corpus game " + std::to_string(corpus_index_ + 1) + ", seed " + std::to_string(seed) +
           ", speed " + speed;

  const std::string* recorded = nullptr;
  for (const auto& t : sink_.tags())
    if (t.name == "EboardDemo") recorded = &t.value;
  bool resumable = machine_.sensor_events() > 0 && recorded && *recorded == label_ &&
                   machine_.sensor_events() <= timeline_.events.size();
  if (resumable) {
    const auto& plies = machine_.game().plies();
    for (std::size_t i = 0; i < plies.size() && resumable; ++i)
      resumable = i < spec.moves.size() && plies[i].move == spec.moves[i];
  }
  if (machine_.sensor_events() > 0 && !resumable) {
    // The journal's game is not this timeline's (another corpus, speed, or version): start afresh.
    sink_.log(BoardSink::Level::warning,
              "demo: the journaled game is not the demo's current game; starting a new one");
    sink_.request_new_game();  // → new_game() → plan() again, from the start
    return;
  }
  if (resumable) {
    next_ = machine_.sensor_events();
    sink_.log(BoardSink::Level::info, "demo: resuming " + label_ + " at ply " +
                                          std::to_string(machine_.game().ply_count()) + " (sensor event " +
                                          std::to_string(next_) + " of " +
                                          std::to_string(timeline_.events.size()) + ")");
    std::int64_t at = now() + 500;
    origin_ = next_ < timeline_.events.size() ? at - timeline_.events[next_].t_ms : at;
  } else {
    next_ = 0;
    origin_ = now() + 500;
    PgnTags tags{{"Event", "eboardd demo"},
                 {"Site", "eboardd --demo"},
                 {"Round", std::to_string(n)},
                 {"White", tag_or(g, "White", "?")},
                 {"Black", tag_or(g, "Black", "?")},
                 {"TimeControl", tag_or(g, "TimeControl", "-")},
                 {"EboardDemo", label_}};
    sink_.set_tags(tags);
    sink_.log(BoardSink::Level::info, "demo: playing " + label_ + ": " + tag_or(g, "White", "?") + " - " +
                                          tag_or(g, "Black", "?") + ", " + std::to_string(spec.moves.size()) +
                                          " plies");
  }
  if (next_ >= timeline_.events.size()) next_game_at_ = now() + options_.pause_ms;
}

void DemoSource::wake() {
  if (!running_) return;
  const std::int64_t t = now();
  if (next_game_at_ && t >= *next_game_at_) {
    next_game_at_.reset();
    sink_.request_new_game();  // → new_game() → plan(), schedule()
    return;
  }
  while (next_ < timeline_.events.size() && origin_ + timeline_.events[next_].t_ms <= t) {
    rules::SensorEvent e = timeline_.events[next_++];
    e.t_ms += origin_;
    sink_.sensor(e);
    sink_.events(machine_.on_sensor(e));
    if (!running_) return;
  }
  if (auto evs = machine_.advance(t); !evs.empty()) {
    sink_.tick(t);
    sink_.events(evs);
  }
  if (next_ >= timeline_.events.size() && !next_game_at_) next_game_at_ = t + options_.pause_ms;
  schedule();
}

void DemoSource::schedule() {
  if (!running_) return;
  std::optional<std::int64_t> at = machine_.next_deadline();
  auto earliest = [&at](std::int64_t x) { at = at ? std::min(*at, x) : x; };
  if (next_ < timeline_.events.size()) earliest(origin_ + timeline_.events[next_].t_ms);
  if (next_game_at_) earliest(*next_game_at_);
  if (!at) return;
  timer_.expires_after(std::chrono::milliseconds(std::max<std::int64_t>(0, *at - clock_())));
  timer_.async_wait([this, alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& ec) {
    if (ec || alive.expired()) return;
    wake();
  });
}

}  // namespace eboard::eboardd
