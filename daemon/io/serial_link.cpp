// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/serial_link.hpp"

#include <sys/ioctl.h>

#include <filesystem>

#include <algorithm>
#include <deque>
#include <utility>

#include <boost/asio/error.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "daemon/io/path_watch.hpp"

namespace eboard::io {

namespace {

IoError from_error_code(const boost::system::error_code& ec) {
  IoError err;
  err.kind = IoError::Kind::disconnected;
  if (ec == boost::asio::error::eof) {
    err.message = "end of file (the other end hung up)";
  } else {
    if (ec.category() == boost::system::system_category()) err.sys_errno = ec.value();
    err.message = ec.message();
  }
  return err;
}

}  // namespace

// Handlers capture a shared_ptr to Impl, so a handler that runs after the SerialLink is gone (or after
// stop()) still finds valid memory; `generation_` tells it that its connection or timer is stale.
struct SerialLink::Impl : std::enable_shared_from_this<SerialLink::Impl> {
  Impl(boost::asio::io_context& io, LinkConfig cfg, Handlers h)
      : io_(io), descriptor_(io), retry_timer_(io), config_(std::move(cfg)), handlers_(std::move(h)) {
    read_buffer_.resize(std::max<std::size_t>(config_.read_chunk, 1));
  }

  // After construction (it needs shared_from_this): the watch that wakes a waiting link.
  void make_watch() {
    watch_ = std::make_unique<PathWatch>(io_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->woken();
    });
  }

  // The device's directory changed while we wait: try now (once for a burst of events).
  void woken() {
    if (state_ != LinkState::connecting || wake_posted_) return;
    wake_posted_ = true;
    retry_timer_.cancel();
    const auto gen = ++generation_;
    boost::asio::post(io_, [self = shared_from_this(), gen] {
      self->wake_posted_ = false;
      if (gen != self->generation_ || self->state_ != LinkState::connecting) return;
      ++self->stats_.wakeups;
      self->try_open();
    });
  }

  // The wait before the next try: the backoff's, no longer than present_max while the path is there.
  std::chrono::milliseconds retry_delay(std::chrono::milliseconds backoff) const {
    std::error_code ec;
    if (std::filesystem::exists(config_.device, ec)) return std::min(backoff, config_.backoff.present_max);
    return backoff;
  }

  boost::asio::io_context& io_;
  boost::asio::posix::stream_descriptor descriptor_;
  boost::asio::steady_timer retry_timer_;
  LinkConfig config_;
  Handlers handlers_;

  SerialPort port_;
  LinkState state_ = LinkState::stopped;
  std::uint64_t generation_ = 0;  // bumped on every open, close, start and stop
  LinkStats stats_;
  std::vector<std::uint8_t> read_buffer_;
  std::deque<std::vector<std::uint8_t>> write_queue_;
  std::size_t queued_bytes_ = 0;
  bool writing_ = false;
  bool ever_connected_ = false;
  std::chrono::milliseconds next_delay_{0};
  std::chrono::steady_clock::time_point connected_at_{};
  std::unique_ptr<PathWatch> watch_;
  bool wake_posted_ = false;

  void start() {
    if (state_ != LinkState::stopped) return;
    state_ = LinkState::connecting;
    ++generation_;
    next_delay_ = config_.backoff.initial;
    boost::asio::post(io_, [self = shared_from_this(), gen = generation_] {
      if (gen == self->generation_ && self->state_ == LinkState::connecting) self->try_open();
    });
  }

  void stop() {
    if (state_ == LinkState::stopped) return;
    close_port();
    retry_timer_.cancel();
    if (watch_) watch_->stop();
    state_ = LinkState::stopped;
    ++generation_;
  }

  void reconnect_now(const std::string& device) {
    if (!device.empty()) config_.device = device;
    if (state_ != LinkState::connecting) return;
    retry_timer_.cancel();
    next_delay_ = config_.backoff.initial;
    const auto gen = ++generation_;  // the pending retry (or posted first attempt) is stale now
    boost::asio::post(io_, [self = shared_from_this(), gen] {
      if (gen == self->generation_ && self->state_ == LinkState::connecting) self->try_open();
    });
  }

  void try_open() {
    auto opened = config_.open_wire ? config_.open_wire()
                                    : SerialPort::open(config_.device, config_.line, config_.open);
    if (!opened) {
      ++stats_.open_failures;
      const auto delay = retry_delay(next_delay_);
      next_delay_ = std::min(next_delay_ * 2, config_.backoff.max);
      schedule_retry(delay);
      if (handlers_.on_open_failed) handlers_.on_open_failed(opened.error(), delay);
      return;
    }
    boost::system::error_code ec;
    descriptor_.assign(opened->native_handle(), ec);
    if (ec) {
      ++stats_.open_failures;
      IoError err{IoError::Kind::open_failed, ec.value(), "cannot watch the port: " + ec.message()};
      opened->close();
      const auto delay = next_delay_;
      next_delay_ = std::min(next_delay_ * 2, config_.backoff.max);
      schedule_retry(delay);
      if (handlers_.on_open_failed) handlers_.on_open_failed(err, delay);
      return;
    }
    if (watch_) watch_->stop();
    port_ = std::move(*opened);
    state_ = LinkState::connected;
    ++generation_;
    ++stats_.connects;
    if (ever_connected_) ++stats_.reconnects;
    ever_connected_ = true;
    connected_at_ = std::chrono::steady_clock::now();
    start_read();
    if (handlers_.on_connected) handlers_.on_connected();
  }

