// `spx cg --gpus N[,N…]`: conjugate gradients over several GPUs (spx/cuda/dist_cg.hpp), beside the
// single-GPU solver where the matrix fits one GPU, for time to solution at the same iterations.
#pragma once

#include <cstdint>
#include <string>

namespace spx::cli {

struct DistCgCliOptions {
  std::string input;
  std::string rhs = "ones";
  double tol = 1e-8;
  double atol = 0;
  int64_t maxit = 10000;
  std::string precond = "none";
  std::string precision = "f64";
  std::string gpus;                // team sizes, e.g. "1,2,4"
  std::string reductions = "one";  // one, two or one,two
  int check_every = 32;
  int repeat = 1;
  bool history = false;
  bool single_gpu = true;  // also the single-GPU solver when 1 is among the team sizes
  std::string json_path;
};

void run_distributed_cg(const DistCgCliOptions& options);

}  // namespace spx::cli
