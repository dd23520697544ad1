// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A fake at the libusb seam (daemon/io/usb_hid.hpp): a "bus" with one HID board that can be unplugged and
// plugged back. Reports and write completions come from a thread of its own, as from libusb's event thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "daemon/io/usb_hid.hpp"

namespace eboard::io::test {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;

// Runs posted jobs on a thread of its own: stands in for libusb's event thread.
class EventThread {
 public:
  EventThread() : thread_([this] { run(); }) {}
  ~EventThread() {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void post(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
    }
    cv_.notify_all();
  }
  // Every job posted so far has run.
  void drain() {
    std::atomic<bool> done{false};
    post([&] { done = true; });
    while (!done) std::this_thread::yield();
  }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return quit_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool quit_ = false;
  std::thread thread_;
};

struct FakeBus {
  std::mutex mutex;
  bool plugged = true;
  int opens = 0;
  std::vector<std::pair<Clock::time_point, Bytes>> written;
  HidReadHandlers reader;  // the open device's
  bool device_open = false;
  EventThread events;  // last member: joined first, before the rest goes
};

class FakeDevice final : public HidDevice {
 public:
  explicit FakeDevice(std::shared_ptr<FakeBus> bus) : bus_(std::move(bus)) {}
  ~FakeDevice() override {
    bus_->events.drain();  // as libusb's close: nothing of this device runs after it
    std::lock_guard lock(bus_->mutex);
    bus_->device_open = false;
    bus_->reader = {};
  }
  void start_reading(HidReadHandlers handlers) override {
    std::lock_guard lock(bus_->mutex);
    bus_->reader = std::move(handlers);
  }
  void write(Bytes report, std::function<void(std::optional<IoError>)> done) override {
    bus_->events.post([bus = bus_, report = std::move(report), done = std::move(done)] {
      std::optional<IoError> error;
      {
        std::lock_guard lock(bus->mutex);
        if (bus->plugged)
          bus->written.emplace_back(Clock::now(), report);
        else
          error = IoError{IoError::Kind::disconnected, 0, "LIBUSB_ERROR_NO_DEVICE"};
      }
      done(error);
    });
  }
  std::string description() const override { return "fake 2d80:8002"; }

 private:
  std::shared_ptr<FakeBus> bus_;
};

class FakeBackend final : public HidBackend {
 public:
  explicit FakeBackend(std::shared_ptr<FakeBus> bus) : bus_(std::move(bus)) {}
  tl::expected<std::unique_ptr<HidDevice>, IoError> open(const HidOpenRequest&) override {
    std::lock_guard lock(bus_->mutex);
    if (!bus_->plugged) return tl::unexpected(IoError{IoError::Kind::not_found, 0, "no such USB board"});
    ++bus_->opens;
    bus_->device_open = true;
    return std::make_unique<FakeDevice>(bus_);
  }

 private:
  std::shared_ptr<FakeBus> bus_;
};

// The board sends a report (from the event thread, as libusb would).
inline void board_sends(FakeBus& bus, Bytes report) {
  bus.events.post([&bus, report = std::move(report)] {
    HidReadHandlers r;
    {
      std::lock_guard lock(bus.mutex);
      r = bus.reader;
    }
    if (r.on_report) r.on_report(report);
  });
}

inline void unplug(FakeBus& bus) {
  bus.events.post([&bus] {
    HidReadHandlers r;
    {
      std::lock_guard lock(bus.mutex);
      bus.plugged = false;
      r = bus.reader;
    }
    if (r.on_gone) r.on_gone(IoError{IoError::Kind::disconnected, 0, "LIBUSB_TRANSFER_NO_DEVICE"});
  });
}

}  // namespace eboard::io::test
