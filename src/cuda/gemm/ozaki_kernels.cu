// The emulated DGEMM's kernels (ozaki_launch.hpp): statistics, integer conversion, the room of the
// error bound, chunk folding and the CRT reconstruction. Each element's arithmetic is
// gemm_ozaki_math.hpp's, the code the host reference runs.
#include <cuda_runtime.h>

#include <cmath>

#include "cuda/common/check.hpp"
#include "cuda/common/launch.hpp"
#include "cuda/gemm/ozaki_launch.hpp"

namespace spx::cuda::detail {
namespace {

constexpr int kBlock = 256;
constexpr int kTile = 32;  // the conversion's transpose tile: 32 vectors × 32 of k
constexpr int kTileRows = 8;

__device__ double warp_max(double x) {
  for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}
__device__ double warp_sum(double x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}
__device__ bool warp_any(bool p) { return __any_sync(0xffffffffu, p); }

__device__ void store_stats(int64_t v, double biggest, double sum_scaled, int e, int* exp, double* rel_sum) {
  exp[v] = biggest > 0 ? e : ozaki::kZeroExp;
  rel_sum[v] = biggest > 0 ? sum_scaled : 0.0;
}

// Contiguous vectors (stride_v == 1): a block of 32 vectors × kStatSlices threads, thread (x, y)
// reading every kStatSlices-th element of vector x from y (a warp reads 32 neighbours), the
// slices' partials combined in a fixed order (the same statistics every run).
constexpr int kStatSlices = 8;
__global__ void __launch_bounds__(32 * kStatSlices)
    stats_by_slices(OzakiVectors v, int* exp, double* rel_sum, long long* nonfinite) {
  __shared__ double part[kStatSlices][32];
  __shared__ int bad_part[kStatSlices][32];
  const int64_t vec = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const bool live = vec < v.count;
  const double* x = v.x + (live ? vec : 0);
  double biggest = 0;
  bool bad = false;
  if (live) {
    for (int64_t h = threadIdx.y; h < v.len; h += kStatSlices) {
      const double a = x[h * v.stride_h];
      bad = bad || !isfinite(a);
      biggest = fmax(biggest, fabs(a));
    }
  }
  part[threadIdx.y][threadIdx.x] = biggest;
  bad_part[threadIdx.y][threadIdx.x] = bad;
  __syncthreads();
  biggest = 0;
  bad = false;
  for (int y = 0; y < kStatSlices; ++y) {
    biggest = fmax(biggest, part[y][threadIdx.x]);
    bad = bad || bad_part[y][threadIdx.x];
  }
  __syncthreads();  // part is reused for the sums
  const int e = biggest > 0 ? ilogb(biggest) : 0;
  double sum = 0;
  if (live && !bad && biggest > 0)
    for (int64_t h = threadIdx.y; h < v.len; h += kStatSlices) sum += ldexp(fabs(x[h * v.stride_h]), -e);
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (!live || threadIdx.y != 0) return;
  if (bad) {  // the host falls back to native; the statistics only need to be defined
    atomicMin(nonfinite, static_cast<long long>(vec));
    store_stats(vec, 0.0, 0.0, 0, exp, rel_sum);
    return;
  }
  sum = 0;
  for (int y = 0; y < kStatSlices; ++y) sum += part[y][threadIdx.x];
  store_stats(vec, biggest, sum, e, exp, rel_sum);
}

// One warp per vector: each vector is contiguous (stride_h == 1).
__global__ void __launch_bounds__(kBlock)
    stats_by_warp(OzakiVectors v, int* exp, double* rel_sum, long long* nonfinite) {
  const int64_t vec = (static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (vec >= v.count) return;
  const double* x = v.x + vec * v.stride_v;
  double biggest = 0;
  bool bad = false;
  for (int64_t h = lane; h < v.len; h += 32) {
    const double a = x[h];
    bad = bad || !isfinite(a);
    biggest = fmax(biggest, fabs(a));
  }
  if (warp_any(bad)) {
    if (lane == 0) {
      atomicMin(nonfinite, static_cast<long long>(vec));
      store_stats(vec, 0.0, 0.0, 0, exp, rel_sum);
    }
    return;
  }
  biggest = warp_max(biggest);
  const int e = biggest > 0 ? ilogb(biggest) : 0;
  double sum = 0;
  if (biggest > 0)
    for (int64_t h = lane; h < v.len; h += 32) sum += ldexp(fabs(x[h]), -e);
  sum = warp_sum(sum);
  if (lane == 0) store_stats(vec, biggest, sum, e, exp, rel_sum);
}

// A 32 × 32 tile of (vector, k) through shared memory, so both the reads (along whichever index is
// contiguous) and the int8 writes (along k) are coalesced.
template <bool kVectorsContiguous>
__global__ void __launch_bounds__(kTile* kTileRows)
    convert(OzakiVectors v, int64_t count_pad, const int* exp, int64_t kpad, int bits, ozaki::CrtTable t,
            int8_t* out, int64_t modulus_stride) {
  __shared__ double tile[kTile][kTile + 1];  // [vector][h]
  const int64_t v0 = static_cast<int64_t>(blockIdx.x) * kTile, h0 = static_cast<int64_t>(blockIdx.y) * kTile;
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int lv = kVectorsContiguous ? threadIdx.x : r, lh = kVectorsContiguous ? r : threadIdx.x;
    const int64_t vec = v0 + lv, h = h0 + lh;
    tile[lv][lh] = vec < v.count && h < v.len ? v.x[vec * v.stride_v + h * v.stride_h] : 0.0;
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int64_t vec = v0 + r, h = h0 + threadIdx.x;
    if (vec >= count_pad || h >= kpad) continue;
    // Padding vectors (count .. count_pad) are zeros: the INT8 products see multiples of 16.
    const double x = tile[r][threadIdx.x];
    const int e = vec < v.count ? exp[vec] : ozaki::kZeroExp;
    int8_t* o = out + vec * kpad + h;
    if (bits == 0) {
      *o = static_cast<int8_t>(ozaki::bound_integer(x, e));
      continue;
    }
    const ozaki::ScaledInteger a = ozaki::scaled_integer(x, e, bits);
    for (int l = 0; l < t.count; ++l)
      o[l * modulus_stride] = static_cast<int8_t>(ozaki::symmetric_residue(a, t, l));
  }
}

__global__ void __launch_bounds__(kBlock)
    room(int64_t m, int64_t n, double k, const int32_t* bound, int64_t ldb, const int* exp_a,
         const double* rel_a, const int* exp_b, const double* rel_b, OzakiFlags* flags) {
  double least = INFINITY;
  unsigned long long uncertified = 0;
  const int64_t total = m * n, stride = static_cast<int64_t>(gridDim.x) * kBlock;
  for (int64_t idx = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x; idx < total; idx += stride) {
    const int64_t i = idx % m, j = idx / m;
    if (exp_a[i] == ozaki::kZeroExp || exp_b[j] == ozaki::kZeroExp) continue;  // an exact zero
    const double r = ozaki::element_room(k, rel_a[i] + rel_b[j], static_cast<double>(bound[i + j * ldb]));
    if (r == 0) ++uncertified;
    least = fmin(least, r);
  }
  for (int o = 16; o > 0; o >>= 1) {
    least = fmin(least, __shfl_xor_sync(0xffffffffu, least, o));
    uncertified += __shfl_xor_sync(0xffffffffu, uncertified, o);
  }
  if (threadIdx.x % 32 != 0) return;
  // Non-negative doubles order as their bit patterns.
  atomicMin(&flags->min_room_bits, static_cast<unsigned long long>(__double_as_longlong(least)));
  if (uncertified) atomicAdd(&flags->uncertified, uncertified);
}

__global__ void __launch_bounds__(kBlock)
    fold(int64_t m, int64_t n, int64_t ld, int32_t* acc, const int32_t* chunk, int modulus, double inverse) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (idx >= m * n) return;
  const int64_t at = idx % m + idx / m * ld;
  acc[at] =
      (ozaki::mod_exact(acc[at], modulus, inverse) + ozaki::mod_exact(chunk[at], modulus, inverse)) % modulus;
}

__global__ void __launch_bounds__(kBlock)
    reconstruct(ozaki::CrtTable t, int bits, int64_t m, int64_t n, const int32_t* products, int64_t ldp,
                int64_t product_stride, const int* exp_a, const int* exp_b, double alpha, double beta,
                double* C, int64_t ldc) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * kBlock + threadIdx.x;
  if (idx >= m * n) return;
  const int64_t i = idx % m, j = idx / m;
  const int ea = exp_a[i], eb = exp_b[j];
  double product = 0;
  if (ea != ozaki::kZeroExp && eb != ozaki::kZeroExp) {
    const int32_t* p = products + i + j * ldp;
    product = ozaki::crt_reconstruct(
        t, [&](int l) { return p[l * product_stride]; }, 2 - 2 * bits + ea + eb);
  }
  double* c = C + i + j * ldc;
  const double old = beta == 0.0 ? 0.0 : beta * *c;
  *c = alpha * product + old;
}

}  // namespace

