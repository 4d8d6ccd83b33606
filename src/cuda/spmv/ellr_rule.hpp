// The ELLR-T configuration rule as host-only inline code, so the CPU tests (tests/cpu) exercise it in
// every build; src/cuda/spmv/ellr_rule.cpp exposes it as spx::cuda::ellr_t_rule. No CUDA here.
//
// The FastSpMM paper (§2) tunes two numbers per matrix and GPU: T, the threads that share a row,
// and BS, the block size, and says a model picks them from the matrix and the architecture
// (Vázquez et al.). The reasoning carries over; the numbers do not (Fermi: 1536 threads and at most
// 8 blocks per SM, 48 KB L1; Hopper: 2048 threads and 32 blocks per SM, 132 SMs, 3 TB/s). Each
// step below is a table or a constant with its reason; docs/spmv-formats.md walks examples.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "spx/cuda/context.hpp"
#include "spx/stats.hpp"

namespace spx::cuda::detail {

// What the rule returns (mirrors spx::cuda::EllrTConfig without including the kernel header).
struct EllrTChoice {
  int threads_per_row = 1;
  int block_size = 256;
};

// Step 1. T from the average row length. Each thread of a group should get at least about four
// slots of an average row: below that the log2(T) shuffle steps of the reduction and the idle
// lanes of short rows cost more than the loads they parallelise. (The paper: T grows with the
// number of nonzeros per row.) Upper bounds are exclusive.
struct ThreadsByRowLength {
  double average_row_below;
  int threads_per_row;
};
inline constexpr ThreadsByRowLength kThreadsByAverageRow[] = {
    {8.0, 1},     // up to ~8 slots: one thread walks the row (G3_circuit, 4.8 per row)
    {16.0, 2},    // cage11 (14.3), Andrews (12.7)
    {32.0, 4},    // 27-point stencil (26.6): each group of 4 reads 4 slot columns × 8 rows, full sectors
    {64.0, 8},    // EX5 (45)
    {128.0, 16},  //
    {std::numeric_limits<double>::infinity(), 32},
};

inline int threads_for_average_row(double average_row) {
  for (const auto& entry : kThreadsByAverageRow)
    if (average_row < entry.average_row_below) return entry.threads_per_row;
  return 32;
}

// Hopper's SM limits, used when the DeviceProps were not filled in (hand-made props in tests).
inline constexpr int kDefaultThreadsPerSm = 2048;
inline constexpr int kDefaultBlocksPerSm = 32;

// Threads the whole device keeps resident at full occupancy (132 × 2048 = 270336 on H100).
inline int64_t resident_threads(const DeviceProps& device) {
  const int64_t sms = std::max(1, device.sm_count);
  const int64_t per_sm = device.max_threads_per_sm > 0 ? device.max_threads_per_sm : kDefaultThreadsPerSm;
  return sms * per_sm;
}

// Step 3's budget. The thread group of the longest row walks ceil(max_row / T) slots one after the
// other; each costs about kNsPerSerialSlot (two dependent memory round trips, column then x, of
// ~0.5 µs each on H100 under load, overlapped about ten deep by the unrolled loop and the other
// groups of the warp). That serial walk should not outlast streaming the whole matrix at the
// device bandwidth, nnz × kBytesPerNonzero / bandwidth (f64 value + int32 column; the rule does not
// know the precision, f32 only shortens the stream). Never below kMinSerialSlots: tiny matrices
// are launch-bound anyway.
inline constexpr double kNsPerSerialSlot = 100.0;
inline constexpr double kBytesPerNonzero = 12.0;
inline constexpr double kDefaultBandwidthGbs = 3000.0;  // H100 copy bandwidth, measured 3006 GB/s
inline constexpr int64_t kMinSerialSlots = 64;

inline int64_t serial_slot_budget(const MatrixStats& stats, const DeviceProps& device) {
  const double theoretical = device.theoretical_bandwidth_gbs();
  // The datasheet figure overstates what a kernel gets; 90% of it is close to the measured copy
  // bandwidth on H100 (3006 of 3352 GB/s).
  const double gbs = theoretical > 0 ? 0.9 * theoretical : kDefaultBandwidthGbs;
  const double stream_ns = static_cast<double>(stats.nnz) * kBytesPerNonzero / gbs;  // bytes / (GB/s) = ns
  return std::max(kMinSerialSlots, static_cast<int64_t>(stream_ns / kNsPerSerialSlot));
}

// BS. On Fermi the paper had to tune BS because 8 blocks per SM capped small blocks' occupancy. On
// Hopper any block of at least max_threads_per_sm / max_blocks_per_sm = 64 threads reaches the full
// 64 warps per SM (the kernels use at most 32 registers). What still matters is where the blocks
// go: a grid of fewer than two blocks per SM leaves SMs idle, so small grids get smaller blocks.
inline constexpr int kLargeGridBlock = 256;
inline constexpr int kMediumGridBlock = 128;
inline constexpr int kMinBlocksPerSm = 2;

inline int smallest_full_occupancy_block(const DeviceProps& device) {
  const int threads = device.max_threads_per_sm > 0 ? device.max_threads_per_sm : kDefaultThreadsPerSm;
  const int blocks = device.max_blocks_per_sm > 0 ? device.max_blocks_per_sm : kDefaultBlocksPerSm;
  const int block = (threads / blocks + 31) / 32 * 32;  // 64 on Hopper, 192 on Fermi
  return std::clamp(block, 32, 1024);
}

inline int spread_block(int64_t threads, const DeviceProps& device) {
  const int64_t sms = std::max(1, device.sm_count);
  const int floor_block = smallest_full_occupancy_block(device);
  for (int block : {kLargeGridBlock, kMediumGridBlock})
    if (threads >= kMinBlocksPerSm * sms * block) return std::max(block, floor_block);
  return floor_block;
}

inline EllrTChoice ellr_t_choice(const MatrixStats& stats, const DeviceProps& device) {
  // Step 1: from the average row length.
  int t = threads_for_average_row(stats.avg_row);
  // Step 2: small matrices. Fewer rows × T threads than the device keeps resident leave SMs without
  // loads in flight; doubling T doubles the threads and halves each group's walk. Stop while an
  // average row still gives every thread of the group a slot (2T <= avg_row).
  const int64_t resident = resident_threads(device);
  while (t < 32 && stats.rows * t < resident && 2.0 * t <= stats.avg_row) t *= 2;
  // Step 3: a few very long rows (Maragal_6: one row of 5941 among rows of 25). The group of the
  // longest row is the critical path once its serial walk outlasts streaming the matrix.
  const int64_t budget = serial_slot_budget(stats, device);
  while (t < 32 && (stats.max_row + t - 1) / t > budget) t *= 2;
  return {t, spread_block(std::max<int64_t>(1, stats.rows) * t, device)};
}

}  // namespace spx::cuda::detail
