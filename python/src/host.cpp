// Host side of the Python matrix: construction from arrays, files and generator specs, value-type
// casts, the CPU products (spx::omp) and CG (spx::cg).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "matrix.hpp"
#include "spx/cg.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/io.hpp"

namespace spx::python {
namespace {
// Relative to the largest entry of the row: the CLI's cg check (tools/spx/cmd_cg.cpp) uses the same.
constexpr double kSymmetryTolerance = 1e-6;
}  // namespace

int64_t Matrix::rows() const {
  return std::visit([](const auto& A) { return static_cast<int64_t>(A.rows); }, *csr);
}
int64_t Matrix::cols() const {
  return std::visit([](const auto& A) { return static_cast<int64_t>(A.cols); }, *csr);
}
int64_t Matrix::nnz() const {
  return std::visit([](const auto& A) { return static_cast<int64_t>(A.nnz()); }, *csr);
}
Matrix to_device(const Matrix& A, int device, plan::IndexWidth width) {
  if (device < 0) return Matrix{A.csr, nullptr};
  const int bits = plan::offset_bits(width, A.rows(), A.cols(), A.nnz());  // spx::Error when it cannot
  if (A.gpu && A.gpu->device() == device && A.gpu->offset_bits() == bits) return A;
  return Matrix{A.csr, std::visit([&](const auto& csr) { return to_gpu(csr, device, width); }, *A.csr)};
}

std::string Matrix::device() const { return gpu ? fmt::format("cuda:{}", gpu->device()) : "cpu"; }

template <class T, class J>
Matrix matrix_from_csr(int64_t rows, int64_t cols, std::span<const J> row_ptr, std::span<const J> col_idx,
                       std::span<const T> values) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0) throw Error(fmt::format("shape ({}, {}) is negative", rows, cols));
  if (rows > kMax || cols > kMax)
    throw Error(fmt::format("shape ({}, {}) exceeds spx's 32-bit indices (at most {} rows and columns)", rows,
                            cols, kMax));
  if (row_ptr.size() != static_cast<std::size_t>(rows) + 1)
    throw Error(
        fmt::format("indptr has {} entries, a matrix of {} rows needs {}", row_ptr.size(), rows, rows + 1));
  if (col_idx.size() != values.size())
    throw Error(
        fmt::format("indices has {} entries and data {}: they must match", col_idx.size(), values.size()));
  if (static_cast<int64_t>(values.size()) > kMax)
    throw Error(
        fmt::format("the matrix has {} stored entries; spx's host matrices hold at most {} (32-bit "
                    "indices; in C++, Csr<T, int64_t> and spx::cuda::SparseMatrix hold more)",
                    values.size(), kMax));
  if (row_ptr[0] != 0) throw Error(fmt::format("indptr[0] is {}, must be 0", row_ptr[0]));
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r)
    if (row_ptr[r + 1] < row_ptr[r])
      throw Error(fmt::format("indptr decreases at row {}: {} then {}", r, row_ptr[r], row_ptr[r + 1]));
  if (static_cast<std::size_t>(row_ptr.back()) != col_idx.size())
    throw Error(fmt::format("indptr ends at {} but there are {} entries", row_ptr.back(), col_idx.size()));
  for (std::size_t k = 0; k < col_idx.size(); ++k)
    if (col_idx[k] < 0 || col_idx[k] >= cols)
      throw Error(fmt::format("indices[{}] = {} is out of range 0..{}", k, col_idx[k], cols - 1));
  Csr<T, int32_t> A(static_cast<int32_t>(rows), static_cast<int32_t>(cols));
  // int64 arrays (SciPy's, NumPy's default) are narrowed here, in the one copy spx makes anyway;
  // the checks above bound every entry by the nonzero count or the columns.
  const auto narrow = [](J v) { return static_cast<int32_t>(v); };
  std::transform(row_ptr.begin(), row_ptr.end(), A.row_ptr.begin(), narrow);
  A.col_idx.resize(col_idx.size());
  std::transform(col_idx.begin(), col_idx.end(), A.col_idx.begin(), narrow);
  A.values.assign(values.begin(), values.end());
  canonicalize(A);  // sorted columns, repeats summed
  A.validate();
  return Matrix{std::make_shared<const HostCsr>(std::move(A)), nullptr};
}

