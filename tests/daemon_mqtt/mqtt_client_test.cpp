// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The MQTT client's account of a connection that fails, against a real socket on loopback that refuses or
// answers what no broker would. TLS with a real broker and certificates: mqtt_tls_test.py.
#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "daemon/mqtt/client.hpp"
#include "tests/io/io_test_support.hpp"

using namespace eboard::mqtt;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

// Accepts every connection and answers it with an HTTP error, then keeps it open: neither a TLS server hello
// nor an MQTT CONNACK.
class NotABroker {
 public:
  explicit NotABroker(asio::io_context& io, std::uint16_t port = 0)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), port)) {
    accept();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
      if (ec) return;
      auto sock = std::make_shared<tcp::socket>(std::move(s));
      kept_.push_back(sock);
      asio::async_write(*sock, asio::buffer(answer_), [](const boost::system::error_code&, std::size_t) {});
      accept();
    });
  }
  tcp::acceptor acceptor_;
  std::vector<std::shared_ptr<tcp::socket>> kept_;
  const std::string answer_ = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
};

// Accepts every connection, reads the client's first bytes (a TLS client hello) and resets the connection:
// a broker that refuses a client without a certificate may close so before its alert is read.
class ResettingBroker {
 public:
  explicit ResettingBroker(asio::io_context& io)
      : acceptor_(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    accept();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  void accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
      if (ec) return;
      auto sock = std::make_shared<tcp::socket>(std::move(s));
      auto buf = std::make_shared<std::array<char, 512>>();
      sock->async_read_some(asio::buffer(*buf), [sock, buf](const boost::system::error_code&, std::size_t) {
        sock->set_option(asio::socket_base::linger(true, 0));  // close() sends a reset
        boost::system::error_code ignored;
        sock->close(ignored);
      });
      accept();
    });
  }
  tcp::acceptor acceptor_;
};

// Runs the loop until the client has a reason to tell (bounded by 15 s for a starved machine, never a pass
// on time).
std::string first_error(asio::io_context& io, Client& c) {
  eboard::io::test::run_until(io, [&] { return !c.last_error().empty(); });
  return c.last_error();
}

ClientOptions options_for(std::uint16_t port, bool tls) {
  ClientOptions o;
  o.port = port;
  o.tls = tls;
  o.reconnect_min = std::chrono::milliseconds(50);
  return o;
}

}  // namespace

TEST(Client, AFailedTlsHandshakeSaysWhatOpenSslSaid) {
  asio::io_context io;
  NotABroker server(io);
  bool told = false;
  Client::Handlers handlers;
  handlers.connected = [&] { told = true; };
  Client c(io, options_for(server.port(), true), handlers);
  c.start();
  const std::string why = first_error(io, c);
  // libmosquitto alone returns "A TLS error occurred." or a protocol error; OpenSSL's reason follows.
  auto at = why.find("(TLS: ");
  ASSERT_NE(at, std::string::npos) << why;
  EXPECT_GT(why.size(), at + std::string("(TLS: )").size()) << why;
  EXPECT_FALSE(c.connected());
  EXPECT_EQ(c.connects(), 0u);
  EXPECT_FALSE(told);
  c.stop();
}

TEST(Client, ARefusedTlsConnectionIsToldAndTriedAgain) {
  asio::io_context io;
  std::uint16_t port = 0;
  {
    tcp::acceptor closed(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    port = closed.local_endpoint().port();
  }  // nobody listens there now: the connection is refused before any TLS
  Client c(io, options_for(port, true), {});
  c.start();
  const std::string refused = first_error(io, c);
  EXPECT_FALSE(refused.empty());
  EXPECT_EQ(refused.find("(TLS: "), std::string::npos) << refused;
  EXPECT_FALSE(c.connected());

  // Someone listens now: the client tries again and gets as far as the handshake.
  NotABroker server(io, port);
  eboard::io::test::run_until(io, [&] { return c.last_error().find("(TLS: ") != std::string::npos; });
  EXPECT_NE(c.last_error().find("(TLS: "), std::string::npos) << c.last_error();
  c.stop();
}

// Wherever the reset is noticed (libmosquitto's loop or the socket itself), the client says the broker
// closed on it before accepting it: CI once showed a bare "Connection reset by peer".
TEST(Client, ABrokerResettingTheHandshakeIsToldAsARefusal) {
  for (int round = 0; round < 5; ++round) {
    SCOPED_TRACE(round);
    asio::io_context io;
    ResettingBroker server(io);
    Client c(io, options_for(server.port(), true), {});
    c.start();
    const std::string why = first_error(io, c);
    EXPECT_NE(why.find("(TLS: "), std::string::npos) << why;
    EXPECT_FALSE(c.connected());
    c.stop();
  }
}
