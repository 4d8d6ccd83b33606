// `spx bench --dist` and `spx cg --dist`: the job's MPI ranks on CPUs (spx/dist_mpi.hpp), one
// process per rank under mpirun; started without mpirun, one rank.
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
  std::string partition = "rows";  // rows or metis
};

void run_mpi_bench(const MpiBenchOptions& options);
void run_mpi_cg(const CgCliOptions& options);

}  // namespace spx::cli
