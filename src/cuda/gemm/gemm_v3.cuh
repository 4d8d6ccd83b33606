// GEMM version 3 (double only): FP64 tensor cores fed by a multi-stage cp.async pipeline.
//
// What changed from version 2 (docs/dgemm.md, "Design" and "The model with H100 numbers", derives
// the numbers; the rounds: bench/results/h100/gemm/NOTES.md, study log):
// - Staging: global → shared with cp.async (16-byte cp.async.cg, 8-byte cp.async.ca where the
//   operand's pointer or ld forbids 16-byte vectors), kStages slabs of kBK = 16 in flight — no
//   staging registers, and the global latency hides behind kStages - 1 slabs of DMMAs instead of one.
// - Shared layout follows the operand's stored layout (cp.async cannot transpose): an operand whose
//   contiguous dimension is the outer one (A with op N, B with op T) sits as [k][outer] rows of
//   128 + 4 doubles; one contiguous along k (A^T, B with op N) as [outer][k] rows of kBK + 4.
//   Both pads make the fragment loads conflict-free (Slab's static_assert).
// - MMA: mma.sync m16n8k4 f64 (sm_90, SASS DMMA.16x8x4; m16n8k8 is a Config option), 2× the work
//   of version 2's m8n8k4 per instruction; fragments double-buffered in registers across k steps.
// - Loaders: the interior of C (whole tile inside, 16-byte chunks allowed, full slab) takes an
//   unconditional 16-byte cp.async per chunk from a pointer that moves by a fixed stride per slab;
//   everything else a general, non-inlined loader. Its first inlined form put ~400 instructions per
//   slab between the barrier and the first DMMA and held v3 at 0.6× cuBLAS (docs/dgemm.md).
//
// Block: 256 threads, a 128 × 128 tile of C, 8 warps as 2 (m) × 4 (n) warp tiles of 64 × 32
// (4 × 4 m16n8 accumulator fragments, 64 doubles = 128 registers per lane). One block per SM: the
// accumulators of a 128 × 128 tile alone take half of the 64 K registers.
//
// Edges: chunks outside the matrix are zero-filled by cp.async's src-size operand (0, 8 bytes),
// so ragged m, n, k run the general loader and the same multiply; the epilogue skips rows and
// columns outside C.
//
// Second round (bench/results/h100/gemm/NOTES.md, "v3, round 2"):
// - Grouped rasterization: a 1-D grid whose block order walks a band of `group_m` tile rows before
//   moving along n, so the ~132 resident blocks share a few A row panels and B column panels in the
//   50 MB L2 instead of streaming all of A from HBM once per wave (blockIdx order = m order before).
// - Interior tiles of operands that only allow 8-byte copies (odd ld, pointer off 16 bytes) take an
//   unconditional 8-byte cp.async loader too; the general loader is left to the ragged edges.
// - Split-k for grids below one wave (blockIdx.y = k split): each split writes its raw partial tile
//   to a workspace, a second kernel sums the splits in a fixed order (deterministic) and applies
//   alpha and beta.
//
// Third round (docs/dgemm.md, "Shape classes"): the tile shape is a template parameter (Config:
// bm × bn, the warp grid, stages, blocks per SM), so small and skinny grids get 128 × 64 and
// 64 × 64 tiles with several blocks per SM, and split-k takes any factor the plan rule gives it
// (src/plan/gemm_rule.cpp) with a reduction kernel that adds the partials in a fixed order.
#pragma once

#include <cstdint>

#include "cuda/gemm/gemm_launch.hpp"

