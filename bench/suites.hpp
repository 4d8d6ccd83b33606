// Named matrix sets for `spx bench --suite NAME`. Generated suites are data: a name that says what
// the matrix is, a generator spec, an nnz estimate (so --max-nnz can skip before generating) and
// one line on what it stands for.
//
//   small     0.13–1.6M nonzeros each, generated in well under a second: the README's main job and
//             the quick CPU run. Regular, FEM, power-law, graph, long rows, banded, block-dense.
//   standard  17–117M nonzeros each (measured: the approx_nnz column): the GPU benchmark set
//             (issue 3). Spans regular (stencils, FEM rows 30–80), irregular (power law and R-MAT
//             with millions of rows, rows of 10^6 nonzeros among empty and short ones) and
//             dense-ish (block-dense, banded, dense) shapes. Each generates in 1–15 s on one core
//             (needs ~1.5 GB host memory for the largest); a CPU benchmark of it is slow.
//   shared    every matrix in the shared real-matrix folder (SuiteSparse; SPX_SHARED_MATRICES
//             overrides the folder compiled in).
//   calibration  the performance model's generated benchmark matrices (Guo & Wang's method, spx
//             model calibrate): uniform rows with scattered or banded columns, power-law rows and
//             long rows, from 4K to 4M rows, L2-resident to DRAM-bound, x inside and outside the L2.
//   validation   matrices the model was never fitted on: other structures (stencils, FEM, R-MAT,
//             block-dense, dense) and other seeds of the calibration's generators.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/inputs.hpp"

namespace spx::bench {

struct SuiteMatrix {
  std::string name;
  std::string spec;
  // Measured with the generators when the suite was written; only used by --max-nnz to skip a
  // matrix before generating it (the real nnz is checked again after generation).
  int64_t approx_nnz = 0;
  std::string what;
};

const std::vector<SuiteMatrix>& small_suite();
const std::vector<SuiteMatrix>& standard_suite();
const std::vector<SuiteMatrix>& calibration_suite();
const std::vector<SuiteMatrix>& validation_suite();
// The planner's validation set (structures and seeds nothing was fitted on; docs/planner.md).
const std::vector<SuiteMatrix>& planner_suite();
const std::vector<SuiteMatrix>& formats_suite();

// "small", "standard", "shared", "calibration", "validation", "planner"
std::vector<std::string> suite_names();

// The sources of a suite; throws spx::Error for an unknown name or a missing shared folder.
std::vector<MatrixSource> suite_sources(std::string_view name);

// SPX_SHARED_MATRICES from the environment, else the folder compiled in (../shared/matrices).
std::string shared_matrices_folder();

}  // namespace spx::bench
