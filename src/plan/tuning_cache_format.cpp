// Parsing and writing the tuning cache file (tuning_cache_format.hpp). Neither builds a document
// tree: a file spx wrote is read by a scanner of its exact layout (FastReader), anything else by a
// SAX handler that fills the hash map directly. 100k plans (19 MB) load in 0.14 s on a 2-core CI
// machine; nlohmann's SAX alone takes 0.45 s, and the DOM of ordered_json used before (its objects
// look keys up linearly) 39 s.
#include "plan/tuning_cache_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

namespace spx::plan::detail {

namespace {

using json = nlohmann::json;

// The shortest line of a plan spx writes: a key of ~40 characters, the kernel, "us", "date".
constexpr std::size_t kMinPlanLineBytes = 64;

// Where the parser is in the document; containers it does not know are skipped whole.
enum class Where { Outside, Top, Plans, Entry, Knobs, Done };

class CacheSax : public nlohmann::json_sax<json> {
 public:
  explicit CacheSax(ParsedCache& out) : out_(out) {}

  bool null() override { return scalar("null"); }
  bool boolean(bool) override { return scalar("a boolean"); }
  bool number_integer(number_integer_t v) override {
    if (skip_ == 0 && where_ == Where::Knobs) return knob(v);
    if (skip_ == 0 && where_ == Where::Entry && key_ == "us") return us(static_cast<double>(v));
    return scalar("a number");
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (skip_ == 0 && where_ == Where::Knobs) {
      if (v > static_cast<number_unsigned_t>(std::numeric_limits<int64_t>::max()))
        return bad(fmt::format("knob '{}' = {} is out of the int64 range", key_, v));
      return knob(static_cast<int64_t>(v));
    }
    if (skip_ == 0 && where_ == Where::Entry && key_ == "us") return us(static_cast<double>(v));
    return scalar("a number");
  }
  bool number_float(number_float_t v, const string_t&) override {
    if (skip_ == 0 && where_ == Where::Knobs) return bad(fmt::format("knob '{}' is not an integer", key_));
    if (skip_ == 0 && where_ == Where::Entry && key_ == "us") return us(v);
    return scalar("a number");
  }
  bool string(string_t& v) override {
    if (skip_ == 0 && where_ == Where::Entry) {
      if (key_ == "kernel") return entry_.kernel = std::move(v), has_kernel_ = true;
      if (key_ == "decided_by") return entry_.decided_by = std::move(v), true;
      if (key_ == "date") return entry_.date = std::move(v), true;
    }
    return scalar("a string");
  }
  bool binary(binary_t&) override { return scalar("binary"); }

  bool key(string_t& k) override {
    if (skip_ == 0) key_ = std::move(k);
    return true;
  }

  bool start_object(std::size_t) override {
    if (skip_ > 0) return ++skip_, true;
    switch (where_) {
      case Where::Outside:
        return where_ = Where::Top, true;
      case Where::Top:
        if (key_ == "plans") return where_ = Where::Plans, has_plans_ = true;
        return skip_ = 1, true;
      case Where::Plans:
        entry_ = {};
        entry_key_ = std::move(key_);
        entry_error_.clear();
        has_kernel_ = false;
        return where_ = Where::Entry, true;
      case Where::Entry:
        if (key_ == "knobs") return where_ = Where::Knobs, true;
        return container_in_entry();
      case Where::Knobs:
        bad(fmt::format("knob '{}' is not an integer", key_));
        return skip_ = 1, true;
      case Where::Done:
        break;
    }
    return true;
  }
  bool end_object() override {
    if (skip_ > 0) return --skip_, true;
    switch (where_) {
      case Where::Top:
        return where_ = Where::Done, true;
      case Where::Plans:
        return where_ = Where::Top, true;
      case Where::Entry:
        finish_entry();
        return where_ = Where::Plans, true;
      case Where::Knobs:
        return where_ = Where::Entry, true;
      case Where::Outside:
      case Where::Done:
        break;
    }
    return true;
  }
  bool start_array(std::size_t) override {
    if (skip_ > 0) return ++skip_, true;
    switch (where_) {
      case Where::Outside:
        return fatal("the document is an array, not an object");
      case Where::Top:
        if (key_ == "plans") return fatal("\"plans\" is an array, not an object");
        return skip_ = 1, true;
      case Where::Plans:
        skip_entry(key_, "not an object");
        return skip_ = 1, true;
      case Where::Entry:
        return container_in_entry();
      case Where::Knobs:
        bad(fmt::format("knob '{}' is not an integer", key_));
        return skip_ = 1, true;
      case Where::Done:
        break;
    }
    return true;
  }
  bool end_array() override { return --skip_, true; }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = ex.what();
    if (const auto p = what.find("] "); what.rfind("[json.exception", 0) == 0 && p != std::string::npos)
      what.erase(0, p + 2);
    return fatal(what);
  }

