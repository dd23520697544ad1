// SPDX-License-Identifier: GPL-3.0-or-later
// Copyright (C) 2026 the eboardd authors
// The durable writes (outputs/atomic_file.hpp: the whole-file write, the append) and its worker
// (outputs/async_file.hpp): the data is whole in the file, with the mode asked, or the old file stays and no
// temporary file is left; an error is reported with the system's reason; a write the disk refused (ENOSPC on
// a full tmpfs, EFBIG past the file size limit) is written by the worker once space returns, with its latest
// content, and reported once failing and once working again.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "daemon/outputs/async_file.hpp"
#include "daemon/outputs/atomic_file.hpp"
#include "tests/daemon_journal/file_size_limit.hpp"

using namespace eboard;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path =
        fs::temp_directory_path() / ("eboard-durable-write-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& f : fs::directory_iterator(dir)) out.push_back(f.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// What the worker reported, from its thread.
struct Reports {
  std::mutex mutex;
  std::vector<std::string> lines;  // "" for "written again"
  outputs::AsyncFileWriter::Report report() {
    return [this](const fs::path&, const std::string& error) {
      std::lock_guard lock(mutex);
      lines.push_back(error);
    };
  }
  std::vector<std::string> get() {
    std::lock_guard lock(mutex);
    return lines;
  }
};

// Waits (generously: a loaded machine) until `pred` holds; returns it.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 20s) {
  for (auto end = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < end;) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

using test_support::FileSizeLimit;

}  // namespace

TEST(DurableWrite, WholeFileWithItsModeOrTheOldOneAndAReason) {
  TempDir dir("atomic");
  const fs::path p = dir.path / "key";
  ASSERT_TRUE(outputs::write_file_atomic(p, "first\n"));
  EXPECT_EQ(slurp(p), "first\n");
  ASSERT_TRUE(outputs::write_file_atomic(p, "secret\n", true, 0600));
  EXPECT_EQ(slurp(p), "secret\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(names(dir.path), std::vector<std::string>{"key"});  // no temporary file left
  // A directory that is not there: the reason, and nothing written.
  auto bad = outputs::write_file_atomic(dir.path / "absent" / "x", "y");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find(std::strerror(ENOENT)), std::string::npos) << bad.error();
  EXPECT_FALSE(outputs::space_error(bad.error()));
  // The directory's fsync reports its own failure.
  EXPECT_FALSE(outputs::sync_directory(dir.path / "absent"));
  EXPECT_TRUE(outputs::sync_directory(dir.path));
}

TEST(DurableWrite, RefusedPastTheFileSizeLimitKeepsTheOldFile) {
  TempDir dir("fsize");
  const fs::path p = dir.path / "game.pgn";
  ASSERT_TRUE(outputs::write_file_atomic(p, "old\n"));
  tl::expected<void, std::string> ok;
  {
    FileSizeLimit limit(1024);
    ok = outputs::write_file_atomic(p, std::string(4096, 'x'));
  }
  ASSERT_FALSE(ok);
  EXPECT_TRUE(outputs::space_error(ok.error())) << ok.error();
  EXPECT_EQ(slurp(p), "old\n");
  EXPECT_EQ(names(dir.path), std::vector<std::string>{"game.pgn"});
}

// The durable append (arbiter.log): each text appended whole after what was there, the file created with
// mode 0644 when missing; a failure is reported with the system's reason, and a write past the file size
// limit says it is a matter of space.
TEST(DurableWrite, AppendKeepsWhatWasThereAndAddsTheTextWhole) {
  TempDir dir("append");
  const fs::path p = dir.path / "arbiter.log";
  ASSERT_TRUE(outputs::append_durable(p, "{\"a\":1}\n"));
  ASSERT_TRUE(outputs::append_durable(p, "{\"b\":2}\n"));
  EXPECT_EQ(slurp(p), "{\"a\":1}\n{\"b\":2}\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  auto bad = outputs::append_durable(dir.path / "absent" / "arbiter.log", "x\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().find(std::strerror(ENOENT)), std::string::npos) << bad.error();
  tl::expected<void, std::string> full;
  {
    FileSizeLimit limit(std::uint64_t(fs::file_size(p)) + 4);
    full = outputs::append_durable(p, std::string(64, 'x'));
  }
  ASSERT_FALSE(full);
  EXPECT_TRUE(outputs::space_error(full.error())) << full.error();
  EXPECT_EQ(slurp(p).substr(0, 16), "{\"a\":1}\n{\"b\":2}\n");  // what was there stays
}

