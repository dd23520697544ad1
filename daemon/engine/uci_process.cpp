// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/engine/uci_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

namespace eboard::engine {

namespace {

// write(2) to the engine's stdin: one that has exited makes it fail with EPIPE, never raise SIGPIPE in the
// process (whatever the process does with SIGPIPE): blocked for this thread during the write, a SIGPIPE the
// write raised is taken back.
ssize_t write_quietly(int fd, const char* data, std::size_t n) {
  sigset_t pipe_only, old, pending;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  const ssize_t r = ::write(fd, data, n);
  const int error = errno;
  if (r < 0 && error == EPIPE && !was_pending) {
    const timespec now{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {}
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = error;
  return r;
}

}  // namespace

UciProcess::~UciProcess() { stop(); }

tl::expected<void, std::string> UciProcess::start(const std::string& path, Clock::time_point deadline) {
  stop();
  if (cancelled_) return tl::unexpected(std::string("cancelled"));
  if (access(path.c_str(), X_OK) != 0) return tl::unexpected(path + ": " + std::strerror(errno));
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return tl::unexpected(std::string("pipe: ") + std::strerror(errno));
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return tl::unexpected(std::string("pipe: ") + std::strerror(errno));
  }
  // The child keeps none of the daemon's descriptors (its state directory's lock, its sockets, journals):
  // an engine left running a moment after the daemon died must not hold them.
  rlimit files{};
  const int max_fd = getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY
                         ? int(std::min<rlim_t>(files.rlim_cur, 1 << 20))
                         : 1 << 16;
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    return tl::unexpected(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: stdin and stdout are the pipes (dup2 clears their close-on-exec); stderr to /dev/null.
    dup2(in[0], 0);
    dup2(out[1], 1);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, 2);
    if (close_range(3, ~0U, 0) != 0)
      for (int fd = 3; fd < max_fd; ++fd) close(fd);
    execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  pid_ = pid;
  to_ = in[1];
  from_ = out[0];
  fcntl(to_, F_SETFL, fcntl(to_, F_GETFL) | O_NONBLOCK);
  fcntl(from_, F_SETFL, fcntl(from_, F_GETFL) | O_NONBLOCK);
  buffer_.clear();
  if (!send("uci") || !wait_for("uciok", deadline)) {
    stop();
    return tl::unexpected(path + " did not answer as a UCI engine");
  }
  return {};
}

bool UciProcess::send(const std::string& line) {
  if (pid_ <= 0) return false;
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write_quietly(to_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += std::size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      // A line is short: the pipe is full only when the engine stopped reading. Wait a little for it.
      pollfd p{to_, POLLOUT, 0};
      if (poll(&p, 1, 1000) > 0 && !(p.revents & (POLLERR | POLLHUP))) continue;
    }
    stop();
    return false;
  }
  return true;
}

std::optional<std::string> UciProcess::read_line(Clock::time_point deadline) {
  for (;;) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (pid_ <= 0) return std::nullopt;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || cancelled_) {
      stop();
      return std::nullopt;
    }
    pollfd p{from_, POLLIN, 0};
    const int r = poll(&p, 1, int(std::min<long long>(left, 50)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;  // the deadline is checked above
    char chunk[4096];
    const ssize_t n = ::read(from_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, std::size_t(n));
      if (buffer_.size() > (1u << 20)) {  // no UCI line is this long: not an engine
        stop();
        return std::nullopt;
      }
      continue;
    }
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    stop();  // end of output: the engine exited
    return std::nullopt;
  }
}

std::optional<std::string> UciProcess::wait_for(const std::string& prefix, Clock::time_point deadline) {
  for (;;) {
    auto line = read_line(deadline);
    if (!line || line->rfind(prefix, 0) == 0) return line;
  }
}

void UciProcess::stop() {
  if (to_ >= 0) {
    if (pid_ > 0) (void)write_quietly(to_, "quit\n", 5);
    close(to_);
    to_ = -1;
  }
  if (from_ >= 0) {
    close(from_);
    from_ = -1;
  }
  buffer_.clear();
  if (pid_ <= 0) return;
  // A moment to quit of its own accord (its stdin is closed too), then killed; reaped either way.
  for (int i = 0; i < 20; ++i) {
    const pid_t r = waitpid(pid_, nullptr, WNOHANG);
    if (r == pid_ || (r < 0 && errno == ECHILD)) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {}
  pid_ = -1;
}

}  // namespace eboard::engine
