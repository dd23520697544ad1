// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
#include "daemon/journal/journal_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "daemon/journal/crc32.hpp"
#include "daemon/outputs/atomic_file.hpp"

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

void sync_directory(const std::filesystem::path& dir) { (void)outputs::sync_directory(dir); }

// Appends a version 1 record to `out` (no temporary strings: the loop frames a few thousand a second).
void append_frame_v1(std::string& out, char type, std::string_view body) {
  const std::uint32_t crc = crc32(body, crc32(std::string_view(&type, 1)));
  out.reserve(out.size() + 9 + body.size());
  put_u32(out, std::uint32_t(body.size() + 1));
  put_u32(out, crc);
  out.push_back(type);
  out.append(body);
}

std::string_view as_chars(const ChainValue& c) { return {reinterpret_cast<const char*>(c.data()), c.size()}; }

std::string errno_reason(const std::filesystem::path& path) {
  return path.string() + ": " + std::strerror(errno);
}

// Reads a whole file with read(2), so that the caller gets the system's reason when it cannot.
tl::expected<std::string, std::string> read_whole(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected("cannot open " + errno_reason(path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = "cannot stat " + errno_reason(path);
    ::close(fd);
    return tl::unexpected(why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return tl::unexpected("cannot read " + path.string() + ": not a regular file");
  }
  std::string bytes;
  bytes.resize(std::size_t(st.st_size));
  std::size_t got = 0;
  for (;;) {
    if (got == bytes.size()) bytes.resize(got + 65536);  // the file grew while being read
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string why = "cannot read " + errno_reason(path);
      ::close(fd);
      return tl::unexpected(why);
    }
    if (n == 0) break;
    got += std::size_t(n);
  }
  ::close(fd);
  bytes.resize(got);
  return bytes;
}

}  // namespace

ChainValue chain_start() {
  static const ChainValue start = [] {
    std::array<std::uint8_t, crypto_hash_sha256_BYTES> h{};
    crypto_hash_sha256(h.data(), reinterpret_cast<const unsigned char*>(MAGIC.data()), MAGIC.size());
    ChainValue c{};
    std::copy_n(h.begin(), LINK_BYTES, c.begin());
    return c;
  }();
  return start;
}

ChainValue chain_next(const ChainValue& link, char type, std::string_view body) {
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, link.data(), link.size());
  const auto t = static_cast<unsigned char>(type);
  crypto_hash_sha256_update(&st, &t, 1);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(body.data()), body.size());
  std::array<std::uint8_t, crypto_hash_sha256_BYTES> h{};
  crypto_hash_sha256_final(&st, h.data());
  ChainValue c{};
  std::copy_n(h.begin(), LINK_BYTES, c.begin());
  return c;
}

std::string chain_hex(const ChainValue& c) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : c) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

void Framer::append(std::string& out, char type, std::string_view body) {
  if (version_ == 1) return append_frame_v1(out, type, body);
  std::uint32_t crc = crc32(as_chars(chain_));
  crc = crc32(std::string_view(&type, 1), crc);
  crc = crc32(body, crc);
  out.reserve(out.size() + RECORD_OVERHEAD + body.size());
  out.append(SYNC);
  put_u32(out, std::uint32_t(LINK_BYTES + 1 + body.size()));
  put_u32(out, crc);
  out.append(as_chars(chain_));
  out.push_back(type);
  out.append(body);
  chain_ = chain_next(chain_, type, body);
}

std::uint64_t JournalScan::damaged_bytes() const {
  std::uint64_t n = 0;
  for (const auto& d : damaged) n += d.bytes;
  return n;
}

RecordReader::RecordReader(std::string_view bytes) : mem_(bytes), size_(bytes.size()) { start(); }

RecordReader::RecordReader(RecordReader&& o) noexcept
    : mem_(o.mem_),
      fd_(std::exchange(o.fd_, -1)),
      size_(o.size_),
      buf_(std::move(o.buf_)),
      base_(o.base_),
      at_(o.at_),
      done_(o.done_),
      scan_(std::move(o.scan_)),
      problems_(std::move(o.problems_)) {}

