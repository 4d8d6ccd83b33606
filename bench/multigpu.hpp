// The multi-GPU benchmark behind `spx bench --gpus 1,2,4` (docs/distributed.md): for every matrix,
// precision, product and team size, the distributed product (spx/cuda/dist.hpp) checked against the
// CPU and timed, with its pieces timed apart — the local part alone, the halo exchange alone, the
// remote part alone — so the overlap the product achieves can be read off, beside the halo volume
// and the balance. Strong scaling is the same matrix over the team sizes; weak scaling is run as
// matrices that grow with the team (scripts/multigpu-check).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/types.hpp"
#include "spx/plan.hpp"

namespace spx::bench {

struct MultiGpuOptions {
  std::vector<MatrixSource> matrices;
  std::vector<OpSpec> ops;  // spmv, spmm:L
  std::vector<Precision> precisions;
  std::vector<int> gpus;  // team sizes, each <= the GPUs present
  plan::Mode plan_mode = plan::Mode::Measure;
  double min_seconds = 0.3;         // timed per (matrix, op, precision, team) and piece
  int rounds = 5;                   // the median round is reported
  std::string partition = "rows";   // rows, metis or rcm (bench/dist_inputs.hpp)
  std::vector<int> halo_chunks{0};  // DistOptions::halo_chunks to run, each on the same split (0: auto)
};

// Runs everything, prints a table per matrix to `out`, returns the JSON ("spx-multigpu-1").
// Throws spx::Error for bad options and when a check fails (after printing what ran).
nlohmann::ordered_json run_multigpu(const MultiGpuOptions& options, std::ostream& out);

}  // namespace spx::bench
