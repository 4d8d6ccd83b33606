#include "bench/provenance.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#ifndef SPX_SOURCE_DIR
#define SPX_SOURCE_DIR ""
#endif
#ifndef SPX_CONFIGURED_COMMIT
#define SPX_CONFIGURED_COMMIT "unknown"
#endif

namespace spx::bench {

namespace {

// First line of a shell command's stdout; empty on failure.
std::string first_line_of(const std::string& command) {
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string line;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    line += buffer;
    if (!line.empty() && line.back() == '\n') break;
  }
  const int status = pclose(pipe);
  if (status != 0) return {};
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return line;
}

}  // namespace

std::string source_commit() {
  // A copied tree (a GPU machine gets the working tree without .git) cannot ask git: whoever
  // copied it knows the commit and passes it on (scripts/gpu-check: SPX_COMMIT=$(git rev-parse ...)).
  if (const char* given = std::getenv("SPX_COMMIT"); given != nullptr && *given != '\0') return given;
  const std::string source = SPX_SOURCE_DIR;
  std::error_code ec;
  if (!source.empty() && std::filesystem::exists(std::filesystem::path(source) / ".git", ec)) {
    const std::string git = "git -C '" + source + "' ";
    std::string commit = first_line_of(git + "rev-parse --short=12 HEAD 2>/dev/null");
    if (!commit.empty()) {
      // `git diff --quiet HEAD` fails when tracked files changed, and then "clean" is not printed.
      if (first_line_of(git + "diff --quiet HEAD 2>/dev/null && echo clean") != "clean") commit += "-dirty";
      return commit;
    }
  }
  return SPX_CONFIGURED_COMMIT;
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace spx::bench
