// spx._spx's MPI ranks (spx/dist_mpi.hpp) for python/spx/mpi.py: a matrix spread over the processes
// of an MPI job (mpirun -n N python script.py), each holding its block of rows, with the ranks' CPU
// product and CG. MPI is started on first use unless the caller (mpi4py) has started it, and ended
// by mpi_finalize (python/spx/mpi.py registers it at exit) only when spx started it. Without MPI
// in the build every entry point raises RuntimeError saying so.
#include "mpi_ranks.hpp"

#include <fmt/format.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "binding_checks.hpp"
#include "cg_result.hpp"
#include "matrix.hpp"
#include "spx/dist_graph.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace spx::python {
namespace {

namespace mpi = spx::dist::mpi;

template <class T>
using Vec = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

std::unique_ptr<mpi::Session>& session_slot() {
  static std::unique_ptr<mpi::Session> s;
  return s;
}
void start_mpi() {
  if (!session_slot()) session_slot() = std::make_unique<mpi::Session>();
}

// This rank's rows of a matrix spread over the job, and its product's buffers.
template <class T>
struct Ranked {
  mpi::RankMatrix<T> A;
  std::unique_ptr<mpi::Product<T>> product;  // made on first use; holds a reference to A
};

struct MpiMatrix {
  std::variant<std::shared_ptr<Ranked<float>>, std::shared_ptr<Ranked<double>>> ranked;
  std::vector<int32_t> perm;  // renumbered: new row i is old row perm[i]; else empty
  std::string partition, report;

  bool f32() const { return ranked.index() == 0; }
  template <class T>
  Ranked<T>& as(const char* who) const {
    const auto* p = std::get_if<std::shared_ptr<Ranked<T>>>(&ranked);
    require(p != nullptr,
            fmt::format("{}: the matrix holds {}, the operands {}", who, f32() ? "float32" : "float64",
                        std::is_same_v<T, float> ? "float32" : "float64"));
    return **p;
  }
};

template <class T>
Csr<T, int32_t> host_copy(const Matrix& A) {
  const auto* csr = std::get_if<Csr<T, int32_t>>(A.csr.get());
  if (csr == nullptr)
    throw InputError(
        fmt::format("mpi.distribute: the matrix holds {} with {}-bit indices; the MPI ranks "
                    "take {} with 32-bit indices",
                    A.dtype(), A.index_bits(), std::is_same_v<T, float> ? "float32" : "float64"));
  return *csr;
}

// Collective. Root passes its matrix (the others None); every rank gets its rows.
template <class T>
MpiMatrix distribute_as(const Matrix* A, int root, const std::string& partition, int64_t products) {
  start_mpi();
  const dist::PartitionKind kind = [&] {
    try {
      return dist::parse_partition_kind(partition);
    } catch (const Error& e) {
      throw InputError(e.what());
    }
  }();
  dist::PartitionCosts costs;
  costs.products = products;
  costs.value_bytes = sizeof(T);
  MpiMatrix out;
  nb::gil_scoped_release release;
  auto rows = mpi::scatter_rows<T>(
      mpi::Group::World,
      [&]() -> Csr<T, int32_t> {
        if (A == nullptr)
          throw Error(fmt::format("mpi.distribute: rank {} (root) was given no matrix", root));
        return host_copy<T>(*A);
      },
      false, kind, root, costs);
  auto r = std::make_shared<Ranked<T>>();
  r->A = mpi::distribute(mpi::Group::World, rows.mine, rows.row_partition, rows.col_partition);
  out.ranked = r;
  out.perm = std::move(rows.perm);
  out.partition = dist::partition_kind_name(rows.partition);
  out.report = std::move(rows.partition_report);
  return out;
}

template <class T>
void spmv_ranks(const MpiMatrix& M, Vec<const T> x, Vec<T> y) {
  Ranked<T>& r = M.as<T>("mpi spmv");
  require_length("mpi spmv", "x", x.size(), r.A.owned);
  require_length("mpi spmv", "y", y.size(), r.A.row_partition.block_size(r.A.rank));
  require_disjoint("mpi spmv", "y", vector_bytes(y.data(), y.size(), sizeof(T)), "x",
                   vector_bytes(x.data(), x.size(), sizeof(T)));
  nb::gil_scoped_release release;
  if (!r.product) r.product = std::make_unique<mpi::Product<T>>(r.A);
  (*r.product)({x.data(), x.size()}, {y.data(), y.size()});
}

template <class T>
nb::dict cg_ranks(const MpiMatrix& M, Vec<const T> b, Vec<T> x, bool initial_guess, double rtol, double atol,
                  int64_t max_iterations, bool jacobi, bool history) {
  Ranked<T>& r = M.as<T>("mpi cg");
  const int64_t mine = r.A.row_partition.block_size(r.A.rank);
  require_length("mpi cg", "b", b.size(), mine);
  require_length("mpi cg", "x", x.size(), mine);
  require_disjoint("mpi cg", "x", vector_bytes(x.data(), x.size(), sizeof(T)), "b",
                   vector_bytes(b.data(), b.size(), sizeof(T)));
  const CgOptions o = cg_options(cg_request(rtol, atol, max_iterations, jacobi, history), initial_guess);
  CgResult res;
  {
    nb::gil_scoped_release release;
    res = mpi::cg<T>(r.A, {b.data(), b.size()}, {x.data(), x.size()}, o);
  }
  return cg_dict(res);
}

// Root: every rank's rows of y (rows order, the matrix's numbering); the others: an empty array.
// Collective.
template <class T>
nb::object gather_ranks(const MpiMatrix& M, Vec<const T> y, int root) {
  Ranked<T>& r = M.as<T>("mpi gather");
  require_length("mpi gather", "y", y.size(), r.A.row_partition.block_size(r.A.rank));
  auto* whole = new std::vector<T>();
  nb::capsule owner(whole, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  {
    nb::gil_scoped_release release;
    *whole = mpi::gather_rows<T>(mpi::Group::World, r.A.row_partition, {y.data(), y.size()}, root);
  }
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(whole->data(), {whole->size()}, owner));
}

// (rows, cols, row_begin, row_end, col_begin, owned) of this rank's block.
std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t> shape_of(const MpiMatrix& M) {
  return std::visit(
      [](const auto& r) {
        const auto& A = r->A;
        return std::make_tuple(A.rows, A.cols, A.row_begin, A.row_begin + A.row_partition.block_size(A.rank),
                               A.col_begin, A.owned);
      },
      M.ranked);
}

}  // namespace

