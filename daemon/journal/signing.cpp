// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/signing.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "daemon/journal/crc32.hpp"
#include "daemon/outputs/atomic_file.hpp"

namespace eboard::journal {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr std::string_view SECRET_TAG = "ed25519-secret:";
constexpr std::string_view PUBLIC_TAG = "ed25519:";
// Key files are a few lines; anything larger is not one.
constexpr std::size_t MAX_KEY_FILE_BYTES = 4096;

void ensure_sodium() {
  static const int ready = sodium_init();
  (void)ready;  // 1 when another caller initialised it first: fine either way (-1 never happens on Linux)
}

const unsigned char* bytes_of(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // lower case only: one spelling per value, so that a changed letter's case is a changed value
}

// Exactly 2 * out.size() hex digits.
bool from_hex(std::string_view hex, std::uint8_t* out, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = std::uint8_t(hi * 16 + lo);
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The lines of a key file that are not blank or comments.
std::vector<std::string_view> key_lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = trim(text.substr(0, nl));
    if (!line.empty() && line.front() != '#') out.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::string errno_text(const std::string& what, const fs::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

tl::expected<std::string, std::string> read_small_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return tl::unexpected(errno_text("cannot open", path));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return tl::unexpected(errno_text("cannot read", path));
  if (!S_ISREG(st.st_mode)) return tl::unexpected(path.string() + " is not a regular file");
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return tl::unexpected(errno_text("cannot read", path));
    if (n == 0) break;
    text.append(buf, std::size_t(n));
    if (text.size() > MAX_KEY_FILE_BYTES)
      return tl::unexpected(path.string() + " is larger than a key file can be");
  }
  return text;
}

// Writes `content` to `path` with `mode`: the durable write (outputs/atomic_file.hpp).
tl::expected<void, std::string> write_key_file(const fs::path& path, std::string_view content, mode_t mode) {
  return outputs::write_file_atomic(path, content, true, mode);
}

// Bytes [from, to) of the open file `fd` (named `path` in messages; the writer may be appending after them).
tl::expected<std::string, std::string> read_range_fd(int fd, const fs::path& path, std::uint64_t from,
                                                     std::uint64_t to) {
  std::string out(to > from ? to - from : 0, '\0');
  std::size_t got = 0;
  int err = 0;
  while (got < out.size()) {
    const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, off_t(from + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = errno;
    if (n <= 0) break;
    got += std::size_t(n);
  }
  if (got < out.size())
    return tl::unexpected("cannot read bytes " + std::to_string(from) + " to " + std::to_string(to) + " of " +
                          path.string() + ": " + (err == 0 ? "the file is shorter" : std::strerror(err)));
  return out;
}

// The same by the file's name.
tl::expected<std::string, std::string> read_range(const fs::path& path, std::uint64_t from,
                                                  std::uint64_t to) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(errno_text("cannot open", path));
  auto out = read_range_fd(fd, path, from, to);
  ::close(fd);
  return out;
}

std::string public_file_text(const PublicKey& key) {
  return "# eboardd's public signing key (fingerprint " + key.fingerprint() +
         "): publish it, so that anyone can check the hall's signed game records with\n"
         "# eboardctl verify --key-file eboardd.pub GAME.pgn\n" +
         key.text() + "\n";
}

std::string utc_text(std::int64_t unix_ms) {
  const std::time_t t = std::time_t(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string dump(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

json journal_json(const JournalSeal& s) {
  json cps = json::array();
  for (const Checkpoint& c : s.checkpoints)
    cps.push_back({{"records", c.records}, {"offset", c.offset}, {"chain", chain_hex(c.chain)}});
  return {{"board", s.board},
          {"file", s.file},
          {"path", s.path},
          {"version", s.version},
          {"bytes", s.bytes},
          {"records", s.records},
          {"chain", chain_hex(s.chain)},
          {"sha256", s.sha256},
          {"checkpoints", cps}};
}

json unsigned_json(const SignedRecord& r) {
  json journals = json::array();
  for (const JournalSeal& s : r.journals) journals.push_back(journal_json(s));
  return {{"format", SIGNATURE_FORMAT},
          {"archive",
           {{"file", r.archive.file},
            {"bytes", r.archive.bytes},
            {"sha256", r.archive.sha256},
            {"line_sha256", r.archive.line_hashes}}},
          {"journals", journals},
          {"board", r.board},
          {"game", r.game},
          {"signed_ms", r.signed_ms},
          {"signed_utc", utc_text(r.signed_ms)},
          {"key", r.key.text()}};
}

std::string signed_message(const SignedRecord& r) {
  return std::string(SIGNED_PREFIX) + dump(unsigned_json(r), -1);
}

ChainValue parse_chain(const json& j) {
  ChainValue c{};
  const std::string s = j.get<std::string>();
  if (!from_hex(s, c.data(), c.size())) throw std::runtime_error("a chain value is not 32 hex digits");
  return c;
}

std::vector<std::string_view> split_lines(std::string_view content) {
  std::vector<std::string_view> lines;
  for (;;) {
    const std::size_t nl = content.find('\n');
    lines.push_back(content.substr(0, nl));
    if (nl == std::string_view::npos) break;
    content.remove_prefix(nl + 1);
  }
  return lines;
}

// A line for a message: printable ASCII as is, the rest escaped, cut at 100 characters.
std::string shown(std::string_view line) {
  std::string out;
  for (char c : line.substr(0, 100)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F && c != '\\') {
      out.push_back(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    }
  }
  if (line.size() > 100) out += "…";
  return out;
}

// The 1-based number of the record at or after byte `at`.
std::uint64_t record_number(const JournalScan& scan, std::uint64_t at) {
  std::uint64_t k = 1;
  for (const FileRecord& r : scan.records) {
    if (r.offset >= at) break;
    ++k;
  }
  return k;
}

// The first problem a scan found at or after byte `from`: where, and what.
std::optional<std::pair<std::uint64_t, std::string>> first_problem(const JournalScan& scan,
                                                                   std::uint64_t from, bool torn_counts) {
  std::optional<std::pair<std::uint64_t, std::string>> best;
  auto consider = [&](std::uint64_t at, std::string why) {
    if (at < from) return;
    if (!best || at < best->first) best = std::make_pair(at, std::move(why));
  };
  for (const DamagedRange& d : scan.damaged)
    consider(d.offset, d.why + " (" + std::to_string(d.bytes) + " bytes unreadable)");
  for (std::uint64_t b : scan.chain_breaks)
    consider(b, "the record at byte " + std::to_string(b) +
                    " does not link to the record before it (a record was changed, removed or inserted)");
  if (torn_counts && scan.torn_tail())
    consider(scan.valid_bytes, "the record at byte " + std::to_string(scan.valid_bytes) +
                                   " is incomplete or fails its checksum, and nothing readable follows it");
  return best;
}

// Where `bytes` stops looking like a journal of `version` inside its magic; nullopt when it does not.
std::optional<std::uint64_t> magic_difference(std::string_view bytes, int version) {
  const std::string_view magic = version == 1 ? MAGIC_V1 : MAGIC;
  for (std::size_t i = 0; i < magic.size(); ++i)
    if (i >= bytes.size() || bytes[i] != magic[i]) return i;
  return std::nullopt;
}

}  // namespace

std::string to_hex(const std::uint8_t* data, std::size_t n) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(digits[data[i] >> 4]);
    out.push_back(digits[data[i] & 15]);
  }
  return out;
}

std::string sha256_hex(std::string_view data, std::size_t bytes) {
  std::array<std::uint8_t, crypto_hash_sha256_BYTES> h{};
  crypto_hash_sha256(h.data(), bytes_of(data), data.size());
  return to_hex(h.data(), std::min(bytes, h.size()));
}

std::string PublicKey::text() const { return std::string(PUBLIC_TAG) + to_hex(bytes.data(), bytes.size()); }

std::string PublicKey::fingerprint() const {
  std::array<std::uint8_t, crypto_hash_sha256_BYTES> h{};
  crypto_hash_sha256(h.data(), bytes.data(), bytes.size());
  const std::string hex = to_hex(h.data(), 16);
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 4) {
    if (i) out.push_back(':');
    out.append(hex, i, 4);
  }
  return out;
}

