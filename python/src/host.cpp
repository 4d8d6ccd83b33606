// Host side of the Python matrix: construction from arrays, files and generator specs, value-type
// casts, the CPU products (spx::omp) and CG (spx::cg).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/host_memory.hpp"
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
  return Matrix{A.csr, to_gpu(*A.csr, device, width)};
}

std::string Matrix::device() const { return gpu ? fmt::format("cuda:{}", gpu->device()) : "cpu"; }

template <class J>
int host_index_bits(plan::IndexWidth width, int64_t rows, int64_t cols, int64_t nnz) {
  // int32 arrays hold fewer than 2^31 nonzeros: their copy stays 32-bit unless 64 is asked for.
  if (std::is_same_v<J, int32_t> && width != plan::IndexWidth::Bits64) return 32;
  return plan::offset_bits(width, rows, cols, nnz);
}

template int host_index_bits<int32_t>(plan::IndexWidth, int64_t, int64_t, int64_t);
template int host_index_bits<int64_t>(plan::IndexWidth, int64_t, int64_t, int64_t);

double host_csr_bytes(int64_t rows, int64_t nnz, std::size_t value_bytes, int index_bits) {
  const double index_bytes = index_bits / 8;
  return (static_cast<double>(rows) + 1) * index_bytes +
         static_cast<double>(nnz) * (index_bytes + static_cast<double>(value_bytes));
}

void require_copy_memory(int64_t rows, int64_t cols, int64_t nnz, std::size_t value_bytes, int index_bits,
                         std::string_view what) {
  detail::require_host_memory(
      host_csr_bytes(rows, nnz, value_bytes, index_bits),
      fmt::format("{} ({} x {}, {} nonzeros, {}-bit indices)", what, rows, cols, nnz, index_bits));
}

namespace {

// The checked arrays copied into a Csr<T, I>, then made canonical. Every entry is bounded by the
// nonzero count or the columns (checked), so narrowing int64 arrays to int32 loses nothing.
template <class I, class T, class J>
Matrix copy_csr(int64_t rows, int64_t cols, std::span<const J> row_ptr, std::span<const J> col_idx,
                std::span<const T> values) {
  Csr<T, I> A(static_cast<I>(rows), static_cast<I>(cols));
  const auto to_index = [](J v) { return static_cast<I>(v); };
  std::transform(row_ptr.begin(), row_ptr.end(), A.row_ptr.begin(), to_index);
  A.col_idx.resize(col_idx.size());
  std::transform(col_idx.begin(), col_idx.end(), A.col_idx.begin(), to_index);
  A.values.assign(values.begin(), values.end());
  canonicalize(A);  // sorted columns, repeats summed
  A.validate();
  return Matrix{std::make_shared<const HostCsr>(std::move(A)), nullptr};
}

}  // namespace

template <class T, class J>
Matrix matrix_from_csr(int64_t rows, int64_t cols, std::span<const J> row_ptr, std::span<const J> col_idx,
                       std::span<const T> values, plan::IndexWidth width) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  if (rows < 0 || cols < 0) throw Error(fmt::format("shape ({}, {}) is negative", rows, cols));
  if (rows > kMax || cols > kMax)
    throw Error(
        fmt::format("shape ({}, {}) exceeds spx's 32-bit column indices (at most {} rows and columns)", rows,
                    cols, kMax));
  if (row_ptr.size() != static_cast<std::size_t>(rows) + 1)
    throw Error(
        fmt::format("indptr has {} entries, a matrix of {} rows needs {}", row_ptr.size(), rows, rows + 1));
  if (col_idx.size() != values.size())
    throw Error(
        fmt::format("indices has {} entries and data {}: they must match", col_idx.size(), values.size()));
  // Sizes before reading or allocating anything: the width, then the copy against the memory.
  const auto nnz = static_cast<int64_t>(values.size());
  const int bits = host_index_bits<J>(width, rows, cols, nnz);
  require_copy_memory(rows, cols, nnz, sizeof(T), bits, "the matrix's host copy");
  if (row_ptr[0] != 0) throw Error(fmt::format("indptr[0] is {}, must be 0", row_ptr[0]));
  for (std::size_t r = 0; r + 1 < row_ptr.size(); ++r)
    if (row_ptr[r + 1] < row_ptr[r])
      throw Error(fmt::format("indptr decreases at row {}: {} then {}", r, row_ptr[r], row_ptr[r + 1]));
  if (static_cast<std::size_t>(row_ptr.back()) != col_idx.size())
    throw Error(fmt::format("indptr ends at {} but there are {} entries", row_ptr.back(), col_idx.size()));
  for (std::size_t k = 0; k < col_idx.size(); ++k)
    if (col_idx[k] < 0 || col_idx[k] >= cols)
      throw Error(fmt::format("indices[{}] = {} is out of range 0..{}", k, col_idx[k], cols - 1));
  if (bits == 64) return copy_csr<int64_t>(rows, cols, row_ptr, col_idx, values);
  return copy_csr<int32_t>(rows, cols, row_ptr, col_idx, values);
}

