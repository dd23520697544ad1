// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// USB boards found in sysfs and watched as they come and go. The tests build the sysfs layout the kernel
// gives a USB serial adapter (fake_sysfs.hpp), plus the noise around it: virtual terminals, other USB
// devices.
#include <fnmatch.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <boost/asio/io_context.hpp>

#include "daemon/hotplug/usb_boards.hpp"
#include "daemon/session/board_protocol.hpp"
#include "fake_sysfs.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

using test_support::FakeSysfs;

TEST(UsbBoards, KnownIdsFromTheReference) {
  // reference/hardware.md §1.8 and udev/60-eboardd.rules: the same three ids.
  auto ids = hotplug::known_board_ids();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0].vid, 0x0403);
  EXPECT_EQ(ids[0].pid, 0x6001);
}

// One match line of a udev rules file: the ids it tests (udev globs) and whether it also asks the
// descriptors for a word.
struct UdevMatch {
  std::string vendor, product, descriptor_word, line;
  bool usb_device = false;  // SUBSYSTEM=="usb" with ATTR{}: the USB device itself (HID boards)
};

std::vector<UdevMatch> udev_matches(const std::string& file) {
  std::ifstream in(fs::path(EBOARD_TEST_DATA) / ".." / ".." / "udev" / file);
  EXPECT_TRUE(in) << file;
  static const std::regex vendor(R"re(ATTRS?\{idVendor\}=="([^"]*)")re"),
      product(R"re(ATTRS?\{idProduct\}=="([^"]*)")re"),
      word(R"re(ATTRS\{(?:manufacturer|product)\}=="\*([^"*]*)\*")re");
  std::vector<UdevMatch> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch v, p, w;
    if (!std::regex_search(line, v, vendor) || !std::regex_search(line, p, product)) continue;
    UdevMatch m{v[1], p[1], "", line, line.find("ATTR{idVendor}") != std::string::npos};
    if (std::regex_search(line, w, word)) m.descriptor_word = w[1];
    out.push_back(std::move(m));
  }
  return out;
}

std::string hex4(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04x", v);
  return buf;
}

TEST(UsbBoards, TheUdevRulesNameExactlyTheIdsOfTheProtocolRows) {
  // The protocol row is the one place a make is described: the rules shipped in udev/ give the same
  // devices to the eboard group as discovery takes for boards, no more, no fewer.
  const auto own = udev_matches("60-eboardd.rules"),
             bridges = udev_matches("61-eboardd-generic-bridges.rules");
  ASSERT_FALSE(own.empty());
  std::set<std::string> expected_own, expected_bridges, found_own, found_bridges;
  for (const auto& row : session::board_protocols()) {
    for (const auto& id : row.usb_serial_ids) {
      const std::string ids = hex4(id.vendor) + ":" + hex4(id.product);
      if (id.generic_bridge) {
        // Named a board by its descriptors (manufacturer or product), or by the opt-in rules file.
        expected_own.insert(ids + " manufacturer-or-product " + std::string(row.usb_descriptor_mark));
        expected_bridges.insert(ids);
      } else {
        expected_own.insert(ids);
      }
    }
    if (row.transport == session::Transport::usb_hid) {
      // One rule for the USB device: its product glob takes exactly the products the row takes.
      const UdevMatch* rule = nullptr;
      for (const auto& m : own)
        if (m.usb_device && m.vendor == hex4(row.usb_vendor)) rule = &m;
      ASSERT_NE(rule, nullptr) << row.name << ": no rule for the vendor " << hex4(row.usb_vendor);
      int differ = 0;
      for (unsigned pid = 0; pid <= 0xFFFF; ++pid)
        differ += (fnmatch(rule->product.c_str(), hex4(pid).c_str(), 0) == 0) !=
                  row.usb_product(std::uint16_t(pid));
      EXPECT_EQ(differ, 0) << row.name << ": the rule's products " << rule->product << " are not the row's";
    }
  }
  for (const auto& m : own) {
    if (m.usb_device) continue;
    std::string ids = m.vendor + ":" + m.product;
    // A descriptor-word rule comes in two lines (manufacturer, product): one entry.
    if (!m.descriptor_word.empty()) ids += " manufacturer-or-product " + m.descriptor_word;
    found_own.insert(ids);
  }
  for (const auto& m : bridges) {
    EXPECT_TRUE(m.descriptor_word.empty()) << "the opt-in file takes a bridge whatever it says: " << m.line;
    found_bridges.insert(m.vendor + ":" + m.product);
  }
  EXPECT_EQ(found_own, expected_own);
  EXPECT_EQ(found_bridges, expected_bridges);
  // Each descriptor word is asked of both strings, as names_board() does.
  for (const auto& id : expected_own) {
    if (id.find(' ') == std::string::npos) continue;
    int lines = 0;
    for (const auto& m : own)
      lines += !m.descriptor_word.empty() && id.starts_with(m.vendor + ":" + m.product);
    EXPECT_EQ(lines, 2) << id;
  }
}

TEST(UsbBoards, ScanFindsOnlyBoardsWithTheirSerials) {
  FakeSysfs sys;
  sys.plug("1-1", "0403", "6001", "A1B2C3", "ttyUSB0");
  sys.plug("1-2", "04d8", "000a", "", "ttyACM0");
  sys.plug("1-3", "046d", "c52b", "MOUSE", "ttyUSB1");  // some other USB serial device
  auto found = hotplug::scan(sys.root(), "/dev");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].tty, "ttyACM0");
  EXPECT_EQ(found[0].device, "/dev/ttyACM0");
  EXPECT_EQ(found[0].vid, 0x04d8);
  EXPECT_EQ(found[0].serial, "");
  EXPECT_EQ(found[0].stable_name(), "/dev/eboard/dgt-path-1-2");
  EXPECT_EQ(found[1].tty, "ttyUSB0");
  EXPECT_EQ(found[1].serial, "A1B2C3");
  EXPECT_EQ(found[1].product, "DGT Board");
  EXPECT_EQ(found[1].stable_name(), "/dev/eboard/dgt-A1B2C3");
}

TEST(UsbBoards, AGenericBridgeNamesABoardOnlyByItsDescriptors) {
  // What udev/60-eboardd.rules matches: a board's own id, or a generic bridge whose strings say DGT.
  FakeSysfs sys;
  sys.plug("1-1", "0403", "6001", "GPS1", "ttyUSB0", "", "USB <-> Serial");
  sys.plug("1-2", "0403", "6001", "DGT1", "ttyUSB1", "", "DGT USB e-Board");
  sys.plug("1-3", "045b", "8111", "OWN1", "ttyACM0", "", "Board");
  auto found = hotplug::scan(sys.root(), "/dev");
  ASSERT_EQ(found.size(), 3u);           // all listed: a configured serial number may name any of them
  EXPECT_TRUE(found[0].names_board());   // ttyACM0: 045b:8111
  EXPECT_FALSE(found[1].names_board());  // ttyUSB0: an FT232 that says nothing of DGT
  EXPECT_TRUE(found[2].names_board());   // ttyUSB1
}

TEST(UsbBoards, ScanFindsChessnutBoardsByBusAndAddress) {
  // USB HID boards have no tty: found by vendor 0x2D80 and a product id 0x80xx … 0x86xx, opened by
  // "BUS:ADDRESS" through libusb.
  FakeSysfs sys;
  sys.plug_hid("1-4", "2d80", "8002", "CN123", 1, 7);
  sys.plug_hid("1-5", "2d80", "1234", "OTHER", 1, 8);  // the vendor's, but not a board
  sys.plug("1-1", "0403", "6001", "A1B2C3", "ttyUSB0");
  auto found = hotplug::scan(sys.root(), "/dev");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].tty, "");
  EXPECT_EQ(found[0].device, "1:7");
  EXPECT_EQ(found[0].protocol, "chessnut");
  EXPECT_EQ(found[0].serial, "CN123");
  EXPECT_TRUE(found[0].names_board());
  EXPECT_EQ(found[0].stable_name(), "/dev/eboard/chessnut-CN123");
  EXPECT_EQ(found[1].protocol, "dgt");
  sys.unplug_hid("1-4");
  found = hotplug::scan(sys.root(), "/dev");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].protocol, "dgt");
}

