// spx_ell_streaming: how the one-thread-per-row ELL kernel keeps the copy rate. Variants of the
// kernel (slots per step, the remainder walked one by one or predicated, plain / streaming
// (evict-first) / read-only loads, block size, a compile-time width) on 27- and 7-point stencils,
// f32 and f64, against cuSPARSE's SELL ALG1 (slice 32, built here) and CSR ALG1/ALG2 in the same
// run; every product checked against a host sum. Standalone (CUDA and cuSPARSE only): the variants
// are not the library's kernels; "ellp U8 L1 b256" is what src/cuda/spmv/ell.cu runs, "ell U4 L0
// xg0 b256" what it ran before. Results: bench/results/h200/ell-streaming.
//
//   spx_ell_streaming > out.txt
//
// Percentages: bytes over time over this program's own copy kernel's rate (a read-and-write copy;
// a read-mostly kernel can pass 100%). "floor": the CSR's compulsory bytes; "slab-bytes": the
// padded slab's.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                             \
  do {                                                                    \
    cudaError_t e = (x);                                                  \
    if (e != cudaSuccess) {                                               \
      printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e)); \
      exit(1);                                                            \
    }                                                                     \
  } while (0)
#define CS(x)                                                  \
  do {                                                         \
    cusparseStatus_t e = (x);                                  \
    if (e != CUSPARSE_STATUS_SUCCESS) {                        \
      printf("cuSPARSE %s at %d: %d\n", #x, __LINE__, (int)e); \
      exit(1);                                                 \
    }                                                          \
  } while (0)

enum Load { Plain = 0, Stream = 1, Nc = 2 };

template <class T, Load L>
__device__ __forceinline__ T ld(const T* p) {
  if constexpr (L == Stream)
    return __ldcs(p);
  else if constexpr (L == Nc)
    return __ldg(p);
  else
    return *p;
}

template <class T, int U, Load L, bool XG>
__global__ void ell(int rows, int width, int64_t ld_, const int* __restrict__ col, const T* __restrict__ val,
                    const T* __restrict__ x, T* __restrict__ y) {
  const int64_t row = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int* c = col + row;
  const T* v = val + row;
  T sum = 0;
  int k = 0;
  for (; k + U <= width; k += U) {
    int cs[U];
    T vs[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      cs[u] = ld<int, L>(c + u * ld_);
      vs[u] = ld<T, L>(v + u * ld_);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (cs[u] >= 0) sum += vs[u] * (XG ? __ldg(x + cs[u]) : x[cs[u]]);
    c += U * ld_;
    v += U * ld_;
  }
  for (; k < width; ++k, c += ld_, v += ld_) {
    const int cc = ld<int, L>(c);
    if (cc >= 0) sum += ld<T, L>(v) * (XG ? __ldg(x + cc) : x[cc]);
  }
  y[row] = sum;
}

// U slots a step, the last step predicated (no one-by-one remainder loop).
template <class T, int U, Load L>
__global__ void ellp(int rows, int width, int64_t ld_, const int* __restrict__ col, const T* __restrict__ val,
                     const T* __restrict__ x, T* __restrict__ y) {
  const int64_t row = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  const int* c = col + row;
  const T* v = val + row;
  T sum = 0;
  for (int k = 0; k < width; k += U) {
    int cs[U];
    T vs[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      cs[u] = k + u < width ? ld<int, L>(c + u * ld_) : -1;
      vs[u] = k + u < width ? ld<T, L>(v + u * ld_) : T(0);
    }
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (cs[u] >= 0) sum += vs[u] * __ldg(x + cs[u]);
    c += U * ld_;
    v += U * ld_;
  }
  y[row] = sum;
}

// Fixed width (compile-time): the whole row's loads issued before any gather.
template <class T, int W, Load L>
__global__ void ell_fixed(int rows, int64_t ld_, const int* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ x, T* __restrict__ y) {
  const int64_t row = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  int cs[W];
  T vs[W];
#pragma unroll
  for (int u = 0; u < W; ++u) {
    cs[u] = ld<int, L>(col + row + u * ld_);
    vs[u] = ld<T, L>(val + row + u * ld_);
  }
  T sum = 0;
#pragma unroll
  for (int u = 0; u < W; ++u)
    if (cs[u] >= 0) sum += vs[u] * __ldg(x + cs[u]);
  y[row] = sum;
}

__global__ void copyk(const float4* __restrict__ a, float4* __restrict__ b, int64_t n) {
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x)
    b[i] = a[i];
}

template <class F>
float time_ms(F&& f, int reps = 40) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Csr {
  int rows;
  std::vector<int> ptr, col;
};

Csr stencil(int n, int points) {
  Csr A;
  A.rows = n * n * n;
  A.ptr.push_back(0);
  for (int z = 0; z < n; ++z)
    for (int yy = 0; yy < n; ++yy)
      for (int xx = 0; xx < n; ++xx) {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int m = std::abs(dx) + std::abs(dy) + std::abs(dz);
              if (points == 7 && m > 1) continue;
              const int X = xx + dx, Y = yy + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n) continue;
              A.col.push_back((Z * n + Y) * n + X);
            }
        A.ptr.push_back(static_cast<int>(A.col.size()));
      }
  return A;
}

