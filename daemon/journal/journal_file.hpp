// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The journal's file format: an append-only sequence of framed records that survives being cut anywhere
// and being damaged in the middle, and that shows whether it was altered.
//
//   file    = magic "eboardJ2" (8 bytes), then records
//   record  = sync "\xE5JR\x1E" (4) | length (u32 LE: bytes of link + type + body) | crc32 (u32 LE, of link +
//             type + body) | link (16) | type (1) | body
//   link    = the chain value of the record before (of the magic for the first record), where
//             chain(record) = the first 16 bytes of SHA-256(link | type | body)
//
// A power cut can leave the last record short or with a wrong checksum (the page cache wrote some of its
// blocks, not all): that torn tail is dropped when a writer reopens the file. A bad sector or a flipped bit
// in the middle costs only the records it touches: reading looks for the next sync marker whose record
// checks, and carries on from there. The links chain every record to the one before it, so an edited,
// removed or inserted record breaks the chain where it happened; a signature of the last chain value
// (signing.hpp) makes the whole file tamper-evident. Version 1 files ("eboardJ1": no sync, no link, reading
// stops at the first bad record) are still read and appended to, in their own format.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace eboard::journal {

inline constexpr std::string_view MAGIC = "eboardJ2";
inline constexpr std::string_view MAGIC_V1 = "eboardJ1";
inline constexpr std::string_view SYNC = "\xE5JR\x1E";
inline constexpr std::uint32_t MAX_RECORD_BYTES = 16u << 20;
inline constexpr std::size_t LINK_BYTES = 16;
inline constexpr std::size_t RECORD_OVERHEAD = 4 + 4 + 4 + LINK_BYTES + 1;  // sync, length, crc, link, type

using ChainValue = std::array<std::uint8_t, LINK_BYTES>;
// The link of a file's first record.
ChainValue chain_start();
// The chain value of a record whose link is `link`.
ChainValue chain_next(const ChainValue& link, char type, std::string_view body);
std::string chain_hex(const ChainValue& c);

// Frames records one after the other, carrying the chain: the exact bytes JournalWriter writes.
class Framer {
 public:
  explicit Framer(int version = 2, ChainValue chain = chain_start()) : version_(version), chain_(chain) {}
  void append(std::string& out, char type, std::string_view body);
  std::string frame(char type, std::string_view body) {
    std::string out;
    append(out, type, body);
    return out;
  }
  int version() const { return version_; }
  const ChainValue& chain() const { return chain_; }

 private:
  int version_;
  ChainValue chain_;
};

struct FileRecord {
  char type = 0;
  std::string body;
  std::uint64_t offset = 0;  // of the record's first byte in the file
};

// Bytes that reading skipped: records damaged in place, lost with everything they held.
struct DamagedRange {
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::string why;  // what was wrong with the record that started there
};

struct JournalScan {
  int version = 2;
  std::vector<FileRecord> records;
  std::uint64_t valid_bytes = 0;  // up to the end of the last whole, checked record
  std::uint64_t file_bytes = 0;
  std::vector<DamagedRange> damaged;  // inside the file, records after them were read
  std::string
      problem;  // everything that was wrong, one sentence each ("torn tail …", "damaged …"); empty if clean
  // Version 2: the chain value after the last record (what the next record links to), and the offsets of
  // records whose link does not follow from the record read before them (after damage, or an alteration).
  ChainValue chain = chain_start();
  std::vector<std::uint64_t> chain_breaks;

  bool torn_tail() const { return valid_bytes < file_bytes; }
  std::uint64_t damaged_bytes() const;
  bool clean() const { return problem.empty(); }
};

// Reads a journal's records one at a time, as scan_journal finds them (the same damage skipped, the same
// problems told), holding one read block and the record at hand: a journal of any length is read in
// bounded memory (the capture export). From a file it reads what the file held when opened.
class RecordReader {
 public:
  static constexpr std::size_t READ_BLOCK = 256 * 1024;
  // Over bytes the caller keeps while reading.
  explicit RecordReader(std::string_view bytes);
  // Over a file: fails when it cannot be read or is not a journal (wrong magic).
  static tl::expected<RecordReader, std::string> open(const std::filesystem::path& path);
  RecordReader(RecordReader&& o) noexcept;
  RecordReader& operator=(RecordReader&&) = delete;
  RecordReader(const RecordReader&) = delete;
  ~RecordReader();

