// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/tools/checks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace eboard::tools {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

std::string size_text(std::size_t bytes) {
  return bytes >= (std::size_t(1) << 20) ? std::to_string(bytes >> 20) + " MiB"
                                         : std::to_string(bytes >> 10) + " KiB";
}

std::string number_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

tl::expected<std::string, std::string> read_input_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO would otherwise wait for a writer before fstat could refuse it. It changes
  // nothing for the regular files that get past the check.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return tl::unexpected(path + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return tl::unexpected(path + ": cannot read: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return tl::unexpected(path + ": is " + kind_of(st.st_mode) + ", not a regular file");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    return tl::unexpected(path + ": larger than " + size_text(max_bytes) + ", refused");
  // The size was checked on the open file, but it may still grow while it is read: the read stops one byte
  // past the limit, so a growing file is refused too instead of being read without end.
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return tl::unexpected(path + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max_bytes)
      return tl::unexpected(path + ": larger than " + size_text(max_bytes) + ", refused");
  }
  return text;
}

CLI::Validator finite_range(double lo, double hi) {
  const std::string description = "finite number in [" + number_text(lo) + " - " + number_text(hi) + "]";
  return CLI::Validator(
      [lo, hi](std::string& input) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(input, value) || !std::isfinite(value) || value < lo || value > hi)
          return "value " + input + " is not a finite number in [" + number_text(lo) + " - " +
                 number_text(hi) + "]";
        return {};
      },
      description);
}

}  // namespace eboard::tools
