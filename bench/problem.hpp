// What a kernel entry is handed (Problem) and what it hands back (Instance).
//
// The engine builds one Problem per (matrix, op, precision): the host matrix, the dense inputs
// (random, never zero) and the sizes. A kernel entry's `prepare` turns it into an Instance: it
// converts formats, uploads to the device, allocates the output and workspaces — all untimed.
// The engine then poisons the output, runs once, checks the output against spx::ref (bench/check.hpp,
// reading it through output()), and times repeated runs through Instance::timed_run_ms().
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/check.hpp"
#include "bench/timing.hpp"
#include "bench/types.hpp"
#include "spx/matrix.hpp"
#include "spx/stats.hpp"

namespace spx::bench {

struct FormatInputs;  // bench/footprint.hpp

// The inputs of one precision. Which members are set depends on the op:
//   spmv: A, x (cols(A) entries)            → output y, rows(A) entries
//   spmm: A, B (cols(A) × L, Problem::b_layout, tight) → output C, rows(A) × L
//   gemm: A_dense, B (N × N, column-major)  → output C, N × N
// Every product is computed with alpha = 1, beta = 0, so outputs are never read by a kernel.
template <class T>
struct TypedInput {
  const Csr<T, int32_t>* A = nullptr;       // Problem::offset_bits 32
  const Csr<T, int64_t>* A_wide = nullptr;  // Problem::offset_bits 64 (spx bench --index 64)
  std::span<const T> x;
  const Dense<T>* A_dense = nullptr;
  const Dense<T>* B = nullptr;
};

struct Problem {
  std::string matrix;  // display name ("stencil27_128", "cage11", "dense_1024")
  OpKind op = OpKind::Spmv;
  Precision precision = Precision::F64;
  int64_t cols_dense = 0;  // L for spmm, N for gemm, 0 for spmv
  int64_t rows = 0;        // rows of the output
  int64_t cols = 0;        // columns of A
  int64_t nnz = 0;         // nonzeros of A (rows * cols for gemm)
  // A held with 32- or 64-bit indices (BenchOptions::index): at 64 only the entries with
  // KernelEntry::offsets64 run, reading TypedInput::A_wide.
  int offset_bits = 32;
  const MatrixStats* stats = nullptr;  // of A (null for gemm)
  // What the format table's memory estimates read beyond the stats (bench/footprint.hpp); null
  // before the matrix is loaded and for gemm.
  const FormatInputs* format_inputs = nullptr;
  // spmm: B's layout, column-major unless BenchOptions::layouts names exactly one (an entry on the
  // other layout makes its own copy).
  Layout b_layout = Layout::ColMajor;
  // The parameters given to this run of the kernel (BenchOptions::params, then a variant's on top;
  // a later key replaces an earlier one); empty: the kernel's own choice. Only entries with
  // KernelEntry::check_params are given any, and only ones it accepted.
  Params params;

  TypedInput<float> f32;
  TypedInput<double> f64;

  // The input of the precision T (which must match `precision`).
  template <class T>
  const TypedInput<T>& input() const {
    if constexpr (sizeof(T) == 4) {
      return f32;
    } else {
      return f64;
    }
  }
  // Elements of the output: rows × max(1, cols_dense).
  int64_t output_size() const { return rows * (op == OpKind::Spmv ? 1 : cols_dense); }
};

// One kernel bound to one Problem, ready to run again and again.
class Instance {
 public:
  virtual ~Instance() = default;

  // One product with the prepared inputs. May return before the work is done (device kernels);
  // output() and timed_run_ms() synchronise.
  virtual void run() = 0;

  // Milliseconds of one run(). The default brackets run() with std::chrono::steady_clock, which
  // is right for host kernels that return when done. Device kernels override it with their own
  // timer (CUDA events recorded on the kernel's stream around the launch).
  virtual double timed_run_ms();

  // Fill the output with NaN (on the host or the device) so that an element the kernel never
  // writes makes the check fail.
  virtual void poison_output() = 0;

  // The output in host memory as the checker reads it: rows × L (1 for spmv) in the kernel's own
  // precision, layout and leading dimension, copied back from the device when needed (into a
  // staging buffer, not a copy per kernel). Valid until the next run() or poison_output().
  virtual OutputView output() = 0;

  // Optional: time the runs with the device's own harness (e.g. spx::cuda::time_kernel, which
  // brackets each launch with CUDA events) following `policy`, and return true. The default
  // returns false and the engine calls timed_run_ms() once per run.
  virtual bool measure(const TimingPolicy& /*policy*/, Timing& /*out*/) { return false; }

  // Optional cold timing (caches flushed before every run, the flush not timed); true when done.
  // The JSON gets ms_cold_median/min/max beside the warm figures when an instance provides it.
  virtual bool measure_cold(const TimingPolicy& /*policy*/, Timing& /*out*/) { return false; }

  // The kernel's parameters as run (threads, ELL width, block size, algorithm …): JSON `params`.
  virtual Params params() const { return {}; }
};

}  // namespace spx::bench
