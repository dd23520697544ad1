// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// An MQTT client (libmosquitto, MQTT 3.1.1) driven by the Asio loop: its socket waits on an Asio
// descriptor and every libmosquitto call, callbacks included, runs on the loop's thread, so handlers may
// touch the service. A lost connection is not resumed by libmosquitto: a fresh client connects after a
// back-off, so that no message libmosquitto kept from the old connection is sent behind the caller's back
// (the caller republishes what was not acknowledged, in order, from its outbox).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

struct mosquitto;
struct mosquitto_message;

namespace eboard::mqtt {

struct ClientOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 1883;
  bool tls = false;
  std::string ca_file, cert_file, key_file;  // TLS: the broker's CA (empty: the system's), a client cert
  std::string username, password;
  std::string client_id;
  bool clean_session = true;  // false: the broker keeps this client's subscriptions and queued messages
  int keepalive_s = 30;
  std::string will_topic, will_payload;  // retained, QoS 1; empty topic: no will
  std::chrono::milliseconds reconnect_min{200};
  std::chrono::milliseconds reconnect_max{5000};
  int max_inflight = 1000;  // QoS 1 messages on their way at once
};

class Client {
 public:
  struct Handlers {
    std::function<void()> connected;  // CONNACK accepted: subscribe and publish from here
    std::function<void(const std::string& why)> disconnected;
    std::function<void(int mid)> acknowledged;  // a QoS 1 message's PUBACK
    std::function<void(const std::string& topic, std::string_view payload)> message;
  };
  Client(boost::asio::io_context& io, ClientOptions options, Handlers handlers);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  void start();
  // Publishes `final_topic` (retained, QoS 1) if connected, then disconnects cleanly; no reconnect.
  void stop(const std::string& final_topic = "", const std::string& final_payload = "");
  bool connected() const { return connected_; }
  // The message id, or nothing when not connected (or libmosquitto refused it).
  std::optional<int> publish(const std::string& topic, std::string_view payload, int qos, bool retain);
  bool subscribe(const std::string& filter, int qos);
  const std::string& last_error() const { return last_error_; }
  std::uint64_t connects() const { return connects_; }

 private:
  void connect();
  void drive();     // lets libmosquitto read, write and keep alive; tears down on a lost connection
  int loop_once();  // one round of libmosquitto's loop, whatever the socket's number
  void arm();       // waits for the socket as libmosquitto needs it
  void teardown(const std::string& why);
  // Why the socket of a TLS handshake died; `reset`: the broker reset it (it closed on us mid-handshake).
  struct HandshakeFailure {
    std::string why;
    bool reset = false;
  };
  std::optional<HandshakeFailure> handshake_socket_failed() const;
  void schedule_reconnect();
  static void on_connect(mosquitto* m, void* self, int rc);
  static void on_disconnect(mosquitto* m, void* self, int rc);
  static void on_publish(mosquitto* m, void* self, int mid);
  static void on_message(mosquitto* m, void* self, const mosquitto_message* msg);
  static void on_log(mosquitto* m, void* self, int level, const char* text);
  // `why` with OpenSSL's reasons, if any; a failed connection of a TLS client that never got in says so.
  std::string with_tls_reason(std::string why, bool connection_failed) const;

  boost::asio::io_context& io_;
  ClientOptions options_;
  Handlers handlers_;
  mosquitto* mosq_ = nullptr;
  std::unique_ptr<boost::asio::posix::stream_descriptor> socket_;  // a dup of libmosquitto's socket
  boost::asio::steady_timer tick_;
  boost::asio::steady_timer reconnect_;
  std::chrono::milliseconds backoff_;
  bool reading_ = false, writing_ = false;
  bool connected_ = false;
  bool stopped_ = true;
  bool lost_ = false;  // set by callbacks inside drive(): tear down once libmosquitto returned
  std::string lost_why_;
  std::string last_error_;
  // OpenSSL's reasons for the failure at hand ("certificate verify failed"): libmosquitto only returns
  // MOSQ_ERR_TLS or a protocol error and logs them, so they come from its log.
  std::string tls_reasons_;
  std::uint64_t connects_ = 0;
  std::shared_ptr<int> generation_ = std::make_shared<int>(0);  // stale waits see a changed value
};

}  // namespace eboard::mqtt
