#include "bench/types.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "spx/error.hpp"

namespace spx::bench {

std::string_view to_string(OpKind op) {
  switch (op) {
    case OpKind::Spmv:
      return "spmv";
    case OpKind::Spmm:
      return "spmm";
    case OpKind::Gemm:
      return "gemm";
  }
  return "?";
}

std::string_view to_string(Precision p) { return p == Precision::F32 ? "f32" : "f64"; }

std::string_view to_string(Format f) {
  switch (f) {
    case Format::Csr:
      return "csr";
    case Format::Coo:
      return "coo";
    case Format::Ell:
      return "ell";
    case Format::EllR:
      return "ellr";
    case Format::Hyb:
      return "hyb";
    case Format::Sell:
      return "sell";
    case Format::Dense:
      return "dense";
  }
  return "?";
}

Precision parse_precision(std::string_view text) {
  if (text == "f32" || text == "float" || text == "single") return Precision::F32;
  if (text == "f64" || text == "double") return Precision::F64;
  throw Error(fmt::format("unknown precision '{}' (use f32 or f64)", text));
}

Format parse_format(std::string_view text) {
  for (Format f :
       {Format::Csr, Format::Coo, Format::Ell, Format::EllR, Format::Hyb, Format::Sell, Format::Dense}) {
    if (text == to_string(f)) return f;
  }
  throw Error(fmt::format("unknown format '{}' (use csr, coo, ell, ellr, hyb, sell or dense)", text));
}

namespace {

// Splits "a,b,,c" into {"a", "b", "c"} (empty items dropped, spaces trimmed).
std::vector<std::string_view> split_list(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

int64_t parse_size(std::string_view op, std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value <= 0 || value > (int64_t{1} << 20)) {
    throw Error(
        fmt::format("bad size '{}' in op '{}' (a positive integer, e.g. spmm:8 or gemm:1024)", text, op));
  }
  return value;
}

}  // namespace

std::vector<Precision> parse_precisions(std::string_view list) {
  std::vector<Precision> out;
  for (std::string_view item : split_list(list)) {
    Precision p = parse_precision(item);
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  if (out.empty()) throw Error("empty precision list (use f32, f64 or f32,f64)");
  return out;
}

std::string OpSpec::label() const {
  if (op == OpKind::Spmv) return "spmv";
  return fmt::format("{}:{}", to_string(op), size);
}

std::vector<OpSpec> parse_ops(std::string_view list) {
  std::vector<OpSpec> out;
  for (std::string_view item : split_list(list)) {
    std::size_t colon = item.find(':');
    std::string_view name = item.substr(0, colon);
    OpSpec spec;
    if (name == "spmv") {
      if (colon != std::string_view::npos) throw Error(fmt::format("op '{}': spmv takes no size", item));
      spec.op = OpKind::Spmv;
    } else if (name == "spmm" || name == "gemm") {
      if (colon == std::string_view::npos) {
        throw Error(fmt::format("op '{}' needs a size: {}:L (e.g. {}:8)", item, name, name));
      }
      spec.op = name == "spmm" ? OpKind::Spmm : OpKind::Gemm;
      spec.size = parse_size(item, item.substr(colon + 1));
    } else {
      throw Error(fmt::format("unknown op '{}' (use spmv, spmm:L or gemm:N)", item));
    }
    if (std::find(out.begin(), out.end(), spec) == out.end()) out.push_back(spec);
  }
  if (out.empty()) throw Error("empty op list (use e.g. --ops spmv,spmm:8,gemm:1024)");
  return out;
}

}  // namespace spx::bench
