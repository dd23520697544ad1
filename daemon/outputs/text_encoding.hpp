// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The text of a file a pairing program wrote, as UTF-8. Swiss-Manager's "ANSI" export is the Windows code
// page of the machine (Windows-1252 in western Europe, Windows-1250 in central Europe), its Unicode export
// UTF-16 or UTF-8; Vega and JaVaFo write the platform's encoding or UTF-8. Nothing downstream (PGN tags,
// JSON answers) may see anything but valid UTF-8: a JSON serializer refuses (throws on) anything else.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace eboard::outputs {

struct DecodedText {
  std::string text;      // UTF-8, without a byte order mark
  std::string encoding;  // what it was read as: "UTF-8", "UTF-16LE", "WINDOWS-1252" …
};

// `encoding` "auto" (or empty): a byte order mark says UTF-8 or UTF-16; else text that is valid UTF-8 is
// UTF-8, and anything else Windows-1252 (Latin-1 with the printable characters Windows puts in 0x80-0x9F;
// a byte that has none there is read as Latin-1's). Any other name is one iconv(3) knows (e.g.
// "ISO-8859-1", "WINDOWS-1250", "CP850", "UTF-16LE"); a byte the named encoding does not define is an
// error naming its line. A UTF-8 BOM is dropped whatever the encoding.
tl::expected<DecodedText, std::string> decode_text(std::string_view bytes,
                                                   std::string_view encoding = "auto");

// UTF-8 `text` in `encoding` ("UTF-8", "WINDOWS-1252", "ISO-8859-1" or a name iconv knows), for a
// program that reads no Unicode. A character the encoding lacks becomes iconv's transliteration, else '?'.
tl::expected<std::string, std::string> encode_text(std::string_view text, std::string_view encoding);

// Whether `s` is valid UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view s);

// `s` with every byte that is not part of a valid UTF-8 sequence replaced by U+FFFD: for text of unknown
// origin (a device's name, a file's line quoted in an error) on its way into JSON.
std::string utf8_or_replaced(std::string_view s);

// The first `n` characters (code points) of the UTF-8 text `s` from character `first` (0-based): columns
// of a fixed-width file counted in characters, so that a name's accented letters shift nothing.
std::string_view utf8_columns(std::string_view s, std::size_t first, std::size_t n);

}  // namespace eboard::outputs
