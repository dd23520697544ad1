// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// eboardd: reads electronic chess boards, reconstructs the games and serves them (CONTRACTS §4).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include "daemon/config/config.hpp"
#include "daemon/eboardd/demo.hpp"
#include "daemon/eboardd/lifecycle.hpp"
#include "daemon/eboardd/notify.hpp"
#include "daemon/eboardd/opening_book.hpp"
#include "daemon/eboardd/service.hpp"
#include "daemon/io/time_base.hpp"
#include "daemon/session/board_protocol.hpp"
#include "eboard/version.hpp"

namespace fs = std::filesystem;
using namespace eboard;

namespace {

constexpr std::chrono::microseconds LOOP_TURN{1000};  // see run_in_turns()

// The protocols a [[board]] takes, one line each from its row, what a board without a clock does, and
// which makes a [[bus]] takes.
std::string protocols_help() {
  std::string out = "A board's protocol (protocol = \"...\"; default dgt) is one of:\n";
  for (const auto& p : session::board_protocols()) {
    std::string name(p.name);
    name.resize(std::max<std::size_t>(name.size() + 1, 12), ' ');
    out += "  " + name + std::string(p.description) +
           (p.has_clock ? "; a move completes at the clock press" : "; no clock") + "\n";
  }
  out +=
      "A board without a clock completes a move once the board has rested on it for settle_ms, or when the\n"
      "other side begins its reply.\n";
  const std::string bus =
      session::protocol_names([](const session::BoardProtocol& p) { return !p.bus_dialect.empty(); });
  if (!bus.empty())
    out += bus +
           " boards chained on one line in bus mode are a [[bus]] table: its port, and its boards by bus\n"
           "address (or found by ping); each is a board like any other (journal, game, match, control).\n";
  return out;
}

// "<N>" syslog priority prefixes: journald (stderr of a unit) turns them into message priorities.
class SyslogPrefix : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    static constexpr const char* prefix[] = {"<7>", "<7>", "<6>", "<4>", "<3>", "<2>", ""};
    const char* p = prefix[std::size_t(msg.level)];
    dest.append(p, p + std::char_traits<char>::length(p));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SyslogPrefix>(); }
};

