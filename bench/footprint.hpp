// Memory a benchmark step needs, estimated from sizes before anything is allocated, and what this
// machine has free: so that a product too large for the host or the GPU is refused with one line
// naming the numbers, instead of being killed by the OOM killer halfway through (`spx spmm
// stencil27:n=300 --cols 512` asks for 220 GB of host memory for B and C alone).
//
// The one place these estimates live: the engine asks before loading a matrix (its shape from the
// generator spec or the file header) and before each problem's inputs; spx gemm asks before its
// operands exist. Estimates count the large arrays (the matrix, its format copies, B, C, staging,
// device copies), not allocator slack or cuSPARSE workspaces: they refuse what cannot fit, and
// leave the rest to the allocation's own error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/problem.hpp"
#include "bench/registry.hpp"
#include "spx/bsr.hpp"
#include "spx/column_spans.hpp"
#include "spx/features.hpp"
#include "spx/plan.hpp"

namespace spx::bench {

// A matrix's size before it is loaded.
struct ShapeEstimate {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t nnz = 0;  // an upper estimate where the generator merges duplicates (R-MAT)
};

// From a generator spec's parameters (the generators' own formulas; defaults as gen::generators()
// lists them) or a Matrix Market header (symmetric files count twice). Empty when the spec or the
// header cannot be read: the loader then reports the problem itself.
std::optional<ShapeEstimate> estimate_shape(const MatrixSource& source);

// --index (spx bench, spmv, spmm, cg): whether `source` is read with int64 indices. Bits64: always.
// Auto: when its size known before loading (estimate_shape; unknown for a pipe) passes 2^31 - 1
// nonzeros. Bits32: never, and a matrix known to pass is refused, the message naming `use` (the
// option that reads it, e.g. "spx bench --index 64").
bool reads_wide_indices(const MatrixSource& source, plan::IndexWidth width, const std::string& use);

// Bytes by what they hold, on the host and on the device.
struct Footprint {
  struct Item {
    std::string what;
    uint64_t bytes = 0;
  };
  std::vector<Item> host;
  std::vector<Item> device;

  uint64_t host_bytes() const;
  uint64_t device_bytes() const;
  Footprint& operator+=(const Footprint& other);
};

// Loading the matrix as Csr<double, int32_t> (Csr<double, int64_t> when `wide`; plus the reader's
// text and entry lists for a file), and its f32 copy when f32 runs.
Footprint load_footprint(const MatrixSource& source, const ShapeEstimate& shape, bool f32, bool wide = false);

// What the format table's byte estimates (plan/format_table.hpp) read beyond MatrixStats, taken once
// from the loaded matrix as the planner's front door takes them: the column spans and the sampled
// BSR block counts, and of the features only the shape and the fields the format rows read
// (sell_slots, hyb_width, hyb_ell_nnz: O(rows), where all the features cost a pass over the
// nonzeros) unless the engine computed them all anyway (`full`, BenchOptions::features).
struct FormatInputs {
  MatrixFeatures features;
  ColumnSpanStats column_spans;
  BsrBlockCounts bsr_blocks;
};
template <class T>
FormatInputs format_inputs(const Csr<T, int32_t>& A, const std::optional<MatrixFeatures>& full);

// The planner's Problem for `shape`, as the format rows read it: its statistics (before loading,
// a matrix without padding made from the shape: as many ELL slots as nonzeros), the format inputs
// where the engine has them (Problem::format_inputs; without them the rows' own fallbacks), the
// operation, L, layout and value bytes.
plan::Problem format_problem(const Problem& shape);

// The device (or, for a CPU kernel, host) copy of A in `kernel`'s storage format beyond the CSR:
// the format table's extra_bytes for the kernel's catalogue row (found by its bench name), else
// (study variants, aliases, CPU references) for the format the entry declares; 0 bytes for CSR and
// dense. `format` is the format table's name (null for dense).
struct FormatCopy {
  const char* format = nullptr;
  uint64_t bytes = 0;
};
FormatCopy format_copy(const Problem& shape, const KernelEntry& kernel);

// One problem (its sizes and, when known, stats) with the kernels that will run on it: the shared
// inputs (x or B; GEMM's A and B), the device copies the CUDA entries share (CSR, COO, ELL(R), x, B
// per layout), and the largest one kernel adds on its own (its output, format conversions, the
// staging of its output; a host-resident kernel's C and B in host memory). Kernels run one at a
// time; the engine asks kernel by kernel, so one too large is skipped and the others run.
Footprint problem_footprint(const Problem& shape, const std::vector<const KernelEntry*>& kernels);

// spx gemm M N K: A, B and C0 with padded leading dimensions, op(A)/op(B) copies for the
// reference when transposed, C read back; A, B, C on the device.
Footprint gemm_command_footprint(int64_t m, int64_t n, int64_t k, int64_t ld_pad, int64_t value_bytes,
                                 bool transpose_a, bool transpose_b);

// Free memory now; 0 = unknown (not checked).
struct MemoryAvailable {
  uint64_t host = 0;    // /proc/meminfo MemAvailable
  uint64_t device = 0;  // the backend's free device memory (cudaMemGetInfo), 0 for the CPU backend
};
uint64_t host_memory_available();
// For `backend`: the host's, and the device's from BackendEntry::free_memory when it has one.
MemoryAvailable memory_available(const Registry& registry, std::string_view backend);

// Empty when `need` fits `available`; otherwise one line naming the numbers, e.g. "needs about
// 221.5 GiB of host memory (B 103.0 GiB, C 103.0 GiB, ...), 120.3 GiB available".
std::string memory_refusal(const Footprint& need, const MemoryAvailable& available);

}  // namespace spx::bench
