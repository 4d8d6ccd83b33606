// Sparse × dense products on the GPU (FastSpMM, Ortega et al.; docs/spmm.md): C = alpha*A*B + beta*C
// with A sparse (ELLPACK-R or CSR, on the device) and B, C dense. beta == 0 never reads C; alpha == 0
// reads neither A nor B. B and C may be row-major (the fast layout: a row of B is contiguous, so a
// thread group reads it with wide loads) or column-major; B and C need not share a layout.
// Calls only enqueue work on ctx.stream(). Instantiated for float/double with int32_t indices.
//
// The dense operands are passed as non-owning views, so the same kernels serve device-resident
// matrices (view(DeviceDense)) and the column chunks of the host-resident path (spmm_host.hpp).
#pragma once

#include <cstdint>
#include <string>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/matrix.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {

// A rows × cols dense matrix in device memory that the view does not own. Element (i, j) is at
// data[i * ld + j] (RowMajor) or data[i + j * ld] (ColMajor); ld >= cols (RowMajor) or >= rows.
template <class T>
struct DenseView {
  T* data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
  Layout layout = Layout::RowMajor;
};

template <class T>
DenseView<T> view(DeviceDense<T>& D) {
  return {D.data.data(), D.rows, D.cols, D.ld, D.layout};
}
template <class T>
DenseView<const T> view(const DeviceDense<T>& D) {
  return {D.data.data(), D.rows, D.cols, D.ld, D.layout};
}
// Columns [first, first + count) of D as a view of its own (a column chunk).
template <class T>
DenseView<T> column_slice(DenseView<T> D, int64_t first, int64_t count);

// --- SSFastSpMM: ELLR-T SpMM (the paper's Algorithm 1) -----------------------------------------
// T consecutive threads share a row of A (slots p, p+T, ... below row_len); each thread keeps the
// partial sums of `cols_per_pass` (L_c) columns of C in registers and the group combines them with
// warp shuffles; the grid makes ceil(L / L_c) passes over A (blockIdx.y), so A is read
// ceil(L / L_c) times and B once.
// A pass with fewer than L_c columns left (L = 100, L_c = 32: the last 4) runs the same kernel with
// guarded scalar accesses; column-major or misaligned B uses that path for every pass.
struct SpmmEllrConfig {
  int threads_per_row = 4;  // T: 1, 2, 4, 8, 16 or 32
  int block_size = 256;     // BS: a multiple of 32, 32..256 (registers: docs/spmm.md)
  int cols_per_pass = 8;    // L_c: 1, 2, 4, 8, 16 or 32
};
void check_spmm_ellr_config(const SpmmEllrConfig& config);  // spx::Error naming the bad field
std::string to_string(const SpmmEllrConfig& config);

// The Hopper rule for (T, BS, L_c) from the matrix statistics and L (docs/spmm.md has the study).
SpmmEllrConfig spmm_ellr_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device);

template <class T, class I>
void spmm_ellr_t(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                 const SpmmEllrConfig& config, T alpha = T{1}, T beta = T{0});

