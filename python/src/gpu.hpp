// The device half of a Python matrix, behind an interface so the extension builds without CUDA
// (gpu_none.cpp: every call says the package was built without it) and with it (gpu_cuda.cpp).
//
// Device products take raw device pointers and the caller's stream (CuPy's current stream): the
// Python layer has checked shapes, dtypes, strides and devices, so a call is a few integer
// conversions and one launch. One Context per device, shared by every matrix on it, follows the
// caller's stream (Context::set_stream).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include "spx/cg.hpp"
#include "spx/error.hpp"
#include "spx/matrix.hpp"
#include "spx/plan.hpp"  // IndexWidth

namespace spx::python {

using CsrF32 = Csr<float, int32_t>;
using CsrF64 = Csr<double, int32_t>;
// 64-bit indices: a matrix past 2^31 - 1 nonzeros, or one its maker asked to hold at 64 bits.
using CsrF32Wide = Csr<float, int64_t>;
using CsrF64Wide = Csr<double, int64_t>;
// The host copy: float or double values, int32 or int64 indices (python.md, "Index widths").
using HostCsr = std::variant<CsrF32, CsrF64, CsrF32Wide, CsrF64Wide>;

// An spx::Error about what the caller gave (a matrix CG cannot precondition, ...), found by code
// that also throws device errors: the bindings raise it as ValueError, other spx::Error as
// RuntimeError.
class InputError : public Error {
 public:
  using Error::Error;
};

// spx.cg's options (spx::CgOptions' subset that Python sets).
struct CgRequest {
  double rtol = 1e-5;
  double atol = 0;
  int64_t max_iterations = 0;
  bool jacobi = false;
  bool history = false;
};

inline CgOptions cg_options(const CgRequest& r, bool initial_guess) {
  CgOptions o;
  o.rtol = r.rtol;
  o.atol = r.atol;
  o.max_iterations = r.max_iterations;
  o.preconditioner = r.jacobi ? Preconditioner::Jacobi : Preconditioner::None;
  o.history = r.history;
  o.zero_initial_guess = !initial_guess;
  return o;
}

struct PlanRequest {
  bool spmm = false;
  int64_t cols_dense = 0;
  bool row_major = true;
  std::string mode = "model";  // rule, model, measure, tune
  int64_t expected_calls = 100;
  bool deterministic_only = false;
  int measure_top = 4;
  std::string tuning_cache;  // "" reads $SPX_TUNING_CACHE, "-" none
};

// What a plan chose, for Python (spx::plan::Report's main fields and its explain() text).
struct PlanInfo {
  std::string op;          // "spmv" or "spmm"
  int64_t cols_dense = 0;  // L for SpMM
  std::string mode;
  std::string decided_by;  // rule, model, measured, tuned, cache
  std::string kernel;
  std::string owner;  // spx or cuSPARSE
  std::string format;
  std::string params;
  double predicted_us = 0;  // NaN when not predicted
  double measured_us = 0;   // NaN when not measured
  double planning_us = 0;
  double setup_us = 0;
  std::size_t candidates = 0;
  std::string explain;
};

class GpuMatrix {
 public:
  virtual ~GpuMatrix() = default;
  virtual int device() const = 0;
  virtual std::size_t device_bytes() const = 0;
  // The row offsets' width on the device: 32 or 64 (spx.Matrix.index_dtype).
  virtual int offset_bits() const = 0;
  // y = alpha*A*x + beta*y; x, y device pointers of the matrix's value type; on `stream`.
  virtual void spmv(uintptr_t x, uintptr_t y, double alpha, double beta, uintptr_t stream) = 0;
  // C = alpha*A*B + beta*C with B (cols × L) and C (rows × L) on the device; one layout for both.
  virtual void spmm(uintptr_t B, int64_t ldb, uintptr_t C, int64_t ldc, bool row_major, int64_t L,
                    double alpha, double beta, uintptr_t stream) = 0;
  // The same from host memory: copies in, runs on the context's current stream, copies out, waits.
  virtual void spmv_host(const void* x, void* y, double alpha, double beta) = 0;
  virtual void spmm_host(const void* B, void* C, bool row_major, int64_t L, double alpha, double beta) = 0;
  // Host nanoseconds per call of `calls` back-to-back C++ calls of cuda::spmv (no Python between;
  // the benchmark's baseline for the per-call overhead of A @ x). Waits for the GPU after timing.
  virtual double spmv_call_ns(uintptr_t x, uintptr_t y, int64_t calls, uintptr_t stream) = 0;
  // After a call on a stream handle the caller may destroy as soon as the call returns (Python's
  // stream=, which spx cannot keep alive): the device's context moves onto a stream of spx's own,
  // ordered after the caller's (an event, no host wait), so no later call touches the handle.
  virtual void release_stream() = 0;
  // Plans now (the front door's plan_spmv / plan_spmm; planning again replaces the plan).
  virtual PlanInfo plan(const PlanRequest& request) = 0;
  // The current plan of (op, L, layout), planned with default options when there is none yet.
  virtual PlanInfo current_plan(const PlanRequest& request) = 0;
  // Conjugate gradients (spx::cuda::CgSolver) on device vectors b and x of size rows; x0: a device
  // vector copied into x as the initial guess, or 0 for x = 0. `host` is the matrix's host copy (the
  // solver's operator and the Jacobi diagonal are made from it on the first solve, then kept).
  // Ordered after the caller's `stream`; waits for the solve (the result is read on the host).
  virtual CgResult cg(const HostCsr& host, uintptr_t b, uintptr_t x, uintptr_t x0, const CgRequest& request,
                      uintptr_t stream) = 0;
  // The same from host memory: b and x (holding the initial guess when `initial_guess`) copied in,
  // x copied back.
  virtual CgResult cg_host(const HostCsr& host, const void* b, void* x, bool initial_guess,
                           const CgRequest& request) = 0;
};

// `width`: the row offsets' width on the device (A.to('cuda', index=...); plan::offset_bits decides).
// A host copy with int64 indices goes to the front door as it is (no 32-bit copy on the way).
std::shared_ptr<GpuMatrix> to_gpu(const HostCsr& A, int device, plan::IndexWidth width);

bool built_with_cuda();
int gpu_count();                // 0 without CUDA, a driver or a device
std::string gpu_unavailable();  // "" when a device is usable, else why not
// Device of a pointer the caller hands in: >= 0 for device or managed memory, -1 for host memory.
int pointer_device(uintptr_t ptr);
// The calling thread's current CUDA device (CuPy's current device too); -1 without CUDA.
int current_device();
void synchronize(int device, uintptr_t stream);

}  // namespace spx::python
