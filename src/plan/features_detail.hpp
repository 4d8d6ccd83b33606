// The pieces of spx::features that the host pass (src/plan/features.cpp) and the device pass
// (src/cuda/plan/features.cu) share, so that both give the same numbers: the per-row and per-nonzero
// rules (__host__ __device__ under nvcc) and the host functions that finish the device's counts
// (defined in features.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/splitmix64.hpp"
#include "cuda/common/host_device.hpp"
#include "spx/features.hpp"

#if !defined(__CUDA_ARCH__)
#include <algorithm>
#include <bit>
#endif

namespace spx::detail::feature_rules {

// log2 of the columns in one sector of granularity g: 8 floats per 32 bytes (kF32), 4 doubles
// (kF64), one column (kColumn).
SPX_HOST_DEVICE constexpr int sector_shift(int g) {
  return g == MatrixFeatures::kF32 ? 3 : g == MatrixFeatures::kF64 ? 2 : 0;
}

// Bit of a window's linear-counting bitmap that an x sector sets.
SPX_HOST_DEVICE constexpr unsigned window_bitmap_bit(uint64_t sector) {
  return static_cast<unsigned>(splitmix64_mix(sector) & (MatrixFeatures::kWindowBitmapBits - 1));
}

// Bucket of a row of `len` nonzeros: 0 for an empty row, else bit_width(len) = b for len in
// [2^(b-1), 2^b), clamped to the last bucket.
SPX_HOST_DEVICE inline int length_bucket(uint64_t len) {
  if (len == 0) return 0;
#if defined(__CUDA_ARCH__)
  const int width = 64 - __clzll(static_cast<long long>(len));
  return width < MatrixFeatures::kBuckets - 1 ? width : MatrixFeatures::kBuckets - 1;
#else
  return std::min(static_cast<int>(std::bit_width(len)), MatrixFeatures::kBuckets - 1);
#endif
}

SPX_HOST_DEVICE inline int popcount64(uint64_t w) {
#if defined(__CUDA_ARCH__)
  return __popcll(w);
#else
  return std::popcount(w);
#endif
}

// Column bitset words (bit b of word j = column 64j + b, or 32j + b for 32-bit words widened to 64):
// the f32 sectors are its bytes (8 columns), the f64 sectors its nibbles (4 columns), the column
// "sectors" its bits; a sector is touched when any of its bits is set. Folding each byte (nibble)
// onto its lowest bit counts them.
SPX_HOST_DEVICE inline int nonzero_bytes(uint64_t w) {
  w |= w >> 4;
  w |= w >> 2;
  w |= w >> 1;
  return popcount64(w & 0x0101010101010101ULL);
}
SPX_HOST_DEVICE inline int nonzero_nibbles(uint64_t w) {
  w |= w >> 2;
  w |= w >> 1;
  return popcount64(w & 0x1111111111111111ULL);
}
// Sectors of granularity g (sector_shift(g)) with a column in the bitset word w.
SPX_HOST_DEVICE inline int touched_sectors(uint64_t w, int g) {
  return g == MatrixFeatures::kF32   ? nonzero_bytes(w)
         : g == MatrixFeatures::kF64 ? nonzero_nibbles(w)
                                     : popcount64(w);
}

// A window's estimate from its table entry (linear_counting_table()[z]) and its row sectors s (the
// sum over its rows of their distinct sectors, counted exactly): s bounds the window's distinct
// sectors from above, so it caps the estimate, and it is the estimate when the bitmap is full.
SPX_HOST_DEVICE constexpr int64_t window_estimate(int64_t row_sectors, int64_t table_entry) {
  return row_sectors < table_entry ? row_sectors : table_entry;
}

// --- Host functions (features.cpp), used by both passes ---

// Linear counting's estimate for z bits set out of 4096, z = 0..4096: round(-4096 ln(1 - z/4096));
// entry 4096 (a full bitmap, no estimate) is INT64_MAX, so window_estimate gives the row sectors.
// Both sides look the entry up here (the device gets a copy), so no log rounds differently.
const std::vector<int64_t>& linear_counting_table();

// Bell & Garland's width needs the row-length histogram only up to top = 3*nnz/rows + 1 (no width
// above 3*nnz/rows qualifies; longer rows share the top bin); -1 when rows < 4096 (width 0).
int64_t hyb_top_bin(int64_t rows, int64_t nnz);

struct HybSplit {
  int64_t width = 0;    // spx::hyb_ell_width's rule
  int64_t ell_nnz = 0;  // sum over rows of min(length, width)
};
// From hist[k] = rows of length k (k < top) and hist[top] = rows of length >= top (top = the last
// index, hyb_top_bin); an empty histogram (rows < 4096) gives {0, 0}.
HybSplit hyb_split(int64_t rows, std::span<const int64_t> hist);

}  // namespace spx::detail::feature_rules
