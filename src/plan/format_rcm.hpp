// The planner's view of the rcm format (rcm_csr, spx/cuda/reorder.hpp): its device bytes, its setup
// (host RCM, permutation and upload), when it is eligible, and the x traffic the model counts for
// it (the post-reorder estimate). planner.cpp and model_terms.cpp call these, one line each.
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
// The features with the x gathers (row_sectors, window_sectors, value type `value_bytes`) replaced
// by their estimate after RCM (never more than before).
MatrixFeatures rcm_reordered_features(const MatrixFeatures& f, int value_bytes);

}  // namespace spx::plan
