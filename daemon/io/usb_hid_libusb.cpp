// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The libusb side of the HID seam. Each open device gets its own libusb context and a small event thread
// that runs libusb_handle_events: libusb's pollfds could be watched from the Asio loop instead, but libusb
// also needs its timeouts handled and documents the event thread as the simple correct pattern; the thread
// touches nothing of the daemon, it only calls the seam's callbacks, which post to the loop.
#include <libusb.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "daemon/io/usb_hid.hpp"

namespace eboard::io {
namespace {

constexpr unsigned int kWriteTimeoutMs = 1000;

IoError usb_error(IoError::Kind kind, const std::string& what, int code) {
  return IoError{kind, 0, what + ": " + libusb_error_name(code)};
}

bool gone(int code) { return code == LIBUSB_ERROR_NO_DEVICE || code == LIBUSB_ERROR_IO; }

struct Endpoints {
  int interface = -1;
  std::uint8_t in = 0;
  std::uint16_t in_size = 64;
  std::uint8_t out = 0;  // 0: no interrupt OUT endpoint, reports go as SET_REPORT control transfers
};

// The first HID interface with an interrupt IN endpoint.
Endpoints find_endpoints(libusb_device* device) {
  Endpoints found;
  libusb_config_descriptor* config = nullptr;
  if (libusb_get_active_config_descriptor(device, &config) != 0 || config == nullptr) return found;
  for (int i = 0; i < config->bNumInterfaces && found.interface < 0; ++i) {
    const libusb_interface& itf = config->interface[i];
    if (itf.num_altsetting < 1) continue;
    const libusb_interface_descriptor& alt = itf.altsetting[0];
    if (alt.bInterfaceClass != LIBUSB_CLASS_HID) continue;
    Endpoints e;
    e.interface = alt.bInterfaceNumber;
    for (int k = 0; k < alt.bNumEndpoints; ++k) {
      const libusb_endpoint_descriptor& ep = alt.endpoint[k];
      if ((ep.bmAttributes & 0x03) != LIBUSB_TRANSFER_TYPE_INTERRUPT) continue;
      if ((ep.bEndpointAddress & LIBUSB_ENDPOINT_IN) != 0) {
        e.in = ep.bEndpointAddress;
        e.in_size = ep.wMaxPacketSize > 0 ? ep.wMaxPacketSize : 64;
      } else {
        e.out = ep.bEndpointAddress;
      }
    }
    if (e.in != 0) found = e;
  }
  libusb_free_config_descriptor(config);
  return found;
}

class LibusbHidDevice final : public HidDevice {
 public:
  LibusbHidDevice(libusb_context* ctx, libusb_device_handle* handle, Endpoints ep, std::string description)
      : ctx_(ctx), handle_(handle), ep_(ep), description_(std::move(description)) {
    events_ = std::thread([this] {
      while (!(quit_.load() && in_flight_.load() == 0)) {
        timeval tv{0, 100 * 1000};
        libusb_handle_events_timeout_completed(ctx_, &tv, nullptr);
      }
    });
  }

  ~LibusbHidDevice() override {
    {
      std::lock_guard lock(mutex_);
      quit_ = true;
      if (read_ != nullptr) libusb_cancel_transfer(read_);
      if (write_ != nullptr) libusb_cancel_transfer(write_);
    }
    events_.join();  // the thread ends once every transfer has come back
    libusb_release_interface(handle_, ep_.interface);
    libusb_close(handle_);
    libusb_exit(ctx_);
  }

  LibusbHidDevice(const LibusbHidDevice&) = delete;
  LibusbHidDevice& operator=(const LibusbHidDevice&) = delete;

  void start_reading(HidReadHandlers handlers) override {
    handlers_ = std::move(handlers);
    std::lock_guard lock(mutex_);
    read_buffer_.resize(ep_.in_size);
    read_ = libusb_alloc_transfer(0);
    libusb_fill_interrupt_transfer(read_, handle_, ep_.in, read_buffer_.data(),
                                   static_cast<int>(read_buffer_.size()), &LibusbHidDevice::on_read, this, 0);
    submit(read_);
  }

