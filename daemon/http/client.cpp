// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/http/client.hpp"

#include <openssl/ssl.h>

#include <memory>
#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace eboard::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;

tl::expected<Url, std::string> parse_url(std::string_view text) {
  Url u;
  std::string_view rest;
  if (text.rfind("https://", 0) == 0) {
    u.tls = true;
    rest = text.substr(8);
  } else if (text.rfind("http://", 0) == 0) {
    rest = text.substr(7);
  } else {
    return tl::unexpected("'" + std::string(text) + "' is not an http:// or https:// URL");
  }
  const auto slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  u.target = slash == rest.npos ? "/" : std::string(rest.substr(slash));
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    const auto close = authority.find(']');
    if (close == authority.npos) return tl::unexpected("unclosed [ in '" + std::string(text) + "'");
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return tl::unexpected("bad port in '" + std::string(text) + "'");
      port = authority.substr(close + 2);
    }
  } else if (const auto colon = authority.rfind(':'); colon != authority.npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return tl::unexpected("no host in '" + std::string(text) + "'");
  if (authority.find('@') != authority.npos)
    return tl::unexpected(std::string("credentials in a URL end up in logs: give them another way"));
  if (!port.empty() && (port.size() > 5 || port.find_first_not_of("0123456789") != port.npos ||
                        std::stoul(std::string(port)) > 65535 || std::stoul(std::string(port)) == 0))
    return tl::unexpected("bad port in '" + std::string(text) + "'");
  u.host = std::string(host);
  u.port = port.empty() ? (u.tls ? "443" : "80") : std::string(port);
  return u;
}

namespace {

// One exchange over a plain or a TLS stream; keeps itself alive until `done` is called.
template <class Stream>
class Exchange : public std::enable_shared_from_this<Exchange<Stream>> {
 public:
  Exchange(asio::io_context& io, std::shared_ptr<asio::ssl::context> tls, Url url, ClientRequest request,
           std::function<void(ClientResponse)> done)
      : resolver_(io),
        tls_(std::move(tls)),
        stream_(make_stream(io)),
        url_(std::move(url)),
        request_(std::move(request)),
        done_(std::move(done)) {}

  void start() {
    tcp_layer().expires_after(request_.timeout);
    // The resolver has no deadline of its own: the stream's expiry does not cover it.
    resolver_.async_resolve(
        url_.host, url_.port,
        [self = this->shared_from_this()](beast::error_code ec, tcp::resolver::results_type r) {
          if (ec) return self->finish("cannot resolve " + self->url_.host + ": " + ec.message());
          self->tcp_layer().async_connect(
              r, [self](beast::error_code e, const tcp::endpoint&) { self->on_connect(e); });
        });
  }

 private:
  Stream make_stream(asio::io_context& io) {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>)
      return Stream(io);
    else
      return Stream(io, *tls_);
  }
  beast::tcp_stream& tcp_layer() { return beast::get_lowest_layer(stream_); }

  void on_connect(beast::error_code ec) {
    if (ec) return finish(what(ec, "cannot connect to " + url_.host + ":" + url_.port));
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      send();
    } else {
      // SNI: one address serves many names; and the certificate must be the host's.
      if (!SSL_set_tlsext_host_name(stream_.native_handle(), url_.host.c_str()))
        return finish("TLS: cannot set the server name");
      stream_.set_verify_callback(asio::ssl::host_name_verification(url_.host));
      stream_.async_handshake(asio::ssl::stream_base::client,
                              [self = this->shared_from_this()](beast::error_code e) {
                                if (e)
                                  return self->finish(self->what(e, "TLS handshake with " + self->url_.host));
                                self->send();
                              });
    }
  }

  void send() {
    req_.method_string(request_.method);
    req_.target(url_.target);
    req_.version(11);
    req_.set(bhttp::field::host, url_.host);
    req_.set(bhttp::field::user_agent, "eboardd");
    req_.set(bhttp::field::content_type, request_.content_type);
    for (const auto& [k, v] : request_.headers) req_.set(k, v);
    req_.body() = request_.body;
    req_.prepare_payload();
    bhttp::async_write(stream_, req_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->finish(self->what(ec, "cannot send the request"));
      self->parser_.body_limit(1 << 20);
      bhttp::async_read(self->stream_, self->buffer_, self->parser_,
                        [self](beast::error_code e, std::size_t) {
                          if (e) return self->finish(self->what(e, "no answer"));
                          ClientResponse r;
                          r.status = self->parser_.get().result_int();
                          r.body = std::move(self->parser_.get().body());
                          self->done(std::move(r));
                        });
    });
  }

  std::string what(beast::error_code ec, const std::string& doing) const {
    if (ec == beast::error::timeout)
      return doing + ": timed out after " + std::to_string(request_.timeout.count()) + " ms";
    return doing + ": " + ec.message();
  }
  void finish(std::string error) {
    ClientResponse r;
    r.error = std::move(error);
    done(std::move(r));
  }
  void done(ClientResponse r) {
    beast::error_code ignored;
    tcp_layer().socket().shutdown(tcp::socket::shutdown_both, ignored);
    if (auto d = std::exchange(done_, nullptr)) d(std::move(r));
  }

  tcp::resolver resolver_;
  std::shared_ptr<asio::ssl::context> tls_;
  Stream stream_;
  Url url_;
  ClientRequest request_;
  std::function<void(ClientResponse)> done_;
  bhttp::request<bhttp::string_body> req_;
  bhttp::response_parser<bhttp::string_body> parser_;
  beast::flat_buffer buffer_;
};

std::shared_ptr<asio::ssl::context> client_tls() {
  // One context for the process: loading the system's authorities costs a few ms.
  static std::shared_ptr<asio::ssl::context> ctx = [] {
    auto c = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    c->set_default_verify_paths();
    c->set_verify_mode(asio::ssl::verify_peer);
    return c;
  }();
  return ctx;
}

}  // namespace

void fetch(asio::io_context& io, ClientRequest request, std::function<void(ClientResponse)> done) {
  auto url = parse_url(request.url);
  if (!url) {
    ClientResponse r;
    r.error = url.error();
    asio::post(io, [done = std::move(done), r = std::move(r)]() mutable { done(std::move(r)); });
    return;
  }
  if (url->tls)
    std::make_shared<Exchange<beast::ssl_stream<beast::tcp_stream>>>(io, client_tls(), std::move(*url),
                                                                     std::move(request), std::move(done))
        ->start();
  else
    std::make_shared<Exchange<beast::tcp_stream>>(io, nullptr, std::move(*url), std::move(request),
                                                  std::move(done))
        ->start();
}

}  // namespace eboard::http