template Matrix matrix_from_csr<float, int32_t>(int64_t, int64_t, std::span<const int32_t>,
                                                std::span<const int32_t>, std::span<const float>);
template Matrix matrix_from_csr<double, int32_t>(int64_t, int64_t, std::span<const int32_t>,
                                                 std::span<const int32_t>, std::span<const double>);
template Matrix matrix_from_csr<float, int64_t>(int64_t, int64_t, std::span<const int64_t>,
                                                std::span<const int64_t>, std::span<const float>);
template Matrix matrix_from_csr<double, int64_t>(int64_t, int64_t, std::span<const int64_t>,
                                                 std::span<const int64_t>, std::span<const double>);

Matrix read_matrix(const std::string& path, bool f32) {
  if (f32) return Matrix{std::make_shared<const HostCsr>(read_matrix_market<float, int32_t>(path)), nullptr};
  return Matrix{std::make_shared<const HostCsr>(read_matrix_market<double, int32_t>(path)), nullptr};
}

Matrix generate_matrix(const std::string& spec, bool f32) {
  if (f32) return Matrix{std::make_shared<const HostCsr>(gen::generate<float, int32_t>(spec)), nullptr};
  return Matrix{std::make_shared<const HostCsr>(gen::generate<double, int32_t>(spec)), nullptr};
}

Matrix astype(const Matrix& A, bool f32) {
  return std::visit(
      [&](const auto& csr) -> Matrix {
        if (f32) return Matrix{std::make_shared<const HostCsr>(cast<float, int32_t>(csr)), nullptr};
        return Matrix{std::make_shared<const HostCsr>(cast<double, int32_t>(csr)), nullptr};
      },
      *A.csr);
}

Matrix transposed(const Matrix& A) {
  return std::visit(
      [](const auto& csr) {
        return Matrix{std::make_shared<const HostCsr>(transpose(csr)), nullptr};
      },
      *A.csr);
}

Matrix scaled(const Matrix& A, double s, bool divide) {
  return std::visit(
      [&](const auto& csr) {
        auto B = csr;
        for (auto& v : B.values)
          v = static_cast<typename decltype(B.values)::value_type>(divide ? static_cast<double>(v) / s
                                                                          : static_cast<double>(v) * s);
        return Matrix{std::make_shared<const HostCsr>(std::move(B)), nullptr};
      },
      *A.csr);
}

std::optional<Asymmetry> find_asymmetry(const Matrix& A) {
  return std::visit(
      [](const auto& csr) -> std::optional<Asymmetry> {
        if (csr.rows != csr.cols)
          throw Error(fmt::format("symmetry: the matrix is {} x {}, not square", csr.rows, csr.cols));
        const auto& rp = csr.row_ptr;
        const auto& ci = csr.col_idx;
        for (int32_t r = 0; r < csr.rows; ++r) {
          double row_max = 0;
          for (int32_t k = rp[r]; k < rp[r + 1]; ++k)
            row_max = std::max(row_max, std::abs(static_cast<double>(csr.values[k])));
          for (int32_t k = rp[r]; k < rp[r + 1]; ++k) {
            const int32_t c = ci[k];
            const auto begin = ci.begin() + rp[c], end = ci.begin() + rp[c + 1];
            const auto it = std::lower_bound(begin, end, r);
            const double mirror =
                it != end && *it == r
                    ? static_cast<double>(csr.values[static_cast<std::size_t>(it - ci.begin())])
                    : 0.0;
            const double value = static_cast<double>(csr.values[k]);
            if (std::abs(mirror - value) > kSymmetryTolerance * row_max)
              return Asymmetry{r, c, value, mirror};
          }
        }
        return std::nullopt;
      },
      *A.csr);
}

