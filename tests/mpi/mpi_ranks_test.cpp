// The MPI ranks (spx/dist_mpi.hpp), run by CTest under mpirun with 1, 2 and 4 ranks of one thread
// each: every rank checks its own rows against the single-process result, bitwise — SpMV against
// spx::omp::spmv of the whole matrix, CG against the same solver on this process alone (one rank,
// MPI_COMM_SELF). Every matrix is small enough for each rank to build it whole as the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test_support.hpp"
#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/dist_graph.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace mpi = spx::dist::mpi;
using spx::Csr;
using spx::dist::Partition;

namespace {

using spx::test::mpi_ranks::block;
using spx::test::mpi_ranks::same_bits;
using spx::test::mpi_ranks::test_vector;

template <class T>
void expect_spmv_matches_whole(const Csr<T, int32_t>& whole, const Partition& rows, const Partition& cols) {
  const int r = mpi::rank();
  const auto my_rows = mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                    rows.begin[static_cast<std::size_t>(r) + 1]);
  const auto A = mpi::distribute(mpi::Group::World, my_rows, rows, cols);
  const std::vector<T> x = test_vector<T>(whole.cols);
  std::vector<T> want(static_cast<std::size_t>(whole.rows));
  spx::omp::spmv(whole, std::span<const T>(x), std::span<T>(want));
  std::vector<T> got(static_cast<std::size_t>(rows.block_size(r)));
  mpi::Product<T> product(A);
  for (int repeat = 0; repeat < 2; ++repeat) {  // the buffers are reused
    product(block(x, cols, r), std::span<T>(got));
    EXPECT_TRUE(same_bits(std::span<const T>(got), block(want, rows, r)))
        << "rank " << r << " of " << mpi::size();
  }
}

TEST(MpiRanks, SpmvIsBitwiseTheWholeProduct) {
  const int P = mpi::size();
  const auto stencil = spx::gen::stencil_2d_5pt<double>(23, 17);
  expect_spmv_matches_whole(stencil, spx::dist::partition_rows(stencil, P),
                            spx::dist::partition_rows(stencil, P));
  // Irregular: most of a power-law matrix's columns are remote.
  const auto pl = spx::gen::power_law<double, int32_t>(600, 8.0, 2.1, 3);
  const auto p = spx::dist::partition_rows(pl, P);
  expect_spmv_matches_whole(pl, p, p);
  const auto plf = spx::gen::power_law<float, int32_t>(600, 8.0, 2.1, 3);
  expect_spmv_matches_whole(plf, p, p);
  // Rectangular, x split evenly (and differently from the rows).
  const auto rect = spx::gen::random_uniform<double, int32_t>(301, 157, 9, 5);
  expect_spmv_matches_whole(rect, spx::dist::partition_rows(rect, P), spx::dist::partition_even(157, P));
}

// distribute_parts gives this rank exactly the part, messages and statistics that the
// single-process split (spx::dist::distribute) gives it, on a power-law matrix (many neighbours)
// and a rectangular one (x split unlike the rows).
template <class T>
void expect_parts_match_the_whole_split(const Csr<T, int32_t>& whole, const Partition& rows,
                                        const Partition& cols) {
  const int r = mpi::rank();
  const auto mine = mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                 rows.begin[static_cast<std::size_t>(r) + 1]);
  const spx::dist::DistMatrix<T> D = mpi::distribute_parts(mpi::Group::World, mine, rows, cols);
  const spx::dist::DistMatrix<T> W = spx::dist::distribute(whole, rows, cols);
  ASSERT_EQ(D.parts.size(), W.parts.size());
  const auto& got = D.parts[static_cast<std::size_t>(r)];
  const auto& want = W.parts[static_cast<std::size_t>(r)];
  EXPECT_EQ(got.halo_global, want.halo_global);
  ASSERT_EQ(got.local.size(), want.local.size());
  for (std::size_t s = 0; s < got.local.size(); ++s) {
    EXPECT_EQ(got.local[s].A.row_ptr, want.local[s].A.row_ptr);
    EXPECT_EQ(got.local[s].A.col_idx, want.local[s].A.col_idx);
    EXPECT_EQ(got.local[s].A.values, want.local[s].A.values);
  }
  EXPECT_EQ(got.remote.col_idx, want.remote.col_idx);
  for (std::size_t k = 0; k < D.parts.size(); ++k) {  // the shells carry the ranges
    EXPECT_EQ(D.parts[k].row_begin, W.parts[k].row_begin);
    EXPECT_EQ(D.parts[k].col_end, W.parts[k].col_end);
  }
  // Its messages: those of the whole split that it sends or receives, in the same order.
  std::vector<spx::dist::HaloMessage> ends;
  for (const auto& m : W.messages)
    if (m.to == r || m.from == r) ends.push_back(m);
  ASSERT_EQ(D.messages.size(), ends.size());
  for (std::size_t k = 0; k < ends.size(); ++k) {
    EXPECT_EQ(D.messages[k].from, ends[k].from);
    EXPECT_EQ(D.messages[k].to, ends[k].to);
    EXPECT_EQ(D.messages[k].recv_offset, ends[k].recv_offset);
    EXPECT_EQ(D.messages[k].send_local, ends[k].send_local);
  }
  ASSERT_TRUE(D.stats.has_value());
  const spx::dist::DistStats s = spx::dist::statistics(W);
  EXPECT_EQ(D.stats->nnz, s.nnz);
  EXPECT_EQ(D.stats->halo_entries, s.halo_entries);
  EXPECT_EQ(D.stats->messages, s.messages);
  EXPECT_EQ(D.stats->max_rank_recv_bytes_f64, s.max_rank_recv_bytes_f64);
  EXPECT_DOUBLE_EQ(D.stats->nnz_imbalance, s.nnz_imbalance);
  for (std::size_t k = 0; k < s.per_rank.size(); ++k) {
    EXPECT_EQ(D.stats->per_rank[k].halo_send, s.per_rank[k].halo_send) << "rank " << k;
    EXPECT_EQ(D.stats->per_rank[k].neighbours_recv, s.per_rank[k].neighbours_recv) << "rank " << k;
    EXPECT_EQ(D.stats->per_rank[k].remote_nnz, s.per_rank[k].remote_nnz) << "rank " << k;
  }
}