template Matrix matrix_from_csr<float, int32_t>(int64_t, int64_t, std::span<const int32_t>,
                                                std::span<const int32_t>, std::span<const float>,
                                                plan::IndexWidth);
template Matrix matrix_from_csr<double, int32_t>(int64_t, int64_t, std::span<const int32_t>,
                                                 std::span<const int32_t>, std::span<const double>,
                                                 plan::IndexWidth);
template Matrix matrix_from_csr<float, int64_t>(int64_t, int64_t, std::span<const int64_t>,
                                                std::span<const int64_t>, std::span<const float>,
                                                plan::IndexWidth);
template Matrix matrix_from_csr<double, int64_t>(int64_t, int64_t, std::span<const int64_t>,
                                                 std::span<const int64_t>, std::span<const double>,
                                                 plan::IndexWidth);

Matrix with_index_bits(const Matrix& A, int bits) {
  if (A.index_bits() == bits) return Matrix{A.csr, nullptr};
  // The narrowing's refusal names the numbers (more than 2^31 - 1 nonzeros do not fit 32 bits).
  plan::offset_bits(bits == 64 ? plan::IndexWidth::Bits64 : plan::IndexWidth::Bits32, A.rows(), A.cols(),
                    A.nnz());
  return std::visit(
      [&](const auto& csr) -> Matrix {
        using T = typename std::decay_t<decltype(csr)>::value_type;
        require_copy_memory(A.rows(), A.cols(), A.nnz(), sizeof(T), bits, "a copy with other indices");
        if (bits == 64) return Matrix{std::make_shared<const HostCsr>(cast<T, int64_t>(csr)), nullptr};
        return Matrix{std::make_shared<const HostCsr>(cast<T, int32_t>(csr)), nullptr};
      },
      *A.csr);
}

namespace {

template <class I>
Matrix read_at(const std::string& path, bool f32) {
  if (f32) return Matrix{std::make_shared<const HostCsr>(read_matrix_market<float, I>(path)), nullptr};
  return Matrix{std::make_shared<const HostCsr>(read_matrix_market<double, I>(path)), nullptr};
}

template <class I>
Matrix generate_at(const std::string& spec, bool f32) {
  if (f32) return Matrix{std::make_shared<const HostCsr>(gen::generate<float, I>(spec)), nullptr};
  return Matrix{std::make_shared<const HostCsr>(gen::generate<double, I>(spec)), nullptr};
}

// The generators' refusal of a size past int32 (src/generate), before they allocate anything.
bool is_int32_size_error(const Error& e) {
  return std::string_view(e.what()).find("does not fit int32 indices") != std::string_view::npos;
}

}  // namespace

