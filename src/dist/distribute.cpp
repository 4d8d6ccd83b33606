// The split of each rank's rows into a local part (columns the rank owns) and a remote part
// (columns of other ranks, renumbered compactly into the halo vector), and the halo pattern.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "spx/dist.hpp"
#include "spx/error.hpp"

namespace spx::dist {
namespace {

void require_int32(int64_t value, int rank, const char* what) {
  if (value > std::numeric_limits<int32_t>::max())
    throw Error(fmt::format("distribute: rank {} has {} {}, more than int32_t holds; use more ranks", rank,
                            value, what));
}

template <class T, class I>
RankPart<T> split_rank(const Csr<T, I>& A, int rank, const Partition& rows, const Partition& cols) {
  RankPart<T> part;
  part.rank = rank;
  part.row_begin = rows.begin[static_cast<std::size_t>(rank)];
  part.row_end = rows.begin[static_cast<std::size_t>(rank) + 1];
  part.col_begin = cols.begin[static_cast<std::size_t>(rank)];
  part.col_end = cols.begin[static_cast<std::size_t>(rank) + 1];
  const auto owned = [&](int64_t c) { return c >= part.col_begin && c < part.col_end; };
  const int64_t n_rows = part.row_end - part.row_begin;
  const int64_t k0 = static_cast<int64_t>(A.row_ptr[static_cast<std::size_t>(part.row_begin)]);
  const int64_t k1 = static_cast<int64_t>(A.row_ptr[static_cast<std::size_t>(part.row_end)]);
  require_int32(n_rows, rank, "rows");
  require_int32(k1 - k0, rank, "nonzeros");
  require_int32(part.col_end - part.col_begin, rank, "owned columns");

  for (int64_t k = k0; k < k1; ++k) {
    const auto c = static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(k)]);
    if (!owned(c)) part.halo_global.push_back(c);
  }
  std::sort(part.halo_global.begin(), part.halo_global.end());
  part.halo_global.erase(std::unique(part.halo_global.begin(), part.halo_global.end()),
                         part.halo_global.end());

  const auto r32 = static_cast<int32_t>(n_rows);
  part.local = Csr<T, int32_t>(r32, static_cast<int32_t>(part.col_end - part.col_begin));
  part.remote = Csr<T, int32_t>(r32, static_cast<int32_t>(part.halo_global.size()));
  for (int64_t r = 0; r < n_rows; ++r) {
    const auto g = static_cast<std::size_t>(part.row_begin + r);
    for (auto k = static_cast<int64_t>(A.row_ptr[g]); k < static_cast<int64_t>(A.row_ptr[g + 1]); ++k) {
      const auto c = static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(k)]);
      const T v = A.values[static_cast<std::size_t>(k)];
      if (owned(c)) {
        part.local.col_idx.push_back(static_cast<int32_t>(c - part.col_begin));
        part.local.values.push_back(v);
      } else {
        const auto h =
            std::lower_bound(part.halo_global.begin(), part.halo_global.end(), c) - part.halo_global.begin();
        part.remote.col_idx.push_back(static_cast<int32_t>(h));
        part.remote.values.push_back(v);
      }
    }
    part.local.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(part.local.col_idx.size());
    part.remote.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(part.remote.col_idx.size());
  }
  return part;
}

// The receiver's halo is sorted by global column and the owners' blocks are contiguous, so each
// sender's entries form one contiguous run: one message per run.
template <class T>
void add_messages(const RankPart<T>& to, const Partition& cols, std::vector<HaloMessage>& out) {
  const auto& halo = to.halo_global;
  for (std::size_t h = 0; h < halo.size();) {
    HaloMessage m;
    m.from = cols.owner(halo[h]);
    m.to = to.rank;
    m.recv_offset = static_cast<int32_t>(h);
    const int64_t begin = cols.begin[static_cast<std::size_t>(m.from)];
    const int64_t end = cols.begin[static_cast<std::size_t>(m.from) + 1];
    for (; h < halo.size() && halo[h] < end; ++h)
      m.send_local.push_back(static_cast<int32_t>(halo[h] - begin));
    out.push_back(std::move(m));
  }
}

void check_partition(const Partition& p, int64_t size, const char* what) {
  if (p.begin.size() < 2 || p.begin.front() != 0 || p.begin.back() != size)
    throw Error(fmt::format("distribute: the {} partition must run from 0 to {}", what, size));
  for (std::size_t r = 1; r < p.begin.size(); ++r)
    if (p.begin[r] < p.begin[r - 1])
      throw Error(fmt::format("distribute: the {} partition decreases at rank {}", what, r - 1));
}

}  // namespace

template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, const Partition& rows, const Partition& cols) {
  A.validate();
  check_partition(rows, static_cast<int64_t>(A.rows), "row");
  check_partition(cols, static_cast<int64_t>(A.cols), "column");
  if (rows.ranks() != cols.ranks())
    throw Error(fmt::format("distribute: the row partition has {} ranks, the column partition {}",
                            rows.ranks(), cols.ranks()));
  DistMatrix<T> D;
  D.rows = A.rows;
  D.cols = A.cols;
  D.row_partition = rows;
  D.col_partition = cols;
  for (int r = 0; r < rows.ranks(); ++r) D.parts.push_back(split_rank(A, r, rows, cols));
  for (const auto& part : D.parts) add_messages(part, cols, D.messages);
  return D;
}

template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, int ranks, double row_overhead) {
  const Partition rows = partition_rows(A, ranks, row_overhead);
  return distribute(A, rows, A.rows == A.cols ? rows : partition_even(A.cols, ranks));
}

#define SPX_INSTANTIATE(T, I)                                                              \
  template DistMatrix<T> distribute(const Csr<T, I>&, const Partition&, const Partition&); \
  template DistMatrix<T> distribute(const Csr<T, I>&, int, double);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx::dist