  bool has_plans() const { return has_plans_; }

 private:
  // A scalar where the handler wants none of that kind.
  bool scalar(const char* what) {
    if (skip_ > 0) return true;
    switch (where_) {
      case Where::Outside:
        return fatal(fmt::format("the document is {}, not an object", what));
      case Where::Top:
        if (key_ == "plans") return fatal(fmt::format("\"plans\" is {}, not an object", what));
        return true;  // another top-level field ("spx_tuning_cache": 1)
      case Where::Plans:
        skip_entry(key_, fmt::format("{}, not an object", what));
        return true;
      case Where::Entry:
        if (key_ == "kernel" || key_ == "decided_by" || key_ == "date")
          return bad(fmt::format("\"{}\" is {}, not a string", key_, what));
        if (key_ == "us") return bad(fmt::format("\"us\" is {}, not a number", what));
        if (key_ == "knobs") return bad(fmt::format("\"knobs\" is {}, not an object", what));
        return true;  // a field of a later version: ignored
      case Where::Knobs:
        return bad(fmt::format("knob '{}' is {}, not an integer", key_, what));
      case Where::Done:
        break;
    }
    return true;
  }
  bool container_in_entry() {
    if (key_ == "kernel" || key_ == "decided_by" || key_ == "date" || key_ == "us" || key_ == "knobs")
      bad(fmt::format("\"{}\" has the wrong type", key_));
    return skip_ = 1, true;
  }
  bool knob(int64_t v) {
    entry_.knobs.emplace_back(key_, v);
    return true;
  }
  bool us(double v) {
    entry_.us = v;
    return true;
  }
  // The current entry is invalid: it is skipped when it ends; parsing goes on.
  bool bad(std::string why) {
    if (entry_error_.empty()) entry_error_ = std::move(why);
    return true;
  }
  void finish_entry() {
    if (entry_error_.empty() && !has_kernel_) entry_error_ = "no \"kernel\"";
    if (entry_error_.empty()) entry_error_ = invalid_reason(entry_);
    if (!entry_error_.empty()) return skip_entry(entry_key_, entry_error_);
    out_.entries.insert_or_assign(std::move(entry_key_), std::move(entry_));
  }
  void skip_entry(const std::string& key, const std::string& why) {
    if (out_.skipped++ == 0) out_.first_skipped = fmt::format("key '{}': {}", key, why);
  }
  bool fatal(std::string why) {
    out_.error = std::move(why);
    return false;  // stops the parser
  }

