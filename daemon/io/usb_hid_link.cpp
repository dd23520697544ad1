// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/usb_hid_link.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <utility>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

namespace eboard::io {

struct UsbHidLink::Impl : std::enable_shared_from_this<Impl> {
  using Clock = std::chrono::steady_clock;

  Impl(boost::asio::io_context& io_, std::shared_ptr<HidBackend> backend_, UsbHidLinkConfig config_,
       Handlers handlers_)
      : io(io_),
        backend(std::move(backend_)),
        config(std::move(config_)),
        handlers(std::move(handlers_)),
        retry_timer(io_),
        write_timer(io_),
        delay(config.backoff.initial) {}

  boost::asio::io_context& io;
  std::shared_ptr<HidBackend> backend;
  UsbHidLinkConfig config;
  Handlers handlers;
  boost::asio::steady_timer retry_timer;
  boost::asio::steady_timer write_timer;
  std::unique_ptr<HidDevice> device;
  LinkState state = LinkState::stopped;
  LinkStats stats;
  std::deque<std::vector<std::uint8_t>> queue;
  bool writing = false;
  bool write_timer_armed = false;
  // When the last write was done: the spacing counts from there, so the device sees at least that gap
  // however late the transfer went out after its submission.
  std::optional<Clock::time_point> last_write_done;
  std::optional<Clock::time_point> connected_at;
  std::chrono::milliseconds delay;
  bool retry_armed = false;
  bool ever_connected = false;
  // Bumped at every close and stop: a report or completion posted by the backend's thread for an
  // earlier device is dropped on arrival.
  std::uint64_t generation = 0;

  void schedule_open(std::chrono::milliseconds wait) {
    retry_armed = true;
    retry_timer.expires_after(wait);
    retry_timer.async_wait([weak = weak_from_this(), gen = generation](const boost::system::error_code& ec) {
      auto self = weak.lock();
      if (ec || !self || gen != self->generation || self->state != LinkState::connecting) return;
      self->retry_armed = false;
      self->try_open();
    });
  }

  void try_open() {
    auto opened = backend->open(config.open);
    if (!opened) {
      ++stats.open_failures;
      const auto wait = delay;
      delay = std::min(delay * 2, config.backoff.max);
      schedule_open(wait);
      if (handlers.on_open_failed) handlers.on_open_failed(opened.error(), wait);
      return;
    }
    device = std::move(*opened);
    state = LinkState::connected;
    connected_at = Clock::now();
    ++stats.connects;
    if (ever_connected) ++stats.reconnects;
    ever_connected = true;
    HidReadHandlers read;
    // These run on the backend's thread: they only carry the bytes over to the loop.
    read.on_report = [weak = weak_from_this(), gen = generation, &io = io](std::vector<std::uint8_t> report) {
      boost::asio::post(io, [weak, gen, report = std::move(report)] {
        auto self = weak.lock();
        if (self && gen == self->generation && self->state == LinkState::connected) self->on_report(report);
      });
    };
    read.on_gone = [weak = weak_from_this(), gen = generation, &io = io](const IoError& why) {
      boost::asio::post(io, [weak, gen, why] {
        auto self = weak.lock();
        if (self && gen == self->generation && self->state == LinkState::connected) self->lose(why);
      });
    };
    device->start_reading(std::move(read));
    if (handlers.on_connected) handlers.on_connected();
    pump();
  }

  void on_report(const std::vector<std::uint8_t>& report) {
    stats.bytes_in += report.size();
    if (handlers.on_bytes) handlers.on_bytes(std::span<const std::uint8_t>(report));
  }

  void close_device() {
    ++generation;
    device.reset();  // waits for its transfers: nothing of the old device reaches us afterwards
    writing = false;
    write_timer_armed = false;
    write_timer.cancel();
    for (const auto& r : queue) stats.bytes_dropped += r.size();
    queue.clear();
  }

