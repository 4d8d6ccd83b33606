// spx::omp against spx::ref (SpmvIsEquivalentToRef, SpmmIsEquivalentToRef), with the thread count
// forced above the core count so that merge-path cuts land inside rows, plus the merge-path
// partition itself. Tolerances: cpu_kernel_bounds.hpp (both sides sum in double).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "cpu/cpu_kernel_bounds.hpp"
#include "cpu/merge_path.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/threads.hpp"
#include "test_support.hpp"

namespace spx::test {
namespace {

template <class T_, class I_>
struct Types {
  using T = T_;
  using I = I_;
};
using ValueIndexTypes = ::testing::Types<Types<float, int32_t>, Types<float, int64_t>, Types<double, int32_t>,
                                         Types<double, int64_t>>;

template <class P>
class CpuOmp : public ::testing::Test {
 protected:
  // Tests change OpenMP's thread count; put it back for the other suites.
  void SetUp() override { saved_threads_ = omp_get_max_threads(); }
  void TearDown() override { omp_set_num_threads(saved_threads_); }
  int saved_threads_ = 1;
};
TYPED_TEST_SUITE(CpuOmp, ValueIndexTypes);

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// set_threads is the library's one way to set the CPU kernels' threads: 100000 crashed libgomp
// (spx bench --threads 100000), so it takes 1 .. kThreadsPerHardwareThread x the hardware threads.
TEST(CpuOmpThreads, SetThreadsIsRangeChecked) {
  const int saved = omp_get_max_threads();
  const int most = omp::max_settable_threads();
  EXPECT_EQ(most % omp::kThreadsPerHardwareThread, 0);
  for (const int bad : {0, -1, most + 1, 100000}) {
    SCOPED_TRACE(bad);
    try {
      omp::set_threads(bad);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("give 1 to {}", most)), std::string::npos) << e.what();
    }
    EXPECT_EQ(omp_get_max_threads(), saved);
  }
  omp::set_threads(1);
  EXPECT_EQ(omp::max_threads(), 1);
  omp::set_threads(most);
  EXPECT_EQ(omp::max_threads(), most);
  omp_set_num_threads(saved);
}

// 1 thread, the machine's count, and more threads than cores (3 and 8) so that cuts fall inside
// rows even on a 2-core machine.
std::vector<int> thread_counts() { return {1, 2, 3, 8}; }

// rows × cols with one row (at `long_row`, if >= 0) of `long_len` nonzeros among random short rows.
template <class T, class I>
Csr<T, I> with_long_row(I rows, I cols, I max_len, double empty_fraction, int64_t long_row, I long_len,
                        uint64_t seed) {
  auto A = random_csr<T, I>(rows, cols, 0, max_len, seed, empty_fraction);
  if (long_row < 0) return A;
  Csr<T, I> B(rows, cols);
  const auto long_values = random_vector<T>(static_cast<std::size_t>(long_len), seed + 7);
  for (I r = 0; r < rows; ++r) {
    if (r == long_row) {
      for (I k = 0; k < long_len; ++k) {  // evenly spread distinct columns
        B.col_idx.push_back(static_cast<I>(static_cast<int64_t>(k) * cols / long_len));
        B.values.push_back(long_values[k]);
      }
    } else {
      for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
        B.col_idx.push_back(A.col_idx[k]);
        B.values.push_back(A.values[k]);
      }
    }
    B.row_ptr[r + 1] = static_cast<I>(B.col_idx.size());
  }
  return B;
}

struct Case {
  int64_t rows, cols, max_len;
  double empty_fraction;
  int64_t long_row, long_len;
};

// Big enough (rows + nnz >= 8 * 16384) that the kernel really starts 8 threads.
const Case kCases[] = {
    {8000, 8000, 40, 0.2, -1, 0},          // random, some empty rows
    {1, 300000, 0, 0, 0, 200000},          // 1 × n: one row cut into 8 pieces
    {200000, 1, 1, 0.3, -1, 0},            // n × 1
    {150000, 10, 0, 0, -1, 0},             // no nonzeros at all
    {3000, 250000, 8, 0.5, 1500, 200000},  // one huge row among short and empty ones
    {20000, 400000, 24, 0.1, -1, 0},       // scattered columns, x past 1 MB: the prefetching loop
    {2, 2, 2, 0, -1, 0},                   // tiny: one thread
    {0, 0, 0, 0, -1, 0},                   // empty
};