Matrix read_matrix(const std::string& path, bool f32, plan::IndexWidth width) {
  if (width == plan::IndexWidth::Bits64) return read_at<int64_t>(path, f32);
  if (width == plan::IndexWidth::Auto) {
    // The header's entry count (twice for a symmetric file's mirrored entries): the reader at 32 bits
    // would refuse past 2^31 - 1. A header that cannot be read is the reader's to report.
    int64_t entries = 0;
    try {
      const MatrixMarketHeader h = read_matrix_market_header(path);
      entries = h.symmetry == MatrixMarketHeader::Symmetry::General ? h.entries : 2 * h.entries;
    } catch (const Error&) {
    }
    if (entries > std::numeric_limits<int32_t>::max()) return read_at<int64_t>(path, f32);
  }
  return read_at<int32_t>(path, f32);
}

Matrix generate_matrix(const std::string& spec, bool f32, plan::IndexWidth width) {
  if (width == plan::IndexWidth::Bits64) return generate_at<int64_t>(spec, f32);
  try {
    return generate_at<int32_t>(spec, f32);
  } catch (const Error& e) {
    if (width == plan::IndexWidth::Auto && is_int32_size_error(e)) return generate_at<int64_t>(spec, f32);
    throw;
  }
}

Matrix astype(const Matrix& A, bool f32) {
  require_copy_memory(A.rows(), A.cols(), A.nnz(), f32 ? sizeof(float) : sizeof(double), A.index_bits(),
                      "a copy with other values");
  return std::visit(
      [&](const auto& csr) -> Matrix {
        using I = typename std::decay_t<decltype(csr)>::index_type;  // the index width is kept
        if (f32) return Matrix{std::make_shared<const HostCsr>(cast<float, I>(csr)), nullptr};
        return Matrix{std::make_shared<const HostCsr>(cast<double, I>(csr)), nullptr};
      },
      *A.csr);
}

Matrix transposed(const Matrix& A) {
  return std::visit(
      [&](const auto& csr) {
        using T = typename std::decay_t<decltype(csr)>::value_type;
        require_copy_memory(A.cols(), A.rows(), A.nnz(), sizeof(T), A.index_bits(), "the transpose");
        return Matrix{std::make_shared<const HostCsr>(transpose(csr)), nullptr};
      },
      *A.csr);
}

Matrix scaled(const Matrix& A, double s, bool divide) {
  return std::visit(
      [&](const auto& csr) {
        using T = typename std::decay_t<decltype(csr)>::value_type;
        require_copy_memory(A.rows(), A.cols(), A.nnz(), sizeof(T), A.index_bits(), "the scaled copy");
        auto B = csr;
        for (auto& v : B.values)
          v = static_cast<T>(divide ? static_cast<double>(v) / s : static_cast<double>(v) * s);
        return Matrix{std::make_shared<const HostCsr>(std::move(B)), nullptr};
      },
      *A.csr);
}

std::optional<Asymmetry> find_asymmetry(const Matrix& A) {
  return std::visit(
      [](const auto& csr) -> std::optional<Asymmetry> {
        using I = typename std::decay_t<decltype(csr)>::index_type;
        if (csr.rows != csr.cols)
          throw Error(fmt::format("symmetry: the matrix is {} x {}, not square", csr.rows, csr.cols));
        const auto& rp = csr.row_ptr;
        const auto& ci = csr.col_idx;
        for (I r = 0; r < csr.rows; ++r) {
          double row_max = 0;
          for (I k = rp[r]; k < rp[r + 1]; ++k)
            row_max = std::max(row_max, std::abs(static_cast<double>(csr.values[k])));
          for (I k = rp[r]; k < rp[r + 1]; ++k) {
            const I c = ci[k];
            const auto begin = ci.begin() + rp[c], end = ci.begin() + rp[c + 1];
            const auto it = std::lower_bound(begin, end, r);
            const double mirror =
                it != end && *it == r
                    ? static_cast<double>(csr.values[static_cast<std::size_t>(it - ci.begin())])
                    : 0.0;
            const double value = static_cast<double>(csr.values[k]);
            if (std::abs(mirror - value) > kSymmetryTolerance * row_max)
              return Asymmetry{static_cast<int64_t>(r), static_cast<int64_t>(c), value, mirror};
          }
        }
        return std::nullopt;
      },
      *A.csr);
}

