// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/io/serial_port.hpp"

#include <fcntl.h>
#include <libserialport.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

namespace eboard::io {

namespace {

// libserialport's last OS error as text; only meaningful right after a call returned SP_ERR_FAIL.
std::string last_sp_error() {
  char* msg = sp_last_error_message();
  std::string out = msg != nullptr ? msg : "unknown error";
  sp_free_error_message(msg);
  return out;
}

IoError sp_failure(IoError::Kind kind, sp_return rc, const std::string& what) {
  IoError err;
  err.kind = kind;
  if (rc == SP_ERR_FAIL) {
    err.sys_errno = sp_last_error_code();
    err.message = what + ": " + last_sp_error();
  } else if (rc == SP_ERR_ARG) {
    err.message = what + ": invalid argument";
  } else if (rc == SP_ERR_MEM) {
    err.message = what + ": out of memory";
  } else {
    err.message = what + ": not supported";
  }
  return err;
}

std::string owned_string(char* s) { return s != nullptr ? std::string(s) : std::string(); }

PortInfo read_info(const sp_port* port) {
  PortInfo info;
  info.name = owned_string(sp_get_port_name(port));
  info.description = owned_string(sp_get_port_description(port));
  switch (sp_get_port_transport(port)) {
    case SP_TRANSPORT_USB:
      info.transport = PortInfo::Transport::usb;
      break;
    case SP_TRANSPORT_BLUETOOTH:
      info.transport = PortInfo::Transport::bluetooth;
      break;
    default:
      info.transport = PortInfo::Transport::native;
      break;
  }
  if (info.transport == PortInfo::Transport::usb) {
    int vid = 0;
    int pid = 0;
    if (sp_get_port_usb_vid_pid(port, &vid, &pid) == SP_OK) {
      info.usb_vid = static_cast<std::uint16_t>(vid);
      info.usb_pid = static_cast<std::uint16_t>(pid);
    }
    info.usb_manufacturer = owned_string(sp_get_port_usb_manufacturer(port));
    info.usb_product = owned_string(sp_get_port_usb_product(port));
    info.usb_serial = owned_string(sp_get_port_usb_serial(port));
  }
  return info;
}

struct PortDeleter {
  void operator()(sp_port* p) const { sp_free_port(p); }
};

struct ConfigHolder {
  sp_port_config* config = nullptr;
  ~ConfigHolder() {
    if (config != nullptr) sp_free_config(config);
  }
};

tl::expected<void, IoError> apply_line_settings(sp_port* port, const LineSettings& line) {
  ConfigHolder cfg;
  if (sp_return rc = sp_new_config(&cfg.config); rc != SP_OK) {
    return tl::unexpected(sp_failure(IoError::Kind::config_failed, rc, "sp_new_config"));
  }
  sp_parity parity = SP_PARITY_NONE;
  if (line.parity == Parity::odd) parity = SP_PARITY_ODD;
  if (line.parity == Parity::even) parity = SP_PARITY_EVEN;
  sp_flowcontrol flow = SP_FLOWCONTROL_NONE;
  if (line.flow == FlowControl::xon_xoff) flow = SP_FLOWCONTROL_XONXOFF;
  if (line.flow == FlowControl::rts_cts) flow = SP_FLOWCONTROL_RTSCTS;

  std::array<sp_return, 5> steps = {
      sp_set_config_baudrate(cfg.config, line.baud), sp_set_config_bits(cfg.config, line.data_bits),
      sp_set_config_parity(cfg.config, parity), sp_set_config_stopbits(cfg.config, line.stop_bits),
      sp_set_config_flowcontrol(cfg.config, flow)};
  for (sp_return rc : steps) {
    if (rc != SP_OK) return tl::unexpected(sp_failure(IoError::Kind::config_failed, rc, "line settings"));
  }
  if (line.flow == FlowControl::none) {
    // Assert DTR and RTS like most serial stacks do on open; USB-serial boards ignore or want them.
    sp_set_config_dtr(cfg.config, SP_DTR_ON);
    sp_set_config_rts(cfg.config, SP_RTS_ON);
  }
  if (sp_return rc = sp_set_config(port, cfg.config); rc != SP_OK) {
    return tl::unexpected(sp_failure(IoError::Kind::config_failed, rc, "sp_set_config"));
  }
  return {};
}

std::optional<speed_t> speed_of(int baud) {
  struct Rate {
    int baud;
    speed_t speed;
  };
  static constexpr Rate kRates[] = {
      {50, B50},         {75, B75},         {110, B110},        {134, B134},       {150, B150},
      {200, B200},       {300, B300},       {600, B600},        {1200, B1200},     {1800, B1800},
      {2400, B2400},     {4800, B4800},     {9600, B9600},      {19200, B19200},   {38400, B38400},
      {57600, B57600},   {115200, B115200}, {230400, B230400},  {460800, B460800}, {500000, B500000},
      {576000, B576000}, {921600, B921600}, {1000000, B1000000}};
  for (const Rate& r : kRates) {
    if (r.baud == baud) return r.speed;
  }
  return std::nullopt;
}

IoError errno_error(IoError::Kind kind, int err, const std::string& what) {
  return IoError{kind, err, what + ": " + std::strerror(err)};
}

// The line settings on a terminal opened without libserialport: raw 8N1-style termios as sp_set_config
// would leave it, plus VMIN=1/VTIME=0 (see SerialPort::open).
tl::expected<void, IoError> apply_termios(int fd, const std::string& name, const LineSettings& line) {
  termios tio{};
  if (::tcgetattr(fd, &tio) != 0)
    return tl::unexpected(errno_error(IoError::Kind::config_failed, errno, "tcgetattr " + name));
  ::cfmakeraw(&tio);
  const auto speed = speed_of(line.baud);
  if (!speed) {
    return tl::unexpected(IoError{IoError::Kind::config_failed, EINVAL,
                                  name + ": unsupported baud rate " + std::to_string(line.baud)});
  }
  ::cfsetispeed(&tio, *speed);
  ::cfsetospeed(&tio, *speed);
  tio.c_cflag &= ~static_cast<tcflag_t>(CSIZE | PARENB | PARODD | CSTOPB | CRTSCTS);
  switch (line.data_bits) {
    case 5:
      tio.c_cflag |= CS5;
      break;
    case 6:
      tio.c_cflag |= CS6;
      break;
    case 7:
      tio.c_cflag |= CS7;
      break;
    case 8:
      tio.c_cflag |= CS8;
      break;
    default:
      return tl::unexpected(IoError{IoError::Kind::config_failed, EINVAL,
                                    name + ": unsupported data bits " + std::to_string(line.data_bits)});
  }
  if (line.parity != Parity::none) tio.c_cflag |= PARENB;
  if (line.parity == Parity::odd) tio.c_cflag |= PARODD;
  if (line.stop_bits == 2) {
    tio.c_cflag |= CSTOPB;
  } else if (line.stop_bits != 1) {
    return tl::unexpected(IoError{IoError::Kind::config_failed, EINVAL,
                                  name + ": unsupported stop bits " + std::to_string(line.stop_bits)});
  }
  tio.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY);
  if (line.flow == FlowControl::rts_cts) tio.c_cflag |= CRTSCTS;
  if (line.flow == FlowControl::xon_xoff) tio.c_iflag |= IXON | IXOFF;
  tio.c_cflag |= CLOCAL | CREAD;
  tio.c_cc[VMIN] = 1;
  tio.c_cc[VTIME] = 0;
  if (::tcsetattr(fd, TCSANOW, &tio) != 0) {
    return tl::unexpected(errno_error(IoError::Kind::config_failed, errno, "tcsetattr " + name));
  }
  if (line.flow == FlowControl::none) {
    // DTR and RTS up, as on the libserialport path; a pty has no modem lines and refuses: that is fine.
    int bits = TIOCM_DTR | TIOCM_RTS;
    (void)::ioctl(fd, TIOCMBIS, &bits);
  }
  return {};
}

// A terminal device without a sysfs identity: libserialport 0.1.1 cannot know it.
bool has_sysfs_identity(const std::filesystem::path& device, const struct stat& st) {
  std::error_code ec;
  const std::string dev = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
  return std::filesystem::exists("/sys/class/tty/" + device.filename().string(), ec) ||
         std::filesystem::exists("/sys/dev/char/" + dev, ec);
}

}  // namespace

