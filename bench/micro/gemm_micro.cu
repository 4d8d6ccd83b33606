// spx_micro: the micro-benchmarks of Tan et al. (SC11, §3 Fig. 2 and Tables 2–3) re-done for the
// GPU at hand, plus the two peak rates the DGEMM goals are measured against.
//
//   1. Global copy bandwidth by per-thread access width (32, 64, 128 bit) and start offset (Fig. 2):
//      does a warp whose 128-byte segments are not aligned lose bandwidth on this GPU?
//   2. Load latency by level and width (Table 2): dependent pointer chases, one thread, clock64()
//      — shared memory ld.32/64/128, L1, L2 and DRAM.
//   3. Shared-memory bandwidth by access width: bytes per clock per SM, conflict-free patterns.
//   4. Instruction latency and throughput (Table 3): DFMA dependent-chain latency, the FP64 CUDA-core
//      rate with every SM busy, and the FP64 tensor-core rate (mma.sync m8n8k4 f64 — DMMA).
//
// Output: a readable report on stdout and, with --json FILE, the numbers as JSON. docs/dgemm.md
// summarises what they mean for the DGEMM kernels. The program is standalone (CUDA runtime only).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define MICRO_CHECK(call)                                                                                   \
  do {                                                                                                      \
    cudaError_t err_ = (call);                                                                              \
    if (err_ != cudaSuccess) {                                                                              \
      std::fprintf(stderr, "spx_micro: %s failed: %s (%s:%d)\n", #call, cudaGetErrorString(err_), __FILE__, \
                   __LINE__);                                                                               \
      std::exit(1);                                                                                         \
    }                                                                                                       \
  } while (0)

// ---------------------------------------------------------------------------------------------
// 1. Copy bandwidth by width and offset. Each thread copies one W-byte word per iteration of a
// grid-stride loop; both arrays start `offset` bytes past a 256-byte boundary (a multiple of W,
// so every access stays naturally aligned — the paper's "offset" in words).
template <class Word>
__global__ void copy_words(const Word* __restrict__ src, Word* __restrict__ dst, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = src[i];
  }
}

struct Events {
  cudaEvent_t start, stop;
  Events() {
    MICRO_CHECK(cudaEventCreate(&start));
    MICRO_CHECK(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  template <class F>
  float median_ms(F&& launch, int runs = 7) {
    launch();  // warm-up
    MICRO_CHECK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < runs; ++r) {
      MICRO_CHECK(cudaEventRecord(start));
      launch();
      MICRO_CHECK(cudaEventRecord(stop));
      MICRO_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      MICRO_CHECK(cudaEventElapsedTime(&ms, start, stop));
      t.push_back(ms);
    }
    MICRO_CHECK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

struct CopyPoint {
  int width_bits, offset_bytes;
  double gbs;
};

template <class Word>
double copy_gbs(char* src, char* dst, std::size_t bytes, int offset, int sms) {
  const int64_t n = static_cast<int64_t>(bytes / sizeof(Word));
  const Word* s = reinterpret_cast<const Word*>(src + offset);
  Word* d = reinterpret_cast<Word*>(dst + offset);
  const int block = 256;
  const int grid = sms * 16;  // 16 blocks of 256 threads per SM: full occupancy, grid-stride
  Events ev;
  const float ms = ev.median_ms([&] { copy_words<Word><<<grid, block>>>(s, d, n); });
  return 2.0 * static_cast<double>(n) * sizeof(Word) / (ms * 1e-3) / 1e9;  // read + write
}

// ---------------------------------------------------------------------------------------------
// Shared-memory loads of 1, 2 or 4 words through inline PTX, so the width is the one asked for
// (the compiler would narrow a wide load whose other lanes go unused).
__device__ __forceinline__ uint32_t lds(uint32_t addr, int words) {
  uint32_t a, b, c, d;
  if (words == 1) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr));
    return a;
  }
  if (words == 2) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr));
    return a ^ (b & 0x80000000u);  // b's top bit is 0 in the chain: the value stays a
  }
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr));
  return a ^ ((b | c | d) & 0x80000000u);
}