  void write(std::vector<std::uint8_t> report, std::function<void(std::optional<IoError>)> done) override {
    std::lock_guard lock(mutex_);
    write_done_ = std::move(done);
    write_buffer_.clear();
    if (ep_.out != 0) {
      write_buffer_ = std::move(report);
      write_ = libusb_alloc_transfer(0);
      libusb_fill_interrupt_transfer(write_, handle_, ep_.out, write_buffer_.data(),
                                     static_cast<int>(write_buffer_.size()), &LibusbHidDevice::on_written,
                                     this, kWriteTimeoutMs);
    } else {
      // HID SET_REPORT (output report, id 0) on the control endpoint.
      write_buffer_.resize(LIBUSB_CONTROL_SETUP_SIZE);
      write_buffer_.insert(write_buffer_.end(), report.begin(), report.end());
      libusb_fill_control_setup(write_buffer_.data(), 0x21 /* host to device, class, interface */,
                                0x09 /* SET_REPORT */, 0x0200, static_cast<std::uint16_t>(ep_.interface),
                                static_cast<std::uint16_t>(report.size()));
      write_ = libusb_alloc_transfer(0);
      libusb_fill_control_transfer(write_, handle_, write_buffer_.data(), &LibusbHidDevice::on_written, this,
                                   kWriteTimeoutMs);
    }
    if (!submit(write_)) {
      auto cb = std::move(write_done_);
      const int code = last_submit_error_;
      libusb_free_transfer(write_);
      write_ = nullptr;
      if (cb)
        cb(usb_error(gone(code) ? IoError::Kind::disconnected : IoError::Kind::open_failed, "USB write",
                     code));
    }
  }

  [[nodiscard]] std::string description() const override { return description_; }

 private:
  // Under mutex_.
  bool submit(libusb_transfer* t) {
    const int rc = libusb_submit_transfer(t);
    if (rc != 0) {
      last_submit_error_ = rc;
      if (t == read_) {
        libusb_free_transfer(read_);
        read_ = nullptr;
        if (handlers_.on_gone) handlers_.on_gone(usb_error(IoError::Kind::disconnected, "USB read", rc));
      }
      return false;
    }
    ++in_flight_;
    return true;
  }

  static void LIBUSB_CALL on_read(libusb_transfer* t) {
    auto* self = static_cast<LibusbHidDevice*>(t->user_data);
    std::lock_guard lock(self->mutex_);
    --self->in_flight_;
    if (self->quit_) {
      libusb_free_transfer(t);
      self->read_ = nullptr;
      return;
    }
    if (t->status == LIBUSB_TRANSFER_COMPLETED) {
      if (t->actual_length > 0 && self->handlers_.on_report)
        self->handlers_.on_report(std::vector<std::uint8_t>(t->buffer, t->buffer + t->actual_length));
      self->submit(t);
      return;
    }
    if (t->status == LIBUSB_TRANSFER_TIMED_OUT) {
      self->submit(t);
      return;
    }
    const libusb_transfer_status status = t->status;
    libusb_free_transfer(t);
    self->read_ = nullptr;
    if (self->handlers_.on_gone)
      self->handlers_.on_gone(IoError{IoError::Kind::disconnected, 0,
                                      status == LIBUSB_TRANSFER_NO_DEVICE
                                          ? "the USB board was unplugged"
                                          : "the USB board stopped answering"});
  }

  static void LIBUSB_CALL on_written(libusb_transfer* t) {
    auto* self = static_cast<LibusbHidDevice*>(t->user_data);
    std::function<void(std::optional<IoError>)> done;
    std::optional<IoError> error;
    {
      std::lock_guard lock(self->mutex_);
      --self->in_flight_;
      done = std::move(self->write_done_);
      if (t->status == LIBUSB_TRANSFER_NO_DEVICE)
        error = IoError{IoError::Kind::disconnected, 0, "the USB board was unplugged"};
      else if (t->status != LIBUSB_TRANSFER_COMPLETED)
        error = IoError{IoError::Kind::open_failed, 0, "the USB board refused a report"};
      libusb_free_transfer(t);
      self->write_ = nullptr;
      if (self->quit_) return;
    }
    if (done) done(std::move(error));
  }

