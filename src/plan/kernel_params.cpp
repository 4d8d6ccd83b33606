// The checks and text forms of the kernels' parameter structs (kernel_params.hpp). Host code,
// every build.
#include "spx/cuda/kernel_params.hpp"

#include <fmt/format.h>

#include "spx/bsr.hpp"
#include "spx/error.hpp"

namespace spx::cuda {
namespace {

constexpr int kMinBlock = 64;
constexpr int kMaxBlock = 1024;
constexpr int kMaxRepeat = 1024;

bool power_of_two_in(int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

// "block_size 100 is not a multiple of 32 in 32..1024", or empty.
std::string block_reason(int block, int lo, int hi) {
  if (block >= lo && block <= hi && block % 32 == 0) return {};
  return fmt::format("block_size {} is not a multiple of 32 in {}..{}", block, lo, hi);
}

template <class P>
void throw_if_invalid(const P& p, const char* who) {
  if (std::string why = invalid_reason(p); !why.empty()) throw Error(fmt::format("{}: {}", who, why));
}

}  // namespace

// --- CSR SpMV ---

std::string invalid_reason(const CsrSpmvParams& p) {
  if (!power_of_two_in(p.coop, 1, 32)) return fmt::format("coop {} is not a power of two in 1..32", p.coop);
  if (std::string why = block_reason(p.block_size, kMinBlock, kMaxBlock); !why.empty()) return why;
  if (p.repeat < 1 || p.repeat > kMaxRepeat)
    return fmt::format("repeat {} is not in 1..{}", p.repeat, kMaxRepeat);
  return {};
}
void validate(const CsrSpmvParams& p, const char* who) { throw_if_invalid(p, who); }

std::string to_string(const CsrSpmvParams& p) {
  return fmt::format("block_size={} coop={} repeat={}", p.block_size, p.coop, p.repeat);
}

// --- ELLR-T and COO SpMV ---

std::string invalid_reason(const EllrTParams& p) {
  if (!power_of_two_in(p.threads_per_row, 1, 32))
    return fmt::format("threads_per_row {} is not 1, 2, 4, 8, 16 or 32", p.threads_per_row);
  return block_reason(p.block_size, 32, 1024);
}
void validate(const EllrTParams& p, const char* who) { throw_if_invalid(p, who); }

std::string invalid_reason(const CooParams& p) {
  if (p.nnz_per_warp < 32 || p.nnz_per_warp > (1 << 20) || p.nnz_per_warp % 32 != 0)
    return fmt::format("nnz_per_warp {} is not a multiple of 32 in 32..2^20", p.nnz_per_warp);
  return block_reason(p.block_size, 32, 512);
}
void validate(const CooParams& p, const char* who) { throw_if_invalid(p, who); }

// --- BSR SpMV ---

std::string invalid_reason(const BsrSpmvParams& p, int block) {
  const int q = p.lanes_per_row;
  if (block < kBsrMinBlock || block > kBsrMaxBlock)
    return fmt::format("block {} is outside {}..{}", block, kBsrMinBlock, kBsrMaxBlock);
  if (!power_of_two_in(q, 1, kBsrMaxGroupLanes) || block * q > kBsrMaxGroupLanes)
    return fmt::format("lanes_per_row {} is not a power of two with {} x lanes_per_row <= {}", q, block,
                       kBsrMaxGroupLanes);
  return block_reason(p.block_size, 32, 1024);
}
void validate(const BsrSpmvParams& p, int block, const char* who) {
  if (std::string why = invalid_reason(p, block); !why.empty()) throw Error(fmt::format("{}: {}", who, why));
}

// --- Segmented sum ---

std::string invalid_reason(const SegsumSpmvParams& p) {
  if (p.nnz_per_lane != 0 && (p.nnz_per_lane < 4 || p.nnz_per_lane > 32 || p.nnz_per_lane % 4 != 0))
    return fmt::format("nnz_per_lane {} is not a multiple of 4 in 4..32 (or 0: chosen from nnz)",
                       p.nnz_per_lane);
  if (p.tiles_per_warp < 0 || p.tiles_per_warp > 4096)
    return fmt::format("tiles_per_warp {} is not in 1..4096 (or 0: chosen from the tile count)",
                       p.tiles_per_warp);
  if (std::string why = block_reason(p.block_size, 32, 512); !why.empty()) return why;
  if (p.complete_rows_up_to < -1)
    return fmt::format("complete_rows_up_to {} is negative (-1: auto, 0: never)", p.complete_rows_up_to);
  return {};
}
void validate(const SegsumSpmvParams& p, const char* who) { throw_if_invalid(p, who); }

std::string to_string(const SegsumSpmvParams& p) {
  return fmt::format("nnz_per_lane={} tiles_per_warp={} block_size={} complete_rows_up_to={}", p.nnz_per_lane,
                     p.tiles_per_warp, p.block_size, p.complete_rows_up_to);
}

// --- SpMM ---

std::string invalid_reason(const SpmmEllrParams& p) {
  if (!power_of_two_in(p.threads_per_row, 1, 32))
    return fmt::format("threads_per_row {} is not 1, 2, 4, 8, 16 or 32", p.threads_per_row);
  if (std::string why = block_reason(p.block_size, 32, kSpmmMaxBlock); !why.empty()) return why;
  if (!power_of_two_in(p.cols_per_pass, 1, kSpmmEllrMaxColsPerPass))
    return fmt::format("cols_per_pass {} is not 1, 2, 4, 8, 16 or 32", p.cols_per_pass);
  return {};
}
void validate(const SpmmEllrParams& p, const char* who) { throw_if_invalid(p, who); }

std::string to_string(const SpmmEllrParams& c) {
  return fmt::format("T={} BS={} Lc={}", c.threads_per_row, c.block_size, c.cols_per_pass);
}

std::string invalid_reason(const SpmmCsrParams& p) {
  if (!power_of_two_in(p.threads_per_row, 1, 32))
    return fmt::format("threads_per_row {} is not a power of two in 1..32", p.threads_per_row);
  if (std::string why = block_reason(p.block_size, 32, kSpmmMaxBlock); !why.empty()) return why;
  if (!power_of_two_in(p.cols_per_pass, 1, kSpmmCsrMaxColsPerPass))
    return fmt::format("cols_per_pass {} is not a power of two in 1..{}", p.cols_per_pass,
                       kSpmmCsrMaxColsPerPass);
  if (p.cols_per_pass / p.threads_per_row > kSpmmCsrMaxColsPerThread)
    return fmt::format("cols_per_pass {} over threads_per_row {} is more than {} columns per thread",
                       p.cols_per_pass, p.threads_per_row, kSpmmCsrMaxColsPerThread);
  if (p.cols_per_lane != 0 && (!power_of_two_in(p.cols_per_lane, 1, 8) || p.cols_per_lane > p.cols_per_pass ||
                               p.cols_per_pass / p.cols_per_lane > p.threads_per_row))
    return fmt::format(
        "cols_per_lane {} is not 0 or a power of two in 1..8 that covers {} columns per pass "
        "with at most {} lanes",
        p.cols_per_lane, p.cols_per_pass, p.threads_per_row);
  if (p.long_row_nnz < 32) return fmt::format("long_row_nnz {} is below 32", p.long_row_nnz);
  if (p.tile_items != 0 && p.tile_items < 32)
    return fmt::format("tile_items {} is not 0 (row-split) or at least 32", p.tile_items);
  return {};
}
void validate(const SpmmCsrParams& p, const char* who) { throw_if_invalid(p, who); }

std::string to_string(const SpmmCsrParams& c) {
  const std::string v = c.cols_per_lane > 0 ? fmt::format(" V={}", c.cols_per_lane) : std::string{};
  if (c.tile_items > 0)
    return fmt::format("G={} BS={} Lc={}{} tiles={}", c.threads_per_row, c.block_size, c.cols_per_pass, v,
                       c.tile_items);
  return fmt::format("G={} BS={} Lc={}{} long={}", c.threads_per_row, c.block_size, c.cols_per_pass, v,
                     c.long_row_nnz);
}

}  // namespace spx::cuda