RecordReader::~RecordReader() {
  if (fd_ >= 0) ::close(fd_);
}

tl::expected<RecordReader, std::string> RecordReader::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tl::unexpected("cannot open " + errno_reason(path));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = "cannot stat " + errno_reason(path);
    ::close(fd);
    return tl::unexpected(why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return tl::unexpected("cannot read " + path.string() + ": not a regular file");
  }
  RecordReader r(fd, std::uint64_t(st.st_size));
  const std::uint64_t n = std::min<std::uint64_t>(r.size_, MAGIC.size());
  if (n > 0 && !r.have(0, n)) return tl::unexpected("cannot read " + errno_reason(path));
  const std::string_view head = r.view(0, n);
  if (head != MAGIC.substr(0, n) && head != MAGIC_V1.substr(0, n))
    return tl::unexpected(path.string() + " is not an eboardd journal (wrong magic)");
  r.start();
  return r;
}

RecordReader::RecordReader(int fd, std::uint64_t size) : fd_(fd), size_(size) {}

void RecordReader::start() {
  scan_.file_bytes = size_;
  if (size_ < MAGIC.size()) {
    if (size_ > 0) scan_.problem = "file cut inside the magic (" + std::to_string(size_) + " bytes)";
    done_ = true;
    return;
  }
  scan_.valid_bytes = MAGIC.size();
  at_ = MAGIC.size();
  (void)have(0, MAGIC.size());
  if (view(0, MAGIC_V1.size()) == MAGIC_V1) scan_.version = 1;
}

