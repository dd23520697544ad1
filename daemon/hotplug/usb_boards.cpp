// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/hotplug/usb_boards.hpp"

#include <libusb.h>
#include <poll.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <optional>
#include <system_error>
#include <tuple>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include "daemon/session/board_protocol.hpp"

namespace eboard::hotplug {

namespace fs = std::filesystem;

namespace {

// Every row's USB serial ids, in the rows' order.
const std::vector<UsbId>& serial_ids() {
  static const std::vector<UsbId> ids = [] {
    std::vector<UsbId> out;
    for (const auto& row : session::board_protocols())
      for (const auto& id : row.usb_serial_ids)
        out.push_back({id.vendor, id.product, row.name, id.generic_bridge, row.usb_descriptor_mark});
    return out;
  }();
  return ids;
}

std::string read_line(const fs::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::uint16_t> read_hex16(const fs::path& p) {
  std::string s = read_line(p);
  if (s.empty() || s.size() > 4) return std::nullopt;
  try {
    std::size_t used = 0;
    unsigned long v = std::stoul(s, &used, 16);
    if (used != s.size()) return std::nullopt;
    return static_cast<std::uint16_t>(v);
  } catch (...) {
    return std::nullopt;
  }
}

const UsbId* known(std::uint16_t vid, std::uint16_t pid) {
  for (const auto& id : serial_ids())
    if (id.vid == vid && id.pid == pid) return &id;
  return nullptr;
}

// The USB HID row whose ids these are.
const session::BoardProtocol* hid_row(std::uint16_t vid, std::uint16_t pid) {
  for (const auto& row : session::board_protocols())
    if (row.transport == session::Transport::usb_hid && row.usb_product && row.usb_vendor == vid &&
        row.usb_product(pid))
      return &row;
  return nullptr;
}

// What the USB device at sysfs `dev` says of itself.
void describe(UsbBoard& b, const fs::path& dev, std::uint16_t vid, std::uint16_t pid,
              std::string_view protocol) {
  b.vid = vid;
  b.pid = pid;
  b.serial = read_line(dev / "serial");
  b.manufacturer = read_line(dev / "manufacturer");
  b.product = read_line(dev / "product");
  b.protocol = protocol;
}

}  // namespace

std::span<const UsbId> known_board_ids() { return serial_ids(); }

bool UsbBoard::names_board() const {
  const UsbId* id = known(vid, pid);
  if (!id) return hid_row(vid, pid) != nullptr;  // a USB HID board: named by its make's own ids
  if (!id->generic_bridge) return true;
  const std::string_view mark = id->descriptor_mark;
  return !mark.empty() &&
         (manufacturer.find(mark) != std::string::npos || product.find(mark) != std::string::npos);
}

std::string UsbBoard::stable_name() const {
  return "/dev/eboard/" + protocol + (serial.empty() ? "-path-" + usb_path : "-" + serial);
}

std::vector<UsbBoard> scan(const fs::path& sys_root, const fs::path& dev_root) {
  std::vector<UsbBoard> found;
  std::error_code ec;
  for (fs::directory_iterator it(sys_root / "class" / "tty", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    fs::path dev = fs::canonical(it->path() / "device", e2);
    if (e2) continue;  // a virtual terminal: no device behind it
    // Up from the interface (or usb-serial port) to the USB device: the first directory with the ids.
    for (fs::path p = dev; !p.empty() && p != p.root_path() && p.string().size() > sys_root.string().size();
         p = p.parent_path()) {
      if (!fs::exists(p / "idVendor", e2) || !fs::exists(p / "idProduct", e2)) continue;
      auto vid = read_hex16(p / "idVendor"), pid = read_hex16(p / "idProduct");
      const UsbId* id = vid && pid ? known(*vid, *pid) : nullptr;
      if (id) {
        UsbBoard b;
        b.tty = it->path().filename().string();
        b.device = (dev_root / b.tty).string();
        b.usb_path = p.filename().string();
        describe(b, p, *vid, *pid, id->protocol);
        found.push_back(std::move(b));
      }
      break;
    }
  }
  // USB HID boards (Chessnut) have no tty: the USB device itself, opened through libusb by "BUS:ADDRESS".
  for (fs::directory_iterator it(sys_root / "bus" / "usb" / "devices", ec), end; !ec && it != end;
       it.increment(ec)) {
    const fs::path p = it->path();
    auto vid = read_hex16(p / "idVendor"), pid = read_hex16(p / "idProduct");
    const session::BoardProtocol* row = vid && pid ? hid_row(*vid, *pid) : nullptr;
    if (!row) continue;
    const std::string bus = read_line(p / "busnum"), address = read_line(p / "devnum");
    if (bus.empty() || address.empty()) continue;
    UsbBoard b;
    b.device = bus;
    b.device += ':';
    b.device += address;
    b.usb_path = p.filename().string();
    describe(b, p, *vid, *pid, row->name);
    found.push_back(std::move(b));
  }
  std::sort(found.begin(), found.end(), [](const UsbBoard& a, const UsbBoard& b) {
    return std::tie(a.tty, a.device) < std::tie(b.tty, b.device);
  });
  return found;
}

UsbChange diff(const std::vector<UsbBoard>& before, const std::vector<UsbBoard>& after) {
  UsbChange c;
  for (const auto& b : after)
    if (std::find(before.begin(), before.end(), b) == before.end()) c.added.push_back(b);
  for (const auto& b : before)
    if (std::find(after.begin(), after.end(), b) == after.end()) c.removed.push_back(b);
  return c;
}

struct UsbWatcher::Impl {
  Impl(boost::asio::io_context& context, WatchOptions o, Handler h)
      : io(context),
        options(std::move(o)),
        handler(std::move(h)),
        poll_timer(context),
        settle_timer(context) {}

  boost::asio::io_context& io;
  WatchOptions options;
  Handler handler;
  std::vector<UsbBoard> boards;
  boost::asio::steady_timer poll_timer, settle_timer;
  libusb_context* ctx = nullptr;
  libusb_hotplug_callback_handle callback{};
  bool hotplug = false;
  bool running = false;
  std::vector<std::unique_ptr<boost::asio::posix::stream_descriptor>> fds;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);

  void rescan() {
    if (!running) return;
    auto now = scan(options.sys_root, options.dev_root);
    UsbChange c = diff(boards, now);
    boards = std::move(now);
    if (!c.empty() && handler) handler(c);
  }

  void arm_poll() {
    if (!running || hotplug) return;
    poll_timer.expires_after(options.poll_interval);
    poll_timer.async_wait([this, a = std::weak_ptr<bool>(alive)](boost::system::error_code ec) {
      if (ec || a.expired()) return;
      rescan();
      arm_poll();
    });
  }

  // libusb tells that something arrived or left; the tty node follows a moment later.
  static int LIBUSB_CALL on_hotplug(libusb_context*, libusb_device*, libusb_hotplug_event, void* self) {
    auto* impl = static_cast<Impl*>(self);
    impl->settle_timer.expires_after(impl->options.settle);
    impl->settle_timer.async_wait([impl, a = std::weak_ptr<bool>(impl->alive)](boost::system::error_code ec) {
      if (!ec && !a.expired()) impl->rescan();
    });
    return 0;  // stay registered
  }

  void watch(boost::asio::posix::stream_descriptor& sd, short events) {
    auto kind = (events & POLLOUT) ? boost::asio::posix::stream_descriptor::wait_write
                                   : boost::asio::posix::stream_descriptor::wait_read;
    sd.async_wait(kind, [this, &sd, events, a = std::weak_ptr<bool>(alive)](boost::system::error_code ec) {
      if (ec || a.expired() || !running) return;
      timeval zero{0, 0};
      libusb_handle_events_timeout_completed(ctx, &zero, nullptr);
      watch(sd, events);
    });
  }

  bool start_libusb() {
    if (!options.use_libusb) return false;
    std::error_code ec;
    if (!options.udev_control.empty() && !fs::exists(options.udev_control, ec)) return false;
    if (libusb_init(&ctx) != 0) {
      ctx = nullptr;
      return false;
    }
    if (!libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) ||
        libusb_hotplug_register_callback(
            ctx,
            static_cast<libusb_hotplug_event>(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
                                              LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT),
            LIBUSB_HOTPLUG_NO_FLAGS, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
            LIBUSB_HOTPLUG_MATCH_ANY, &Impl::on_hotplug, this, &callback) != LIBUSB_SUCCESS) {
      libusb_exit(ctx);
      ctx = nullptr;
      return false;
    }
    const libusb_pollfd** pfds = libusb_get_pollfds(ctx);
    if (!pfds) {
      stop_libusb();
      return false;
    }
    for (const libusb_pollfd** p = pfds; *p; ++p) {
      fds.push_back(std::make_unique<boost::asio::posix::stream_descriptor>(io, (*p)->fd));
      watch(*fds.back(), (*p)->events);
    }
    libusb_free_pollfds(pfds);
    return true;
  }

