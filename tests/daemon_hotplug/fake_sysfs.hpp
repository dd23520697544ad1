// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A sysfs tree as the kernel lays it out for a USB serial adapter (class/tty/<tty>/device → the interface,
// whose parent is the USB device with idVendor, idProduct, serial), plus the noise around it (a virtual
// terminal), in a temporary directory; and a /dev beside it, whose tty nodes are symlinks to whatever the
// test makes (a pseudo-terminal played by an emulated board).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace eboard::test_support {

class FakeSysfs {
 public:
  FakeSysfs()
      : root_(std::filesystem::temp_directory_path() /
              ("eboard-sysfs-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    namespace fs = std::filesystem;
    fs::remove_all(root_);
    fs::create_directories(root_ / "class" / "tty");
    fs::create_directories(dev_root());
    // A virtual terminal: no device behind it.
    fs::create_directories(root_ / "devices" / "virtual" / "tty" / "tty0");
    fs::create_directory_symlink(root_ / "devices" / "virtual" / "tty" / "tty0",
                                 root_ / "class" / "tty" / "tty0");
  }
  ~FakeSysfs() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  // The sysfs root (class/, devices/).
  const std::filesystem::path& root() const { return root_; }
  // The /dev of this tree: <dev_root>/<tty> is what the daemon opens.
  std::filesystem::path dev_root() const { return root_ / "dev"; }

  // A USB device at bus position `usb` with a tty under its first interface. With `node_target`, the
  // tty's device node <dev_root>/<tty> is made a symlink to it (e.g. a pseudo-terminal's slave).
  void plug(const std::string& usb, const std::string& vid, const std::string& pid, const std::string& serial,
            const std::string& tty, const std::string& node_target = "",
            const std::string& product = "DGT Board") {
    namespace fs = std::filesystem;
    if (!node_target.empty()) {
      std::error_code ec;
      fs::remove(dev_root() / tty, ec);
      fs::create_symlink(node_target, dev_root() / tty);
    }
    fs::path dev = root_ / "devices" / "pci0000:00" / "usb1" / usb;
    fs::path iface = dev / (usb + ":1.0");
    fs::path node = iface / tty;
    fs::create_directories(node);
    write(dev / "idVendor", vid);
    write(dev / "idProduct", pid);
    if (!serial.empty()) write(dev / "serial", serial);
    write(dev / "product", product);
    fs::path cls = root_ / "devices" / "class-tty" / tty;
    fs::create_directories(cls);
    fs::create_directory_symlink(node, cls / "device");
    // Last: the class entry is what a scan walks, so the device is complete when it shows.
    fs::create_directory_symlink(cls, root_ / "class" / "tty" / tty);
  }
  // A USB HID device (no tty): listed under bus/usb/devices, as the kernel does, with its bus and address.
  void plug_hid(const std::string& usb, const std::string& vid, const std::string& pid,
                const std::string& serial, int bus, int address) {
    namespace fs = std::filesystem;
    fs::path dev = root_ / "devices" / "pci0000:00" / "usb1" / usb;
    fs::create_directories(dev);
    write(dev / "idVendor", vid);
    write(dev / "idProduct", pid);
    write(dev / "busnum", std::to_string(bus));
    write(dev / "devnum", std::to_string(address));
    if (!serial.empty()) write(dev / "serial", serial);
    fs::create_directories(root_ / "bus" / "usb" / "devices");
    fs::create_directory_symlink(dev, root_ / "bus" / "usb" / "devices" / usb);
  }
  void unplug(const std::string& usb, const std::string& tty) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::remove(root_ / "class" / "tty" / tty, ec);
    fs::remove_all(root_ / "devices" / "class-tty" / tty, ec);
    fs::remove_all(root_ / "devices" / "pci0000:00" / "usb1" / usb, ec);
    fs::remove(dev_root() / tty, ec);
  }
  void unplug_hid(const std::string& usb) {
    std::error_code ec;
    std::filesystem::remove(root_ / "bus" / "usb" / "devices" / usb, ec);
    std::filesystem::remove_all(root_ / "devices" / "pci0000:00" / "usb1" / usb, ec);
  }

 private:
  static void write(const std::filesystem::path& p, const std::string& text) {
    std::ofstream(p) << text << "\n";
  }
  static inline int counter_ = 0;
  std::filesystem::path root_;
};

}  // namespace eboard::test_support
