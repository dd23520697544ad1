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
  // syncs, sync_total and sync_max of WriterStats.
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
  // A copy of the bytes written since the file was last known durable (from byte unsynced_from_), for
  // rewind_to_durable(); bounded by what one sync interval writes.
  std::string unsynced_;
  std::uint64_t unsynced_from_ = 0;
  std::uint64_t unsynced_records_ = 0;
  WriterStats stats_;  // records, bytes, write_errors (the sync figures are the file's)
  std::filesystem::path path_;
};

}  // namespace eboard::journal
