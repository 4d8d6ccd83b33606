#include "io/mm_limits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "common/host_memory.hpp"
#include "spx/error.hpp"

namespace spx::io {
namespace {

using Header = MatrixMarketHeader;

// Saturating arithmetic: a hostile header must not wrap an estimate around to a small number.
uint64_t mul(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) return std::numeric_limits<uint64_t>::max();
  return a * b;
}
uint64_t add(uint64_t a, uint64_t b) {
  return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max() : a + b;
}

double max_expansion() {
  const char* text = std::getenv(kMaxExpansionVariable);
  if (text == nullptr || *text == '\0') return kDefaultMaxExpansion;
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || !std::isfinite(v) || v <= 0) {
    throw Error(
        fmt::format("{}='{}' is not a positive number (the factor on {} bytes per declared entry "
                    "that a compressed or streamed file may expand to)",
                    kMaxExpansionVariable, text, kPlausibleEntryBytes));
  }
  return v;
}

}  // namespace

std::string bytes_text(uint64_t bytes) { return detail::bytes_text(static_cast<double>(bytes)); }

uint64_t read_memory_needed(const ParsedHeader& header, std::size_t body_bytes, bool text_in_memory,
                            const ResultSizes& sizes) {
  const Header& h = header.header;
  const auto rows = static_cast<uint64_t>(h.rows), cols = static_cast<uint64_t>(h.cols);
  const uint64_t value = sizes.value_bytes, index = sizes.index_bytes;
  const bool coordinate = h.format == Header::Format::Coordinate;
  const bool expands = h.symmetry != Header::Symmetry::General;
  // Entries the text can hold: a known body bounds a hostile size line.
  auto entries = static_cast<uint64_t>(h.entries);
  if (body_bytes > 0)
    entries =
        std::min<uint64_t>(entries, body_bytes / (coordinate ? kMinEntryBytes : kMinArrayValueBytes) + 1);
  uint64_t need = text_in_memory ? add(body_bytes, mul(entries, kMinEntryBytes)) : 0;
  if (coordinate) {
    const uint64_t nnz = expands ? mul(entries, 2) : entries;
    need = add(need, mul(entries, 2 * index + value));  // entry lists
    if (sizes.dense) {  // the coordinate path of the dense reader goes through an int64_t Csr
      need = add(need, add(mul(nnz, 8 + value), mul(rows + 1, 8)));
      need = add(need, mul(mul(rows, cols), value));
    } else {
      need = add(need, add(mul(nnz, index + value), mul(rows + 1, index)));
    }
  } else {
    need = add(need, mul(entries, value));                       // stored values
    if (expands) need = add(need, mul(mul(rows, cols), value));  // the full square
    if (!sizes.dense) need = add(need, add(mul(mul(rows, cols), index + value), mul(rows + 1, index)));
  }
  return need;
}

void check_read_memory(const ParsedHeader& header, std::string_view name, std::size_t body_bytes,
                       bool text_in_memory, const ResultSizes& sizes) {
  const Header& shape = header.header;
  // A shape beyond 32-bit indices: the body reader refuses it with the index type's message.
  constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
  if (sizes.index_bytes == 4 && (shape.rows > kMax32 || shape.cols > kMax32)) return;
  const uint64_t available = detail::host_memory_available();
  if (available == 0) return;
  const uint64_t need = read_memory_needed(header, body_bytes, text_in_memory, sizes);
  if (need <= available) return;
  const Header& h = shape;
  throw Error(fmt::format(
      "{}:{}: reading this {} x {} matrix with {} entries needs about {} of memory, {} "
      "available",
      name, header.size_line, h.rows, h.cols, h.entries, bytes_text(need), bytes_text(available)));
}

StreamTextLimit stream_text_limit(const ParsedHeader& header) {
  StreamTextLimit limit;
  limit.expansion = max_expansion();
  const double per_entry = limit.expansion * static_cast<double>(kPlausibleEntryBytes);
  const double bytes = static_cast<double>(header.body_offset) + static_cast<double>(kCommentAllowanceBytes) +
                       per_entry * static_cast<double>(header.header.entries);
  constexpr auto kMax = static_cast<double>(std::numeric_limits<std::size_t>::max() / 2);
  limit.bytes = static_cast<std::size_t>(std::min(bytes, kMax));
  return limit;
}

void throw_text_limit(const ParsedHeader& header, std::string_view name, const StreamTextLimit& limit) {
  throw Error(fmt::format(
      "{}: the text passes {}, more than {} entries declared on line {} can need ({} x {} "
      "bytes per entry, plus {} for comments): a corrupt or hostile file? {}=N "
      "raises the factor {}",
      name, bytes_text(limit.bytes), header.header.entries, header.size_line, limit.expansion,
      kPlausibleEntryBytes, bytes_text(kCommentAllowanceBytes), kMaxExpansionVariable, limit.expansion));
}

}  // namespace spx::io
