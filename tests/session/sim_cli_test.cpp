// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The real `eboardctl sim` binary, as a user runs it next to the daemon: its first stdout line is the device
// path; our serial code opens it (a pty: the direct fallback, no preload in this process), asks for the
// board (0x42) and gets a dump; SIGTERM ends it cleanly and it removes its symlink. Bad input gives a
// one-line error and a non-zero exit.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/io/serial_port.hpp"
#include "daemon/session/board_emulator.hpp"
#include "daemon/session/board_protocol.hpp"
#include "drivers/dgt/decoder.hpp"
#include "drivers/dgt/protocol.hpp"

extern char** environ;

namespace eboard::session {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

std::optional<fs::path> corpus_file() {
  const fs::path dir = fs::path(EBOARD_SHARED_DIR) / "corpora" / "pgn" / "standard";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".pgn") files.push_back(e.path());
  }
  if (files.empty()) return std::nullopt;
  std::sort(files.begin(), files.end());
  return files.front();
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "eboard-simcli-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// A child process with stdout on a pipe and stderr in a file.
struct Child {
  pid_t pid = -1;
  int out = -1;
  fs::path err_file;

  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
    }
    if (out >= 0) ::close(out);
  }

  std::string err() const {
    std::ifstream in(err_file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // One line from stdout, waiting at most `timeout`.
  std::optional<std::string> read_line(std::chrono::milliseconds timeout) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{out, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      char c = 0;
      const ssize_t n = ::read(out, &c, 1);
      if (n <= 0) return std::nullopt;
      if (c == '\n') return line;
      line += c;
    }
    return std::nullopt;
  }

  // Waits for the exit; returns the wait status, or nullopt after `timeout`.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return status;
      }
      std::this_thread::sleep_for(10ms);
    }
    return std::nullopt;
  }
};