TEST(MpiRanks, DistributePartsIsThisRanksShareOfTheWholeSplit) {
  const int P = mpi::size();
  const auto pl = spx::gen::power_law<double, int32_t>(700, 8.0, 2.1, 11);
  const auto p = spx::dist::partition_rows(pl, P);
  expect_parts_match_the_whole_split(pl, p, p);
  const auto rect = spx::gen::random_uniform<float, int32_t>(301, 157, 9, 5);
  expect_parts_match_the_whole_split(rect, spx::dist::partition_rows(rect, P),
                                     spx::dist::partition_even(157, P));
}

TEST(MpiRanks, StencilRowsGeneratedPerRankMatchTheWholeMatrix) {
  const int P = mpi::size(), r = mpi::rank();
  const int64_t nx = 9, ny = 8, nz = 7, n = nx * ny * nz;
  const auto rows = spx::dist::partition_even(n, P);
  const int64_t begin = rows.begin[static_cast<std::size_t>(r)],
                end = rows.begin[static_cast<std::size_t>(r) + 1];
  const auto A = mpi::distribute(mpi::Group::World,
                                 spx::gen::stencil_rows<double>(27, nx, ny, nz, begin, end), rows, rows);
  const auto whole = spx::gen::stencil_3d_27pt<double>(nx, ny, nz);
  const std::vector<double> x = test_vector<double>(n);
  std::vector<double> want(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(end - begin));
  spx::omp::spmv(whole, std::span<const double>(x), std::span<double>(want));
  mpi::Product<double> product(A);
  product(block(x, rows, r), std::span<double>(got));
  EXPECT_TRUE(same_bits(std::span<const double>(got), block(want, rows, r)));
  EXPECT_EQ(mpi::sum_over_ranks(static_cast<int64_t>(A.A.nnz())), static_cast<int64_t>(whole.nnz()));
}

template <class T>
void expect_cg_is_rank_independent(const Csr<T, int32_t>& whole, spx::Preconditioner pre) {
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  const auto one = spx::dist::partition_even(whole.rows, 1);
  const auto alone = mpi::distribute(mpi::Group::Self, mpi::rows_of(whole, 0, whole.rows), one, one);
  spx::CgOptions o;
  o.rtol = 1e-6;
  o.max_iterations = 2000;
  o.preconditioner = pre;
  const std::vector<T> b = test_vector<T>(whole.rows);
  std::vector<T> x(static_cast<std::size_t>(rows.block_size(r))), x1(b.size());
  const auto got = mpi::cg(A, block(b, rows, r), std::span<T>(x), o);
  const auto want = mpi::cg(alone, std::span<const T>(b), std::span<T>(x1), o);
  EXPECT_EQ(got.status, spx::CgStatus::Converged) << got.message;
  EXPECT_EQ(got.iterations, want.iterations);
  EXPECT_TRUE(same_bits(std::span<const double>(got.history), std::span<const double>(want.history)));
  EXPECT_TRUE(same_bits(std::span<const T>(x), block(x1, rows, r))) << "rank " << r << " of " << P;
  // spx::cg (OpenMP sums) agrees to rounding.
  std::vector<T> xs(b.size());
  const auto single = spx::cg(whole, std::span<const T>(b), std::span<T>(xs), o);
  EXPECT_EQ(single.status, spx::CgStatus::Converged);
  EXPECT_NEAR(static_cast<double>(single.iterations), static_cast<double>(got.iterations), 2.0);
}