namespace {

// f(csr) on the host copy, Csr<T, int32_t> or Csr<T, int64_t> (the CPU kernels take both);
// spx::Error when the copy holds the other value type.
template <class T, class F>
decltype(auto) with_host_csr(const Matrix& A, F&& f) {
  if (const auto* csr = std::get_if<Csr<T, int32_t>>(A.csr.get())) return f(*csr);
  if (const auto* csr = std::get_if<Csr<T, int64_t>>(A.csr.get())) return f(*csr);
  throw Error(fmt::format("the matrix holds {}, the operands {}", A.dtype(),
                          std::is_same_v<T, float> ? "float32" : "float64"));
}

// spx::cg on the host copy: the library's CSR overload at 32 bits; at 64 bits the same solver over
// an operator of the 64-bit OpenMP SpMV (spx::cg's CSR overload is 32-bit only).
template <class T>
CgResult host_cg(const Csr<T, int32_t>& A, std::span<const T> b, std::span<T> x, const CgOptions& options) {
  return cg<T>(A, b, x, options);
}
template <class T>
CgResult host_cg(const Csr<T, int64_t>& A, std::span<const T> b, std::span<T> x, const CgOptions& options) {
  if (A.rows != A.cols) throw Error(fmt::format("cg: matrix is {} x {}, not square", A.rows, A.cols));
  std::vector<T> inv;
  if (options.preconditioner == Preconditioner::Jacobi) inv = inverse_diagonal(A);
  const HostOperator<T> apply = [&A](std::span<const T> in, std::span<T> out) { omp::spmv(A, in, out); };
  return cg<T>(apply, A.rows, std::span<const T>(inv), b, x, options);
}

}  // namespace

template <class T>
void cpu_spmv(const Matrix& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  with_host_csr<T>(A, [&](const auto& csr) { omp::spmv(csr, x, y, alpha, beta); });
}

template <class T>
void cpu_spmm(const Matrix& A, const T* B, int64_t ldb, bool b_row_major, T* C, int64_t ldc, bool c_row_major,
              int64_t L, T alpha, T beta) {
  const int64_t m = A.rows();
  const int64_t n = A.cols();
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
  with_host_csr<T>(A, [&](const auto& csr) { omp::spmm(csr, b, c, alpha, beta); });
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < L; ++j) C[at(i, j, ldc, c_row_major)] = c(i, j);
}

template <class T>
void cpu_rmatvec(const Matrix& A, std::span<const T> x, std::span<T> y) {
  with_host_csr<T>(A, [&](const auto& csr) {
    using I = typename std::decay_t<decltype(csr)>::index_type;
    if (x.size() != static_cast<std::size_t>(csr.rows) || y.size() != static_cast<std::size_t>(csr.cols))
      throw Error(fmt::format("x @ A: x has {} entries, the matrix {} rows", x.size(), csr.rows));
    std::vector<double> acc(static_cast<std::size_t>(csr.cols), 0.0);
    for (I r = 0; r < csr.rows; ++r) {
      const double xr = static_cast<double>(x[static_cast<std::size_t>(r)]);
      for (I k = csr.row_ptr[r]; k < csr.row_ptr[r + 1]; ++k)
        acc[static_cast<std::size_t>(csr.col_idx[k])] += static_cast<double>(csr.values[k]) * xr;
    }
    for (std::size_t c = 0; c < acc.size(); ++c) y[c] = static_cast<T>(acc[c]);
  });
}

template <class T>
CgResult cpu_cg(const Matrix& A, std::span<const T> b, std::span<T> x, bool initial_guess,
                const CgRequest& request) {
  return with_host_csr<T>(
      A, [&](const auto& csr) { return host_cg<T>(csr, b, x, cg_options(request, initial_guess)); });
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