tl::expected<PublicKey, std::string> parse_public_key(std::string_view text) {
  const auto lines = key_lines(text);
  if (lines.size() != 1)
    return tl::unexpected(std::string("not a public key: expected one line ed25519:<64 hex digits>"));
  std::string_view hex = lines[0];
  if (hex.substr(0, PUBLIC_TAG.size()) == PUBLIC_TAG) hex.remove_prefix(PUBLIC_TAG.size());
  // A key typed or pasted by hand may be in capitals (a signature file's key is compared as written).
  std::string lower(hex);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  hex = lower;
  PublicKey k;
  if (!from_hex(hex, k.bytes.data(), k.bytes.size()))
    return tl::unexpected(std::string("not a public key: expected ed25519:<64 hex digits>"));
  return k;
}

SigningKey SigningKey::generate() {
  ensure_sodium();
  SigningKey k;
  crypto_sign_keypair(k.public_.bytes.data(), k.secret_.data());
  return k;
}

tl::expected<SigningKey, std::string> SigningKey::parse(std::string_view text) {
  const auto lines = key_lines(text);
  if (lines.size() != 1 || lines[0].substr(0, SECRET_TAG.size()) != SECRET_TAG)
    return tl::unexpected(std::string("not an eboardd secret key (expected one line ") +
                          std::string(SECRET_TAG) + "<128 hex digits>)");
  SigningKey k;
  if (!from_hex(lines[0].substr(SECRET_TAG.size()), k.secret_.data(), k.secret_.size()))
    return tl::unexpected(std::string("not an eboardd secret key (its key is not 128 hex digits)"));
  // Both halves of the secret key follow from its seed: a changed byte anywhere in it shows here.
  ensure_sodium();
  std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
  crypto_sign_ed25519_sk_to_seed(seed.data(), k.secret_.data());
  std::array<std::uint8_t, 64> again{};
  crypto_sign_seed_keypair(k.public_.bytes.data(), again.data(), seed.data());
  const bool consistent = again == k.secret_;
  sodium_memzero(again.data(), again.size());
  sodium_memzero(seed.data(), seed.size());
  if (!consistent) return tl::unexpected(std::string("the secret key is damaged (its two halves disagree)"));
  return k;
}

