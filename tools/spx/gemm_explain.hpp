// spx gemm M N K --explain: the DGEMM plan for a shape and why, without running anything — every
// version 3 tile at its best split as the model times it, the waves it fills, the shape's floor, and
// whether Auto runs spx's kernel or cuBLAS's.
// Needs no GPU: the GPU's figures when there is one, the H100 SXM's otherwise.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>

#include "spx/cuda/context.hpp"
#include "spx/cuda/gemm.hpp"

namespace spx::cli {

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  bool reads_c = false;  // beta != 0
  bool aligned = true;   // every leading dimension even (plan::gemm_operands_aligned)
};

// Prints the plan table to `out` and returns it as JSON (schema spx-gemm-plan-1). `knobs`: the
// caller's --tile / --split-k (Auto, 0: the rule's), shown beside the rule's choice when given.
nlohmann::ordered_json explain_gemm_plan(const GemmShape& s, const cuda::DeviceProps& device,
                                         const std::string& device_label, const cuda::GemmParams& knobs,
                                         std::ostream& out);

}  // namespace spx::cli
