// spx._spx: the nanobind bindings under the Python package spx (python/spx/__init__.py is the API;
// everything here is private to it). The Python layer checks shapes, dtypes, layouts and devices
// before calling in, so the device entry points take raw pointers and do no Python work.
//
// Errors: spx::Error from parsing or validating what the caller gave (arrays, files, specs) becomes
// ValueError; any other spx::Error (device, memory) RuntimeError; both carry the library's message.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cupy_fast.hpp"
#include "gpu.hpp"
#include "matrix.hpp"
#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/stats.hpp"
#include "spx/version.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace spx::python {
namespace {

// spx::Error raised while reading the caller's input becomes ValueError.
template <class F>
auto user_input(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw nb::value_error(e.what());
  }
}

template <class T>
using Vec = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
template <class T>
using Mat2 = nb::ndarray<T, nb::ndim<2>, nb::device::cpu>;

// A numpy array that owns a copy of `v`.
template <class T>
nb::object to_numpy(const std::vector<T>& v) {
  auto* copy = new std::vector<T>(v);
  nb::capsule owner(copy, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(copy->data(), {copy->size()}, owner));
}

template <class T>
Matrix from_csr(int64_t rows, int64_t cols, Vec<const int32_t> indptr, Vec<const int32_t> indices,
                Vec<const T> data) {
  return user_input([&] {
    return matrix_from_csr<T>(rows, cols, {indptr.data(), indptr.size()}, {indices.data(), indices.size()},
                              {data.data(), data.size()});
  });
}

template <class T>
void spmv_cpu(const Matrix& A, Vec<const T> x, Vec<T> y, double alpha, double beta) {
  nb::gil_scoped_release release;
  cpu_spmv<T>(A, {x.data(), x.size()}, {y.data(), y.size()}, static_cast<T>(alpha), static_cast<T>(beta));
}

// Strides in elements; the Python layer passed only arrays with a unit stride in one dimension.
template <class T>
std::pair<int64_t, bool> leading(const Mat2<T>& a) {
  const bool row_major =
      a.stride(1) == 1 && (a.shape(0) <= 1 || a.stride(0) >= static_cast<int64_t>(a.shape(1)));
  return {row_major ? a.stride(0) : a.stride(1), row_major};
}

template <class T>
void spmm_cpu(const Matrix& A, Mat2<const T> B, Mat2<T> C, double alpha, double beta) {
  const auto [ldb, b_row] = leading(B);
  const auto [ldc, c_row] = leading(C);
  nb::gil_scoped_release release;
  cpu_spmm<T>(A, B.data(), std::max<int64_t>(ldb, 1), b_row, C.data(), std::max<int64_t>(ldc, 1), c_row,
              static_cast<int64_t>(B.shape(1)), static_cast<T>(alpha), static_cast<T>(beta));
}

CgRequest cg_request(double rtol, double atol, int64_t max_iterations, bool jacobi, bool history) {
  return CgRequest{rtol, atol, max_iterations, jacobi, history};
}

// spx.cg's info, as a dict the Python layer wraps (spx.CgInfo).
nb::dict cg_dict(const CgResult& r) {
  nb::dict d;
  d["status"] = std::string(to_string(r.status));
  d["iterations"] = r.iterations;
  d["residual"] = r.residual;
  d["rhs_norm"] = r.rhs_norm;
  d["relative_residual"] = r.relative_residual;
  d["seconds"] = r.seconds;
  // summary() names the reason of every stop but convergence's special cases (zero b, x0 converged).
  d["message"] =
      r.status == CgStatus::Converged && !r.message.empty() ? summary(r) + ": " + r.message : summary(r);
  if (!r.history.empty()) d["history"] = r.history;
  return d;
}

template <class T>
nb::dict cg_cpu(const Matrix& A, Vec<const T> b, Vec<T> x, bool initial_guess, double rtol, double atol,
                int64_t max_iterations, bool jacobi, bool history) {
  const CgRequest r = cg_request(rtol, atol, max_iterations, jacobi, history);
  const CgResult res = user_input([&] {
    nb::gil_scoped_release release;
    return cpu_cg<T>(A, {b.data(), b.size()}, {x.data(), x.size()}, initial_guess, r);
  });
  return cg_dict(res);
}