  void lose(const IoError& why) {
    const bool stable = connected_at && Clock::now() - *connected_at >= config.backoff.stable_after;
    close_device();
    state = LinkState::connecting;
    ++stats.disconnects;
    if (stable) delay = config.backoff.initial;
    schedule_open(delay);
    if (handlers.on_disconnected) handlers.on_disconnected(why);
  }

  void pump() {
    if (state != LinkState::connected || writing || write_timer_armed || queue.empty()) return;
    const auto now = Clock::now();
    if (last_write_done && now < *last_write_done + config.write_spacing) {
      write_timer_armed = true;
      write_timer.expires_at(*last_write_done + config.write_spacing);
      write_timer.async_wait(
          [weak = weak_from_this(), gen = generation](const boost::system::error_code& ec) {
            auto self = weak.lock();
            if (ec || !self || gen != self->generation) return;
            self->write_timer_armed = false;
            self->pump();
          });
      return;
    }
    auto report = std::move(queue.front());
    queue.pop_front();
    writing = true;
    const std::size_t size = report.size();
    device->write(std::move(report),
                  [weak = weak_from_this(), gen = generation, size, &io = io](std::optional<IoError> error) {
                    boost::asio::post(io, [weak, gen, size, error = std::move(error)] {
                      auto self = weak.lock();
                      if (!self || gen != self->generation || self->state != LinkState::connected) return;
                      self->writing = false;
                      self->last_write_done = Clock::now();
                      if (error) {
                        // A report the device refused is lost; a device that is gone is the reader's news
                        // too, but whichever comes first closes the link.
                        if (error->kind == IoError::Kind::disconnected) {
                          self->stats.bytes_dropped += size;
                          self->lose(*error);
                          return;
                        }
                        self->stats.bytes_dropped += size;
                      } else {
                        self->stats.bytes_out += size;
                      }
                      self->pump();
                    });
                  });
  }
};

UsbHidLink::UsbHidLink(boost::asio::io_context& io, std::shared_ptr<HidBackend> backend,
                       UsbHidLinkConfig config, Handlers handlers)
    : impl_(std::make_shared<Impl>(io, std::move(backend), std::move(config), std::move(handlers))) {}

UsbHidLink::~UsbHidLink() { stop(); }

void UsbHidLink::start() {
  if (impl_->state != LinkState::stopped) return;
  impl_->state = LinkState::connecting;
  impl_->delay = impl_->config.backoff.initial;
  impl_->schedule_open(std::chrono::milliseconds{0});
}

void UsbHidLink::stop() {
  if (impl_->state == LinkState::stopped) return;
  impl_->close_device();
  impl_->retry_armed = false;
  impl_->retry_timer.cancel();
  impl_->state = LinkState::stopped;
}

tl::expected<void, IoError> UsbHidLink::write(std::vector<std::uint8_t> report) {
  if (impl_->state != LinkState::connected)
    return tl::unexpected(IoError{IoError::Kind::not_connected, 0, "the USB board is not connected"});
  if (impl_->queue.size() >= impl_->config.max_queued_reports)
    return tl::unexpected(IoError{IoError::Kind::queue_full, 0, "too many reports queued for the USB board"});
  impl_->queue.push_back(std::move(report));
  impl_->pump();
  return {};
}

void UsbHidLink::reconnect_now(const std::string& device) {
  if (!device.empty()) impl_->config.open.device = device;
  if (impl_->state != LinkState::connecting || !impl_->retry_armed) return;
  impl_->delay = impl_->config.backoff.initial;
  impl_->retry_timer.cancel();  // its handler sees the error and does nothing
  impl_->schedule_open(std::chrono::milliseconds{0});
}

LinkState UsbHidLink::state() const { return impl_->state; }
const LinkStats& UsbHidLink::stats() const { return impl_->stats; }
const UsbHidLinkConfig& UsbHidLink::config() const { return impl_->config; }
std::string UsbHidLink::description() const { return impl_->device ? impl_->device->description() : ""; }
std::size_t UsbHidLink::queued_reports() const { return impl_->queue.size(); }

}  // namespace eboard::io