  // The next whole, checked record; nothing at the end.
  std::optional<FileRecord> next();
  // What was read so far, without the records; whole (problem included) once next() returned nothing.
  JournalScan& scan() { return scan_; }

 private:
  RecordReader(int fd, std::uint64_t size);
  void start();
  void finish();
  // Whether bytes [at, at + n) are there (read from the file as needed); view() then gives them until the
  // next call of have().
  bool have(std::uint64_t at, std::uint64_t n);
  std::string_view view(std::uint64_t at, std::uint64_t n) const;
  // Why the version 2 record at `at` is not whole and checked (empty: it is; `len` its length field).
  std::string check_v2(std::uint64_t at, std::uint32_t& len);
  // The first record from `from` on that checks.
  std::optional<std::uint64_t> next_sync(std::uint64_t from, std::uint32_t& len);

  std::string_view mem_;  // over bytes in memory
  int fd_ = -1;           // over a file
  std::uint64_t size_ = 0;
  std::string buf_;  // the file's bytes [base_, base_ + buf_.size())
  std::uint64_t base_ = 0;
  std::uint64_t at_ = 0;
  bool done_ = false;
  JournalScan scan_;
  std::vector<std::string> problems_;
};

// Reads a journal. Fails (with the system's reason) only when the file cannot be read or is not a journal
// (wrong magic); a file shorter than the magic (cut while being created) is an empty journal.
tl::expected<JournalScan, std::string> scan_journal(const std::filesystem::path& path);
JournalScan scan_journal_bytes(std::string_view bytes);

// Rewrites a damaged journal as the records `scan` read from it, framed and chained anew (atomically: a new
// file renamed over it). The damaged bytes are gone from it afterwards: keep_damaged_copy() first.
tl::expected<void, std::string> rewrite_intact(const std::filesystem::path& path, const JournalScan& scan);

// Copies a damaged journal byte for byte next to it (`<name>.damaged-<unix ms>`), durably, before anything
// rewrites the original. Returns the copy's path.
tl::expected<std::filesystem::path, std::string> keep_damaged_copy(const std::filesystem::path& path,
                                                                   std::int64_t unix_ms);

struct WriterStats {
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
  std::uint64_t syncs = 0;
  std::chrono::microseconds sync_total{0};
  std::chrono::microseconds sync_max{0};
  std::uint64_t write_errors = 0;
};

// A journal's open file as the threads that make it durable see it (syncer.hpp): the descriptor, closed
// when the writer and every sync request holding it are gone, and how much of the file is known to be on
// disk. Every member function is safe from any thread.
class SyncFile {
 public:
  SyncFile(int fd, std::filesystem::path path, std::uint64_t durable_bytes);
  ~SyncFile();
  SyncFile(const SyncFile&) = delete;
  SyncFile& operator=(const SyncFile&) = delete;

  // Open for reading and writing: the signing read-back preads it (off the loop, maybe after a rotation
  // renamed the file).
  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  // The first durable() bytes of the file survive a power cut.
  std::uint64_t durable() const { return durable_.load(std::memory_order_acquire); }
  // Makes the first `bytes` bytes durable: fdatasync(2) unless they already are. The bytes must have
  // been written (write(2) returned) before the call; only those the writer reported (set_written) are
  // counted durable after it. Once an fdatasync has failed, every call fails with its error, without
  // syncing, until cut_back(): the kernel may report success for pages it dropped.
  tl::expected<void, std::string> sync_to(std::uint64_t bytes);
  // The writer's write(2) of the first `bytes` bytes returned.
  void set_written(std::uint64_t bytes) { written_.store(bytes, std::memory_order_release); }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // Cuts the file back to durable() (after a failed fdatasync) and lets syncs run again; returns the
  // new length.
  tl::expected<std::uint64_t, std::string> cut_back();
  // syncs, sync_total and sync_max of WriterStats. A sync is counted here before durable() shows the
  // bytes it made durable.
  WriterStats sync_stats() const;

 private:
  int fd_;
  std::filesystem::path path_;
  std::atomic<std::uint64_t> durable_;
  std::atomic<std::uint64_t> written_;
  std::atomic<bool> failed_{false};
  std::mutex sync_mutex_;     // one fdatasync or cut_back at a time; guards failure_
  std::string failure_;       // the failed fdatasync's error
  mutable std::mutex mutex_;  // the figures below
  WriterStats stats_;
};