bool RecordReader::have(std::uint64_t at, std::uint64_t n) {
  if (at + n > size_) return false;
  if (fd_ < 0) return true;
  if (at >= base_ && at + n <= base_ + buf_.size()) return true;
  // Read on from `at`: a block, or the whole record when it is longer.
  const std::uint64_t want = std::min(size_ - at, std::max<std::uint64_t>(n, READ_BLOCK));
  buf_.resize(std::size_t(want));
  base_ = at;
  std::size_t got = 0;
  while (got < buf_.size()) {
    const ssize_t r = ::pread(fd_, buf_.data() + got, buf_.size() - got, off_t(at + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;  // cut back meanwhile, or unreadable: the file ends here
    got += std::size_t(r);
  }
  buf_.resize(got);
  if (got < want) size_ = at + got;
  if (buf_.capacity() > 4 * std::max<std::size_t>(got, READ_BLOCK))
    buf_.shrink_to_fit();  // after a big record
  return at + n <= size_;
}

std::string_view RecordReader::view(std::uint64_t at, std::uint64_t n) const {
  if (fd_ < 0) return mem_.substr(std::size_t(at), std::size_t(n));
  return std::string_view(buf_).substr(std::size_t(at - base_), std::size_t(n));
}

std::string RecordReader::check_v2(std::uint64_t at, std::uint32_t& len) {
  const std::uint64_t left = size_ - at;
  if (left < 12 || !have(at, 12)) return "is cut inside its header";
  if (view(at, SYNC.size()) != SYNC) return "does not start with the sync marker";
  len = get_u32(view(at, 12), 4);
  if (len < LINK_BYTES + 1 || len > MAX_RECORD_BYTES)
    return "has an impossible length " + std::to_string(len);
  if (left - 12 < len || !have(at, 12 + std::uint64_t(len)))
    return "is cut short (" + std::to_string(size_ - at - 12) + " of " + std::to_string(len) + " bytes)";
  if (crc32(view(at + 12, len)) != get_u32(view(at, 12), 8)) return "fails its checksum";
  return {};
}

std::optional<std::uint64_t> RecordReader::next_sync(std::uint64_t from, std::uint32_t& len) {
  std::uint64_t pos = from;
  while (pos + SYNC.size() <= size_) {
    const std::uint64_t n = std::min<std::uint64_t>(size_ - pos, READ_BLOCK);
    if (!have(pos, n)) return std::nullopt;
    const std::size_t i = view(pos, n).find(SYNC);
    if (i == std::string_view::npos) {
      if (n < SYNC.size() + 1) return std::nullopt;
      pos += n - (SYNC.size() - 1);  // a marker across the block's end is found in the next one
      continue;
    }
    const std::uint64_t candidate = pos + i;
    if (check_v2(candidate, len).empty()) return candidate;
    pos = candidate + 1;
  }
  return std::nullopt;
}

void RecordReader::finish() {
  done_ = true;
  for (const auto& p : problems_) scan_.problem += (scan_.problem.empty() ? "" : "; ") + p;
  problems_.clear();
  buf_ = std::string();
}

std::optional<FileRecord> RecordReader::next() {
  if (done_) return std::nullopt;
  if (at_ >= size_) {
    finish();
    return std::nullopt;
  }
  if (scan_.version == 1) {
    // Version 1: reading stops at the first bad record.
    std::string why;
    const std::uint64_t left = size_ - at_;
    const std::uint32_t len = left >= 8 && have(at_, 8) ? get_u32(view(at_, 8), 0) : 0;
    if (left < 8)
      why = "is cut inside its length and checksum";
    else if (len == 0 || len > MAX_RECORD_BYTES)
      why = "has an impossible length " + std::to_string(len);
    else if (left - 8 < len || !have(at_, 8 + std::uint64_t(len)))
      why = "is cut short (" + std::to_string(size_ - at_ - 8) + " of " + std::to_string(len) + " bytes)";
    else if (crc32(view(at_ + 8, len)) != get_u32(view(at_, 8), 4))
      why = "fails its checksum";
    if (!why.empty()) {
      scan_.problem = "record at byte " + std::to_string(at_) + " " + why + "; " + std::to_string(left) +
                      " bytes after it are ignored";
      finish();
      return std::nullopt;
    }
    const std::string_view typed = view(at_ + 8, len);
    FileRecord rec{typed[0], std::string(typed.substr(1)), at_};
    at_ += 8 + std::uint64_t(len);
    scan_.valid_bytes = at_;
    return rec;
  }
  std::uint32_t len = 0;
  std::string why = check_v2(at_, len);
  if (!why.empty()) {
    // Damage, or the torn tail of a power cut: the next record that checks tells which.
    std::uint32_t next_len = 0;
    const std::optional<std::uint64_t> next = next_sync(at_ + 1, next_len);
    if (!next) {
      problems_.push_back("torn tail: the record at byte " + std::to_string(at_) + " " + why + "; the " +
                          std::to_string(size_ - at_) + " bytes from there are dropped");
      finish();
      return std::nullopt;
    }
    scan_.damaged.push_back({at_, *next - at_, "the record at byte " + std::to_string(at_) + " " + why});
    problems_.push_back("damaged: " + std::to_string(*next - at_) + " bytes at byte " + std::to_string(at_) +
                        " skipped (the record there " + why + ")");
    at_ = *next;
    len = next_len;
  }
  const std::string_view linked = view(at_ + 12, len);
  ChainValue link{};
  std::memcpy(link.data(), linked.data(), LINK_BYTES);
  if (link != scan_.chain) {
    scan_.chain_breaks.push_back(at_);
    // After damage the link is the only knowledge of the lost records' chain: carry on from it.
    if (scan_.damaged.empty() || scan_.damaged.back().offset + scan_.damaged.back().bytes != at_)
      problems_.push_back("the record at byte " + std::to_string(at_) +
                          " does not link to the record before it (altered, removed or inserted records)");
  }
  const char type = linked[LINK_BYTES];
  const std::string_view body = linked.substr(LINK_BYTES + 1);
  scan_.chain = chain_next(link, type, body);
  FileRecord rec{type, std::string(body), at_};
  at_ += 12 + std::uint64_t(len);
  scan_.valid_bytes = at_;
  return rec;
}

JournalScan scan_journal_bytes(std::string_view bytes) {
  RecordReader reader(bytes);
  std::vector<FileRecord> records;
  while (auto rec = reader.next()) records.push_back(std::move(*rec));
  JournalScan scan = std::move(reader.scan());
  scan.records = std::move(records);
  return scan;
}

tl::expected<JournalScan, std::string> scan_journal(const std::filesystem::path& path) {
  auto bytes = read_whole(path);
  if (!bytes) return tl::unexpected(bytes.error());
  std::size_t n = std::min(bytes->size(), MAGIC.size());
  if (bytes->compare(0, n, MAGIC.substr(0, n)) != 0 && bytes->compare(0, n, MAGIC_V1.substr(0, n)) != 0)
    return tl::unexpected(path.string() + " is not an eboardd journal (wrong magic)");
  return scan_journal_bytes(*bytes);
}

tl::expected<void, std::string> rewrite_intact(const std::filesystem::path& path, const JournalScan& scan) {
  std::string bytes(scan.version == 1 ? MAGIC_V1 : MAGIC);
  Framer framer(scan.version);
  for (const FileRecord& r : scan.records) framer.append(bytes, r.type, r.body);
  return outputs::write_file_atomic(path, bytes, true, 0640);
}

tl::expected<std::filesystem::path, std::string> keep_damaged_copy(const std::filesystem::path& path,
                                                                   std::int64_t unix_ms) {
  auto bytes = read_whole(path);
  if (!bytes) return tl::unexpected(bytes.error());
  std::filesystem::path copy = path;
  copy += ".damaged-" + std::to_string(unix_ms);
  std::error_code ec;
  if (std::filesystem::exists(copy, ec))
    return tl::unexpected("cannot create " + copy.string() + ": it exists");
  if (auto ok = outputs::write_file_atomic(copy, *bytes, true, 0440); !ok) return tl::unexpected(ok.error());
  return copy;
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
  {
    // Counted before the bytes are seen durable: whoever sees them so (a move published on another
    // thread) and then reads the stats finds this sync in them.
    std::lock_guard lock(mutex_);
    ++stats_.syncs;
    stats_.sync_total += us;
    stats_.sync_max = std::max(stats_.sync_max, us);
  }
  std::uint64_t was = durable_.load(std::memory_order_relaxed);
  while (was < bytes && !durable_.compare_exchange_weak(was, bytes, std::memory_order_release)) {}
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

tl::expected<JournalWriter, std::string> JournalWriter::open(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return open(path, JournalScan{});
  auto scan = scan_journal(path);
  if (!scan) return tl::unexpected(scan.error());
  return open(path, *scan);
}

tl::expected<JournalWriter, std::string> JournalWriter::open(const std::filesystem::path& path,
                                                             const JournalScan& scan) {
  bool existed = std::filesystem::exists(path);
  JournalWriter w;
  w.path_ = path;
  // Readable too: a signature reads the journal back through it (SyncFile::fd()), whatever name it has by
  // then.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0640);
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
  if (scan.valid_bytes < size) {
    if (::ftruncate(fd, off_t(scan.valid_bytes)) != 0)
      return tl::unexpected(errno_text("cannot truncate", path));
    size = scan.valid_bytes;
  }
  w.framer_ = Framer(scan.version, scan.chain);
  if (size < MAGIC.size()) {
    // New, or cut inside the magic: start over, in the current format.
    if (::ftruncate(fd, 0) != 0) return tl::unexpected(errno_text("cannot truncate", path));
    if (::lseek(fd, 0, SEEK_SET) < 0 || !write_all(fd, MAGIC))
      return tl::unexpected(errno_text("cannot write", path));
    if (::fdatasync(fd) != 0) return tl::unexpected(errno_text("cannot sync", path));
    size = MAGIC.size();
    w.framer_ = Framer();
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
    // Its memory goes too: a board writes kilobytes between two syncs, and a daemon has a thousand
    // boards whose copies would otherwise each keep the most they ever held.
    std::string().swap(unsynced_);
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
  framer_.append(buffered_, type, body);
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
  if (!ok) return ok;             // kept for the next try
  std::string().swap(buffered_);  // written and copied to unsynced_: its memory goes (see trim_unsynced)
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