std::string SigningKey::secret_text() const {
  return "# eboardd's secret signing key: keep it secret (mode 0600) and keep a backup. Its public half is "
         "eboardd.pub.\n" +
         std::string(SECRET_TAG) + to_hex(secret_.data(), secret_.size()) + "\n";
}

std::array<std::uint8_t, 64> SigningKey::sign(std::string_view message) const {
  std::array<std::uint8_t, 64> sig{};
  crypto_sign_detached(sig.data(), nullptr, bytes_of(message), message.size(), secret_.data());
  return sig;
}

bool signature_valid(const PublicKey& key, std::string_view message,
                     const std::array<std::uint8_t, 64>& sig) {
  ensure_sodium();
  return crypto_sign_verify_detached(sig.data(), bytes_of(message), message.size(), key.bytes.data()) == 0;
}

tl::expected<SigningKey, std::string> load_or_create_key(const fs::path& dir) {
  const fs::path secret = dir / SECRET_KEY_FILE;
  const fs::path pub = dir / PUBLIC_KEY_FILE;
  std::error_code ec;
  const bool have_secret = fs::symlink_status(secret, ec).type() != fs::file_type::not_found;
  const bool have_public = fs::symlink_status(pub, ec).type() != fs::file_type::not_found;
  const std::string keep =
      "; eboardd never replaces a signing key (the records signed with it would no longer match the "
      "published "
      "key): restore it from a backup, or move the key files aside to have a new key made";
  if (!have_secret) {
    if (have_public)
      return tl::unexpected("the signing key " + secret.string() + " is missing but its public half " +
                            pub.string() + " is there" + keep);
    fs::create_directories(dir, ec);
    if (ec) return tl::unexpected("cannot create " + dir.string() + ": " + ec.message());
    ::chmod(dir.c_str(), 0700);
    SigningKey k = SigningKey::generate();
    if (auto ok = write_key_file(secret, k.secret_text(), 0600); !ok) return tl::unexpected(ok.error());
    if (auto ok = write_key_file(pub, public_file_text(k.public_key()), 0644); !ok)
      return tl::unexpected(ok.error());
    return k;
  }
  auto text = read_small_file(secret);
  if (!text) return tl::unexpected("the signing key is unreadable: " + text.error() + keep);
  auto k = SigningKey::parse(*text);
  if (!k) return tl::unexpected("the signing key " + secret.string() + " is " + k.error() + keep);
  if (!have_public) {
    if (auto ok = write_key_file(pub, public_file_text(k->public_key()), 0644); !ok)
      return tl::unexpected(ok.error());
    return k;
  }
  auto ptext = read_small_file(pub);
  if (!ptext) return tl::unexpected("the public signing key is unreadable: " + ptext.error() + keep);
  auto p = parse_public_key(*ptext);
  if (!p) return tl::unexpected(pub.string() + " is " + p.error() + keep);
  if (!(*p == k->public_key()))
    return tl::unexpected(pub.string() + " is not the public half of " + secret.string() + keep);
  return k;
}

