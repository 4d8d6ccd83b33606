// The Python package's matrix: a canonical host CSR (float or double values, int32 or int64 indices)
// and, once moved to a GPU, its device half (gpu.hpp). The host copy always stays: to_scipy(), stats
// and the CPU products read it, and the front door builds its formats from it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "gpu.hpp"
#include "spx/matrix.hpp"
#include "spx/stats.hpp"

namespace spx::python {

// CsrF32, CsrF64, their int64 twins and HostCsr (the variant of the four) are in gpu.hpp.

// Immutable once made: moving to a GPU makes a new Matrix that shares the host copy.
struct Matrix {
  std::shared_ptr<const HostCsr> csr;
  std::shared_ptr<GpuMatrix> gpu;  // null while the matrix lives on the host

  bool is_f32() const {
    return std::holds_alternative<CsrF32>(*csr) || std::holds_alternative<CsrF32Wide>(*csr);
  }
  // The host copy's index width: 32 or 64.
  int index_bits() const {
    return std::holds_alternative<CsrF32Wide>(*csr) || std::holds_alternative<CsrF64Wide>(*csr) ? 64 : 32;
  }
  int64_t rows() const;
  int64_t cols() const;
  int64_t nnz() const;
  const char* dtype() const { return is_f32() ? "float32" : "float64"; }
  std::string device() const;  // "cpu" or "cuda:N"
};

// The host copy's index width for arrays of index type J: int32 arrays stay 32-bit unless `width`
// asks for 64; int64 arrays get plan::offset_bits' answer (Auto: 32 where the nonzeros fit, which
// lets every GPU candidate run; 64 past 2^31 - 1 or when asked). spx::Error with the numbers when
// Bits32 cannot hold them.
template <class J>
int host_index_bits(plan::IndexWidth width, int64_t rows, int64_t cols, int64_t nnz);

// Host bytes of a CSR copy: (rows + 1) offsets, nnz columns and nnz values.
double host_csr_bytes(int64_t rows, int64_t nnz, std::size_t value_bytes, int index_bits);
// Refuses (spx::Error with the bytes needed and available) a host CSR copy the machine cannot hold;
// `what` names it.
void require_copy_memory(int64_t rows, int64_t cols, int64_t nnz, std::size_t value_bytes, int index_bits,
                         std::string_view what);

// From the three CSR arrays (copied). Sizes first: the shape, the arrays' lengths, the index width
// (host_index_bits) and the copy's bytes against the host memory available, before anything is
// read or allocated. Then the structure (row_ptr from 0, monotone, ending at nnz; columns in range),
// naming the first bad entry; then columns are sorted and repeated entries summed, so any valid CSR
// becomes canonical. spx::Error otherwise.
// J: the arrays' index type, int32_t or int64_t, read as they are (no copy in Python).
template <class T, class J>
Matrix matrix_from_csr(int64_t rows, int64_t cols, std::span<const J> row_ptr, std::span<const J> col_idx,
                       std::span<const T> values, plan::IndexWidth width = plan::IndexWidth::Auto);
// A copy of the host matrix with `bits`-bit indices (the same when it has them); host only.
Matrix with_index_bits(const Matrix& A, int bits);

// `width`: the host copy's indices. Bits64: int64; Auto: int64 where the matrix needs them (a file's
// header past 2^31 - 1 entries, a generator's refusal of int32 before it allocates), else int32.
Matrix read_matrix(const std::string& path, bool f32, plan::IndexWidth width = plan::IndexWidth::Auto);
Matrix generate_matrix(const std::string& spec, bool f32, plan::IndexWidth width = plan::IndexWidth::Auto);
Matrix astype(const Matrix& A, bool f32);  // a host copy with the other value type (or the same)
// Shares the host copy; device < 0: the host alone. `width`: the device's row offsets (index=).
Matrix to_device(const Matrix& A, int device, plan::IndexWidth width = plan::IndexWidth::Auto);
Matrix transposed(const Matrix& A);  // a host copy of A^T (spx::transpose, canonical)
// A host copy with every value multiplied (or divided, when `divide`) by s, in double, rounded
// once to the value type; the structure is kept (explicit zeros included), as SciPy's A * s.
Matrix scaled(const Matrix& A, double s, bool divide);

// The first entry that breaks symmetry, as spx cg's check (tools/spx/cmd_cg.cpp): |A(r,c) - A(c,r)|
// > 1e-6 · max |A(r,:)|, a missing mirror counting as 0. O(nnz · log(row length)), one pass; spx::Error when
// A is not square.
struct Asymmetry {
  int64_t row, col;
  double value, mirror;  // A(row, col) and A(col, row)
};
std::optional<Asymmetry> find_asymmetry(const Matrix& A);

// y = alpha*A*x + beta*y with spx::omp on the host copy. Sizes checked by the kernel.
template <class T>
void cpu_spmv(const Matrix& A, std::span<const T> x, std::span<T> y, T alpha, T beta);
// C = alpha*A*B + beta*C, B (cols × L) and C (rows × L) dense, row- or column-major with their
// leading dimensions, in host memory the caller owns (copied in and out of spx::Dense).
template <class T>
void cpu_spmm(const Matrix& A, const T* B, int64_t ldb, bool b_row_major, T* C, int64_t ldc, bool c_row_major,
              int64_t L, T alpha, T beta);

// y = A^T x (the row vector x times A) on the host copy, without forming A^T: one thread
// scattering row by row into a double accumulator, rounded to T once (the CPU kernels' rule).
template <class T>
void cpu_rmatvec(const Matrix& A, std::span<const T> x, std::span<T> y);

// Conjugate gradients with spx::cg (OpenMP) on the host copy: b and x of size rows, x holding the
// initial guess when `initial_guess`. spx::Error (a non-square matrix, a diagonal Jacobi cannot
// invert) before any iteration.
template <class T>
CgResult cpu_cg(const Matrix& A, std::span<const T> b, std::span<T> x, bool initial_guess,
                const CgRequest& request);

}  // namespace spx::python
