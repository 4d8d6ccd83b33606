// The steps of the fixed rules (spx/plan/rules.hpp) one by one, for the CPU tests and for the rules that
// share them. Host code.
#pragma once

#include <cstdint>
#include <vector>

#include "spx/plan/rules.hpp"

namespace spx::plan::detail {

// The value of the first step whose bound exceeds `avg_row` (the last step's value past them all).
int step_for_average_row(const std::vector<AverageRowStep>& steps, double avg_row);

// --- Launch shapes (LaunchShapeTable) ---
// Slots the longest row's group may walk one after the other: streaming the matrix at the device's
// bandwidth, in serial slots, at least min_serial_slots.
int64_t serial_slot_budget(const MatrixStats& stats, const cuda::DeviceProps& device,
                           const RuleTables& tables = default_rule_tables());
// Threads per row of a row-group kernel (ELLR-T SpMV, ELLR-T SpMM): T from the average row, doubled
// while a small matrix leaves threads idle or the longest row's walk outlasts the stream; at most 32.
int threads_per_row(const MatrixStats& stats, const cuda::DeviceProps& device, const RuleTables& tables,
                    const std::vector<AverageRowStep>& by_avg_row, double small_min_slots_per_thread);
// The smallest block that still reaches full occupancy: threads per SM / blocks per SM, rounded up
// to a warp (64 on Hopper, 192 on Fermi).
int smallest_full_occupancy_block(const cuda::DeviceProps& device);
// spread_block_size's answer.
int spread_block(int64_t threads, const cuda::DeviceProps& device,
                 const RuleTables& tables = default_rule_tables());

// --- ELLR-T SpMV ---
cuda::EllrTParams ellr_t_choice(const MatrixStats& stats, const cuda::DeviceProps& device,
                                const RuleTables& tables = default_rule_tables());

// --- SpMM ---
// The format rule's three questions (statistics only; with L; with L and the device).
bool spmm_prefers_csr(const MatrixStats& s, const RuleTables& tables = default_rule_tables());
bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols,
                      const RuleTables& tables = default_rule_tables());
bool spmm_prefers_csr(const MatrixStats& s, int64_t dense_cols, const cuda::DeviceProps& device,
                      const RuleTables& tables = default_rule_tables());
cuda::SpmmEllrParams spmm_ellr_choice(const MatrixStats& stats, int64_t dense_cols,
                                      const cuda::DeviceProps& device,
                                      const RuleTables& tables = default_rule_tables());
// value_bytes: 8 (double) or 4 (float).
cuda::SpmmCsrParams spmm_csr_choice(const MatrixStats& stats, int64_t dense_cols,
                                    const cuda::DeviceProps& device, int value_bytes = 8,
                                    const RuleTables& tables = default_rule_tables());
int spmm_tile_items(const MatrixStats& stats, const cuda::DeviceProps& device,
                    const RuleTables& tables = default_rule_tables());

}  // namespace spx::plan::detail