void bind_mpi_ranks(nb::module_& m) {
  nb::class_<MpiMatrix>(m, "MpiMatrix")
      .def_prop_ro("f32", &MpiMatrix::f32)
      .def_prop_ro("shape_of_rank", &shape_of)
      .def_prop_ro("perm", [](const MpiMatrix& M) { return M.perm; })
      .def_prop_ro("partition", [](const MpiMatrix& M) { return M.partition; })
      .def_prop_ro("report", [](const MpiMatrix& M) { return M.report; })
      // Outputs are never converted (a converted copy would take the result and be dropped).
      .def("spmv", &spmv_ranks<float>, "x"_a, "y"_a.noconvert())
      .def("spmv", &spmv_ranks<double>, "x"_a, "y"_a.noconvert())
      .def("gather", &gather_ranks<float>, "y"_a, "root"_a)
      .def("gather", &gather_ranks<double>, "y"_a, "root"_a)
      .def("cg", &cg_ranks<float>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a, "atol"_a,
           "max_iterations"_a, "jacobi"_a, "history"_a)
      .def("cg", &cg_ranks<double>, "b"_a, "x"_a.noconvert(), "initial_guess"_a, "rtol"_a, "atol"_a,
           "max_iterations"_a, "jacobi"_a, "history"_a);
  m.def("mpi_built", &mpi::built_with_mpi);
  m.def("mpi_rank", [] {
    start_mpi();
    return mpi::rank();
  });
  m.def("mpi_size", [] {
    start_mpi();
    return mpi::size();
  });
  m.def("mpi_finalize", [] { session_slot().reset(); });
  m.def(
      "mpi_distribute",
      [](const Matrix* A, bool f32, int root, const std::string& partition, int64_t products) {
        return f32 ? distribute_as<float>(A, root, partition, products)
                   : distribute_as<double>(A, root, partition, products);
      },
      "A"_a.none(), "f32"_a, "root"_a, "partition"_a, "products"_a);
}

}  // namespace spx::python
