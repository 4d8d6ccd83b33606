// Column spans of a canonical CSR's rows (last column - first column), summarised in O(rows): what
// decides whether the 16-bit column-offset format (spx/csr_c16.hpp) pays. The planner carries it in
// plan::Problem::column_spans; the front door fills it from the host matrix.
#pragma once

#include <cstdint>

#include "spx/matrix.hpp"

namespace spx {

/// Largest column span (max - min column of a row) a 16-bit offset can hold.
inline constexpr int64_t kC16MaxSpan = 65535;

struct ColumnSpanStats {
  int64_t rows = 0;
  int64_t nnz = 0;
  int64_t wide_rows = 0;  ///< rows whose span exceeds kC16MaxSpan (the escape part)
  int64_t wide_nnz = 0;   ///< their nonzeros
  int64_t max_span = 0;   ///< largest span of any row

  /// Share of the nonzeros in narrow rows (1 for an empty matrix).
  double narrow_share() const {
    return nnz > 0 ? static_cast<double>(nnz - wide_nnz) / static_cast<double>(nnz) : 1.0;
  }
};

/// One pass over row_ptr reading each nonempty row's first and last column: O(rows), no allocation.
/// A must be canonical (sorted columns; Csr::validate()); only its sizes are checked here.
template <class T, class I>
ColumnSpanStats column_span_stats(const Csr<T, I>& A);

/// Bytes an SpMV streams for A's structure and values, as CSR and as CsrC16 (value_bytes 4 or 8):
/// CSR nnz (v + 4) + 4 (rows + 1); C16 narrow nnz (v + 2) + 8 rows + 4 plus the escape part's
/// wide nnz (v + 4) + 8 wide rows + 4 (exactly CsrC16::bytes()). x and y are the same for both and
/// left out.
double csr_stream_bytes(const ColumnSpanStats& s, int value_bytes);
double csr_c16_stream_bytes(const ColumnSpanStats& s, int value_bytes);

}  // namespace spx
