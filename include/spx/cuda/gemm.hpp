// spx's dense GEMM on device pointers: C = alpha*op(A)*op(B) + beta*C, BLAS column-major, the same
// contract as spx::ref::gemm and cuBLAS (see docs/dgemm.md for the kernel design). In f64 the default
// (Auto) runs spx's version 3 or hands the product to cuBLAS's DGEMM, whichever the plan's model
// predicts faster for the shape (gemm_plan in spx/plan/rules.hpp; `spx gemm M N K --explain` says which and
// why), or the FP64 emulation on INT8 tensor cores where that is predicted faster still
// (gemm_emulation.hpp); in f32 it runs cuBLAS's SGEMM. An explicit version runs spx's own kernels only.
//
// m, n, k >= 0; lda >= max(1, op_a == N ? m : k), ldb >= max(1, op_b == N ? k : n), ldc >= max(1, m),
// else spx::Error. m == 0 or n == 0 does nothing; k == 0 or alpha == 0 only scales C by beta (A and
// B are not read and may be null); beta == 0 never reads C, so NaN there does not survive. The
// product is enqueued on ctx.stream() only; the emulated path also waits once on the host for the
// inputs' statistics (their width decides the moduli).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "spx/cpu.hpp"
#include "spx/cuda/context.hpp"