// 2. Latency: one thread follows a chain of indices; the clock64() difference over `steps`
// dependent loads gives cycles per load (plus the one or two integer ops of the address).
template <int kWidthWords>
__global__ void shared_chase(int steps, const uint32_t* __restrict__ init, int words, long long* cycles,
                             uint32_t* sink) {
  extern __shared__ uint4 smem_raw[];
  uint32_t* smem = reinterpret_cast<uint32_t*>(smem_raw);
  for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = init[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint32_t p = 0;
  long long t0 = clock64();
  for (int s = 0; s < steps; ++s) p = lds(base + 4 * p, kWidthWords);
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}

// Global chase: `next` holds the following index; .ca (L1) or .cg (L2 only) loads.
template <bool kBypassL1>
__global__ void global_chase(const uint32_t* __restrict__ next, int steps, long long* cycles,
                             uint32_t* sink) {
  uint32_t p = 0;
  // Walk once untimed so the timed walk sees the cache level the working set fits in.
  for (int s = 0; s < steps; ++s) p = kBypassL1 ? __ldcg(next + p) : next[p];
  p = 0;
  long long t0 = clock64();
  for (int s = 0; s < steps; ++s) p = kBypassL1 ? __ldcg(next + p) : next[p];
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}

// DRAM: a random cycle over a 1 GiB array, one pass timed without warm-up (the cycle is far
// larger than L2, so nearly every load misses).
__global__ void dram_chase(const uint32_t* __restrict__ next, int steps, long long* cycles, uint32_t* sink) {
  uint32_t p = 0;
  long long t0 = clock64();
  for (int s = 0; s < steps; ++s) p = __ldcg(next + p);
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}

// ---------------------------------------------------------------------------------------------
// 3. Shared-memory bandwidth: every thread reads consecutive W-byte words (a warp covers 32·W
// contiguous bytes: conflict-free), repeated; cycles from clock64 of each block.
template <int kWidthWords>
__global__ void shared_read(int reps, long long* cycles, uint32_t* sink) {
  __shared__ uint4 buf[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) buf[i] = make_uint4(i, i, i, i);
  __syncthreads();
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(buf));
  uint32_t acc = 0;
  long long t0 = clock64();
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      // A warp reads 32 consecutive words of the width: conflict-free for every width.
      const uint32_t word = (threadIdx.x + u * 256 + r) & 1023;
      acc += lds(base + word * 4 * kWidthWords % (1024 * 16), kWidthWords);
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    // Start, end and SM of each block: the SM's clock is shared by its blocks, so the SM's rate is
    // its blocks' bytes over (last end - first start), whatever the blocks' overlap was.
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    cycles[3 * blockIdx.x] = t0;
    cycles[3 * blockIdx.x + 1] = t1;
    cycles[3 * blockIdx.x + 2] = sm;
  }
  if (acc == 0xffffffffu) *sink = acc;
}

// ---------------------------------------------------------------------------------------------
// 4. DFMA latency (one dependent chain) and throughput (8 independent chains per thread, every
// SM full); DMMA throughput (4 independent m8n8k4 accumulators per warp).
__global__ void dfma_chain(int steps, double a, double b, long long* cycles, double* sink) {
  double x = threadIdx.x;
  long long t0 = clock64();
  for (int s = 0; s < steps; ++s) x = fma(x, a, b);
  long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = x;
}

__global__ void dfma_rate(int steps, double a, double b, double* sink) {
  double x[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) x[i] = threadIdx.x + i;
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] = fma(x[i], a, b);
  }
  double t = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) t += x[i];
  if (t == -1.0) *sink = t;
}

__device__ __forceinline__ void dmma_884(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
}

// The sm_90 shape v3 uses: m16n8k4 (A two doubles per lane, B one, C four): 1024 flops per warp.
__device__ __forceinline__ void dmma_1684(double (&d)[4], double a0, double a1, double b) {
  asm volatile(
      "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(b));
}

__global__ void dmma_1684_rate(int steps, double a, double b, double* sink) {
  double acc[4][4] = {};
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < 4; ++i) dmma_1684(acc[i], a, b, b);
  }
  double t = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) t += acc[i][0] + acc[i][1] + acc[i][2] + acc[i][3];
  if (t == -1.0) *sink = t;
}

__global__ void dmma_rate(int steps, double a, double b, double* sink) {
  double acc[4][2] = {};
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int i = 0; i < 4; ++i) dmma_884(acc[i], a, b);
  }
  double t = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) t += acc[i][0] + acc[i][1];
  if (t == -1.0) *sink = t;
}

// ---------------------------------------------------------------------------------------------
struct Report {
  std::string device;
  int sms = 0;
  double clock_ghz = 0;  // measured: clock64 cycles per event-timed second on one SM
  std::vector<CopyPoint> copy;
  double lat_shared[3] = {0, 0, 0};  // 32, 64, 128 bit, cycles
  double lat_l1 = 0, lat_l2 = 0, lat_dram = 0;
  double shared_bytes_per_clk[3] = {0, 0, 0};
  double dfma_latency = 0;
  double dfma_tflops = 0, dmma_tflops = 0, dmma_1684_tflops = 0;
};