std::unique_ptr<Child> spawn(const std::vector<std::string>& args, const fs::path& err_file) {
  auto child = std::make_unique<Child>();
  child->err_file = err_file;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return nullptr;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int rc = ::posix_spawn(&child->pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  child->out = pipe_fds[0];
  if (rc != 0) {
    child->pid = -1;
    return nullptr;
  }
  return child;
}

TEST(EboardSim, PrintsTheDeviceFirstAndTheBoardAnswersThroughThePtyFallback) {
  const auto pgn = corpus_file();
  if (!pgn) GTEST_SKIP() << "no corpus PGN (../shared absent?)";
  TempDir dir;
  auto child = spawn({EBOARDCTL_BIN, "sim", "--pgn", pgn->string(), "--speed", "20"}, dir.path() / "err.txt");
  ASSERT_TRUE(child);
  const auto line = child->read_line(15s);
  ASSERT_TRUE(line) << "no device path on stdout; stderr:\n" << child->err();
  const std::string path = *line;
  EXPECT_TRUE(fs::is_symlink(path)) << path;

  auto port = io::SerialPort::open(path, io::LineSettings{});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_EQ(port->info().transport, io::PortInfo::Transport::pty);
  const std::uint8_t cmd = drivers::dgt::command::kSendBoard;
  ASSERT_EQ(::write(port->native_handle(), &cmd, 1), 1);

  drivers::dgt::Decoder decoder;
  std::optional<drivers::dgt::BoardDump> dump;
  const auto deadline = std::chrono::steady_clock::now() + 15s;  // ends with the dump
  while (!dump && std::chrono::steady_clock::now() < deadline) {
    pollfd p{port->native_handle(), POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    std::uint8_t buf[512];
    const ssize_t n = ::read(port->native_handle(), buf, sizeof buf);
    if (n <= 0) continue;
    for (const auto& m : decoder.feed(std::span<const std::uint8_t>(buf, static_cast<std::size_t>(n)))) {
      if (const auto* d = std::get_if<drivers::dgt::BoardDump>(&m)) dump = *d;
    }
  }
  ASSERT_TRUE(dump) << "no board dump within 15 s; stderr:\n" << child->err();
  // The game's start position, a8 first: black rook, knight ... white rook on h1.
  EXPECT_EQ(dump->pieces[0], drivers::dgt::piece::kBlackRook);
  EXPECT_EQ(dump->pieces[4], drivers::dgt::piece::kBlackKing);
  EXPECT_EQ(dump->pieces[60], drivers::dgt::piece::kWhiteKing);
  EXPECT_EQ(dump->pieces[36], drivers::dgt::piece::kEmpty);
  port->close();

  ASSERT_EQ(::kill(child->pid, SIGTERM), 0);
  const auto status = child->wait(15s);
  ASSERT_TRUE(status) << "eboardctl sim did not stop on SIGTERM";
  EXPECT_TRUE(WIFEXITED(*status)) << *status;
  EXPECT_EQ(WEXITSTATUS(*status), 0) << child->err();
  EXPECT_FALSE(fs::exists(fs::symlink_status(path))) << "the symlink was left behind";
  EXPECT_FALSE(fs::exists(fs::path(path).parent_path())) << "the directory was left behind";
}

TEST(EboardSim, LingerEndsItAndReopenKeepsTheLink) {
  const auto pgn = corpus_file();
  if (!pgn) GTEST_SKIP() << "no corpus PGN (../shared absent?)";
  TempDir dir;
  const auto link = dir.path() / "board";
  // A short game would do; the corpus' first one at 400x with no host: --start-now, --linger 0.
  auto child = spawn({EBOARDCTL_BIN, "sim", "--pgn", pgn->string(), "--speed", "400", "--start-now",
                      "--linger", "0", "--link", link.string(), "--reopen-at", "5", "--reopen-gap", "2000"},
                     dir.path() / "err.txt");
  ASSERT_TRUE(child);
  const auto line = child->read_line(15s);
  ASSERT_TRUE(line) << child->err();
  EXPECT_EQ(*line, link.string());
  const auto status = child->wait(60s);
  ASSERT_TRUE(status) << "eboardctl sim did not end after the game; stderr:\n" << child->err();
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0) << child->err();
  const std::string err = child->err();
  // Unplugged at 5 s of game time or, on a loaded machine, a little later (400x: a real ms is 0.4 s of game).
  const auto at = err.find("unplugged at ");
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_GE(std::stod(err.substr(at + 13, 8)), 5.0) << err;
  EXPECT_NE(err.find("plugged in again"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(fs::symlink_status(link)));
}

// --print-plies: before play, each ply's first touch, last placement and press on the game's clock, one line
// a ply in order, that a test can unplug the board between (daemon_gap_hall_test): a hand touches, sets down,
// then presses, and the next ply's hand starts after the press; the last press is within the game's length.
TEST(EboardSim, PrintsEachPlysHandTimesBeforePlay) {
  const auto pgn = corpus_file();
  if (!pgn) GTEST_SKIP() << "no corpus PGN (../shared absent?)";
  TempDir dir;
  auto child = spawn({EBOARDCTL_BIN, "sim", "--pgn", pgn->string(), "--plies", "6", "--speed", "400",
                      "--start-now", "--linger", "0", "--print-plies", "--link", (dir.path() / "b").string()},
                     dir.path() / "err.txt");
  ASSERT_TRUE(child);
  const auto status = child->wait(60s);
  ASSERT_TRUE(status) << "eboardctl sim did not end; stderr:\n" << child->err();
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0) << child->err();
  const std::string err = child->err();
  std::istringstream in(err);
  std::vector<std::array<long long, 3>> plies;
  std::optional<double> length_s;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    int n = 0;
    std::array<long long, 3> t{};
    if (words >> word && word == "ply" && words >> n >> t[0] >> t[1] >> t[2]) {
      EXPECT_EQ(n, static_cast<int>(plies.size()) + 1) << line;
      EXPECT_TRUE(length_s == std::nullopt) << "a ply line after the plan's summary: " << line;
      plies.push_back(t);
    } else if (const auto at = line.find("game length "); at != std::string::npos) {
      length_s = std::stod(line.substr(at + 12));
    }
  }
  ASSERT_EQ(plies.size(), 6u) << err;
  for (std::size_t i = 0; i < plies.size(); ++i) {
    const auto& [touch, set, press] = plies[i];
    EXPECT_GE(touch, 0) << "ply " << i + 1;
    EXPECT_LE(touch, set) << "ply " << i + 1;
    EXPECT_LT(set, press) << "ply " << i + 1;
    if (i > 0) {
      EXPECT_GE(touch, plies[i - 1][2]) << "ply " << i + 1 << " touched before the last press";
    }
  }
  ASSERT_TRUE(length_s) << err;
  EXPECT_LE(static_cast<double>(plies.back()[2]) / 1000.0, *length_s) << err;
}