void launch_ozaki_stats(Context& ctx, const OzakiVectors& v, int* exp, double* rel_sum,
                        long long* nonfinite) {
  if (v.count == 0) return;
  if (v.stride_h == 1) {
    stats_by_warp<<<grid_for(v.count * 32, kBlock), kBlock, 0, ctx.stream()>>>(v, exp, rel_sum, nonfinite);
    SPX_CHECK_LAUNCH("ozaki stats_by_warp", ctx.stream());
  } else {
    stats_by_slices<<<grid_for(v.count, 32), dim3(32, kStatSlices), 0, ctx.stream()>>>(v, exp, rel_sum,
                                                                                       nonfinite);
    SPX_CHECK_LAUNCH("ozaki stats_by_slices", ctx.stream());
  }
}

void launch_ozaki_convert(Context& ctx, const OzakiVectors& v, int64_t count_pad, const int* exp,
                          int64_t kpad, int bits, const ozaki::CrtTable& t, int8_t* out,
                          int64_t modulus_stride) {
  if (count_pad == 0) return;
  const dim3 grid(grid_for(count_pad, kTile), static_cast<unsigned>((kpad + kTile - 1) / kTile));
  const dim3 block(kTile, kTileRows);
  if (v.stride_v == 1 && v.stride_h != 1) {
    convert<true><<<grid, block, 0, ctx.stream()>>>(v, count_pad, exp, kpad, bits, t, out, modulus_stride);
  } else {
    convert<false><<<grid, block, 0, ctx.stream()>>>(v, count_pad, exp, kpad, bits, t, out, modulus_stride);
  }
  SPX_CHECK_LAUNCH("ozaki convert", ctx.stream());
}

