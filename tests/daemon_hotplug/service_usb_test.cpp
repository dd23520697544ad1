// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// USB hotplug inside eboardd: the real Service with its USB watcher on a fake sysfs tree (polling), and
// boards played by emulated DGT boards (session::BoardPlayer) on pseudo-terminals, whose slaves the fake
// /dev's tty nodes point to. A board named by serial number, with no udev symlink, is connected when its
// tty shows up in sysfs; discovery makes a board of an unconfigured one while it is plugged in, and the
// same board back continues its game from its journal; /status lists the USB boards; a reload that turns
// discovery off, or names the board, takes the discovered board away; the two boards of a bughouse match,
// named by serial, connect when their ttys show up and follow a replug to another tty.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <nlohmann/json.hpp>

#include "daemon/eboardd/service.hpp"
#include "daemon/session/emulated_board.hpp"
#include "daemon/session/pty.hpp"
#include "fake_sysfs.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using nlohmann::json;
using namespace std::chrono_literals;
using test_support::FakeSysfs;

namespace {

// A DGT board on a pseudo-terminal: what the fake /dev's node points to.
class PtyBoard {
 public:
  explicit PtyBoard(boost::asio::io_context& io)
      : player_(
            std::make_unique<session::BoardPlayer>(io, drivers::dgt::Emulator{}, session::BoardScript{})) {
    auto pty = session::open_pseudo_terminal();
    EXPECT_TRUE(pty) << (pty ? "" : pty.error());
    if (!pty) return;
    slave_ = pty->slave_path;
    player_->attach(pty->master_fd);
    player_->start();
  }
  ~PtyBoard() { player_->stop(); }
  PtyBoard(const PtyBoard&) = delete;
  PtyBoard& operator=(const PtyBoard&) = delete;
  const std::string& slave() const { return slave_; }
  void unplug() { player_->detach(); }  // the pty hangs up for the host

 private:
  std::unique_ptr<session::BoardPlayer> player_;
  std::string slave_;
};

class UsbDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("eboard-usb-service-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::remove_all(dir_);
  }
  void TearDown() override {
    if (service_) service_->stop();
    io_.run_for(20ms);
    service_.reset();
    fs::remove_all(dir_);
  }

  // `toml` after an [http] table with `http` in it.
  config::Config parse(const std::string& toml, const std::string& http = "") {
    auto cfg = config::parse_config("[http]\nlisten = \"127.0.0.1:0\"\n" + http + toml, "usb-test.toml");
    EXPECT_TRUE(cfg) << (cfg ? "" : cfg.error().what());
    if (!cfg) return {};
    cfg->state_dir = dir_.string();
    return *cfg;
  }

  void start(const std::string& toml, const std::string& http = "") {
    eboardd::ServiceOptions o;
    o.usb.sys_root = sys_.root();
    o.usb.dev_root = sys_.dev_root();
    o.usb.use_libusb = false;
    o.usb.poll_interval = 20ms;
    service_ = std::make_unique<eboardd::Service>(io_, parse(toml, http), o);
    auto ok = service_->start();
    ASSERT_TRUE(ok) << (ok ? "" : ok.error());
  }

  // Runs the daemon until `done` holds, for at most `limit` (a deadline, not a measurement).
  bool run_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 15s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      if (io_.stopped()) io_.restart();
      io_.run_for(10ms);
    }
    return true;
  }

  // GET /status through the daemon's route.
  json status() {
    http::Request r;
    r.method = "GET";
    r.target = r.path = "/status";
    auto res = service_->handle(r);
    EXPECT_EQ(res.status, 200u);
    return json::parse(res.body);
  }

  std::string link(const std::string& id) {
    eboardd::BoardRuntime* b = service_->board(id);
    return b ? b->status().value("link", "") : "(absent)";
  }

  static inline int counter_ = 0;
  fs::path dir_;
  FakeSysfs sys_;
  boost::asio::io_context io_;
  std::unique_ptr<eboardd::Service> service_;
};

}  // namespace

