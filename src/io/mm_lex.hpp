// Small lexical helpers shared by the Matrix Market reader's parts (header, coordinate, array).
// Internal to src/io. Tokens are separated by spaces, tabs and '\r' (so CRLF files read like LF
// files); lines end at '\n'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace spx::io {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool is_token_end(char c) { return is_blank(c) || c == '\n'; }

inline const char* skip_blanks(const char* p, const char* end) {
  while (p != end && is_blank(*p)) ++p;
  return p;
}

inline const char* skip_line(const char* p, const char* end) {
  while (p != end && *p != '\n') ++p;
  return p == end ? end : p + 1;
}

// The token starting at p, for error messages: at most 40 characters, control bytes shown as '?',
// so a message stays one printable line whatever the file contains.
std::string quote_token(const char* p, const char* end);

// Same for a whole line (banner, size line).
std::string quote_line(const char* p, const char* end);

enum class IntToken { Ok, NotInteger, TooLarge };

// Parses a decimal integer token (optional sign) starting at p; *after is set past the digits.
// NotInteger when the token is anything else, TooLarge when it does not fit int64_t.
IntToken parse_int64_token(const char* p, const char* end, int64_t& out, const char** after);

// Name of the index type in messages ("int32_t").
template <class I>
constexpr const char* index_type_name() {
  return sizeof(I) == 4 ? "int32_t" : "int64_t";
}

}  // namespace spx::io
