// The knobs of every spx CUDA kernel, as data: small structs that the fixed rules (spx/plan/rules.hpp), the
// tuner and callers produce and the kernels obey, with their checks and text forms. Host code with
// no CUDA dependency, so the rules and their tests build everywhere; the kernels that take these
// are declared in spmv_csr.hpp, spmv_formats.hpp, spmv_segsum.hpp, spmv_bsr.hpp and spmm.hpp.
#pragma once

#include <climits>
#include <string>

namespace spx::cuda {

// One convention for every struct here: invalid_reason(p) is empty when p is valid, else one line
// naming the field and its value ("coop 3 is not a power of two in 1..32"); validate(p, who) throws
// spx::Error "who: <that line>" (who: the kernel, by default).

// --- Parametrised CSR SpMV (Reguly & Giles §4; spmv_csr.hpp) -----------------------------------
struct CsrSpmvParams {
  int block_size = 256;  // threads per block: a multiple of 32 in 64..1024
  int coop = 4;          // threads cooperating on one row: 1, 2, 4, 8, 16 or 32 (a compiled variant each)
  int repeat = 1;        // batches of rows per block (rows per thread group), 1..1024

  friend bool operator==(const CsrSpmvParams&, const CsrSpmvParams&) = default;
};
std::string invalid_reason(const CsrSpmvParams& p);
void validate(const CsrSpmvParams& p, const char* who = "spmv_csr_param");
// "block_size=256 coop=4 repeat=1"
std::string to_string(const CsrSpmvParams& p);

// CSR-vector (Bell & Garland 2008): one warp per row, blocks of 256.
inline constexpr CsrSpmvParams kCsrVectorParams{256, 32, 1};

// --- ELLR-T SpMV (Vázquez et al.; spmv_formats.hpp) --------------------------------------------
struct EllrTParams {
  int threads_per_row = 1;  // T: 1, 2, 4, 8, 16 or 32
  int block_size = 256;     // BS: a multiple of 32, 32..1024
};
std::string invalid_reason(const EllrTParams& p);
void validate(const EllrTParams& p, const char* who = "spmv_ellr_t");

// --- COO SpMV by segmented reduction (spmv_formats.hpp) -----------------------------------------
struct CooParams {
  bool deterministic = true;
  int nnz_per_warp = 256;  // a multiple of 32, 32..2^20
  int block_size = 256;    // a multiple of 32, 32..512
};
std::string invalid_reason(const CooParams& p);
void validate(const CooParams& p, const char* who = "spmv_coo");

// --- BSR SpMV (spmv_bsr.hpp) ----------------------------------------------------------------------
// A group of b x Q lanes per block row (b: the BSR block size): lane (r, q) walks blocks q, q+Q, ...
// of its block row, reading row r of each. A group lives in one warp: b x Q <= kBsrMaxGroupLanes.
inline constexpr int kBsrMaxGroupLanes = 32;
struct BsrSpmvParams {
  int lanes_per_row = 1;  // Q: a power of two with b x Q <= kBsrMaxGroupLanes
  int block_size = 256;   // threads per CUDA block: a multiple of 32 in 32..1024
};
// For BSR blocks of `block` (kBsrMinBlock..kBsrMaxBlock, spx/bsr.hpp).
std::string invalid_reason(const BsrSpmvParams& p, int block);
void validate(const BsrSpmvParams& p, int block, const char* who = "spmv_bsr");

// --- Segmented-sum SpMV (Liu & Vinter; spmv_segsum.hpp) -----------------------------------------
// A tile is 32 lanes × nnz_per_lane nonzeros; a warp takes tiles_per_warp consecutive tiles. 0 (and
// -1 for complete_rows_up_to) means "chosen at plan time" by the segsum rule (spx/plan/rules.hpp).
struct SegsumSpmvParams {
  // T: a multiple of 4 in 4..32, or 0 = from the matrix (the rule: the largest tile that still
  // gives every resident warp slot of the GPU one tile; smaller when many tiles are dirty).
  int nnz_per_lane = 0;
  // S: 1..4096, or 0 = chosen at plan time.
  int tiles_per_warp = 0;
  int block_size = 128;  // a multiple of 32 in 32..512
  // Row completion instead of the synchronizer (one launch instead of two): the warp holding a
  // row's first nonzero also sums the row's nonzeros past its last tile when they are at most
  // this many; the warps sharing a longer row add their partials by arrival (the last to arrive
  // sums them). Rows are completed by the kernel that stages its tiles in shared memory (cp.async),
  // made for the small grids where completion pays. > 0: always complete rows, with this limit;
  // 0: never (the synchronizer and its kernel, made for large grids); -1 = auto: complete rows with
  // the rule's limit when the grid is at most the rule's number of waves of resident warps.
  int complete_rows_up_to = -1;
};
std::string invalid_reason(const SegsumSpmvParams& p);
void validate(const SegsumSpmvParams& p, const char* who = "spmv_segsum");
// "nnz_per_lane=16 tiles_per_warp=4 block_size=256 complete_rows_up_to=-1"
std::string to_string(const SegsumSpmvParams& p);

// --- SpMM (FastSpMM; spmm.hpp) --------------------------------------------------------------------
enum class SpmmFormat { EllR, Csr };

// Kernel limits of both SpMM kernels: blocks of at most 256 threads, so that __launch_bounds__(256)
// leaves a thread up to 255 registers (L_c = 32 f64 partial sums plus a row of B in flight need
// them; 1024 would cap it at 64 and spill), and at most 8 columns of C per thread of a CSR group.
inline constexpr int kSpmmMaxBlock = 256;
inline constexpr int kSpmmEllrMaxColsPerPass = 32;
inline constexpr int kSpmmCsrMaxColsPerPass = 64;
inline constexpr int kSpmmCsrMaxColsPerThread = 8;
// SpmmCsrParams::long_row_nnz when no row is long: spmm_csr skips the long-row list, its memset and
// the second kernel.
inline constexpr int kSpmmNoLongRows = INT_MAX;

// SSFastSpMM: T consecutive threads share a row of A; each keeps L_c columns of C in registers; the
// grid makes ceil(L / L_c) passes over A.
struct SpmmEllrParams {
  int threads_per_row = 4;  // T: 1, 2, 4, 8, 16 or 32
  int block_size = 256;     // BS: a multiple of 32, 32..256 (kSpmmMaxBlock)
  int cols_per_pass = 8;    // L_c: 1, 2, 4, 8, 16 or 32
};
std::string invalid_reason(const SpmmEllrParams& p);
void validate(const SpmmEllrParams& p, const char* who = "spmm_ellr_t");
std::string to_string(const SpmmEllrParams& config);

// CSR SpMM: a group of G lanes owns a row and a pass of L_c columns of C; each lane owns V columns
// (spmm.hpp describes the two modes).
struct SpmmCsrParams {
  int threads_per_row = 8;  // G: a power of two 1..32
  int block_size = 256;     // a multiple of 32, 32..256 (kSpmmMaxBlock)
  int cols_per_pass = 8;    // L_c: a power of two 1..64, with L_c / G <= 8 columns per lane
  // >= 32: rows with more nonzeros are cut into chunks of this many for the long-row kernel;
  // kSpmmNoLongRows (what spmm_csr_rule gives when no row is that long) skips that pass altogether.
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
std::string invalid_reason(const SpmmCsrParams& p);
void validate(const SpmmCsrParams& p, const char* who = "spmm_csr");
std::string to_string(const SpmmCsrParams& config);

}  // namespace spx::cuda