template <class T>
void run(const Csr& A, const char* name, double copy_gbs) {
  const int rows = A.rows;
  const int64_t nnz = A.col.size();
  int width = 0;
  for (int r = 0; r < rows; ++r) width = std::max(width, A.ptr[r + 1] - A.ptr[r]);
  const int64_t ldv = (rows + 31) / 32 * 32;
  std::vector<T> vals(nnz);
  for (int64_t i = 0; i < nnz; ++i) vals[i] = T(1) + T(i % 7) / T(8);
  std::vector<T> xh(rows);
  for (int i = 0; i < rows; ++i) xh[i] = T(1) + T(i % 13) / T(16);
  std::vector<int> ec(ldv * width, -1);
  std::vector<T> ev(ldv * width, T(0));
  for (int r = 0; r < rows; ++r)
    for (int p = A.ptr[r], k = 0; p < A.ptr[r + 1]; ++p, ++k) {
      ec[k * ldv + r] = A.col[p];
      ev[k * ldv + r] = vals[p];
    }
  std::vector<double> ref(rows);
  for (int r = 0; r < rows; ++r) {
    double s = 0;
    for (int p = A.ptr[r]; p < A.ptr[r + 1]; ++p) s += double(vals[p]) * double(xh[A.col[p]]);
    ref[r] = s;
  }
  int *dec, *dptr, *dcol;
  T *dev, *dx, *dy, *dval;
  CK(cudaMalloc(&dec, ec.size() * 4));
  CK(cudaMalloc(&dev, ev.size() * sizeof(T)));
  CK(cudaMalloc(&dx, rows * sizeof(T)));
  CK(cudaMalloc(&dy, rows * sizeof(T)));
  CK(cudaMalloc(&dptr, (rows + 1) * 4));
  CK(cudaMalloc(&dcol, nnz * 4));
  CK(cudaMalloc(&dval, nnz * sizeof(T)));
  CK(cudaMemcpy(dec, ec.data(), ec.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dev, ev.data(), ev.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dx, xh.data(), rows * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dptr, A.ptr.data(), (rows + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dcol, A.col.data(), nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dval, vals.data(), nnz * sizeof(T), cudaMemcpyHostToDevice));
  // Floor: the CSR's compulsory bytes (values + columns + row pointer + x + y).
  const double floor_bytes = double(nnz) * (4 + sizeof(T)) + 4.0 * (rows + 1) + 2.0 * rows * sizeof(T);
  const double slab_bytes = double(ldv) * width * (4 + sizeof(T)) + 2.0 * rows * sizeof(T);
  std::vector<T> got(rows);
  auto check = [&](const char* v) {
    CK(cudaMemcpy(got.data(), dy, rows * sizeof(T), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int r = 0; r < rows; ++r)
      worst = std::max(worst, std::abs(double(got[r]) - ref[r]) / (std::abs(ref[r]) + 1));
    if (worst > (sizeof(T) == 4 ? 1e-4 : 1e-10)) printf("  %s WRONG worst %.3g\n", v, worst);
  };
  auto report = [&](const char* v, float ms) {
    printf("%-10s %s %-28s %8.1f us  floor %5.1f%% copy  slab-bytes %5.1f%%\n", name,
           sizeof(T) == 4 ? "f32" : "f64", v, ms * 1e3, 100.0 * floor_bytes / (ms * 1e-3) / 1e9 / copy_gbs,
           100.0 * slab_bytes / (ms * 1e-3) / 1e9 / copy_gbs);
  };
  char label[64];
#define VAR(U, L, XG, B)                                                                               \
  {                                                                                                    \
    CK(cudaMemset(dy, 0xff, rows * sizeof(T)));                                                        \
    auto f = [&] { ell<T, U, L, XG><<<(rows + B - 1) / B, B>>>(rows, width, ldv, dec, dev, dx, dy); }; \
    float ms = time_ms(f);                                                                             \
    snprintf(label, sizeof label, "ell U%d L%d xg%d b%d", U, (int)L, (int)XG, B);                      \
    check(label);                                                                                      \
    report(label, ms);                                                                                 \
  }
  VAR(4, Plain, false, 256)
  VAR(4, Plain, false, 512)
  VAR(4, Plain, false, 1024)
  VAR(4, Plain, true, 512)
  VAR(8, Plain, true, 512)
  VAR(4, Stream, true, 512)
  VAR(8, Stream, true, 512)
  VAR(8, Stream, true, 256)
  VAR(8, Stream, true, 128)
  VAR(4, Nc, true, 512)
  VAR(8, Nc, true, 512)
  VAR(16, Stream, true, 256)
#define PVAR(U, L, B)                                                                               \
  {                                                                                                 \
    CK(cudaMemset(dy, 0xff, rows * sizeof(T)));                                                     \
    auto f = [&] { ellp<T, U, L><<<(rows + B - 1) / B, B>>>(rows, width, ldv, dec, dev, dx, dy); }; \
    float ms = time_ms(f);                                                                          \
    snprintf(label, sizeof label, "ellp U%d L%d b%d", U, (int)L, B);                                \
    check(label);                                                                                   \
    report(label, ms);                                                                              \
  }
  PVAR(4, Stream, 256)
  PVAR(8, Stream, 256)
  PVAR(8, Stream, 128)
  PVAR(8, Plain, 256)
  PVAR(8, Nc, 256)
  PVAR(16, Stream, 256)
  PVAR(16, Stream, 128)
  if (width == 27) {
    CK(cudaMemset(dy, 0xff, rows * sizeof(T)));
    auto f = [&] { ell_fixed<T, 27, Stream><<<(rows + 255) / 256, 256>>>(rows, ldv, dec, dev, dx, dy); };
    float ms = time_ms(f);
    check("fixed27 stream");
    report("fixed27 stream b256", ms);
    auto g = [&] { ell_fixed<T, 27, Plain><<<(rows + 127) / 128, 128>>>(rows, ldv, dec, dev, dx, dy); };
    ms = time_ms(g);
    check("fixed27 plain");
    report("fixed27 plain b128", ms);
  }
  if (width == 7) {
    auto f = [&] { ell_fixed<T, 7, Stream><<<(rows + 255) / 256, 256>>>(rows, ldv, dec, dev, dx, dy); };
    float ms = time_ms(f);
    check("fixed7 stream");
    report("fixed7 stream b256", ms);
  }
  // cuSPARSE: CSR ALG1, ALG2, SELL ALG1 (slice 32).
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  const cudaDataType dt = sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;
  cusparseDnVecDescr_t vx, vy;
  CS(cusparseCreateDnVec(&vx, rows, dx, dt));
  CS(cusparseCreateDnVec(&vy, rows, dy, dt));
  T one = 1, zero = 0;
  auto vendor = [&](cusparseSpMatDescr_t M, cusparseSpMVAlg_t alg, const char* v) {
    size_t bytes = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, dt, alg, &bytes));
    void* buf = nullptr;
    CK(cudaMalloc(&buf, bytes + 16));
    CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, dt, alg, buf));
    CK(cudaMemset(dy, 0xff, rows * sizeof(T)));
    auto f = [&] { cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, M, vx, &zero, vy, dt, alg, buf); };
    float ms = time_ms(f);
    check(v);
    report(v, ms);
    CK(cudaFree(buf));
  };
  cusparseSpMatDescr_t csr;
  CS(cusparseCreateCsr(&csr, rows, rows, nnz, dptr, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, dt));
  vendor(csr, CUSPARSE_SPMV_CSR_ALG1, "cusparse csr alg1");
  vendor(csr, CUSPARSE_SPMV_CSR_ALG2, "cusparse csr alg2");
  // SELL-32 built on the host: slice s holds rows 32s..32s+31 column-major, width = longest in slice.
  const int slices = (rows + 31) / 32;
  std::vector<int> soff(slices + 1, 0), scol;
  std::vector<T> sval;
  for (int s = 0; s < slices; ++s) {
    int w = 0;
    for (int r = 32 * s; r < std::min(rows, 32 * s + 32); ++r) w = std::max(w, A.ptr[r + 1] - A.ptr[r]);
    for (int k = 0; k < w; ++k)
      for (int i = 0; i < 32; ++i) {
        const int r = 32 * s + i;
        if (r < rows && A.ptr[r] + k < A.ptr[r + 1]) {
          scol.push_back(A.col[A.ptr[r] + k]);
          sval.push_back(vals[A.ptr[r] + k]);
        } else {
          scol.push_back(-1);
          sval.push_back(T(0));
        }
      }
    soff[s + 1] = static_cast<int>(scol.size());
  }
  int *dso, *dsc;
  T* dsv;
  CK(cudaMalloc(&dso, soff.size() * 4));
  CK(cudaMalloc(&dsc, scol.size() * 4));
  CK(cudaMalloc(&dsv, sval.size() * sizeof(T)));
  CK(cudaMemcpy(dso, soff.data(), soff.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dsc, scol.data(), scol.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dsv, sval.data(), sval.size() * sizeof(T), cudaMemcpyHostToDevice));
  cusparseSpMatDescr_t sell;
  CS(cusparseCreateSlicedEll(&sell, rows, rows, nnz, scol.size(), 32, dso, dsc, dsv, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, dt));
  vendor(sell, CUSPARSE_SPMV_SELL_ALG1, "cusparse sell alg1");
  cusparseDestroySpMat(sell);
  cusparseDestroySpMat(csr);
  cusparseDestroy(h);
  cudaFree(dso);
  cudaFree(dsc);
  cudaFree(dsv);
  cudaFree(dec);
  cudaFree(dev);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dptr);
  cudaFree(dcol);
  cudaFree(dval);
}

int main() {
  const int64_t n = int64_t{1} << 27;  // 2 GiB each way
  float4 *a, *b;
  CK(cudaMalloc(&a, n * 16));
  CK(cudaMalloc(&b, n * 16));
  CK(cudaMemset(a, 0, n * 16));
  float ms = time_ms([&] { copyk<<<132 * 8, 512>>>(a, b, n); }, 10);
  const double copy = 2.0 * n * 16 / (ms * 1e-3) / 1e9;
  printf("copy %.0f GB/s\n", copy);
  cudaFree(a);
  cudaFree(b);
  for (int n3 : {100}) {
    const Csr A = stencil(n3, 27);
    char name[32];
    snprintf(name, sizeof name, "st27_%d", n3);
    run<float>(A, name, copy);
    run<double>(A, name, copy);
  }
  const Csr B = stencil(160, 7);
  run<float>(B, "st7_160", copy);
  run<double>(B, "st7_160", copy);
  const Csr C = stencil(60, 27);
  run<float>(C, "st27_60", copy);
  run<double>(C, "st27_60", copy);
}
