// Permutations (spx/reorder.hpp): checks, inverse, random ones, and applying them to a CSR
// (B = P A P^T) and to vectors.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "common/host_memory.hpp"
#include "common/splitmix64.hpp"
#include "reorder/square.hpp"
#include "spx/reorder.hpp"

namespace spx::reorder {

template <class I>
void check_permutation(std::span<const I> perm, int64_t n) {
  if (static_cast<int64_t>(perm.size()) != n)
    throw Error(fmt::format("permutation has {} entries, expected {}", perm.size(), n));
  std::vector<char> seen(perm.size(), 0);
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const int64_t v = static_cast<int64_t>(perm[i]);
    if (v < 0 || v >= n) throw Error(fmt::format("permutation entry {} is {}, outside 0..{}", i, v, n - 1));
    if (seen[static_cast<std::size_t>(v)])
      throw Error(fmt::format("permutation entry {} repeats {}: not a bijection", i, v));
    seen[static_cast<std::size_t>(v)] = 1;
  }
}

template <class I>
std::vector<I> inverse(std::span<const I> perm) {
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  std::vector<I> inv(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) inv[static_cast<std::size_t>(perm[i])] = static_cast<I>(i);
  return inv;
}

template <class I>
std::vector<I> random_permutation(I n, uint64_t seed) {
  if (n < 0) throw Error(fmt::format("random_permutation: n = {} is negative", static_cast<int64_t>(n)));
  std::vector<I> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), I{0});
  uint64_t state = seed;
  for (std::size_t i = perm.size(); i > 1; --i) {
    // A 64-bit draw modulo i: the bias (at most i / 2^64) is far below anything a test could see.
    const auto j = static_cast<std::size_t>(spx::detail::splitmix64_next(state) % i);
    std::swap(perm[i - 1], perm[j]);
  }
  return perm;
}

template <class T, class I>
Csr<T, I> permute_symmetric(const Csr<T, I>& A, std::span<const I> perm) {
  detail::require_square(A, "permute_symmetric");
  check_permutation(perm, static_cast<int64_t>(A.rows));
  const double n_rows = static_cast<double>(A.rows), nnz = static_cast<double>(A.nnz());
  spx::detail::require_host_memory(
      nnz * static_cast<double>(sizeof(T) + sizeof(I)) + (2 * n_rows + 1) * sizeof(I),
      "permute_symmetric (the renumbered copy)");
  const std::vector<I> inv = inverse(perm);
  Csr<T, I> B(A.rows, A.cols);
  B.col_idx.resize(A.col_idx.size());
  B.values.resize(A.values.size());
  const auto n = static_cast<int64_t>(perm.size());
  for (int64_t i = 0; i < n; ++i) {
    const auto old = static_cast<std::size_t>(perm[static_cast<std::size_t>(i)]);
    B.row_ptr[static_cast<std::size_t>(i) + 1] =
        B.row_ptr[static_cast<std::size_t>(i)] + (A.row_ptr[old + 1] - A.row_ptr[old]);
  }
  // Rows are independent once row_ptr is known: each thread sorts its rows' renumbered columns.
#pragma omp parallel
  {
    std::vector<std::pair<I, T>> row;
#pragma omp for schedule(dynamic, 1024)
    for (int64_t i = 0; i < n; ++i) {
      const auto old = static_cast<std::size_t>(perm[static_cast<std::size_t>(i)]);
      row.clear();
      for (I p = A.row_ptr[old]; p < A.row_ptr[old + 1]; ++p)
        row.emplace_back(inv[static_cast<std::size_t>(A.col_idx[p])], A.values[p]);
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      auto q = static_cast<std::size_t>(B.row_ptr[static_cast<std::size_t>(i)]);
      for (const auto& [c, v] : row) {
        B.col_idx[q] = c;
        B.values[q++] = v;
      }
    }
  }
  return B;
}

template <class T, class I>
std::vector<T> permute(std::span<const T> x, std::span<const I> perm) {
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  detail::require_length(x.size(), static_cast<int64_t>(perm.size()), "permute");
  std::vector<T> out(x.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[i] = x[static_cast<std::size_t>(perm[i])];
  return out;
}

template <class T, class I>
std::vector<T> unpermute(std::span<const T> x_permuted, std::span<const I> perm) {
  check_permutation(perm, static_cast<int64_t>(perm.size()));
  detail::require_length(x_permuted.size(), static_cast<int64_t>(perm.size()), "unpermute");
  std::vector<T> out(x_permuted.size());
  for (std::size_t i = 0; i < perm.size(); ++i) out[static_cast<std::size_t>(perm[i])] = x_permuted[i];
  return out;
}

template <class T, class I>
Band band(const Csr<T, I>& A) {
  A.validate();
  Band b;
  double sum = 0;
  for (I r = 0; r < A.rows; ++r) {
    if (A.row_ptr[r] == A.row_ptr[r + 1]) continue;
    const int64_t first = static_cast<int64_t>(A.col_idx[A.row_ptr[r]]);
    if (first < static_cast<int64_t>(r)) b.profile += static_cast<int64_t>(r) - first;
    for (I p = A.row_ptr[r]; p < A.row_ptr[r + 1]; ++p) {
      const int64_t d = std::abs(static_cast<int64_t>(A.col_idx[p]) - static_cast<int64_t>(r));
      b.bandwidth = std::max(b.bandwidth, d);
      sum += static_cast<double>(d);
    }
  }
  b.mean_distance = A.nnz() > 0 ? sum / static_cast<double>(A.nnz()) : 0.0;
  return b;
}

#define SPX_INSTANTIATE_PERM_INDEX(I)                              \
  template void check_permutation<I>(std::span<const I>, int64_t); \
  template std::vector<I> inverse<I>(std::span<const I>);          \
  template std::vector<I> random_permutation<I>(I, uint64_t);
#define SPX_INSTANTIATE_PERM(T, I)                                                 \
  template Csr<T, I> permute_symmetric(const Csr<T, I>&, std::span<const I>);      \
  template std::vector<T> permute<T, I>(std::span<const T>, std::span<const I>);   \
  template std::vector<T> unpermute<T, I>(std::span<const T>, std::span<const I>); \
  template Band band(const Csr<T, I>&);
SPX_INSTANTIATE_PERM_INDEX(int32_t)
SPX_INSTANTIATE_PERM_INDEX(int64_t)
SPX_INSTANTIATE_PERM(float, int32_t)
SPX_INSTANTIATE_PERM(float, int64_t)
SPX_INSTANTIATE_PERM(double, int32_t)
SPX_INSTANTIATE_PERM(double, int64_t)
#undef SPX_INSTANTIATE_PERM
#undef SPX_INSTANTIATE_PERM_INDEX

}  // namespace spx::reorder
