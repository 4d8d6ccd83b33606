// spx spmv / spx spmm with --index 64, or under --index auto on a matrix past 2^31 - 1 nonzeros: the
// planned product on a matrix read with 64-bit indices. The benchmark engine, which runs these
// commands otherwise, loads 32-bit matrices and checks every row against a host reference; this path
// reads the matrix with int64 indices, hands it to the front door (cuda::SparseMatrix at the width
// asked for, no host copy kept at 64 bits), times the planned product and checks a sample of rows
// (first, last and kSampledRows random ones) against a host product of those rows.
// docs/index-width.md, docs/cli.md.
#pragma once

#include <cstdint>
#include <string>

#include "bench/inputs.hpp"
#include "cli_common.hpp"
#include "spx/plan.hpp"

namespace spx::cli {

struct WideProduct {
  std::string command;  // "spmv" or "spmm", for the messages
  bench::MatrixSource source;
  plan::IndexWidth width = plan::IndexWidth::Bits64;
  std::string precision = "f64";
  int64_t dense_cols = 0;  // 0: SpMV; L: SpMM with row-major B and C of L columns
  int repeat = 0;          // timed runs; 0: adaptive, as the benchmark engine times
  PlannedOptions planned;
  std::string json_path;
};

// Refuses `option` (given on the command line) on the 64-bit path, in one line saying why: the
// 64-bit path is the planned product on the GPU, and what was asked for runs with 32-bit indices.
[[noreturn]] void refuse_beside_wide(const std::string& option, plan::IndexWidth width);

// Loads, plans, times, checks and prints (and writes the JSON); spx::Error when the check fails.
void run_wide_product(const WideProduct& product);

}  // namespace spx::cli