  void schedule_retry(std::chrono::milliseconds delay) {
    state_ = LinkState::connecting;
    if (watch_) watch_->watch(config_.device);
    const auto gen = ++generation_;
    retry_timer_.expires_after(delay);
    retry_timer_.async_wait([self = shared_from_this(), gen](const boost::system::error_code& ec) {
      if (ec || gen != self->generation_ || self->state_ != LinkState::connecting) return;
      self->try_open();
    });
  }

  void start_read() {
    descriptor_.async_read_some(
        boost::asio::buffer(read_buffer_),
        [self = shared_from_this(), gen = generation_](const boost::system::error_code& ec, std::size_t n) {
          self->on_read(gen, ec, n);
        });
  }

  void on_read(std::uint64_t gen, const boost::system::error_code& ec, std::size_t n) {
    if (gen != generation_ || state_ != LinkState::connected) return;
    if (ec) {
      if (ec == boost::asio::error::operation_aborted) return;
      disconnect(from_error_code(ec));
      return;
    }
    stats_.bytes_in += n;
    if (handlers_.on_bytes) handlers_.on_bytes(std::span<const std::uint8_t>(read_buffer_.data(), n));
    if (gen == generation_ && state_ == LinkState::connected) start_read();
  }

  tl::expected<void, IoError> write(std::vector<std::uint8_t> bytes) {
    if (state_ != LinkState::connected) {
      return tl::unexpected(IoError{IoError::Kind::not_connected, 0, config_.device + ": not connected"});
    }
    if (bytes.empty()) return {};
    if (queued_bytes_ + bytes.size() > config_.max_queued_bytes) {
      return tl::unexpected(IoError{IoError::Kind::queue_full, 0, config_.device + ": write queue full"});
    }
    queued_bytes_ += bytes.size();
    write_queue_.push_back(std::move(bytes));
    if (!writing_) start_write();
    return {};
  }

  void start_write() {
    writing_ = true;
    // deque::push_back keeps references to existing elements valid, so front() stays put meanwhile.
    boost::asio::async_write(
        descriptor_, boost::asio::buffer(write_queue_.front()),
        [self = shared_from_this(), gen = generation_](const boost::system::error_code& ec, std::size_t n) {
          self->on_written(gen, ec, n);
        });
  }

  void on_written(std::uint64_t gen, const boost::system::error_code& ec, std::size_t n) {
    if (gen != generation_ || state_ != LinkState::connected) return;
    if (ec) {
      if (ec == boost::asio::error::operation_aborted) return;
      disconnect(from_error_code(ec));
      return;
    }
    stats_.bytes_out += n;
    queued_bytes_ -= write_queue_.front().size();
    write_queue_.pop_front();
    if (write_queue_.empty()) {
      writing_ = false;
    } else {
      start_write();
    }
  }

  void disconnect(const IoError& why) {
    const auto lived = std::chrono::steady_clock::now() - connected_at_;
    close_port();
    ++stats_.disconnects;
    if (lived >= config_.backoff.stable_after) next_delay_ = config_.backoff.initial;
    const auto delay = retry_delay(next_delay_);
    next_delay_ = std::min(next_delay_ * 2, config_.backoff.max);
    schedule_retry(delay);  // before the callback, which may stop() or restart
    if (handlers_.on_disconnected) handlers_.on_disconnected(why);
  }

  // Order matters: release() takes the fd back from Asio (cancelling its operations) so that only
  // sp_close() closes it; closing it twice could close an unrelated fd that reused the number.
  void close_port() {
    ++generation_;
    if (descriptor_.is_open()) {
      boost::system::error_code ignored;
      descriptor_.cancel(ignored);
      (void)descriptor_.release();
    }
    port_.close();
    stats_.bytes_dropped += queued_bytes_;
    write_queue_.clear();
    queued_bytes_ = 0;
    writing_ = false;
    if (state_ == LinkState::connected) state_ = LinkState::connecting;
  }
};

SerialLink::SerialLink(boost::asio::io_context& io, LinkConfig config, Handlers handlers)
    : impl_(std::make_shared<Impl>(io, std::move(config), std::move(handlers))) {
  impl_->make_watch();
}

SerialLink::~SerialLink() {
  impl_->stop();
  impl_->watch_.reset();
  impl_->handlers_ = {};  // pending handlers may keep Impl alive a little; they must not call out
}

void SerialLink::start() { impl_->start(); }
void SerialLink::stop() { impl_->stop(); }
void SerialLink::reconnect_now(const std::string& device) { impl_->reconnect_now(device); }
tl::expected<void, IoError> SerialLink::write(std::vector<std::uint8_t> bytes) {
  return impl_->write(std::move(bytes));
}
LinkState SerialLink::state() const { return impl_->state_; }
const LinkStats& SerialLink::stats() const { return impl_->stats_; }
const LinkConfig& SerialLink::config() const { return impl_->config_; }
std::size_t SerialLink::queued_bytes() const { return impl_->queued_bytes_; }

std::size_t SerialLink::bytes_waiting() const {
  if (impl_->state_ != LinkState::connected || !impl_->descriptor_.is_open()) return 0;
  int n = 0;
  if (::ioctl(impl_->descriptor_.native_handle(), FIONREAD, &n) != 0 || n < 0) return 0;
  return static_cast<std::size_t>(n);
}
std::optional<PortInfo> SerialLink::port_info() const {
  if (impl_->state_ != LinkState::connected) return std::nullopt;
  return impl_->port_.info();
}

}  // namespace eboard::io
