// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/session/pty.hpp"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace eboard::session {

namespace {
std::string sys_error(const std::string& what) { return what + ": " + std::strerror(errno); }
}  // namespace

tl::expected<PseudoTerminal, std::string> open_pseudo_terminal() {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return tl::unexpected(sys_error("posix_openpt"));
  const auto fail = [master](const std::string& what) {
    std::string msg = sys_error(what);
    ::close(master);
    return tl::unexpected(std::move(msg));
  };
  if (::grantpt(master) != 0) return fail("grantpt");
  if (::unlockpt(master) != 0) return fail("unlockpt");
  char name[128] = {};
  if (::ptsname_r(master, name, sizeof name) != 0) return fail("ptsname");
  const int slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) return fail(std::string("open ") + name);
  termios t{};
  if (::tcgetattr(slave, &t) == 0) {
    ::cfmakeraw(&t);
    ::cfsetispeed(&t, B9600);
    ::cfsetospeed(&t, B9600);
    ::tcsetattr(slave, TCSANOW, &t);
  }
  ::close(slave);
  const int flags = ::fcntl(master, F_GETFL);
  if (flags < 0 || ::fcntl(master, F_SETFL, flags | O_NONBLOCK) != 0) return fail("fcntl O_NONBLOCK");
  return PseudoTerminal{master, name};
}

tl::expected<void, std::string> point_symlink(const std::filesystem::path& link, const std::string& target) {
  std::filesystem::path tmp = link;
  tmp += ".new";
  std::error_code ec;
  std::filesystem::remove(tmp, ec);
  std::filesystem::create_symlink(target, tmp, ec);
  if (ec) return tl::unexpected("cannot create the link " + tmp.string() + ": " + ec.message());
  std::filesystem::rename(tmp, link, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return tl::unexpected("cannot create the link " + link.string() + ": " + ec.message());
  }
  return {};
}

}  // namespace eboard::session
