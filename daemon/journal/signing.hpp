// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// Signed game records: the daemon's Ed25519 key, and the signature file written next to a finished game's
// archive (`<archive>.sig`) that lets anyone holding the archive, its journal and the hall's published key
// tell whether a byte of them was changed afterwards, and where.
//
// A signature file is JSON, written with two-space indentation and sorted keys, and must be byte for byte
// what that rendering of its own content gives (so that no byte of it can change unnoticed, whitespace
// included). It states:
//   archive   the archive's file name, length, SHA-256, and the SHA-256 of each of its lines (the first 16
//             bytes, hex; lines split at '\n', the text after the last '\n' counting as a line): a changed
//             archive is located at its first differing line
//   journals  per journal: file name, the path the daemon wrote it at, the length N signed (the file grows
//             with later games), the record count, the chain value after the first N bytes, the SHA-256 of
//             those bytes, and checkpoints (record count, offset, chain value) every CHECKPOINT_RECORDS
//             records: a forger who re-chains the whole file is still located between two checkpoints
//   board, game, signed_ms, signed_utc, key ("ed25519:" + 64 hex digits)
//   signature Ed25519 (hex) of SIGNED_PREFIX followed by the compact rendering (sorted keys, no
//             whitespace) of every member but `signature`.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "daemon/journal/journal_file.hpp"

namespace eboard::journal {

inline constexpr std::string_view SIGNATURE_FORMAT = "eboardd-signature 1";
inline constexpr std::string_view SIGNED_PREFIX = "eboardd-signature 1\n";
inline constexpr std::uint64_t CHECKPOINT_RECORDS = 256;
inline constexpr std::size_t LINE_HASH_BYTES = 16;

struct PublicKey {
  std::array<std::uint8_t, 32> bytes{};
  // "ed25519:" + 64 hex digits: the form in .pub files and signature files.
  std::string text() const;
  // The first 16 bytes of the key's SHA-256 in groups of four hex digits ("1a2b:3c4d:…"): what a hall
  // publishes and an appeals committee compares.
  std::string fingerprint() const;
  bool operator==(const PublicKey&) const = default;
};

// A public key as `text()` writes it, a bare 64-digit hex key, or a .pub file's content (comment lines
// starting with '#' are skipped).
tl::expected<PublicKey, std::string> parse_public_key(std::string_view text);

class SigningKey {
 public:
  static SigningKey generate();
  // A secret key file's content (secret_text()).
  static tl::expected<SigningKey, std::string> parse(std::string_view text);
  std::string secret_text() const;
  const PublicKey& public_key() const { return public_; }
  // The 64-byte Ed25519 signature of `message`.
  std::array<std::uint8_t, 64> sign(std::string_view message) const;

 private:
  std::array<std::uint8_t, 64> secret_{};
  PublicKey public_;
};

bool signature_valid(const PublicKey& key, std::string_view message, const std::array<std::uint8_t, 64>& sig);

// The daemon's key in `dir` (state_dir/keys): eboardd.key (secret, mode 0600) and eboardd.pub. Made on first
// use (written atomically). A key file that cannot be read or does not hold a key is an error, never
// replaced: the signatures made with it would no longer be checkable against the published key.
tl::expected<SigningKey, std::string> load_or_create_key(const std::filesystem::path& dir);
inline constexpr std::string_view SECRET_KEY_FILE = "eboardd.key";
inline constexpr std::string_view PUBLIC_KEY_FILE = "eboardd.pub";

struct Checkpoint {
  std::uint64_t records = 0;  // after this many records
  std::uint64_t offset = 0;   // ending at this byte
  ChainValue chain{};
};

// What a signature states about one journal.
struct JournalSeal {
  std::string board;
  std::string file;  // its name
  std::string path;  // where the daemon wrote it
  int version = 2;
  std::uint64_t bytes = 0;    // the first `bytes` bytes are signed
  std::uint64_t records = 0;  // records in them
  ChainValue chain{};         // after them
  std::string sha256;         // of them (hex)
  std::vector<Checkpoint> checkpoints;
};

// Seals the first `bytes` bytes of a journal (which must be whole, checked records: a journal with damage
// or a torn record inside them is refused).
tl::expected<JournalSeal, std::string> seal_journal_bytes(std::string_view prefix);
// The same, reading the first `bytes` bytes of the file at `path` (the writer may be appending after them).
tl::expected<JournalSeal, std::string> seal_journal(const std::filesystem::path& path, std::uint64_t bytes,
                                                    const std::string& board);

// Seals a growing journal again and again without reading it from the start each time: a board's journal
// holds a day of games, and the loop that signs a finished game must not stall on reading megabytes. Each
// seal() reads only the bytes written since the last one; the whole file again when it is another file
// (replaced, rotated), shorter than sealed before, or a version 1 journal (no chain to carry on).
class JournalSealer {
 public:
  JournalSealer();
  ~JournalSealer();
  JournalSealer(JournalSealer&&) noexcept;
  JournalSealer& operator=(JournalSealer&&) noexcept;
  JournalSealer(const JournalSealer&) = delete;
  JournalSealer& operator=(const JournalSealer&) = delete;

