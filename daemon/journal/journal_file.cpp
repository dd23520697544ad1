// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/journal_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "daemon/journal/crc32.hpp"

namespace eboard::journal {

namespace {

std::string errno_text(const std::string& what, const std::filesystem::path& path) {
  return what + " " + path.string() + ": " + std::strerror(errno);
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(char((v >> (8 * i)) & 0xFFu));
}

std::uint32_t get_u32(std::string_view s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t(static_cast<unsigned char>(s[at + std::size_t(i)])) << (8 * i);
  return v;
}

// Writes all of `data` (retrying short writes and EINTR).
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(std::size_t(n));
  }
  return true;
}

void sync_directory(const std::filesystem::path& dir) {
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  ::fsync(dfd);
  ::close(dfd);
}

// Appends the framed record to `out` (no temporary strings: the loop frames a few thousand a second).
void append_frame(std::string& out, char type, std::string_view body) {
  const std::uint32_t crc = crc32(body, crc32(std::string_view(&type, 1)));
  out.reserve(out.size() + RECORD_OVERHEAD + body.size());
  put_u32(out, std::uint32_t(body.size() + 1));
  put_u32(out, crc);
  out.push_back(type);
  out.append(body);
}

}  // namespace

std::string frame_record(char type, std::string_view body) {
  std::string out;
  append_frame(out, type, body);
  return out;
}

JournalScan scan_journal_bytes(std::string_view bytes) {
  JournalScan scan;
  scan.file_bytes = bytes.size();
  if (bytes.size() < MAGIC.size()) {
    if (!bytes.empty())
      scan.problem = "file cut inside the magic (" + std::to_string(bytes.size()) + " bytes)";
    return scan;
  }
  std::size_t at = MAGIC.size();
  scan.valid_bytes = at;
  while (at < bytes.size()) {
    auto torn = [&](const std::string& why) {
      scan.problem = "record at byte " + std::to_string(at) + " " + why + "; " +
                     std::to_string(bytes.size() - at) + " bytes after it are ignored";
    };
    if (bytes.size() - at < 8) {
      torn("is cut inside its length and checksum");
      break;
    }
    std::uint32_t len = get_u32(bytes, at);
    std::uint32_t crc = get_u32(bytes, at + 4);
    if (len == 0 || len > MAX_RECORD_BYTES) {
      torn("has an impossible length " + std::to_string(len));
      break;
    }
    if (bytes.size() - at - 8 < len) {
      torn("is cut short (" + std::to_string(bytes.size() - at - 8) + " of " + std::to_string(len) +
           " bytes)");
      break;
    }
    std::string_view typed = bytes.substr(at + 8, len);
    if (crc32(typed) != crc) {
      torn("fails its checksum");
      break;
    }
    scan.records.push_back(FileRecord{typed[0], std::string(typed.substr(1)), at});
    at += 8 + len;
    scan.valid_bytes = at;
  }
  return scan;
}

