// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The journal's file format: an append-only sequence of framed records that survives being cut anywhere.
//
//   file    = magic "eboardJ1" (8 bytes), then records
//   record  = length (u32 LE: bytes of type + body) | crc32 (u32 LE, of type + body) | type (1 byte) | body
//
// A power cut can leave the last record short or with a wrong checksum (the page cache wrote some of its
// blocks, not all). Reading stops at the first record that is incomplete, too long or fails its checksum;
// everything before it is good. A writer opened after such a scan cuts the file back to the good part,
// so new records never follow garbage.
#pragma once

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

inline constexpr std::string_view MAGIC = "eboardJ1";
inline constexpr std::uint32_t MAX_RECORD_BYTES = 16u << 20;
inline constexpr std::size_t RECORD_OVERHEAD = 9;  // length, crc, type

struct FileRecord {
  char type = 0;
  std::string body;
  std::uint64_t offset = 0;  // of the record's first byte in the file
};

struct JournalScan {
  std::vector<FileRecord> records;
  std::uint64_t valid_bytes = 0;  // the magic and every whole, checked record
  std::uint64_t file_bytes = 0;
  std::string problem;  // why reading stopped before the end ("torn record at byte N: ..."); empty if clean
};

// Reads a journal. Fails only when the file cannot be read or is not a journal (wrong magic); a file
// shorter than the magic (cut while being created) is an empty journal.
tl::expected<JournalScan, std::string> scan_journal(const std::filesystem::path& path);
JournalScan scan_journal_bytes(std::string_view bytes);

// One encoded record (the exact bytes append() writes).
std::string frame_record(char type, std::string_view body);

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

  int fd() const { return fd_; }
  const std::filesystem::path& path() const { return path_; }
  // The first durable() bytes of the file survive a power cut.
  std::uint64_t durable() const { return durable_.load(std::memory_order_acquire); }
  // Makes the first `bytes` bytes durable: fdatasync(2) unless they already are. The bytes must have
  // been written (write(2) returned) before the call.
  tl::expected<void, std::string> sync_to(std::uint64_t bytes);
  // syncs, sync_total and sync_max of WriterStats.
  WriterStats sync_stats() const;

 private:
  int fd_;
  std::filesystem::path path_;
  std::atomic<std::uint64_t> durable_;
  mutable std::mutex mutex_;  // the figures below
  WriterStats stats_;
};

class JournalWriter {
 public:
  // Opens `path` for appending, creating it (and fsyncing its directory) when missing. With `keep_bytes`
  // (a scan's valid_bytes), the file is first cut back to that length: a torn tail is discarded.
  static tl::expected<JournalWriter, std::string> open(const std::filesystem::path& path,
                                                       std::optional<std::uint64_t> keep_bytes = {});
  JournalWriter() = default;
  JournalWriter(JournalWriter&& o) noexcept = default;
  JournalWriter& operator=(JournalWriter&& o) noexcept = default;
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;
  ~JournalWriter() = default;

  // Writes one record with a single write(2): once it returns, the record survives a crash of the
  // process (not yet a power cut: see sync()). A failed write is undone (the file is cut back), so
  // the journal stays readable.
  // Records buffered before it are written first, with it.
  tl::expected<void, std::string> append(char type, std::string_view body);
  // Keeps one record in memory for the next flush(), append() or sync(), which write everything kept
  // with a single write(2), in order: a loop turn's records (a clock message's raw bytes and its reading)
  // cost one system call. Until then a crash of the process loses it.
  tl::expected<void, std::string> buffer(char type, std::string_view body);
  // Writes the buffered records (nothing to do: no system call). A failed write drops them (the file is
  // cut back, as for append()).
  tl::expected<void, std::string> flush();
  // Flushes, then fdatasync(2) when something was written since the file was last made durable (by this
  // call or by a syncer thread through file()): then the records survive a power cut.
  tl::expected<void, std::string> sync();

  bool is_open() const { return file_ != nullptr; }
  bool dirty() const { return file_ && file_->durable() < size(); }
  // Bytes of the records appended so far, buffered ones included: the file's size after flush().
  std::uint64_t size() const { return size_ + buffered_.size(); }
  std::size_t buffered() const { return buffered_.size(); }
  // Bytes known to be on disk (<= size()).
  std::uint64_t durable() const { return file_ ? file_->durable() : 0; }
  WriterStats stats() const;
  const std::filesystem::path& path() const { return path_; }
  // The file, for a syncer thread (syncer.hpp); null when not open.
  const std::shared_ptr<SyncFile>& file() const { return file_; }

 private:
  // Writes `bytes` (whole records, `count` of them) at the end of the file.
  tl::expected<void, std::string> write_records(std::string_view bytes, std::uint64_t count);

  std::shared_ptr<SyncFile> file_;
  std::uint64_t size_ = 0;  // written
  std::string buffered_;    // framed records not yet written
  std::uint64_t buffered_records_ = 0;
  std::string scratch_;  // append()'s record, its capacity kept
  WriterStats stats_;    // records, bytes, write_errors (the sync figures are the file's)
  std::filesystem::path path_;
};

}  // namespace eboard::journal
