// Warp- and block-level reduce and scan (src/cuda/common/warp.cuh, block.cuh) against host loops,
// on an odd number of elements (the last group partial), for int (exact), float and double; and the
// run sums of run_sum.cuh on runs around every batch boundary.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cuda/common/block.cuh"
#include "cuda/common/check.hpp"
#include "cuda/common/run_sum.cuh"
#include "cuda/common/warp.cuh"
#include "gpu_test_support.hpp"

namespace spx::test {
namespace {

constexpr int kN = 10007;  // prime: every group size leaves a partial last group

// Out-of-range threads contribute the identity and write nothing, as kernels over ragged data do.
template <int Width, class T>
__global__ void warp_primitives_kernel(const T* in, T* sum, T* inclusive, T* exclusive, T* maximum, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const T v = i < n ? in[i] : T{0};
  const T s = cuda::warp_reduce_sum<Width>(v);
  const T inc = cuda::warp_inclusive_scan<Width>(v);
  const T exc = cuda::warp_exclusive_scan<Width>(v);
  const T mx = cuda::warp_reduce<Width>(i < n ? v : cuda::Max::identity<T>(), cuda::Max{});
  if (i < n) {
    sum[i] = s;
    inclusive[i] = inc;
    exclusive[i] = exc;
    maximum[i] = mx;
  }
}

template <int Block, class T>
__global__ void block_primitives_kernel(const T* in, T* sum, T* inclusive, T* exclusive, T* totals, int n) {
  __shared__ cuda::BlockScratch<T, Block> scratch;
  const int i = static_cast<int>(blockIdx.x * Block + threadIdx.x);
  const T v = i < n ? in[i] : T{0};
  // Back to back on one scratch: also checks that each call leaves it reusable.
  const T s = cuda::block_reduce_sum<Block>(v, scratch);
  T total{};
  const T inc = cuda::block_inclusive_scan<Block>(v, scratch, &total);
  const T exc = cuda::block_exclusive_scan<Block>(v, scratch);
  if (i < n) {
    sum[i] = s;
    inclusive[i] = inc;
    exclusive[i] = exc;
  }
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

template <class T>
std::vector<T> test_input(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(kN);
  if constexpr (std::is_integral_v<T>) {
    // 64-bit values past 2^32, so both halves of a 64-bit shuffle matter (sums stay exact in the
    // double oracle: 1024 * 1000 * 2^33 < 2^53).
    const T scale = sizeof(T) == 8 ? static_cast<T>(int64_t{1} << 33) : T{1};
    std::uniform_int_distribution<int> d(-1000, 1000);
    for (auto& e : v) e = static_cast<T>(d(rng)) * scale;
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& e : v) e = static_cast<T>(d(rng));
  }
  return v;
}

// Host oracle over groups of `group` consecutive elements: sums, prefix sums and maxima in double
// (exact for the int inputs), with sum |v| as the magnitude for the float bounds.
struct GroupOracle {
  std::vector<double> sum, inclusive, exclusive, maximum, sum_abs, prefix_abs;
  std::vector<int64_t> group_len, prefix_len;
};

template <class T>
GroupOracle oracle(const std::vector<T>& v, int group) {
  GroupOracle o;
  const int n = static_cast<int>(v.size());
  for (auto* vec : {&o.sum, &o.inclusive, &o.exclusive, &o.maximum, &o.sum_abs, &o.prefix_abs})
    vec->resize(n);
  o.group_len.resize(n);
  o.prefix_len.resize(n);
  for (int g = 0; g < n; g += group) {
    const int end = std::min(n, g + group);
    double s = 0, sa = 0, mx = -INFINITY;
    for (int i = g; i < end; ++i) {
      o.exclusive[i] = s;
      s += static_cast<double>(v[i]);
      sa += std::abs(static_cast<double>(v[i]));
      o.inclusive[i] = s;
      o.prefix_abs[i] = sa;
      o.prefix_len[i] = i - g + 1;
      mx = std::max(mx, static_cast<double>(v[i]));
    }
    for (int i = g; i < end; ++i) {
      o.sum[i] = s;
      o.sum_abs[i] = sa;
      o.maximum[i] = mx;
      o.group_len[i] = end - g;
    }
  }
  return o;
}

template <class T>
void expect_close(const std::vector<T>& got, const std::vector<double>& want,
                  const std::vector<double>& magnitude, const std::vector<int64_t>& terms,
                  const std::string& what) {
  int reported = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double diff = std::abs(static_cast<double>(got[i]) - want[i]);
    const double tol = std::is_integral_v<T> ? 0.0 : device_tolerance<T>(magnitude[i], terms[i]);
    if (!(diff <= tol) && reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
  }
}

template <int Width, class T>
void check_warp(const char* type) {
  auto& ctx = gpu();
  const auto in = test_input<T>(fresh_seed());
  auto d_in = cuda::to_device(ctx, in);
  cuda::DeviceBuffer<T> sum(kN), inc(kN), exc(kN), mx(kN);
  constexpr int kBlock = 128;
  warp_primitives_kernel<Width, T><<<(kN + kBlock - 1) / kBlock, kBlock, 0, ctx.stream()>>>(
      d_in.data(), sum.data(), inc.data(), exc.data(), mx.data(), kN);
  SPX_CHECK_LAUNCH("warp_primitives_kernel", ctx.stream());
  const auto o = oracle(in, Width);
  const std::string what = std::string("warp width ") + std::to_string(Width) + " " + type;
  expect_close(cuda::to_host(ctx, sum), o.sum, o.sum_abs, o.group_len, what + " reduce");
  expect_close(cuda::to_host(ctx, inc), o.inclusive, o.prefix_abs, o.prefix_len, what + " inclusive scan");
  expect_close(cuda::to_host(ctx, exc), o.exclusive, o.prefix_abs, o.prefix_len, what + " exclusive scan");
  expect_close(cuda::to_host(ctx, mx), o.maximum, o.sum_abs, o.group_len, what + " max");
}

template <int Block, class T>
void check_block(const char* type) {
  auto& ctx = gpu();
  const auto in = test_input<T>(fresh_seed());
  auto d_in = cuda::to_device(ctx, in);
  const int blocks = (kN + Block - 1) / Block;
  cuda::DeviceBuffer<T> sum(kN), inc(kN), exc(kN), totals(static_cast<std::size_t>(blocks));
  block_primitives_kernel<Block, T><<<blocks, Block, 0, ctx.stream()>>>(d_in.data(), sum.data(), inc.data(),
                                                                        exc.data(), totals.data(), kN);
  SPX_CHECK_LAUNCH("block_primitives_kernel", ctx.stream());
  const auto o = oracle(in, Block);
  const std::string what = std::string("block of ") + std::to_string(Block) + " " + type;
  expect_close(cuda::to_host(ctx, sum), o.sum, o.sum_abs, o.group_len, what + " reduce");
  expect_close(cuda::to_host(ctx, inc), o.inclusive, o.prefix_abs, o.prefix_len, what + " inclusive scan");
  expect_close(cuda::to_host(ctx, exc), o.exclusive, o.prefix_abs, o.prefix_len, what + " exclusive scan");
  std::vector<double> want_totals, mag_totals;
  std::vector<int64_t> len_totals;
  for (int b = 0; b < blocks; ++b) {
    want_totals.push_back(o.sum[b * Block]);
    mag_totals.push_back(o.sum_abs[b * Block]);
    len_totals.push_back(o.group_len[b * Block]);
  }
  expect_close(cuda::to_host(ctx, totals), want_totals, mag_totals, len_totals, what + " scan total");
}

template <class T>
void check_all(const char* type) {
  check_warp<32, T>(type);
  check_warp<16, T>(type);
  check_warp<8, T>(type);
  check_warp<2, T>(type);
  check_block<32, T>(type);
  check_block<96, T>(type);  // 3 warps: not a power of two
  check_block<256, T>(type);
  check_block<1024, T>(type);
}

TEST(GpuPrimitives, WarpAndBlockReduceAndScanInt) {
  SPX_REQUIRE_GPU();
  check_all<int>("int");
}

TEST(GpuPrimitives, WarpAndBlockReduceAndScanFloat) {
  SPX_REQUIRE_GPU();
  check_all<float>("float");
}

TEST(GpuPrimitives, WarpAndBlockReduceAndScanDouble) {
  SPX_REQUIRE_GPU();
  check_all<double>("double");
}

TEST(GpuPrimitives, WarpReduceOfInt64IsExact) {
  SPX_REQUIRE_GPU();
  // 64-bit shuffles (two 32-bit halves) with values past 2^32.
  check_warp<32, long long>("int64");
}

// The combining step of the COO boundary and segsum synchronizer kernels (sum_run_after): the thread at the
// start of each run (key >= 0, previous key different) sums the first 8 entries after it itself and the rest
// of a longer run with its warp.
__global__ void run_sum_kernel(const int32_t* keys, const double* values, int64_t n, double* out) {
  const int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  int32_t key = -1;
  double sum = 0;
  if (i < n && keys[i] >= 0 && (i == 0 || keys[i - 1] != keys[i])) {
    key = keys[i];
    sum = values[i];
  }
  sum = cuda::sum_run_after<8, 4>(keys, values, n, key >= 0, key, i + 1, sum);
  if (i < n) out[i] = key >= 0 ? sum : -1.0;
}

TEST(GpuPrimitives, RunSumsCoverEveryRunLength) {
  SPX_REQUIRE_GPU();
  // Runs of every length around the thread prefix (8) and the warp batch (32 x 4 = 128), a
  // separator key -1 between some runs, and a long run reaching the end of the array. Integer
  // values: every sum is exact, whatever the order.
  std::vector<int32_t> keys;
  std::vector<double> values;
  std::mt19937_64 rng(fresh_seed());
  int32_t key = 0;
  const std::vector<int> lengths{1,  2,  7,   8,   9,   10,  16,  31,  32,  33,
                                 40, 41, 127, 128, 129, 136, 137, 500, 4099};
  for (int rep = 0; rep < 3; ++rep) {
    for (int len : lengths) {
      for (int k = 0; k < len; ++k) {
        keys.push_back(key);
        values.push_back(static_cast<double>(rng() % 1000));
      }
      ++key;
      if (rng() % 3 == 0) {
        keys.push_back(-1);
        values.push_back(1e9);  // never added
      }
    }
  }
  for (int k = 0; k < 3001; ++k) {
    keys.push_back(key);
    values.push_back(static_cast<double>(rng() % 1000));
  }
  const auto n = static_cast<int64_t>(keys.size());
  std::vector<double> want(keys.size(), -1.0);
  for (int64_t i = 0; i < n; ++i) {
    if (keys[i] < 0 || (i > 0 && keys[i - 1] == keys[i])) continue;
    double s = 0;
    for (int64_t j = i; j < n && keys[j] == keys[i]; ++j) s += values[j];
    want[i] = s;
  }
  auto& ctx = gpu();
  const auto d_keys = cuda::to_device(ctx, keys);
  const auto d_values = cuda::to_device(ctx, values);
  auto out = cuda::to_device(ctx, std::vector<double>(keys.size(), std::nan("")));  // poisoned
  const auto blocks = static_cast<unsigned>((n + 127) / 128);
  run_sum_kernel<<<blocks, 128, 0, ctx.stream()>>>(d_keys.data(), d_values.data(), n, out.data());
  SPX_CHECK_LAUNCH("run_sum_kernel", ctx.stream());
  const std::vector<double> got = cuda::to_host(ctx, out);
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << "entry " << i << " key " << keys[i];
}

}  // namespace
}  // namespace spx::test
