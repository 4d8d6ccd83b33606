// Fused CG kernels (docs/cg.md). Each is a grid-stride loop over the vectors whose inner products
// are reduced in double: warp shuffles, one partial per block, and the last block to arrive adds
// the partials in block order (deterministic: the same sums on every run) and then makes the
// iteration's scalar decisions on the device.
#include <cmath>

#include "cuda/common/check.hpp"
#include "cuda/common/warp.cuh"
#include "cuda/solve/cg_kernels.hpp"

namespace spx::cuda::detail {
namespace {

// The block's total from its warps' sums, added in warp order (deterministic).
__device__ double block_total(const double (&warp_sums)[kCgBlock / 32]) {
  double t = 0;
  for (int w = 0; w < kCgBlock / 32; ++w) t += warp_sums[w];
  return t;
}

// Reduces K per-thread values over the grid. Returns true in the last block to finish, where
// thread 0 holds the totals in v; the arrival counter is left at zero.
template <int K>
__device__ bool grid_reduce(double (&v)[K], double* partials, unsigned* counter) {
  constexpr int kWarps = kCgBlock / 32;
  __shared__ double warp_sums[K][kWarps];
  __shared__ bool last;
  const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int k = 0; k < K; ++k) {
    v[k] = warp_reduce<32>(v[k], Sum{});
    if (lane == 0) warp_sums[k][warp] = v[k];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k)
      partials[static_cast<std::size_t>(blockIdx.x) * K + k] = block_total(warp_sums[k]);
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return false;
  __threadfence();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    double t = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += kCgBlock)
      t += __ldcg(&partials[static_cast<std::size_t>(b) * K + k]);
    v[k] = warp_reduce<32>(t, Sum{});
  }
  __syncthreads();  // warp_sums reused
#pragma unroll
  for (int k = 0; k < K; ++k)
    if (lane == 0) warp_sums[k][warp] = v[k];
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = block_total(warp_sums[k]);
    *counter = 0u;
  }
  return true;
}

__device__ void fail(CgState* st, int reason, double bad) {
  st->status = kCgBreakdown;
  st->reason = reason;
  st->bad = bad;
}

template <class T>
__device__ constexpr double unit_roundoff() {
  return sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;
}

// The decisions each kernel's last block makes on the grid's totals; a distributed solve makes them
// in cg_decide_kernel on the all-reduced totals instead, so both take the same branches.
__device__ void init_decide(CgState* st, const double (&v)[3], double* history) {
  st->bb = v[0];
  st->gamma = v[1];
  st->gamma_prev = 0;
  st->rr = v[2];
  st->alpha = st->beta = 0;
  st->it = 0;
  st->best_rr = v[2];
  st->best_it = 0;
  st->unchanged = 0;
  st->reason = kReasonNone;
  const double bnorm = sqrt(v[0]), res = sqrt(v[2]);
  st->tol = fmax(st->rtol * bnorm, st->atol);
  if (history) history[0] = res;
  if (v[0] == 0) {
    st->status = kCgConverged;
    st->reason = kReasonZeroRhs;
  } else if (!isfinite(v[2])) {
    fail(st, kReasonNotFinite, v[2]);
  } else if (res <= st->tol) {
    st->status = kCgConverged;
    st->reason = kReasonInitialConverged;
  } else {
    st->status = kCgRunning;
  }
}

__device__ void scalars_decide(CgState* st, double delta) {
  const double gamma = st->gamma;
  const long long it = st->it;
  if (!(gamma > 0) || !isfinite(gamma)) return fail(st, kReasonGamma, gamma);
  const double beta = it == 0 ? 0.0 : gamma / st->gamma_prev;
  const double pap = it == 0 ? delta : delta - beta * gamma / st->alpha;
  if (!(pap > 0) || !isfinite(pap)) return fail(st, kReasonCurvature, pap);
  st->beta = beta;
  st->alpha = gamma / pap;
  if (it >= st->max_it) st->status = kCgMaxIterations;
}

__device__ void update_decide(CgState* st, const double (&v)[4], double* history, double unit) {
  const long long it = st->it + 1;
  st->it = it;
  st->gamma_prev = st->gamma;
  st->gamma = v[0];
  st->rr = v[1];
  const double res = sqrt(v[1]);
  if (history) history[it] = res;
  if (!isfinite(v[1])) return fail(st, kReasonNotFinite, v[1]);
  if (res <= st->tol) {
    st->status = kCgConverged;
    return;
  }
  st->unchanged = st->alpha * st->alpha * v[2] <= unit * unit * v[3] ? st->unchanged + 1 : 0;
  if (st->unchanged >= kCgStagnationSteps) {
    st->status = kCgStagnation;
    st->reason = kReasonUnchanged;
    return;
  }
  if (v[1] < st->best_rr) {
    st->best_rr = v[1];
    st->best_it = it;
  } else if (st->window > 0 && it - st->best_it >= st->window) {
    st->status = kCgStagnation;
    st->reason = kReasonWindow;
    return;
  }
  if (it >= st->max_it) st->status = kCgMaxIterations;
}