  libusb_context* ctx_;
  libusb_device_handle* handle_;
  Endpoints ep_;
  std::string description_;
  HidReadHandlers handlers_;
  std::mutex mutex_;
  std::atomic<bool> quit_{false};
  std::atomic<int> in_flight_{0};
  int last_submit_error_ = 0;
  libusb_transfer* read_ = nullptr;
  libusb_transfer* write_ = nullptr;
  std::vector<std::uint8_t> read_buffer_;
  std::vector<std::uint8_t> write_buffer_;
  std::function<void(std::optional<IoError>)> write_done_;
  std::thread events_;
};

std::string serial_of(libusb_device_handle* h, const libusb_device_descriptor& d) {
  if (d.iSerialNumber == 0) return {};
  unsigned char buf[128] = {};
  const int n = libusb_get_string_descriptor_ascii(h, d.iSerialNumber, buf, sizeof buf);
  return n > 0 ? std::string(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n)) : std::string{};
}

class LibusbHidBackend final : public HidBackend {
 public:
  tl::expected<std::unique_ptr<HidDevice>, IoError> open(const HidOpenRequest& request) override {
    libusb_context* ctx = nullptr;
    if (const int rc = libusb_init(&ctx); rc != 0)
      return tl::unexpected(usb_error(IoError::Kind::open_failed, "libusb_init", rc));
    libusb_device** list = nullptr;
    const ssize_t count = libusb_get_device_list(ctx, &list);
    IoError failure{IoError::Kind::not_found, 0, "no such USB board: " + describe(request)};
    std::unique_ptr<HidDevice> opened;
    for (ssize_t i = 0; i < count && !opened; ++i) {
      libusb_device* dev = list[i];
      libusb_device_descriptor d{};
      if (libusb_get_device_descriptor(dev, &d) != 0) continue;
      if (request.vendor_id != 0 && d.idVendor != request.vendor_id) continue;
      if (request.product_matches != nullptr && !request.product_matches(d.idProduct)) continue;
      char where[16];
      std::snprintf(where, sizeof where, "%u:%u", libusb_get_bus_number(dev), libusb_get_device_address(dev));
      const bool by_place = request.device.find(':') != std::string::npos;
      if (by_place && request.device != where) continue;
      libusb_device_handle* h = nullptr;
      if (const int rc = libusb_open(dev, &h); rc != 0) {
        failure = usb_error(IoError::Kind::open_failed, std::string("cannot open USB device ") + where, rc);
        continue;
      }
      const std::string serial = serial_of(h, d);
      if (!by_place && !request.device.empty() && serial != request.device) {
        libusb_close(h);
        continue;
      }
      const Endpoints ep = find_endpoints(dev);
      if (ep.interface < 0) {
        failure =
            IoError{IoError::Kind::open_failed, 0, std::string("no HID interrupt endpoint on ") + where};
        libusb_close(h);
        continue;
      }
      // The kernel's usbhid driver holds the interface: detach it for as long as we hold it.
      libusb_set_auto_detach_kernel_driver(h, 1);
      if (const int rc = libusb_claim_interface(h, ep.interface); rc != 0) {
        failure = usb_error(IoError::Kind::open_failed, std::string("cannot claim USB device ") + where, rc);
        libusb_close(h);
        continue;
      }
      char ids[16];
      std::snprintf(ids, sizeof ids, "%04x:%04x", d.idVendor, d.idProduct);
      opened = std::make_unique<LibusbHidDevice>(
          ctx, h, ep, std::string(ids) + " at " + where + (serial.empty() ? "" : " serial " + serial));
    }
    if (list != nullptr) libusb_free_device_list(list, 1);
    if (opened) return opened;
    libusb_exit(ctx);
    return tl::unexpected(failure);
  }

 private:
  static std::string describe(const HidOpenRequest& r) {
    char ids[8];
    std::snprintf(ids, sizeof ids, "%04x", r.vendor_id);
    return (r.device.empty() ? std::string("any") : r.device) + " (vendor " + ids + ")";
  }
};

}  // namespace

std::shared_ptr<HidBackend> libusb_hid_backend() { return std::make_shared<LibusbHidBackend>(); }

}  // namespace eboard::io
