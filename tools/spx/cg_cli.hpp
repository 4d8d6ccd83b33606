// `spx cg`'s options, shared by the single-GPU/CPU driver (cmd_cg.cpp) and the several-GPU one
// (cmd_cg_dist.cpp: `--gpus`, conjugate gradients over NCCL, spx/cuda/dist_cg.hpp, beside the
// single-GPU solver where the matrix fits one GPU).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "cli_common.hpp"  // ExitStatus, kExitNotConverged
#include "spx/cg.hpp"

namespace spx::cli {

struct CgCliOptions {
  std::string input;
  std::string rhs = "ones";
  double tol = 1e-8;
  double atol = 0;
  int64_t maxit = 10000;
  std::string precond = "none";
  std::string operators = "auto";
  std::string backend = "auto";
  std::string precision = "f64";
  int check_every = 32;
  bool no_graph = false;
  bool baseline = false;
  bool spmv_timing = false;
  bool history = false;
  int repeat = 1;
  int64_t stagnation = 0;
  std::string json_path;
  std::string gpus;                // --gpus: team sizes, e.g. "1,2,4" (empty: one GPU or the CPU)
  std::string reductions = "one";  // --gpus: one, two or one,two
  std::string reorder = "none";    // none, rcm or auto (spx/reorder.hpp): solve in RCM's numbering
  std::string index = "auto";      // auto, 32 or 64 (plan::IndexWidth): the matrix's index width
  bool dist = false;               // --dist: this MPI job's ranks, CPUs or GPUs (mpi_ranks.hpp)
  std::string partition = "rows";  // --dist: rows or metis
  std::string halo = "auto";       // --dist --backend cuda: auto, nccl or mpi
};

// The solver options both drivers take from the command line: tolerances, the iteration cap, the
// preconditioner and how often the GPU solver reads its status. Each driver adds its own (graphs and
// the stagnation window for one GPU, the residual history for several).
inline CgOptions solver_options(const CgCliOptions& o) {
  CgOptions opt;
  opt.rtol = o.tol;
  opt.atol = o.atol;
  opt.max_iterations = o.maxit;
  opt.preconditioner = o.precond == "jacobi" ? Preconditioner::Jacobi : Preconditioner::None;
  opt.check_every = o.check_every;
  return opt;
}

// The exit status of spx cg from its solves' statuses (to_string(CgStatus)), after the report and
// the JSON are written: 1 when any broke down (A or M is not SPD: the input is wrong), else
// kExitNotConverged when any stopped short of the tolerance (iteration cap, stagnation), else 0.
inline void exit_for_statuses(const std::vector<std::string>& statuses) {
  const auto any = [&](std::initializer_list<const char*> which) {
    return std::any_of(statuses.begin(), statuses.end(), [&](const std::string& s) {
      return std::any_of(which.begin(), which.end(), [&](const char* w) { return s == w; });
    });
  };
  if (any({to_string(CgStatus::Breakdown)})) throw ExitStatus{1};
  if (any({to_string(CgStatus::MaxIterations), to_string(CgStatus::Stagnation)}))
    throw ExitStatus{kExitNotConverged};
}

// `spx cg --gpus`: the distributed solve per team size; the single-GPU solver beside it when 1 is
// among the sizes.
void run_distributed_cg(const CgCliOptions& options);

}  // namespace spx::cli