  ParsedCache& out_;
  Where where_ = Where::Outside;
  int skip_ = 0;  // depth inside a container being skipped
  std::string key_;
  std::string entry_key_;
  CacheEntry entry_;
  std::string entry_error_;
  bool has_kernel_ = false;
  bool has_plans_ = false;
};

// A JSON string literal. Plain ASCII (every key spx makes) is copied; anything else goes through
// nlohmann's escaping, invalid UTF-8 replaced (else the file would not parse back).
void append_string(std::string& out, const std::string& s) {
  const bool plain =
      std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; });
  if (!plain) {
    out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

// The exact text format_tuning_cache writes, read without a general JSON parser: a file spx wrote
// (plain ASCII strings, one plan a line) parses at ~10x nlohmann's speed. Anything else (an escape,
// other spacing, an invalid entry, a hand edit) returns false and goes to the SAX parser, which is
// the authority on what the text means; this path only accepts text that means the same to both.
class FastReader {
 public:
  explicit FastReader(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool read(CacheEntries& entries) {
    if (!lit("{\"spx_tuning_cache\": 1, \"plans\": {\n")) return false;
    if (!lit("}}")) {
      do {
        std::string key;
        CacheEntry e;
        if (!(lit("  ") && str(key) && lit(": {\"kernel\": ") && str(e.kernel) && lit(", \"knobs\": {")))
          return false;
        if (!lit("}")) {
          do {
            std::string name;
            int64_t v = 0;
            if (!(str(name) && lit(": ") && integer(v))) return false;
            e.knobs.emplace_back(std::move(name), v);
          } while (lit(", "));
          if (!lit("}")) return false;
        }
        if (!(lit(", \"us\": ") && number(e.us) && lit(", \"decided_by\": ") && str(e.decided_by) &&
              lit(", \"date\": ") && str(e.date) && lit("}")))
          return false;
        if (!invalid_reason(e).empty()) return false;
        entries.insert_or_assign(std::move(key), std::move(e));
      } while (lit(",\n"));
      if (!lit("\n}}")) return false;
    }
    for (; p_ != end_; ++p_)
      if (*p_ != ' ' && *p_ != '\n' && *p_ != '\t' && *p_ != '\r') return false;
    return true;
  }

 private:
  bool lit(std::string_view s) {
    if (static_cast<std::size_t>(end_ - p_) < s.size() || std::string_view(p_, s.size()) != s) return false;
    p_ += s.size();
    return true;
  }
  // A string of printable ASCII without escapes.
  bool str(std::string& out) {
    if (p_ == end_ || *p_ != '"') return false;
    const char* b = ++p_;
    while (p_ != end_ && *p_ != '"') {
      if (*p_ < 0x20 || *p_ > 0x7e || *p_ == '\\') return false;
      ++p_;
    }
    if (p_ == end_) return false;
    out.assign(b, p_++);
    return true;
  }
  // JSON integers only: from_chars alone would take "01", "inf" and others JSON does not.
  bool json_number_chars(bool integral) const {
    const char* q = p_;
    if (q != end_ && *q == '-') ++q;
    if (q == end_ || *q < '0' || *q > '9' || (*q == '0' && q + 1 != end_ && q[1] >= '0' && q[1] <= '9'))
      return false;
    if (integral) return true;
    for (; q != end_ && *q >= '0' && *q <= '9'; ++q) {
    }
    if (q != end_ && *q == '.' && (q + 1 == end_ || q[1] < '0' || q[1] > '9')) return false;  // "1."
    return true;
  }
  bool integer(int64_t& v) {
    if (!json_number_chars(true)) return false;
    const auto [q, ec] = std::from_chars(p_, end_, v);
    if (ec != std::errc() || (q != end_ && (*q == '.' || *q == 'e' || *q == 'E'))) return false;
    p_ = q;
    return true;
  }
  bool number(double& v) {
    if (!json_number_chars(false)) return false;
    const auto [q, ec] = std::from_chars(p_, end_, v);
    if (ec != std::errc()) return false;
    p_ = q;
    return true;
  }

  const char* p_;
  const char* end_;
};

}  // namespace

std::string invalid_reason(const CacheEntry& e) {
  if (e.kernel.empty()) return "the kernel name is empty";
  if (!std::isfinite(e.us) || e.us < 0) return fmt::format("\"us\" = {} is not a finite time >= 0", e.us);
  return {};
}

ParsedCache parse_tuning_cache(std::string_view text) {
  ParsedCache out;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return out;  // an empty cache
  // One plan a line in files spx writes: the line count is the entry count, so the map need not
  // rehash while it fills. Bounded by the size (a line of a plan is longer than kMinPlanLineBytes) so
  // that a file of newlines cannot make the reservation large.
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  out.entries.reserve(std::min(lines, text.size() / kMinPlanLineBytes));
  if (FastReader(text).read(out.entries)) return out;
  out.entries.clear();
  CacheSax sax(out);
  const bool ok = json::sax_parse(text.begin(), text.end(), &sax);
  if (ok && !sax.has_plans() && out.error.empty()) out.error = "no \"plans\" object";
  if (!out.error.empty()) {
    out.entries.clear();
    out.skipped = 0;
    out.first_skipped.clear();
  }
  return out;
}

std::string format_tuning_cache(const CacheEntries& entries) {
  std::vector<const CacheEntries::value_type*> sorted;
  sorted.reserve(entries.size());
  for (const auto& kv : entries) sorted.push_back(&kv);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::string out = "{\"spx_tuning_cache\": 1, \"plans\": {";
  out.reserve(entries.size() * 192 + 64);
  const char* sep = "\n";
  for (const auto* kv : sorted) {
    const CacheEntry& e = kv->second;
    out += sep;
    sep = ",\n";
    out += "  ";
    append_string(out, kv->first);
    out += ": {\"kernel\": ";
    append_string(out, e.kernel);
    out += ", \"knobs\": {";
    for (std::size_t i = 0; i < e.knobs.size(); ++i) {
      if (i > 0) out += ", ";
      append_string(out, e.knobs[i].first);
      fmt::format_to(std::back_inserter(out), ": {}", e.knobs[i].second);
    }
    fmt::format_to(std::back_inserter(out), "}}, \"us\": {}, \"decided_by\": ", e.us);
    append_string(out, e.decided_by);
    out += ", \"date\": ";
    append_string(out, e.date);
    out += "}";
  }
  out += "\n}}\n";
  return out;
}

}  // namespace spx::plan::detail
