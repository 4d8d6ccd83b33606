// A matrix loaded on one rank and sent out in row blocks, and a vector gathered back
// (spx/dist_mpi.hpp): a rank other than root never holds more than its own rows.
#include <fmt/format.h>
#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "mpi/comm.hpp"
#include "spx/dist_graph.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::dist::mpi {
namespace {

constexpr int kRowsTag = 41;

int mpi_count(int64_t n, const char* what) {
  if (n > std::numeric_limits<int>::max())
    throw Error(
        fmt::format("scatter_rows: {} {} in one message, more than MPI counts; use more ranks", n, what));
  return static_cast<int>(n);
}

// Root's error text (empty: none) on every rank.
std::string broadcast_error(Group group, int root, std::string error) {
  int64_t length = static_cast<int64_t>(error.size());
  detail::check(MPI_Bcast(&length, 1, MPI_INT64_T, root, detail::comm(group)), "MPI_Bcast");
  error.resize(static_cast<std::size_t>(length));
  if (length > 0)
    detail::check(MPI_Bcast(error.data(), static_cast<int>(length), MPI_CHAR, root, detail::comm(group)),
                  "MPI_Bcast");
  return error;
}

void broadcast_partition(Group group, int root, Partition& p, int ranks) {
  p.begin.resize(static_cast<std::size_t>(ranks) + 1);
  detail::check(MPI_Bcast(p.begin.data(), ranks + 1, MPI_INT64_T, root, detail::comm(group)), "MPI_Bcast");
}

}  // namespace

template <class T>
ScatteredRows<T> scatter_rows(Group group, const std::function<Csr<T, int32_t>()>& load, bool keep_whole,
                              PartitionKind split, int root, const PartitionCosts& costs) {
  const int me = rank(group), ranks = size(group);
  if (root < 0 || root >= ranks) throw Error(fmt::format("scatter_rows: root {} of {} ranks", root, ranks));
  const MPI_Comm comm = detail::comm(group);
  ScatteredRows<T> out;
  std::optional<Csr<T, int32_t>> whole;
  std::string error;
  if (me == root) {
    try {
      whole = load();
      std::optional<GraphPartition> g;
      if (split != PartitionKind::Rows) {
        PartitionChoice choice = choose_partition(*whole, ranks, split, costs);
        out.partition = choice.chosen;
        out.partition_report = choice.summary();
        g = std::move(choice.graph);
      }
      if (g) {
        whole = reorder::permute_symmetric(*whole, std::span<const int32_t>(g->perm));
        out.row_partition = std::move(g->rows);
        out.perm = std::move(g->perm);
      } else {
        out.row_partition = partition_rows(*whole, ranks);
      }
      out.col_partition = whole->rows == whole->cols ? out.row_partition : partition_even(whole->cols, ranks);
    } catch (const Error& e) {
      error = e.what();
    }
  }
  error = broadcast_error(group, root, error);
  if (!error.empty())
    throw JobError(me == root ? error : fmt::format("rank {} could not load the matrix: {}", root, error),
                   me == root);
  broadcast_partition(group, root, out.row_partition, ranks);
  broadcast_partition(group, root, out.col_partition, ranks);
  // The split root used; METIS's and RCM's renumber the matrix, and their permutation follows.
  int chosen = static_cast<int>(out.partition);
  detail::check(MPI_Bcast(&chosen, 1, MPI_INT, root, comm), "MPI_Bcast");
  out.partition = static_cast<PartitionKind>(chosen);
  const bool renumbered = out.partition == PartitionKind::Metis || out.partition == PartitionKind::Rcm;
  int64_t cols = me == root ? static_cast<int64_t>(whole->cols) : 0;
  detail::check(MPI_Bcast(&cols, 1, MPI_INT64_T, root, comm), "MPI_Bcast");
  if (renumbered) {
    out.perm.resize(static_cast<std::size_t>(out.row_partition.size()));
    detail::check(MPI_Bcast(out.perm.data(), mpi_count(out.row_partition.size(), "permutation entries"),
                            MPI_INT32_T, root, comm),
                  "MPI_Bcast");
  }

  if (me == root) {
    for (int r = 0; r < ranks; ++r) {
      const auto R = static_cast<std::size_t>(r);
      Csr<T, int64_t> block = rows_of(*whole, out.row_partition.begin[R], out.row_partition.begin[R + 1]);
      if (r == root) {
        out.mine = std::move(block);
        continue;
      }
      // row_ptr (its last entry tells the receiver the nonzeros), then columns and values.
      const int rows1 = mpi_count(block.rows + 1, "row pointers");
      const int nnz = mpi_count(block.nnz(), "nonzeros");
      detail::check(MPI_Send(block.row_ptr.data(), rows1, MPI_INT64_T, r, kRowsTag, comm), "MPI_Send");
      detail::check(MPI_Send(block.col_idx.data(), nnz, MPI_INT64_T, r, kRowsTag, comm), "MPI_Send");
      detail::check(MPI_Send(block.values.data(), nnz, detail::datatype<T>(), r, kRowsTag, comm), "MPI_Send");
    }
    if (keep_whole) out.whole = std::move(whole);
  } else {
    const auto R = static_cast<std::size_t>(me);
    const int64_t rows = out.row_partition.begin[R + 1] - out.row_partition.begin[R];
    out.mine = Csr<T, int64_t>(rows, cols);
    detail::check(MPI_Recv(out.mine.row_ptr.data(), mpi_count(rows + 1, "row pointers"), MPI_INT64_T, root,
                           kRowsTag, comm, MPI_STATUS_IGNORE),
                  "MPI_Recv");
    const int nnz = mpi_count(out.mine.row_ptr.back(), "nonzeros");
    out.mine.col_idx.resize(static_cast<std::size_t>(nnz));
    out.mine.values.resize(static_cast<std::size_t>(nnz));
    detail::check(
        MPI_Recv(out.mine.col_idx.data(), nnz, MPI_INT64_T, root, kRowsTag, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
    detail::check(
        MPI_Recv(out.mine.values.data(), nnz, detail::datatype<T>(), root, kRowsTag, comm, MPI_STATUS_IGNORE),
        "MPI_Recv");
  }
  return out;
}

template <class T>
std::vector<T> gather_rows(Group group, const Partition& p, std::span<const T> mine, int root) {
  const int me = rank(group), ranks = size(group);
  if (p.ranks() != ranks || static_cast<int64_t>(mine.size()) != p.block_size(me))
    throw Error(fmt::format("gather_rows: rank {} holds {} entries; its block of a {}-rank partition has {}",
                            me, mine.size(), p.ranks(), p.ranks() == ranks ? p.block_size(me) : -1));
  std::vector<int> counts, offsets;
  std::vector<T> all;
  if (me == root) {
    for (int r = 0; r < ranks; ++r) {
      counts.push_back(mpi_count(p.block_size(r), "entries"));
      offsets.push_back(mpi_count(p.begin[static_cast<std::size_t>(r)], "entries"));
    }
    all.resize(static_cast<std::size_t>(p.size()));
  }
  detail::check(MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), detail::datatype<T>(), all.data(),
                            counts.data(), offsets.data(), detail::datatype<T>(), root, detail::comm(group)),
                "MPI_Gatherv");
  return all;
}

#define SPX_INSTANTIATE(T)                                                                     \
  template ScatteredRows<T> scatter_rows(Group, const std::function<Csr<T, int32_t>()>&, bool, \
                                         PartitionKind, int, const PartitionCosts&);           \
  template std::vector<T> gather_rows(Group, const Partition&, std::span<const T>, int);
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

}  // namespace spx::dist::mpi
