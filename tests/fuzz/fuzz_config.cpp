// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The configuration file (/etc/eboardd/eboardd.toml, any bytes a hand or a tool may leave in it): it either
// fails with an error that names the file and says what is wrong, or gives a configuration whose boards
// have unique, non-empty ids the daemon finds by name, whose `[http] listen` is an address the daemon can
// bind (read back as parsed), and which a reload of the same file sees as unchanged. The same bytes as a
// `--listen` address and an MQTT broker URL fail with a reason or give a usable address.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "daemon/config/config.hpp"

using namespace eboard::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto config = parse_config(text, "fuzz.toml");
  if (!config) {
    const ConfigError& e = config.error();
    if (e.message.empty() || e.file != "fuzz.toml" || e.line < 0 || e.column < 0) std::abort();
    if (e.what().find(e.message) == std::string::npos) std::abort();
  } else {
    std::set<std::string> ids;
    for (const auto& b : config->boards) {
      if (b.id.empty() || !ids.insert(b.id).second || config->board(b.id) != &b) std::abort();
    }
    const auto listen = parse_listen(config->http.listen);
    if (!listen || listen->port != config->http.port || listen->loopback != config->http.loopback)
      std::abort();
    if (!diff(*config, *config).empty()) std::abort();
  }
  // One line of the input as --listen and as a broker URL.
  const std::string_view line = text.substr(0, text.find('\n'));
  if (const auto a = parse_listen(line); !a && a.error().empty()) std::abort();
  if (const auto b = parse_broker_url(line); b ? b->host.empty() : b.error().empty()) std::abort();
  return 0;
}