tl::expected<JournalSeal, std::string> seal_journal_bytes(std::string_view prefix) {
  if (prefix.substr(0, MAGIC.size()) == MAGIC) {
    JournalSealer s;
    if (s.extend(prefix)) return s.current();
  }
  // Why not, in the reader's words; a version 1 journal (no chain) is sealed by its SHA-256 alone.
  JournalScan scan = scan_journal_bytes(prefix);
  if (prefix.size() < MAGIC.size() || magic_difference(prefix, scan.version))
    return tl::unexpected(std::string("not an eboardd journal"));
  if (!scan.clean() || scan.valid_bytes != prefix.size() || scan.version != 1)
    return tl::unexpected("the journal is not whole up to byte " + std::to_string(prefix.size()) + ": " +
                          (scan.problem.empty() ? "its records do not chain" : scan.problem));
  JournalSeal s;
  s.version = 1;
  s.bytes = prefix.size();
  s.records = scan.records.size();
  s.sha256 = sha256_hex(prefix);
  return s;
}

struct JournalSealer::Sha {
  crypto_hash_sha256_state state;
};

JournalSealer::JournalSealer() { reset(); }
JournalSealer::~JournalSealer() = default;
JournalSealer::JournalSealer(JournalSealer&&) noexcept = default;
JournalSealer& JournalSealer::operator=(JournalSealer&&) noexcept = default;

void JournalSealer::reset() {
  sha_ = std::make_unique<Sha>();
  crypto_hash_sha256_init(&sha_->state);
  bytes_ = 0;
  records_ = 0;
  chain_ = chain_start();
  checkpoints_.clear();
}

