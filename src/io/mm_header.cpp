#include "io/mm_header.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <limits>

#include "io/mm_lex.hpp"

namespace spx::io {
namespace {

using Header = MatrixMarketHeader;

constexpr const char* kBannerForm =
    "'%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
    "<general|symmetric|skew-symmetric>'";

// Banner words are case-insensitive (the NIST reference reader lower-cases them too).
bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Splits one line into at most N tokens; `count` may exceed N (extra tokens are counted, not kept).
template <std::size_t N>
struct LineTokens {
  std::array<std::string_view, N> token{};
  std::array<const char*, N> at{};
  std::size_t count = 0;
  const char* extra = nullptr;  // first token beyond N
};

template <std::size_t N>
LineTokens<N> split_line(const char* p, const char* end) {
  LineTokens<N> t;
  while (true) {
    p = skip_blanks(p, end);
    if (p == end || *p == '\n') break;
    const char* start = p;
    while (p != end && !is_token_end(*p)) ++p;
    if (t.count < N) {
      t.token[t.count] = std::string_view(start, static_cast<std::size_t>(p - start));
      t.at[t.count] = start;
    } else if (t.extra == nullptr) {
      t.extra = start;
    }
    ++t.count;
  }
  return t;
}

struct BannerWords {
  Header::Format format;
  Header::Field field;
  Header::Symmetry symmetry;
};

BannerWords parse_banner(const char* p, const char* end, std::string_view name) {
  const auto t = split_line<5>(p, end);
  if (t.count == 0 || !iequals(t.token[0], "%%MatrixMarket")) {
    throw Error(fmt::format("{}:1: missing Matrix Market banner: the first line must be {}, found {}", name,
                            kBannerForm, quote_line(p, end)));
  }
  if (t.count < 5) {
    throw Error(
        fmt::format("{}:1: incomplete banner {}: expected {}", name, quote_line(p, end), kBannerForm));
  }
  if (t.extra != nullptr) {
    throw Error(fmt::format("{}:1: unexpected {} after the symmetry on the banner (expected {})", name,
                            quote_token(t.extra, end), kBannerForm));
  }
  BannerWords w{};
  if (iequals(t.token[1], "vector")) {
    throw Error(fmt::format("{}:1: unsupported object 'vector': spx reads 'matrix' files", name));
  }
  if (!iequals(t.token[1], "matrix")) {
    throw Error(fmt::format("{}:1: unknown object {} on the banner (expected 'matrix')", name,
                            quote_token(t.at[1], end)));
  }

  if (iequals(t.token[2], "coordinate")) {
    w.format = Header::Format::Coordinate;
  } else if (iequals(t.token[2], "array")) {
    w.format = Header::Format::Array;
  } else {
    throw Error(fmt::format("{}:1: unsupported format {} (spx reads 'coordinate' and 'array')", name,
                            quote_token(t.at[2], end)));
  }

  if (iequals(t.token[3], "real")) {
    w.field = Header::Field::Real;
  } else if (iequals(t.token[3], "integer")) {
    w.field = Header::Field::Integer;
  } else if (iequals(t.token[3], "pattern")) {
    w.field = Header::Field::Pattern;
  } else if (iequals(t.token[3], "complex")) {
    throw Error(
        fmt::format("{}:1: unsupported field 'complex': spx reads real, integer and pattern matrices", name));
  } else {
    throw Error(fmt::format("{}:1: unsupported field {} (spx reads 'real', 'integer' and 'pattern')", name,
                            quote_token(t.at[3], end)));
  }

  if (iequals(t.token[4], "general")) {
    w.symmetry = Header::Symmetry::General;
  } else if (iequals(t.token[4], "symmetric")) {
    w.symmetry = Header::Symmetry::Symmetric;
  } else if (iequals(t.token[4], "skew-symmetric")) {
    w.symmetry = Header::Symmetry::SkewSymmetric;
  } else if (iequals(t.token[4], "hermitian")) {
    throw Error(
        fmt::format("{}:1: unsupported symmetry 'hermitian' (complex matrices are not supported)", name));
  } else {
    throw Error(
        fmt::format("{}:1: unsupported symmetry {} (spx reads 'general', 'symmetric' and "
                    "'skew-symmetric')",
                    name, quote_token(t.at[4], end)));
  }

  if (w.field == Header::Field::Pattern && w.format == Header::Format::Array) {
    throw Error(
        fmt::format("{}:1: unsupported combination 'array pattern': pattern needs coordinate format", name));
  }
  if (w.field == Header::Field::Pattern && w.symmetry == Header::Symmetry::SkewSymmetric) {
    throw Error(
        fmt::format("{}:1: unsupported combination 'pattern skew-symmetric': a pattern has no signs", name));
  }
  return w;
}

}  // namespace

ParsedHeader parse_header(std::string_view text, std::string_view name) {
  const char* p = text.data();
  const char* const end = p + text.size();
  ParsedHeader h;
  const BannerWords w = parse_banner(p, end, name);
  h.header.format = w.format;
  h.header.field = w.field;
  h.header.symmetry = w.symmetry;
  const bool coordinate = w.format == Header::Format::Coordinate;
  const char* const size_form = coordinate ? "'rows cols entries'" : "'rows cols'";

  // Comment and blank lines may follow the banner; the first other line is the size line.
  p = skip_line(p, end);
  int64_t line = 2;
  while (true) {
    if (p == end) {
      throw Error(fmt::format("{}:{}: missing size line: the file ends after the header (expected {})", name,
                              line - 1, size_form));
    }
    const char* q = skip_blanks(p, end);
    if (q != end && *q != '\n' && *q != '%') break;
    p = skip_line(p, end);
    ++line;
  }

  const auto t = split_line<3>(p, end);
  const std::size_t wanted = coordinate ? 3 : 2;
  std::array<int64_t, 3> size{};
  for (std::size_t i = 0; i < std::min(t.count, wanted); ++i) {
    const char* after = nullptr;
    const IntToken kind = parse_int64_token(t.at[i], end, size[i], &after);
    if (kind == IntToken::TooLarge) {
      throw Error(fmt::format("{}:{}: size {} on the size line is too large (more than 64 bits)", name, line,
                              quote_token(t.at[i], end)));
    }
    if (kind != IntToken::Ok) {
      throw Error(fmt::format("{}:{}: malformed size line {}: {} is not an integer (expected {})", name, line,
                              quote_line(p, end), quote_token(t.at[i], end), size_form));
    }
  }
  if (t.count < wanted) {
    throw Error(fmt::format("{}:{}: incomplete size line {}: expected {}", name, line, quote_line(p, end),
                            size_form));
  }
  if (t.count > wanted) {
    const char* extra = wanted < 3 ? t.at[wanted] : t.extra;
    throw Error(fmt::format("{}:{}: unexpected {} on the size line (expected {})", name, line,
                            quote_token(extra, end), size_form));
  }
  for (std::size_t i = 0; i < wanted; ++i) {
    if (size[i] < 0) {
      throw Error(fmt::format("{}:{}: negative size {} on the size line {}", name, line, size[i],
                              quote_line(p, end)));
    }
  }
  h.header.rows = size[0];
  h.header.cols = size[1];
  if (w.symmetry != Header::Symmetry::General && size[0] != size[1]) {
    throw Error(
        fmt::format("{}:{}: a symmetric or skew-symmetric matrix must be square, the size line says "
                    "{} x {}",
                    name, line, size[0], size[1]));
  }
  if (coordinate) {
    h.header.entries = size[2];
  } else {
    // Values stored in the file: all of them, or the lower triangle (without the zero diagonal
    // for skew-symmetric).
    const int64_t n = size[0];
    bool overflow = false;
    int64_t entries = 0;
    if (w.symmetry == Header::Symmetry::General) {
      overflow = size[1] != 0 && size[0] > std::numeric_limits<int64_t>::max() / size[1];
      if (!overflow) entries = size[0] * size[1];
    } else {
      const int64_t half = w.symmetry == Header::Symmetry::Symmetric ? n + 1 : n - 1;
      // n * half / 2 without overflow: one of the two factors is even.
      const int64_t a = n % 2 == 0 ? n / 2 : n;
      const int64_t b = n % 2 == 0 ? half : half / 2;
      overflow = b != 0 && a > std::numeric_limits<int64_t>::max() / b;
      if (!overflow) entries = a * b;
    }
    if (overflow) {
      throw Error(fmt::format("{}:{}: array of {} x {} values is too large", name, line, size[0], size[1]));
    }
    h.header.entries = entries;
  }
  h.size_line = line;
  h.body_offset = static_cast<std::size_t>(skip_line(p, end) - text.data());
  h.body_line = line + 1;
  return h;
}

}  // namespace spx::io