// --- CSR SpMM: for matrices whose ELLPACK-R padding is wasteful ---------------------------------
// A group of threads_per_row (G) lanes owns a row and a pass of cols_per_pass (L_c) columns of C:
// each lane owns V = cols_per_lane consecutive columns (by default max(1, L_c / G); vector loads of a
// row segment of B), the W = L_c / V column lanes cover the pass, and the G / W lanes that share a
// column split the row's nonzeros (summed with a shuffle reduction). So with the default V and
// L_c >= G a whole group reads one contiguous row segment of B per nonzero, with no reduction at
// all. Two ways to spread the rows:
//  * row-split (tile_items == 0): a group per row; rows longer than long_row_nnz are left to a second
//    kernel that spreads each of them over the whole grid (atomicAdd into C, so their summation
//    order varies from run to run; every other row is deterministic);
//  * balanced (tile_items > 0): a warp per tile of rows and nonzeros, one launch, deterministic.
struct SpmmCsrConfig {
  int threads_per_row = 8;  // G: a power of two 1..32
  int block_size = 256;     // a multiple of 32, 32..256
  int cols_per_pass = 8;    // L_c: a power of two 1..64, with L_c / G <= 8 columns per lane
  // >= 32: rows with more nonzeros are cut into chunks of this many for the long-row kernel;
  // INT_MAX (what spmm_csr_rule gives when no row is that long) skips that pass altogether.
  // Row-split mode only (tile_items == 0).
  int long_row_nnz = 1 << 14;
  // 0: row-split mode (a group per row, the long-row list above). >= 32: balanced mode — one warp
  // per tile of this many items (rows and nonzeros together), rows longer than it cut at the tile
  // boundaries and their pieces added in tile order by the last one to finish: one launch, the same
  // work per warp whatever the row lengths, every row summed in a fixed order (docs/spmm.md).
  int tile_items = 0;
  // V: columns of C each lane owns, a power of two 1..8 with L_c / V <= G (the group's other lanes
  // split the row's nonzeros: S = G / (L_c / V) lanes per column, reduced by shuffles); 0 = L_c / G
  // (at least 1; no split unless G > L_c).
  int cols_per_lane = 0;
};
void check_spmm_csr_config(const SpmmCsrConfig& config);
std::string to_string(const SpmmCsrConfig& config);
// Balanced mode when some row is longer than one group should walk and the matrix is large or L > 8;
// row-split otherwise (docs/spmm.md has the H100 measurements behind each step). value_bytes is the
// size of the value type (4: float, 8: double): the width of B loads per lane depends on it.
SpmmCsrConfig spmm_csr_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device,
                            int value_bytes);
// The rule's tile size for balanced mode (what spmm_csr_rule puts in tile_items when it picks it).
int spmm_csr_tile_items(const MatrixStats& stats, const DeviceProps& device);

template <class T, class I>
void spmm_csr(Context& ctx, const DeviceCsr<T, I>& A, DenseView<const T> B, DenseView<T> C,
              const SpmmCsrConfig& config, T alpha = T{1}, T beta = T{0});

// --- SetSpMVs: L ELLR-T SpMVs, one per column (the paper's baseline) ----------------------------
// B and C must be column-major (each column is a contiguous vector).
// The overload without a config uses the ELLR-T SpMV rule with the row statistics the EllR knows
// (width as the longest row); pass an EllrTConfig (ellr_t_rule(stats, ...)) for the tuned one.
template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                    T alpha = T{1}, T beta = T{0});
template <class T, class I>
void spmm_set_spmvs(Context& ctx, const DeviceEllR<T, I>& A, DenseView<const T> B, DenseView<T> C,
                    const EllrTConfig& config, T alpha = T{1}, T beta = T{0});

// --- Choosing the format ------------------------------------------------------------------------
enum class SpmmFormat { EllR, Csr };
// EllR unless the ELLPACK-R slab would be too large (more than 64 slots per nonzero or 2^28
// slots: ELLPACK-R never reads its padding, so padding costs memory, not time), the rows are
// short and uniform (average below 6.5, where CSR's lanes-own-columns layout wins) or their
// lengths spread by more than 0.6 of the average. Fitted on the H100: src/cuda/spmm/spmm_rules.hpp
// and docs/spmm.md.
// This one answers for L <= 8 columns (or for a matrix alone).
SpmmFormat spmm_format_rule(const MatrixStats& stats);
// With the number of columns: CSR also when L > 8, where the CSR kernel's lanes-own-columns reads
// of B beat ELLR-T's per-thread L_c-wide loads on every matrix measured (docs/spmm.md).
SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols);
// With the device (what spx's own entry points use): CSR also for a matrix small for the device
// (rows at most a quarter of its resident threads), where the CSR rule's widened row-split groups
// beat ELLR-T, and for every matrix at L = 5..8, where the CSR rule's split rows beat it on all the
// large matrices measured (H100; ELLR-T stays for L <= 4 on larger matrices, not measured).
SpmmFormat spmm_format_rule(const MatrixStats& stats, int64_t dense_cols, const DeviceProps& device);

}  // namespace spx::cuda
