// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// `eboardctl sim`: an emulated board on a pseudo-terminal, playing a game file (through simulated hands, a
// scanning board and, where the make has one, a clock) or a recorded capture, in real time or faster. The
// makes it plays are the protocol rows with an emulator (board_protocol.hpp, `--protocol`), and what each
// emulator can do (captures, unplugging, a board turned round, automatic reports) is the row's to say; a
// bus line of N boards (`--bus`) is played by a row with a bus dialect. It prints the device path to open
// as the first line on stdout; the daemon (or anything speaking the protocol) opens it like a board.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "daemon/session/board_emulator.hpp"
#include "daemon/session/board_protocol.hpp"
#include "daemon/session/bus_hub.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "daemon/sim/hand.hpp"
#include "daemon/sim/timeline.hpp"
#include "daemon/tools/checks.hpp"
#include "daemon/tools/commands.hpp"
#include "drivers/capture.hpp"
#include "rules/pgn.hpp"

namespace eboard::tools {
namespace {

namespace fs = std::filesystem;

// Seconds options become int64 milliseconds added to the game's time: a cap of about 11 days (longer than
// any game) keeps those sums far from overflow, and finite_range also refuses NaN and infinity.
constexpr double MAX_SECONDS = 1e6;

struct Options {
  std::string capture;
  std::string pgn;
  int game = 1;
  std::string style = "casual";
  std::uint64_t seed = 1;
  std::string timing = "game";
  double speed = 1.0;
  std::string link;
  std::optional<double> linger_s;
  std::vector<double> reopen_at_s;
  std::int64_t reopen_gap_ms = 1000;
  bool start_now = false;
  bool rotated = false;
  bool no_clock = false;
  double clock_margin_s = 120;
  int plies = 0;  // play only this many plies of the game (0: all)
  int bus = 0;    // N boards in bus mode on the one pty (0: one board in single mode)
  int baud = session::BusHub::kDefaultBaud;  // the bus line's pace (0: as fast as the pty goes)
  std::int64_t start_ms = 0;                 // game time at which the clocks start (set for --bus)
  std::vector<std::string> mutes;            // "K:AT_S:FOR_S"
  bool print_presses = false;
  bool print_plies = false;  // single mode: each ply's hand times on stderr before play
  std::string protocol = "dgt";
  std::string reports;                   // automatic reports at power-up (empty: the emulator's first mode)
  std::vector<double> reports_off_at_s;  // another program turns the reports off then
};

// The rows sim can play, and what their emulators can do.
bool has_emulator(const session::BoardProtocol& p) { return p.emulator != nullptr; }
bool plays_captures(const session::BoardProtocol& p) { return p.emulator && p.emulator->plays_captures; }
bool replugs(const session::BoardProtocol& p) { return p.emulator && p.emulator->replugs; }
bool rotates(const session::BoardProtocol& p) { return p.emulator && p.emulator->rotates; }
bool has_reports(const session::BoardProtocol& p) { return p.emulator && !p.emulator->report_modes.empty(); }
bool plays_a_bus(const session::BoardProtocol& p) { return p.emulator && !p.bus_dialect.empty(); }

// The row `--protocol` names, when sim can play it.
const session::BoardProtocol* emulated_row(const std::string& name) {
  const session::BoardProtocol* p = session::find_protocol(name);
  return p && p->emulator ? p : nullptr;
}

void note(const std::string& text) { std::fprintf(stderr, "eboardctl sim: %s\n", text.c_str()); }

int fail(const std::string& text) {
  std::fprintf(stderr, "eboardctl sim: %s\n", text.c_str());
  return 2;
}

std::string seconds(std::int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(ms) / 1000.0);
  return buf;
}

std::optional<sim::HandStyle> style_by_name(const std::string& name) {
  if (name == "tidy") return sim::HandStyle::tidy();
  if (name == "casual") return sim::HandStyle::casual();
  if (name == "blitz") return sim::HandStyle::blitz();
  if (name == "messy") return sim::HandStyle::messy();
  return std::nullopt;
}

// "180+2" gives {180000, 2000}; nullopt for anything else ("-", "?", "40/7200:3600" ...).
std::optional<std::pair<std::int64_t, std::int64_t>> time_control(const rules::GameRecord& g) {
  const auto tc = rules::find_tag(g.tags, "TimeControl");
  if (!tc) return std::nullopt;
  const std::string v(*tc);
  const auto plus = v.find('+');
  try {
    std::size_t used = 0;
    const std::string base = v.substr(0, plus);
    const long long b = std::stoll(base, &used);
    if (used != base.size() || b <= 0) return std::nullopt;
    long long inc = 0;
    if (plus != std::string::npos) {
      const std::string i = v.substr(plus + 1);
      inc = std::stoll(i, &used);
      if (used != i.size() || inc < 0) return std::nullopt;
    }
    return std::pair<std::int64_t, std::int64_t>{b * 1000, inc * 1000};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

struct Plan {
  session::BoardScript script;
  std::vector<std::int64_t> press_ms;  // per ply, when the board reads its clock press (games only)
  // Per ply (games only), game ms: the hand's first touch, its last placement before the press, the press.
  struct PlyTimes {
    std::int64_t touch_ms = -1, set_ms = -1, press_ms = -1;
  };
  std::vector<PlyTimes> plies;
  std::optional<drivers::Capture> capture;  // played: the board only answers, and is preset from it
  std::string summary;
};

tl::expected<Plan, std::string> plan_capture(const Options& o) {
  auto text = read_input_file(o.capture);
  if (!text) return tl::unexpected(text.error());
  auto capture = drivers::parse_capture(*text);
  if (!capture) return tl::unexpected(o.capture + ": " + capture.error());
  if (capture->info.protocol != o.protocol) {
    return tl::unexpected(o.capture + ": protocol '" + capture->info.protocol + "' cannot be played (only " +
                          session::protocol_names(plays_captures) + ")");
  }
  Plan plan;
  plan.script = session::script_from_capture(*capture);
  if (plan.script.empty()) return tl::unexpected(o.capture + ": the capture holds nothing the board sent");
  plan.capture = std::move(*capture);
  plan.summary = "capture " + o.capture + ": " + std::to_string(plan.script.size()) + " records over " +
                 seconds(plan.script.back().t_ms);
  return plan;
}

tl::expected<Plan, std::string> plan_game(const Options& o) {
  const auto style = style_by_name(o.style);
  if (!style) return tl::unexpected("unknown style '" + o.style + "' (tidy, casual, blitz or messy)");
  auto text = read_input_file(o.pgn);
  if (!text) return tl::unexpected(text.error());
  const std::string content = std::move(*text);
  rules::PgnReader reader(content);
  int index = 0;
  std::optional<rules::PgnGame> game;
  while (auto next = reader.next()) {
    ++index;
    if (index != o.game) continue;
    if (!*next) return tl::unexpected(o.pgn + ": " + next->error());
    game = std::move(**next);
    break;
  }
  if (!game) {
    return tl::unexpected(o.pgn + ": there is no game " + std::to_string(o.game) + " (the file holds " +
                          std::to_string(index) + ")");
  }
  auto record = rules::replay(*game);
  if (!record) return tl::unexpected(o.pgn + ": " + record.error());
  if (record->moves.empty())
    return tl::unexpected(o.pgn + ": game " + std::to_string(o.game) + " has no moves");
  if (o.plies > 0 && record->moves.size() > std::size_t(o.plies)) {
    record->moves.resize(std::size_t(o.plies));
    record->result = "*";
  }

  sim::TimelineSpec spec;
  spec.start = record->start;
  for (const auto& m : record->moves) {
    if (m.move == rules::Move::none()) {
      return tl::unexpected(o.pgn + ": game " + std::to_string(o.game) +
                            " has a null move, which no hand can play");
    }
    spec.moves.push_back(m.move);
  }
  const auto tc = time_control(*record);
  const std::int64_t base = tc ? tc->first : 15 * 60 * 1000;
  const std::int64_t inc = tc ? tc->second : 10 * 1000;
  const bool from_clk =
      o.timing == "game" && std::any_of(record->moves.begin(), record->moves.end(),
                                        [](const auto& m) { return m.clock_ms.has_value(); });
  if (from_clk) {
    std::vector<std::optional<std::int64_t>> clk;
    for (const auto& m : record->moves) clk.push_back(m.clock_ms);
    spec.spent_ms = sim::spent_from_clk(clk, base, inc);
  }
  spec.white = *style;
  spec.black = *style;
  spec.seed = o.seed;
  spec.start_ms = o.start_ms;
  if (o.rotated) spec.scanner.order = sim::ScanOrder::FromH1;
  const session::BoardProtocol* row = session::find_protocol(o.protocol);
  if (o.no_clock || !row || !row->has_clock) {
    spec.clock.reset();
  } else {
    // Hands cannot premove: the margin keeps a flag from falling where the real game's did not.
    spec.clock = sim::ClockSettings{base + static_cast<std::int64_t>(o.clock_margin_s * 1000), inc};
  }
  sim::Timeline timeline;
  try {
    timeline = sim::build_timeline(spec);
  } catch (const std::exception& e) {
    return tl::unexpected(o.pgn + ": game " + std::to_string(o.game) + " cannot be played: " + e.what());
  }
  Plan plan;
  plan.script = session::script_from_events(timeline.events);
  // A game that starts later (a bus line's, once the line can have read every board) is played on a board
  // that stands set up from the start, as a hall's boards stand set up before the round: only the clock
  // starts at `start_ms`. (Set up in that instant, every board of the line would report the position's 32
  // pieces at once, with the first moves.)
  if (spec.start_ms > 0 && !timeline.events.empty() &&
      std::holds_alternative<rules::BoardSnapshot>(timeline.events.front().what)) {
    rules::SensorEvent setup = timeline.events.front();
    setup.t_ms = 0;
    plan.script.insert(plan.script.begin(), session::ScriptItem{0, setup});
  }
  // When the board learns of each press: the first clock reading after it with the lever moved over (the
  // board reads its clock between scans, up to one scan after the hand pressed).
  {
    std::optional<rules::ClockSide> lever;
    std::size_t next_press = 0;
    for (const auto& e : timeline.events) {
      const auto* r = std::get_if<rules::ClockReading>(&e.what);
      if (!r) continue;
      const bool moved = lever && *lever != r->lever_up;
      lever = r->lever_up;
      if (moved && next_press < timeline.press_ms.size() && e.t_ms >= timeline.press_ms[next_press]) {
        plan.press_ms.push_back(e.t_ms);
        ++next_press;
      }
    }
  }
  {
    Plan::PlyTimes ply;
    for (const auto& a : timeline.actions) {
      if (std::holds_alternative<sim::PressClock>(a.what)) {
        ply.press_ms = a.t_ms;
        plan.plies.push_back(ply);
        ply = {};
      } else {
        if (ply.touch_ms < 0) ply.touch_ms = a.t_ms;
        if (std::holds_alternative<sim::Place>(a.what)) ply.set_ms = a.t_ms;
      }
    }
  }
  const auto tag = [&](const char* name) {
    const auto v = rules::find_tag(record->tags, name);
    return v ? std::string(*v) : std::string("?");
  };
  plan.summary = "game " + std::to_string(o.game) + " of " + o.pgn + ": " + tag("White") + " - " +
                 tag("Black") + " " + record->result + ", " + std::to_string(spec.moves.size()) +
                 " plies, style " + o.style + ", seed " + std::to_string(o.seed) + ", timing from " +
                 (from_clk ? "the game's clocks" : "the style") + ", game length " + seconds(timeline.end_ms);
  return plan;
}

struct Runtime {
  boost::asio::io_context io;
  std::unique_ptr<session::BoardPlayer> player;
  fs::path link;
  fs::path own_dir;  // created by us: removed at exit
  bool exiting = false;

  void plug() {
    auto pty = session::open_pseudo_terminal();
    if (!pty) {
      note("cannot plug the board in again: " + pty.error());
      return;
    }
    if (auto ok = session::point_symlink(link, pty->slave_path); !ok) note(ok.error());
    player->attach(pty->master_fd);
    player->power_cycle();
    note("plugged in again at " + seconds(player->now_ms()) + ": " + pty->slave_path + " behind " +
         link.string());
  }

  // Unplugs the board, planned for `planned_ms`, and plugs it in again at `back_ms` (game time): a plan of
  // the hands keeps its window even where a loaded machine ran the unplug late (at once if it ran later).
  void unplug(std::int64_t planned_ms, std::int64_t back_ms) {
    player->detach();  // closes the master: the host reads end of file
    std::error_code ec;
    fs::remove(link, ec);
    const std::int64_t now = player->now_ms();
    note("unplugged at " + seconds(now) +
         (now > planned_ms ? " (planned for " + seconds(planned_ms) + ")" : "") + "; back in " +
         std::to_string(std::max<std::int64_t>(0, back_ms - now)) + " ms");
    player->at(std::max(now, back_ms), [this] { plug(); });
  }

  void finish() {
    if (exiting) return;
    exiting = true;
    player->stop();
    io.stop();
  }

  ~Runtime() {
    std::error_code ec;
    if (!link.empty() && fs::is_symlink(fs::symlink_status(link, ec))) fs::remove(link, ec);
    if (!own_dir.empty()) fs::remove(own_dir, ec);
  }
};

// The board's pseudo-terminal behind its symlink (--link, or `default_name` in a folder of our own that
// exit removes); prints the symlink's path, alone on the first line of stdout, at once: the contract.
tl::expected<session::PseudoTerminal, std::string> open_device(Runtime& rt, const Options& o,
                                                               const std::string& default_name) {
  if (o.link.empty()) {
    rt.own_dir = fs::temp_directory_path() / ("eboard-sim-" + std::to_string(::getpid()));
    std::error_code ec;
    fs::create_directory(rt.own_dir, ec);
    if (ec) return tl::unexpected("cannot create " + rt.own_dir.string() + ": " + ec.message());
    rt.link = rt.own_dir / default_name;
  } else {
    rt.link = fs::absolute(o.link);
    std::error_code ec;
    const auto st = fs::symlink_status(rt.link, ec);
    if (fs::exists(st) && !fs::is_symlink(st))
      return tl::unexpected(rt.link.string() + " exists and is not a symlink: not replacing it");
    if (!fs::is_directory(rt.link.parent_path(), ec))
      return tl::unexpected("the directory of " + rt.link.string() + " does not exist");
  }
  auto pty = session::open_pseudo_terminal();
  if (!pty) return tl::unexpected(pty.error());
  if (auto ok = session::point_symlink(rt.link, pty->slave_path); !ok) {
    ::close(pty->master_fd);
    return tl::unexpected(ok.error());
  }
  std::printf("%s\n", rt.link.string().c_str());
  std::fflush(stdout);
  return pty;
}

int run(const Options& o) {
  if (o.capture.empty() == o.pgn.empty()) return fail("give either --pgn FILE or --capture FILE");
  const session::BoardProtocol* row = emulated_row(o.protocol);
  if (!row)
    return fail("no emulator plays " + o.protocol + " boards (sim plays " +
                session::protocol_names(has_emulator) + ")");
  const session::BoardEmulator& emulator = *row->emulator;
  if (!o.capture.empty() && !emulator.plays_captures)
    return fail("--protocol " + o.protocol + " plays game files only (--pgn), not captures");
  if (!o.reopen_at_s.empty() && !emulator.replugs)
    return fail("--reopen-at is for " + session::protocol_names(replugs) + " boards only");
  if (o.rotated && !emulator.rotates)
    return fail("--rotated is for " + session::protocol_names(rotates) + " boards only");
  const auto& modes = emulator.report_modes;
  if (!o.reports_off_at_s.empty() && modes.empty())
    return fail("--reports-off-at is for " + session::protocol_names(has_reports) + " boards only");
  if (!o.reports.empty() && !modes.empty() && std::find(modes.begin(), modes.end(), o.reports) == modes.end())
    return fail("--reports " + o.reports + " is not a report mode of " + o.protocol + " boards");
  auto plan = o.capture.empty() ? plan_game(o) : plan_capture(o);
  if (!plan) return fail(plan.error());
  if (o.print_plies) {
    for (std::size_t i = 0; i < plan->plies.size(); ++i) {
      const auto& p = plan->plies[i];
      std::fprintf(stderr, "ply %zu %lld %lld %lld\n", i + 1, static_cast<long long>(p.touch_ms),
                   static_cast<long long>(p.set_ms), static_cast<long long>(p.press_ms));
    }
  }

  Runtime rt;
  auto pty = open_device(rt, o, o.protocol);
  if (!pty) return fail(pty.error());

  session::PlayerConfig pc;
  pc.speed = o.speed;
  pc.wait_for_host = !o.start_now;
  session::EmulatorSetup setup;
  setup.rotated = o.rotated;
  setup.capture = plan->capture ? &*plan->capture : nullptr;
  const std::string reports = o.reports.empty() && !modes.empty() ? std::string(modes.front()) : o.reports;
  setup.reports = reports;
  std::unique_ptr<session::EmulatedBoard> made = emulator.make(setup);
  session::EmulatedBoard* board = made.get();  // the player owns it from here on
  rt.player = std::make_unique<session::BoardPlayer>(rt.io, std::move(made), std::move(plan->script), pc);
  rt.player->attach(pty->master_fd);
  note(plan->summary);
  char speed[32];
  std::snprintf(speed, sizeof speed, "%gx", o.speed);
  note(std::string(emulator.summary) + " on " + pty->slave_path + " (open " + rt.link.string() + "; " +
       std::string(emulator.wire) + (modes.empty() ? "" : "; reports " + reports + " at power-up") + "), " +
       speed + " real time");
  for (double s : o.reports_off_at_s) {
    rt.player->at(static_cast<std::int64_t>(s * 1000), [board, s] {
      board->turn_reports_off();
      note("another program turned the board's automatic reports off at " +
           seconds(static_cast<std::int64_t>(s * 1000)));
    });
  }
  rt.player->on_started = [&o] {
    if (!o.start_now) note("a program opened the board and spoke: the game starts");
  };
  rt.player->on_script_end = [&rt, &o, board] {
    if (const std::string account = board->account(); !account.empty()) note(account);
    if (o.linger_s) {
      note("the end of the script at " + seconds(rt.player->now_ms()) + "; staying for " +
           seconds(static_cast<std::int64_t>(*o.linger_s * 1000)));
      rt.player->at(rt.player->now_ms() + static_cast<std::int64_t>(*o.linger_s * 1000),
                    [&rt] { rt.finish(); });
    } else {
      note("the end of the script at " + seconds(rt.player->now_ms()) + "; the board stays until Ctrl-C");
    }
  };
  for (double s : o.reopen_at_s) {
    const auto at_ms = static_cast<std::int64_t>(s * 1000);
    rt.player->at(at_ms, [&rt, at_ms, back = at_ms + o.reopen_gap_ms] { rt.unplug(at_ms, back); });
  }

  boost::asio::signal_set signals(rt.io, SIGINT, SIGTERM);
  signals.async_wait([&rt](const boost::system::error_code& ec, int) {
    if (!ec) rt.finish();
  });
  if (!o.start_now) note("waiting for a program to open the board: the game starts with its first command");
  rt.player->start();
  rt.io.run();
  return 0;
}

// --- A bus of N boards on one pty -----------------------------------------------------------------

struct Mute {
  std::size_t board = 0;
  std::int64_t at_ms = 0;
  std::int64_t for_ms = 0;
};

tl::expected<Mute, std::string> parse_mute(const std::string& text, int boards) {
  const auto bad = [&] {
    return tl::unexpected("--mute " + text + ": expected K:AT_S:FOR_S (board 0.." +
                          std::to_string(boards - 1) + ", seconds into its game, seconds muted)");
  };
  const auto c1 = text.find(':');
  const auto c2 = c1 == std::string::npos ? std::string::npos : text.find(':', c1 + 1);
  if (c2 == std::string::npos) return bad();
  try {
    std::size_t used = 0;
    const std::string k = text.substr(0, c1), at = text.substr(c1 + 1, c2 - c1 - 1),
                      len = text.substr(c2 + 1);
    const int board = std::stoi(k, &used);
    if (used != k.size() || board < 0 || board >= boards) return bad();
    const double at_s = std::stod(at, &used);
    if (used != at.size() || !(at_s >= 0 && at_s <= MAX_SECONDS)) return bad();
    const double for_s = std::stod(len, &used);
    if (used != len.size() || !(for_s > 0 && for_s <= MAX_SECONDS)) return bad();
    return Mute{std::size_t(board), static_cast<std::int64_t>(at_s * 1000),
                static_cast<std::int64_t>(for_s * 1000)};
  } catch (const std::exception&) {
    return bad();
  }
}

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int run_bus(const Options& o) {
  if (o.pgn.empty()) return fail("--bus plays games: give --pgn FILE");
  const session::BoardProtocol* row = emulated_row(o.protocol);
  if (!row || row->bus_dialect.empty())
    return fail("--bus plays a bus line of " + session::protocol_names(plays_a_bus) +
                " boards: it takes no --protocol " + o.protocol);
  if (!o.capture.empty() || !o.reopen_at_s.empty())
    return fail("--bus takes neither --capture nor --reopen-at");
  std::vector<Mute> mutes;
  for (const auto& m : o.mutes) {
    auto parsed = parse_mute(m, o.bus);
    if (!parsed) return fail(parsed.error());
    mutes.push_back(*parsed);
  }
  // The games begin once the line can have read every board (its history, a dump and its clock: about
  // 180 bytes a board; 250 counted for the exchanges' own delays), as in a hall where the boards stand set up
  // before the round starts.
  const std::int64_t read_line_ms = o.baud > 0 ? std::int64_t(o.bus) * 250 * 10 * 1000 / o.baud + 2000 : 0;
  std::vector<Plan> plans;
  for (int k = 0; k < o.bus; ++k) {
    Options ok = o;
    ok.start_ms = static_cast<std::int64_t>(static_cast<double>(read_line_ms) * o.speed);
    ok.game = o.game + k;
    ok.seed = o.seed + std::uint64_t(k);
    auto plan = plan_game(ok);
    if (!plan) return fail("board " + std::to_string(k) + ": " + plan.error());
    plans.push_back(std::move(*plan));
  }

  Runtime rt;
  auto pty = open_device(rt, o, std::string(row->bus_dialect));
  if (!pty) return fail(pty.error());

  session::BusHub hub(rt.io, *row->bus_framing, plans.size(), o.seed, 1000, o.baud);
  if (!hub.ok()) return fail("cannot make the bus's socket pairs");
  hub.on_collision = [&hub](const std::string& what) {
    note("collision " + std::to_string(hub.stats().collisions) + " on the line: " + what);
  };
  hub.attach_host(pty->master_fd);
  std::vector<std::unique_ptr<session::BoardPlayer>> players;
  std::size_t ended = 0;
  bool exiting = false;
  const auto finish = [&] {
    if (exiting) return;
    exiting = true;
    for (auto& p : players) p->stop();
    hub.stop();
    rt.io.stop();
  };
  session::PlayerConfig pc;
  pc.speed = o.speed;
  pc.wait_for_host = !o.start_now;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    Plan& plan = plans[k];
    const std::uint16_t address = std::uint16_t(1025 + k);
    note("bus address " + std::to_string(address) + ": " + plan.summary);
    session::EmulatorSetup setup;
    setup.rotated = o.rotated;
    setup.bus_address = address;
    auto player =
        std::make_unique<session::BoardPlayer>(rt.io, row->emulator->make(setup), std::move(plan.script), pc);
    player->attach(hub.take_board_fd(k));
    session::BoardPlayer* p = player.get();
    if (o.print_presses) {
      for (std::size_t i = 0; i < plan.press_ms.size(); ++i)
        p->at(plan.press_ms[i], [address, ply = i + 1] {
          std::printf("press %u %zu %lld\n", unsigned(address), ply, static_cast<long long>(unix_ms()));
          std::fflush(stdout);
        });
    }
    for (const Mute& m : mutes) {
      if (m.board != k) continue;
      p->at(m.at_ms, [&hub, k, p, m] {
        hub.mute(k, true);
        note("board " + std::to_string(k) + " muted at " + seconds(p->now_ms()) + " for " +
             seconds(m.for_ms));
      });
      p->at(m.at_ms + m.for_ms, [&hub, k, p] {
        hub.mute(k, false);
        note("board " + std::to_string(k) + " answers again at " + seconds(p->now_ms()));
      });
    }
    p->on_script_end = [&, p] {
      if (++ended < plans.size()) return;
      if (o.linger_s) {
        note("every game's script is over; staying for " +
             seconds(static_cast<std::int64_t>(*o.linger_s * 1000)));
        p->at(p->now_ms() + static_cast<std::int64_t>(*o.linger_s * 1000), [&] { finish(); });
      } else {
        note("every game's script is over; the boards stay until Ctrl-C");
      }
    };
    players.push_back(std::move(player));
  }
  char speed[32];
  std::snprintf(speed, sizeof speed, "%gx", o.speed);
  note(std::to_string(plans.size()) + " boards in bus mode on " + pty->slave_path + " (open " +
       rt.link.string() + "), addresses 1025.." + std::to_string(1024 + plans.size()) + ", " + speed +
       " real time, " + (o.baud > 0 ? std::to_string(o.baud) + " baud" : std::string("unpaced")));
  boost::asio::signal_set signals(rt.io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (!ec) finish();
  });
  hub.start();
  for (auto& p : players) p->start();
  rt.io.run();
  note("the line carried " + std::to_string(hub.stats().frames_to_host) + " frames; " +
       std::to_string(hub.stats().collisions) + " collisions; " + std::to_string(hub.stats().late_frames) +
       " frames later than a real board answers (" + std::to_string(hub.stats().late_overlaps) +
       " written over); the process stalled " + std::to_string(hub.stats().stalls) + " times");
  return hub.stats().collisions > 0 ? 3 : 0;
}

// "dgt: a DGT board and its clock; millennium: ...": the rows sim plays, for --help.
std::string emulated_makes(std::string_view (*what)(const session::BoardEmulator&)) {
  std::string out;
  for (const auto& p : session::board_protocols())
    if (p.emulator)
      out += (out.empty() ? "" : "; ") + std::string(p.name) + ": " + std::string(what(*p.emulator));
  return out;
}

std::vector<std::string> emulated_names() {
  std::vector<std::string> out;
  for (const auto& p : session::board_protocols())
    if (p.emulator) out.emplace_back(p.name);
  return out;
}

// Every report mode of the emulators that have them, the first of each marked as its default.
std::string report_modes() {
  std::string out;
  for (const auto& p : session::board_protocols()) {
    if (!has_reports(p)) continue;
    out += (out.empty() ? "" : "; ") + std::string(p.name) + ":";
    for (std::size_t i = 0; i < p.emulator->report_modes.size(); ++i)
      out += (i ? ", " : " ") + std::string(p.emulator->report_modes[i]) + (i ? "" : " (default)");
  }
  return out;
}

std::vector<std::string> report_mode_names() {
  std::vector<std::string> out;
  for (const auto& p : session::board_protocols())
    if (has_reports(p))
      for (auto m : p.emulator->report_modes)
        if (std::find(out.begin(), out.end(), m) == out.end()) out.emplace_back(m);
  return out;
}

}  // namespace

