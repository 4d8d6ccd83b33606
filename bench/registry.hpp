// The kernel registry: every kernel `spx bench` and `spx spmv` can run, as data.
//
// An entry names a kernel, its backend, whether it is a vendor library (cuSPARSE, cuBLAS), the op
// and storage format it computes, the precisions it supports and a `prepare` function. Adding a
// kernel to the benchmark is adding an entry; nothing else in the engine changes.
//
// Backends register themselves too: a backend says whether it can run here and describes its
// device (name, SM count or threads, cache size, measured copy bandwidth) for the JSON.
//
// CPU entries live in bench/cpu_kernels.cpp. CUDA entries are registered by bench/cuda_kernels.cu
// (the entries themselves: bench/cuda_spmv.cpp, cuda_spmm.cpp, cuda_gemm.cpp on cuda_support.hpp),
// compiled only when SPX_CUDA is on; otherwise bench/cuda_kernels_none.cpp defines
// register_cuda_kernels() as a no-op (chosen by CMake, not by #ifdef).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/problem.hpp"
#include "bench/types.hpp"
#include "spx/model.hpp"

namespace spx::bench {

struct KernelEntry {
  std::string name;     // unique per op: "omp_csr", "ref_ell", "csr_scalar", "cusparse_csr_alg2"
  std::string backend;  // "cpu" or "cuda"
  OpKind op = OpKind::Spmv;
  Format format = Format::Csr;
  bool f32 = true;  // supported precisions
  bool f64 = true;
  bool vendor = false;     // cuSPARSE / cuBLAS: the baseline speedups are measured against
  bool reference = false;  // an spx::ref kernel: the CPU baseline when no vendor kernel ran
  // A study point (a forced mode or a fixed parameter of a kernel the planner chooses for itself):
  // selected only with BenchOptions::studies (`spx bench --studies`), so the default menu lists
  // what a user can pick, and the studies behind the docs can still be re-run.
  bool study = false;
  std::string summary;  // one line for `spx bench --list`
  // spmm: the layout of B and C the kernel multiplies (BenchOptions::layouts selects by it; where
  // the Problem's B has another layout, the kernel makes its own copy). Unset for other ops.
  std::optional<Layout> layout;
  // B and C stay in host memory (the host-resident SpMM entries): the device holds A and chunks,
  // the host the output (bench/footprint.hpp counts memory by it).
  bool host_resident = false;
  // Runs on a Problem of 64-bit offsets (TypedInput::A_wide); the others are skipped there with
  // plan::offsets32_only_reason.
  bool offsets64 = false;

  // Optional: non-empty when this kernel should not run on this problem, saying why (printed as a
  // note, e.g. "N = 4096 > 1024: the reference GEMM is O(N^3)"). It sees the Problem's sizes and
  // stats only: it is asked before the inputs are allocated, so the data pointers are null.
  std::function<std::string(const Problem&)> skip_reason;
  // Optional: the kernel takes parameters (BenchOptions::params and ::variants, handed to prepare
  // as Problem::params). Empty when it runs `params` on this problem, else why not, in one line
  // (an unknown key, a value out of range, a merged configuration the kernel refuses). Like
  // skip_reason it sees sizes and stats only. Absent: the kernel takes no parameters.
  std::function<std::string(const Problem&, const Params&)> check_params;
  // Build the ready-to-run instance (format conversion, upload, allocation: untimed). May throw
  // spx::Error (e.g. ELL padding too large), which the engine reports as a skip.
  std::function<std::unique_ptr<Instance>(const Problem&)> prepare;

  bool supports(Precision p) const { return p == Precision::F32 ? f32 : f64; }
};

struct BackendEntry {
  std::string name;  // "cpu" or "cuda"
  // Empty when the backend can run here; otherwise one line saying why not.
  std::function<std::string()> unavailable_reason;
  // Describe the device, measuring its copy bandwidth (called once per benchmark run): what the
  // JSON's `device` object says. The CPU: its model name, threads as sm_count, the last-level cache
  // as l2_bytes, a parallel copy_gbs (the other fields are not measured and not written); GPUs also
  // the L2-resident copy (l2_gbs) and one SM's occupancy limits.
  std::function<model::DeviceBasics()> describe;
  // Optional: device memory free for the next problem, in bytes (the memory check before each
  // matrix and problem, bench/footprint.hpp); copies cached for the last problem are dropped first.
  std::function<uint64_t()> free_memory;
};

class Registry {
 public:
  // Throws spx::Error when (name, op) is taken: two such entries would make the JSON ambiguous.
  void add(KernelEntry entry);
  void add_backend(BackendEntry backend);

  const std::vector<KernelEntry>& kernels() const { return kernels_; }
  const std::vector<BackendEntry>& backends() const { return backends_; }
  const BackendEntry* backend(std::string_view name) const;
  const KernelEntry* kernel(std::string_view name, OpKind op) const;

 private:
  std::vector<KernelEntry> kernels_;
  std::vector<BackendEntry> backends_;
};

// The registry with every kernel of this build (CPU, and CUDA when built with it); built once.
const Registry& default_registry();

void register_cpu_kernels(Registry& registry);
// Defined in bench/cuda_kernels.cu (SPX_CUDA builds) or bench/cuda_kernels_none.cpp (no-op).
void register_cuda_kernels(Registry& registry);

// Empty when `backend` can run in this build on this machine; otherwise why not, in one line
// (e.g. "spx was built without CUDA (-DSPX_CUDA=OFF)", "no CUDA device found").
std::string backend_unavailable_reason(const Registry& registry, std::string_view backend);

// "auto" → "cuda" when the cuda backend can run here, else "cpu"; other names unchanged.
std::string resolve_backend(const Registry& registry, std::string_view requested);

}  // namespace spx::bench
