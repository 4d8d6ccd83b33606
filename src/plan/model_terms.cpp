// The model's terms per kernel (spx/model.hpp): what each kernel streams, gathers and walks, from
// the matrix features and the parameters the kernel's fixed rule gives it (spx/plan/rules.hpp), so the
// model sees the configuration that actually runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "plan/catalogue.hpp"
#include "plan/format_rcm.hpp"
#include "spx/error.hpp"
#include "spx/model.hpp"
#include "spx/plan/rules.hpp"

namespace spx::model {
namespace {

constexpr double kIndexBytes = 4;
constexpr double kSectorBytes = 32;
// The serial walk's time per slot, as the launch-shape rules assume it (µs).
const double kUsPerSerialSlot = plan::default_rule_tables().launch.ns_per_serial_slot / 1e3;
// The COO chunk per warp of the COO SpMV and of HYB's COO tail: both run the default CooParams.
constexpr double kCooNnzPerWarp = cuda::CooParams{}.nnz_per_warp;

}  // namespace

DeviceBasics device_basics(const cuda::DeviceProps& props) {
  DeviceBasics d;  // the H100 SXM's figures
  d.name = props.name;
  if (props.sm_count > 0) d.sm_count = props.sm_count;
  if (props.max_threads_per_sm > 0) d.threads_per_sm = props.max_threads_per_sm;
  if (props.max_blocks_per_sm > 0) d.blocks_per_sm = props.max_blocks_per_sm;
  if (props.max_threads_per_block > 0) d.threads_per_block = props.max_threads_per_block;
  if (props.l2_bytes > 0) d.l2_bytes = static_cast<int64_t>(props.l2_bytes);
  return d;
}

cuda::DeviceProps device_props(const DeviceBasics& d) {
  cuda::DeviceProps p;
  p.name = d.name;
  p.sm_count = d.sm_count;
  p.max_threads_per_sm = d.threads_per_sm;
  p.max_blocks_per_sm = d.blocks_per_sm;
  p.max_threads_per_block = d.threads_per_block;
  p.l2_bytes = static_cast<std::size_t>(d.l2_bytes);
  return p;
}

MatrixStats rule_stats(const MatrixFeatures& f) {
  MatrixStats s;
  s.rows = f.rows;
  s.cols = f.cols;
  s.nnz = f.nnz;
  s.min_row = f.min_row;
  s.max_row = f.max_row;
  s.avg_row = f.avg_row();
  s.stddev_row = f.stddev_row();
  s.empty_rows = f.empty_rows;
  s.ell_padding_ratio =
      f.nnz > 0 ? static_cast<double>(f.rows) * static_cast<double>(f.max_row) / static_cast<double>(f.nnz)
                : 0.0;
  return s;
}

namespace {

double ceil_div(double a, double b) { return b > 0 ? std::ceil(a / b) : 0.0; }

// Launches of the COO SpMV beyond its chunk kernel (src/cuda/spmv/coo.cu): the boundary kernel that
// joins rows split between chunks, which a single chunk does without.
double coo_boundary_launches(double nnz) { return ceil_div(nnz, kCooNnzPerWarp) > 1 ? 1 : 0; }

// The shape of one kernel's work, before the device's rates turn it into times.
struct Counts {
  double matrix_bytes = 0;    // the kernel's copy of A it reads (per pass)
  double passes = 1;          // reads of A (SpMM: column passes)
  double dense_in_bytes = 0;  // x or B read once (first touch of each sector)
  double out_bytes = 0;       // y or C written
  double row_gather = 0;      // bytes of x (B) fetched row by row through L2
  double window_gather = 0;   // bytes fetched by 32-row windows through L2
  double serial_slots = 0;    // the longest serial walk of one thread group
  double units = 0;           // threads of the grid (for the waves term)
  double extra_launches = 0;  // launches beyond the first
};

Counts counts_of(const KernelKey& key, const MatrixFeatures& f, const cuda::DeviceProps& props,
                 double format_matrix_bytes) {
  const double v = key.value_bytes;
  const int p = key.value_bytes == 4 ? MatrixFeatures::kF32 : MatrixFeatures::kF64;
  const double rows = static_cast<double>(f.rows), nnz = static_cast<double>(f.nnz);
  const double rows_padded = std::ceil(rows / 32) * 32;
  const MatrixStats s = rule_stats(f);
  const plan::ModelKeyRow* row = plan::find_model_key(key.kernel);
  if (row == nullptr || row->op != (key.cols_dense == 0 ? plan::Operation::Spmv : plan::Operation::Spmm))
    throw Error(
        fmt::format("model: no {} model for kernel '{}'", key.cols_dense == 0 ? "SpMV" : "SpMM", key.kernel));
  using plan::Work;
  Counts w;
  const double csr_bytes = nnz * (v + kIndexBytes) + (rows + 1) * kIndexBytes;
  if (key.cols_dense == 0) {
    w.dense_in_bytes = static_cast<double>(f.x_sectors[p]) * kSectorBytes;
    w.out_bytes = rows * v;
    w.row_gather = static_cast<double>(f.row_sectors[p]) * kSectorBytes;
    w.window_gather = static_cast<double>(f.window_sectors[p]) * kSectorBytes;
    // SELL-C16's slab (and its dictionary's, whose bytes the planner gives): a uint16 offset a slot,
    // a 32-bit base column a row, a 64-bit slot position a slice (sell_c16_stream_bytes); the
    // launch's lanes per row split each row's serial walk.
    const auto sell_c16_slab = [&] {
      w.matrix_bytes = format_matrix_bytes > 0 ? format_matrix_bytes
                                               : static_cast<double>(f.sell_slots) * (v + 2) +
                                                     rows * kIndexBytes + (rows_padded / 32 + 1) * 8;
      const int lanes = plan::sell_c16_lanes(f.rows, f.sell_slots, props);
      w.serial_slots = static_cast<double>(f.max_row) / lanes;
      w.units = rows * lanes;
    };
    if (row->work == Work::RcmCsr) {
      // csr_param on the renumbered matrix, its x gathers as estimated after RCM; the gather of x
      // and the scatter of y each touch one random sector per row (y read and written), and stream
      // the permutation twice, x' and y' once each way.
      const MatrixFeatures g = plan::rcm_reordered_features(f, key.value_bytes);
      const cuda::CsrSpmvParams c = plan::csr_fixed_rule(s, props);
      const int64_t threshold = plan::csr_long_row_threshold(f.nnz, c, props);
      w.matrix_bytes = csr_bytes + 2 * rows * kIndexBytes;
      w.out_bytes = 4 * rows * v;
      w.row_gather = (static_cast<double>(g.row_sectors[p]) + 3 * rows) * kSectorBytes;
      w.window_gather = static_cast<double>(g.window_sectors[p]) * kSectorBytes;
      w.serial_slots = static_cast<double>(std::min(f.max_row, threshold)) / c.coop;
      w.units = rows * c.coop;
      w.extra_launches = 2;
    } else if (row->work == Work::RcmSellC16) {
      // SELL-C16 (or its dictionary) on the renumbered matrix, its x' gathers as estimated after RCM;
      // the gather of x touches one random sector a row, and so does the write of y through the
      // permutation; the permutation is streamed twice, x' written and read once. Those two random
      // sectors a row go to DRAM (they are the matrix's size in sectors, never L2-resident), so they
      // count as streamed bytes: on ELL's gather coefficient the model had put a shuffled 2D mesh
      // in f64 at 43 us, below its byte floor (84 us at copy bandwidth; measured 101, H200).
      const MatrixFeatures g = plan::rcm_reordered_features(f, key.value_bytes);
      sell_c16_slab();
      w.matrix_bytes += 2 * rows * kIndexBytes + 2 * rows * kSectorBytes;
      w.out_bytes = 2 * rows * v;
      w.row_gather = static_cast<double>(g.row_sectors[p]) * kSectorBytes;
      w.window_gather = static_cast<double>(g.window_sectors[p]) * kSectorBytes;
      w.extra_launches = 1;
    } else if (row->work == Work::CsrParam) {
      const cuda::CsrSpmvParams c = plan::csr_fixed_rule(s, props);
      const int64_t threshold = plan::csr_long_row_threshold(f.nnz, c, props);
      // csr_param_mixed's float values: its format's bytes (4 + 4 a nonzero).
      w.matrix_bytes = format_matrix_bytes > 0 ? format_matrix_bytes : csr_bytes;
      w.serial_slots = static_cast<double>(std::min(f.max_row, threshold)) / c.coop;
      w.units = rows * c.coop;
    } else if (row->work == Work::CsrC16) {
      // Every row taken as narrow (the features do not hold the column spans; the planner admits
      // CSR-C16 only when at most c16_max_escape_share of the nonzeros are not): 2 index bytes a
      // nonzero, a row pointer and a base column a row. Long rows leave for the escape warps, as
      // csr_param's for its long-row path.
      const cuda::CsrSpmvParams c = plan::csr_fixed_rule(s, props);
      const int64_t threshold = plan::csr_long_row_threshold(f.nnz, c, props);
      w.matrix_bytes = nnz * (v + 2) + rows * 2 * kIndexBytes + kIndexBytes;
      w.serial_slots = static_cast<double>(std::min(f.max_row, threshold)) / c.coop;
      w.units = rows * c.coop;
    } else if (row->work == Work::CsrWarpPerRow) {
      w.matrix_bytes = csr_bytes;
      w.serial_slots = static_cast<double>(f.max_row) / 32;
      w.units = rows * 32;
    } else if (row->work == Work::CsrBalanced) {
      w.matrix_bytes = csr_bytes;
      w.units = nnz / 16;  // nonzero-balanced: a lane per ~16 nonzeros
    } else if (row->work == Work::Segsum) {
      w.matrix_bytes = csr_bytes;
      const int npl = plan::segsum_nnz_per_lane(f.nnz, props);
      const double warps = ceil_div(nnz, 32.0 * npl);
      w.units = warps * 32;
      // The synchronizer's second launch where the grid is too large to complete rows.
      w.extra_launches = plan::segsum_completes_rows(static_cast<int64_t>(warps), props) ? 0 : 1;
    } else if (row->work == Work::Coo) {
      w.matrix_bytes = nnz * (v + 2 * kIndexBytes);
      w.units = ceil_div(nnz, kCooNnzPerWarp) * 32;
      w.extra_launches = coo_boundary_launches(nnz);
    } else if (row->work == Work::Ell) {
      w.matrix_bytes = rows_padded * static_cast<double>(f.max_row) * (v + kIndexBytes);
      w.serial_slots = static_cast<double>(f.max_row);
      w.units = rows;
    } else if (row->work == Work::EllrT) {
      const cuda::EllrTParams c = plan::ellr_t_rule(s, props);
      w.matrix_bytes = nnz * (v + kIndexBytes) + rows * kIndexBytes;
      w.serial_slots = static_cast<double>(f.max_row) / c.threads_per_row;
      w.units = rows * c.threads_per_row;
    } else if (row->work == Work::Hyb) {
      const double width = static_cast<double>(f.hyb_width);
      const double tail = nnz - static_cast<double>(f.hyb_ell_nnz);
      w.matrix_bytes = rows_padded * width * (v + kIndexBytes) + tail * (v + 2 * kIndexBytes);
      w.serial_slots = width;
      w.units = rows + ceil_div(tail, kCooNnzPerWarp) * 32;
      // A COO tail adds its chunk kernel to the ELL one, and its boundary kernel unless the tail is
      // one chunk (small matrices: one extra launch, not two).
      w.extra_launches = tail > 0 ? 1 + coo_boundary_launches(tail) : 0;
    } else if (row->work == Work::Bsr) {
      // The blocks' bytes come from the planner (the features do not count blocks). A sub-warp
      // group per block row: ~the row's nonzeros over 32 lanes of serial walk, as a warp per row.
      w.matrix_bytes = format_matrix_bytes > 0 ? format_matrix_bytes : csr_bytes;
      w.serial_slots = static_cast<double>(f.max_row) / 32;
      w.units = rows * 8;  // a group of b x Q lanes per b rows: Q (8 on FEM's block rows) per row
    } else if (row->work == Work::Sell) {
      w.matrix_bytes = static_cast<double>(f.sell_slots) * (v + kIndexBytes);
      w.serial_slots = static_cast<double>(f.max_row);
      w.units = rows;
    } else if (row->work == Work::SellC16) {
      sell_c16_slab();
    } else {
      throw Error(fmt::format("model: no SpMV work terms for kernel '{}'", key.kernel));
    }
    return w;
  }
  // SpMM with L columns (row-major B and C).
  const double L = static_cast<double>(key.cols_dense);
  w.dense_in_bytes = static_cast<double>(f.nonempty_cols) * L * v;
  w.out_bytes = rows * L * v;
  w.row_gather = nnz * L * v;  // every nonzero's row segment of B
  w.window_gather = static_cast<double>(f.window_sectors[MatrixFeatures::kColumn]) * L * v;
  if (row->work == Work::SpmmCsr) {
    const cuda::SpmmCsrParams c =
        plan::spmm_csr_config(row->csr_mode, s, key.cols_dense, props, key.value_bytes);
    w.matrix_bytes = csr_bytes;
    w.passes = ceil_div(L, c.cols_per_pass);
    // V columns per lane, L_c / V column lanes, the group's other lanes split the row's nonzeros.
    const int per_lane =
        c.cols_per_lane > 0 ? c.cols_per_lane : std::max(1, c.cols_per_pass / c.threads_per_row);
    const double splitting = std::max(1, c.threads_per_row / std::max(1, c.cols_per_pass / per_lane));
    const double longest = c.tile_items > 0
                               ? static_cast<double>(c.tile_items)
                               : static_cast<double>(std::min<int64_t>(f.max_row, c.long_row_nnz));
    w.serial_slots = longest / splitting;
    w.units = rows * c.threads_per_row * w.passes;
    // The long-row pass: a memset and a second kernel.
    w.extra_launches = c.tile_items == 0 && c.long_row_nnz != cuda::kSpmmNoLongRows ? 2 : 0;
  } else if (row->work == Work::SpmmEllrT) {
    const cuda::SpmmEllrParams c = plan::spmm_ellr_rule(s, key.cols_dense, props);
    w.matrix_bytes = nnz * (v + kIndexBytes) + rows * kIndexBytes;
    w.passes = ceil_div(L, c.cols_per_pass);
    w.serial_slots = static_cast<double>(f.max_row) / c.threads_per_row;
    w.units = rows * c.threads_per_row * w.passes;
  } else if (row->work == Work::VendorSpmmBest) {
    w.matrix_bytes = csr_bytes;
    w.serial_slots = static_cast<double>(f.max_row) / 32;
    w.units = rows * 32;
  } else {
    throw Error(fmt::format("model: no SpMM work terms for kernel '{}'", key.kernel));
  }
  return w;
}

}  // namespace

Terms terms(const KernelKey& key, const MatrixFeatures& f, const DeviceBasics& device, double matrix_bytes) {
  if (key.value_bytes != 4 && key.value_bytes != 8)
    throw Error(fmt::format("model: value_bytes must be 4 or 8, got {}", key.value_bytes));
  const cuda::DeviceProps props = device_props(device);
  const Counts w = counts_of(key, f, props, matrix_bytes);
  Terms t;
  const double stream = w.matrix_bytes * w.passes + w.dense_in_bytes + w.out_bytes;
  // The working set's L2-resident share: all of it below 3/4 of the L2 (warm runs then stream A
  // from L2), none above 1.5 L2 (LRU-like replacement thrashes), linear in between.
  const double working_set = w.matrix_bytes + w.dense_in_bytes + w.out_bytes;
  const double l2 = static_cast<double>(device.l2_bytes);
  const double resident = std::clamp((1.5 * l2 - working_set) / (0.75 * l2), 0.0, 1.0);
  const double us_per_byte_dram = 1.0 / (device.copy_gbs * 1e3);
  const double us_per_byte_l2 = 1.0 / (device.l2_gbs * 1e3);
  t.x[0] = 1.0;
  t.x[1] = stream * (1 - resident) * us_per_byte_dram;
  t.x[2] = stream * resident * us_per_byte_l2;
  t.x[3] = w.row_gather * us_per_byte_l2;
  t.x[4] = w.window_gather * us_per_byte_l2;
  t.x[5] = w.serial_slots * kUsPerSerialSlot;
  t.x[6] = ceil_div(w.units, static_cast<double>(plan::resident_threads(props)));
  t.x[7] = w.extra_launches;
  return t;
}

}  // namespace spx::model
