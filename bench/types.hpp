// Vocabulary of the benchmark engine: operations, precisions, storage formats, kernel parameters.
// Plain enums and structs with text forms, so the CLI, the JSON and the kernel registry all use
// the same names ("spmv", "f64", "ellr", …).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace spx::bench {

enum class OpKind { Spmv, Spmm, Gemm };
enum class Precision { F32, F64 };
// The storage a kernel multiplies. Dense is the GEMM operand; Sell is sliced ELLPACK (cuSPARSE's
// SELL-C, device only).
enum class Format { Csr, Coo, Ell, EllR, Hyb, Sell, Bsr, Dense };

std::string_view to_string(OpKind op);
std::string_view to_string(Precision p);
std::string_view to_string(Format f);

// Parsers throw spx::Error listing what is accepted.
Precision parse_precision(std::string_view text);
Format parse_format(std::string_view text);
// "f32,f64" → {F32, F64}
std::vector<Precision> parse_precisions(std::string_view list);

// One requested operation: spmv, spmm with L dense columns, or an N × N × N gemm.
struct OpSpec {
  OpKind op = OpKind::Spmv;
  int64_t size = 0;  // L for spmm, n (columns of C) for gemm, 0 for spmv
  // gemm only: m (rows of C) and k (the inner dimension); 0 means "= size" (a square N × N × N).
  int64_t gemm_m = 0;
  int64_t gemm_k = 0;

  int64_t m() const { return gemm_m > 0 ? gemm_m : size; }
  int64_t k() const { return gemm_k > 0 ? gemm_k : size; }
  std::string label() const;  // "spmv", "spmm:8", "gemm:1024", "gemm:16384x16384x256" (m x n x k)
  bool operator==(const OpSpec&) const = default;
};
// The OpSpec of a gemm with C m × n and inner dimension k (square ones get the short label).
OpSpec gemm_op(int64_t m, int64_t n, int64_t k);
// The OpSpec of a problem or result: rows and cols of A (m and k for gemm), cols_dense = L or n.
OpSpec op_spec_of(OpKind op, int64_t rows, int64_t cols, int64_t cols_dense);
// "spmv,spmm:8,gemm:1024,gemm:65536x512x512" → four OpSpecs. Throws spx::Error on unknown ops or
// bad sizes.
std::vector<OpSpec> parse_ops(std::string_view list);

// Kernel parameters as they go into the JSON `params` object (threads, block size, ELL width, …):
// a small variant instead of a JSON type so that CUDA translation units can fill them without
// compiling a JSON library.
using ParamValue = std::variant<int64_t, double, std::string, bool>;
struct Param {
  std::string key;
  ParamValue value;
};
using Params = std::vector<Param>;

// "8", "0.5", "csr", "true"; and "key=value, key=value" for a list.
std::string to_string(const ParamValue& value);
std::string to_string(const Params& params);
// The value of `key` (the last one given: a later entry replaces an earlier one), or null.
const ParamValue* find_param(const Params& params, std::string_view key);
// The value of `key` as a number (int64 or double) or a string, `fallback` when absent.
double param_number(const Params& params, std::string_view key, double fallback = 0);
std::string param_text(const Params& params, std::string_view key, const std::string& fallback = "");

// Bytes of one element of the given precision.
inline int64_t value_bytes(Precision p) { return p == Precision::F32 ? 4 : 8; }

}  // namespace spx::bench
