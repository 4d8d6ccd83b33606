// The planner's view of the RCM formats -- rcm (rcm_csr, spx/cuda/reorder.hpp) and rcmsell
// (rcm_sell_c16: SELL-C16 or its value dictionary on the renumbered matrix) -- their device bytes,
// their setup (host RCM, permutation and upload), when they are eligible, and the x traffic the
// model counts for them (the post-reorder estimate). format_table.cpp and model_terms.cpp call these.
#pragma once

#include <string>

#include "spx/features.hpp"
#include "spx/model.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

// Host work per nonzero of the setup, measured on the development machine (2 cores, loaded) on a
// 10M-nonzero shuffled 5-point mesh: RCM ~90-120 ns, the symmetric permutation ~60 ns.
inline constexpr double kRcmHostNsPerNnz = 120.0;
inline constexpr double kRcmPermuteNsPerNnz = 60.0;
// Host-to-device copy of the permuted CSR (pageable memory).
inline constexpr double kRcmUploadGbs = 10.0;

// Device bytes beyond the front door's CSR: the permuted CSR, the permutation, x' and y'.
double rcm_extra_bytes(const Problem& p);
// Setup in µs: fixed cost + host RCM + permutation + upload.
double rcm_setup_us(const Problem& p, double fixed_us);
// Why rcm_csr cannot run this problem ("" when it can): SpMV on a square matrix whose sampled
// locality says x is gathered poorly.
std::string rcm_refusal(const Problem& p);
// rcm_sell_c16: device bytes beyond the front door's CSR (SELL-C16 or SELL-C16-dict on the
// renumbered matrix, with SELL-32's slots as counted before renumbering; the permutation; x'); the
// bytes its product streams for the matrix; its setup (rcm's host work and upload, then the device
// conversion); why it cannot run (rcm_csr's refusal but the row-length floor: SELL-C16's row walk
// has no per-row overhead to outweigh, the model weighs the gather).
double rcm_sell_extra_bytes(const Problem& p);
double rcm_sell_matrix_bytes(const Problem& p);
double rcm_sell_setup_us(const Problem& p, double device_convert_gbs);
std::string rcm_sell_refusal(const Problem& p);

// The features with the x gathers (row_sectors, window_sectors, value type `value_bytes`) replaced
// by their estimate after RCM (never more than before).
MatrixFeatures rcm_reordered_features(const MatrixFeatures& f, int value_bytes);

}  // namespace spx::plan