std::string_view to_string(PortInfo::Transport transport) {
  switch (transport) {
    case PortInfo::Transport::native:
      return "native";
    case PortInfo::Transport::usb:
      return "usb";
    case PortInfo::Transport::bluetooth:
      return "bluetooth";
    case PortInfo::Transport::pty:
      return "pty";
  }
  return "unknown";
}

std::string_view to_string(IoError::Kind kind) {
  switch (kind) {
    case IoError::Kind::not_found:
      return "not_found";
    case IoError::Kind::open_failed:
      return "open_failed";
    case IoError::Kind::config_failed:
      return "config_failed";
    case IoError::Kind::disconnected:
      return "disconnected";
    case IoError::Kind::not_connected:
      return "not_connected";
    case IoError::Kind::queue_full:
      return "queue_full";
  }
  return "unknown";
}

tl::expected<std::string, IoError> resolve_port_name(const std::string& path) {
  std::string current = path;
  constexpr int kMaxHops = 16;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    sp_port* raw = nullptr;
    sp_return rc = sp_get_port_by_name(current.c_str(), &raw);
    std::unique_ptr<sp_port, PortDeleter> port(raw);
    if (rc == SP_OK) return current;
    const int lookup_errno = errno;

    std::array<char, PATH_MAX> target{};
    ssize_t n = ::readlink(current.c_str(), target.data(), target.size() - 1);
    if (n < 0) {
      const int link_errno = errno;
      IoError err;
      err.kind = IoError::Kind::not_found;
      if (link_errno == ENOENT || link_errno == ENOTDIR) {
        err.sys_errno = link_errno;
        err.message = current + ": no such device";
      } else {
        // It exists but is no symlink, and libserialport has no /sys/class/tty entry for it: a pty,
        // a tty0tty/socat node or a plain file. SerialPort::open() then tries the direct fallback.
        err.sys_errno = lookup_errno;
        err.message = current + ": not a serial port libserialport knows (no /sys/class/tty entry)";
      }
      return tl::unexpected(std::move(err));
    }
    std::filesystem::path next(std::string(target.data(), static_cast<std::size_t>(n)));
    if (next.is_relative()) next = std::filesystem::path(current).parent_path() / next;
    current = next.lexically_normal().string();
  }
  return tl::unexpected(IoError{IoError::Kind::not_found, ELOOP, path + ": too many symlinks"});
}