TEST(UsbBoards, BadSysfsIsSkippedNotFatal) {
  FakeSysfs sys;
  sys.plug("1-1", "zzzz", "6001", "X", "ttyUSB0");  // unreadable id
  EXPECT_TRUE(hotplug::scan(sys.root()).empty());
  EXPECT_TRUE(hotplug::scan("/nonexistent/sys").empty());
}

TEST(UsbBoards, WatcherReportsArrivalsAndDepartures) {
  FakeSysfs sys;
  sys.plug("1-1", "0403", "6001", "FIRST", "ttyUSB0");
  boost::asio::io_context io;
  hotplug::WatchOptions o;
  o.sys_root = sys.root();
  o.use_libusb = false;
  o.poll_interval = 20ms;
  std::vector<std::string> log;
  hotplug::UsbWatcher w(io, o, [&](const hotplug::UsbChange& c) {
    for (const auto& b : c.added) log.push_back("+" + b.serial);
    for (const auto& b : c.removed) log.push_back("-" + b.serial);
  });
  w.start();
  EXPECT_EQ(w.mechanism(), "polling sysfs every 20 ms");
  EXPECT_EQ(w.mode(), "sysfs polling");
  ASSERT_EQ(log, (std::vector<std::string>{"+FIRST"}));  // the boards present at start
  // Until the watcher has told `n` changes (a poll every 20 ms; 15 s for a starved machine).
  auto run_until = [&](std::size_t n) {
    for (auto end = std::chrono::steady_clock::now() + 15s;
         log.size() < n && std::chrono::steady_clock::now() < end;)
      io.run_for(10ms);
  };
  sys.plug("1-2", "0403", "6001", "SECOND", "ttyUSB1");
  run_until(2);
  sys.unplug("1-1", "ttyUSB0");
  run_until(3);
  EXPECT_EQ(log, (std::vector<std::string>{"+FIRST", "+SECOND", "-FIRST"}));
  ASSERT_EQ(w.boards().size(), 1u);
  EXPECT_EQ(w.boards()[0].serial, "SECOND");
  w.stop();
}