GpuMatrix& gpu_of(const Matrix& A) {
  if (!A.gpu) throw Error("the matrix is on the host: move it with A.to('cuda') first");
  return *A.gpu;
}

nb::dict stats_dict(const Matrix& A) {
  const MatrixStats s = std::visit([](const auto& csr) { return spx::stats(csr); }, *A.csr);
  nb::dict d;
  d["rows"] = s.rows;
  d["cols"] = s.cols;
  d["nnz"] = s.nnz;
  d["min_row"] = s.min_row;
  d["max_row"] = s.max_row;
  d["avg_row"] = s.avg_row;
  d["stddev_row"] = s.stddev_row;
  d["empty_rows"] = s.empty_rows;
  d["lower_bandwidth"] = s.lower_bandwidth;
  d["upper_bandwidth"] = s.upper_bandwidth;
  d["bandwidth"] = s.bandwidth;
  d["ell_padding_ratio"] = s.ell_padding_ratio;
  d["fingerprint"] = s.fingerprint;
  return d;
}

nb::tuple arrays(const Matrix& A) {
  return std::visit(
      [](const auto& csr) {
        return nb::make_tuple(to_numpy(csr.row_ptr), to_numpy(csr.col_idx), to_numpy(csr.values));
      },
      *A.csr);
}

}  // namespace
}  // namespace spx::python

