// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/path_watch.hpp"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <utility>

#include <boost/asio/posix/stream_descriptor.hpp>

namespace eboard::io {

namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t MASK =
    IN_CREATE | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr int MAX_HOPS = 16;

std::string nearest_existing_directory(fs::path dir) {
  std::error_code ec;
  while (!dir.empty() && !fs::is_directory(dir, ec)) {
    const fs::path up = dir.parent_path();
    if (up == dir) break;
    dir = up;
  }
  return dir.empty() ? std::string("/") : dir.string();
}

}  // namespace

struct PathWatch::Impl : std::enable_shared_from_this<PathWatch::Impl> {
  Impl(boost::asio::io_context& io, std::function<void()> cb) : descriptor(io), on_change(std::move(cb)) {}

  boost::asio::posix::stream_descriptor descriptor;
  std::function<void()> on_change;
  std::vector<int> wds;
  std::vector<std::string> dirs;
  bool reading = false;
  bool active = false;
  std::uint64_t generation = 0;  // bumped when the fd is closed: a read of the old one is stale
  alignas(inotify_event) std::array<char, 4096> buffer{};

  bool open() {
    if (descriptor.is_open()) return true;
    const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return false;
    boost::system::error_code ec;
    descriptor.assign(fd, ec);
    if (ec) {
      ::close(fd);
      return false;
    }
    return true;
  }

  void remove_watches() {
    if (descriptor.is_open())
      for (int wd : wds) ::inotify_rm_watch(descriptor.native_handle(), wd);
    wds.clear();
    dirs.clear();
  }

  // A directory watched already keeps its watch (inotify_add_watch returns its descriptor): what it
  // reported since, unread (a link made while the owner tried to open), still wakes the owner. Only the
  // watches of directories no longer on the way are removed.
  bool watch(const std::string& path) {
    if (!open()) {
      remove_watches();
      return false;
    }
    std::vector<int> now;
    std::vector<std::string> now_dirs;
    for (const std::string& dir : directories_for(path)) {
      const int wd = ::inotify_add_watch(descriptor.native_handle(), dir.c_str(), MASK);
      if (wd < 0 || std::find(now.begin(), now.end(), wd) != now.end()) continue;
      now.push_back(wd);
      now_dirs.push_back(dir);
    }
    for (int wd : wds)
      if (std::find(now.begin(), now.end(), wd) == now.end())
        ::inotify_rm_watch(descriptor.native_handle(), wd);
    wds = std::move(now);
    dirs = std::move(now_dirs);
    active = !wds.empty();
    if (active && !reading) read();
    return active;
  }

  void read() {
    reading = true;
    descriptor.async_read_some(
        boost::asio::buffer(buffer),
        [self = shared_from_this(), gen = generation](const boost::system::error_code& ec, std::size_t n) {
          if (gen != self->generation) return;  // the fd it read was closed since
          self->reading = false;
          if (ec) return;
          if (self->active && self->on_change && self->news(n)) self->on_change();
          if (gen == self->generation && self->descriptor.is_open() && !self->reading) self->read();
        });
  }

  // Closes the inotify fd (its pending read is cancelled), so that an idle owner leaves its io_context
  // without work; watch() opens a new one.
  void release() {
    active = false;
    remove_watches();
    ++generation;
    reading = false;
    boost::system::error_code ignored;
    descriptor.close(ignored);
  }

  // Whether the events read are news from a current watch: removing a watch queues an IN_IGNORED for it,
  // which must not wake the owner (who would watch again, and remove, and be woken, forever).
  bool news(std::size_t n) const {
    std::size_t at = 0;
    while (at + sizeof(inotify_event) <= n) {
      inotify_event e{};
      std::memcpy(&e, buffer.data() + at, sizeof e);
      at += sizeof(inotify_event) + e.len;
      if ((e.mask & (IN_IGNORED | IN_Q_OVERFLOW)) == IN_IGNORED) continue;
      if (e.mask & IN_Q_OVERFLOW) return true;
      if (std::find(wds.begin(), wds.end(), e.wd) != wds.end()) return true;
    }
    return false;
  }

  void close() {
    release();
    on_change = nullptr;
  }
};

PathWatch::PathWatch(boost::asio::io_context& io, std::function<void()> on_change)
    : impl_(std::make_shared<Impl>(io, std::move(on_change))) {}

PathWatch::~PathWatch() { impl_->close(); }

bool PathWatch::watch(const std::string& path) { return impl_->watch(path); }

void PathWatch::stop() { impl_->release(); }

std::vector<std::string> PathWatch::directories() const { return impl_->dirs; }

std::vector<std::string> PathWatch::directories_for(const std::string& path) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::path current = fs::absolute(fs::path(path), ec).lexically_normal();
  if (ec) current = fs::path(path);
  for (int hop = 0; hop < MAX_HOPS; ++hop) {
    const std::string dir = nearest_existing_directory(current.parent_path());
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
    std::array<char, PATH_MAX> target{};
    const ssize_t n = ::readlink(current.c_str(), target.data(), target.size() - 1);
    if (n <= 0) break;
    fs::path next(std::string(target.data(), static_cast<std::size_t>(n)));
    if (next.is_relative()) next = current.parent_path() / next;
    current = next.lexically_normal();
  }
  return out;
}

}  // namespace eboard::io
