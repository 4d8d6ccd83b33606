#include "io/mm_lex.hpp"

#include <charconv>
#include <system_error>

namespace spx::io {
namespace {

constexpr std::size_t kMaxShown = 40;

// Quoted, e.g. 'abc'. (Built by appending: GCC 12 gives a false -Wrestrict on "'" + s + "'".)
std::string quoted_printable(const char* p, const char* stop) {
  std::string s(1, '\'');
  for (; p != stop && s.size() < kMaxShown + 1; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    s.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
  }
  if (p != stop) s += "...";
  s.push_back('\'');
  return s;
}

}  // namespace

std::string quote_token(const char* p, const char* end) {
  const char* stop = p;
  while (stop != end && !is_token_end(*stop)) ++stop;
  return quoted_printable(p, stop);
}

std::string quote_line(const char* p, const char* end) {
  const char* stop = p;
  while (stop != end && *stop != '\n') ++stop;
  while (stop != p && is_blank(stop[-1])) --stop;
  return quoted_printable(p, stop);
}

IntToken parse_int64_token(const char* p, const char* end, int64_t& out, const char** after) {
  // from_chars takes no '+', but "+5" is a fine integer in a text file.
  if (p != end && *p == '+' && p + 1 != end && *(p + 1) >= '0' && *(p + 1) <= '9') ++p;
  const auto [ptr, ec] = std::from_chars(p, end, out);
  *after = ptr;
  if (ptr == p || (ptr != end && !is_token_end(*ptr))) return IntToken::NotInteger;
  return ec == std::errc{} ? IntToken::Ok : IntToken::TooLarge;
}

}  // namespace spx::io
