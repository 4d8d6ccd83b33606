// BSR's side of the planner (planner.cpp calls these with one line each): the block size the
// pattern favours, the bytes it moves, its setup and its eligibility, from the block counts the
// front door puts in plan::Problem::bsr_blocks (spx/bsr.hpp's bsr_block_counts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "spx/bsr.hpp"
#include "spx/plan.hpp"

namespace spx::plan {

struct PlannerRuleTable;

inline constexpr const char* kBsrFormat = "bsr";

// One block size's bytes per SpMV over the matrix: blocks x (b*b values + a block column) + the
// block-row pointers; CSR's: nnz x (value + column) + the row pointers.
struct BsrChoice {
  int block = 0;
  int64_t blocks = 0;
  double matrix_bytes = 0;
  double csr_bytes = 0;
  double saving() const { return csr_bytes > 0 ? 1.0 - matrix_bytes / csr_bytes : 0.0; }
};

double bsr_matrix_bytes(int64_t rows, int64_t blocks, int block, int value_bytes);
double csr_matrix_bytes(int64_t rows, int64_t nnz, int value_bytes);

// The block size that moves the fewest bytes (ties: the smaller b); nullopt for an empty matrix.
std::optional<BsrChoice> best_bsr_block(const BsrBlockCounts& counts, int value_bytes);

// The block size the executor builds: the best one when it saves at least min_saving, else nullopt.
std::optional<BsrChoice> bsr_choice(const Problem& p, double min_saving);

// Device bytes of the BSR copy at the block size of fewest bytes, candidate or not (0 without counts).
double bsr_device_bytes(const Problem& p);
// Conversion on the host, then the upload: the BSR's bytes at the host conversion rate.
double bsr_setup_us(double bytes, const PlannerRuleTable& t);
// Why a BSR candidate cannot run this problem; nullopt when it can.
std::optional<std::string> bsr_refusal(const Problem& p, const PlannerRuleTable& t);
// The matrix bytes one product reads, for the model's terms (0 where the planner has no choice).
double bsr_model_matrix_bytes(const Problem& p);

}  // namespace spx::plan
