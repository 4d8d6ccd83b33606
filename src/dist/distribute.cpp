// The split of each rank's rows into a local part (columns the rank owns) and a remote part
// (columns of other ranks, renumbered compactly into the halo vector), and the halo pattern.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/threads.hpp"
#include "spx/dist.hpp"
#include "spx/error.hpp"

namespace spx::dist {
namespace {

void require_int32(int64_t value, int rank, const char* what) {
  if (value > std::numeric_limits<int32_t>::max())
    throw Error(fmt::format("distribute: rank {} has {} {}, more than int32_t holds; use more ranks", rank,
                            value, what));
}

// Rank `rank`'s part from the rows of A starting at row0 (A is the whole matrix, row0 = the rank's
// first row, or a block holding just the rank's rows, row0 = 0). Two parallel passes over the rows:
// count local and remote entries, then (slice by slice) fill; the halo columns are gathered per
// thread and merged.
template <class T, class I>
RankPart<T> split_rank(const Csr<T, I>& A, int64_t row0, int rank, const Partition& rows,
                       const Partition& cols, int64_t slice_nnz) {
  RankPart<T> part;
  part.rank = rank;
  part.row_begin = rows.begin[static_cast<std::size_t>(rank)];
  part.row_end = rows.begin[static_cast<std::size_t>(rank) + 1];
  part.col_begin = cols.begin[static_cast<std::size_t>(rank)];
  part.col_end = cols.begin[static_cast<std::size_t>(rank) + 1];
  const int64_t col_begin = part.col_begin, col_end = part.col_end;
  const auto owned = [col_begin, col_end](int64_t c) { return c >= col_begin && c < col_end; };
  const int64_t n_rows = part.row_end - part.row_begin;
  const auto ptr = [&A, row0](int64_t r) {
    return static_cast<int64_t>(A.row_ptr[static_cast<std::size_t>(row0 + r)]);
  };
  const int64_t k0 = ptr(0), k1 = ptr(n_rows);
  require_int32(n_rows, rank, "rows");
  require_int32(col_end - col_begin, rank, "owned columns");
  const bool threads = k1 - k0 >= (int64_t{1} << 16);

  std::vector<std::vector<int64_t>> found(static_cast<std::size_t>(threads ? omp_get_max_threads() : 1));
#pragma omp parallel if (threads)
  {
    auto& mine = found[static_cast<std::size_t>(omp_get_thread_num())];
#pragma omp for schedule(static)
    for (int64_t k = k0; k < k1; ++k) {
      const auto c = static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(k)]);
      if (!owned(c)) mine.push_back(c);
    }
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  }
  for (const auto& f : found) part.halo_global.insert(part.halo_global.end(), f.begin(), f.end());
  std::sort(part.halo_global.begin(), part.halo_global.end());
  part.halo_global.erase(std::unique(part.halo_global.begin(), part.halo_global.end()),
                         part.halo_global.end());
  const auto& halo = part.halo_global;