void launch_ozaki_room(Context& ctx, int64_t m, int64_t n, int64_t k, const int32_t* bound, int64_t ldb,
                       const int* exp_a, const double* rel_a, const int* exp_b, const double* rel_b,
                       OzakiFlags* flags) {
  const unsigned grid = grid_for_resident(ctx, m * n, kBlock, 8);
  room<<<grid, kBlock, 0, ctx.stream()>>>(m, n, static_cast<double>(k), bound, ldb, exp_a, rel_a, exp_b,
                                          rel_b, flags);
  SPX_CHECK_LAUNCH("ozaki room", ctx.stream());
}

void launch_ozaki_fold(Context& ctx, int64_t m, int64_t n, int64_t ld, int32_t* acc, const int32_t* chunk,
                       int modulus, double inverse) {
  fold<<<grid_for(m * n, kBlock), kBlock, 0, ctx.stream()>>>(m, n, ld, acc, chunk, modulus, inverse);
  SPX_CHECK_LAUNCH("ozaki fold", ctx.stream());
}

void launch_ozaki_reconstruct(Context& ctx, const ozaki::CrtTable& t, int bits, int64_t m, int64_t n,
                              const int32_t* products, int64_t ldp, int64_t product_stride, const int* exp_a,
                              const int* exp_b, double alpha, double beta, double* C, int64_t ldc) {
  reconstruct<<<grid_for(m * n, kBlock), kBlock, 0, ctx.stream()>>>(
      t, bits, m, n, products, ldp, product_stride, exp_a, exp_b, alpha, beta, C, ldc);
  SPX_CHECK_LAUNCH("ozaki reconstruct", ctx.stream());
}

}  // namespace spx::cuda::detail