namespace spx::cuda::detail::gemm_v3 {

// Fragment buffering (Config's FragBufs), see Config.
inline constexpr int kFragsNextStep = 2, kFragsAfterRow = 3;

// The compile-time shape of one kernel: block tile bm × bn, a WarpsM × WarpsN grid of warps, slab
// depth, pipeline depth, MMA k (4 or 8: m16n8k8 is an sm_90 shape that does twice m16n8k4's work
// per instruction), the blocks per SM its registers are capped for, and the fragment buffering, two
// register buffers either way (kFragsNextStep: step q + 1's fragments load before step q's DMMAs;
// kFragsAfterRow: step q + 1's fragments of row i load after row i's DMMAs). Fragments loaded per
// step and m16n8k16 were studied and dropped (bench/results/h100/gemm/NOTES.md, study log).
template <int BM, int BN, int WarpsM, int WarpsN, int BK, int Stages, int MmaK, int MinBlocks,
          int FragBufs = kFragsNextStep>
struct Config {
  static constexpr int kBM = BM, kBN = BN, kBK = BK, kStages = Stages, kMmaK = MmaK;
  static constexpr int kWarpsM = WarpsM, kWarpsN = WarpsN, kMinBlocks = MinBlocks, kFragBufs = FragBufs;
  static constexpr int kThreads = 32 * WarpsM * WarpsN;
  static constexpr int kWM = BM / WarpsM, kWN = BN / WarpsN;   // the warp tile
  static constexpr int kFragsM = kWM / 16, kFragsN = kWN / 8;  // m16n8 fragments per warp
  static_assert(kWM % 16 == 0 && kWN % 8 == 0, "whole m16n8 fragments per warp");
  static_assert(BK % MmaK == 0 && (MmaK == 4 || MmaK == 8), "m16n8k4 or m16n8k8 steps per slab");
  static_assert(FragBufs == kFragsNextStep || FragBufs == kFragsAfterRow,
                "a fragment buffering of the kernel");
  static_assert(BK / MmaK >= 2 && BK / MmaK % 2 == 0,
                "fragment double buffer: an even number of steps per slab");
  static_assert(Stages >= 2, "at least double buffering");
};

// Shared slab of one operand, Outer (bm for A, bn for B) × BK. kKContig: stored contiguous along k
// ([outer][k], pitch BK + 4); otherwise [k][outer], pitch Outer + 4. Either way element (k, o) is at
// k * kStrideK + o * kStrideO, and 16-byte chunks along the contiguous dimension land 16-byte aligned.
template <int BK, int Outer, bool kKContig>
struct Slab {
  static constexpr int kPitch = kKContig ? BK + 4 : Outer + 4;
  static constexpr int kStrideK = kKContig ? 1 : kPitch, kStrideO = kKContig ? kPitch : 1;
  static constexpr int kElems = kKContig ? Outer * kPitch : BK * kPitch;
  // Stored tile shape: kRows along the contiguous dimension, kCols across it.
  static constexpr int kRows = kKContig ? BK : Outer, kCols = kKContig ? Outer : BK;
  static constexpr int kChunks = kRows / 2 * kCols;  // 16-byte chunks (2 doubles) per slab
  static_assert(kPitch % 2 == 0, "rows 16-byte aligned for cp.async");
  // Fragment loads: lanes 0..15 of a half-warp (one 64-bit wavefront) read (k, o) = (t, g) for
  // t, g in 0..3; pitch ≡ 4 (mod 16 doubles) puts those 16 doubles in 16 distinct bank pairs.
  static_assert(kPitch % 16 == 4, "conflict-free fragment loads");
};

// One operand as stored: element (r, c) at ptr[r + c * ld], r along the contiguous dimension.
// rows/cols are the stored extents (outer × k, or k × outer when contiguous along k).
struct Operand {
  const double* ptr;
  int64_t ld;
  int64_t rows, cols;
  bool vec_ok;  // ptr 16-byte aligned and ld even: 16-byte cp.async along rows
};

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes global → shared; bytes < 16 reads only `bytes` and zero-fills the rest (0: no read).
__device__ __forceinline__ void cp_async16(double* dst, const double* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes)
               : "memory");
}

