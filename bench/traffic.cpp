#include "bench/traffic.hpp"

namespace spx::bench {

Traffic spmv_traffic(int64_t rows, int64_t cols, int64_t nnz, int64_t value_bytes, int64_t index_bytes) {
  const double r = static_cast<double>(rows), c = static_cast<double>(cols), z = static_cast<double>(nnz);
  const double v = static_cast<double>(value_bytes), i = static_cast<double>(index_bytes);
  Traffic t;
  t.effective_bytes = z * (2 * v + i) + r * (v + i);
  t.minimum_bytes = z * (v + i) + (r + 1) * i + c * v + r * v;
  t.flops = 2 * z;
  return t;
}

Traffic spmm_traffic(int64_t rows, int64_t cols, int64_t nnz, int64_t dense_cols, int64_t value_bytes,
                     int64_t index_bytes) {
  const double r = static_cast<double>(rows), c = static_cast<double>(cols), z = static_cast<double>(nnz);
  const double l = static_cast<double>(dense_cols);
  const double v = static_cast<double>(value_bytes), i = static_cast<double>(index_bytes);
  Traffic t;
  t.effective_bytes = z * (v + i + l * v) + r * (i + l * v);
  t.minimum_bytes = z * (v + i) + (r + 1) * i + c * l * v + r * l * v;
  t.flops = 2 * z * l;
  return t;
}

Traffic gemm_traffic(int64_t m, int64_t n, int64_t k, int64_t value_bytes) {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  Traffic t;
  // A, B read once, C written once (beta = 0).
  t.effective_bytes = (dm * dk + dk * dn + dm * dn) * static_cast<double>(value_bytes);
  t.minimum_bytes = t.effective_bytes;
  t.flops = 2 * dm * dn * dk;
  return t;
}

}  // namespace spx::bench