SerialPort::SerialPort(SerialPort&& other) noexcept
    : port_(std::exchange(other.port_, nullptr)),
      fd_(std::exchange(other.fd_, -1)),
      info_(std::move(other.info_)) {}

SerialPort& SerialPort::operator=(SerialPort&& other) noexcept {
  if (this != &other) {
    close();
    port_ = std::exchange(other.port_, nullptr);
    fd_ = std::exchange(other.fd_, -1);
    info_ = std::move(other.info_);
  }
  return *this;
}

SerialPort::~SerialPort() { close(); }

SerialPort SerialPort::adopt(int fd, PortInfo info) {
  SerialPort port;
  port.fd_ = fd;  // closed by close(), as a directly opened terminal's
  port.info_ = std::move(info);
  return port;
}

void SerialPort::close() {
  if (port_ != nullptr) {
    sp_close(port_);
    sp_free_port(port_);
  } else if (fd_ >= 0) {
    ::close(fd_);  // a directly opened terminal: the fd is ours
  }
  port_ = nullptr;
  fd_ = -1;
}

tl::expected<SerialPort, IoError> SerialPort::open(const std::string& path, const LineSettings& line,
                                                   const OpenOptions& options) {
  auto name = resolve_port_name(path);
  if (!name) {
    // A path that exists but that libserialport does not know may still be a terminal (a pty).
    std::error_code ec;
    if (name.error().kind == IoError::Kind::not_found && std::filesystem::exists(path, ec)) {
      return open_direct(path, line, options, name.error());
    }
    return tl::unexpected(std::move(name.error()));
  }

  sp_port* raw = nullptr;
  if (sp_return rc = sp_get_port_by_name(name->c_str(), &raw); rc != SP_OK) {
    return tl::unexpected(sp_failure(IoError::Kind::not_found, rc, *name));
  }
  SerialPort port;
  port.port_ = raw;
  port.info_ = read_info(raw);

  if (sp_return rc = sp_open(raw, SP_MODE_READ_WRITE); rc != SP_OK) {
    IoError err = sp_failure(IoError::Kind::open_failed, rc, "open " + *name);
    sp_free_port(raw);  // not opened: only the struct to free
    port.port_ = nullptr;
    return tl::unexpected(std::move(err));
  }
  if (auto applied = apply_line_settings(raw, line); !applied) return tl::unexpected(applied.error());

  int fd = -1;
  if (sp_return rc = sp_get_port_handle(raw, &fd); rc != SP_OK || fd < 0) {
    return tl::unexpected(sp_failure(IoError::Kind::open_failed, rc, "sp_get_port_handle"));
  }
  port.fd_ = fd;
  // libserialport leaves VMIN=0/VTIME=0, where read() returns 0 when no byte is waiting. An event loop
  // reads speculatively and takes 0 for end of file (a hang-up), so ask for VMIN=1: with O_NONBLOCK an
  // empty read is then EAGAIN, and 0 really means the device hung up.
  termios tio{};
  if (::tcgetattr(fd, &tio) != 0) {
    return tl::unexpected(
        IoError{IoError::Kind::config_failed, errno, "tcgetattr " + *name + ": " + std::strerror(errno)});
  }
  tio.c_cc[VMIN] = 1;
  tio.c_cc[VTIME] = 0;
  if (::tcsetattr(fd, TCSANOW, &tio) != 0) {
    return tl::unexpected(
        IoError{IoError::Kind::config_failed, errno, "tcsetattr " + *name + ": " + std::strerror(errno)});
  }
  if (options.exclusive) ::ioctl(fd, TIOCEXCL);  // best effort; ptys and USB serial support it
  if (options.flush_on_open) sp_flush(raw, SP_BUF_BOTH);
  return port;
}

