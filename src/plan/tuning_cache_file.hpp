// The tuning cache's file operations (POSIX): a file's identity, reading it whole, the advisory
// lock writers take, and replacing it atomically. Internal to src/plan. Every failure is an
// spx::Error "PATH: what failed: the OS reason".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace spx::plan::detail {

// What changes whenever the file is replaced or rewritten: a writer renames a new inode over the
// path, and an edit in place changes the size or the modification time.
struct FileId {
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileId&) const = default;
};

// The identity of the file at `path` now; nullopt when there is none.
std::optional<FileId> file_id(const std::string& path);

struct FileText {
  FileId id;  // of the file read (fstat of the open file, so it matches the text)
  std::string text;
};
// The whole file; nullopt when it does not exist.
std::optional<FileText> read_file(const std::string& path);

// An exclusive flock(2) on the sidecar file PATH.lock, held while alive. The lock is on a sidecar,
// not on the cache file, because writers replace the cache file by rename: a lock on it would be on
// the old inode, and the next writer, opening the new one, would not wait for it. The sidecar is
// never removed (removing it would let two writers lock two different inodes). flock excludes
// threads of one process too (each lock opens its own file description). Waits at most
// `timeout_s`, then throws (a writer stuck on a network file system must not hang the product).
class FileLock {
 public:
  FileLock(const std::string& path, double timeout_s);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

// Writes `text` to a temporary file of a name unique to this writer (PATH.tmp-PID-N-RANDOM, in the
// same directory so the rename is atomic), flushes it to the disk (fdatasync) and renames it over
// `path`. A reader sees the old file or the new one, never half of one. The temporary file is
// removed on failure. Returns the identity of the file written.
FileId replace_file(const std::string& path, std::string_view text);

}  // namespace spx::plan::detail