TYPED_TEST(CpuOmp, SpmvIsEquivalentToRef) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const double alphas_betas[][2] = {{1, 0}, {-1.5, 0.25}};
  for (const Case& c : kCases) {
    const auto A =
        with_long_row<T, I>(static_cast<I>(c.rows), static_cast<I>(c.cols), static_cast<I>(c.max_len),
                            c.empty_fraction, c.long_row, static_cast<I>(c.long_len), seed);
    const auto x = random_vector<T>(static_cast<std::size_t>(c.cols), seed + 1);
    const auto y_old = random_vector<T>(static_cast<std::size_t>(c.rows), seed + 2);
    for (const auto& ab : alphas_betas) {
      const T alpha = static_cast<T>(ab[0]), beta = static_cast<T>(ab[1]);
      std::vector<T> want(y_old);
      ref::spmv(A, std::span<const T>(x), std::span<T>(want), alpha, beta);
      std::vector<double> m;
      std::vector<int64_t> n;
      spmv_bounds(A, std::span<const T>(x), std::span<const T>(y_old), ab[0], ab[1], m, n);
      for (int threads : thread_counts()) {
        SCOPED_TRACE(testing::Message() << c.rows << "x" << c.cols << " nnz=" << A.nnz()
                                        << " threads=" << threads << " beta=" << ab[1]);
        omp_set_num_threads(threads);
        std::vector<T> y(y_old);
        if (beta == T{0}) poison(std::span<T>(y));  // beta == 0 must not read y
        omp::spmv(A, std::span<const T>(x), std::span<T>(y), alpha, beta);
        expect_within_bounds(std::span<const T>(y), std::span<const T>(want), m, n, "omp vs ref");
      }
    }
  }
}

TYPED_TEST(CpuOmp, SpmvAlphaZeroOnlyScalesY) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const auto A = random_csr<T, I>(50000, 100, 0, 3, 11);
  const std::vector<T> x(100, static_cast<T>(kNaN));  // not read when alpha == 0
  std::vector<T> y(50000, T{3});
  omp::spmv(A, std::span<const T>(x), std::span<T>(y), T{0}, T{-2});
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](T v) { return v == T{-6}; }));
  poison(std::span<T>(y));
  omp::spmv(A, std::span<const T>(x), std::span<T>(y), T{0}, T{0});
  EXPECT_TRUE(std::all_of(y.begin(), y.end(), [](T v) { return v == T{0}; }));
}

TYPED_TEST(CpuOmp, WrongSizesAreErrors) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const auto A = random_csr<T, I>(4, 10, 1, 3, 7);
  std::vector<T> x(10), y(4), short_x(9), short_y(3);
  expect_error([&] { omp::spmv(A, std::span<const T>(short_x), std::span<T>(y)); },
               "spmv: x has 9 entries, matrix has 10 columns");
  expect_error([&] { omp::spmv(A, std::span<const T>(x), std::span<T>(short_y)); },
               "spmv: y has 3 entries, matrix has 4 rows");
  auto bad = A;
  bad.row_ptr.push_back(bad.row_ptr.back());
  expect_error([&] { omp::spmv(bad, std::span<const T>(x), std::span<T>(y)); }, "row_ptr has 6 entries");
  Dense<T> B(9, 2), C(4, 2);
  expect_error([&] { omp::spmm(A, B, C); }, "spmm: B has 9 rows, A has 10 columns");
  Dense<T> B_ok(10, 2), C_bad(4, 3);
  expect_error([&] { omp::spmm(A, B_ok, C_bad); }, "spmm: C is 4 x 3, expected 4 x 2");
}

