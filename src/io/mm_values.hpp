// Parsing of one numeric value token, shared by the coordinate and array readers. Internal to
// src/io; inline because it sits in the innermost parsing loop.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <system_error>

#include "io/mm_lex.hpp"
#include "spx/error.hpp"
#include "spx/io.hpp"

namespace spx::io {

// What an entry line must satisfy, and how to name the input in messages.
struct EntryRules {
  int64_t rows = 0;
  int64_t cols = 0;
  MatrixMarketHeader::Field field = MatrixMarketHeader::Field::Real;
  MatrixMarketHeader::Symmetry symmetry = MatrixMarketHeader::Symmetry::General;
  bool allow_nonfinite = false;
  std::string_view name;
};

template <class T>
constexpr const char* value_type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

// from_chars reports over- and underflow alike as out of range and leaves the value unset.
// Underflow is a legitimate tiny number (it becomes 0 or a subnormal); overflow is an infinity.
template <class T>
T out_of_range_value(const char* p, const char* stop) {
  long double wide = 0;
  const auto [ptr, ec] = std::from_chars(p, stop, wide);
  if (ec == std::errc{} && ptr == stop) return static_cast<T>(wide);
  // Beyond even long double: the exponent's sign tells which side.
  bool negative_exponent = false;
  for (const char* q = p; q != stop; ++q) {
    if ((*q == 'e' || *q == 'E') && q + 1 != stop) negative_exponent = q[1] == '-';
  }
  const bool negative = *p == '-';
  const T magnitude = negative_exponent ? T{0} : std::numeric_limits<T>::infinity();
  return negative ? -magnitude : magnitude;
}

// Parses the value token at p (p is at a non-blank character of line `line`). Returns the
// position after the token. Integer fields take integers only; pattern fields have no value.
template <class T>
const char* parse_value(const char* p, const char* end, const EntryRules& rules, int64_t line, T& out) {
  if (rules.field == MatrixMarketHeader::Field::Integer) {
    int64_t v = 0;
    const char* after = nullptr;
    const IntToken kind = parse_int64_token(p, end, v, &after);
    if (kind == IntToken::TooLarge) {
      throw Error(fmt::format("{}:{}: value {} does not fit a 64-bit integer", rules.name, line,
                              quote_token(p, end)));
    }
    if (kind != IntToken::Ok) {
      throw Error(fmt::format("{}:{}: value {} is not an integer (the banner says 'integer')", rules.name,
                              line, quote_token(p, end)));
    }
    out = static_cast<T>(v);
    return after;
  }
  const char* s = p;
  // from_chars takes no '+' sign; "+1.5" is common enough in hand-written files.
  if (*s == '+' && s + 1 != end && s[1] != '-' && s[1] != '+') ++s;
  T v{};
  const auto [ptr, ec] = std::from_chars(s, end, v);
  if (ptr == s || (ptr != end && !is_token_end(*ptr))) {
    throw Error(fmt::format("{}:{}: value {} is not a number", rules.name, line, quote_token(p, end)));
  }
  if (ec == std::errc::result_out_of_range) v = out_of_range_value<T>(s, ptr);
  if (!rules.allow_nonfinite && !std::isfinite(v)) {
    if (ec == std::errc::result_out_of_range) {
      throw Error(
          fmt::format("{}:{}: value {} is out of range for {} (set ReadOptions::allow_nonfinite to "
                      "read it as infinity)",
                      rules.name, line, quote_token(p, end), value_type_name<T>()));
    }
    throw Error(
        fmt::format("{}:{}: value {} is not finite (NaN and Inf are rejected unless "
                    "ReadOptions::allow_nonfinite is set)",
                    rules.name, line, quote_token(p, end)));
  }
  out = v;
  return ptr;
}

}  // namespace spx::io
