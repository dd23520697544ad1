// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/testing/mock_serial_device.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <umockdev.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>
#include <utility>

namespace eboard::io::testing {

namespace {

constexpr std::string_view kPreload = "libumockdev-preload.so.0";

// One testbed per process: it sets $UMOCKDEV_DIR with setenv(), which must not race with other threads
// reading the environment, so it is created once and lives until exit.
struct Testbed {
  UMockdevTestbed* bed = nullptr;
  std::string root;
  Testbed() {
    bed = umockdev_testbed_new();
    if (bed != nullptr) {
      gchar* dir = umockdev_testbed_get_root_dir(bed);
      root = dir != nullptr ? dir : "";
      g_free(dir);
    }
  }
  ~Testbed() {
    if (bed != nullptr) g_object_unref(bed);  // closes the pty masters and removes the directory
  }
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;
};

Testbed& testbed() {
  static Testbed instance;
  return instance;
}

std::atomic<int> next_index{0};

// Runs in umockdev's worker thread for every ioctl the opener makes on the device. A pty has no modem
// lines, so TIOCMGET/TIOCMSET/TIOCMBIS/TIOCMBIC would fail with ENOTTY and sp_open() with them; answer
// those as a USB-serial bridge with all lines up would, and run everything else on the real pty.
gboolean on_ioctl(UMockdevIoctlBase* /*base*/, UMockdevIoctlClient* client, gpointer /*user*/) {
  const gulong request = umockdev_ioctl_client_get_request(client);
  if (request == TIOCMGET) {
    UMockdevIoctlData* arg = umockdev_ioctl_client_get_arg(client);
    GError* error = nullptr;
    UMockdevIoctlData* bits_ptr = umockdev_ioctl_data_resolve(arg, 0, sizeof(int), &error);
    if (bits_ptr == nullptr) {
      if (error != nullptr) g_error_free(error);
      umockdev_ioctl_client_complete(client, -1, EFAULT);
      return TRUE;
    }
    int bits = TIOCM_DTR | TIOCM_RTS | TIOCM_CTS | TIOCM_DSR | TIOCM_CD;
    umockdev_ioctl_data_update(bits_ptr, 0, reinterpret_cast<guint8*>(&bits), sizeof(bits));
    umockdev_ioctl_client_complete(client, 0, 0);
    g_object_unref(bits_ptr);
    return TRUE;
  }
  if (request == TIOCMSET || request == TIOCMBIS || request == TIOCMBIC) {
    umockdev_ioctl_client_complete(client, 0, 0);
    return TRUE;
  }
  int err = 0;
  GError* error = nullptr;
  const int result = umockdev_ioctl_client_execute(client, &err, &error);
  if (error != nullptr) {
    g_error_free(error);
    umockdev_ioctl_client_complete(client, -1, EIO);
    return TRUE;
  }
  umockdev_ioctl_client_complete(client, result, result < 0 ? err : 0);
  return TRUE;
}

std::string sanitize(std::string s) {
  for (char& c : s) {
    if (c == ' ' || c == '/') c = '_';
  }
  return s;
}

std::string hex4(std::uint16_t v) {
  char buf[8];
  std::snprintf(buf, sizeof(buf), "%04x", static_cast<unsigned>(v));
  return buf;
}

}  // namespace

bool umockdev_preload_loaded() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libumockdev-preload") != std::string::npos) return true;
  }
  return false;
}

void ensure_umockdev_preload(char** argv) {
  if (umockdev_preload_loaded()) return;
  if (std::getenv("EBOARD_UMOCKDEV_REEXEC") != nullptr) return;  // tried once already: not installed
  std::string preload(kPreload);
  if (const char* old = std::getenv("LD_PRELOAD"); old != nullptr && *old != '\0') {
    preload += ':';
    preload += old;
  }
  std::string asan = "verify_asan_link_order=0";
  if (const char* old = std::getenv("ASAN_OPTIONS"); old != nullptr && *old != '\0') {
    asan = std::string(old) + ':' + asan;
  }
  ::setenv("LD_PRELOAD", preload.c_str(), 1);
  ::setenv("ASAN_OPTIONS", asan.c_str(), 1);
  ::setenv("EBOARD_UMOCKDEV_REEXEC", "1", 1);
  ::execv("/proc/self/exe", argv);
  // exec failed: carry on without the preload; callers see umockdev_preload_loaded() == false
}

std::string umockdev_root() { return testbed().root; }

MockSerialDevice::MockSerialDevice(UsbSerialIdentity identity) : identity_(std::move(identity)) {
  stable_path_ = "/dev/serial/by-id/usb-" + sanitize(identity_.manufacturer) + "_" +
                 sanitize(identity_.product) + "_" + sanitize(identity_.serial) + "-if00-port0";
}

tl::expected<std::unique_ptr<MockSerialDevice>, std::string> MockSerialDevice::create(
    UsbSerialIdentity identity) {
  if (testbed().bed == nullptr || testbed().root.empty()) {
    return tl::unexpected(std::string("cannot create the umockdev testbed"));
  }
  return std::unique_ptr<MockSerialDevice>(new MockSerialDevice(std::move(identity)));
}

MockSerialDevice::~MockSerialDevice() { unplug(); }

