// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// A real write failure without root nor a small file system: RLIMIT_FSIZE makes write(2) stop at that many
// bytes of a file (a short write, then EFBIG), as a full disk does (ENOSPC). The limit is the process's
// (every thread's writes): held only while a test needs it.
#pragma once

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstdint>

namespace eboard::test_support {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(std::uint64_t bytes) {
    std::signal(SIGXFSZ, SIG_IGN);  // else the kernel kills the process at the limit
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    rlimit r = saved_;
    r.rlim_cur = rlim_t(bytes);
    EXPECT_EQ(::setrlimit(RLIMIT_FSIZE, &r), 0);
  }
  void lift() { ::setrlimit(RLIMIT_FSIZE, &saved_); }
  ~FileSizeLimit() { lift(); }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
};

}  // namespace eboard::test_support
