// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/outputs/text_encoding.hpp"

#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <optional>

namespace eboard::outputs {

namespace {

// The length of the valid UTF-8 sequence at s[i], or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n;
  std::uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

// Windows-1252's characters at 0x80-0x9F (0: none there, read as Latin-1's control character).
constexpr std::uint16_t WINDOWS_1252_HIGH[32] = {
    0x20AC, 0,      0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017D, 0,      0,      0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0,      0x017E, 0x0178};

std::string from_single_byte(std::string_view s, bool windows_1252) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    std::uint32_t cp = c;
    if (windows_1252 && c >= 0x80 && c <= 0x9F && WINDOWS_1252_HIGH[c - 0x80] != 0)
      cp = WINDOWS_1252_HIGH[c - 0x80];
    append_utf8(out, cp);
  }
  return out;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  return u;
}

int line_at(std::string_view s, std::size_t offset) {
  return 1 + int(std::count(s.begin(), s.begin() + std::ptrdiff_t(std::min(offset, s.size())), '\n'));
}

std::optional<std::size_t> first_invalid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

tl::expected<std::string, std::string> through_iconv(std::string_view bytes, const std::string& from) {
  iconv_t cd = iconv_open("UTF-8", from.c_str());
  // iconv_open's documented failure value is (iconv_t)-1.
  if (cd == iconv_t(-1))  // NOLINT(performance-no-int-to-ptr)
    return tl::unexpected("unknown encoding '" + from + "'");
  struct Closer {
    iconv_t cd;
    ~Closer() { iconv_close(cd); }
  } closer{cd};
  std::string out;
  out.resize(bytes.size() * 4 + 16);  // no single-byte or 16-bit encoding takes more than 4 bytes a unit
  char* in = const_cast<char*>(bytes.data());
  std::size_t in_left = bytes.size();
  char* to = out.data();
  std::size_t to_left = out.size();
  if (iconv(cd, &in, &in_left, &to, &to_left) == std::size_t(-1)) {
    const std::size_t at = bytes.size() - in_left;
    if (errno == EINVAL) return tl::unexpected("the file ends within a character (" + from + ")");
    return tl::unexpected("line " + std::to_string(line_at(bytes, at)) + ": byte " + std::to_string(at) +
                          " is not a character of " + from);
  }
  out.resize(out.size() - to_left);
  return out;
}

}  // namespace

bool valid_utf8(std::string_view s) { return !first_invalid_utf8(s); }

std::string utf8_or_replaced(std::string_view s) {
  if (valid_utf8(s)) return std::string(s);
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string_view utf8_columns(std::string_view s, std::size_t first, std::size_t n) {
  std::size_t i = 0, column = 0;
  auto step = [&] {
    const std::size_t len = utf8_sequence(s, i);
    i += len == 0 ? 1 : len;  // a stray byte is one column
    ++column;
  };
  while (i < s.size() && column < first) step();
  const std::size_t start = i;
  while (i < s.size() && column < first + n) step();
  return s.substr(start, i - start);
}

tl::expected<DecodedText, std::string> decode_text(std::string_view bytes, std::string_view encoding) {
  std::string name = upper(encoding);
  if (name.empty() || name == "AUTO") {
    if (bytes.starts_with("\xEF\xBB\xBF")) {
      name = "UTF-8";
    } else if (bytes.starts_with("\xFF\xFE")) {
      name = "UTF-16LE";
      bytes.remove_prefix(2);
    } else if (bytes.starts_with("\xFE\xFF")) {
      name = "UTF-16BE";
      bytes.remove_prefix(2);
    } else {
      name = valid_utf8(bytes) ? "UTF-8" : "WINDOWS-1252";
    }
  }
  if (name == "UTF8") name = "UTF-8";
  if (name == "CP1252" || name == "WINDOWS1252" || name == "ANSI") name = "WINDOWS-1252";
  if (name == "LATIN1" || name == "LATIN-1" || name == "ISO8859-1" || name == "ISO_8859-1")
    name = "ISO-8859-1";
  if (name == "UTF-8") {
    if (bytes.starts_with("\xEF\xBB\xBF")) bytes.remove_prefix(3);
    if (auto bad = first_invalid_utf8(bytes))
      return tl::unexpected("line " + std::to_string(line_at(bytes, *bad)) + ": byte " +
                            std::to_string(*bad) +
                            " is not UTF-8 (name the file's encoding, e.g. WINDOWS-1252)");
    return DecodedText{std::string(bytes), name};
  }
  if (name == "WINDOWS-1252" || name == "ISO-8859-1")
    return DecodedText{from_single_byte(bytes, name == "WINDOWS-1252"), name};
  auto text = through_iconv(bytes, name);
  if (!text) return tl::unexpected(text.error());
  std::string_view t = *text;
  if (t.starts_with("\xEF\xBB\xBF")) t.remove_prefix(3);  // a BOM iconv left (UTF-16 with its mark)
  return DecodedText{std::string(t), name};
}

tl::expected<std::string, std::string> encode_text(std::string_view text, std::string_view encoding) {
  std::string name = upper(encoding);
  if (name.empty() || name == "UTF-8" || name == "UTF8") return utf8_or_replaced(text);
  if (name == "CP1252" || name == "WINDOWS1252" || name == "ANSI") name = "WINDOWS-1252";
  if (name == "LATIN1" || name == "LATIN-1" || name == "ISO8859-1" || name == "ISO_8859-1")
    name = "ISO-8859-1";
  const std::string valid = utf8_or_replaced(text);
  iconv_t cd = iconv_open((name + "//TRANSLIT").c_str(), "UTF-8");
  // iconv_open's documented failure value is (iconv_t)-1.
  if (cd == iconv_t(-1))  // NOLINT(performance-no-int-to-ptr)
    return tl::unexpected("unknown encoding '" + std::string(encoding) + "'");
  struct Closer {
    iconv_t cd;
    ~Closer() { iconv_close(cd); }
  } closer{cd};
  std::string out;
  char* in = const_cast<char*>(valid.data());
  std::size_t in_left = valid.size();
  char buf[4096];
  while (in_left > 0) {
    char* to = buf;
    std::size_t to_left = sizeof buf;
    const std::size_t done = iconv(cd, &in, &in_left, &to, &to_left);
    out.append(buf, sizeof buf - to_left);
    if (done != std::size_t(-1)) continue;
    if (errno == E2BIG) continue;
    // A character without a form there: '?' for it, and on with the next.
    out += '?';
    const std::size_t skip = std::max<std::size_t>(1, utf8_sequence(std::string_view(in, in_left), 0));
    in += std::min(skip, in_left);
    in_left -= std::min(skip, in_left);
  }
  return out;
}

}  // namespace eboard::outputs