bool JournalSealer::extend(std::string_view more) {
  std::size_t at = 0;
  if (bytes_ == 0) {
    if (more.substr(0, MAGIC.size()) != MAGIC) return false;
    at = MAGIC.size();
  }
  // Worked on copies: a part that does not check leaves the seal as it was.
  ChainValue chain = chain_;
  std::uint64_t records = records_;
  const std::size_t checkpoints = checkpoints_.size();
  auto u32 = [&](std::size_t i) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k)
      v |= std::uint32_t(static_cast<unsigned char>(more[i + k])) << (8 * k);
    return v;
  };
  while (at < more.size()) {
    const std::size_t left = more.size() - at;
    bool ok = left >= 12 && more.substr(at, SYNC.size()) == SYNC;
    const std::uint32_t len = ok ? u32(at + 4) : 0;
    ok = ok && len >= LINK_BYTES + 1 && len <= MAX_RECORD_BYTES && left - 12 >= len;
    const std::string_view linked = ok ? more.substr(at + 12, len) : std::string_view();
    ok = ok && crc32(linked) == u32(at + 8) &&
         std::equal(chain.begin(), chain.end(), reinterpret_cast<const std::uint8_t*>(linked.data()));
    if (!ok) {
      checkpoints_.resize(checkpoints);
      return false;
    }
    chain = chain_next(chain, linked[LINK_BYTES], linked.substr(LINK_BYTES + 1));
    ++records;
    at += 12 + len;
    if (records % CHECKPOINT_RECORDS == 0) checkpoints_.push_back({records, bytes_ + at, chain});
  }
  crypto_hash_sha256_update(&sha_->state, bytes_of(more), more.size());
  bytes_ += more.size();
  records_ = records;
  chain_ = chain;
  return true;
}

JournalSeal JournalSealer::current() const {
  JournalSeal s;
  s.version = 2;
  s.bytes = bytes_;
  s.records = records_;
  s.chain = chain_;
  s.checkpoints = checkpoints_;
  crypto_hash_sha256_state copy = sha_->state;
  std::array<std::uint8_t, crypto_hash_sha256_BYTES> h{};
  crypto_hash_sha256_final(&copy, h.data());
  s.sha256 = to_hex(h.data(), h.size());
  return s;
}

tl::expected<JournalSeal, std::string> JournalSealer::seal(const fs::path& path, std::uint64_t bytes,
                                                           const std::string& board) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected(errno_text("cannot open", path));
  auto s = seal(fd, path, bytes, board);
  ::close(fd);
  return s;
}

tl::expected<JournalSeal, std::string> JournalSealer::seal(int fd, const fs::path& path, std::uint64_t bytes,
                                                           const std::string& board) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return tl::unexpected(errno_text("cannot stat", path));
  if (path.string() != path_ || std::uint64_t(st.st_dev) != device_ || std::uint64_t(st.st_ino) != inode_ ||
      bytes < bytes_)
    reset();
  path_ = path.string();
  device_ = std::uint64_t(st.st_dev);
  inode_ = std::uint64_t(st.st_ino);
  auto more = read_range_fd(fd, path, bytes_, bytes);
  if (!more) return tl::unexpected(more.error());
  bytes_read_ += more->size();
  if (!extend(*more)) {
    // Not a continuation of what was sealed (rewritten in place, version 1, damaged): the whole file says.
    reset();
    auto whole = read_range_fd(fd, path, 0, bytes);
    if (!whole) return tl::unexpected(whole.error());
    bytes_read_ += whole->size();
    if (!extend(*whole)) {
      reset();
      auto s = seal_journal_bytes(*whole);
      if (!s) return tl::unexpected(path.string() + ": " + s.error());
      s->board = board;
      s->file = path.filename().string();
      s->path = path.string();
      return s;
    }
  }
  JournalSeal s = current();
  s.board = board;
  s.file = path.filename().string();
  s.path = path.string();
  return s;
}

tl::expected<JournalSeal, std::string> seal_journal(const fs::path& path, std::uint64_t bytes,
                                                    const std::string& board) {
  auto prefix = read_range(path, 0, bytes);
  if (!prefix) return tl::unexpected(prefix.error());
  auto s = seal_journal_bytes(*prefix);
  if (!s) return tl::unexpected(path.string() + ": " + s.error());
  s->board = board;
  s->file = path.filename().string();
  s->path = path.string();
  return s;
}

ArchiveSeal seal_archive(const std::string& file_name, std::string_view content) {
  ArchiveSeal a;
  a.file = file_name;
  a.bytes = content.size();
  a.sha256 = sha256_hex(content);
  for (std::string_view line : split_lines(content))
    a.line_hashes.push_back(sha256_hex(line, LINE_HASH_BYTES));
  return a;
}

