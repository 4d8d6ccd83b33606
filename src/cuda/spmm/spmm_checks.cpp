#include "cuda/spmm/spmm_checks.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "common/overlap.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

const char* name(Layout layout) { return layout == Layout::RowMajor ? "row-major" : "column-major"; }

void check_view(const char* who, const char* what, const DenseShape& D) {
  if (D.rows < 0 || D.cols < 0)
    throw Error(fmt::format("{}: {} has negative size {} x {}", who, what, D.rows, D.cols));
  const int64_t min_ld = D.layout == Layout::RowMajor ? D.cols : D.rows;
  if (D.ld < std::max<int64_t>(1, min_ld))
    throw Error(fmt::format("{}: {} is {} {} x {} with leading dimension {} (needs >= {})", who, what,
                            name(D.layout), D.rows, D.cols, D.ld, std::max<int64_t>(1, min_ld)));
  if (D.rows > 0 && D.cols > 0 && D.data == nullptr)
    throw Error(fmt::format("{}: {} is {} x {} but its data pointer is null", who, what, D.rows, D.cols));
}

// The bytes a view touches (leading-dimension padding between its rows or columns included).
ByteRange byte_range(const DenseShape& D, std::size_t element_bytes) {
  const bool row_major = D.layout == Layout::RowMajor;
  return dense_bytes(D.data, row_major ? D.rows : D.cols, row_major ? D.cols : D.rows, D.ld, element_bytes);
}

}  // namespace

void check_spmm_operands(const char* who, int64_t a_rows, int64_t a_cols, const DenseShape& B,
                         const DenseShape& C, std::size_t element_bytes) {
  check_view(who, "B", B);
  check_view(who, "C", C);
  if (B.rows != a_cols) throw Error(fmt::format("{}: B has {} rows, A has {} columns", who, B.rows, a_cols));
  if (C.rows != a_rows) throw Error(fmt::format("{}: C has {} rows, A has {} rows", who, C.rows, a_rows));
  if (C.cols != B.cols) throw Error(fmt::format("{}: C has {} columns, B has {}", who, C.cols, B.cols));
  if (B.rows == 0 || B.cols == 0 || C.rows == 0) return;
  if (overlap(byte_range(B, element_bytes), byte_range(C, element_bytes)))
    throw Error(
        fmt::format("{}: the output C overlaps the input B; products are not computed in place "
                    "(pass a separate C)",
                    who));
}

bool rows_aligned(const DenseShape& D, std::size_t element_bytes, std::size_t bytes) {
  if (D.layout != Layout::RowMajor) return false;
  return reinterpret_cast<uintptr_t>(D.data) % bytes == 0 &&
         static_cast<std::size_t>(D.ld) * element_bytes % bytes == 0;
}

}  // namespace spx::cuda::detail