TYPED_TEST(CpuOmp, SpmmIsEquivalentToRef) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  // Random rows with a long one (cut between threads), and 1 × n, both above the threading threshold.
  const Case cases[] = {{3000, 2000, 20, 0.2, 700, 1500}, {1, 40000, 0, 0, 0, 30000}, {5, 3, 2, 0, -1, 0}};
  for (const Case& c : cases) {
    const auto A =
        with_long_row<T, I>(static_cast<I>(c.rows), static_cast<I>(c.cols), static_cast<I>(c.max_len),
                            c.empty_fraction, c.long_row, static_cast<I>(c.long_len), seed);
    for (int64_t L : {1, 8, 13})
      for (Layout b_layout : {Layout::RowMajor, Layout::ColMajor})
        for (Layout c_layout : {Layout::RowMajor, Layout::ColMajor}) {
          const double alpha = 0.5, beta = L == 8 ? 0.0 : 2.0;
          Dense<T> B = poisoned_dense<T>(c.cols, L, b_layout, 1);
          Dense<T> C_old = poisoned_dense<T>(c.rows, L, c_layout, 3);
          const auto b_values = random_vector<T>(static_cast<std::size_t>(c.cols * L), seed + 1);
          const auto c_values = random_vector<T>(static_cast<std::size_t>(c.rows * L), seed + 2);
          for (int64_t i = 0; i < c.cols; ++i)
            for (int64_t j = 0; j < L; ++j) B(i, j) = b_values[i * L + j];
          if (beta != 0)
            for (int64_t i = 0; i < c.rows; ++i)
              for (int64_t j = 0; j < L; ++j) C_old(i, j) = c_values[i * L + j];
          Dense<T> want = C_old;
          ref::spmm(A, B, want, static_cast<T>(alpha), static_cast<T>(beta));
          const auto want_entries = logical_entries(want);
          std::vector<double> m;
          std::vector<int64_t> n;
          spmm_bounds(A, B, C_old, alpha, beta, m, n);
          for (int threads : {1, 3, 8}) {
            SCOPED_TRACE(testing::Message()
                         << c.rows << "x" << c.cols << " L=" << L << " B "
                         << (b_layout == Layout::RowMajor ? "row" : "col") << " C "
                         << (c_layout == Layout::RowMajor ? "row" : "col") << " threads=" << threads);
            omp_set_num_threads(threads);
            Dense<T> C = C_old;
            omp::spmm(A, B, C, static_cast<T>(alpha), static_cast<T>(beta));
            expect_within_bounds(std::span<const T>(logical_entries(C)), std::span<const T>(want_entries), m,
                                 n, "omp vs ref");
            EXPECT_TRUE(padding_untouched(C));
          }
        }
  }
}

TYPED_TEST(CpuOmp, SpmmAlphaZeroAndEmpty) {
  using T = typename TypeParam::T;
  using I = typename TypeParam::I;
  const auto A = random_csr<T, I>(7, 5, 0, 5, 3);
  Dense<T> B(5, 4, Layout::RowMajor, static_cast<T>(kNaN));
  Dense<T> C(7, 4, Layout::ColMajor, T{2});
  omp::spmm(A, B, C, T{0}, T{0.5});
  EXPECT_EQ(C.data, std::vector<T>(28, T{1}));
  Dense<T> B0(5, 0), C0(7, 0);
  omp::spmm(A, B0, C0);
  Dense<T> Be(0, 3), Ce(0, 3);
  omp::spmm(Csr<T, I>(0, 0), Be, Ce);
}

// White-box: the merge-path pieces of every thread count tile each row exactly once, each row is
// written once (one whole piece) or split into partial pieces only, and the work is balanced.
TEST(CpuOmpMergePath, PiecesTileTheMatrixAndBalanceWork) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE(testing::Message() << "SPX_TEST_SEED=" << seed);
  const auto A = random_csr<float, int32_t>(500, 2000, 0, 30, seed, 0.3);
  const auto B = random_csr<float, int32_t>(3, 2000, 1500, 1500, seed + 1);  // long rows, cut many times
  for (const auto* M : {&A, &B}) {
    const int64_t rows = M->rows, nnz = M->nnz();
    for (int parts = 1; parts <= 13; ++parts) {
      std::vector<int64_t> covered(static_cast<std::size_t>(rows), 0),
          whole(static_cast<std::size_t>(rows), 0), partial(static_cast<std::size_t>(rows), 0);
      int64_t next_nz = 0, max_steps = 0;
      for (int t = 0; t < parts; ++t) {
        const auto s = cpu_detail::merge_path_segment(M->row_ptr.data(), rows, nnz, t, parts);
        max_steps = std::max(max_steps, (s.end.row - s.begin.row) + (s.end.nz - s.begin.nz));
        cpu_detail::for_each_row_piece(s, M->row_ptr.data(),
                                       [&](int64_t row, int64_t b, int64_t e, bool is_whole) {
                                         ASSERT_EQ(b, next_nz) << "pieces must follow each other";
                                         ASSERT_LE(b, e);
                                         ASSERT_GE(b, M->row_ptr[row]);
                                         ASSERT_LE(e, M->row_ptr[row + 1]);
                                         next_nz = e;
                                         covered[row] += e - b;
                                         (is_whole ? whole : partial)[row]++;
                                       });
      }
      EXPECT_EQ(next_nz, nnz);
      for (int64_t r = 0; r < rows; ++r) {
        EXPECT_EQ(covered[r], M->row_length(static_cast<int32_t>(r))) << "row " << r;
        EXPECT_TRUE((whole[r] == 1 && partial[r] == 0) || (whole[r] == 0 && partial[r] >= 2)) << "row " << r;
      }
      // Equal shares of rows + nnz steps, up to rounding.
      EXPECT_LE(max_steps, (rows + nnz + parts - 1) / parts) << parts << " parts";
    }
  }
}

}  // namespace
}  // namespace spx::test
