// Locality reordering on the GPU (docs/formats.md, "RCM"): a square CSR renumbered on the host by
// reverse Cuthill-McKee (spx/reorder.hpp), uploaded with its permutation, and run as
//   x'[i] = x[perm[i]]                              (gather, one launch)
//   y' = A' x'                                      (csr_param on B = P A P^T, its fixed rule)
//   y[perm[i]] = alpha*y'[i] + beta*y[perm[i]]      (scatter, one launch)
// so the product's x gathers hit nearby sectors. Also the permutation kernels themselves, for
// callers that stay in the permuted numbering (CG: spx/cuda/cg_reorder.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/matrix.hpp"

namespace spx::cuda {

// out[i] = in[perm[i]] (device spans, all of perm's size). spx::Error on a size mismatch.
template <class T>
void gather(Context& ctx, std::span<const int32_t> perm, std::span<const T> in, std::span<T> out);
// y[perm[i]] = alpha*y_permuted[i] + beta*y[perm[i]]; beta == 0 never reads y.
template <class T>
void scatter_axpby(Context& ctx, std::span<const int32_t> perm, std::span<const T> y_permuted, std::span<T> y,
                   T alpha, T beta);

template <class T>
class RcmCsr {
 public:
  // Runs RCM on A (square; spx::Error otherwise), permutes and uploads. `perm` given: that one
  // (checked to be a bijection) instead of RCM's.
  RcmCsr(Context& ctx, const Csr<T, int32_t>& A);
  RcmCsr(Context& ctx, const Csr<T, int32_t>& A, std::vector<int32_t> perm);

  // y = alpha*A*x + beta*y in A's own numbering (device spans: x of cols, y of rows entries).
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});

  const Csr<T, int32_t>& host_permuted() const { return host_; }
  const DeviceCsr<T, int32_t>& permuted() const { return device_; }
  const std::vector<int32_t>& perm() const { return perm_; }
  std::span<const int32_t> device_perm() const { return perm_device_.span(); }
  CsrSpmvPlan& plan() { return plan_; }
  const CsrSpmvPlan& plan() const { return plan_; }
  // Device bytes: the permuted CSR, the permutation and the two scratch vectors.
  std::size_t bytes() const;
  double host_reorder_us() const { return host_reorder_us_; }  // RCM and the permutation on the host

 private:
  Csr<T, int32_t> host_;
  std::vector<int32_t> perm_;
  DeviceCsr<T, int32_t> device_;
  DeviceBuffer<int32_t> perm_device_;
  DeviceBuffer<T> x_, y_;
  CsrSpmvPlan plan_;
  double host_reorder_us_ = 0;
};

}  // namespace spx::cuda