TEST_F(UsbDaemon, BoardBySerialWithoutUdevConnectsWhenItsTtyAppears) {
  start("[[board]]\nid = \"A\"\nserial = \"SER123\"\n");
  // Not plugged in: the board waits on its udev name (which no udev makes here).
  ASSERT_NE(service_->board("A"), nullptr);
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], "/dev/eboard/dgt-SER123");
  json s = status();
  EXPECT_EQ(s["usb"]["mode"], "sysfs polling");
  EXPECT_EQ(s["usb"]["watch"], "polling sysfs every 20 ms");
  EXPECT_EQ(s["usb"]["discovery"], false);
  EXPECT_TRUE(s["usb"]["boards"].empty());
  ASSERT_TRUE(run_until(
      [&] { return service_->board("A")->status()["source"]["link_stats"]["open_failures"] >= 2; }));
  EXPECT_EQ(link("A"), "connecting");

  // Plugged in: sysfs shows its tty with that serial number; the daemon opens it.
  PtyBoard board(io_);
  sys_.plug("1-1", "0403", "6001", "SER123", "ttyUSB0", board.slave());
  ASSERT_TRUE(run_until([&] { return link("A") == "connected"; })) << status().dump(2);
  const std::string node = (sys_.dev_root() / "ttyUSB0").string();
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], node);

  s = status();
  ASSERT_EQ(s["usb"]["boards"].size(), 1u) << s["usb"].dump(2);
  const json& u = s["usb"]["boards"][0];
  EXPECT_EQ(u["vid"], "0403");
  EXPECT_EQ(u["pid"], "6001");
  EXPECT_EQ(u["serial"], "SER123");
  EXPECT_EQ(u["tty"], "ttyUSB0");
  EXPECT_EQ(u["device"], node);
  EXPECT_EQ(u["product"], "DGT Board");
  EXPECT_EQ(u["board"], "A");
  EXPECT_EQ(u["discovered"], false);

  // Unplugged: the board stays (configured), its link waits; the USB list is empty again.
  board.unplug();
  sys_.unplug("1-1", "ttyUSB0");
  ASSERT_TRUE(run_until([&] { return link("A") == "connecting" && status()["usb"]["boards"].empty(); }));
  ASSERT_NE(service_->board("A"), nullptr);
  // Its tty may be another board's next: it waits on its udev name again.
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], "/dev/eboard/dgt-SER123");

  // Back on another socket and tty: the serial number is resolved again.
  PtyBoard again(io_);
  sys_.plug("1-4", "0403", "6001", "SER123", "ttyUSB3", again.slave());
  ASSERT_TRUE(run_until([&] { return link("A") == "connected"; })) << status().dump(2);
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], (sys_.dev_root() / "ttyUSB3").string());
  EXPECT_EQ(status()["usb"]["boards"][0]["board"], "A");
}