tl::expected<SerialPort, IoError> SerialPort::open_direct(const std::string& path, const LineSettings& line,
                                                          const OpenOptions& options,
                                                          const IoError& refusal) {
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(path, ec);
  if (ec) return tl::unexpected(refusal);
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) {
    IoError err = refusal;
    err.message = path + ": not a serial port (libserialport does not know it and it is no terminal device)";
    return tl::unexpected(std::move(err));
  }
  if (has_sysfs_identity(real, st)) return tl::unexpected(refusal);  // libserialport's verdict stands

  const std::string name = real.string();
  const int fd = ::open(name.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return tl::unexpected(errno_error(err == ENOENT ? IoError::Kind::not_found : IoError::Kind::open_failed,
                                      err, "open " + name));
  }
  SerialPort port;
  port.fd_ = fd;  // from here on the destructor closes it
  if (::isatty(fd) == 0) {
    return tl::unexpected(
        IoError{IoError::Kind::not_found, ENOTTY, path + ": not a serial port (not a terminal)"});
  }
  // Exclusive use through an advisory lock, not TIOCEXCL: a pty's TIOCEXCL outlives its opener while the
  // master stays open (the emulator's side), so an eboardd killed with SIGKILL would leave its board's
  // pty refusing every later open by an unprivileged daemon (EBUSY). The lock dies with the process. A
  // flag some earlier opener left is cleared (TIOCNXCL) once we have the terminal.
  (void)::ioctl(fd, TIOCNXCL);
  if (options.exclusive && ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    return tl::unexpected(
        IoError{IoError::Kind::open_failed, EBUSY, "open " + name + ": in use by another process (locked)"});
  }
  if (auto applied = apply_termios(fd, name, line); !applied) return tl::unexpected(applied.error());
  if (options.flush_on_open) ::tcflush(fd, TCIOFLUSH);

  const bool unix98_pty = major(st.st_rdev) >= 136 && major(st.st_rdev) <= 143;
  port.info_.name = name;
  port.info_.description = unix98_pty ? "pseudo-terminal" : "terminal without sysfs entry";
  port.info_.transport = PortInfo::Transport::pty;
  port.info_.note = name + " opened directly as a terminal (" + port.info_.description +
                    "): libserialport refused it (" + refusal.message +
                    "); no USB identity, modem lines ignored";
  return port;
}

}  // namespace eboard::io
