// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace eboard::outputs {

void sync_directory(const std::filesystem::path& dir) {
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

tl::expected<void, std::string> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                                  bool sync_dir) {
  std::filesystem::path dir = path.parent_path();
  std::filesystem::path tmp = path;
  // Unique per call: two threads writing files (even the same one) never share a temporary file.
  static std::atomic<std::uint64_t> serial{0};
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  auto fail = [&](const char* what) {
    std::string msg = std::string(what) + " " + tmp.string() + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return tl::unexpected(msg);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return tl::unexpected("cannot create " + tmp.string() + ": " + std::strerror(errno));
  std::string_view rest = content;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return fail("cannot write");
    }
    rest.remove_prefix(std::size_t(n));
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return fail("cannot sync");
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail("cannot rename");
  if (sync_dir) sync_directory(dir);
  return {};
}

}  // namespace eboard::outputs