  void stop_libusb() {
    for (auto& sd : fds) {
      boost::system::error_code ec;
      sd->cancel(ec);
      sd->release();  // libusb owns its descriptors
    }
    fds.clear();
    if (ctx) {
      libusb_hotplug_deregister_callback(ctx, callback);
      libusb_exit(ctx);
      ctx = nullptr;
    }
  }
};

UsbWatcher::UsbWatcher(boost::asio::io_context& io, WatchOptions options, Handler handler)
    : impl_(std::make_unique<Impl>(io, std::move(options), std::move(handler))) {}

UsbWatcher::~UsbWatcher() {
  stop();
  *impl_->alive = false;
}

void UsbWatcher::start() {
  if (impl_->running) return;
  impl_->running = true;
  impl_->hotplug = impl_->start_libusb();
  impl_->rescan();
  impl_->arm_poll();
}

void UsbWatcher::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->poll_timer.cancel();
  impl_->settle_timer.cancel();
  impl_->stop_libusb();
  impl_->hotplug = false;
}

const std::vector<UsbBoard>& UsbWatcher::boards() const { return impl_->boards; }

std::string UsbWatcher::mechanism() const {
  if (impl_->hotplug) return "libusb hotplug";
  return "polling sysfs every " + std::to_string(impl_->options.poll_interval.count()) + " ms";
}

std::string UsbWatcher::mode() const {
  if (!impl_->running) return "stopped";
  return impl_->hotplug ? "libusb hotplug" : "sysfs polling";
}

const WatchOptions& UsbWatcher::options() const { return impl_->options; }

}  // namespace eboard::hotplug
