// spx._spx: the nanobind bindings under the Python package spx (python/spx/ is the API;
// everything here is private to it). Every entry point checks its own arguments (binding_checks.hpp):
// the module can be imported and called without the package's checks. The device entry points take
// raw pointers and do no Python work; their sizes and leading dimensions are checked, the memory
// behind the pointers cannot be.
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
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__linux__) && defined(_OPENMP)
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "binding_checks.hpp"
#include "cg_result.hpp"
#include "cupy_fast.hpp"
#include "gpu.hpp"
#include "matrix.hpp"
#include "mpi_ranks.hpp"
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

// J: int32_t or int64_t, the index arrays as the caller holds them (no narrowing copy in Python).
// index: the host copy's width, "auto", "32" or "64" (host_index_bits).
template <class T, class J>
Matrix from_csr(int64_t rows, int64_t cols, Vec<const J> indptr, Vec<const J> indices, Vec<const T> data,
                const std::string& index) {
  return user_input([&] {
    return matrix_from_csr<T, J>(rows, cols, {indptr.data(), indptr.size()}, {indices.data(), indices.size()},
                                 {data.data(), data.size()}, spx::plan::parse_index_width(index));
  });
}

GpuMatrix& gpu_of(const Matrix& A) {
  if (!A.gpu) throw InputError("the matrix is on the host: move it with A.to('cuda') first");
  return *A.gpu;
}

template <class T>
void spmv_cpu(const Matrix& A, Vec<const T> x, Vec<T> y, double alpha, double beta) {
  require_dtype<T>("spmv_cpu", A);
  require_length("spmv_cpu", "x", x.size(), A.cols());
  require_length("spmv_cpu", "y", y.size(), A.rows());
  require_disjoint("spmv_cpu", "y", vector_bytes(y.data(), y.size(), sizeof(T)), "x",
                   vector_bytes(x.data(), x.size(), sizeof(T)));
  nb::gil_scoped_release release;
  cpu_spmv<T>(A, {x.data(), x.size()}, {y.data(), y.size()}, static_cast<T>(alpha), static_cast<T>(beta));
}

template <class T>
void rmatvec_cpu(const Matrix& A, Vec<const T> x, Vec<T> y) {
  require_dtype<T>("rmatvec_cpu", A);
  require_length("rmatvec_cpu", "x", x.size(), A.rows());
  require_length("rmatvec_cpu", "y", y.size(), A.cols());
  require_disjoint("rmatvec_cpu", "y", vector_bytes(y.data(), y.size(), sizeof(T)), "x",
                   vector_bytes(x.data(), x.size(), sizeof(T)));
  nb::gil_scoped_release release;
  cpu_rmatvec<T>(A, {x.data(), x.size()}, {y.data(), y.size()});
}

// None for a symmetric matrix, else (row, col, A(row, col), A(col, row)) of the first asymmetry.
nb::object asymmetry(const Matrix& A) {
  std::optional<Asymmetry> a;
  {
    nb::gil_scoped_release release;
    a = user_input([&] { return find_asymmetry(A); });
  }
  if (!a) return nb::none();
  return nb::make_tuple(a->row, a->col, a->value, a->mirror);
}

// The kernel thread ids of spx's OpenMP pool (the threads of one parallel region, which the
// runtime keeps for the next ones); empty outside Linux. The oversubscription check
// (python/spx/_threads.py) tells other running threads from them.
std::vector<int64_t> openmp_thread_ids() {
  std::vector<int64_t> ids;
#if defined(__linux__) && defined(_OPENMP)
  ids.assign(static_cast<std::size_t>(omp_get_max_threads()), 0);
  nb::gil_scoped_release release;
#pragma omp parallel
  ids[static_cast<std::size_t>(omp_get_thread_num())] = static_cast<int64_t>(syscall(SYS_gettid));
#endif
  return ids;
}

template <class T>
void spmm_cpu(const Matrix& A, Mat2<const T> B, Mat2<T> C, double alpha, double beta) {
  require_dtype<T>("spmm_cpu", A);
  const auto L = static_cast<int64_t>(B.shape(1));
  require_shape("spmm_cpu", "B", B, A.cols(), L);
  require_shape("spmm_cpu", "C", C, A.rows(), L);
  const auto [ldb, b_row] = dense_layout("spmm_cpu", "B", B);
  const auto [ldc, c_row] = dense_layout("spmm_cpu", "C", C);
  require_disjoint("spmm_cpu", "C", dense_array_bytes(C, ldc, c_row, sizeof(T)), "B",
                   dense_array_bytes(B, ldb, b_row, sizeof(T)));
  nb::gil_scoped_release release;
  cpu_spmm<T>(A, B.data(), ldb, b_row, C.data(), ldc, c_row, L, static_cast<T>(alpha), static_cast<T>(beta));
}

