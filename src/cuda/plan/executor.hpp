// A built candidate of the planner: the matrix in the candidate's format (converted once), the
// kernel's configuration, and the call that runs it. The front door (sparse_matrix.cpp) keeps one
// per plan; the tuner changes its knobs between calls.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "plan/tuner.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/matrix.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace spx::cuda::detail {

// What an executor is built from: the matrix the front door holds.
// A matrix with 64-bit offsets has `wide` and `wide_row_ptr` (its row pointer's host copy) instead
// of `host` and `device`; only catalogue rows with offsets64 build there.
template <class T>
struct MatrixParts {
  const Csr<T, int32_t>* host = nullptr;
  const DeviceCsr<T, int32_t>* device = nullptr;
  const MatrixStats* stats = nullptr;
  const WideDeviceCsr<T>* wide = nullptr;
  std::span<const int64_t> wide_row_ptr;
  // The host values' SELL-C16-dict table where the front door counted at most 256 of them
  // (plan::HostExtras::value_table_bits); empty otherwise.
  std::span<const uint64_t> value_table_bits;
};

// The SELL-C16-dict table of m's values: the front door's (value_table_bits) when it kept one, else
// one host pass (sell_c16_dict_table; spx::Error past 256 values).
template <class T>
std::vector<T> value_table_of(const MatrixParts<T>& m);

template <class T>
class Executor {
 public:
  virtual ~Executor() = default;
  virtual void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta);
  virtual void spmm(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta);
  // Applies the tuner's knobs (replacing the rule's); false when the kernel refuses them, which
  // leaves the configuration as it was.
  virtual bool set_knobs(Context& ctx, const plan::Knobs& knobs);
  // The configuration it runs with: the tunable knobs, and for people.
  virtual plan::Knobs knobs() const { return {}; }
  virtual std::string describe() const { return plan::to_string(knobs()); }
  std::size_t bytes = 0;  // device memory it owns beyond the CSR
};

// csr_param's knobs (repeat, coop, block_size), shared by the executors that run its kernel
// (csr_param, csr_c16, rcm_csr, csr_param_mixed): `k` applied over `p`, nullopt when the result is
// not a valid configuration; and `p` as knobs.
std::optional<CsrSpmvParams> with_csr_knobs(const CsrSpmvParams& p, const plan::Knobs& k);
plan::Knobs csr_knobs(const CsrSpmvParams& p);

// Builds `kernel` (a candidate name of spx/plan.hpp) for the problem; `knobs` replace the rule's
// where given. SpMM candidates of cuSPARSE are prepared on scratch operands of the planned L and
// layout (allocated here, released on return) so a later call only re-points them. Throws
// spx::Error when the kernel cannot run this matrix.
template <class T>
std::unique_ptr<Executor<T>> build_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                            const std::string& kernel, const plan::Knobs& knobs);

}  // namespace spx::cuda::detail
