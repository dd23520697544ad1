#include "daemon/io/serial_port.hpp"

#include <libserialport.h>
#include <sys/ioctl.h>
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

}  // namespace

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
        // a tty0tty/socat node or a plain file. Tests use umockdev to give a pty that sysfs entry.
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

void SerialPort::close() {
  if (port_ == nullptr) return;
  sp_close(port_);
  sp_free_port(port_);
  port_ = nullptr;
  fd_ = -1;
}

tl::expected<SerialPort, IoError> SerialPort::open(const std::string& path, const LineSettings& line,
                                                   const OpenOptions& options) {
  auto name = resolve_port_name(path);
  if (!name) return tl::unexpected(std::move(name.error()));

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

}  // namespace eboard::io