// The host operands of a product on the GPU: tight arrays (C order; 2-D ones in `row_major`
// order), copied in and out by the device half.
template <class T>
void spmv_host_on_gpu(const Matrix& A, Vec<const T> x, Vec<T> y, double alpha, double beta) {
  require_dtype<T>("spmv_host_on_gpu", A);
  require_length("spmv_host_on_gpu", "x", x.size(), A.cols());
  require_length("spmv_host_on_gpu", "y", y.size(), A.rows());
  GpuMatrix& g = gpu_of(A);
  nb::gil_scoped_release release;
  g.spmv_host(x.data(), y.data(), alpha, beta);
}

// A dense array whose r·c elements are contiguous, in `row_major` order when both dimensions exceed 1.
template <class T, class Array>
void require_tight(const char* who, const char* name, const Array& a, bool row_major) {
  const auto [ld, row] = dense_layout(who, name, a);
  const auto r = static_cast<int64_t>(a.shape(0)), c = static_cast<int64_t>(a.shape(1));
  const ByteRange bytes = dense_array_bytes(a, ld, row, sizeof(T));
  const bool contiguous = bytes.end - bytes.begin == static_cast<uintptr_t>(r * c) * sizeof(T);
  require(contiguous && (r <= 1 || c <= 1 || row == row_major),
          fmt::format("{}: {} must be a tight {} array", who, name, row_major ? "C-order" : "Fortran-order"));
}

template <class T>
void spmm_host_on_gpu(const Matrix& A, Mat2<const T> B, Mat2<T> C, bool row_major, double alpha,
                      double beta) {
  require_dtype<T>("spmm_host_on_gpu", A);
  const auto L = static_cast<int64_t>(B.shape(1));
  require_shape("spmm_host_on_gpu", "B", B, A.cols(), L);
  require_shape("spmm_host_on_gpu", "C", C, A.rows(), L);
  require_tight<T>("spmm_host_on_gpu", "B", B, row_major);
  require_tight<T>("spmm_host_on_gpu", "C", C, row_major);
  GpuMatrix& g = gpu_of(A);
  if (L == 0 || A.rows() == 0) return;
  nb::gil_scoped_release release;
  g.spmm_host(B.data(), C.data(), row_major, L, alpha, beta);
}

// Device products: the pointers' memory cannot be checked from here; sizes and layouts are.
void spmv_device(const Matrix& A, uintptr_t x, uintptr_t y, double alpha, double beta, uintptr_t stream) {
  GpuMatrix& g = gpu_of(A);
  require_pointer("spmv_device", "x", x, A.cols() > 0);
  require_pointer("spmv_device", "y", y, A.rows() > 0);
  g.spmv(x, y, alpha, beta, stream);
}

void spmm_device(const Matrix& A, uintptr_t B, int64_t ldb, uintptr_t C, int64_t ldc, bool row_major,
                 int64_t L, double alpha, double beta, uintptr_t stream) {
  GpuMatrix& g = gpu_of(A);
  require(L >= 0, fmt::format("spmm_device: L = {} is negative", L));
  require_leading_dimension("spmm_device", "B", ldb, row_major ? L : A.cols());
  require_leading_dimension("spmm_device", "C", ldc, row_major ? L : A.rows());
  require_pointer("spmm_device", "B", B, L > 0 && A.cols() > 0);
  require_pointer("spmm_device", "C", C, L > 0 && A.rows() > 0);
  if (L == 0 || A.rows() == 0) return;
  g.spmm(B, ldb, C, ldc, row_major, L, alpha, beta, stream);
}

}  // namespace

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