// 8 bytes global → shared, zero-filled when bytes == 0 (the odd-layout path).
__device__ __forceinline__ void cp_async8(double* dst, const double* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// Issues the cp.asyncs of one slab: stored rows [r0, r0 + kRows) × cols [c0, c0 + kCols).
// The general path (edge tiles, the last partial slab, odd layouts): not inlined, so its index
// arithmetic does not hold registers in the main loop, whose accumulators and fragment buffers
// leave almost none (a call costs little next to the rare slabs that take it).
template <int BK, int Outer, bool kKContig, int kThreads>
__device__ __noinline__ void load_slab(const Operand& op, int64_t r0, int64_t c0, double* slab) {
  using S = Slab<BK, Outer, kKContig>;
  static_assert(S::kChunks % kThreads == 0, "whole chunks per thread");
  static_assert(kThreads % (S::kRows / 2) == 0, "a thread's chunks share their stored row");
#pragma unroll
  for (int l = 0; l < S::kChunks / kThreads; ++l) {
    const int v = static_cast<int>(threadIdx.x) + l * kThreads;
    const int r = (v % (S::kRows / 2)) * 2, c = v / (S::kRows / 2);
    const int64_t gr = r0 + r, gc = c0 + c;
    double* dst = slab + c * S::kPitch + r;
    const int64_t left = gc < op.cols ? op.rows - gr : 0;  // elements of this chunk inside the matrix
    const double* src = op.ptr + gr + gc * op.ld;
    if (op.vec_ok) {  // uniform over the grid
      const int bytes = left >= 2 ? 16 : left == 1 ? 8 : 0;
      cp_async16(dst, bytes ? src : op.ptr, bytes);
    } else {
      cp_async8(dst, left >= 1 ? src : op.ptr, left >= 1 ? 8 : 0);
      cp_async8(dst + 1, left >= 2 ? src + 1 : op.ptr, left >= 2 ? 8 : 0);
    }
  }
}

// The interior fast path of load_slab: the whole slab lies inside the matrix and 16-byte chunks
// are allowed, so no bounds, no zero fill — thread chunk l sits l * kColStep stored columns after
// chunk 0, and `src` (this thread's chunk 0) moves by a fixed stride per slab.
// kVec: 16-byte copies; otherwise the same chunks as two 8-byte copies (an operand whose ld is odd
// or whose pointer is only 8-byte aligned: twice the copy instructions, still no bounds checks).
template <int BK, int Outer, bool kKContig, int kThreads>
__device__ __forceinline__ void load_slab_interior(const double* src, int64_t ld, double* dst, bool vec) {
  using S = Slab<BK, Outer, kKContig>;
  constexpr int kColStep = kThreads / (S::kRows / 2);
  if (vec) {  // uniform over the grid
#pragma unroll
    for (int l = 0; l < S::kChunks / kThreads; ++l)
      cp_async16(dst + l * kColStep * S::kPitch, src + l * kColStep * ld, 16);
  } else {
#pragma unroll
    for (int l = 0; l < S::kChunks / kThreads; ++l) {
      cp_async8(dst + l * kColStep * S::kPitch, src + l * kColStep * ld, 8);
      cp_async8(dst + l * kColStep * S::kPitch + 1, src + l * kColStep * ld + 1, 8);
    }
  }
}

// The edge path of load_slab for a full slab of a tile that crosses C's edge along the operand's
// outer dimension (m for A, n for B): load_slab_interior's copies with a source size that zero-fills
// what lies past the edge (cp.async reads nothing at size 0), and none of the general loader's
// per-chunk 64-bit bounds arithmetic. `left`: outer indices from this thread's first one to the edge.
// - kKContig ([outer][k]): chunk l's stored column (outer index) is l * kColStep past the first;
//   it is inside while l * kColStep < left.
// - otherwise ([k][outer]): this thread's outer pair (row, row + 1) is the same for every chunk:
//   16 bytes (left >= 2), the first 8 (left == 1) or nothing.
// (Clamping the sources onto the last row or column instead, reading data no output keeps, made
// hundreds of blocks read the same lines: 100000 x 32 x 32 ran 1.6x slower.)
template <int BK, int Outer, bool kKContig, int kThreads>
__device__ __noinline__ void load_slab_edge(const double* src, int64_t ld, double* dst, bool vec,
                                            int64_t left, const double* safe) {
  using S = Slab<BK, Outer, kKContig>;
  constexpr int kColStep = kThreads / (S::kRows / 2);
#pragma unroll
  for (int l = 0; l < S::kChunks / kThreads; ++l) {
    const double* p = src + l * kColStep * ld;
    double* d = dst + l * kColStep * S::kPitch;
    // Elements of this chunk's pair inside the matrix: 2 or 0 along a column, 0..2 along the pair.
    const int64_t in = kKContig ? (l * kColStep < left ? 2 : 0) : min(max(left, int64_t{0}), int64_t{2});
    if (vec) {
      const int bytes = static_cast<int>(in) * 8;
      cp_async16(d, bytes ? p : safe, bytes);
    } else {
      cp_async8(d, in >= 1 ? p : safe, in >= 1 ? 8 : 0);
      cp_async8(d + 1, in >= 2 ? p + 1 : safe, in >= 2 ? 8 : 0);
    }
  }
}

// Grouped rasterization: block `pid` of a 1-D grid → its tile (tile_m, tile_n). Consecutive blocks
// walk `group_m` tile rows (m) first, then move one tile column (n); the last band may be narrower.
// group_m >= tiles_m is the plain m-major order.
struct TileCoord {
  int64_t m, n;
};
__device__ __forceinline__ TileCoord grouped_tile(int64_t pid, int64_t tiles_m, int64_t tiles_n,
                                                  int64_t group_m) {
  const int64_t per_band = group_m * tiles_n;
  const int64_t first_m = pid / per_band * group_m;
  const int64_t rows = min(tiles_m - first_m, group_m);
  const int64_t in_band = pid % per_band;
  return {first_m + in_band % rows, in_band / rows};
}

// d += a * b on one m16n8 fragment. Fragment layouts (PTX ISA, "Matrix Fragments for
// mma.m16n8k8", .f64; m16n8k4 is its first half), g = lane / 4, t = lane % 4:
//   A: a[i] = A(g + 8 (i % 2), t + 4 (i / 2));  B: b[i] = B(t + 4 i, g);
//   C: c[i] = C(g + 8 (i / 2), 2 t + i % 2).
template <int MmaK>
__device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[MmaK / 2],
                                     const double (&b)[MmaK / 4]) {
  if constexpr (MmaK == 8) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(b[0]));
  }
}