  // Entries per row, local and remote.
  std::vector<int32_t> local_count(static_cast<std::size_t>(n_rows)), remote_count(local_count.size());
#pragma omp parallel for if (threads) schedule(static)
  for (int64_t r = 0; r < n_rows; ++r) {
    int32_t local = 0, remote = 0;
    for (int64_t k = ptr(r); k < ptr(r + 1); ++k)
      (owned(static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(k)])) ? local : remote) += 1;
    local_count[static_cast<std::size_t>(r)] = local;
    remote_count[static_cast<std::size_t>(r)] = remote;
  }
  // The remote part is one matrix; the local part is cut into slices of at most slice_nnz.
  int64_t remote_nnz = 0;
  for (const int32_t c : remote_count) remote_nnz += c;
  require_int32(static_cast<int64_t>(halo.size()), rank, "halo entries");
  require_int32(remote_nnz, rank, "remote nonzeros");
  const auto r32 = static_cast<int32_t>(n_rows);
  const auto owned32 = static_cast<int32_t>(col_end - col_begin);
  part.remote = Csr<T, int32_t>(r32, static_cast<int32_t>(halo.size()));
  for (int64_t r = 0; r < n_rows; ++r)
    part.remote.row_ptr[static_cast<std::size_t>(r) + 1] =
        part.remote.row_ptr[static_cast<std::size_t>(r)] + remote_count[static_cast<std::size_t>(r)];
  part.remote.col_idx.resize(static_cast<std::size_t>(remote_nnz));
  part.remote.values.resize(part.remote.col_idx.size());
  // As many slices as slice_nnz requires, of about equal nonzeros: a slice just under the int32_t
  // limit would put every padded format (ELL slots, SELL slots) and cuSPARSE's preprocessing over it.
  int64_t local_nnz = 0;
  for (const int32_t c : local_count) local_nnz += c;
  const int64_t slices = std::max<int64_t>(1, (local_nnz + slice_nnz - 1) / slice_nnz);
  const int64_t target = (local_nnz + slices - 1) / slices;
  for (int64_t r = 0; r < n_rows || part.local.empty();) {
    const int64_t first = r;
    int64_t nnz = 0;
    while (r < n_rows && (r == first || nnz + local_count[static_cast<std::size_t>(r)] <= target))
      nnz += local_count[static_cast<std::size_t>(r++)];
    LocalSlice<T> slice{first, Csr<T, int32_t>(static_cast<int32_t>(r - first), owned32)};
    for (int64_t i = first; i < r; ++i)
      slice.A.row_ptr[static_cast<std::size_t>(i - first) + 1] =
          slice.A.row_ptr[static_cast<std::size_t>(i - first)] + local_count[static_cast<std::size_t>(i)];
    slice.A.col_idx.resize(static_cast<std::size_t>(nnz));
    slice.A.values.resize(slice.A.col_idx.size());
    part.local.push_back(std::move(slice));
  }
  local_count = {};
  remote_count = {};
  for (auto& slice : part.local) {
    Csr<T, int32_t>& L = slice.A;
    const int64_t first = slice.row_begin, rows_here = L.rows;
#pragma omp parallel for if (threads) schedule(static)
    for (int64_t i = 0; i < rows_here; ++i) {
      const int64_t r = first + i;
      auto l = static_cast<std::size_t>(L.row_ptr[static_cast<std::size_t>(i)]);
      auto m = static_cast<std::size_t>(part.remote.row_ptr[static_cast<std::size_t>(r)]);
      for (int64_t k = ptr(r); k < ptr(r + 1); ++k) {
        const auto c = static_cast<int64_t>(A.col_idx[static_cast<std::size_t>(k)]);
        const T v = A.values[static_cast<std::size_t>(k)];
        if (owned(c)) {
          L.col_idx[l] = static_cast<int32_t>(c - col_begin);
          L.values[l++] = v;
        } else {
          part.remote.col_idx[m] =
              static_cast<int32_t>(std::lower_bound(halo.begin(), halo.end(), c) - halo.begin());
          part.remote.values[m++] = v;
        }
      }
    }
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

void check_slice_nnz(int64_t slice_nnz) {
  if (slice_nnz < 1 || slice_nnz > kMaxSliceNnz)
    throw Error(fmt::format("distribute: slices of {} nonzeros; give 1 .. {}", slice_nnz, kMaxSliceNnz));
}

}  // namespace

template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, const Partition& rows, const Partition& cols,
                         int64_t slice_nnz) {
  check_slice_nnz(slice_nnz);
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
  for (int r = 0; r < rows.ranks(); ++r)
    D.parts.push_back(split_rank(A, rows.begin[static_cast<std::size_t>(r)], r, rows, cols, slice_nnz));
  for (const auto& part : D.parts) add_messages(part, cols, D.messages);
  return D;
}

template <class T, class I>
DistMatrix<T> distribute(const Csr<T, I>& A, int ranks, double row_overhead) {
  const Partition rows = partition_rows(A, ranks, row_overhead);
  return distribute(A, rows, A.rows == A.cols ? rows : partition_even(A.cols, ranks));
}

