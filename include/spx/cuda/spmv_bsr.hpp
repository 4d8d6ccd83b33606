// BSR on the device (spx/bsr.hpp's format, array for array) and its SpMV: spx's kernel and
// cuSPARSE's (cusparseSpMV, CUSPARSE_SPMV_BSR_ALG1, the vendor candidate). Semantics as every spx
// SpMV (spmv_formats.hpp): y = alpha*A*x + beta*y; beta == 0 never reads y; alpha == 0 reads
// neither A nor x; x.size() >= cols, y.size() >= rows, entries past them neither read nor written.
// Instantiated for float/double with int32_t indices. docs/formats.md has the bytes and the floor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "spx/bsr.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/kernel_params.hpp"

namespace spx::cuda {

template <class T, class I = int32_t>
struct DeviceBsr {
  using value_type = T;
  using index_type = I;
  I rows = 0;
  I cols = 0;
  int block = 2;
  I block_rows = 0;
  I block_cols = 0;
  I blocks = 0;
  DeviceBuffer<I> row_ptr;  // block_rows + 1
  DeviceBuffer<I> col_idx;  // blocks
  DeviceBuffer<T> values;   // blocks * b * b, row-major within a block
  std::size_t bytes() const { return row_ptr.bytes() + col_idx.bytes() + values.bytes(); }
};

// Validates A, then copies it (and waits).
template <class T, class I>
DeviceBsr<T, I> upload(Context& ctx, const Bsr<T, I>& A);
template <class T, class I>
Bsr<T, I> download(Context& ctx, const DeviceBsr<T, I>& A);

// spx's kernel: a group of b x Q lanes per block row (several groups per warp when they fit); lane
// (r, q) walks blocks q, q+Q, ... of its block row, reading row r of each block (b contiguous
// values) and b contiguous entries of x; the Q partial sums of a row meet in a shuffle reduction
// in a fixed order (deterministic, no atomics). `config` (BsrSpmvParams, kernel_params.hpp) comes
// from plan::bsr_spmv_rule (spx/plan/rules.hpp) or the caller.
template <class T, class I>
void spmv_bsr(Context& ctx, const DeviceBsr<T, I>& A, std::span<const T> x, std::span<T> y,
              const BsrSpmvParams& config, T alpha = T{1}, T beta = T{0});

// cuSPARSE's BSR SpMV, prepared like CusparseSpmv (vendor.hpp): descriptors, workspace once; run()
// is the call. cuSPARSE reads x and writes y over whole blocks (block_cols*b, block_rows*b
// entries): when rows or cols are not a multiple of b, run() goes through padded copies of x and y
// (two or three device copies per call), so y past rows and x past cols are never touched.
template <class T>
class CusparseBsrSpmv {
 public:
  CusparseBsrSpmv(Context& ctx, const DeviceBsr<T, int32_t>& A, std::span<const T> x, std::span<T> y,
                  T alpha = T{1}, T beta = T{0});
  ~CusparseBsrSpmv();
  CusparseBsrSpmv(CusparseBsrSpmv&&) noexcept;
  CusparseBsrSpmv& operator=(CusparseBsrSpmv&&) noexcept;
  void run();
  void set_vectors(std::span<const T> x, std::span<T> y);
  void set_scalars(T alpha, T beta);
  std::size_t workspace_bytes() const;  // cuSPARSE's workspace and the padded x and y

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spx::cuda