// op(A) is m × k, op(B) k × n; kAKContig: A stored contiguous along k (op_a == T); kBKContig: B
// stored contiguous along k (op_b == N). kVec: both operands allow 16-byte copies (Operand::vec_ok),
// known at compile time, so the main loop holds only the 16-byte interior copies: with the choice
// made at run time nvcc predicated both forms, and every slab issued the 8-byte copies and their
// addresses too, switched off (Nsight Compute, docs/dgemm.md).
template <class Cfg, bool kAKContig, bool kBKContig, bool kVec>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    gemm_v3_kernel(Operand a, Operand b, int64_t m, int64_t n, int64_t k, double alpha, double beta,
                   double* C, int64_t ldc, int group_m, int64_t k_split, double* partial) {
  constexpr int BK = Cfg::kBK, S = Cfg::kStages, MK = Cfg::kMmaK, kBM = Cfg::kBM, kBN = Cfg::kBN;
  constexpr int kThreads = Cfg::kThreads, kWarpsM = Cfg::kWarpsM, kWM = Cfg::kWM, kWN = Cfg::kWN;
  constexpr int kFragsM = Cfg::kFragsM, kFragsN = Cfg::kFragsN;
  using SA = Slab<BK, kBM, kAKContig>;
  using SB = Slab<BK, kBN, kBKContig>;
  extern __shared__ __align__(16) double smem[];
  double* const sa = smem;                   // S slabs of A
  double* const sb = smem + S * SA::kElems;  // S slabs of B

  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int g = lane / 4, t = lane % 4;
  const int wm = warp % kWarpsM, wn = warp / kWarpsM;
  const TileCoord tile = grouped_tile(blockIdx.x, (m + kBM - 1) / kBM, (n + kBN - 1) / kBN, group_m);
  const int64_t m0 = tile.m * kBM, n0 = tile.n * kBN;
  // Split-k: this block multiplies k in [kb, kb + k_split) (k_split a multiple of BK, so 16-byte
  // alignment survives the shift) and stores its raw partial tile; without split, k_split >= k.
  if (partial != nullptr) {
    const int64_t kb = int64_t{blockIdx.y} * k_split;
    a.ptr += kAKContig ? kb : kb * a.ld;
    b.ptr += kBKContig ? kb : kb * b.ld;
    k = min(k - kb, k_split);
    (kAKContig ? a.rows : a.cols) = k;
    (kBKContig ? b.rows : b.cols) = k;
  }

  // This thread's first chunk of a slab (load_slab's v = threadIdx.x): stored (r, c) offsets.
  const int tid = static_cast<int>(threadIdx.x);
  const int a_r = tid % (SA::kRows / 2) * 2, a_c = tid / (SA::kRows / 2);
  const int b_r = tid % (SB::kRows / 2) * 2, b_c = tid / (SB::kRows / 2);
  // Interior blocks (the whole 128 × 128 tile inside C) take the fast loader on every full slab,
  // 16- or 8-byte copies per operand; the rest, and the last partial slab, the general one.
  const bool interior = m0 + kBM <= m && n0 + kBN <= n;
  const double* a_src = a.ptr + (kAKContig ? a_r + (m0 + a_c) * a.ld : m0 + a_r + a_c * a.ld);
  const double* b_src = b.ptr + (kBKContig ? b_r + (n0 + b_c) * b.ld : n0 + b_r + b_c * b.ld);
  const int64_t a_step = kAKContig ? BK : BK * a.ld, b_step = kBKContig ? BK : BK * b.ld;  // per slab

  // Slab s covers k in [s * BK, (s + 1) * BK): stored (r0, c0) is (outer0, k0) or (k0, outer0).
  // Edge tiles take load_slab_edge on full slabs: a small grid whose edge tiles ran the general
  // loader on every slab waited on them (1000^3 took 1.3-1.7x the time of 1024^3).
  const int full_slabs = static_cast<int>(k / BK);  // k < 2^31 BK: A alone would be > 256 GB
  const auto load = [&](int s, int slot) {
    double* const da = sa + slot * SA::kElems;
    double* const db = sb + slot * SB::kElems;
    const bool full = s < full_slabs;
    if (interior && full) {
      load_slab_interior<BK, kBM, kAKContig, kThreads>(a_src + s * a_step, a.ld, da + a_c * SA::kPitch + a_r,
                                                       kVec || a.vec_ok);
      load_slab_interior<BK, kBN, kBKContig, kThreads>(b_src + s * b_step, b.ld, db + b_c * SB::kPitch + b_r,
                                                       kVec || b.vec_ok);
      return;
    }
    if (full) {
      const int64_t a_left = (kAKContig ? a.cols - a_c : a.rows - a_r) - m0;
      const int64_t b_left = (kBKContig ? b.cols - b_c : b.rows - b_r) - n0;
      load_slab_edge<BK, kBM, kAKContig, kThreads>(a_src + s * a_step, a.ld, da + a_c * SA::kPitch + a_r,
                                                   a.vec_ok, a_left, a.ptr);
      load_slab_edge<BK, kBN, kBKContig, kThreads>(b_src + s * b_step, b.ld, db + b_c * SB::kPitch + b_r,
                                                   b.vec_ok, b_left, b.ptr);
    } else {
      const int64_t k0 = int64_t{s} * BK;
      load_slab<BK, kBM, kAKContig, kThreads>(a, kAKContig ? k0 : m0, kAKContig ? m0 : k0, da);
      load_slab<BK, kBN, kBKContig, kThreads>(b, kBKContig ? k0 : n0, kBKContig ? n0 : k0, db);
    }
  };

  double acc[kFragsM][kFragsN][4];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0;

  // This lane's fragment origins inside a slab: A rows wm*64 + g, B columns wn*32 + g, k = t.
  const int a_lane = t * SA::kStrideK + (wm * kWM + g) * SA::kStrideO;
  const int b_lane = t * SB::kStrideK + (wn * kWN + g) * SB::kStrideO;
  // Fragments of one MMA k step, double-buffered (Config::kFragBufs): step q + 1's loads are issued
  // during step q's DMMAs, so their shared-memory latency hides behind the tensor cores.
  constexpr int FB = Cfg::kFragBufs;
  double fa[2][kFragsM][MK / 2], fb[2][kFragsN][MK / 4];
  // A's fragment row i of step kk into dst.
  const auto load_a_row = [&](double(&dst)[MK / 2], int slot, int kk, int i) {
    const double* as = sa + slot * SA::kElems + a_lane;
#pragma unroll
    for (int e = 0; e < MK / 2; ++e)
      dst[e] = as[(kk + 4 * (e / 2)) * SA::kStrideK + (i * 16 + 8 * (e % 2)) * SA::kStrideO];
  };
  // B's fragments of step kk.
  const auto load_b = [&](double(&dst)[kFragsN][MK / 4], int slot, int kk) {
    const double* bs = sb + slot * SB::kElems + b_lane;
#pragma unroll
    for (int j = 0; j < kFragsN; ++j)
#pragma unroll
      for (int e = 0; e < MK / 4; ++e) dst[j][e] = bs[(kk + 4 * e) * SB::kStrideK + j * 8 * SB::kStrideO];
  };
  const auto load_frags = [&](int buf, int slot, int kk) {
#pragma unroll
    for (int i = 0; i < kFragsM; ++i) load_a_row(fa[buf][i], slot, kk, i);
    load_b(fb[buf], slot, kk);
  };
  const auto mma_step = [&](int buf) {
#pragma unroll
    for (int i = 0; i < kFragsM; ++i)
#pragma unroll
      for (int j = 0; j < kFragsN; ++j) dmma<MK>(acc[i][j], fa[buf][i], fb[buf][j]);
  };

  const int slabs = static_cast<int>((k + BK - 1) / BK);
  // Prologue: slabs 0 .. S-2 in flight, one commit group each (empty groups keep the count).
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < slabs) load(s, s);
    cp_async_commit();
  }
  cp_async_wait<S - 2>();  // slab 0 has landed
  __syncthreads();

  constexpr int kSteps = BK / MK;
  load_frags(0, 0, 0);
  for (int s = 0; s < slabs; ++s) {
    const int slot = s % S;
#pragma unroll
    for (int q = 0; q < kSteps; ++q) {
      if (q == kSteps - 1) {
        // Slab s + 1 must have landed (everyone's copies) before its first fragments are read;
        // the barrier also ends all reads of slot (s - 1) % S, which the next load overwrites.
        cp_async_wait<S - 2>();
        __syncthreads();
      }
      // The step after this one: the next k step of this slab, or the first of the next slab.
      const bool more = q + 1 < kSteps || s + 1 < slabs;
      const int next_slot = q + 1 < kSteps ? slot : (s + 1) % S, next_kk = q + 1 < kSteps ? (q + 1) * MK : 0;
      if constexpr (FB == kFragsNextStep) {
        if (more) load_frags((q + 1) % 2, next_slot, next_kk);
      }
      if (q == 0) {  // after the barrier of the previous slab: slot (s + S - 1) % S is free
        if (s + S - 1 < slabs) load(s + S - 1, (s + S - 1) % S);
        cp_async_commit();
      }
      if constexpr (FB == kFragsAfterRow) {
        // Two buffers as kFragsNextStep, but the next step's fragments of row i load right after
        // row i's DMMAs, and B's after the first half of the rows: the registers they overwrite
        // were last read by the previous step's DMMAs well before, so the loads do not wait for
        // queued DMMAs to read their operands (Nsight Compute: short-scoreboard stalls on the loads).
        constexpr int kBRow = kFragsM / 2 > 0 ? kFragsM / 2 - 1 : 0;
#pragma unroll
        for (int i = 0; i < kFragsM; ++i) {
#pragma unroll
          for (int j = 0; j < kFragsN; ++j) dmma<MK>(acc[i][j], fa[q % 2][i], fb[q % 2][j]);
          if (more) {
            load_a_row(fa[(q + 1) % 2][i], next_slot, next_kk, i);
            if (i == kBRow) load_b(fb[(q + 1) % 2], next_slot, next_kk);
          }
        }
      } else {
        mma_step(q % 2);
      }
    }
  }
  cp_async_wait<0>();  // no copy may still target shared memory when the block exits

  // Split-k: the raw partial (alpha = 1, beta = 0) goes to this split's m × n slice of the workspace.
  if (partial != nullptr) {
    C = partial + int64_t{blockIdx.y} * m * n;
    ldc = m;
    alpha = 1.0;
    beta = 0.0;
  }

#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = m0 + wm * kWM + i * 16 + 8 * h + g;
      if (row >= m) continue;
#pragma unroll
      for (int j = 0; j < kFragsN; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int64_t col = n0 + wn * kWN + j * 8 + 2 * t + e;
          if (col >= n) continue;
          double* c = C + row + col * ldc;
          const double v = acc[i][j][2 * h + e];
          // beta == 0 must not read C: NaN there may not leak into the result.
          *c = beta == 0.0 ? alpha * v : alpha * v + beta * *c;
        }
    }
}

template <class Cfg, bool kAKContig, bool kBKContig>
constexpr int shared_bytes() {
  return Cfg::kStages *
         (Slab<Cfg::kBK, Cfg::kBM, kAKContig>::kElems + Slab<Cfg::kBK, Cfg::kBN, kBKContig>::kElems) *
         static_cast<int>(sizeof(double));
}

inline Operand operand(const double* ptr, int64_t ld, int64_t rows, int64_t cols) {
  const bool aligned = reinterpret_cast<uintptr_t>(ptr) % 16 == 0;
  return Operand{ptr, ld, rows, cols, aligned && ld % 2 == 0};
}

}  // namespace spx::cuda::detail::gemm_v3