tl::expected<JournalScan, std::string> scan_journal(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return tl::unexpected("cannot open " + path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  std::size_t n = std::min(bytes.size(), MAGIC.size());
  if (bytes.compare(0, n, MAGIC.substr(0, n)) != 0)
    return tl::unexpected(path.string() + " is not an eboardd journal (wrong magic)");
  return scan_journal_bytes(bytes);
}

SyncFile::SyncFile(int fd, std::filesystem::path path, std::uint64_t durable_bytes)
    : fd_(fd), path_(std::move(path)), durable_(durable_bytes), written_(durable_bytes) {}

SyncFile::~SyncFile() {
  if (fd_ >= 0) ::close(fd_);
}

tl::expected<void, std::string> SyncFile::sync_to(std::uint64_t bytes) {
  if (durable() >= bytes) return {};
  std::lock_guard sync_lock(sync_mutex_);
  if (failed()) return tl::unexpected(failure_);
  // Read before the fdatasync: everything up to it was written before the sync began.
  bytes = std::min(bytes, written_.load(std::memory_order_acquire));
  if (durable() >= bytes) return {};
  auto t0 = std::chrono::steady_clock::now();
  int rc = ::fdatasync(fd_);
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  if (rc != 0) {
    failure_ = errno_text("cannot sync", path_);
    failed_.store(true, std::memory_order_release);
    return tl::unexpected(failure_);
  }
  std::uint64_t was = durable_.load(std::memory_order_relaxed);
  while (was < bytes && !durable_.compare_exchange_weak(was, bytes, std::memory_order_release)) {}
  std::lock_guard lock(mutex_);
  ++stats_.syncs;
  stats_.sync_total += us;
  stats_.sync_max = std::max(stats_.sync_max, us);
  return {};
}

tl::expected<std::uint64_t, std::string> SyncFile::cut_back() {
  std::lock_guard sync_lock(sync_mutex_);
  const std::uint64_t keep = durable();
  if (::ftruncate(fd_, off_t(keep)) != 0 || ::lseek(fd_, off_t(keep), SEEK_SET) < 0)
    return tl::unexpected(errno_text("cannot cut back", path_));
  written_.store(keep, std::memory_order_release);
  failed_.store(false, std::memory_order_release);
  return keep;
}

WriterStats SyncFile::sync_stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

tl::expected<JournalWriter, std::string> JournalWriter::open(const std::filesystem::path& path,
                                                             std::optional<std::uint64_t> keep_bytes) {
  bool existed = std::filesystem::exists(path);
  JournalWriter w;
  w.path_ = path;
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) return tl::unexpected(errno_text("cannot open", path));
  // Closes the descriptor on every failure below.
  struct Guard {
    int fd;
    ~Guard() {
      if (fd >= 0) ::close(fd);
    }
  } guard{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return tl::unexpected(errno_text("cannot stat", path));
  std::uint64_t size = std::uint64_t(st.st_size);
  if (keep_bytes && *keep_bytes < size) {
    if (::ftruncate(fd, off_t(*keep_bytes)) != 0) return tl::unexpected(errno_text("cannot truncate", path));
    size = *keep_bytes;
  }
  if (size < MAGIC.size()) {
    // New, or cut inside the magic: start over.
    if (::ftruncate(fd, 0) != 0) return tl::unexpected(errno_text("cannot truncate", path));
    if (::lseek(fd, 0, SEEK_SET) < 0 || !write_all(fd, MAGIC))
      return tl::unexpected(errno_text("cannot write", path));
    if (::fdatasync(fd) != 0) return tl::unexpected(errno_text("cannot sync", path));
    size = MAGIC.size();
  }
  if (!existed) sync_directory(path.parent_path());
  if (::lseek(fd, off_t(size), SEEK_SET) < 0) return tl::unexpected(errno_text("cannot seek", path));
  // What the file holds when opened counts as written before: the first sync() covers only new records.
  w.file_ = std::make_shared<SyncFile>(fd, path, size);
  guard.fd = -1;  // the SyncFile owns it
  w.size_ = size;
  return w;
}

WriterStats JournalWriter::stats() const {
  WriterStats s = stats_;
  if (file_) {
    WriterStats f = file_->sync_stats();
    s.syncs = f.syncs;
    s.sync_total = f.sync_total;
    s.sync_max = f.sync_max;
  }
  return s;
}

tl::expected<void, std::string> JournalWriter::write_records(std::string_view bytes, std::uint64_t count) {
  const int fd = file_->fd();
  if (!write_all(fd, bytes)) {
    std::string err = errno_text("cannot write", path_);
    ++stats_.write_errors;
    // Undo a partial record so that the next one does not follow garbage. Shrinking a file needs no
    // free block, so this works on a full disk; if it fails all the same, the next write() goes after
    // the garbage and reading stops there (the records after it are lost to a restart, not to this run).
    if (::ftruncate(fd, off_t(size_)) == 0) ::lseek(fd, off_t(size_), SEEK_SET);
    return tl::unexpected(err);
  }
  trim_unsynced();
  if (unsynced_.empty()) unsynced_from_ = size_;
  unsynced_.append(bytes);
  unsynced_records_ += count;
  size_ += bytes.size();
  file_->set_written(size_);
  stats_.records += count;
  stats_.bytes += bytes.size();
  return {};
}

void JournalWriter::trim_unsynced() {
  const std::uint64_t durable = file_->durable();
  if (durable <= unsynced_from_) return;
  if (durable >= unsynced_from_ + unsynced_.size()) {
    unsynced_.clear();
    unsynced_records_ = 0;
    unsynced_from_ = size_;
    return;
  }
  // A sync covered part of it: whole records only (a sync's end is always a record's end).
  std::size_t at = 0;
  const std::size_t cut = std::size_t(durable - unsynced_from_);
  while (at < cut) {
    at += 8 + get_u32(unsynced_, at);
    --unsynced_records_;
  }
  unsynced_.erase(0, at);
  unsynced_from_ += at;
}

tl::expected<void, std::string> JournalWriter::buffer(char type, std::string_view body) {
  if (!file_) return tl::unexpected(std::string("journal is not open"));
  if (body.size() + 1 > MAX_RECORD_BYTES) return tl::unexpected(std::string("journal record too large"));
  append_frame(buffered_, type, body);
  ++buffered_records_;
  return {};
}

tl::expected<void, std::string> JournalWriter::flush() {
  // A syncer thread's fdatasync failed: what it should have made durable is written again first.
  if (file_ && file_->failed()) {
    if (auto ok = rewind_to_durable(); !ok) return ok;
  }
  if (buffered_.empty()) return {};
  auto ok = write_records(buffered_, buffered_records_);
  if (!ok) return ok;  // kept for the next try
  buffered_.clear();
  buffered_records_ = 0;
  return {};
}

tl::expected<void, std::string> JournalWriter::append(char type, std::string_view body) {
  if (auto ok = buffer(type, body); !ok) return ok;
  return flush();
}

tl::expected<void, std::string> JournalWriter::sync() {
  if (!file_) return {};
  if (auto ok = flush(); !ok) return ok;
  auto ok = file_->sync_to(size_);
  if (!ok) (void)rewind_to_durable();
  return ok;
}

tl::expected<void, std::string> JournalWriter::rewind_to_durable() {
  if (!file_) return {};
  auto kept = file_->cut_back();
  if (!kept) return tl::unexpected(kept.error());
  // No sync can move durable() past *kept now: the copy is trimmed to start there.
  trim_unsynced();
  if (*kept >= size_) return {};
  // unsynced_ runs from *kept to size_.
  buffered_.insert(0, unsynced_);
  buffered_records_ += unsynced_records_;
  unsynced_.clear();
  unsynced_records_ = 0;
  size_ = *kept;
  unsynced_from_ = size_;
  return {};
}

}  // namespace eboard::journal
