#include "daemon/outputs/async_file.hpp"

#include <set>
#include <utility>

#include "daemon/outputs/atomic_file.hpp"

namespace eboard::outputs {

AsyncFileWriter::AsyncFileWriter(Report report, std::chrono::milliseconds batch_window)
    : batch_window_(batch_window), report_(std::move(report)) {
  thread_ = std::thread([this] { run(); });
}

AsyncFileWriter::~AsyncFileWriter() { stop(); }

AsyncFileWriter::Entry& AsyncFileWriter::set_pending(const std::string& key, std::string content) {
  ++stats_.submitted;
  Entry& e = files_[key];
  if (e.pending) ++stats_.superseded;
  e.pending = std::move(content);
  return e;
}

void AsyncFileWriter::submit(const std::filesystem::path& path, std::string content) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  Entry& e = set_pending(key, std::move(content));
  if (stopping_) {
    if (!e.busy) (void)write_here(lock, key, e);
    return;
  }
  if (!e.busy && !e.queued) {
    e.queued = true;
    queue_.push_back(key);
    wake_.notify_one();
  }
}

tl::expected<void, std::string> AsyncFileWriter::write_here(std::unique_lock<std::mutex>& lock,
                                                            const std::string& key, Entry& e, bool sync_dir) {
  std::string content = std::move(*e.pending);
  e.pending.reset();
  e.busy = true;
  lock.unlock();
  auto ok = write_file_atomic(key, content, sync_dir);
  lock.lock();
  e.busy = false;  // `e` stays: an entry is erased only when idle()
  ++stats_.written;
  if (!ok) ++stats_.failures;
  idle_.notify_all();
  return ok;
}

tl::expected<void, std::string> AsyncFileWriter::write_now(const std::filesystem::path& path,
                                                           std::string content) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  Entry& e = set_pending(key, std::move(content));
  return finish(lock, key, e);
}

tl::expected<void, std::string> AsyncFileWriter::finish(std::unique_lock<std::mutex>& lock,
                                                        const std::string& key, Entry& e) {
  ++e.waiting;
  idle_.wait(lock, [&] { return !e.busy; });
  --e.waiting;
  // A background write is over. What is pending now is the latest content (ours, or a later one);
  // nothing pending: the background write took it.
  tl::expected<void, std::string> ok;
  if (e.pending) ok = write_here(lock, key, e);
  if (idle(e)) files_.erase(key);
  return ok;
}

tl::expected<void, std::string> AsyncFileWriter::flush(const std::filesystem::path& path) {
  std::unique_lock lock(mutex_);
  const std::string key = path.string();
  auto it = files_.find(key);
  if (it == files_.end()) return {};
  return finish(lock, key, it->second);
}

void AsyncFileWriter::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (queue_.empty()) {
      if (stopping_) return;
      wake_.wait(lock);
      continue;
    }
    // What comes within the batch window is written together and shares one fsync of its directory.
    if (!stopping_ && batch_window_.count() > 0)
      wake_.wait_for(lock, batch_window_, [this] { return stopping_; });
    std::deque<std::string> batch;
    batch.swap(queue_);
    std::set<std::filesystem::path> dirs;
    for (const std::string& key : batch) {
      Entry& e = files_.at(key);
      e.queued = false;
      if (e.busy || !e.pending) continue;  // being written (or just written) by write_now()/flush()
      auto ok = write_here(lock, key, e, false);
      if (ok) dirs.insert(std::filesystem::path(key).parent_path());
      std::string error = ok ? std::string() : ok.error();
      if (error != e.error && report_) report_(key, error);  // rare: under the lock is fine
      e.error = std::move(error);
      if (e.pending && !e.busy && !e.queued) {
        // Submitted again while we wrote: once more, with the latest.
        e.queued = true;
        queue_.push_back(key);
      } else if (idle(e) && e.error.empty()) {
        files_.erase(key);
      }
    }
    lock.unlock();
    for (const auto& dir : dirs) sync_directory(dir);
    lock.lock();
  }
}

void AsyncFileWriter::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

AsyncFileStats AsyncFileWriter::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace eboard::outputs