template <class T>
const Csr<T, int32_t>& host_csr(const Matrix& A) {
  const auto* csr = std::get_if<Csr<T, int32_t>>(A.csr.get());
  if (csr == nullptr)
    throw Error(fmt::format("the matrix holds {}, the operands {}", A.dtype(),
                            std::is_same_v<T, float> ? "float32" : "float64"));
  return *csr;
}

template <class T>
void cpu_spmv(const Matrix& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  omp::spmv(host_csr<T>(A), x, y, alpha, beta);
}

template <class T>
void cpu_spmm(const Matrix& A, const T* B, int64_t ldb, bool b_row_major, T* C, int64_t ldc, bool c_row_major,
              int64_t L, T alpha, T beta) {
  const auto& csr = host_csr<T>(A);
  const int64_t m = csr.rows;
  const int64_t n = csr.cols;
  // spx::Dense owns its storage: B and C are copied into tight ones (O((m + n)·L), beside the
  // product's O(nnz·L)) in their own layouts, and C back.
  Dense<T> b(n, L, b_row_major ? Layout::RowMajor : Layout::ColMajor);
  Dense<T> c(m, L, c_row_major ? Layout::RowMajor : Layout::ColMajor);
  auto at = [](int64_t i, int64_t j, int64_t ld, bool row_major) {
    return row_major ? i * ld + j : i + j * ld;
  };
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < L; ++j) b(i, j) = B[at(i, j, ldb, b_row_major)];
  if (beta != T{0})
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < L; ++j) c(i, j) = C[at(i, j, ldc, c_row_major)];
  omp::spmm(csr, b, c, alpha, beta);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < L; ++j) C[at(i, j, ldc, c_row_major)] = c(i, j);
}

template <class T>
void cpu_rmatvec(const Matrix& A, std::span<const T> x, std::span<T> y) {
  const auto& csr = host_csr<T>(A);
  if (x.size() != static_cast<std::size_t>(csr.rows) || y.size() != static_cast<std::size_t>(csr.cols))
    throw Error(fmt::format("x @ A: x has {} entries, the matrix {} rows", x.size(), csr.rows));
  std::vector<double> acc(static_cast<std::size_t>(csr.cols), 0.0);
  for (int32_t r = 0; r < csr.rows; ++r) {
    const double xr = static_cast<double>(x[static_cast<std::size_t>(r)]);
    for (int32_t k = csr.row_ptr[r]; k < csr.row_ptr[r + 1]; ++k)
      acc[static_cast<std::size_t>(csr.col_idx[k])] += static_cast<double>(csr.values[k]) * xr;
  }
  for (std::size_t c = 0; c < acc.size(); ++c) y[c] = static_cast<T>(acc[c]);
}

template <class T>
CgResult cpu_cg(const Matrix& A, std::span<const T> b, std::span<T> x, bool initial_guess,
                const CgRequest& request) {
  return cg<T>(host_csr<T>(A), b, x, cg_options(request, initial_guess));
}

template void cpu_spmv<float>(const Matrix&, std::span<const float>, std::span<float>, float, float);
template void cpu_spmv<double>(const Matrix&, std::span<const double>, std::span<double>, double, double);
template void cpu_spmm<float>(const Matrix&, const float*, int64_t, bool, float*, int64_t, bool, int64_t,
                              float, float);
template void cpu_spmm<double>(const Matrix&, const double*, int64_t, bool, double*, int64_t, bool, int64_t,
                               double, double);
template void cpu_rmatvec<float>(const Matrix&, std::span<const float>, std::span<float>);
template void cpu_rmatvec<double>(const Matrix&, std::span<const double>, std::span<double>);
template CgResult cpu_cg<float>(const Matrix&, std::span<const float>, std::span<float>, bool,
                                const CgRequest&);
template CgResult cpu_cg<double>(const Matrix&, std::span<const double>, std::span<double>, bool,
                                 const CgRequest&);

}  // namespace spx::python
