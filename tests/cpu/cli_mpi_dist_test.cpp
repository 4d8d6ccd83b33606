// `spx cg --dist` and `spx bench --dist` without mpirun (one rank) and the requests they refuse;
// the runs under mpirun with several ranks are tests/mpi/cli_dist.sh (CTest MpiCliDist).
#include <gtest/gtest.h>

#include <string>

#include "cli_fixture.hpp"

namespace spx::test {
namespace {

using CliMpiDist = CliFixture;

TEST_F(CliMpiDist, WithoutMpirunRunsAsOneRank) {
#ifdef SPX_HAVE_MPI
  const CliRun cg = spx("cg stencil2d:n=16 --dist --precond jacobi");
  EXPECT_EQ(cg.status, 0) << cg.err;
  EXPECT_NE(cg.out.find("on 1 MPI rank (generated per rank): converged"), std::string::npos) << cg.out;
  const CliRun bench = spx("bench powerlaw:n=500 --dist --min-time 0");
  EXPECT_EQ(bench.status, 0) << bench.err;
  EXPECT_NE(bench.out.find("bitwise the single-process product"), std::string::npos) << bench.out;
#else
  expect_error("cg stencil2d:n=16 --dist", "--dist: this spx was built without MPI");
  expect_error("bench stencil2d:n=16 --dist", "--dist: this spx was built without MPI");
#endif
}

TEST_F(CliMpiDist, RefusedRequests) {
  expect_error("cg stencil2d:n=16 --dist --gpus 2", "--dist runs CPU ranks under MPI; --gpus");
  // GPU ranks take --backend cuda (MpiGpuRefusal checks their refusal without a GPU).
  expect_error("cg stencil2d:n=16 --dist --operator csr", "drop --operator");
  expect_error("cg stencil2d:n=16 --dist --halo nccl", "--halo: GPU ranks only");
  expect_error("cg stencil2d:n=16 --dist --reorder rcm", "drop --reorder");
  expect_error("bench stencil2d:n=16 --dist --gpus 2", "--dist runs CPU ranks under MPI; --gpus");
  expect_error("bench stencil2d:n=16 --dist --ops spmm:4", "only --ops spmv");
}

}  // namespace
}  // namespace spx::test