TEST_F(UsbDaemon, DiscoveryAddsABoardWhilePluggedAndItsGameContinues) {
  start("[discovery]\nusb = true\n[[board]]\nid = \"A\"\nserial = \"CONF1\"\n");
  EXPECT_EQ(status()["usb"]["discovery"], true);
  ASSERT_EQ(service_->boards().size(), 1u);

  // A board nobody configured arrives: it becomes board dgt-DISC42 and connects.
  auto board = std::make_unique<PtyBoard>(io_);
  sys_.plug("1-2", "04d8", "000a", "DISC42", "ttyACM0", board->slave());
  // Noise: another USB serial device, and the configured board (it is A, not a discovered one).
  sys_.plug("1-3", "046d", "c52b", "MOUSE", "ttyUSB1", "/dev/null");
  PtyBoard configured(io_);
  sys_.plug("1-1", "0403", "6001", "CONF1", "ttyUSB0", configured.slave());
  ASSERT_TRUE(run_until([&] { return link("dgt-DISC42") == "connected" && link("A") == "connected"; }))
      << status().dump(2);
  EXPECT_EQ(service_->boards().size(), 2u);
  EXPECT_EQ(service_->board("dgt-CONF1"), nullptr);
  json s = status();
  ASSERT_EQ(s["usb"]["boards"].size(), 2u) << s["usb"].dump(2);  // sorted by tty: ttyACM0, ttyUSB0
  EXPECT_EQ(s["usb"]["boards"][0]["board"], "dgt-DISC42");
  EXPECT_EQ(s["usb"]["boards"][0]["discovered"], true);
  EXPECT_EQ(s["usb"]["boards"][0]["vid"], "04d8");
  EXPECT_EQ(s["usb"]["boards"][1]["board"], "A");
  EXPECT_EQ(s["usb"]["boards"][1]["discovered"], false);

  // Its game gets players; then it is unplugged: gone from the live set, its journal stays.
  eboardd::BoardRuntime* d = service_->board("dgt-DISC42");
  ASSERT_TRUE(d->update_tags({{"White", "Anand"}, {"Black", "Kramnik"}}));
  const int game = d->ledger().game_number();
  const fs::path journal = d->journal_path();
  board->unplug();
  sys_.unplug("1-2", "ttyACM0");
  ASSERT_TRUE(run_until([&] { return service_->board("dgt-DISC42") == nullptr; }));
  EXPECT_TRUE(fs::exists(journal));
  EXPECT_EQ(status()["usb"]["boards"].size(), 1u);
  EXPECT_EQ(link("A"), "connected");

  // Back (another socket, another tty): the same board id, the same game, its tags kept.
  board = std::make_unique<PtyBoard>(io_);
  sys_.plug("1-5", "04d8", "000a", "DISC42", "ttyACM1", board->slave());
  ASSERT_TRUE(run_until([&] { return link("dgt-DISC42") == "connected"; })) << status().dump(2);
  d = service_->board("dgt-DISC42");
  EXPECT_EQ(d->journal_path(), journal);
  EXPECT_EQ(d->ledger().game_number(), game);
  json board_status = d->status();
  EXPECT_EQ(board_status["game"]["tags"]["White"], "Anand") << board_status.dump(2);
  EXPECT_EQ(board_status["game"]["tags"]["Black"], "Kramnik");
  EXPECT_TRUE(board_status["journal"].contains("recovery")) << board_status.dump(2);
}

TEST_F(UsbDaemon, ReloadTakesDiscoveredBoardsAwayWhenDiscoveryIsOffOrTheBoardIsNamed) {
  start("[discovery]\nusb = true\n");
  PtyBoard board(io_);
  sys_.plug("1-2", "0403", "6001", "XY-7", "ttyUSB0", board.slave());
  ASSERT_TRUE(run_until([&] { return link("dgt-XY-7") == "connected"; })) << status().dump(2);

  // The configuration now names it: the configured board takes its device over.
  auto d = service_->reload(parse("[discovery]\nusb = true\n[[board]]\nid = \"mine\"\nserial = \"XY-7\"\n"));
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->added, std::vector<std::string>{"mine"});
  EXPECT_EQ(service_->board("dgt-XY-7"), nullptr);
  ASSERT_TRUE(run_until([&] { return link("mine") == "connected"; })) << status().dump(2);
  EXPECT_EQ(status()["usb"]["boards"][0]["board"], "mine");

  // Not named, discovery on: discovered again; discovery off: gone.
  service_->reload(parse("[discovery]\nusb = true\n"));
  ASSERT_TRUE(run_until([&] { return link("dgt-XY-7") == "connected"; })) << status().dump(2);
  d = service_->reload(parse(""));
  ASSERT_TRUE(d) << d.error();
  EXPECT_TRUE(d->discovery_changed);
  EXPECT_EQ(service_->board("dgt-XY-7"), nullptr);
  EXPECT_TRUE(service_->boards().empty());
  EXPECT_TRUE(status()["usb"]["boards"][0]["board"].is_null());
}

TEST_F(UsbDaemon, DiscoveryLeavesGenericBridgesAloneUnlessToldToClaimThem) {
  start("[discovery]\nusb = true\n");
  // A GPS receiver on an FT232 with the chip's own strings: listed, not made a board.
  PtyBoard gps(io_);
  sys_.plug("1-2", "0403", "6001", "GPS9", "ttyUSB0", gps.slave(), "USB <-> Serial");
  ASSERT_TRUE(run_until([&] { return status()["usb"]["boards"].size() == 1; })) << status().dump(2);
  for (int i = 0; i < 10; ++i) io_.run_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(service_->boards().empty());
  EXPECT_TRUE(status()["usb"]["boards"][0]["board"].is_null());

  // generic_bridges = true: every such bridge is taken for a board.
  service_->reload(parse("[discovery]\nusb = true\ngeneric_bridges = true\n"));
  ASSERT_TRUE(run_until([&] { return link("dgt-GPS9") == "connected"; })) << status().dump(2);
  EXPECT_EQ(status()["usb"]["generic_bridges"], true);

  // And back: the discovered board goes away.
  service_->reload(parse("[discovery]\nusb = true\n"));
  EXPECT_EQ(service_->board("dgt-GPS9"), nullptr);
  EXPECT_TRUE(service_->boards().empty());
}