namespace {

// b and x of the matrix's rows, x not overlapping b (x is written while b is read).
template <class T>
void require_cg_vectors(const char* who, const Matrix& A, const Vec<const T>& b, const Vec<T>& x) {
  require_dtype<T>(who, A);
  require_length(who, "b", b.size(), A.rows());
  require_length(who, "x", x.size(), A.rows());
  require_disjoint(who, "x", vector_bytes(x.data(), x.size(), sizeof(T)), "b",
                   vector_bytes(b.data(), b.size(), sizeof(T)));
}

template <class T>
nb::dict cg_cpu(const Matrix& A, Vec<const T> b, Vec<T> x, bool initial_guess, double rtol, double atol,
                int64_t max_iterations, bool jacobi, bool history) {
  require_cg_vectors("cg_cpu", A, b, x);
  const CgRequest r = cg_request(rtol, atol, max_iterations, jacobi, history);
  const CgResult res = user_input([&] {
    nb::gil_scoped_release release;
    return cpu_cg<T>(A, {b.data(), b.size()}, {x.data(), x.size()}, initial_guess, r);
  });
  return cg_dict(res);
}

template <class T>
nb::dict cg_host_on_gpu(const Matrix& A, Vec<const T> b, Vec<T> x, bool initial_guess, double rtol,
                        double atol, int64_t max_iterations, bool jacobi, bool history) {
  require_cg_vectors("cg_host_on_gpu", A, b, x);
  GpuMatrix& g = gpu_of(A);
  const CgRequest r = cg_request(rtol, atol, max_iterations, jacobi, history);
  spx::CgResult res;
  {
    nb::gil_scoped_release release;
    res = g.cg_host(*A.csr, b.data(), x.data(), initial_guess, r);
  }
  return cg_dict(res);
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
      // The row offsets' width as held where the matrix lives: the device's, or the host copy's.
      .def_prop_ro("offset_bits",
                   [](const Matrix& A) { return A.gpu ? A.gpu->offset_bits() : A.index_bits(); })
      .def_prop_ro("index_bits", &Matrix::index_bits)  // the host copy's, wherever the matrix lives
      // A host copy with `bits`-bit indices (the same copy when it has them).
      .def("with_index_bits",
           [](const Matrix& A, int bits) {
             require(bits == 32 || bits == 64, fmt::format("with_index_bits: {} is not 32 or 64", bits));
             return user_input([&] { return with_index_bits(A, bits); });
           })
      .def(
          "to_device",
          [](const Matrix& A, int device, const std::string& index) {
            const spx::plan::IndexWidth width =
                user_input([&] { return spx::plan::parse_index_width(index); });
            return to_device(A, device, width);
          },
          "device"_a, "index"_a = "auto")
      .def("transposed",
           [](const Matrix& A) {
             nb::gil_scoped_release release;
             return transposed(A);
           })
      .def("scaled",
           [](const Matrix& A, double s, bool divide) {
             nb::gil_scoped_release release;
             return scaled(A, s, divide);
           })
      .def("asymmetry", &asymmetry)
      .def("rmatvec_cpu", &rmatvec_cpu<float>, "x"_a, "y"_a.noconvert())
      .def("rmatvec_cpu", &rmatvec_cpu<double>, "x"_a, "y"_a.noconvert())
      // Outputs are never converted (a converted copy would take the result and be dropped).
      .def("spmv_cpu", &spmv_cpu<float>, "x"_a, "y"_a.noconvert(), "alpha"_a, "beta"_a)
      .def("spmv_cpu", &spmv_cpu<double>, "x"_a, "y"_a.noconvert(), "alpha"_a, "beta"_a)
      .def("spmm_cpu", &spmm_cpu<float>, "B"_a, "C"_a.noconvert(), "alpha"_a, "beta"_a)
      .def("spmm_cpu", &spmm_cpu<double>, "B"_a, "C"_a.noconvert(), "alpha"_a, "beta"_a)
      // A CuPy vector and out (or None) on CuPy's current stream: the per-call path (cupy_fast.hpp);
      // None when the operands are not the common case.
      .def("spmv_cupy", &spmv_cupy, "x"_a, "out"_a.none(), "alpha"_a, "beta"_a)
      // Device pointers on the caller's stream: the general path, after the Python layer's checks.
      .def("spmv_device", &spmv_device)
      .def("spmm_device", &spmm_device)
      .def("release_stream", [](const Matrix& A) { gpu_of(A).release_stream(); })
      .def("spmv_call_ns",
           [](const Matrix& A, uintptr_t x, uintptr_t y, int64_t calls, uintptr_t stream) {
             GpuMatrix& g = gpu_of(A);
             require(calls >= 1, fmt::format("spmv_call_ns: calls = {} must be >= 1", calls));
             require_pointer("spmv_call_ns", "x", x, A.cols() > 0);
             require_pointer("spmv_call_ns", "y", y, A.rows() > 0);
             return g.spmv_call_ns(x, y, calls, stream);
           })
      .def("spmv_host_on_gpu", &spmv_host_on_gpu<float>, "x"_a, "y"_a.noconvert(), "alpha"_a, "beta"_a)
      .def("spmv_host_on_gpu", &spmv_host_on_gpu<double>, "x"_a, "y"_a.noconvert(), "alpha"_a, "beta"_a)
      .def("spmm_host_on_gpu", &spmm_host_on_gpu<float>, "B"_a, "C"_a.noconvert(), "row_major"_a, "alpha"_a,
           "beta"_a)
      .def("spmm_host_on_gpu", &spmm_host_on_gpu<double>, "B"_a, "C"_a.noconvert(), "row_major"_a, "alpha"_a,
           "beta"_a)
      .def("cg_cpu", &cg_cpu<float>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a, "atol"_a,
           "max_iterations"_a, "jacobi"_a, "history"_a)
      .def("cg_cpu", &cg_cpu<double>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a, "atol"_a,
           "max_iterations"_a, "jacobi"_a, "history"_a)
      // CG on the GPU: device pointers b, x and x0 (0: start from x = 0) on the caller's stream.
      .def("cg_device",
           [](const Matrix& A, uintptr_t b, uintptr_t x, uintptr_t x0, double rtol, double atol,
              int64_t max_iterations, bool jacobi, bool history, uintptr_t stream) {
             GpuMatrix& g = gpu_of(A);
             require_pointer("cg_device", "b", b, A.rows() > 0);
             require_pointer("cg_device", "x", x, A.rows() > 0);
             require(b != x, "cg_device: x is b; the solve writes x while it reads b");
             return cg_dict(
                 g.cg(*A.csr, b, x, x0, cg_request(rtol, atol, max_iterations, jacobi, history), stream));
           })
      .def("cg_host_on_gpu", &cg_host_on_gpu<float>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a,
           "atol"_a, "max_iterations"_a, "jacobi"_a, "history"_a)
      .def("cg_host_on_gpu", &cg_host_on_gpu<double>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a,
           "atol"_a, "max_iterations"_a, "jacobi"_a, "history"_a)
      .def("plan", [](const Matrix& A, bool spmm, int64_t L, bool row_major, const std::string& mode,
                      int64_t expected_calls, bool deterministic_only, int measure_top,
                      const std::string& tuning_cache, bool replan) {
        PlanRequest r{spmm,        L,           row_major, mode, expected_calls, deterministic_only,
                      measure_top, tuning_cache};
        return user_input([&] { return replan ? gpu_of(A).plan(r) : gpu_of(A).current_plan(r); });
      });

  m.def(
      "require_host_copy",
      [](int64_t rows, int64_t cols, int64_t nnz, std::size_t value_bytes, int index_bits,
         const std::string& what) {
        user_input([&] { require_copy_memory(rows, cols, nnz, value_bytes, index_bits, what); });
      },
      "rows"_a, "cols"_a, "nnz"_a, "value_bytes"_a, "index_bits"_a, "what"_a);
  m.def("from_csr", &from_csr<float, int32_t>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
        "index"_a = "auto");
  m.def("from_csr", &from_csr<double, int32_t>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
        "index"_a = "auto");
  m.def("from_csr", &from_csr<float, int64_t>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
        "index"_a = "auto");
  m.def("from_csr", &from_csr<double, int64_t>, "rows"_a, "cols"_a, "indptr"_a, "indices"_a, "data"_a,
        "index"_a = "auto");
  m.def(
      "read",
      [](const std::string& path, bool f32, const std::string& index) {
        return user_input([&] { return read_matrix(path, f32, spx::plan::parse_index_width(index)); });
      },
      "path"_a, "f32"_a, "index"_a = "auto");
  m.def(
      "generate",
      [](const std::string& spec, bool f32, const std::string& index) {
        return user_input([&] { return generate_matrix(spec, f32, spx::plan::parse_index_width(index)); });
      },
      "spec"_a, "f32"_a, "index"_a = "auto");
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
  m.def("openmp_thread_ids", &openmp_thread_ids);
  m.attr("version") = spx::kVersionString;
  bind_mpi_ranks(m);
}
