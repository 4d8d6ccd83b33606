// The front door: a sparse matrix on the GPU that plans its own products.
//
//   spx::cuda::Context ctx;
//   spx::cuda::SparseMatrix<double> A(ctx, host_csr);          // device CSR, statistics, fingerprint
//   A.plan_spmv({.mode = spx::plan::Mode::Measure, .expected_calls = 500});   // optional
//   spx::cuda::spmv(ctx, A, x, y, 1.0, 0.0);                   // plans on first use, then runs the plan
//   std::cout << A.spmv_report()->explain();                   // candidates, µs, setup, why
//   A.plan_spmm(8);  spx::cuda::spmm(ctx, A, B, C);            // the same for SpMM with L columns
//
// The candidates are every SpMV/SpMM kernel spx keeps and cuSPARSE's (spx/plan.hpp); the plan says
// whose won. A planned product after the first call allocates nothing and never synchronises the
// host (except Mode::Tune while it is still trying: it reads its timing events without waiting),
// so it can be captured into a CUDA graph once the plan is frozen.
//
// The matrix keeps a host copy of its CSR (formats converted on the host — COO, SELL — are built
// from it, and so are the host features); its values and structure are fixed for its lifetime.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"  // DeviceCsr, DenseView
#include "spx/matrix.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {

template <class T>
class SparseMatrix {
 public:
  /// Validates and uploads A (spx::Error on an invalid matrix or too little device memory), with
  /// 32-bit row offsets unless `width` is Bits64 (plan::offset_bits decides; Report::problem says).
  SparseMatrix(Context& ctx, Csr<T, int32_t> A, plan::IndexWidth width = plan::IndexWidth::Auto);
  /// A matrix read or built with 64-bit indices: narrowed to 32-bit offsets where it fits them (under
  /// Auto), otherwise uploaded with 64-bit offsets over 32-bit columns (WideDeviceCsr). A 64-bit
  /// matrix keeps no host copy (host() and csr() are then an spx::Error): the planner's candidates
  /// there are the kernels with a 64-bit path (KernelRow::offsets64), the others ineligible with
  /// the reason. Read where it is (no copy of the caller's matrix); an rvalue is freed once read.
  SparseMatrix(Context& ctx, const Csr<T, int64_t>& A, plan::IndexWidth width = plan::IndexWidth::Auto);
  SparseMatrix(Context& ctx, Csr<T, int64_t>&& A, plan::IndexWidth width = plan::IndexWidth::Auto);
  /// A matrix already on the device with 64-bit offsets (assembled there, e.g. by
  /// upload_row_blocks): taken over without a host copy; its row pointer is read back once.
  SparseMatrix(Context& ctx, WideDeviceCsr<T> A);
  ~SparseMatrix();
  SparseMatrix(SparseMatrix&&) noexcept;
  SparseMatrix& operator=(SparseMatrix&&) noexcept;
  SparseMatrix(const SparseMatrix&) = delete;
  SparseMatrix& operator=(const SparseMatrix&) = delete;

  int64_t rows() const;
  int64_t cols() const;
  int64_t nnz() const;
  const MatrixStats& stats() const;  ///< includes the structure fingerprint
  uint64_t fingerprint() const { return stats().fingerprint; }
  /// The row offsets' width on the device: 32 or 64.
  int offset_bits() const;
  /// Device memory of the matrix as held (CSR at its offset width), without any plan's.
  std::size_t device_bytes() const;
  /// 32-bit offsets only (spx::Error naming the width otherwise).
  const Csr<T, int32_t>& host() const;
  const DeviceCsr<T, int32_t>& csr() const;
  /// 64-bit offsets only (spx::Error otherwise).
  const WideDeviceCsr<T>& wide_csr() const;
  Context& context() const;
  /// The performance model's features, computed on the GPU on first use (about 4 SpMVs' time).
  const MatrixFeatures& features();

  /// Plans the product now (otherwise the first spmv()/spmm() plans with default options) and
  /// builds the chosen candidate. Planning again replaces the plan.
  const plan::Report& plan_spmv(const plan::Options& options = {});
  const plan::Report& plan_spmm(int64_t cols_dense, plan::DenseLayout layout = plan::DenseLayout::RowMajor,
                                const plan::Options& options = {});
  /// The current plans' reports (null before planning). A tuning plan's report changes as it tunes.
  const plan::Report* spmv_report() const;
  const plan::Report* spmm_report(int64_t cols_dense,
                                  plan::DenseLayout layout = plan::DenseLayout::RowMajor) const;

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

/// y = alpha·A·x + beta·y with A's SpMV plan (planned with default options on first use). x has
/// A.cols() entries, y A.rows(), both device memory; beta = 0 never reads y. y overlapping x is an
/// spx::Error (no product is computed in place). Enqueued on ctx's stream; ctx must be A's context.
template <class T>
void spmv(Context& ctx, SparseMatrix<T>& A, std::span<const T> x, std::span<T> y, T alpha = T{1},
          T beta = T{0});

/// C = alpha·A·B + beta·C, B of A.cols() × L and C of A.rows() × L, one layout (B's) for both; the
/// plan for (L, layout), planned on first use. C overlapping B is an spx::Error, as for spmv.
template <class T>
void spmm(Context& ctx, SparseMatrix<T>& A, DenseView<const T> B, DenseView<T> C, T alpha = T{1},
          T beta = T{0});

}  // namespace spx::cuda
