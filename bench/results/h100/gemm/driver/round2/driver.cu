// Device driver for issue 7, round 2 (not part of the build): checks spx GEMM v3 (grouped
// rasterization, 8-byte interior loader, split-k, Auto) against cuBLAS, then times v3 and cuBLAS
// interleaved (A B A B ..., medians per kernel, ratio per round). Usage: driver [--memcheck]
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cuda/gemm/gemm_launch.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"

using spx::Op;
#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      std::exit(2);                                                                        \
    }                                                                                      \
  } while (0)
#define CB(x)                                                     \
  do {                                                            \
    if ((x) != CUBLAS_STATUS_SUCCESS) {                           \
      std::printf("cuBLAS error at %s:%d\n", __FILE__, __LINE__); \
      std::exit(2);                                               \
    }                                                             \
  } while (0)

template <class T>
using GemmFn = std::function<void(Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t,
                                  T, T*, int64_t)>;

static spx::cuda::Context* g_ctx;
static cublasHandle_t g_blas;
static int g_fail = 0;

static cublasOperation_t bop(Op o) { return o == Op::N ? CUBLAS_OP_N : CUBLAS_OP_T; }

template <class T>
static void cublas_gemm(Op oa, Op ob, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda,
                        const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
  if constexpr (std::is_same_v<T, double>)
    CB(cublasDgemm(g_blas, bop(oa), bop(ob), (int)m, (int)n, (int)k, &alpha, A, (int)lda, B, (int)ldb, &beta,
                   C, (int)ldc));
  else
    CB(cublasSgemm(g_blas, bop(oa), bop(ob), (int)m, (int)n, (int)k, &alpha, A, (int)lda, B, (int)ldb, &beta,
                   C, (int)ldc));
}

template <class T>
static GemmFn<T> spx_fn(spx::cuda::GemmVersion v) {
  return [v](Op oa, Op ob, int64_t m, int64_t n, int64_t k, T alpha, const T* A, int64_t lda, const T* B,
             int64_t ldb, T beta, T* C, int64_t ldc) {
    spx::cuda::gemm<T>(*g_ctx, oa, ob, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                       spx::cuda::GemmParams{v});
  };
}
// v3 with explicit launch knobs (group_m, split_k; 0 = the library's choice).
static GemmFn<double> v3_knobs(int group_m, int split_k) {
  return [group_m, split_k](Op oa, Op ob, int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                            int64_t lda, const double* B, int64_t ldb, double beta, double* C, int64_t ldc) {
    spx::cuda::detail::launch_gemm_v3(*g_ctx, oa, ob, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                                      spx::cuda::detail::V3Knobs{group_m, split_k});
  };
}

struct Shape {
  int64_t m, n, k, pad, off;
};

template <class T>
static double check(const char* name, const GemmFn<T>& fn, Op oa, Op ob, Shape s, T alpha, T beta,
                    uint64_t seed) {
  const int64_t ar = oa == Op::N ? s.m : s.k, ac = oa == Op::N ? s.k : s.m;
  const int64_t br = ob == Op::N ? s.k : s.n, bc = ob == Op::N ? s.n : s.k;
  const int64_t lda = ar + s.pad, ldb = br + s.pad, ldc = s.m + s.pad;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<T> A(lda * ac + s.off), B(ldb * bc), C0(ldc * s.n);
  for (auto& x : A) x = (T)U(rng);
  for (auto& x : B) x = (T)U(rng);
  for (auto& x : C0) x = beta == T{0} ? std::numeric_limits<T>::quiet_NaN() : (T)U(rng);
  T *dA, *dB, *dC, *dR;
  CK(cudaMalloc(&dA, A.size() * sizeof(T)));
  CK(cudaMalloc(&dB, B.size() * sizeof(T)));
  CK(cudaMalloc(&dC, C0.size() * sizeof(T)));
  CK(cudaMalloc(&dR, C0.size() * sizeof(T)));
  CK(cudaMemcpy(dA, A.data(), A.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), B.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, C0.data(), C0.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dR, C0.data(), C0.size() * sizeof(T), cudaMemcpyHostToDevice));
  cublas_gemm<T>(oa, ob, s.m, s.n, s.k, alpha, dA + s.off, lda, dB, ldb, beta, dR, ldc);
  fn(oa, ob, s.m, s.n, s.k, alpha, dA + s.off, lda, dB, ldb, beta, dC, ldc);
  CK(cudaStreamSynchronize(g_ctx->stream()));
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  std::vector<T> got(C0.size()), ref(C0.size());
  CK(cudaMemcpy(got.data(), dC, got.size() * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ref.data(), dR, ref.size() * sizeof(T), cudaMemcpyDeviceToHost));
  double maxref = 0, maxdiff = 0;
  bool bad = false;
  for (int64_t j = 0; j < s.n; ++j) {
    for (int64_t i = 0; i < s.m; ++i) {
      const double g = got[i + j * ldc], r = ref[i + j * ldc];
      if (std::isnan(g) || std::isinf(g)) bad = true;
      maxref = std::max(maxref, std::abs(r));
      maxdiff = std::max(maxdiff, std::abs(g - r));
    }
    for (int64_t i = s.m; i < ldc; ++i) {
      const T o = C0[i + j * ldc], g = got[i + j * ldc];
      if (!(o == g || (std::isnan(o) && std::isnan(g)))) bad = true;
    }
  }
  const double rel = maxdiff / std::max(maxref, 1e-300);
  const double tol = std::is_same_v<T, double> ? 1e-12 : 2e-4;
  if (bad || !(rel <= tol)) {
    ++g_fail;
    std::printf("FAIL %-16s %c%c m=%ld n=%ld k=%ld pad=%ld off=%ld alpha=%g beta=%g rel=%.3e%s\n", name,
                oa == Op::N ? 'N' : 'T', ob == Op::N ? 'N' : 'T', (long)s.m, (long)s.n, (long)s.k,
                (long)s.pad, (long)s.off, (double)alpha, (double)beta, rel,
                bad ? " (NaN/Inf or padding written)" : "");
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dR);
  return rel;
}