class JournalWriter {
 public:
  // Opens `path` for appending after what `scan` read of it (its torn tail, if any, is cut off; its chain
  // and format continue), creating it (and fsyncing its directory) when missing or cut inside its magic.
  static tl::expected<JournalWriter, std::string> open(const std::filesystem::path& path,
                                                       const JournalScan& scan);
  // The same, scanning the file first.
  static tl::expected<JournalWriter, std::string> open(const std::filesystem::path& path);
  JournalWriter() = default;
  JournalWriter(JournalWriter&& o) noexcept = default;
  JournalWriter& operator=(JournalWriter&& o) noexcept = default;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter() = default;

  // Writes one record with a single write(2): once it returns, the record survives a crash of the
  // process (not yet a power cut: see sync()). Records buffered before it are written first, with it.
  // A failed write (a full disk) is cut back out of the file and loses nothing: the record stays
  // buffered, after the ones before it, for the next flush(), append() or sync() to write.
  tl::expected<void, std::string> append(char type, std::string_view body);
  // Keeps one record in memory for the next flush(), append() or sync(), which write everything kept
  // with a single write(2), in order: a loop turn's records (a clock message's raw bytes and its reading)
  // cost one system call. Until then a crash of the process loses it.
  tl::expected<void, std::string> buffer(char type, std::string_view body);
  // Writes the buffered records (nothing to do: no system call). A failed write keeps them all buffered,
  // in order, and leaves the file as it was before the call (a partly written record is cut off).
  tl::expected<void, std::string> flush();
  // Flushes, then fdatasync(2) when something was written since the file was last made durable (by this
  // call or by a syncer thread through file()): then the records survive a power cut. A failed sync
  // rewinds (see rewind_to_durable()), so the next sync() writes the records again before syncing.
  tl::expected<void, std::string> sync();
  // After an fdatasync failed (here or on a syncer thread): the kernel may have dropped the pages it
  // could not write and report success to the next fdatasync, so the bytes written since the file was
  // last durable cannot be trusted. Cuts the file back to durable() and buffers those records again,
  // before the ones already buffered. Fails (keeping everything as it was) only if the cut fails.
  tl::expected<void, std::string> rewind_to_durable();

  bool is_open() const { return file_ != nullptr; }
  bool dirty() const { return file_ && file_->durable() < size(); }
  // Bytes of the records appended so far, buffered ones included: the file's size after flush().
  std::uint64_t size() const { return size_ + buffered_.size(); }
  // Bytes of the records not written yet (kept through failed writes).
  std::size_t buffered() const { return buffered_.size(); }
  std::uint64_t buffered_records() const { return buffered_records_; }
  // Bytes written to the file (write(2) returned): a crash of the process keeps them.
  std::uint64_t written() const { return size_; }
  // Bytes known to be on disk (<= size()).
  std::uint64_t durable() const { return file_ ? file_->durable() : 0; }
  WriterStats stats() const;
  const std::filesystem::path& path() const { return path_; }
  // The file, for a syncer thread (syncer.hpp); null when not open.
  const std::shared_ptr<SyncFile>& file() const { return file_; }

 private:
  // Writes `bytes` (whole records, `count` of them) at the end of the file; on failure the file is cut
  // back to what it held before.
  tl::expected<void, std::string> write_records(std::string_view bytes, std::uint64_t count);
  // Forgets the kept copy of what is durable now.
  void trim_unsynced();

  std::shared_ptr<SyncFile> file_;
  std::uint64_t size_ = 0;  // written
  std::string buffered_;    // framed records not yet written
  std::uint64_t buffered_records_ = 0;
  // Frames the records (their chain runs through the buffered ones: a failed write keeps them, to be
  // written again as they are).
  Framer framer_;
  // A copy of the bytes written since the file was last known durable (from byte unsynced_from_), for
  // rewind_to_durable(); bounded by what one sync interval writes.
  std::string unsynced_;
  std::uint64_t unsynced_from_ = 0;
  std::uint64_t unsynced_records_ = 0;
  WriterStats stats_;  // records, bytes, write_errors (the sync figures are the file's)
  std::filesystem::path path_;
};

}  // namespace eboard::journal