std::string signature_file_text(SignedRecord record, const SigningKey& key) {
  record.key = key.public_key();
  record.signature = key.sign(signed_message(record));
  json j = unsigned_json(record);
  j["signature"] = to_hex(record.signature.data(), record.signature.size());
  return dump(j, 2) + "\n";
}

tl::expected<SignedRecord, std::string> parse_signature_file(std::string_view text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    return tl::unexpected("not a signature file: not valid JSON at byte " +
                          std::to_string(e.byte > 0 ? e.byte - 1 : 0));
  } catch (const json::exception&) {  // a number past a double's range (out_of_range 406)
    return tl::unexpected(std::string("not a signature file: a number too large for JSON to hold"));
  }
  // Byte for byte as the daemon renders it: no byte of the file can change without this or the signature
  // noticing (whitespace, key order, escapes, number forms).
  const std::string canonical = dump(j, 2) + "\n";
  if (canonical != text) {
    const auto diff = std::mismatch(canonical.begin(), canonical.end(), text.begin(), text.end());
    return tl::unexpected("the signature file is altered at byte " +
                          std::to_string(diff.second - text.begin()) +
                          " (it is not what eboardd writes: its JSON rendered again differs there)");
  }
  try {
    if (!j.is_object() || j.value("format", "") != SIGNATURE_FORMAT)
      return tl::unexpected("not a signature file (no \"format\": \"" + std::string(SIGNATURE_FORMAT) +
                            "\")");
    SignedRecord r;
    const json& a = j.at("archive");
    r.archive.file = a.at("file").get<std::string>();
    r.archive.bytes = a.at("bytes").get<std::uint64_t>();
    r.archive.sha256 = a.at("sha256").get<std::string>();
    r.archive.line_hashes = a.at("line_sha256").get<std::vector<std::string>>();
    for (const json& s : j.at("journals")) {
      JournalSeal seal;
      seal.board = s.at("board").get<std::string>();
      seal.file = s.at("file").get<std::string>();
      seal.path = s.at("path").get<std::string>();
      seal.version = s.at("version").get<int>();
      seal.bytes = s.at("bytes").get<std::uint64_t>();
      seal.records = s.at("records").get<std::uint64_t>();
      seal.chain = parse_chain(s.at("chain"));
      seal.sha256 = s.at("sha256").get<std::string>();
      for (const json& c : s.at("checkpoints"))
        seal.checkpoints.push_back({c.at("records").get<std::uint64_t>(), c.at("offset").get<std::uint64_t>(),
                                    parse_chain(c.at("chain"))});
      r.journals.push_back(std::move(seal));
    }
    r.board = j.at("board").get<std::string>();
    r.game = j.at("game").get<int>();
    r.signed_ms = j.at("signed_ms").get<std::int64_t>();
    auto key = parse_public_key(j.at("key").get<std::string>());
    if (!key) return tl::unexpected("the signature file's key is " + key.error());
    r.key = *key;
    if (!from_hex(j.at("signature").get<std::string>(), r.signature.data(), r.signature.size()))
      return tl::unexpected(std::string("the signature file's signature is not 128 hex digits"));
    // signed_utc and the key text are derived: a record whose rendering differs was altered.
    if (dump(unsigned_json(r), -1) != [&] {
          json u = j;
          u.erase("signature");
          return dump(u, -1);
        }())
      return tl::unexpected(
          std::string("the signature file holds members eboardd does not write, or derived "
                      "values (signed_utc) that do not match"));
    return r;
  } catch (const std::exception& e) {
    return tl::unexpected(std::string("the signature file lacks a member or has one of the wrong kind: ") +
                          e.what());
  }
}

bool record_signature_valid(const SignedRecord& record) {
  return signature_valid(record.key, signed_message(record), record.signature);
}