template <class T>
DistMatrix<T> distribute_blocks(int64_t rows, int64_t cols, const Partition& row_partition,
                                const Partition& col_partition, const RowBlockMaker<T>& make_block,
                                int64_t slice_nnz) {
  check_slice_nnz(slice_nnz);
  check_partition(row_partition, rows, "row");
  check_partition(col_partition, cols, "column");
  if (row_partition.ranks() != col_partition.ranks())
    throw Error(fmt::format("distribute: the row partition has {} ranks, the column partition {}",
                            row_partition.ranks(), col_partition.ranks()));
  DistMatrix<T> D;
  D.rows = rows;
  D.cols = cols;
  D.row_partition = row_partition;
  D.col_partition = col_partition;
  // One host thread per rank, each with its share of the OpenMP threads: the allocations of a
  // rank's block and parts (tens of GB, zeroed by one thread each) then overlap across ranks.
  const int ranks = row_partition.ranks();
  const int threads_per_rank = std::max(1, omp_get_max_threads() / ranks);
  D.parts.resize(static_cast<std::size_t>(ranks));
  spx::detail::on_threads(ranks, [&](int r) {
    omp_set_num_threads(threads_per_rank);
    const int64_t begin = row_partition.begin[static_cast<std::size_t>(r)];
    const int64_t end = row_partition.begin[static_cast<std::size_t>(r) + 1];
    const Csr<T, int64_t> block = make_block(begin, end);
    if (block.rows != end - begin || block.cols != cols)
      throw Error(fmt::format("distribute: the block of rows [{}, {}) came back {} × {}, not {} × {}", begin,
                              end, block.rows, block.cols, end - begin, cols));
    block.validate();
    D.parts[static_cast<std::size_t>(r)] = split_rank(block, 0, r, row_partition, col_partition, slice_nnz);
  });
  for (const auto& part : D.parts) add_messages(part, col_partition, D.messages);
  return D;
}
template <class T>
RankPart<T> split_block(const Csr<T, int64_t>& block, int rank, const Partition& row_partition,
                        const Partition& col_partition, int64_t slice_nnz) {
  check_slice_nnz(slice_nnz);
  check_partition(row_partition, row_partition.size(), "row");
  check_partition(col_partition, col_partition.size(), "column");
  if (row_partition.ranks() != col_partition.ranks() || rank < 0 || rank >= row_partition.ranks())
    throw Error(fmt::format("distribute: rank {} of a row partition of {} ranks and a column partition of {}",
                            rank, row_partition.ranks(), col_partition.ranks()));
  const int64_t rows = row_partition.block_size(rank);
  if (block.rows != rows || block.cols != col_partition.size())
    throw Error(fmt::format("distribute: rank {}'s block is {} × {}, not {} × {}", rank, block.rows,
                            block.cols, rows, col_partition.size()));
  block.validate();
  return split_rank(block, 0, rank, row_partition, col_partition, slice_nnz);
}

template <class T>
std::vector<HaloMessage> halo_messages(const RankPart<T>& to, const Partition& col_partition) {
  std::vector<HaloMessage> out;
  add_messages(to, col_partition, out);
  return out;
}

#define SPX_INSTANTIATE(T)                                                                          \
  template RankPart<T> split_block(const Csr<T, int64_t>&, int, const Partition&, const Partition&, \
                                   int64_t);                                                        \
  template std::vector<HaloMessage> halo_messages(const RankPart<T>&, const Partition&);
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

template DistMatrix<float> distribute_blocks(int64_t, int64_t, const Partition&, const Partition&,
                                             const RowBlockMaker<float>&, int64_t);
template DistMatrix<double> distribute_blocks(int64_t, int64_t, const Partition&, const Partition&,
                                              const RowBlockMaker<double>&, int64_t);

#define SPX_INSTANTIATE(T, I)                                                                       \
  template DistMatrix<T> distribute(const Csr<T, I>&, const Partition&, const Partition&, int64_t); \
  template DistMatrix<T> distribute(const Csr<T, I>&, int, double);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE

}  // namespace spx::dist
