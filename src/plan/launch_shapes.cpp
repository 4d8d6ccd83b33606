// The device as the rules see it (its streaming bandwidth, its resident threads), and the launch
// shapes the ELLR-T and SpMM rules share.
#include <algorithm>
#include <cstdint>

#include "plan/rules_detail.hpp"
#include "spx/plan/rules.hpp"

namespace spx::plan {

double streaming_gbs(const cuda::DeviceProps& props) {
  const double datasheet = props.theoretical_bandwidth_gbs();
  return datasheet > 0 ? kStreamShareOfDatasheet * datasheet : model::DeviceBasics{}.copy_gbs;
}

int64_t resident_threads(const cuda::DeviceProps& props, int block_size, int warps_per_sm) {
  const model::DeviceBasics d = model::device_basics(props);
  int64_t per_sm = d.threads_per_sm;
  if (block_size > 0) {
    const int block = std::max(32, block_size);
    per_sm = std::max<int64_t>(1, std::min<int64_t>(d.blocks_per_sm, d.threads_per_sm / block)) * block;
  }
  if (warps_per_sm > 0) per_sm = std::min<int64_t>(per_sm, int64_t{warps_per_sm} * 32);
  return int64_t{d.sm_count} * per_sm;
}

int spread_block_size(int64_t threads, const cuda::DeviceProps& device, const RuleTables& tables) {
  return detail::spread_block(threads, device, tables);
}

namespace detail {

int step_for_average_row(const std::vector<AverageRowStep>& steps, double avg_row) {
  for (const AverageRowStep& step : steps)
    if (avg_row < step.avg_row_below) return step.value;
  return steps.empty() ? 1 : steps.back().value;
}

int64_t serial_slot_budget(const MatrixStats& stats, const cuda::DeviceProps& device,
                           const RuleTables& tables) {
  const LaunchShapeTable& t = tables.launch;
  const double stream_ns =
      static_cast<double>(stats.nnz) * t.bytes_per_nonzero / streaming_gbs(device);  // B / (GB/s) = ns
  return std::max(t.min_serial_slots, static_cast<int64_t>(stream_ns / t.ns_per_serial_slot));
}

int threads_per_row(const MatrixStats& stats, const cuda::DeviceProps& device, const RuleTables& tables,
                    const std::vector<AverageRowStep>& by_avg_row, double small_min_slots_per_thread) {
  // Step 1: T from the average row length.
  int threads = step_for_average_row(by_avg_row, stats.avg_row);
  // Step 2: small matrices. Fewer rows × T threads than the device keeps resident leave SMs without
  // loads in flight; doubling T doubles the threads and halves each group's walk, while an average
  // row still gives every thread of the group its slots.
  const int64_t resident = resident_threads(device);
  while (threads < 32 && stats.rows * threads < resident &&
         small_min_slots_per_thread * threads <= stats.avg_row)
    threads *= 2;
  // Step 3: a few very long rows. The group of the longest row is the critical path once its serial
  // walk outlasts streaming the matrix.
  const int64_t budget = serial_slot_budget(stats, device, tables);
  while (threads < 32 && (stats.max_row + threads - 1) / threads > budget) threads *= 2;
  return threads;
}

int smallest_full_occupancy_block(const cuda::DeviceProps& device) {
  const model::DeviceBasics d = model::device_basics(device);
  return std::clamp((d.threads_per_sm / d.blocks_per_sm + 31) / 32 * 32, 32, 1024);
}

int spread_block(int64_t threads, const cuda::DeviceProps& device, const RuleTables& tables) {
  const int64_t sms = model::device_basics(device).sm_count;
  const int floor_block = smallest_full_occupancy_block(device);
  for (int block : tables.launch.spread_blocks)
    if (threads >= tables.launch.min_blocks_per_sm * sms * block) return std::max(block, floor_block);
  return floor_block;
}

}  // namespace detail
}  // namespace spx::plan