// sim plays every make whose protocol row has an emulator, and refuses the others, naming what it plays.
TEST(EboardSim, PlaysEveryRowWithAnEmulator) {
  const auto pgn = corpus_file();
  if (!pgn) GTEST_SKIP() << "no corpus PGN (../shared absent?)";
  TempDir dir;
  int played = 0;
  for (const auto& row : board_protocols()) {
    const std::string name(row.name);
    const auto link = dir.path() / name;
    auto child = spawn({EBOARDCTL_BIN, "sim", "--protocol", name, "--pgn", pgn->string(), "--plies", "4",
                        "--speed", "400", "--start-now", "--linger", "0", "--link", link.string()},
                       dir.path() / (name + ".txt"));
    ASSERT_TRUE(child);
    const auto status = child->wait(60s);
    ASSERT_TRUE(status) << name << ": eboardctl sim did not end; stderr:\n" << child->err();
    ASSERT_TRUE(WIFEXITED(*status)) << name;
    const std::string err = child->err();
    if (!row.emulator) {
      EXPECT_NE(WEXITSTATUS(*status), 0) << name << ": no emulator, yet it played:\n" << err;
      EXPECT_NE(err.find(name), std::string::npos) << err;
      continue;
    }
    ++played;
    EXPECT_EQ(WEXITSTATUS(*status), 0) << name << ":\n" << err;
    EXPECT_EQ(child->read_line(1s), link.string()) << name << ":\n" << err;
    EXPECT_NE(err.find(std::string(row.emulator->summary)), std::string::npos) << name << ":\n" << err;
    EXPECT_NE(err.find("the end of the script"), std::string::npos) << name << ":\n" << err;
  }
  EXPECT_GE(played, 2) << "dgt and millennium at least";
}

TEST(EboardSim, BadInputIsAOneLineErrorAndANonZeroExit) {
  const auto pgn = corpus_file();
  TempDir dir;
  std::ofstream(dir.path() / "notes.txt") << "this is not a chess game\n";
  std::ofstream(dir.path() / "bad.cap") << "# eboard-capture 1\n12 < zz\n";
  std::vector<std::vector<std::string>> cases = {
      {EBOARDCTL_BIN, "sim"},
      {EBOARDCTL_BIN, "sim", "--capture", (dir.path() / "bad.cap").string()},
      {EBOARDCTL_BIN, "sim", "--pgn", (dir.path() / "notes.txt").string()},
      {EBOARDCTL_BIN, "sim", "--pgn", (dir.path() / "missing.pgn").string()},
  };
  if (pgn) cases.push_back({EBOARDCTL_BIN, "sim", "--pgn", pgn->string(), "--game", "100000"});
  int i = 0;
  for (const auto& args : cases) {
    auto child = spawn(args, dir.path() / ("err" + std::to_string(i++) + ".txt"));
    ASSERT_TRUE(child);
    const auto status = child->wait(15s);
    ASSERT_TRUE(status) << args.back();
    EXPECT_TRUE(WIFEXITED(*status));
    EXPECT_NE(WEXITSTATUS(*status), 0) << args.back();
    const std::string err = child->err();
    EXPECT_FALSE(err.empty()) << args.back();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << args.back() << ":\n" << err;
    EXPECT_FALSE(child->read_line(100ms).has_value()) << "no device path for bad input";
  }
}

}  // namespace
}  // namespace eboard::session