template <class T, bool Jacobi>
__global__ void __launch_bounds__(kCgBlock)
    cg_init_kernel(int64_t n, const T* __restrict__ b, const T* __restrict__ w, T* __restrict__ r, T* u,
                   const T* __restrict__ inv_diag, double* partials, unsigned* counter, CgState* st,
                   double* history, double* totals) {
  double v[3] = {0, 0, 0};
  for (int64_t i = blockIdx.x * int64_t{kCgBlock} + threadIdx.x; i < n; i += int64_t{gridDim.x} * kCgBlock) {
    const T bi = b[i], ri = bi - w[i];
    T ui = ri;
    r[i] = ri;
    if constexpr (Jacobi) {  // without a preconditioner u is r itself (same buffer): nothing to store
      ui = ri * inv_diag[i];
      u[i] = ui;
    }
    v[0] += static_cast<double>(bi) * static_cast<double>(bi);
    v[1] += static_cast<double>(ri) * static_cast<double>(ui);
    v[2] += static_cast<double>(ri) * static_cast<double>(ri);
  }
  if (!grid_reduce<3>(v, partials, counter) || threadIdx.x != 0) return;
  if (totals)
    for (int k = 0; k < 3; ++k) totals[k] = v[k];
  else
    init_decide(st, v, history);
}

template <class T>
__global__ void __launch_bounds__(kCgBlock)
    cg_scalars_kernel(int64_t n, const T* __restrict__ w, const T* __restrict__ u, double* partials,
                      unsigned* counter, CgState* st, double* totals) {
  if (st->status != kCgRunning) return;
  double v[1] = {0};
  for (int64_t i = blockIdx.x * int64_t{kCgBlock} + threadIdx.x; i < n; i += int64_t{gridDim.x} * kCgBlock)
    v[0] += static_cast<double>(w[i]) * static_cast<double>(u[i]);
  if (!grid_reduce<1>(v, partials, counter) || threadIdx.x != 0) return;
  if (totals)
    totals[0] = v[0];
  else
    scalars_decide(st, v[0]);
}

template <class T, bool Jacobi>
__global__ void __launch_bounds__(kCgBlock)
    cg_update_kernel(int64_t n, const T* __restrict__ w, T* u, T* __restrict__ p, T* __restrict__ s,
                     T* __restrict__ x, T* __restrict__ r, const T* __restrict__ inv_diag, double* partials,
                     unsigned* counter, CgState* st, double* history, double* totals) {
  if (st->status != kCgRunning) return;
  const T a = static_cast<T>(st->alpha), bt = static_cast<T>(st->beta);
  double v[4] = {0, 0, 0, 0};  // (r, u), (r, r), (p, p), (x, x)
  for (int64_t i = blockIdx.x * int64_t{kCgBlock} + threadIdx.x; i < n; i += int64_t{gridDim.x} * kCgBlock) {
    if constexpr (Jacobi) {
      const T pi = u[i] + bt * p[i], si = w[i] + bt * s[i];
      p[i] = pi;
      s[i] = si;
      x[i] += a * pi;
      const T ri = r[i] - a * si;
      const T ui = ri * inv_diag[i];
      r[i] = ri;
      u[i] = ui;
      v[0] += static_cast<double>(ri) * static_cast<double>(ui);
      v[1] += static_cast<double>(ri) * static_cast<double>(ri);
      v[2] += static_cast<double>(pi) * static_cast<double>(pi);
      v[3] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    } else {  // u is r: read r once, write it once (u is not touched; it aliases r)
      const T r_old = r[i];
      const T pi = r_old + bt * p[i], si = w[i] + bt * s[i];
      p[i] = pi;
      s[i] = si;
      x[i] += a * pi;
      const T ri = r_old - a * si;
      r[i] = ri;
      v[0] += static_cast<double>(ri) * static_cast<double>(ri);
      v[2] += static_cast<double>(pi) * static_cast<double>(pi);
      v[3] += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
  }
  if constexpr (!Jacobi) v[1] = v[0];
  if (!grid_reduce<4>(v, partials, counter) || threadIdx.x != 0) return;
  if (totals)
    for (int k = 0; k < 4; ++k) totals[k] = v[k];
  else
    update_decide(st, v, history, unit_roundoff<T>());
}

// One thread: the decisions of `stage` on all-reduced totals (the layout the kernels write).
__global__ void cg_decide_kernel(CgStage stage, const double* gathered, int ranks, int count, CgState* st,
                                 double* history, double unit) {
  double totals[5] = {0, 0, 0, 0, 0};
  for (int r = 0; r < ranks; ++r)  // rank order: the same sums, bit for bit, on every rank and every run
    for (int k = 0; k < count; ++k) totals[k] += gathered[r * count + k];
  switch (stage) {
    case CgStage::Init: {
      const double v[3] = {totals[0], totals[1], totals[2]};
      init_decide(st, v, history);
      return;
    }
    case CgStage::Scalars:
      if (st->status == kCgRunning) scalars_decide(st, totals[0]);
      return;
    case CgStage::Update:
    case CgStage::UpdateThenScalars: {
      if (st->status != kCgRunning) return;
      const double v[4] = {totals[0], totals[1], totals[2], totals[3]};
      update_decide(st, v, history, unit);
      if (stage == CgStage::UpdateThenScalars && st->status == kCgRunning) scalars_decide(st, totals[4]);
      return;
    }
  }
}

}  // namespace

