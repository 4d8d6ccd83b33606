// "name: value" lines with the values aligned in one column: the text form of MatrixStats and
// MatrixFeatures (spx info prints both), one layout for both.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace spx::detail {

template <class Lines>  // a range of pairs (name, value), both convertible to std::string_view
std::string name_value_lines(const Lines& lines) {
  std::size_t name_width = 0;
  for (const auto& line : lines) name_width = std::max(name_width, std::string_view(line.first).size() + 1);
  std::string out;
  for (const auto& [name, value] : lines) {
    if (!out.empty()) out += '\n';
    out += fmt::format("{:<{}} {}", fmt::format("{}:", name), name_width, value);
  }
  return out;
}

}  // namespace spx::detail
