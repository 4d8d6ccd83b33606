// Array-format body: one value per line, column by column (only the lower triangle for symmetric
// files, without the diagonal for skew-symmetric ones) -> all rows*cols values, column-major.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "io/mm_lex.hpp"
#include "io/mm_readers.hpp"
#include "io/mm_values.hpp"

namespace spx::io {

template <class T>
std::vector<T> read_array(std::string_view text, const ParsedHeader& header, std::string_view name,
                          const ReadOptions& options) {
  const auto& h = header.header;
  using Symmetry = MatrixMarketHeader::Symmetry;
  EntryRules rules;
  rules.rows = h.rows;
  rules.cols = h.cols;
  rules.field = h.field;
  rules.symmetry = h.symmetry;
  rules.allow_nonfinite = options.allow_nonfinite;
  rules.name = name;

  const std::string_view body = text.substr(std::min(header.body_offset, text.size()));
  const char* p = body.data();
  const char* const end = p + body.size();
  const int64_t declared = h.entries;
  int64_t line = header.body_line;

  try {
    std::vector<T> stored;
    // Each value needs at least two bytes ("0\n"): a size line cannot reserve more than that.
    stored.reserve(
        static_cast<std::size_t>(std::min<int64_t>(declared, static_cast<int64_t>(body.size() / 2 + 1))));
    while (p != end) {
      const char* q = skip_blanks(p, end);
      if (q == end) break;
      if (*q != '\n' && *q != '%') {
        if (static_cast<int64_t>(stored.size()) == declared) {
          throw Error(fmt::format("{}:{}: more values than the {} declared by the size line on line {}", name,
                                  line, declared, header.size_line));
        }
        T v{};
        q = skip_blanks(parse_value(q, end, rules, line, v), end);
        if (q != end && *q != '\n') {
          throw Error(
              fmt::format("{}:{}: unexpected {} after the value (an array file has one value per line)", name,
                          line, quote_token(q, end)));
        }
        stored.push_back(v);
      }
      p = skip_line(q, end);
      if (p[-1] == '\n') ++line;  // p is inside the body, past q
    }
    if (static_cast<int64_t>(stored.size()) < declared) {
      const int64_t last_line = (body.empty() || end[-1] == '\n') ? line - 1 : line;
      throw Error(
          fmt::format("{}:{}: the file ends after {} of the {} values declared by the size line on line {}",
                      name, last_line, stored.size(), declared, header.size_line));
    }
    if (h.symmetry == Symmetry::General) return stored;

    // The full square is at most about twice the stored triangle, which the text has paid for.
    const auto n = static_cast<std::size_t>(h.rows);
    std::vector<T> full(n * n, T{0});
    const T sign = h.symmetry == Symmetry::SkewSymmetric ? T{-1} : T{1};
    const std::size_t first_below = h.symmetry == Symmetry::SkewSymmetric ? 1 : 0;
    std::size_t k = 0;
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = j + first_below; i < n; ++i) {
        const T v = stored[k++];
        full[i + j * n] = v;
        if (i != j) full[j + i * n] = sign * v;
      }
    }
    return full;
  } catch (const std::bad_alloc&) {
    throw Error(
        fmt::format("{}:{}: out of memory reading a {} x {} array", name, header.size_line, h.rows, h.cols));
  }
}

template std::vector<float> read_array<float>(std::string_view, const ParsedHeader&, std::string_view,
                                              const ReadOptions&);
template std::vector<double> read_array<double>(std::string_view, const ParsedHeader&, std::string_view,
                                                const ReadOptions&);

}  // namespace spx::io