NB_MODULE(_spx, m) {
  using namespace spx::python;
  m.doc() = "spx's compiled core; use the package spx, not this module.";

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const spx::python::InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const spx::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });

  nb::class_<PlanInfo>(m, "PlanInfo")
      .def_ro("op", &PlanInfo::op)
      .def_ro("cols_dense", &PlanInfo::cols_dense)
      .def_ro("mode", &PlanInfo::mode)
      .def_ro("decided_by", &PlanInfo::decided_by)
      .def_ro("kernel", &PlanInfo::kernel)
      .def_ro("owner", &PlanInfo::owner)
      .def_ro("format", &PlanInfo::format)
      .def_ro("params", &PlanInfo::params)
      .def_ro("predicted_us", &PlanInfo::predicted_us)
      .def_ro("measured_us", &PlanInfo::measured_us)
      .def_ro("planning_us", &PlanInfo::planning_us)
      .def_ro("setup_us", &PlanInfo::setup_us)
      .def_ro("candidates", &PlanInfo::candidates)
      .def_ro("explain", &PlanInfo::explain);

  nb::class_<Matrix>(m, "Matrix")
      .def_prop_ro("rows", &Matrix::rows)
      .def_prop_ro("cols", &Matrix::cols)
      .def_prop_ro("nnz", &Matrix::nnz)
      .def_prop_ro("dtype", &Matrix::dtype)
      .def_prop_ro("device", &Matrix::device)
      .def_prop_ro("device_index", [](const Matrix& A) { return A.gpu ? A.gpu->device() : -1; })
      .def("arrays", &arrays)
      .def("stats", &stats_dict)
      .def("astype", [](const Matrix& A, bool f32) { return astype(A, f32); })
      .def("to_device", [](const Matrix& A, int device) { return to_device(A, device); })
      .def("spmv_cpu", &spmv_cpu<float>)
      .def("spmv_cpu", &spmv_cpu<double>)
      .def("spmm_cpu", &spmm_cpu<float>)
      .def("spmm_cpu", &spmm_cpu<double>)
      // A CuPy vector and out (or None) on CuPy's current stream: the per-call path (cupy_fast.hpp);
      // None when the operands are not the common case.
      .def("spmv_cupy", &spmv_cupy, "x"_a, "out"_a.none(), "alpha"_a, "beta"_a)
      // Device pointers on the caller's stream: the general path, after the Python layer's checks.
      .def("spmv_device", [](const Matrix& A, uintptr_t x, uintptr_t y, double alpha, double beta,
                             uintptr_t stream) { gpu_of(A).spmv(x, y, alpha, beta, stream); })
      .def("spmm_device",
           [](const Matrix& A, uintptr_t B, int64_t ldb, uintptr_t C, int64_t ldc, bool row_major, int64_t L,
              double alpha, double beta,
              uintptr_t stream) { gpu_of(A).spmm(B, ldb, C, ldc, row_major, L, alpha, beta, stream); })
      .def("release_stream", [](const Matrix& A) { gpu_of(A).release_stream(); })
      .def("spmv_call_ns", [](const Matrix& A, uintptr_t x, uintptr_t y, int64_t calls,
                              uintptr_t stream) { return gpu_of(A).spmv_call_ns(x, y, calls, stream); })
      .def("spmv_host_on_gpu",
           [](const Matrix& A, nb::ndarray<nb::c_contig, nb::device::cpu> x,
              nb::ndarray<nb::c_contig, nb::device::cpu> y, double alpha, double beta) {
             nb::gil_scoped_release release;
             gpu_of(A).spmv_host(x.data(), y.data(), alpha, beta);
           })
      .def("spmm_host_on_gpu",
           [](const Matrix& A, nb::ndarray<nb::device::cpu> B, nb::ndarray<nb::device::cpu> C, bool row_major,
              double alpha, double beta) {
             nb::gil_scoped_release release;
             gpu_of(A).spmm_host(B.data(), C.data(), row_major, static_cast<int64_t>(B.shape(1)), alpha,
                                 beta);
           })
      .def("cg_cpu", &cg_cpu<float>)
      .def("cg_cpu", &cg_cpu<double>)
      // CG on the GPU: device pointers b, x and x0 (0: start from x = 0) on the caller's stream.
      .def("cg_device",
           [](const Matrix& A, uintptr_t b, uintptr_t x, uintptr_t x0, double rtol, double atol,
              int64_t max_iterations, bool jacobi, bool history, uintptr_t stream) {
             return cg_dict(gpu_of(A).cg(*A.csr, b, x, x0,
                                         cg_request(rtol, atol, max_iterations, jacobi, history), stream));
           })
      .def("cg_host_on_gpu",
           [](const Matrix& A, nb::ndarray<nb::c_contig, nb::device::cpu> b,
              nb::ndarray<nb::c_contig, nb::device::cpu> x, bool initial_guess, double rtol, double atol,
              int64_t max_iterations, bool jacobi, bool history) {
             const CgRequest r = cg_request(rtol, atol, max_iterations, jacobi, history);
             spx::CgResult res;
             {
               nb::gil_scoped_release release;
               res = gpu_of(A).cg_host(*A.csr, b.data(), x.data(), initial_guess, r);
             }
             return cg_dict(res);
           })
      .def("plan", [](const Matrix& A, bool spmm, int64_t L, bool row_major, const std::string& mode,
                      int64_t expected_calls, bool deterministic_only, int measure_top,
                      const std::string& tuning_cache, bool replan) {
        PlanRequest r{spmm,        L,           row_major, mode, expected_calls, deterministic_only,
                      measure_top, tuning_cache};
        return user_input([&] { return replan ? gpu_of(A).plan(r) : gpu_of(A).current_plan(r); });
      });

  m.def("from_csr", &from_csr<float>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a);
  m.def("from_csr", &from_csr<double>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a);
  m.def("read",
        [](const std::string& path, bool f32) { return user_input([&] { return read_matrix(path, f32); }); });
  m.def("generate", [](const std::string& spec, bool f32) {
    return user_input([&] { return generate_matrix(spec, f32); });
  });
  m.def("generators", [] {
    std::vector<std::tuple<std::string, std::string, std::string>> out;
    for (const auto& g : spx::gen::generators()) out.emplace_back(g.kind, g.keys, g.summary);
    return out;
  });
  m.def("built_with_cuda", &built_with_cuda);
  m.def("gpu_count", &gpu_count);
  m.def("gpu_unavailable", &gpu_unavailable);
  m.def("pointer_device", &pointer_device);
  m.def("synchronize", &synchronize);
  m.def("set_cupy", &set_cupy);
  m.def("hold_stream", &hold_stream, "device"_a, "stream"_a.none());
  m.def("cpu_threads", &spx::omp::max_threads);
  m.attr("version") = spx::kVersionString;
}
