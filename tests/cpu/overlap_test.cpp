// The aliasing contract of the C++ API (spx/cpu.hpp): an output overlapping its input, in the parts
// the product touches, is an spx::Error naming both, raised before anything is written; disjoint
// operands in one buffer are fine. Also the shared byte-range test (src/common/overlap.hpp) itself.
#include "common/overlap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "spx/cpu.hpp"
#include "test_support.hpp"

namespace spx::test {
namespace {

TEST(Overlap, ByteRanges) {
  std::vector<double> v(20);
  const double* p = v.data();
  EXPECT_TRUE(overlap(vector_bytes(p, 5, 8), vector_bytes(p, 5, 8)));
  EXPECT_TRUE(overlap(vector_bytes(p, 5, 8), vector_bytes(p + 4, 5, 8)));
  EXPECT_FALSE(overlap(vector_bytes(p, 5, 8), vector_bytes(p + 5, 5, 8)));  // adjacent
  EXPECT_FALSE(overlap(vector_bytes(p, 0, 8), vector_bytes(p, 5, 8)));      // empty
  // 3 rows of 2, ld 4: elements 0..9; a view starting at element 9 touches it, at 10 does not.
  EXPECT_TRUE(overlap(dense_bytes(p, 3, 2, 4, 8), vector_bytes(p + 9, 1, 8)));
  EXPECT_FALSE(overlap(dense_bytes(p, 3, 2, 4, 8), vector_bytes(p + 10, 1, 8)));
  EXPECT_TRUE(dense_bytes(p, 0, 2, 4, 8).empty());
}

template <class T>
class CpuAliasing : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CpuAliasing, Precisions);

TYPED_TEST(CpuAliasing, SpmvRefusesAnOutputOverlappingX) {
  using T = TypeParam;
  const auto A = random_csr<T, int32_t>(10, 10, 1, 4, 3);
  std::vector<T> buf(25, T{1});
  const std::span<T> all(buf);
  for (const auto& run :
       {std::function<void(std::span<const T>, std::span<T>)>(
            [&](std::span<const T> x, std::span<T> y) { omp::spmv(A, x, y); }),
        std::function<void(std::span<const T>, std::span<T>)>(
            [&](std::span<const T> x, std::span<T> y) { ref::spmv(A, x, y, T{1}, T{2}); })}) {
    const std::vector<T> before = buf;
    expect_error([&] { run(all.first(10), all.first(10)); }, "spmv: the output y overlaps the input x");
    expect_error([&] { run(all.subspan(3, 10), all.first(10)); }, "overlaps");
    expect_error([&] { run(all.first(10), all.subspan(9, 10)); }, "overlaps");
    EXPECT_EQ(buf, before);                   // nothing written
    run(all.first(10), all.subspan(10, 10));  // adjacent, disjoint: computed
    // Only the parts used count: x longer than cols(A) reaching into y is fine (x is read up to cols).
    run(all.first(15), all.subspan(10, 10));
  }
}

TYPED_TEST(CpuAliasing, SpmmRefusesAnOutputOverlappingB) {
  using T = TypeParam;
  const auto A = random_csr<T, int32_t>(6, 6, 1, 3, 4);
  Dense<T> D(6, 3, Layout::RowMajor, T{1});
  expect_error([&] { omp::spmm(A, D, D); }, "spmm: the output C overlaps the input B");
  expect_error([&] { ref::spmm(A, D, D); }, "spmm: the output C overlaps the input B");
  Dense<T> C(6, 3, Layout::RowMajor);
  omp::spmm(A, D, C);  // separate operands: fine
}

}  // namespace
}  // namespace spx::test