Finding check_archive(const ArchiveSeal& seal, std::string_view content) {
  const std::vector<std::string_view> lines = split_lines(content);
  const std::size_t n = std::max(lines.size(), seal.line_hashes.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t line = i + 1;
    if (i >= seal.line_hashes.size())
      return {false,
              "altered at line " + std::to_string(line) + ": the signed archive had " +
                  std::to_string(seal.line_hashes.size()) + " lines; this one has more, from \"" +
                  shown(lines[i]) + "\"",
              line};
    if (i >= lines.size())
      return {false,
              "altered at line " + std::to_string(line) + ": the signed archive had " +
                  std::to_string(seal.line_hashes.size()) + " lines; this one ends after " +
                  std::to_string(lines.size()),
              line};
    const std::string now = sha256_hex(lines[i], LINE_HASH_BYTES);
    if (now != seal.line_hashes[i])
      return {false,
              "altered at line " + std::to_string(line) + ": \"" + shown(lines[i]) + "\" hashes to " + now +
                  ", the signed line to " + seal.line_hashes[i],
              line};
  }
  if (sha256_hex(content) != seal.sha256 || content.size() != seal.bytes)
    return {false,
            "altered: every line hashes as signed, but the whole file's SHA-256 differs from the signed one",
            std::nullopt};
  return {true,
          "intact: " + std::to_string(content.size()) + " bytes, " + std::to_string(lines.size()) +
              " lines, SHA-256 " + seal.sha256,
          std::nullopt};
}