TEST(UsbBoards, WatcherWithLibusbStartsAndStopsCleanly) {
  // Whatever this machine offers (libusb hotplug through netlink, or no USB at all in a container), the
  // watcher starts, says how it watches, scans, and stops without leaking libusb's descriptors.
  FakeSysfs sys;
  sys.plug("1-1", "0403", "6001", "ONE", "ttyUSB0");
  boost::asio::io_context io;
  hotplug::WatchOptions o;
  o.sys_root = sys.root();
  int added = 0;
  {
    hotplug::UsbWatcher w(io, o, [&](const hotplug::UsbChange& c) { added += int(c.added.size()); });
    w.start();
    std::string m = w.mechanism();
    EXPECT_TRUE(m == "libusb hotplug" || m.rfind("polling sysfs", 0) == 0) << m;
    EXPECT_EQ(w.mode(), m == "libusb hotplug" ? "libusb hotplug" : "sysfs polling");
    // The first scan's board (the wait ends with it; 15 s for a starved machine).
    for (auto end = std::chrono::steady_clock::now() + 15s;
         added < 1 && std::chrono::steady_clock::now() < end;)
      io.run_for(10ms);
    EXPECT_EQ(added, 1);
    w.stop();
    EXPECT_EQ(w.mode(), "stopped");
  }
  io.run_for(10ms);  // nothing left pending on a destroyed watcher
}

TEST(UsbBoards, WithoutUdevdTheWatcherPolls) {
  // libusb's hotplug hears udevd; where udevd does not run its callbacks never come: poll sysfs.
  FakeSysfs sys;
  boost::asio::io_context io;
  hotplug::WatchOptions o;
  o.sys_root = sys.root();
  o.udev_control = sys.root() / "run" / "udev" / "control";  // absent
  o.poll_interval = 20ms;
  std::vector<std::string> log;
  hotplug::UsbWatcher w(io, o, [&](const hotplug::UsbChange& c) {
    for (const auto& b : c.added) log.push_back("+" + b.serial);
  });
  w.start();
  EXPECT_EQ(w.mode(), "sysfs polling");
  sys.plug("1-1", "0403", "6001", "LATE", "ttyUSB0");
  for (auto end = std::chrono::steady_clock::now() + 15s;
       log.empty() && std::chrono::steady_clock::now() < end;)
    io.run_for(10ms);
  EXPECT_EQ(log, (std::vector<std::string>{"+LATE"}));
  w.stop();
}