void setup_logging() {
  auto logger = spdlog::stderr_logger_st("eboardd");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (std::getenv("JOURNAL_STREAM")) {
    // Under systemd: journald adds the time and the unit; keep the priority.
    formatter->add_flag<SyslogPrefix>('*').set_pattern("%*%v");
  } else {
    formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%-5l%$ %v");
  }
  logger->set_formatter(std::move(formatter));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

bool set_level(const std::string& name) {
  auto level = spdlog::level::from_str(name);
  if (level == spdlog::level::off && name != "off") return false;
  spdlog::set_level(level);
  return true;
}

fs::path default_demo_state_dir() {
  if (const char* s = std::getenv("STATE_DIRECTORY")) return fs::path(s) / "demo";  // systemd StateDirectory=
  if (const char* x = std::getenv("XDG_STATE_HOME"); x && *x) return fs::path(x) / "eboardd-demo";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".local" / "state" / "eboardd-demo";
  return fs::temp_directory_path() / ("eboardd-demo-" + std::to_string(::getuid()));
}

// Runs the loop until it is stopped, in turns of at least `turn` while it is busy. Each wake-up of the
// sleeping loop costs a context switch, and at 1,000 boards (a clock message a second each) there was
// one per message or two: the most expensive thing the daemon did. A wake-up that comes less than `turn`
// after the last one waits for the rest of the turn and then handles everything that came meanwhile at
// once. A quiet loop wakes as before, at the first event; only events behind a busy turn wait (at most
// `turn`: 1 ms keeps a move's p99 from press to /ws under 5 ms at 1,000 boards).
void run_in_turns(boost::asio::io_context& io, std::chrono::microseconds turn) {
  using Clock = std::chrono::steady_clock;
  Clock::time_point last{};
  while (!io.stopped()) {
    if (io.run_one() == 0) return;  // waits for the first handler and runs it
    const Clock::time_point now = Clock::now();
    if (now - last < turn) std::this_thread::sleep_until(last + turn);
    last = Clock::now();
    io.poll();  // what is ready now, together
  }
}

struct Cli {
  std::string config_path;
  bool demo = false;
  std::string demo_corpus;
  double demo_speed = 1.0;
  std::string state_dir;
  std::string listen;
  std::string log_level;
  bool check = false;
  bool no_usb = false;
  // For tests that drive serial boards with an accelerated `eboardctl sim --speed R`: the daemon's clock runs
  // R times faster than real time from `clock_origin_ms` (Unix ms; 0: now). A fixed origin keeps the clock
  // continuous across restarts on the same state_dir.
  double clock_rate = 1.0;
  std::int64_t clock_origin_ms = 0;
};

// The configuration the command line asks for; errors are one line for the user.
tl::expected<config::Config, std::string> make_config(const Cli& cli) {
  config::Config c;
  if (!cli.config_path.empty()) {
    auto loaded = config::load_config(cli.config_path);
    if (!loaded) return tl::unexpected(loaded.error().what());
    c = std::move(*loaded);
  } else {
    c.source = "(demo defaults)";
  }
  if (cli.demo) {
    // The demo's boards and match are its emulated ones (Demo::configure), not the file's.
    c.boards.clear();
    c.matches.clear();
    if (cli.config_path.empty()) c.state_dir = default_demo_state_dir().string();
  }
  if (!cli.state_dir.empty()) c.state_dir = fs::absolute(cli.state_dir).string();
  // --listen obeys what [http] listen obeys (config::override_listen): the same exposure check, with or
  // without a file, so that the command line is no way around it.
  if (!cli.listen.empty()) {
    if (auto ok = config::override_listen(c.http, cli.listen, "--listen"); !ok)
      return tl::unexpected(ok.error());
  }
  if (!cli.log_level.empty()) c.log_level = cli.log_level;
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Cli cli;
  CLI::App app{
      "eboardd: reads electronic chess boards (DGT, alone or chained in bus mode; Millennium; Chessnut),\n"
      "reconstructs the games and serves them to arbiters and broadcasters over HTTP and WebSocket.\n\n"
      "  eboardd --config /etc/eboardd/eboardd.toml   run the boards of a configuration\n"
      "  eboardd --demo                               no hardware: two emulated boards play a bughouse "
      "match\n"
      "                                               from the corpus; the daemon reconstructs it live\n"};
  app.footer(
      "Boards ([[board]] in the configuration) are named by device path (port = \"/dev/ttyUSB0\") or by USB\n"
      "serial number (serial = \"A1B2C3\": the udev symlink /dev/eboard/dgt-A1B2C3, or without udev the tty\n"
      "that sysfs shows for that serial number). USB boards are watched as they come and go (libusb "
      "hotplug,\n"
      "else polling sysfs): a configured board's link reconnects as soon as it is plugged in again, and its\n"
      "game continues. [discovery] usb = true also runs every other known USB board as a board of its own\n"
      "(id dgt-<serial>) while it is plugged in; unplugged and back, it continues its game from the "
      "journal.\n"
      "Without udev, the control interface adds and removes ports: eboardctl port add ID PORT, eboardctl "
      "port "
      "remove ID.\n" +
      protocols_help() +
      "\n"
      "HTTP (default 127.0.0.1:7780): GET / is the operator's page (open it in a browser; /index.txt lists\n"
      "the endpoints); GET /games.pgn, /matches/<A>-<B>.bpgn, /status (boards, USB boards),\n"
      "/boards/<id>.pgn (?game=N and the BPGN's ?match=N: a finished record by number),\n"
      "/boards/<id>/capture.cap; WebSocket /ws (the current state of every board, then "
      "live\n"
      "events); POST /control/<id>/<action> (new-game, tags, promotion, ack, draw, resign, result, "
      "moves, adjourn, resume),\n"
      "POST /boards and DELETE /boards/<id> with the configured token (the `eboardctl` tool's subcommands).\n"
      "Rounds and tags: [event] (name, site, date, round, time_control) gives every game's PGN its tags;\n"
      "/games.pgn holds every game of the current round until POST /control/round (eboardctl round N), "
      "which\n"
      "archives it as state_dir/rounds/<round>.pgn. POST /control/pairings (eboardctl pairings FILE: TRF-16 "
      "or\n"
      "CSV board,white,black,white_elo,black_elo) names the players; board number N is the board whose id\n"
      "is N, else the N-th [[board]] of the configuration.\n"
      "Signals: SIGTERM/SIGINT stop cleanly, SIGHUP reloads the configuration (unchanged boards keep "
      "running).\n"
      "State (journals, PGN files) is kept in state_dir; after a crash the games continue from the journal.\n"
      "A finished game's PGN (a match's BPGN) is signed with the daemon's Ed25519 key (state_dir/keys, made\n"
      "at the first start, never replaced): <archive>.sig beside it; `eboardctl verify` checks it, "
      "`eboardctl\n"
      "key` prints the key's fingerprint (also on /status) to publish.\n"
      "Logs go to stderr (journald under systemd). Exit status: 0 stopped cleanly, 1 failed, 2 bad usage or\n"
      "configuration.\n");
  app.add_option("--config", cli.config_path, "The TOML configuration file")->check(CLI::ExistingFile);
  app.add_flag("--demo", cli.demo,
               "Run without hardware: two emulated DGT boards with clocks (A, B) on pseudo-terminals, read "
               "like serial boards, play a bughouse match A-B; the terminal shows every move");
  app.add_option("--demo-corpus", cli.demo_corpus,
                 "What the demo plays: a BPGN file or directory of .bpgn files (bughouse matches; default: "
                 "../shared/corpora/bughouse found near the executable), or a PGN file or directory of .pgn "
                 "files (each board plays its own games, no match)");
  app.add_option("--demo-speed", cli.demo_speed,
                 "Demo: divide the players' thinking time by this (default 1)")
      ->check(CLI::Range(0.01, 1000.0));
  app.add_option("--state-dir", cli.state_dir,
                 "Override state_dir (demo default: ~/.local/state/eboardd-demo)");
  app.add_option("--listen", cli.listen,
                 "Override [http] listen, e.g. 127.0.0.1:7780 (port 0: any free port)");
  app.add_option("--log-level", cli.log_level, "Override log_level: trace, debug, info, warn, error");
  app.add_flag("--check-config", cli.check, "Check the configuration, print what it defines, and exit");
  app.add_flag("--no-usb", cli.no_usb,
               "Do not watch USB (no hotplug reconnects, no discovery; boards named by serial then need the "
               "udev symlink)");
  // Hidden (empty group): test-only options, see Cli::clock_rate.
  app.add_option("--clock-rate", cli.clock_rate,
                 "Tests: the clock runs this many times faster than real time")
      ->check(CLI::Range(0.01, 1000.0))
      ->group("");
  app.add_option("--clock-origin", cli.clock_origin_ms, "Tests: Unix ms from which --clock-rate applies")
      ->group("");
  app.set_version_flag("--version", std::string("eboardd ") + VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (cli.config_path.empty() && !cli.demo) {
    std::fprintf(stderr, "eboardd: give --config FILE, or --demo to try it without hardware (see --help)\n");
    return 2;
  }

  setup_logging();
  auto cfg = make_config(cli);
  if (!cfg) {
    spdlog::critical("{}", cfg.error());
    return 2;
  }
  if (!set_level(cfg->log_level)) {
    spdlog::critical("unknown log level '{}'", cfg->log_level);
    return 2;
  }
  if (cli.check) {
    // The files the start reads beside the configuration, refused here as the start would refuse them.
    auto book = eboardd::read_opening_book(cfg->gaps);
    if (!book) {
      spdlog::critical("gaps.openings: {}", book.error());
      return 2;
    }
    std::printf("%s: OK: state_dir %s, listen %s, %zu board(s), %zu match(es)%s\n", cfg->source.c_str(),
                cfg->state_dir.c_str(), cfg->http.listen.c_str(), cfg->boards.size(), cfg->matches.size(),
                cfg->discovery.usb ? ", USB discovery on" : "");
    for (const auto& b : cfg->boards)
      std::printf("  board %s: %s on %s%s, rules %s\n", b.id.c_str(), b.protocol.c_str(), b.device().c_str(),
                  b.serial.empty() ? "" : " (or the tty of that USB serial number)",
                  cfg->profile_of(b.id).c_str());
    std::printf("  opening lines (gap ranking): %s\n", book->said.c_str());
    return 0;
  }

  // Before the options, so that it outlives them: their time base's timer (options.time) lives on it.
  boost::asio::io_context io;
  eboardd::ServiceOptions options;
  options.version = VERSION;
  options.usb_watch = !cli.no_usb;
  eboardd::DemoSetup demo_setup;
  if (cli.demo) {
    // A bughouse corpus (BPGN) makes the demo a match; a PGN corpus, two boards playing single games.
    const fs::path exe =
        fs::path(argv[0]).is_absolute() ? fs::path(argv[0]) : fs::read_symlink("/proc/self/exe");
    std::vector<fs::path> tried;
    if (!cli.demo_corpus.empty()) {
      tried.push_back(cli.demo_corpus);
    } else {
      tried = eboardd::DemoMatchCorpus::default_locations(exe);
      for (auto& p : eboardd::DemoCorpus::default_locations(exe)) tried.push_back(p);
    }
    std::string errors;
    for (const auto& p : tried) {
      if (!fs::exists(p)) continue;
      if (auto m = eboardd::DemoMatchCorpus::load(p)) {
        demo_setup.matches = *m;
        break;
      }
      auto c = eboardd::DemoCorpus::load(p);
      if (c) {
        demo_setup.games = *c;
        break;
      }
      errors += "; " + c.error();
    }
    if (demo_setup.matches) {
      spdlog::info("demo: bughouse, {} matches from {}", demo_setup.matches->size(),
                   demo_setup.matches->source());
    } else if (demo_setup.games) {
      spdlog::info("demo: {} games from {}", demo_setup.games->size(), demo_setup.games->source());
    } else {
      std::string where;
      for (const auto& p : tried) where += "\n  " + p.string();
      spdlog::critical(
          "--demo needs a corpus of BPGN matches or PGN games and found none{}. Looked in:{}\nGive one with "
          "--demo-corpus PATH (a .bpgn or .pgn file or a directory of them, e.g. ../shared/corpora/bughouse)",
          errors, where);
      return 2;
    }
    demo_setup.speed = cli.demo_speed;
    options.demo = true;
    options.log_moves = true;  // the terminal shows the games as they go
  }

  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-write is an error value, not a dead daemon
  // A file size limit (ulimit -f) reached is a failed write (EFBIG), handled like a full disk: the
  // journal holds its events back until it can write them, instead of the process dying.
  std::signal(SIGXFSZ, SIG_IGN);
  if (cli.clock_rate != 1.0) {  // the game's time for the whole daemon (io/time_base.hpp)
    const std::int64_t origin_ms = cli.clock_origin_ms > 0
                                       ? cli.clock_origin_ms
                                       : std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count();
    options.time = eboard::io::TimeBase::scaled(io, cli.clock_rate, origin_ms);
    spdlog::warn("test clock: {}x real time from Unix ms {}", cli.clock_rate, origin_ms);
  }
  eboardd::Notifier notifier(io);
  std::string journal_problem;  // for systemd's STATUS=, while a journal cannot be written
  options.journal_health = [&notifier, &journal_problem](const std::string& problem) {
    journal_problem = problem;
    notifier.status(problem.empty() ? "journals writable again" : problem);
  };
  // Before the service: the demo's boards are its hardware, plugged in before the daemon opens them.
  std::unique_ptr<eboardd::Demo> demo;
  if (cli.demo) {
    demo = std::make_unique<eboardd::Demo>(io, demo_setup);
    if (auto ok = demo->open(); !ok) {
      spdlog::critical("{}", ok.error());
      return 1;
    }
    demo->configure(*cfg);
  }
  // Before the service starts: it announces itself (eboardd.listen, the lock), and a SIGTERM sent the moment
  // it does is queued here until the loop runs, never the default action that kills without stopping.
  boost::asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  eboardd::Service service(io, *cfg, options);
  spdlog::info("eboardd {} starting ({}, state in {})", VERSION, cli.demo ? "demo" : cfg->source,
               cfg->state_dir);

  auto status_line = [&service, &journal_problem] {
    auto ep = service.endpoint();
    std::string line = std::to_string(service.boards().size()) + " board(s), listening on " +
                       (ep ? ep->address().to_string() + ":" + std::to_string(ep->port()) : "-");
    // systemd shows this line: a board that could not start, or whose journal cannot be written, must not
    // hide behind "active (running)".
    for (const auto& [id, why] : service.failed_boards()) {
      line += "; board ";
      line += id;
      line += " NOT STARTED: ";
      line += why;
    }
    if (!journal_problem.empty()) {
      line += "; ";
      line += journal_problem;
    }
    return line;
  };
  // The process's parts, started in this order and stopped in the reverse (lifecycle.hpp): at SIGTERM or
  // SIGINT, systemd is told, the service stops (its own parts in reverse), then the demo's boards.
  eboardd::Lifecycle daemon;
  std::function<void(const boost::system::error_code&, int)> on_signal;
  on_signal = [&](const boost::system::error_code& ec, int sig) {
    if (ec) return;
    if (sig == SIGHUP) {
      notifier.reloading();
      spdlog::info("SIGHUP: reloading {}",
                   cli.config_path.empty() ? "(no configuration file)" : cli.config_path);
      auto next = make_config(cli);
      if (next && demo) demo->configure(*next);
      const auto level_before = spdlog::get_level();
      if (!next) {
        spdlog::error("reload failed, keeping the running configuration: {}", next.error());
      } else if (!set_level(next->log_level)) {
        spdlog::error("reload failed: unknown log level '{}'", next->log_level);
      } else if (auto d = service.reload(std::move(*next)); !d) {
        spdlog::set_level(level_before);  // all of the running configuration is kept, the level too
        spdlog::error("reload refused, keeping the running configuration: {}", d.error());
      } else {
        spdlog::info("reloaded: {}", d->summary());
      }
      notifier.ready(status_line());
      signals.async_wait(on_signal);
      return;
    }
    spdlog::info("{}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    daemon.stop();
    io.stop();
  };
  using Started = tl::expected<void, std::string>;
  // Opened above (the configuration names their ports); stopped after the service that reads them.
  if (demo) daemon.add("demo boards", {}, [&demo] { demo->stop(); });
  daemon.add(
      "service", [&service] { return service.start(); }, [&service] { service.stop(); });
  daemon.add(
      "signal handler",
      [&]() -> Started {
        signals.async_wait(on_signal);
        return {};
      },
      [&signals] { signals.cancel(); });
  if (demo)
    daemon.add("demo players", [&]() -> Started {
      demo->start(service);
      return {};
    });
  daemon.add(
      "systemd",
      [&]() -> Started {
        if (auto wd = notifier.start_watchdog())
          spdlog::info("watchdog: pinging systemd every {} ms", wd->count() / 1000);
        notifier.ready(status_line());
        return {};
      },
      [&notifier] { notifier.stopping(); });
  if (auto ok = daemon.start(); !ok) {
    spdlog::critical("{}", ok.error());
    return 1;
  }
  run_in_turns(io, LOOP_TURN);
  daemon.stop();  // stopped at the signal already; otherwise (the loop ran out) here
  spdlog::info("stopped");
  return 0;
}
