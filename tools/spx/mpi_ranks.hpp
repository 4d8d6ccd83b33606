// `spx bench --dist` and `spx cg --dist`: the job's MPI ranks on CPUs (spx/dist_mpi.hpp) or, with
// --backend cuda, one GPU each (spx/dist_mpi_gpu.hpp), one process per rank under mpirun; started
// without mpirun, one rank.
#pragma once

#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "cg_cli.hpp"

namespace spx::cli {

struct MpiBenchOptions {
  std::vector<bench::MatrixSource> matrices;
  std::vector<std::string> precisions;  // "f32", "f64"
  double min_seconds = 0.2;
  std::string json;
  std::string partition = "rows";    // rows or metis
  bool gpu = false;                  // one GPU per rank (spx/dist_mpi_gpu.hpp), else CPU ranks
  std::string halo = "auto";         // GPU ranks: auto, nccl or mpi
  std::vector<std::string> kernels;  // GPU ranks: the plan's allowed kernels (empty: all)
};

void run_mpi_bench(const MpiBenchOptions& options);
void run_mpi_cg(const CgCliOptions& options);

}  // namespace spx::cli