namespace spx::cuda {

enum class GemmVersion {
  Auto,          ///< double: TensorCoreV3 or cuBLAS's DGEMM, by the plan's model; float: cuBLAS's SGEMM
  CudaCoreV1,    ///< Tan et al.'s blocking on the CUDA cores: 128x128x8 slabs, 8x8 register tiles
  TensorCoreV2,  ///< the same slabs multiplied by FP64 tensor cores (mma m8n8k4 f64); double only
  TensorCoreV3,  ///< FP64 tensor cores (mma m16n8k4 f64), cp.async pipeline, 3 tiles, split-k; double only
};

/// The spx version Auto stands for with operands of type T (the others stand for themselves): the
/// one its checks and errors name. Auto may run cuBLAS instead: for double where gemm_plan says so,
/// for float always.
template <class T>
constexpr GemmVersion resolve_gemm_version(GemmVersion version) {
  if (version != GemmVersion::Auto) return version;
  return sizeof(T) == sizeof(double) ? GemmVersion::TensorCoreV3 : GemmVersion::CudaCoreV1;
}

/// Version 3's block tile of C (docs/dgemm.md, "Shape classes"). Auto: the plan rule's choice
/// (gemm_rule in spx/plan/rules.hpp, by the shape of the product and the device). Warp tiles in brackets.
enum class GemmTile {
  Auto,
  T128x128,  ///< 256 threads [64 x 32], one block per SM: large grids
  T128x64,   ///< 256 threads [32 x 32], two blocks per SM: mid-size and short-k grids
  T64x64,    ///< 128 threads [32 x 32], three blocks per SM: small, skinny and split-k grids
  T64x32,    ///< 128 threads [32 x 16], 32-deep slabs, two blocks per SM: small grids, n small
  T32x64,    ///< 128 threads [16 x 32], 32-deep slabs, two blocks per SM: small grids, m small
  T32x32,    ///< 128 threads [16 x 16], 32-deep slabs, three blocks per SM: the smallest grids, long k
};
/// A tile's extents: bm × bn of C per block, bk of k per pipeline slab (splits cut k in whole slabs).
struct GemmTileShape {
  int bm, bn, bk;
};
/// Version 3's tiles: the one table of their names, extents and resident blocks per SM (the
/// kernels' launch bound). The kernels (src/cuda/gemm/) take their extents, bound and dispatch from
/// it; the plan rule counts tiles, slabs and resident blocks with it.
struct GemmTileRow {
  GemmTile tile;
  const char* name;
  GemmTileShape shape;
  int blocks_per_sm;
};
inline constexpr GemmTileRow kGemmTileTable[] = {
    {GemmTile::T128x128, "128x128", {128, 128, 16}, 1}, {GemmTile::T128x64, "128x64", {128, 64, 16}, 2},
    {GemmTile::T64x64, "64x64", {64, 64, 16}, 3},       {GemmTile::T64x32, "64x32", {64, 32, 32}, 2},
    {GemmTile::T32x64, "32x64", {32, 64, 32}, 2},       {GemmTile::T32x32, "32x32", {32, 32, 32}, 3},
};
/// The row of `tile`; null for Auto.
constexpr const GemmTileRow* gemm_tile_row(GemmTile tile) {
  for (const GemmTileRow& r : kGemmTileTable)
    if (r.tile == tile) return &r;
  return nullptr;
}
/// Every tile other than Auto, in the table's order.
inline constexpr auto kGemmTiles = [] {
  std::array<GemmTile, std::size(kGemmTileTable)> tiles{};
  for (std::size_t i = 0; i < tiles.size(); ++i) tiles[i] = kGemmTileTable[i].tile;
  return tiles;
}();
// Every enumerator but Auto once, in order, with positive figures (a new tile is a new row).
static_assert(std::size(kGemmTileTable) == static_cast<std::size_t>(GemmTile::T32x32));
static_assert([] {
  for (std::size_t i = 0; i < std::size(kGemmTileTable); ++i) {
    const GemmTileRow& r = kGemmTileTable[i];
    if (r.tile != static_cast<GemmTile>(i + 1) || r.shape.bm <= 0 || r.shape.bn <= 0 || r.shape.bk <= 0 ||
        r.blocks_per_sm <= 0)
      return false;
  }
  return true;
}());
GemmTileShape gemm_tile_shape(GemmTile tile);  ///< an spx::Error for Auto
/// The tile a name gives ("auto", "128x128", …, "32x32", as gemm_tile_name writes them); an
/// spx::Error naming every valid name otherwise.
GemmTile gemm_tile_from_name(std::string_view name);
const char* gemm_tile_name(GemmTile tile);  ///< "auto", "128x128", "128x64", "64x64", "64x32", ...

/// Tuning knobs are data: the version to run, and version 3's tile and k splits. The defaults (Auto,
/// Auto, 0) pick per type and per shape (gemm_rule, also for an explicit TensorCoreV3); tile and
/// split_k other than Auto / 0 apply to version 3 only (an spx::Error for v1/v2 or float).
/// split_k: 0 = the rule's choice, 1 = none, s > 1 = k cut into s parts of whole slabs (bk deep)
/// (fewer when k has fewer slabs), each part's partial written to ctx.workspace() (s × m × n
/// doubles) and summed in a fixed order; at most kMaxGemmSplitK. TensorCoreV2/V3 with float is an
/// spx::Error.
inline constexpr int kMaxGemmSplitK = 4096;
// FP64 emulated on the INT8 tensor cores (Ozaki scheme II; gemm_emulation.hpp, docs/dgemm.md
// "Emulated DGEMM"): a candidate of Auto in f64 only (version Auto, tile Auto, split_k 0; otherwise
// an spx::Error unless Auto). Never: native only. Always: emulate wherever the inputs allow (Inf/NaN
// or an exponent spread the error bound cannot certify run native, with the reason in
// gemm_emulation_last()).
enum class GemmEmulation { Auto, Never, Always };
struct GemmParams {
  GemmVersion version = GemmVersion::Auto;
  GemmTile tile = GemmTile::Auto;
  int split_k = 0;
  GemmEmulation emulation = GemmEmulation::Auto;
  bool operator==(const GemmParams&) const = default;
};

/// "spx_gemm_v1", "spx_gemm_v2", "spx_gemm_v3" — the kernel names `spx bench` reports — and
/// "spx_gemm" for Auto (what runs depends on the type and in f64 on the shape: v3 or cuBLAS by
/// gemm_plan; in f32 cuBLAS's SGEMM).
const char* kernel_name(GemmVersion version);

template <class T>
void gemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
          const T* B, int64_t ldb, T beta, T* C, int64_t ldc, const GemmParams& params = {});

}  // namespace spx::cuda