long long read_cycles(long long* d) {
  long long h = 0;
  MICRO_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

void measure(Report& r) {
  cudaDeviceProp prop{};
  MICRO_CHECK(cudaGetDeviceProperties(&prop, 0));
  r.device = prop.name;
  r.sms = prop.multiProcessorCount;
  long long* d_cycles = nullptr;
  uint32_t* d_sink = nullptr;
  double* d_dsink = nullptr;
  MICRO_CHECK(cudaMalloc(&d_cycles, 3 * 8192 * sizeof(long long)));  // 3 per block, <= 8192 blocks
  MICRO_CHECK(cudaMalloc(&d_sink, sizeof(uint32_t)));
  MICRO_CHECK(cudaMalloc(&d_dsink, sizeof(double)));

  // Clock: cycles of a long DFMA chain against its event time.
  {
    Events ev;
    const int steps = 1 << 22;
    const float ms =
        ev.median_ms([&] { dfma_chain<<<1, 1>>>(steps, 1.0000001, 1e-9, d_cycles, d_dsink); }, 3);
    r.dfma_latency = static_cast<double>(read_cycles(d_cycles)) / steps;
    r.clock_ghz = static_cast<double>(read_cycles(d_cycles)) / (ms * 1e-3) / 1e9;
  }

  // 1. Copy bandwidth.
  {
    const std::size_t bytes = std::size_t{1} << 30;
    char *src = nullptr, *dst = nullptr;
    MICRO_CHECK(cudaMalloc(&src, bytes + 512));
    MICRO_CHECK(cudaMalloc(&dst, bytes + 512));
    MICRO_CHECK(cudaMemset(src, 1, bytes + 512));
    const int offsets[] = {0, 4, 8, 16, 32, 64, 96, 128};
    for (int off : offsets) {
      r.copy.push_back({32, off, copy_gbs<uint32_t>(src, dst, bytes, off, r.sms)});
      if (off % 8 == 0) r.copy.push_back({64, off, copy_gbs<uint2>(src, dst, bytes, off, r.sms)});
      if (off % 16 == 0) r.copy.push_back({128, off, copy_gbs<uint4>(src, dst, bytes, off, r.sms)});
    }
    MICRO_CHECK(cudaFree(src));
    MICRO_CHECK(cudaFree(dst));
  }

  // 2a. Shared-memory latency: a chain through 4096 words with a 16-word (64 B) stride.
  {
    const int words = 4096, steps = 4096;
    std::vector<uint32_t> chain(words);
    for (int i = 0; i < words; ++i) chain[i] = static_cast<uint32_t>((i + 16) % words);
    uint32_t* d_chain = nullptr;
    MICRO_CHECK(cudaMalloc(&d_chain, words * sizeof(uint32_t)));
    MICRO_CHECK(cudaMemcpy(d_chain, chain.data(), words * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const std::size_t smem = words * sizeof(uint32_t);
    shared_chase<1><<<1, 256, smem>>>(steps, d_chain, words, d_cycles, d_sink);
    r.lat_shared[0] = static_cast<double>(read_cycles(d_cycles)) / steps;
    shared_chase<2><<<1, 256, smem>>>(steps, d_chain, words, d_cycles, d_sink);
    r.lat_shared[1] = static_cast<double>(read_cycles(d_cycles)) / steps;
    shared_chase<4><<<1, 256, smem>>>(steps, d_chain, words, d_cycles, d_sink);
    r.lat_shared[2] = static_cast<double>(read_cycles(d_cycles)) / steps;
    MICRO_CHECK(cudaGetLastError());
    MICRO_CHECK(cudaFree(d_chain));
  }

  // 2b. L1 (16 KiB working set), L2 (8 MiB, bypassing L1) and DRAM (random cycle over 1 GiB).
  {
    auto strided_chain = [](std::size_t words, std::size_t stride) {
      std::vector<uint32_t> c(words);
      for (std::size_t i = 0; i < words; ++i) c[i] = static_cast<uint32_t>((i + stride) % words);
      return c;
    };
    auto run_chain = [&](const std::vector<uint32_t>& c, int steps, int kind) {
      uint32_t* d = nullptr;
      MICRO_CHECK(cudaMalloc(&d, c.size() * sizeof(uint32_t)));
      MICRO_CHECK(cudaMemcpy(d, c.data(), c.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
      if (kind == 0) global_chase<false><<<1, 1>>>(d, steps, d_cycles, d_sink);
      if (kind == 1) global_chase<true><<<1, 1>>>(d, steps, d_cycles, d_sink);
      if (kind == 2) dram_chase<<<1, 1>>>(d, steps, d_cycles, d_sink);
      MICRO_CHECK(cudaGetLastError());
      const double cyc = static_cast<double>(read_cycles(d_cycles)) / steps;
      MICRO_CHECK(cudaFree(d));
      return cyc;
    };
    r.lat_l1 = run_chain(strided_chain(4096, 32), 4096, 0);
    r.lat_l2 = run_chain(strided_chain(std::size_t{2} << 20, 32), 8192, 1);
    // Random cycle (Sattolo) over 2^28 words, stepping by whole 128-byte lines.
    const std::size_t lines = std::size_t{1} << 23, per_line = 32;
    std::vector<uint32_t> order(lines);
    for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<uint32_t>(i);
    uint64_t state = 88172645463325252ull;
    for (std::size_t i = lines - 1; i > 0; --i) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      std::swap(order[i], order[state % i]);
    }
    std::vector<uint32_t> c(lines * per_line, 0);
    for (std::size_t i = 0; i < lines; ++i)
      c[order[i] * per_line] = static_cast<uint32_t>(order[(i + 1) % lines] * per_line);
    r.lat_dram = run_chain(c, 8192, 2);
  }

  // 3. Shared-memory bandwidth: one block of 256 threads per SM slot, 8 blocks per SM.
  {
    const int reps = 4096, blocks = std::min(r.sms * 8, 8192);
    auto per_clk = [&](auto kernel, std::size_t width) {
      kernel<<<blocks, 256>>>(reps, d_cycles, d_sink);
      MICRO_CHECK(cudaGetLastError());
      std::vector<long long> rec(3 * static_cast<std::size_t>(blocks));
      MICRO_CHECK(cudaMemcpy(rec.data(), d_cycles, rec.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      const double bytes_per_block = static_cast<double>(reps) * 4 * 256 * static_cast<double>(width);
      std::vector<long long> first(r.sms, -1), last(r.sms, 0);
      std::vector<int> count(r.sms, 0);
      for (int b = 0; b < blocks; ++b) {
        const int sm = static_cast<int>(rec[3 * b + 2]);
        if (sm < 0 || sm >= r.sms) continue;
        first[sm] = first[sm] < 0 ? rec[3 * b] : std::min(first[sm], rec[3 * b]);
        last[sm] = std::max(last[sm], rec[3 * b + 1]);
        ++count[sm];
      }
      std::vector<double> rates;
      for (int sm = 0; sm < r.sms; ++sm)
        if (count[sm] > 0 && last[sm] > first[sm])
          rates.push_back(count[sm] * bytes_per_block / static_cast<double>(last[sm] - first[sm]));
      std::sort(rates.begin(), rates.end());
      return rates.empty() ? 0.0 : rates[rates.size() / 2];  // median SM
    };
    r.shared_bytes_per_clk[0] = per_clk(shared_read<1>, 4);
    r.shared_bytes_per_clk[1] = per_clk(shared_read<2>, 8);
    r.shared_bytes_per_clk[2] = per_clk(shared_read<4>, 16);
  }

  // 4. FP64 rates with every SM busy.
  {
    Events ev;
    const int steps = 4096, block = 256, grid = r.sms * 8;
    const float ms = ev.median_ms([&] { dfma_rate<<<grid, block>>>(steps, 1.0000001, 1e-9, d_dsink); });
    r.dfma_tflops = 2.0 * 8 * steps * static_cast<double>(grid) * block / (ms * 1e-3) / 1e12;
    const int msteps = 2048, mgrid = r.sms * 8;
    const float mms = ev.median_ms([&] { dmma_rate<<<mgrid, block>>>(msteps, 1.0000001, 1e-9, d_dsink); });
    const double mmas = 4.0 * msteps * (static_cast<double>(mgrid) * block / 32);
    r.dmma_tflops = mmas * 2 * 8 * 8 * 4 / (mms * 1e-3) / 1e12;
    const float m16 =
        ev.median_ms([&] { dmma_1684_rate<<<mgrid, block>>>(msteps, 1.0000001, 1e-9, d_dsink); });
    r.dmma_1684_tflops = mmas * 2 * 16 * 8 * 4 / (m16 * 1e-3) / 1e12;
  }
  MICRO_CHECK(cudaFree(d_cycles));
  MICRO_CHECK(cudaFree(d_sink));
  MICRO_CHECK(cudaFree(d_dsink));
}

void print(const Report& r) {
  std::printf("device %s, %d SMs, measured SM clock %.3f GHz\n\n", r.device.c_str(), r.sms, r.clock_ghz);
  std::printf("1. copy bandwidth (read + write, 1 GiB, GB/s) by width and start offset (bytes)\n");
  std::printf("%8s %10s %10s %10s\n", "offset", "32-bit", "64-bit", "128-bit");
  for (int off : {0, 4, 8, 16, 32, 64, 96, 128}) {
    std::printf("%8d", off);
    for (int w : {32, 64, 128}) {
      const auto it = std::find_if(r.copy.begin(), r.copy.end(), [&](const CopyPoint& p) {
        return p.width_bits == w && p.offset_bytes == off;
      });
      if (it == r.copy.end()) {
        std::printf(" %10s", "-");
      } else {
        std::printf(" %10.0f", it->gbs);
      }
    }
    std::printf("\n");
  }
  std::printf("\n2. load latency (cycles, dependent chain, one thread)\n");
  std::printf("   shared ld.32 %.1f, ld.64 %.1f, ld.128 %.1f\n", r.lat_shared[0], r.lat_shared[1],
              r.lat_shared[2]);
  std::printf("   global L1 hit %.1f, L2 hit %.1f, DRAM %.1f\n", r.lat_l1, r.lat_l2, r.lat_dram);
  std::printf("\n3. shared-memory read bandwidth (bytes per clock per SM, conflict-free)\n");
  std::printf("   32-bit %.1f, 64-bit %.1f, 128-bit %.1f (hardware: 128 B/clk)\n", r.shared_bytes_per_clk[0],
              r.shared_bytes_per_clk[1], r.shared_bytes_per_clk[2]);
  std::printf(
      "\n4. FP64: DFMA dependent latency %.1f cycles; DFMA rate %.2f TFLOP/s; DMMA rate m8n8k4 %.2f, m16n8k4 "
      "%.2f "
      "TFLOP/s\n",
      r.dfma_latency, r.dfma_tflops, r.dmma_tflops, r.dmma_1684_tflops);
}

void write_json(const Report& r, const char* path) {
  FILE* f = std::fopen(path, "w");
  if (f == nullptr) {
    std::fprintf(stderr, "spx_micro: cannot write %s\n", path);
    std::exit(1);
  }
  std::fprintf(f, "{\n  \"device\": \"%s\",\n  \"sms\": %d,\n  \"clock_ghz\": %.4f,\n  \"copy\": [",
               r.device.c_str(), r.sms, r.clock_ghz);
  for (std::size_t i = 0; i < r.copy.size(); ++i) {
    std::fprintf(f, "%s\n    {\"width_bits\": %d, \"offset_bytes\": %d, \"gbs\": %.1f}", i ? "," : "",
                 r.copy[i].width_bits, r.copy[i].offset_bytes, r.copy[i].gbs);
  }
  std::fprintf(
      f,
      "\n  ],\n  \"latency_cycles\": {\"shared_32\": %.2f, \"shared_64\": %.2f, \"shared_128\": %.2f, "
      "\"l1\": %.2f, \"l2\": %.2f, \"dram\": %.2f, \"dfma\": %.2f},\n",
      r.lat_shared[0], r.lat_shared[1], r.lat_shared[2], r.lat_l1, r.lat_l2, r.lat_dram, r.dfma_latency);
  std::fprintf(f, "  \"shared_bytes_per_clock_per_sm\": {\"w32\": %.2f, \"w64\": %.2f, \"w128\": %.2f},\n",
               r.shared_bytes_per_clk[0], r.shared_bytes_per_clk[1], r.shared_bytes_per_clk[2]);
  std::fprintf(f, "  \"dfma_tflops\": %.3f,\n  \"dmma_884_tflops\": %.3f,\n  \"dmma_1684_tflops\": %.3f\n}\n",
               r.dfma_tflops, r.dmma_tflops, r.dmma_1684_tflops);
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  const char* json = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json = argv[++i];
    } else {
      std::fprintf(stderr, "usage: spx_micro [--json FILE]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "spx_micro: no usable CUDA device\n");
    return 1;
  }
  Report r;
  measure(r);
  print(r);
  if (json != nullptr) write_json(r, json);
  return 0;
}
