// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/mqtt/client.hpp"

#include <poll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include <mosquitto.h>
#include <spdlog/spdlog.h>

namespace eboard::mqtt {

namespace {
std::once_flag lib_once;
constexpr auto TICK = std::chrono::milliseconds(100);
}  // namespace

Client::Client(boost::asio::io_context& io, ClientOptions options, Handlers handlers)
    : io_(io),
      options_(std::move(options)),
      handlers_(std::move(handlers)),
      tick_(io),
      reconnect_(io),
      backoff_(options_.reconnect_min) {
  std::call_once(lib_once, [] { mosquitto_lib_init(); });
}

Client::~Client() {
  stopped_ = true;
  connected_ = false;  // no handler runs from the destructor
  teardown("");
  reconnect_.cancel();
}

void Client::start() {
  stopped_ = false;
  connect();
}

void Client::stop(const std::string& final_topic, const std::string& final_payload) {
  if (stopped_) return;
  stopped_ = true;
  reconnect_.cancel();
  if (mosq_ && connected_) {
    if (!final_topic.empty())
      mosquitto_publish(mosq_, nullptr, final_topic.c_str(), int(final_payload.size()), final_payload.data(),
                        1, true);
    mosquitto_disconnect(mosq_);
    // What is queued is written before the socket closes: a blocking flush of a few bytes on loopback or
    // LAN, at shutdown only.
    for (int i = 0; i < 20 && mosquitto_want_write(mosq_); ++i) mosquitto_loop_write(mosq_, 1);
  }
  connected_ = false;  // a chosen stop, not a lost connection: no handler is told
  teardown("");
}

void Client::connect() {
  if (stopped_) return;
  mosq_ = mosquitto_new(options_.client_id.empty() ? nullptr : options_.client_id.c_str(),
                        options_.clean_session, this);
  if (!mosq_) {
    last_error_ = "cannot make an MQTT client";
    return schedule_reconnect();
  }
  mosquitto_int_option(mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  mosquitto_max_inflight_messages_set(mosq_, unsigned(options_.max_inflight));
  mosquitto_connect_callback_set(mosq_, &Client::on_connect);
  mosquitto_disconnect_callback_set(mosq_, &Client::on_disconnect);
  mosquitto_publish_callback_set(mosq_, &Client::on_publish);
  mosquitto_message_callback_set(mosq_, &Client::on_message);
  mosquitto_log_callback_set(mosq_, &Client::on_log);
  tls_reasons_.clear();
  auto fail = [&](const std::string& what, int rc) {
    last_error_ = what + ": " + mosquitto_strerror(rc);
    spdlog::warn("mqtt: {}", last_error_);
    teardown(last_error_);
    schedule_reconnect();
  };
  int rc = MOSQ_ERR_SUCCESS;
  if (!options_.username.empty() &&
      (rc = mosquitto_username_pw_set(mosq_, options_.username.c_str(),
                                      options_.password.empty() ? nullptr : options_.password.c_str())))
    return fail("username", rc);
  if (!options_.will_topic.empty() &&
      (rc = mosquitto_will_set(mosq_, options_.will_topic.c_str(), int(options_.will_payload.size()),
                               options_.will_payload.data(), 1, true)))
    return fail("last will", rc);
  if (options_.tls) {
    auto opt = [](const std::string& s) { return s.empty() ? nullptr : s.c_str(); };
    const char* capath = options_.ca_file.empty() ? "/etc/ssl/certs" : nullptr;
    if ((rc = mosquitto_tls_set(mosq_, opt(options_.ca_file), capath, opt(options_.cert_file),
                                opt(options_.key_file), nullptr)))
      return fail("TLS settings", rc);
  }
  // On loopback the handshake may get far enough to fail inside this call already.
  rc = mosquitto_connect_async(mosq_, options_.host.c_str(), options_.port, options_.keepalive_s);
  if (rc != MOSQ_ERR_SUCCESS && rc != MOSQ_ERR_CONN_PENDING) {
    last_error_ = with_tls_reason("cannot connect to " + options_.host + ":" + std::to_string(options_.port) +
                                      ": " + mosquitto_strerror(rc),
                                  true);
    spdlog::warn("mqtt: {}", last_error_);
    teardown(last_error_);
    return schedule_reconnect();
  }
  int fd = mosquitto_socket(mosq_);
  int copy = fd >= 0 ? ::dup(fd) : -1;
  if (copy < 0) return fail("no socket", MOSQ_ERR_ERRNO);
  socket_ = std::make_unique<boost::asio::posix::stream_descriptor>(io_, copy);
  ++*generation_;
  reading_ = writing_ = false;
  arm();
  tick_.expires_after(TICK);
  tick_.async_wait(
      [this, gen = *generation_, g = std::weak_ptr<int>(generation_)](const boost::system::error_code& ec) {
        auto live = g.lock();
        if (ec || !live || *live != gen) return;
        drive();
      });
}

void Client::arm() {
  if (!socket_) return;
  const int gen = *generation_;
  std::weak_ptr<int> g = generation_;
  if (!reading_) {
    reading_ = true;
    socket_->async_wait(boost::asio::posix::stream_descriptor::wait_read,
                        [this, gen, g](const boost::system::error_code& ec) {
                          auto live = g.lock();
                          if (!live || *live != gen) return;
                          reading_ = false;
                          if (!ec) drive();
                        });
  }
  if (!writing_ && mosq_ && mosquitto_want_write(mosq_)) {
    writing_ = true;
    socket_->async_wait(boost::asio::posix::stream_descriptor::wait_write,
                        [this, gen, g](const boost::system::error_code& ec) {
                          auto live = g.lock();
                          if (!live || *live != gen) return;
                          writing_ = false;
                          if (!ec) drive();
                        });
  }
}

void Client::drive() {
  if (!mosq_) return;
  const int gen = *generation_;
  const int rc = loop_once();
  if (*generation_ != gen) return;  // a handler stopped the client
  bool reset_in_handshake = false;
  if (rc == MOSQ_ERR_SUCCESS && !lost_ && !connected_ && options_.tls) {
    if (auto failed = handshake_socket_failed()) {
      lost_ = true;
      lost_why_ = failed->why;
      reset_in_handshake = failed->reset;
    }
  }
  if (rc != MOSQ_ERR_SUCCESS || lost_) {
    std::string why = lost_ ? lost_why_ : std::string(mosquitto_strerror(rc));
    if (rc == MOSQ_ERR_ERRNO) why = std::string(std::strerror(errno));
    // A reset seen on the socket is the same refusal as one libmosquitto reports (no certificate sent,
    // the broker closes before its alert is read): said the same way.
    why = with_tls_reason(std::move(why), rc != MOSQ_ERR_SUCCESS || reset_in_handshake);
    // Never connected (a TLS handshake the broker refused, a port nobody listens on): nothing else would
    // tell the operator why; said once per distinct reason, not at every retry.
    if (!connected_ && why != last_error_)
      spdlog::warn("mqtt: cannot connect to {}:{}: {}", options_.host, options_.port, why);
    last_error_ = why;
    teardown(why);
    return schedule_reconnect();
  }
  arm();
  tick_.expires_after(TICK);  // keep-alive and TLS bytes already read: libmosquitto looks again soon
  tick_.async_wait([this, gen, g = std::weak_ptr<int>(generation_)](const boost::system::error_code& ec) {
    auto live = g.lock();
    if (ec || !live || *live != gen) return;
    drive();
  });
}

int Client::loop_once() {
  // mosquitto_loop() select()s, and refuses a socket numbered FD_SETSIZE (1024) or above: a host reading some
  // five hundred boards (two descriptors each) never connected. Such a socket is read and written directly
  // (non-blocking: nothing to read returns at once). A lower one keeps mosquitto_loop(), which also drives a
  // TLS handshake under way.
  const int fd = mosquitto_socket(mosq_);
  if (fd >= 0 && fd < FD_SETSIZE) return mosquitto_loop(mosq_, 0, 1);
  const int gen = *generation_;
  int rc = mosquitto_loop_read(mosq_, 1);
  if (*generation_ != gen || rc != MOSQ_ERR_SUCCESS) return rc;
  if (mosquitto_want_write(mosq_)) {
    rc = mosquitto_loop_write(mosq_, 1);
    if (*generation_ != gen || rc != MOSQ_ERR_SUCCESS) return rc;
  }
  return mosquitto_loop_misc(mosq_);
}

std::optional<Client::HandshakeFailure> Client::handshake_socket_failed() const {
  // libmosquitto (2.0) takes any system error during the TLS handshake for a connection still under way and
  // tries the handshake again at every loop, for ever: a refused or reset connection would keep the socket
  // ready (a busy loop here) and never be retried. The socket itself tells: an error or a hang-up.
  if (!socket_) return std::nullopt;
  pollfd p{socket_->native_handle(), POLLOUT, 0};
  if (::poll(&p, 1, 0) != 1 || !(p.revents & (POLLERR | POLLHUP))) return std::nullopt;
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err != 0)
    return HandshakeFailure{std::strerror(err), err == ECONNRESET || err == EPIPE};
  return HandshakeFailure{"the connection was refused or closed before the TLS handshake ended"};
}

void Client::teardown(const std::string& why) {
  ++*generation_;
  tick_.cancel();
  if (socket_) {
    boost::system::error_code ignored;
    socket_->cancel(ignored);
    socket_->close(ignored);
    socket_.reset();
  }
  reading_ = writing_ = false;
  if (mosq_) {
    mosquitto_destroy(mosq_);
    mosq_ = nullptr;
  }
  lost_ = false;
  const bool was = connected_;
  connected_ = false;
  if (was && handlers_.disconnected) handlers_.disconnected(why);
}

void Client::schedule_reconnect() {
  if (stopped_) return;
  reconnect_.expires_after(backoff_);
  backoff_ = std::min(options_.reconnect_max, backoff_ * 2);
  reconnect_.async_wait([this, g = std::weak_ptr<int>(generation_)](const boost::system::error_code& ec) {
    if (ec || g.expired() || stopped_) return;
    connect();
  });
}

std::optional<int> Client::publish(const std::string& topic, std::string_view payload, int qos, bool retain) {
  if (!mosq_ || !connected_) return std::nullopt;
  int mid = 0;
  int rc = mosquitto_publish(mosq_, &mid, topic.c_str(), int(payload.size()), payload.data(), qos, retain);
  if (rc != MOSQ_ERR_SUCCESS) {
    last_error_ = std::string("publish: ") + mosquitto_strerror(rc);
    return std::nullopt;
  }
  arm();
  return mid;
}

bool Client::subscribe(const std::string& filter, int qos) {
  if (!mosq_ || !connected_) return false;
  bool ok = mosquitto_subscribe(mosq_, nullptr, filter.c_str(), qos) == MOSQ_ERR_SUCCESS;
  arm();
  return ok;
}

void Client::on_connect(mosquitto*, void* self, int rc) {
  auto* c = static_cast<Client*>(self);
  if (rc != 0) {
    c->last_error_ = std::string("the broker refused the connection: ") + mosquitto_connack_string(rc);
    spdlog::warn("mqtt: {}", c->last_error_);
    c->lost_ = true;
    c->lost_why_ = c->last_error_;
    return;
  }
  c->connected_ = true;
  c->backoff_ = c->options_.reconnect_min;
  ++c->connects_;
  c->last_error_.clear();
  if (c->handlers_.connected) c->handlers_.connected();
}

void Client::on_disconnect(mosquitto*, void* self, int rc) {
  auto* c = static_cast<Client*>(self);
  c->lost_ = true;
  c->lost_why_ = rc == 0 ? "disconnected" : "connection lost";
}

void Client::on_log(mosquitto*, void* self, int, const char* text) {
  // "OpenSSL Error[0]: error:0A000086:SSL routines::certificate verify failed": the reason is the last field.
  constexpr std::string_view prefix = "OpenSSL Error[";
  if (!text || std::string_view(text).substr(0, prefix.size()) != prefix) return;
  auto* c = static_cast<Client*>(self);
  std::string_view reason(text);
  if (auto colon = reason.rfind(':'); colon != std::string_view::npos) reason.remove_prefix(colon + 1);
  while (!reason.empty() && reason.front() == ' ') reason.remove_prefix(1);
  if (reason.empty() || c->tls_reasons_.size() > 512 || c->tls_reasons_.find(reason) != std::string::npos)
    return;
  if (!c->tls_reasons_.empty()) c->tls_reasons_ += "; ";
  c->tls_reasons_ += reason;
}

std::string Client::with_tls_reason(std::string why, bool connection_failed) const {
  if (!tls_reasons_.empty())
    why += " (TLS: " + tls_reasons_ + ")";
  else if (connection_failed && options_.tls && !connected_)
    // A broker that refuses a TLS client (no certificate, when it wants one) may close before its alert is
    // read: libmosquitto then says only "Protocol error".
    why += " (TLS: the broker closed the connection before accepting it)";
  return why;
}

void Client::on_publish(mosquitto*, void* self, int mid) {
  auto* c = static_cast<Client*>(self);
  if (c->handlers_.acknowledged) c->handlers_.acknowledged(mid);
}

void Client::on_message(mosquitto*, void* self, const mosquitto_message* msg) {
  auto* c = static_cast<Client*>(self);
  if (!c->handlers_.message || !msg || !msg->topic) return;
  c->handlers_.message(msg->topic, std::string_view(static_cast<const char*>(msg->payload),
                                                    msg->payloadlen > 0 ? std::size_t(msg->payloadlen) : 0));
}

}  // namespace eboard::mqtt
