// BSR's planner rules (plan/format_bsr.hpp).
#include "plan/format_bsr.hpp"

#include <fmt/format.h>

#include "spx/plan/rules.hpp"

namespace spx::plan {

namespace {
constexpr double kIndexBytes = 4;
}

double bsr_matrix_bytes(int64_t rows, int64_t blocks, int block, int value_bytes) {
  const double block_rows = static_cast<double>((rows + block - 1) / block);
  return static_cast<double>(blocks) * (static_cast<double>(block) * block * value_bytes + kIndexBytes) +
         (block_rows + 1) * kIndexBytes;
}

double csr_matrix_bytes(int64_t rows, int64_t nnz, int value_bytes) {
  return static_cast<double>(nnz) * (value_bytes + kIndexBytes) + static_cast<double>(rows + 1) * kIndexBytes;
}

std::optional<BsrChoice> best_bsr_block(const BsrBlockCounts& c, int value_bytes) {
  if (c.nnz == 0) return std::nullopt;
  std::optional<BsrChoice> best;
  for (std::size_t i = 0; i < BsrBlockCounts::kSizes.size(); ++i) {
    const int b = BsrBlockCounts::kSizes[i];
    const BsrChoice choice{b, c.blocks[i], bsr_matrix_bytes(c.rows, c.blocks[i], b, value_bytes),
                           csr_matrix_bytes(c.rows, c.nnz, value_bytes)};
    if (!best || choice.matrix_bytes < best->matrix_bytes) best = choice;
  }
  return best;
}

std::optional<BsrChoice> bsr_choice(const Problem& p, double min_saving) {
  if (!p.bsr_blocks) return std::nullopt;
  const std::optional<BsrChoice> best = best_bsr_block(*p.bsr_blocks, p.value_bytes);
  if (!best || best->saving() < min_saving) return std::nullopt;
  return best;
}

// The copy of the block size of fewest bytes, whether or not it saves enough to be a candidate
// (bsr_refusal's question): the benchmark's BSR entries build it on every matrix and count its
// memory from here (bench/footprint.cpp). 0 without block counts (unknown).
double bsr_device_bytes(const Problem& p) {
  if (!p.bsr_blocks) return 0.0;
  const std::optional<BsrChoice> best = best_bsr_block(*p.bsr_blocks, p.value_bytes);
  return best ? best->matrix_bytes : 0.0;
}

double bsr_setup_us(double bytes, const PlannerRuleTable& t) { return bytes / (t.host_convert_gbs * 1e3); }

std::optional<std::string> bsr_refusal(const Problem& p, const PlannerRuleTable& t) {
  if (p.op != Operation::Spmv) return "BSR runs SpMV only";
  if (!p.bsr_blocks) return "BSR needs the matrix's block counts";
  const std::optional<BsrChoice> best = best_bsr_block(*p.bsr_blocks, p.value_bytes);
  if (!best) return "BSR needs at least one nonzero";
  if (best->saving() < t.bsr_min_saving)
    return fmt::format(
        "BSR's best blocks ({}x{}, {:.2f} values per nonzero{}) save {:.0f}% of CSR's bytes < {:.0f}%",
        best->block, best->block,
        static_cast<double>(best->blocks) * best->block * best->block /
            static_cast<double>(p.bsr_blocks->nnz),
        p.bsr_blocks->sampled ? ", sampled" : "", 100 * best->saving(), 100 * t.bsr_min_saving);
  return std::nullopt;
}

double bsr_model_matrix_bytes(const Problem& p) {
  const auto c = bsr_choice(p, default_rule_tables().planner.bsr_min_saving);
  return c ? c->matrix_bytes : 0.0;
}

}  // namespace spx::plan
