// Non-negative least squares (Lawson & Hanson's active-set method): min ||A c - b||_2 subject to
// c >= 0, for the performance model's small fits (a handful of coefficients, tens to hundreds of
// rows). Host code.
#pragma once

#include <vector>

namespace spx::model {

// A is rows × cols, row-major (A[i * cols + j]); b has `rows` entries. Returns c (cols entries, all
// >= 0). Columns that are all zero get coefficient 0. Throws spx::Error on mismatched sizes.
std::vector<double> nnls(const std::vector<double>& A, const std::vector<double>& b, int rows, int cols);

}  // namespace spx::model
