#include "bench/types.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <type_traits>

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
    case Format::Bsr:
      return "bsr";
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
  for (Format f : {Format::Csr, Format::Coo, Format::Ell, Format::EllR, Format::Hyb, Format::Sell,
                   Format::Bsr, Format::Dense}) {
    if (text == to_string(f)) return f;
  }
  throw Error(fmt::format("unknown format '{}' (use csr, coo, ell, ellr, hyb, sell, bsr or dense)", text));
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

const ParamValue* find_param(const Params& params, std::string_view key) {
  const auto last =
      std::find_if(params.rbegin(), params.rend(), [&](const Param& p) { return p.key == key; });
  return last == params.rend() ? nullptr : &last->value;
}

double param_number(const Params& params, std::string_view key, double fallback) {
  const ParamValue* v = find_param(params, key);
  if (v == nullptr) return fallback;
  if (const auto* i = std::get_if<int64_t>(v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(v)) return *d;
  if (const auto* b = std::get_if<bool>(v)) return *b ? 1 : 0;
  return fallback;
}

std::string param_text(const Params& params, std::string_view key, const std::string& fallback) {
  const ParamValue* v = find_param(params, key);
  return v == nullptr ? fallback : to_string(*v);
}

std::string to_string(const ParamValue& value) {
  return std::visit(
      [](const auto& x) -> std::string {
        using V = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<V, std::string>) {
          return x;
        } else if constexpr (std::is_same_v<V, bool>) {
          return x ? "true" : "false";
        } else {
          return fmt::format("{}", x);
        }
      },
      value);
}

std::string to_string(const Params& params) {
  std::string text;
  for (const Param& p : params)
    text += fmt::format("{}{}={}", text.empty() ? "" : ", ", p.key, to_string(p.value));
  return text;
}

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
  if (op == OpKind::Gemm && (m() != size || k() != size)) return fmt::format("gemm:{}x{}x{}", m(), size, k());
  return fmt::format("{}:{}", to_string(op), size);
}

OpSpec op_spec_of(OpKind op, int64_t rows, int64_t cols, int64_t cols_dense) {
  if (op == OpKind::Gemm) return gemm_op(rows, cols_dense, cols);
  OpSpec spec;
  spec.op = op;
  spec.size = op == OpKind::Spmv ? 0 : cols_dense;
  return spec;
}

OpSpec gemm_op(int64_t m, int64_t n, int64_t k) {
  OpSpec spec;
  spec.op = OpKind::Gemm;
  spec.size = n;
  if (m != n || k != n) {
    spec.gemm_m = m;
    spec.gemm_k = k;
  }
  return spec;
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
      const std::string_view sizes = item.substr(colon + 1);
      if (spec.op == OpKind::Gemm && sizes.find('x') != std::string_view::npos) {
        // gemm:MxNxK — C is M × N, the inner dimension K.
        const std::size_t x1 = sizes.find('x'), x2 = sizes.find('x', x1 + 1);
        if (x2 == std::string_view::npos) {
          throw Error(fmt::format("op '{}': a gemm shape is MxNxK (e.g. gemm:16384x16384x256)", item));
        }
        spec = gemm_op(parse_size(item, sizes.substr(0, x1)),
                       parse_size(item, sizes.substr(x1 + 1, x2 - x1 - 1)),
                       parse_size(item, sizes.substr(x2 + 1)));
      } else {
        spec.size = parse_size(item, sizes);
      }
    } else {
      throw Error(fmt::format("unknown op '{}' (use spmv, spmm:L, gemm:N or gemm:MxNxK)", item));
    }
    if (std::find(out.begin(), out.end(), spec) == out.end()) out.push_back(spec);
  }
  if (out.empty()) throw Error("empty op list (use e.g. --ops spmv,spmm:8,gemm:1024)");
  return out;
}

}  // namespace spx::bench