// The worker keeps a refused write and writes it, with the latest content, once the disk takes it again;
// the failure is reported once and the recovery once.
TEST(AsyncFileWriter, WritesWhatTheDiskRefusedOnceItTakesItAgain) {
  TempDir dir("retry");
  const fs::path p = dir.path / "match.bpgn";
  const fs::path q = dir.path / "match.bpgn.sig";
  Reports reports;
  outputs::AsyncFileWriter w(reports.report(), 0ms);
  const std::string big(8192, 'm');
  {
    FileSizeLimit limit(1024);
    w.submit(p, big + "1", /*urgent=*/true);
    ASSERT_TRUE(eventually([&] { return w.stats().failures >= 1; }));
    w.submit(p, big + "2", /*urgent=*/true);  // supersedes the refused content
    w.submit(q, "signature", /*urgent=*/true);
    ASSERT_TRUE(eventually([&] { return w.stats().failures >= 2 && slurp(q) == "signature"; }));
    EXPECT_FALSE(fs::exists(p));
    EXPECT_EQ(w.stats().pending_retries, 1u);
  }
  // Space returns: the next retry (a growing delay, at most RETRY_MAX) writes the latest content, then
  // reports the recovery (from the worker, just after the file is in place: waited for, not raced).
  ASSERT_TRUE(eventually([&] { return slurp(p) == big + "2" && reports.get().size() >= 2; }));
  EXPECT_EQ(w.stats().pending_retries, 0u);
  const auto r = reports.get();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_TRUE(outputs::space_error(r[0])) << r[0];
  EXPECT_EQ(r[1], "");
  w.stop();
  EXPECT_EQ(names(dir.path), (std::vector<std::string>{"match.bpgn", "match.bpgn.sig"}));
}

// An arbiter's correction is all or nothing (replace_now): refused by the disk, the file keeps what it held,
// nothing of the refused text is left to write later (not by a retry, not at the writer's stop) and no
// failure is reported as the writer's own; taken, the file holds it.
TEST(AsyncFileWriter, AReplaceTheDiskRefusedIsNeverWrittenLater) {
  TempDir dir("replace");
  const fs::path p = dir.path / "A-1.pgn";
  Reports reports;
  outputs::AsyncFileWriter w(reports.report(), 0ms);
  ASSERT_TRUE(w.write_now(p, "as it was"));
  const std::string big(8192, 'c');
  {
    FileSizeLimit limit(1024);
    auto refused = w.replace_now(p, big);
    ASSERT_FALSE(refused);
    EXPECT_TRUE(outputs::space_error(refused.error())) << refused.error();
    EXPECT_FALSE(w.unwritten(p).has_value());
    EXPECT_EQ(w.stats().pending_retries, 0u);
  }
  EXPECT_TRUE(w.flush(p));
  EXPECT_EQ(slurp(p), "as it was");
  ASSERT_TRUE(w.replace_now(p, "corrected"));
  EXPECT_EQ(slurp(p), "corrected");
  w.submit(p, "a later move", /*urgent=*/true);
  w.stop();
  EXPECT_EQ(slurp(p), "a later move");
  EXPECT_TRUE(reports.get().empty());
  EXPECT_EQ(names(dir.path), (std::vector<std::string>{"A-1.pgn"}));
}

// The same on a real full disk (ENOSPC): a 256 KiB tmpfs in a mount namespace of a child process (root
// only; the fsize test above runs everywhere).
TEST(AsyncFileWriter, WritesWhatAFullTmpfsRefusedOnceSpaceReturns) {
  TempDir dir("tmpfs");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The child: exit codes say what went wrong (gtest's assertions stay in the parent).
    if (::unshare(CLONE_NEWNS) != 0) ::_exit(77);
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(77);
    if (::mount("tmpfs", dir.path.c_str(), "tmpfs", 0, "size=256k") != 0) ::_exit(77);
    const fs::path filler = dir.path / "filler";
    {
      std::ofstream f(filler, std::ios::binary);
      const std::string chunk(4096, '\0');
      while (f.write(chunk.data(), std::streamsize(chunk.size()))) f.flush();
    }
    {
      // Whatever a page still takes, one byte at a time.
      const int fd = ::open(filler.c_str(), O_WRONLY | O_APPEND);
      while (::write(fd, "", 1) == 1) {}
      const bool full = errno == ENOSPC;
      ::close(fd);
      if (!full) ::_exit(10);
    }
    int code = 0;
    {
      Reports reports;
      outputs::AsyncFileWriter w(reports.report(), 0ms);
      const fs::path p = dir.path / "A-1.pgn";
      const std::string content(20000, 'p');
      w.submit(p, content, /*urgent=*/true);
      if (!eventually([&] { return w.stats().failures >= 1; })) ::_exit(11);
      if (fs::exists(p)) ::_exit(12);
      for (const auto& f : fs::directory_iterator(dir.path))
        if (f.path() != filler) ::_exit(13);  // a temporary file left behind
      const auto r = reports.get();
      if (r.empty() || r[0].find(std::strerror(ENOSPC)) == std::string::npos) ::_exit(14);
      fs::remove(filler);
      if (!eventually([&] { return slurp(p) == content; })) ::_exit(15);
      // The writer tells its success after the rename: a reader may see the file a moment before.
      if (!eventually([&] { return reports.get().size() >= 2; }) || reports.get().size() != 2 ||
          !reports.get()[1].empty())
        ::_exit(16);
      w.stop();
    }
    ::umount2(dir.path.c_str(), MNT_DETACH);
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "no tmpfs of our own (needs root and unshare)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child failed at step " << WEXITSTATUS(status);
}