TEST(MpiRanks, CgIteratesAreIdenticalForEveryRankCount) {
  expect_cg_is_rank_independent(spx::gen::stencil_2d_5pt<double>(31, 29), spx::Preconditioner::None);
  expect_cg_is_rank_independent(spx::gen::stencil_3d_7pt<double>(9, 8, 10), spx::Preconditioner::Jacobi);
  expect_cg_is_rank_independent(spx::gen::stencil_2d_5pt<float>(20, 20), spx::Preconditioner::Jacobi);
}

// The GPU ranks' way in: cg with an operator of the caller's. Wrapping Product gives the same bits,
// and the driver applies it once per iteration plus once for the initial residual.
template <class T>
struct CountingProduct : mpi::RankOperator<T> {
  explicit CountingProduct(const mpi::RankMatrix<T>& A) : product(A) {}
  void operator()(std::span<const T> x, std::span<T> y) override {
    ++calls;
    product(x, y);
  }
  mpi::Product<T> product;
  int64_t calls = 0;
};

TEST(MpiRanks, CgTakesAnyRankOperator) {
  const int P = mpi::size(), r = mpi::rank();
  const auto whole = spx::gen::stencil_2d_5pt<double>(25, 21);
  const auto rows = spx::dist::partition_rows(whole, P);
  const auto A = mpi::distribute(mpi::Group::World,
                                 mpi::rows_of(whole, rows.begin[static_cast<std::size_t>(r)],
                                              rows.begin[static_cast<std::size_t>(r) + 1]),
                                 rows, rows);
  spx::CgOptions o;
  o.rtol = 1e-8;
  o.preconditioner = spx::Preconditioner::Jacobi;
  o.history = true;
  const std::vector<double> b = test_vector<double>(whole.rows);
  std::vector<double> x(static_cast<std::size_t>(rows.block_size(r))), xw(x.size());
  const auto want = mpi::cg(A, block(b, rows, r), std::span<double>(x), o);
  CountingProduct<double> apply(A);
  const auto got = mpi::cg(A, apply, block(b, rows, r), std::span<double>(xw), o);
  EXPECT_EQ(got.iterations, want.iterations);
  EXPECT_EQ(apply.calls, want.iterations + 1);
  EXPECT_TRUE(same_bits(std::span<const double>(got.history), std::span<const double>(want.history)));
  EXPECT_TRUE(same_bits(std::span<const double>(xw), std::span<const double>(x)));
}