template <class T>
static void check_all(const char* name, const GemmFn<T>& fn, const std::vector<Shape>& shapes, bool nn_only) {
  double worst = 0;
  int cases = 0;
  const int before = g_fail;
  uint64_t seed = 1234;
  for (Op oa : {Op::N, Op::T})
    for (Op ob : {Op::N, Op::T}) {
      if (nn_only && (oa != Op::N || ob != Op::N)) continue;
      for (const Shape& s : shapes) {
        worst = std::max(worst, check<T>(name, fn, oa, ob, s, T(1), T(0), seed++));
        worst = std::max(worst, check<T>(name, fn, oa, ob, s, T(-0.5), T(1.5), seed++));
        cases += 2;
      }
    }
  std::printf("check %-18s %-6s %4d cases, worst rel err %.2e, %s\n", name,
              std::is_same_v<T, double> ? "f64" : "f32", cases, worst, g_fail == before ? "ok" : "FAILED");
  std::fflush(stdout);
}

__global__ void fill(double* x, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
  }
}
__global__ void to_float(const double* x, float* y, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    y[i] = (float)x[i];
}

// Median of `reps` timed launches after one warm-up.
template <class T>
static double time_ms(const GemmFn<T>& fn, Op oa, Op ob, int64_t m, int64_t n, int64_t k, const T* A,
                      int64_t lda, const T* B, int64_t ldb, T* C, int reps) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int r = 0; r < reps + 1; ++r) {
    CK(cudaEventRecord(e0, g_ctx->stream()));
    fn(oa, ob, m, n, k, T(1), A, lda, B, ldb, T(0), C, m);
    CK(cudaEventRecord(e1, g_ctx->stream()));
    CK(cudaEventSynchronize(e1));
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (r > 0) ms.push_back(t);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms[ms.size() / 2];
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

static FILE* g_csv;
static FILE* g_rounds;
// Interleaved timing: `rounds` rounds, each running every kernel in turn (median of `reps` launches);
// per kernel the median TFLOP/s over rounds, and per round the ratio to the first kernel (cuBLAS):
// median ratio and its min..max spread.
template <class T>
static void timing_row(const char* shape_name, Op oa, Op ob, int64_t m, int64_t n, int64_t k, const T* A,
                       int64_t lda, const T* B, int64_t ldb, T* C, int rounds, int reps,
                       const std::vector<std::pair<std::string, GemmFn<T>>>& fns) {
  const double flop = 2.0 * m * n * k;
  std::vector<std::vector<double>> tf(fns.size()), ratio(fns.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t f = 0; f < fns.size(); ++f) {
      const double ms = time_ms<T>(fns[f].second, oa, ob, m, n, k, A, lda, B, ldb, C, reps);
      tf[f].push_back(flop / (ms * 1e-3) / 1e12);
      ratio[f].push_back(tf[f].back() / tf[0].back());
      std::fprintf(g_rounds, "%s,%c%c,%d,%s,%.4f,%.3f\n", shape_name, oa == Op::N ? 'N' : 'T',
                   ob == Op::N ? 'N' : 'T', r, fns[f].first.c_str(), ms, tf[f].back());
    }
  for (size_t f = 0; f < fns.size(); ++f) {
    const auto [lo, hi] = std::minmax_element(ratio[f].begin(), ratio[f].end());
    const double t = median(tf[f]), q = median(ratio[f]);
    std::printf("%-22s %c%c %-4s %-16s %7.2f TFLOP/s  ratio %5.3f [%5.3f..%5.3f]\n", shape_name,
                oa == Op::N ? 'N' : 'T', ob == Op::N ? 'N' : 'T', std::is_same_v<T, double> ? "f64" : "f32",
                fns[f].first.c_str(), t, q, *lo, *hi);
    std::fprintf(g_csv, "%s,%ld,%ld,%ld,%c%c,%s,%s,%d,%.3f,%.4f,%.4f,%.4f\n", shape_name, (long)m, (long)n,
                 (long)k, oa == Op::N ? 'N' : 'T', ob == Op::N ? 'N' : 'T',
                 std::is_same_v<T, double> ? "f64" : "f32", fns[f].first.c_str(), rounds, t, q, *lo, *hi);
  }
  std::fflush(stdout);
  std::fflush(g_csv);
  std::fflush(g_rounds);
}

int main(int argc, char** argv) {
  const bool memcheck = argc > 1 && std::strcmp(argv[1], "--memcheck") == 0;
  spx::cuda::Context ctx;
  g_ctx = &ctx;
  CB(cublasCreate(&g_blas));
  CB(cublasSetStream(g_blas, ctx.stream()));
  std::printf("device: %s\n", ctx.props().summary().c_str());
  using V = spx::cuda::GemmVersion;

  // {m, n, k, pad, A offset}. New in round 2: 300 x 260 x 270 with pad 1 (lda = 301 for NN: odd ld
  // with interior tiles -> the 8-byte interior loader), A one element off 16 bytes on whole tiles
  // (384 x 256 x 200, 520 x 300 x 333), 1024^3 and 200 x 300 x 1000 (few tiles: split-k 2 and 3).
  std::vector<Shape> shapes;
  if (memcheck)
    shapes = {{33, 257, 7, 3, 1},
              {300, 260, 270, 1, 0},
              {384, 256, 200, 0, 1},
              {200, 300, 1000, 0, 0},
              {130, 129, 17, 0, 0}};
  else
    shapes = {
        {1, 1, 1, 0, 0},          {7, 33, 100, 1, 0},       {33, 257, 7, 3, 1},     {257, 100, 33, 3, 0},
        {100, 7, 1000, 0, 0},     {1000, 33, 17, 0, 1},     {128, 256, 64, 0, 0},   {129, 1000, 9, 1, 0},
        {1000, 1000, 1000, 0, 0}, {4097, 200, 33, 0, 0},    {300, 4097, 40, 2, 0},  {256, 256, 4097, 0, 0},
        {513, 385, 1000, 1, 1},   {300, 260, 270, 1, 0},    {384, 256, 200, 0, 1},  {520, 300, 333, 3, 1},
        {200, 300, 1000, 0, 0},   {1024, 1024, 1024, 0, 0}, {1030, 1100, 700, 1, 1}};
  check_all<double>("spx_gemm_v3", spx_fn<double>(V::TensorCoreV3), shapes, false);
  check_all<double>("spx_gemm (Auto)", spx_fn<double>(V::Auto), shapes, false);
  check_all<float>("spx_gemm (Auto)", spx_fn<float>(V::Auto), shapes, false);
  check_all<double>("v3 group 3", v3_knobs(3, 1), shapes, false);
  check_all<double>("v3 split 4", v3_knobs(0, 4), shapes, false);
  if (!memcheck) check_all<double>("spx_gemm_v2", spx_fn<double>(V::TensorCoreV2), shapes, true);
  std::printf("correctness: %d failures\n", g_fail);
  if (memcheck) return g_fail ? 1 : 0;

  const char* out = std::getenv("OUT") ? std::getenv("OUT") : ".";
  g_csv = std::fopen((std::string(out) + "/timing.csv").c_str(), "w");
  g_rounds = std::fopen((std::string(out) + "/rounds.csv").c_str(), "w");
  std::fprintf(g_csv,
               "shape,m,n,k,ops,precision,kernel,rounds,median_tflops,median_ratio,min_ratio,max_ratio\n");
  std::fprintf(g_rounds, "shape,ops,round,kernel,ms,tflops\n");
  const size_t big = size_t{16384} * 16384;
  double *A, *B, *C;
  CK(cudaMalloc(&A, big * 8));
  CK(cudaMalloc(&B, big * 8));
  CK(cudaMalloc(&C, big * 8));
  fill<<<1024, 256>>>(A, big, 1);
  fill<<<1024, 256>>>(B, big, 2);
  fill<<<1024, 256>>>(C, big, 3);
  CK(cudaDeviceSynchronize());

  using Fns = std::vector<std::pair<std::string, GemmFn<double>>>;
  const GemmFn<double> blas = cublas_gemm<double>;
  const Fns pair = {{"cublas_dgemm", blas}, {"spx_gemm_v3", spx_fn<double>(V::TensorCoreV3)}};
  // m-major order as before (group_m >= tiles_m) and other bands, to see what rasterization buys.
  const Fns groups = {{"cublas_dgemm", blas},
                      {"spx_gemm_v3", spx_fn<double>(V::TensorCoreV3)},
                      {"v3 m-order", v3_knobs(1 << 30, 1)},
                      {"v3 group 4", v3_knobs(4, 1)},
                      {"v3 group 16", v3_knobs(16, 1)}};
  const Fns splits = {{"cublas_dgemm", blas},
                      {"spx_gemm_v3", spx_fn<double>(V::TensorCoreV3)},
                      {"v3 split 1", v3_knobs(0, 1)},
                      {"v3 split 4", v3_knobs(0, 4)}};
  const auto sq = [&](const char* name, int64_t s, int rounds, int reps, const Fns& fns, Op oa = Op::N,
                      Op ob = Op::N) {
    timing_row<double>(name, oa, ob, s, s, s, A, s, B, s, C, rounds, reps, fns);
  };
  sq("square 8192", 8192, 5, 3, groups);
  sq("square 16384", 16384, 3, 1, groups);
  sq("square 4096", 4096, 7, 5, groups);
  sq("square 2048", 2048, 7, 10, pair);
  sq("square 1024", 1024, 7, 20, splits);
  for (Op oa : {Op::N, Op::T})
    for (Op ob : {Op::N, Op::T})
      if (oa == Op::T || ob == Op::T) sq("square 4096", 4096, 5, 5, pair, oa, ob);
  timing_row<double>("tall 16384x16384x256", Op::N, Op::N, 16384, 16384, 256, A, 16384, B, 256, C, 5, 5,
                     groups);
  timing_row<double>("tall 65536x512x512", Op::N, Op::N, 65536, 512, 512, A, 65536, B, 512, C, 5, 5, groups);
  // Odd ldb = 4003: round 1 sent every tile to the general loader (0.70x); now the 8-byte interior one.
  timing_row<double>("ragged 4000x4001x4003", Op::N, Op::N, 4000, 4001, 4003, A, 4000, B, 4003, C, 5, 5,
                     pair);
  // The same shape with lda odd too (4001) and A one element off 16 bytes.
  timing_row<double>("ragged lda 4001 A+1", Op::N, Op::N, 4000, 4001, 4003, A + 1, 4001, B, 4003, C, 5, 5,
                     pair);
  sq("square 8192 again", 8192, 5, 3, pair);

  // float: Auto = v1 vs cuBLAS SGEMM
  float *Af = reinterpret_cast<float*>(C), *Bf = Af + size_t{8192} * 8192, *Cf = Bf + size_t{8192} * 8192;
  to_float<<<1024, 256>>>(A, Af, size_t{8192} * 8192);
  to_float<<<1024, 256>>>(B, Bf, size_t{8192} * 8192);
  CK(cudaDeviceSynchronize());
  const std::vector<std::pair<std::string, GemmFn<float>>> fl = {{"cublas_sgemm", cublas_gemm<float>},
                                                                 {"spx_gemm (Auto)", spx_fn<float>(V::Auto)}};
  timing_row<float>("square 4096", Op::N, Op::N, 4096, 4096, 4096, Af, 4096, Bf, 4096, Cf, 3, 5, fl);
  std::fclose(g_csv);
  std::fclose(g_rounds);
  std::printf("correctness failures: %d\n", g_fail);
  return g_fail ? 1 : 0;
}