template <class T>
void launch_cg_decide(cudaStream_t stream, CgStage stage, const double* gathered, int ranks, CgState* state,
                      double* history) {
  cg_decide_kernel<<<1, 1, 0, stream>>>(stage, gathered, ranks, cg_stage_sums(stage), state, history,
                                        unit_roundoff<T>());
  SPX_CHECK_LAUNCH("cg_decide_kernel", stream);
}

template <class T>
void launch_cg_init(cudaStream_t stream, unsigned grid, int64_t n, const T* b, const T* w, T* r, T* u,
                    const T* inv_diag, double* partials, unsigned* counter, CgState* state, double* history,
                    double* totals) {
  if (inv_diag)
    cg_init_kernel<T, true>
        <<<grid, kCgBlock, 0, stream>>>(n, b, w, r, u, inv_diag, partials, counter, state, history, totals);
  else
    cg_init_kernel<T, false>
        <<<grid, kCgBlock, 0, stream>>>(n, b, w, r, u, inv_diag, partials, counter, state, history, totals);
  SPX_CHECK_LAUNCH("cg_init_kernel", stream);
}

template <class T>
void launch_cg_scalars(cudaStream_t stream, unsigned grid, int64_t n, const T* w, const T* u,
                       double* partials, unsigned* counter, CgState* state, double* totals) {
  cg_scalars_kernel<T><<<grid, kCgBlock, 0, stream>>>(n, w, u, partials, counter, state, totals);
  SPX_CHECK_LAUNCH("cg_scalars_kernel", stream);
}

template <class T>
void launch_cg_update(cudaStream_t stream, unsigned grid, int64_t n, const T* w, T* u, T* p, T* s, T* x, T* r,
                      const T* inv_diag, double* partials, unsigned* counter, CgState* state, double* history,
                      double* totals) {
  if (inv_diag)
    cg_update_kernel<T, true><<<grid, kCgBlock, 0, stream>>>(n, w, u, p, s, x, r, inv_diag, partials, counter,
                                                             state, history, totals);
  else
    cg_update_kernel<T, false><<<grid, kCgBlock, 0, stream>>>(n, w, u, p, s, x, r, inv_diag, partials,
                                                              counter, state, history, totals);
  SPX_CHECK_LAUNCH("cg_update_kernel", stream);
}

#define SPX_CG_INSTANTIATE(T)                                                                                \
  template void launch_cg_init<T>(cudaStream_t, unsigned, int64_t, const T*, const T*, T*, T*, const T*,     \
                                  double*, unsigned*, CgState*, double*, double*);                           \
  template void launch_cg_scalars<T>(cudaStream_t, unsigned, int64_t, const T*, const T*, double*,           \
                                     unsigned*, CgState*, double*);                                          \
  template void launch_cg_update<T>(cudaStream_t, unsigned, int64_t, const T*, T*, T*, T*, T*, T*, const T*, \
                                    double*, unsigned*, CgState*, double*, double*);                         \
  template void launch_cg_decide<T>(cudaStream_t, CgStage, const double*, int, CgState*, double*);
SPX_CG_INSTANTIATE(float)
SPX_CG_INSTANTIATE(double)
#undef SPX_CG_INSTANTIATE

}  // namespace spx::cuda::detail
