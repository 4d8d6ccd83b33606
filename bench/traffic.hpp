// Bytes and flops of one product, the denominators of GB/s and GFLOP/s.
//
// Reguly & Giles (InPar 2012, ../shared/papers/reguly-giles-csr-spmv-autotuning.txt):
//   flops (eq. 1)                = 2·nnz
//   effective bytes (eq. 2)      = nnz·(2·sizeof(T) + sizeof(I)) + rows·(sizeof(T) + sizeof(I))
//                                  (value, column index and x[col] per nonzero; row pointer and
//                                  y write per row: no reuse of x through caches)
//   minimum bytes (eq. 4)        = nnz·(sizeof(T) + sizeof(I)) + rows·(2·sizeof(T) + sizeof(I))
//                                  (perfect reuse: x read once, y written once)
// We write eq. 4 for rectangular matrices as  nnz·(T + I) + (rows + 1)·I + cols·T + rows·T.
// Both count the CSR structure whatever format the kernel uses, so for one matrix every kernel's
// GB/s is proportional to 1/time: padding or conversions are the kernel's cost, not extra credit.
// `gbs` in the JSON is the effective (eq. 2) figure, as the papers report; `gbs_min` uses eq. 4,
// a lower bound on the traffic, and is the one compared with the measured copy bandwidth.
//
// SpMM with L dense columns reads L values of B per nonzero (effective) or B once (minimum) and
// writes C (rows·L); flops 2·nnz·L. GEMM N×N×N: flops 2·N³, bytes 3·N²·sizeof(T) (A and B read,
// C written; beta = 0) for both figures.
#pragma once

#include <cstdint>

namespace spx::bench {

struct Traffic {
  double effective_bytes = 0;
  double minimum_bytes = 0;
  double flops = 0;
};

Traffic spmv_traffic(int64_t rows, int64_t cols, int64_t nnz, int64_t value_bytes, int64_t index_bytes);
Traffic spmm_traffic(int64_t rows, int64_t cols, int64_t nnz, int64_t dense_cols, int64_t value_bytes,
                     int64_t index_bytes);
Traffic gemm_traffic(int64_t m, int64_t n, int64_t k, int64_t value_bytes);

}  // namespace spx::bench