  tl::expected<JournalSeal, std::string> seal(const std::filesystem::path& path, std::uint64_t bytes,
                                              const std::string& board);
  // The same through the open file `fd`, named `path` in the seal: what the daemon wrote at `path`, read
  // even after a rotation renamed it (the signing read-back runs off the loop, maybe after one).
  tl::expected<JournalSeal, std::string> seal(int fd, const std::filesystem::path& path, std::uint64_t bytes,
                                              const std::string& board);
  // Carries the seal over `more`, the bytes that follow what is sealed (the magic first). False, and nothing
  // changed, when they are not whole records that check and chain on.
  bool extend(std::string_view more);
  // The seal of what was extended over (without board, file and path).
  JournalSeal current() const;
  std::uint64_t bytes() const { return bytes_; }
  // Bytes read from files by seal(), for the record of what re-sealing costs.
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct Sha;
  void reset();
  std::unique_ptr<Sha> sha_;  // of the bytes sealed
  std::uint64_t bytes_ = 0;
  std::uint64_t records_ = 0;
  ChainValue chain_ = chain_start();
  std::vector<Checkpoint> checkpoints_;
  std::string path_;
  std::uint64_t device_ = 0, inode_ = 0;
  std::uint64_t bytes_read_ = 0;
};

struct ArchiveSeal {
  std::string file;
  std::uint64_t bytes = 0;
  std::string sha256;
  std::vector<std::string> line_hashes;
};
ArchiveSeal seal_archive(const std::string& file_name, std::string_view content);

struct SignedRecord {
  ArchiveSeal archive;
  std::vector<JournalSeal> journals;
  std::string board;  // a board's id, or a match's name ("A-B")
  int game = 0;       // the board's game number, or the match's number
  std::int64_t signed_ms = 0;
  PublicKey key;
  std::array<std::uint8_t, 64> signature{};
};

// The signature file's content.
std::string signature_file_text(SignedRecord record, const SigningKey& key);
// Parses a signature file; the error says where it is not what the daemon writes (a byte offset).
tl::expected<SignedRecord, std::string> parse_signature_file(std::string_view text);
// Whether `record.signature` is `record.key`'s signature of the rest.
bool record_signature_valid(const SignedRecord& record);

// One finding of a check: fine, or altered at a place (a line, a byte), said in one sentence.
struct Finding {
  bool intact = true;
  std::string text;
  std::optional<std::uint64_t> at;  // the line (archive, 1-based) or byte (journal) where it first differs
};

// The archive against what the record states.
Finding check_archive(const ArchiveSeal& seal, std::string_view content);
// A journal against its seal: its first seal.bytes bytes, then whether what follows still chains on
// (`after`: a note on the bytes past the signed part; not intact if they are damaged or do not chain).
Finding check_sealed_journal(const JournalSeal& seal, std::string_view bytes, Finding* after = nullptr);
// A journal without a signature: magic, checksums and links of every record.
Finding check_journal_chain(std::string_view bytes);

std::string to_hex(const std::uint8_t* data, std::size_t n);
std::string sha256_hex(std::string_view data, std::size_t bytes = 32);

}  // namespace eboard::journal
