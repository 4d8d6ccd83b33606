// Between the CSR SpMM entry point (csr.cu) and its balanced-tile path (csr_tiled.cu): the shape of
// one launch's passes over A, and the tiled launcher. Included by .cu files only.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cuda/spmm/csr_device.cuh"
#include "cuda/spmm/spmm_device.cuh"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"

namespace spx::cuda::detail {

// `passes` passes of pass_cols (L_c) columns of C from first_col, each with ncols columns that exist
// (L_c, or fewer in a tail pass); vec: B's row segments are read with vector loads (full passes over
// aligned rows). record_long: the row-split path lists its long rows in this launch (the first one).
struct CsrPassShape {
  int64_t first_col = 0;
  int64_t passes = 0;
  int pass_cols = 0;
  int ncols = 0;
  bool vec = false;
  bool record_long = false;
};

// V: the columns each lane owns (the config's, else L_c / G, at least 1); a pass narrower than the
// group uses fewer lanes.
inline int csr_cols_per_lane(const SpmmCsrParams& config, int pass_cols) {
  if (config.cols_per_lane > 0) return config.cols_per_lane;
  return std::max(1, pass_cols / config.threads_per_row);
}
inline int csr_cols_per_lane(const SpmmCsrParams& config, const CsrPassShape& shape) {
  return csr_cols_per_lane(config, shape.pass_cols);
}

template <class T, class I, class O>
CsrArg<T, I, O> csr_arg(const DeviceCsr<T, I, O>& A) {
  return {A.rows, A.row_ptr.data(), A.col_idx.data(), A.values.data()};
}

// The lanes of a pass with V columns per lane: the group of config.threads_per_row lanes that walks
// a short row (pass_cols / V column lanes, the rest splitting the row's nonzeros), and a whole warp
// with the same column lanes, which works a long row's chunk or piece.
struct CsrLaneLayout {
  Lanes group;
  Lanes warp;
};

inline CsrLaneLayout csr_lane_layout(const SpmmCsrParams& config, const CsrPassShape& shape, int v) {
  const int group = config.threads_per_row;
  const int column_lanes = std::max(1, shape.pass_cols / v);
  return {{log2_of(group), log2_of(group / column_lanes)}, {5, log2_of(32 / column_lanes)}};
}

template <class T, class I, class O>
void spmm_csr_tiled(Context& ctx, const DeviceCsr<T, I, O>& A, DenseArg<const T> B, DenseArg<T> C,
                    const SpmmCsrParams& config, const CsrPassShape& shape, T alpha, T beta);

}  // namespace spx::cuda::detail
