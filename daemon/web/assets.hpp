// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The operator's web page (index.html, app.js, style.css in daemon/web), built into eboardd as bytes by
// cmake/EmbedFiles.cmake: the daemon serves it from its own binary, with nothing to find at run time.
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace eboard::web {

struct Asset {
  std::string_view name;          // "app.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view bytes;
  std::string_view etag;  // a quoted digest of the bytes
};

extern const std::span<const Asset> ASSETS;

// The file of that name, or nullptr.
inline const Asset* find_asset(std::string_view name) {
  for (const Asset& a : ASSETS)
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace eboard::web