TEST_F(UsbDaemon, ControlInterfaceRemovesADiscoveredBoardUntilItComesBack) {
  start("[discovery]\nusb = true\n", "token = \"0123456789\"\n");
  PtyBoard board(io_);
  sys_.plug("1-2", "0403", "6001", "DEL1", "ttyUSB0", board.slave());
  ASSERT_TRUE(run_until([&] { return link("dgt-DEL1") == "connected"; })) << status().dump(2);
  http::Request r;
  r.method = "DELETE";
  r.target = r.path = "/boards/dgt-DEL1";
  r.authorization = "Bearer 0123456789";
  EXPECT_EQ(service_->handle(r).status, 200u);
  EXPECT_EQ(service_->board("dgt-DEL1"), nullptr);
  EXPECT_TRUE(status()["usb"]["boards"][0]["board"].is_null());
}

TEST_F(UsbDaemon, MatchBoardsBySerialConnectWhenTheirTtysAppear) {
  start(
      "[[board]]\nid = \"A\"\nserial = \"MATCHA\"\n"
      "[[board]]\nid = \"B\"\nserial = \"MATCHB\"\n"
      "[[match]]\nboards = [\"A\", \"B\"]\n");
  ASSERT_NE(service_->match("A-B"), nullptr);
  // Not plugged in: both wait on their udev names (which no udev makes here).
  ASSERT_TRUE(run_until([&] {
    for (const char* id : {"A", "B"})
      if (service_->board(id)->status()["source"]["link_stats"].value("open_failures", 0) < 2) return false;
    return true;
  })) << status().dump(2);
  EXPECT_EQ(link("A"), "connecting");
  EXPECT_EQ(link("B"), "connecting");
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], "/dev/eboard/dgt-MATCHA");
  EXPECT_EQ(service_->board("B")->status()["source"]["device"], "/dev/eboard/dgt-MATCHB");

  // Plugged in: sysfs shows their ttys; the match's links open them (without udev, they never would).
  PtyBoard a(io_);
  PtyBoard b(io_);
  sys_.plug("1-1", "0403", "6001", "MATCHA", "ttyUSB0", a.slave());
  sys_.plug("1-2", "0403", "6001", "MATCHB", "ttyUSB1", b.slave());
  ASSERT_TRUE(run_until([&] { return link("A") == "connected" && link("B") == "connected"; }))
      << status().dump(2);
  EXPECT_EQ(service_->board("A")->status()["source"]["device"], (sys_.dev_root() / "ttyUSB0").string());
  EXPECT_EQ(service_->board("B")->status()["source"]["device"], (sys_.dev_root() / "ttyUSB1").string());
  EXPECT_EQ(service_->board("A")->status()["source"]["match"], "A-B");
  json s = status();
  ASSERT_EQ(s["usb"]["boards"].size(), 2u) << s["usb"].dump(2);
  EXPECT_EQ(s["usb"]["boards"][0]["board"], "A");
  EXPECT_EQ(s["usb"]["boards"][1]["board"], "B");

  // B unplugged: its link goes back to its udev name; back on another tty, it is resolved again.
  b.unplug();
  sys_.unplug("1-2", "ttyUSB1");
  ASSERT_TRUE(run_until([&] { return link("B") == "connecting"; })) << status().dump(2);
  ASSERT_TRUE(run_until([&] {
    return service_->board("B")->status()["source"]["device"] == "/dev/eboard/dgt-MATCHB";
  })) << status().dump(2);
  EXPECT_EQ(link("A"), "connected");
  PtyBoard again(io_);
  sys_.plug("1-4", "0403", "6001", "MATCHB", "ttyUSB3", again.slave());
  ASSERT_TRUE(run_until([&] { return link("B") == "connected"; })) << status().dump(2);
  EXPECT_EQ(service_->board("B")->status()["source"]["device"], (sys_.dev_root() / "ttyUSB3").string());
}