tl::expected<void, std::string> MockSerialDevice::plug() {
  if (plugged()) return {};
  Testbed& tb = testbed();
  const int n = next_index.fetch_add(1);
  const std::string tty = "ttyUSB" + std::to_string(n);
  const std::string usb = "/devices/pci0000:00/0000:00:14.0/usb1/1-" + std::to_string(n + 1);
  const std::string iface = usb + "/1-" + std::to_string(n + 1) + ":1.0";
  // The same layout as a real FTDI adapter: usb_device / interface / ttyUSBn (port) / tty/ttyUSBn.
  std::string description;
  description += "P: " + usb + "\nE: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\n";
  description += "A: idVendor=" + hex4(identity_.vid) + "\nA: idProduct=" + hex4(identity_.pid) + "\n";
  description += "A: busnum=1\nA: devnum=" + std::to_string(n + 2) + "\n";
  description += "A: manufacturer=" + identity_.manufacturer + "\nA: product=" + identity_.product + "\n";
  description += "A: serial=" + identity_.serial + "\n\n";
  description += "P: " + iface + "/" + tty + "/tty/" + tty + "\nN: " + tty + "\n";
  description += "E: SUBSYSTEM=tty\nE: DEVNAME=/dev/" + tty + "\n";
  description += "A: dev=188:" + std::to_string(n) + "\nL: device=../../../" + tty + "\n\n";

  GError* error = nullptr;
  if (!umockdev_testbed_add_from_string(tb.bed, description.c_str(), &error)) {
    std::string msg = error != nullptr ? error->message : "unknown error";
    if (error != nullptr) g_error_free(error);
    return tl::unexpected("umockdev: " + msg);
  }
  usb_syspath_ = "/sys" + usb;
  tty_syspath_ = "/sys" + iface + "/" + tty + "/tty/" + tty;
  kernel_path_ = "/dev/" + tty;

  UMockdevIoctlBase* handler = umockdev_ioctl_base_new();
  g_signal_connect(handler, "handle-ioctl", G_CALLBACK(on_ioctl), nullptr);
  if (!umockdev_testbed_attach_ioctl(tb.bed, kernel_path_.c_str(), handler, &error)) {
    std::string msg = error != nullptr ? error->message : "unknown error";
    if (error != nullptr) g_error_free(error);
    g_object_unref(handler);
    umockdev_testbed_remove_device(tb.bed, tty_syspath_.c_str());
    umockdev_testbed_remove_device(tb.bed, usb_syspath_.c_str());
    return tl::unexpected("umockdev attach_ioctl: " + msg);
  }
  ioctl_handler_ = handler;

  // The by-id symlink, relative like udev's, re-pointed at the new kernel name.
  const std::string link = tb.root + stable_path_;
  const std::string dir = link.substr(0, link.rfind('/'));
  g_mkdir_with_parents(dir.c_str(), 0755);
  ::unlink(link.c_str());
  if (::symlink(("../../" + tty).c_str(), link.c_str()) != 0) {
    const std::string msg = std::strerror(errno);
    unplug();
    return tl::unexpected("symlink " + link + ": " + msg);
  }
  // The pty behind the node, e.g. /dev/pts/3: unplug() must drop the testbed's map entry for it, or the
  // next plug() that gets the same pty number trips over the stale entry.
  std::array<char, 256> pts{};
  const ssize_t len = ::readlink((tb.root + kernel_path_).c_str(), pts.data(), pts.size() - 1);
  pty_name_ = len > 0 ? std::string(pts.data(), static_cast<std::size_t>(len)) : std::string();
  master_fd_ = umockdev_testbed_get_dev_fd(tb.bed, kernel_path_.c_str());
  if (master_fd_ < 0) {
    unplug();
    return tl::unexpected(std::string("umockdev created no pty for ") + kernel_path_);
  }
  return {};
}

void MockSerialDevice::unplug() {
  Testbed& tb = testbed();
  if (master_fd_ >= 0) {
    // Hang up: the testbed owns the master fd and closes it at exit, so instead of closing it we make
    // the number point at /dev/null; the pty master's last reference goes away with it.
    const int null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd >= 0) {
      ::dup2(null_fd, master_fd_);
      ::close(null_fd);
    }
    master_fd_ = -1;
  }
  if (ioctl_handler_ != nullptr) {
    GError* error = nullptr;
    if (!umockdev_testbed_detach_ioctl(tb.bed, kernel_path_.c_str(), &error) && error != nullptr) {
      g_error_free(error);
    }
    g_object_unref(static_cast<UMockdevIoctlBase*>(ioctl_handler_));
    ioctl_handler_ = nullptr;
  }
  if (!tty_syspath_.empty()) {
    const std::string link = tb.root + stable_path_;
    ::unlink(link.c_str());
    umockdev_testbed_remove_device(tb.bed, tty_syspath_.c_str());
    umockdev_testbed_remove_device(tb.bed, usb_syspath_.c_str());
    tty_syspath_.clear();
    usb_syspath_.clear();
  }
  if (!kernel_path_.empty()) ::unlink((tb.root + kernel_path_).c_str());
  if (!pty_name_.empty()) {
    std::string key = pty_name_;
    for (char& c : key) {
      if (c == '/') c = '_';
    }
    ::unlink((tb.root + "/dev/.ptymap/" + key).c_str());
    pty_name_.clear();
  }
  kernel_path_.clear();
}

}  // namespace eboard::io::testing