void add_sim_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sim",
      "Play a board on a pseudo-terminal, from a game file or a capture (--protocol " +
          emulated_makes([](const session::BoardEmulator& e) { return e.summary; }) +
          "), or a bus line of N boards (--bus: " + session::protocol_names(plays_a_bus) +
          "). The first line on stdout is the device path to open (a symlink that stays valid across "
          "--reopen-at); everything else goes to stderr. Times are on the game's clock: with --speed X they "
          "pass X times faster than real time.");
  auto* pgn =
      cmd->add_option("--pgn", o->pgn,
                      "play a game of this PGN file: simulated hands move the pieces (a scanning board "
                      "reports them) and press its clock, where the board has one")
          ->check(CLI::ExistingFile);
  auto* capture =
      cmd->add_option("--capture", o->capture,
                      "replay the board's side ('<' records) of this .cap capture of --protocol's make (" +
                          session::protocol_names(plays_captures) +
                          ") at its times; the emulated board still answers commands (a DGT 0x42 gets the "
                          "board as it stands)")
          ->check(CLI::ExistingFile);
  pgn->excludes(capture);
  capture->excludes(pgn);
  cmd->add_option("--game", o->game, "which game of the PGN file, from 1 (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--style", o->style, "how the hands play: tidy, casual (default), blitz or messy")
      ->check(CLI::IsMember({"tidy", "casual", "blitz", "messy"}));
  cmd->add_option("--seed", o->seed, "seed of the hands, the scanner and the clock (default 1)");
  cmd->add_option("--timing", o->timing,
                  "game: each move takes the time its [%clk] comments say, when the game has them (default); "
                  "style: the hands' style decides")
      ->check(CLI::IsMember({"game", "style"}));
  cmd->add_option("--clock-margin", o->clock_margin_s,
                  "seconds added to each player's base time, because hands cannot premove (default 120)")
      ->check(finite_range(0, MAX_SECONDS));
  cmd->add_flag("--no-clock", o->no_clock, "no clock connected to the board");
  cmd->add_option("--protocol", o->protocol,
                  "the board's make (default dgt): " +
                      emulated_makes([](const session::BoardEmulator& e) { return e.summary; }))
      ->check(CLI::IsMember(emulated_names()));
  cmd->add_option("--reports", o->reports,
                  "a board with automatic reports (" + session::protocol_names(has_reports) +
                      "): its reports at power-up, a setting that survives power-off (" + report_modes() +
                      "; the default as the board leaves the factory); off: left so by another program, so "
                      "that only a host that writes the setting hears the board by itself")
      ->check(CLI::IsMember(report_mode_names()));
  cmd->add_option("--reports-off-at", o->reports_off_at_s,
                  "a board with automatic reports (" + session::protocol_names(has_reports) +
                      "): seconds of game time at which another program turns them off (repeatable); a host "
                      "must notice the silence and set them again")
      ->check(finite_range(0, MAX_SECONDS));
  cmd->add_flag("--rotated", o->rotated,
                "the board is set up turned round (Black at the connector side; " +
                    session::protocol_names(rotates) + ")");
  cmd->add_option("--speed", o->speed, "how many times faster than real time (default 1)")
      ->check(finite_range(1e-3, 1e6));
  cmd->add_option(
      "--link", o->link,
      "path of the symlink to the device (default /tmp/eboard-sim-<pid>/<protocol>); an existing symlink "
      "is replaced, anything else is refused");
  cmd->add_option("--linger", o->linger_s,
                  "exit this many seconds after the end of the game or capture (default: stay until Ctrl-C)")
      ->check(finite_range(0, MAX_SECONDS));
  cmd->add_option(
         "--reopen-at", o->reopen_at_s,
         "at this many seconds into the game, unplug the board (the pty closes) and plug it in again "
         "behind the same symlink after --reopen-gap; may be given more than once (" +
             session::protocol_names(replugs) + ")")
      ->check(finite_range(0, MAX_SECONDS));
  cmd->add_option(
         "--reopen-gap", o->reopen_gap_ms,
         "milliseconds from --reopen-at to plugging the board in again, on the game's clock, however "
         "late the unplug ran (default 1000)")
      ->check(CLI::Range(std::int64_t(0), std::int64_t(MAX_SECONDS * 1000)));
  cmd->add_option("--plies", o->plies, "play only the first N plies of the game (default: all)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--bus", o->bus,
                  "N boards in bus mode with their clocks on the one pty (addresses 1025..1024+N): board k "
                  "plays game --game + k of the PGN file with seed --seed + k; the clocks start once the "
                  "line can have read every board")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--baud", o->baud,
                  "with --bus, the line's rate: the boards' replies go out at it, 10 bits a byte, and a "
                  "command sent over a reply is reported as a collision (0: as fast as the pty goes; "
                  "default 9600)")
      ->check(CLI::Range(0, 1000000));
  cmd->add_option(
      "--mute", o->mutes,
      "with --bus, K:AT_S:FOR_S: board K (from 0) is unplugged from the bus AT_S seconds into its "
      "game for FOR_S seconds (hears nothing, answers nothing); may be given more than once");
  cmd->add_flag(
      "--print-presses", o->print_presses,
      "with --bus, print `press ADDRESS PLY UNIX_MS` on stdout when a board reads a clock press (for "
      "benchmarks)");
  cmd->add_flag(
      "--print-plies", o->print_plies,
      "one board playing a game: before play, print `ply N TOUCH_MS SET_MS PRESS_MS` on stderr for "
      "each ply (game time: the hand's first touch, its last placement before the press, the press; "
      "-1 where the hand has none)");
  cmd->add_flag("--start-now", o->start_now,
                "start the game at once instead of at the first command a program sends to the board");
  cmd->footer(
      "Open the printed path as the board's serial port (" +
      emulated_makes([](const session::BoardEmulator& e) { return e.wire; }) +
      "). It is a pseudo-terminal, which libserialport cannot open; eboardd's serial code opens it directly "
      "and says so in its log. Example:\n  eboardctl sim --pgn games.pgn --game 3 --speed 10 --linger 30");
  cmd->callback([o, &exit_code] {
    std::signal(SIGPIPE, SIG_IGN);
    exit_code = o->bus > 0 ? run_bus(*o) : run(*o);
  });
}

}  // namespace eboard::tools
