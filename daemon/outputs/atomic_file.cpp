// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace eboard::outputs {

tl::expected<void, std::string> sync_directory(const std::filesystem::path& dir) {
  const std::filesystem::path d = dir.empty() ? std::filesystem::path(".") : dir;
  int dfd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return tl::unexpected("cannot open the directory " + d.string() + ": " + std::strerror(errno));
  const int rc = ::fsync(dfd);
  const int err = errno;
  ::close(dfd);
  if (rc != 0) return tl::unexpected("cannot sync the directory " + d.string() + ": " + std::strerror(err));
  return {};
}

tl::expected<void, std::string> append_durable(const std::filesystem::path& path, std::string_view text) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  bool created = false;
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    created = fd >= 0;
  }
  if (fd < 0) return tl::unexpected("cannot open " + path.string() + ": " + std::strerror(errno));
  auto fail = [&](const std::string& what) {
    const std::string msg = what + " " + path.string() + ": " + std::strerror(errno);
    ::close(fd);
    return tl::unexpected(msg);
  };
  std::string_view rest = text;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot append to");
    }
    rest.remove_prefix(std::size_t(n));
  }
  if (::fdatasync(fd) != 0) return fail("cannot sync");
  if (::close(fd) != 0) return tl::unexpected("cannot close " + path.string() + ": " + std::strerror(errno));
  if (created) return sync_directory(path.parent_path());
  return {};
}

bool space_error(std::string_view error) {
  for (int e : {ENOSPC, EDQUOT, EFBIG})
    if (error.find(std::strerror(e)) != std::string_view::npos) return true;
  return false;
}

tl::expected<void, std::string> write_file_atomic(const std::filesystem::path& path, std::string_view content,
                                                  bool sync_dir, mode_t mode) {
  std::filesystem::path dir = path.parent_path();
  std::filesystem::path tmp = path;
  // Unique per call: two threads writing files (even the same one) never share a temporary file.
  static std::atomic<std::uint64_t> serial{0};
  tmp += ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial.fetch_add(1));
  auto fail = [&](const std::string& what) {
    std::string msg = what + ": " + std::strerror(errno);
    ::unlink(tmp.c_str());
    return tl::unexpected(msg);
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    return tl::unexpected("cannot create a new version of " + path.string() + ": " + std::strerror(errno));
  // Errors below name the file being written (the temporary file's name changes with every attempt).
  // The umask may have taken bits the file needs, or left some.
  if (::fchmod(fd, mode) != 0) {
    ::close(fd);
    return fail("cannot set the mode of " + path.string());
  }
  std::string_view rest = content;
  while (!rest.empty()) {
    ssize_t n = ::write(fd, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      errno = err;
      return fail("cannot write " + path.string());
    }
    rest.remove_prefix(std::size_t(n));
  }
  if (::fsync(fd) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return fail("cannot sync " + path.string());
  }
  if (::close(fd) != 0) return fail("cannot close " + path.string());
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("cannot rename a new version over " + path.string());
  if (sync_dir) return sync_directory(dir);
  return {};
}

}  // namespace eboard::outputs