TEST(MpiRanks, RowsScatteredFromRankZeroMultiplyAsTheWholeMatrix) {
  const int r = mpi::rank();
  const auto whole = spx::gen::power_law<double, int32_t>(700, 6.0, 2.1, 9);
  int loads = 0;
  auto s = mpi::scatter_rows<double>(
      mpi::Group::World,
      [&] {
        ++loads;
        return whole;
      },
      /*keep_whole=*/true);
  EXPECT_EQ(loads, r == 0 ? 1 : 0);  // only rank 0 loads
  EXPECT_EQ(s.whole.has_value(), r == 0);
  EXPECT_EQ(s.row_partition.begin, spx::dist::partition_rows(whole, mpi::size()).begin);
  const auto A = mpi::distribute(mpi::Group::World, s.mine, s.row_partition, s.col_partition);
  const std::vector<double> x = test_vector<double>(whole.cols);
  std::vector<double> y(static_cast<std::size_t>(A.A.rows));
  mpi::Product<double> product(A);
  product(block(x, s.col_partition, r), std::span<double>(y));
  const std::vector<double> all =
      mpi::gather_rows(mpi::Group::World, s.row_partition, std::span<const double>(y));
  if (r == 0) {
    std::vector<double> want(static_cast<std::size_t>(whole.rows));
    spx::omp::spmv(whole, std::span<const double>(x), std::span<double>(want));
    EXPECT_TRUE(same_bits(std::span<const double>(all), std::span<const double>(want)));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST(MpiRanks, MetisPartsScatteredFromRankZeroSolveAsOneRank) {
  if (!spx::dist::metis_available()) GTEST_SKIP() << "built without METIS";
  const int r = mpi::rank();
  const auto mesh = spx::gen::stencil_2d_5pt<double>(30, 30);
  const auto scramble = spx::reorder::random_permutation<int32_t>(mesh.rows, 5);
  const auto A = spx::reorder::permute_symmetric(mesh, std::span<const int32_t>(scramble));
  auto s = mpi::scatter_rows<double>(
      mpi::Group::World, [&] { return A; }, /*keep_whole=*/true, spx::dist::PartitionKind::Metis);
  ASSERT_EQ(s.perm.size(), static_cast<std::size_t>(A.rows));  // on every rank
  const auto B = spx::reorder::permute_symmetric(A, std::span<const int32_t>(s.perm));
  const auto D = mpi::distribute(mpi::Group::World, s.mine, s.row_partition, s.col_partition);
  // The product: bitwise the single-process product of P A Pᵀ.
  const std::vector<double> x = test_vector<double>(A.cols);
  std::vector<double> y(static_cast<std::size_t>(D.A.rows)), want(x.size());
  mpi::Product<double> product(D);
  product(block(x, s.col_partition, r), std::span<double>(y));
  spx::omp::spmv(B, std::span<const double>(x), std::span<double>(want));
  EXPECT_TRUE(same_bits(std::span<const double>(y), block(want, s.row_partition, r)));
  // CG: the same bits as one rank on P A Pᵀ.
  spx::CgOptions o;
  o.rtol = 1e-8;
  const auto one = spx::dist::partition_even(B.rows, 1);
  const auto alone = mpi::distribute(mpi::Group::Self, mpi::rows_of(B, 0, B.rows), one, one);
  std::vector<double> xs(y.size()), x1(x.size());
  const auto got = mpi::cg(D, block(x, s.row_partition, r), std::span<double>(xs), o);
  const auto ref = mpi::cg(alone, std::span<const double>(x), std::span<double>(x1), o);
  EXPECT_EQ(got.status, spx::CgStatus::Converged);
  EXPECT_TRUE(same_bits(std::span<const double>(got.history), std::span<const double>(ref.history)));
  EXPECT_TRUE(same_bits(std::span<const double>(xs), block(x1, s.row_partition, r)));
}

TEST(MpiRanks, ALoadFailingOnRankZeroReachesEveryRank) {
  const auto fail = []() -> Csr<double, int32_t> { throw spx::Error("m.mtx:3: bad entry"); };
  try {
    mpi::scatter_rows<double>(mpi::Group::World, fail);
    ADD_FAILURE() << "no error";
  } catch (const mpi::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("m.mtx:3: bad entry"), std::string::npos) << e.what();
    EXPECT_EQ(e.origin, mpi::rank() == 0);
  }
}

TEST(MpiRanks, AMismatchedPartitionFailsOnEveryRankWithoutHanging) {
  const auto A = spx::gen::stencil_2d_5pt<double>(10, 10);
  const auto wrong = spx::dist::partition_even(A.rows, mpi::size() + 1);
  EXPECT_THROW(mpi::distribute(mpi::Group::World, mpi::rows_of(A, 0, 1), wrong, wrong), mpi::JobError);
}

TEST(MpiRanks, AJacobiFailureOnOneRankStopsEveryRank) {
  // The last row's diagonal is zero: only the last rank sees it.
  auto A = spx::gen::stencil_2d_5pt<double>(12, 12);
  const int32_t last = A.rows - 1;
  for (int32_t k = A.row_ptr[static_cast<std::size_t>(last)];
       k < A.row_ptr[static_cast<std::size_t>(last) + 1]; ++k)
    if (A.col_idx[static_cast<std::size_t>(k)] == last) A.values[static_cast<std::size_t>(k)] = 0;
  const int P = mpi::size(), r = mpi::rank();
  const auto rows = spx::dist::partition_rows(A, P);
  const auto D = mpi::distribute(
      mpi::Group::World,
      mpi::rows_of(A, rows.begin[static_cast<std::size_t>(r)], rows.begin[static_cast<std::size_t>(r) + 1]),
      rows, rows);
  spx::CgOptions o;
  o.preconditioner = spx::Preconditioner::Jacobi;
  std::vector<double> b(static_cast<std::size_t>(rows.block_size(r)), 1.0), x(b.size());
  try {
    mpi::cg(D, std::span<const double>(b), std::span<double>(x), o);
    ADD_FAILURE() << "no error on rank " << r;
  } catch (const mpi::JobError& e) {
    EXPECT_EQ(e.origin, r == P - 1) << e.what();  // only the last rank holds the bad row
    if (e.origin) {                               // named by its global number
      EXPECT_NE(std::string(e.what()).find("row " + std::to_string(last) + " has diagonal 0"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  mpi::Session session;
  // Rank 0 prints gtest's whole report, the others only their failures; a failure on any rank
  // fails the job (mpirun exits with the highest status).
  if (mpi::rank() != 0) GTEST_FLAG_SET(brief, true);
  return RUN_ALL_TESTS();
}