Finding check_sealed_journal(const JournalSeal& seal, std::string_view bytes, Finding* after) {
  auto at_byte = [](std::uint64_t at, const JournalScan& scan, const std::string& why) {
    return Finding{false,
                   "altered at byte " + std::to_string(at) + " (record " +
                       std::to_string(record_number(scan, at)) + "): " + why,
                   at};
  };
  if (auto m = magic_difference(bytes, seal.version))
    return {false,
            "altered at byte " + std::to_string(*m) + ": the file does not begin with the journal's magic",
            *m};
  // The whole file: a record rewritten with another length ends elsewhere than the signed part does.
  const JournalScan scan = scan_journal_bytes(bytes);
  const bool short_file = bytes.size() < seal.bytes;
  // A cut file ends in a record cut short: that is the shortness told below, unless something before it.
  if (auto p = first_problem(scan, 0, !short_file); p && p->first < seal.bytes)
    return at_byte(p->first, scan, p->second);
  // Cut off, or records taken out and the rest chained anew: either way it checks as signed up to `from`.
  auto shorter = [&](std::uint64_t from) {
    return Finding{false,
                   "altered after byte " + std::to_string(from) + ": the file is shorter than signed (" +
                       std::to_string(bytes.size()) + " of " + std::to_string(seal.bytes) + " bytes, " +
                       std::to_string(scan.records.size()) + " of " + std::to_string(seal.records) +
                       " records); it checks as signed up to byte " + std::to_string(from),
                   from};
  };
  if (seal.version == 2) {
    ChainValue c = chain_start();
    std::uint64_t from = MAGIC.size();
    std::uint64_t from_record = 1;
    std::size_t next_cp = 0;
    std::optional<std::pair<std::uint64_t, ChainValue>>
        at_seal;                                               // where the signed records end, and the chain
    if (seal.records == 0) at_seal = std::make_pair(from, c);  // a journal sealed with no record yet
    auto differs = [&](std::uint64_t to, std::uint64_t to_record, const std::string& what) {
      return Finding{false,
                     "altered between byte " + std::to_string(from) + " and byte " + std::to_string(to) +
                         " (records " + std::to_string(from_record) + " to " + std::to_string(to_record) +
                         "): " + what + " (the records there were rewritten and chained anew)",
                     from};
    };
    for (std::size_t i = 0; i < scan.records.size(); ++i) {
      const FileRecord& r = scan.records[i];
      c = chain_next(c, r.type, r.body);
      const std::uint64_t end = r.offset + RECORD_OVERHEAD + r.body.size();
      if (next_cp < seal.checkpoints.size() && i + 1 == seal.checkpoints[next_cp].records) {
        const Checkpoint& cp = seal.checkpoints[next_cp];
        if (end != cp.offset || c != cp.chain)
          return differs(cp.offset, cp.records,
                         "the chain after record " + std::to_string(cp.records) + " is " + chain_hex(c) +
                             " at byte " + std::to_string(end) + ", the signed checkpoint " +
                             chain_hex(cp.chain) + " at byte " + std::to_string(cp.offset));
        from = cp.offset;
        from_record = cp.records + 1;
        ++next_cp;
      }
      if (i + 1 == seal.records) {
        at_seal = std::make_pair(end, c);
        break;
      }
    }
    if (short_file) return shorter(from);
    if (!at_seal)
      return differs(seal.bytes, seal.records,
                     "the file holds " + std::to_string(scan.records.size()) +
                         " records where the signature has " + std::to_string(seal.records));
    if (at_seal->first != seal.bytes || at_seal->second != seal.chain)
      return differs(seal.bytes, seal.records,
                     "the first " + std::to_string(seal.records) + " records end at byte " +
                         std::to_string(at_seal->first) + " with the chain value " +
                         chain_hex(at_seal->second) + ", the signed ones at byte " +
                         std::to_string(seal.bytes) + " with " + chain_hex(seal.chain));
  } else if (short_file) {
    return shorter(MAGIC_V1.size());
  }
  if (sha256_hex(bytes.substr(0, seal.bytes)) != seal.sha256)
    return {false,
            "altered: the SHA-256 of its first " + std::to_string(seal.bytes) +
                " bytes differs from the signed one (every record checks and chains as signed)",
            std::nullopt};
  if (after) {
    *after = {true, "", std::nullopt};
    if (bytes.size() > seal.bytes) {
      const std::uint64_t later =
          scan.records.size() - std::min<std::uint64_t>(scan.records.size(), seal.records);
      if (auto p = first_problem(scan, seal.bytes, false)) {
        *after = at_byte(p->first, scan, p->second + " (after the signed part)");
      } else {
        after->text = std::to_string(bytes.size() - seal.bytes) + " bytes (" + std::to_string(later) +
                      " records) follow the signed part, chained on from it (not covered by this signature)";
        if (scan.torn_tail())
          after->text += "; the last record, at byte " + std::to_string(scan.valid_bytes) +
                         ", is incomplete (being written, or cut by a crash)";
      }
    }
  }
  return {true,
          "intact: its first " + std::to_string(seal.bytes) + " bytes (" + std::to_string(seal.records) +
              " records) check and chain to " + chain_hex(seal.chain) + " as signed",
          std::nullopt};
}

Finding check_journal_chain(std::string_view bytes) {
  const int version = bytes.substr(0, MAGIC_V1.size()) == MAGIC_V1 ? 1 : 2;
  if (auto m = magic_difference(bytes, version))
    return {
        false,
        "altered or not a journal at byte " + std::to_string(*m) + ": the file does not begin with the magic",
        *m};
  const JournalScan scan = scan_journal_bytes(bytes);
  if (auto p = first_problem(scan, 0, true))
    return {false,
            "altered at byte " + std::to_string(p->first) + " (record " +
                std::to_string(record_number(scan, p->first)) + "): " + p->second,
            p->first};
  if (version == 1)
    return {
        true,
        "every record checks (" + std::to_string(scan.records.size()) +
            " records; a version 1 journal has no chain: without a signature, a rewritten record cannot be "
            "told)",
        std::nullopt};
  return {true,
          "every record checks and links to the one before (" + std::to_string(scan.records.size()) +
              " records, " + std::to_string(bytes.size()) + " bytes, chain " + chain_hex(scan.chain) +
              "); without a signature this does not show a journal rewritten and chained anew as a whole",
          std::nullopt};
}

}  // namespace eboard::journal
