// What reading a Matrix Market file may cost, decided from its header before the body is read:
// the memory the reader will hold (refused with the numbers when the host does not have it), and
// how much text a stream (gzip, pipe, device) may deliver for the entries its size line declares
// (a gzip bomb of identical lines is stopped there, not when memory runs out). Internal to src/io.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/mm_header.hpp"

namespace spx::io {

// Shortest possible entry line, "1 1\n" (and "0\n" is the shortest array value line): bounds how
// many entries a text of known size can hold.
inline constexpr std::size_t kMinEntryBytes = 4;
inline constexpr std::size_t kMinArrayValueBytes = 2;

// Longest plausible entry line: two 20-digit indices and a 22-character value with separators.
// Real files use 10 to 40 bytes per entry.
inline constexpr std::size_t kPlausibleEntryBytes = 64;
// Allowance for comments, however few entries are declared.
inline constexpr std::size_t kCommentAllowanceBytes = std::size_t{64} << 20;
// Default text limit of a stream: this many times kPlausibleEntryBytes per declared entry.
inline constexpr double kDefaultMaxExpansion = 4.0;
// Environment variable that sets that factor (a positive number).
inline constexpr const char* kMaxExpansionVariable = "SPX_MAX_EXPANSION";

// The result being built, for the memory estimate.
struct ResultSizes {
  std::size_t value_bytes = 8;  // sizeof(T)
  std::size_t index_bytes = 4;  // sizeof(I)
  bool dense = false;           // read_matrix_market_dense: rows*cols values
};

// Bytes the reader holds at its peak besides a mapped file's pages: the text when it is read from
// a stream (text_in_memory), entry lists, the result. `body_bytes`: the size of the entry section
// when known (bounds the entries the text can hold), or 0 for a stream not read yet.
uint64_t read_memory_needed(const ParsedHeader& header, std::size_t body_bytes, bool text_in_memory,
                            const ResultSizes& sizes);

// Throws spx::Error "NAME:LINE: reading this R x C matrix with N entries needs about X, Y
// available" when the estimate exceeds the host's available memory (no check when unknown).
void check_read_memory(const ParsedHeader& header, std::string_view name, std::size_t body_bytes,
                       bool text_in_memory, const ResultSizes& sizes);

// The most text a stream may deliver for this header; reads $SPX_MAX_EXPANSION (an invalid value
// is an spx::Error naming it).
struct StreamTextLimit {
  std::size_t bytes = 0;
  double expansion = kDefaultMaxExpansion;
};
StreamTextLimit stream_text_limit(const ParsedHeader& header);

// "NAME: the text passes LIMIT, more than ... declared on line L ...; SPX_MAX_EXPANSION ..."
[[noreturn]] void throw_text_limit(const ParsedHeader& header, std::string_view name,
                                   const StreamTextLimit& limit);

// "12.3 GiB", "45.0 MiB", "812 B" for messages (detail::bytes_text).
std::string bytes_text(uint64_t bytes);

}  // namespace spx::io
