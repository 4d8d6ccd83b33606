// The tuning cache's file operations (tuning_cache_file.hpp).
#include "plan/tuning_cache_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "spx/error.hpp"

namespace spx::plan::detail {

namespace {

// How long FileLock sleeps between tries: short at first (a save holds the lock for milliseconds),
// growing to this cap.
constexpr std::chrono::microseconds kLockPollFirst{200};
constexpr std::chrono::microseconds kLockPollMax{5000};

// A cache file larger than this is refused before it is read (100k plans take 19 MB): a wrong path
// to a huge file must not exhaust the memory.
constexpr uint64_t kMaxCacheFileBytes = uint64_t{1} << 30;

std::string os_reason(int err) { return std::strerror(err); }

FileId id_of(const struct stat& st) {
  FileId id;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return id;
}

// A file descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A name no other writer uses: the pid tells processes apart, the counter the saves of one process,
// the random part a pid reused on another host sharing the directory.
std::string temp_name(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }();
  return fmt::format("{}.tmp-{}-{}-{:08x}", path, ::getpid(), counter.fetch_add(1), salt & 0xffffffffu);
}

}  // namespace

std::optional<FileId> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(fmt::format("{}: cannot stat the tuning cache: {}", path, os_reason(errno)));
  }
  return id_of(st);
}

std::optional<FileText> read_file(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw Error(fmt::format("{}: cannot open the tuning cache: {}", path, os_reason(errno)));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw Error(fmt::format("{}: cannot stat the tuning cache: {}", path, os_reason(errno)));
  if (!S_ISREG(st.st_mode)) throw Error(fmt::format("{}: the tuning cache is not a regular file", path));
  if (static_cast<uint64_t>(st.st_size) > kMaxCacheFileBytes)
    throw Error(fmt::format("{}: the tuning cache is {} bytes, more than the limit of {} bytes", path,
                            static_cast<uint64_t>(st.st_size), kMaxCacheFileBytes));
  FileText out{id_of(st), {}};
  out.text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < out.text.size()) {
    const ssize_t n = ::read(f.fd, out.text.data() + got, out.text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: cannot read the tuning cache: {}", path, os_reason(errno)));
    if (n == 0) break;  // shrunk while read: an edit in place; the text read so far is what there is
    got += static_cast<std::size_t>(n);
  }
  out.text.resize(got);
  return out;
}

FileLock::FileLock(const std::string& path, double timeout_s) {
  const std::string lock_path = path + ".lock";
  fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw Error(fmt::format("{}: cannot open the lock file: {}", lock_path, os_reason(errno)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = kLockPollFirst;
  while (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err != EWOULDBLOCK && err != EINTR) {
      ::close(fd_);
      throw Error(fmt::format("{}: cannot lock: {}", lock_path, os_reason(err)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::close(fd_);
      throw Error(fmt::format("{}: another process has held the lock for {} s", lock_path, timeout_s));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, kLockPollMax);
  }
}

FileLock::~FileLock() { ::close(fd_); }  // closing the last descriptor releases the lock

FileId replace_file(const std::string& path, std::string_view text) {
  const std::string tmp = temp_name(path);
  Fd f{::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)};
  if (f.fd < 0) throw Error(fmt::format("{}: cannot create a temporary file: {}", tmp, os_reason(errno)));
  const auto fail = [&](const char* what, int err) {
    ::unlink(tmp.c_str());
    return Error(fmt::format("{}: {}: {}", tmp, what, os_reason(err)));
  };
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(f.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail("cannot write", errno);
    done += static_cast<std::size_t>(n);
  }
  // Without the flush, a crash soon after the rename can leave an empty file under the name on
  // some file systems (an empty file is an empty cache: plans lost, nothing fails).
  if (::fdatasync(f.fd) != 0 && errno != EINVAL) throw fail("cannot flush", errno);
  const int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0) throw fail("cannot close", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: cannot replace the tuning cache: {}", path, os_reason(err)));
  }
  const auto id = file_id(path);
  return id ? *id : FileId{};
}

}  // namespace spx::plan::detail
