#include "number_options.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

#include "spx/error.hpp"
#include "spx/threads.hpp"

namespace spx::cli {
namespace {

// One parse: the value, or the reason `text` is not acceptable (no option name: callers add it).
template <class V>
struct Parsed {
  V value{};
  std::string error;
};

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// "1_000_000" -> "1000000": an underscore only between two digits.
bool drop_separators(const std::string& text, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      out += text[i];
      continue;
    }
    if (i == 0 || i + 1 == text.size() || !is_digit(text[i - 1]) || !is_digit(text[i + 1])) return false;
  }
  return true;
}

// digits [. digits] [e [+-] digits]: the only shape a number may have (no hex, inf, nan, "1.").
// Returns the characters it spans from `start`.
std::size_t number_length(const std::string& s, std::size_t start) {
  std::size_t i = start;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i > from;
  };
  const bool whole = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return 0;
  } else if (!whole) {
    return 0;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return 0;
  }
  return i - start;
}

std::string range_error(const std::string& shown, const std::string& unit, const std::string& bound_text,
                        const std::string& otherwise) {
  return fmt::format("{}{}{}: {}{}", shown, unit.empty() ? "" : " ", unit, bound_text,
                     otherwise.empty() ? "" : fmt::format(" (or {})", otherwise));
}

Parsed<int64_t> read_count(const std::string& text, int64_t least, int64_t most, const std::string& unit,
                           const std::string& otherwise) {
  Parsed<int64_t> r;
  const std::string what = unit.empty() ? "a count" : "a count of " + unit;
  const auto not_a_count = [&] {
    r.error = fmt::format("'{}' is not {} (e.g. 300000, 1_000_000, 2e6, 1.5M)", text, what);
    return r;
  };
  std::string s;
  if (!drop_separators(text, s) || s.empty()) return not_a_count();
  const bool negative = s[0] == '-';
  const std::size_t start = negative ? 1 : 0;
  const std::size_t length = number_length(s, start);
  if (length == 0) return not_a_count();
  const std::string number = s.substr(start, length), suffix = s.substr(start + length);
  double scale = 1;
  if (suffix == "k" || suffix == "K") scale = 1e3;
  if (suffix == "m" || suffix == "M") scale = 1e6;
  if (suffix == "g" || suffix == "G") scale = 1e9;
  if (scale == 1 && !suffix.empty()) return not_a_count();
  if (negative) {
    r.error = range_error(text, unit, fmt::format("give at least {}", least), otherwise);
    return r;
  }
  const bool plain = number.find_first_not_of("0123456789") == std::string::npos && scale == 1;
  if (plain) {  // exact, however many digits
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), r.value);
    if (ec == std::errc::result_out_of_range) {
      r.error = range_error(text, unit, fmt::format("give at most {}", most), "");
      return r;
    }
  } else {
    double real = 0;
    std::from_chars(number.data(), number.data() + number.size(), real);
    real *= scale;
    if (!std::isfinite(real) || real >= 0x1p63) {
      r.error = range_error(text, unit, fmt::format("give at most {}", most), "");
      return r;
    }
    if (real != std::floor(real)) {
      r.error = fmt::format("'{}' is not a whole number of {}", text, unit.empty() ? "units" : unit);
      return r;
    }
    r.value = static_cast<int64_t>(real);
  }
  if (r.value < least) r.error = range_error(text, unit, fmt::format("give at least {}", least), otherwise);
  if (r.value > most) r.error = range_error(text, unit, fmt::format("give at most {}", most), "");
  return r;
}

Parsed<double> read_real(const std::string& text, double least, double most, const std::string& unit,
                         const std::string& otherwise) {
  Parsed<double> r;
  const std::size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const std::size_t length = number_length(text, start);
  if (length == 0 || start + length != text.size()) {
    r.error = fmt::format("'{}' is not a finite number{}", text, unit.empty() ? "" : " of " + unit);
    return r;
  }
  const std::string number = text.substr(start);
  std::from_chars(number.data(), number.data() + number.size(), r.value);
  if (text[0] == '-') r.value = -r.value;
  if (!std::isfinite(r.value)) {
    r.error = fmt::format("'{}' is not a finite number{}", text, unit.empty() ? "" : " of " + unit);
    return r;
  }
  if (r.value < least) r.error = range_error(text, unit, fmt::format("give at least {}", least), otherwise);
  if (r.value > most) r.error = range_error(text, unit, fmt::format("give at most {}", most), "");
  return r;
}

}  // namespace

int64_t parse_count(const std::string& text, const std::string& option, int64_t least, int64_t most,
                    const std::string& unit) {
  const Parsed<int64_t> r = read_count(text, least, most, unit, "");
  if (!r.error.empty()) throw Error(fmt::format("{}: {}", option, r.error));
  return r.value;
}

double parse_real(const std::string& text, const std::string& option, double least, double most,
                  const std::string& unit) {
  const Parsed<double> r = read_real(text, least, most, unit, "");
  if (!r.error.empty()) throw Error(fmt::format("{}: {}", option, r.error));
  return r.value;
}

CLI::Validator count_in(int64_t least, int64_t most, const std::string& unit, const std::string& otherwise) {
  auto check = [=](std::string& text) -> std::string {
    const Parsed<int64_t> r = read_count(text, least, most, unit, otherwise);
    if (r.error.empty()) text = std::to_string(r.value);
    return r.error;
  };
  return CLI::Validator(check, fmt::format("{}..{}", least, most));
}

CLI::Validator real_in(double least, double most, const std::string& unit, const std::string& otherwise) {
  auto check = [=](std::string& text) -> std::string {
    return read_real(text, least, most, unit, otherwise).error;
  };
  const std::string range = least == -kMaxReal ? "finite"
                            : most == kMaxReal ? fmt::format(">= {}", least)
                                               : fmt::format("{}..{}", least, most);
  return CLI::Validator(check, range);
}

CLI::Validator thread_count() {
  const int most = spx::omp::max_settable_threads();
  return count_in(1, most, "threads", "leave it out for all cores")
      .description(
          fmt::format("1..{} ({} x the hardware threads)", most, spx::omp::kThreadsPerHardwareThread));
}

}  // namespace spx::cli
