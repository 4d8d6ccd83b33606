// A rank's share of a distributed matrix (spx/dist_mpi.hpp): split_block's local and remote parts
// merged back into one row-ordered matrix over [owned x | halo], the send lists learnt from the
// receivers with one all-to-all, and the product with its halo exchange.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "mpi/comm.hpp"
#include "spx/cpu.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {
namespace {

constexpr int kHaloTag = 40;

// Row r of the part's local slices and remote part, merged by global column into `out`.
template <class T>
Csr<T, int32_t> merge_rows(const RankPart<T>& part) {
  const int64_t owned = part.col_end - part.col_begin, halo = static_cast<int64_t>(part.halo_global.size());
  if (owned + halo > std::numeric_limits<int32_t>::max())
    throw Error(
        fmt::format("distribute: rank {} reads {} owned and {} halo x entries, more than int32_t "
                    "indexes; use more ranks",
                    part.rank, owned, halo));
  const auto rows = static_cast<int32_t>(part.row_end - part.row_begin);
  Csr<T, int32_t> A(rows, static_cast<int32_t>(owned + halo));
  const int64_t nnz = part.local_nnz() + part.remote.nnz();
  if (nnz > std::numeric_limits<int32_t>::max())
    throw Error(fmt::format(
        "distribute: rank {} holds {} nonzeros, more than int32_t indexes; use more ranks", part.rank, nnz));
  A.col_idx.reserve(static_cast<std::size_t>(nnz));
  A.values.reserve(static_cast<std::size_t>(nnz));
  const Csr<T, int32_t>& R = part.remote;
  for (const auto& slice : part.local) {
    const Csr<T, int32_t>& L = slice.A;
    for (int32_t i = 0; i < L.rows; ++i) {
      const auto r = static_cast<int32_t>(slice.row_begin + i);
      int32_t l = L.row_ptr[static_cast<std::size_t>(i)], m = R.row_ptr[static_cast<std::size_t>(r)];
      const int32_t l_end = L.row_ptr[static_cast<std::size_t>(i) + 1];
      const int32_t m_end = R.row_ptr[static_cast<std::size_t>(r) + 1];
      while (l < l_end || m < m_end) {
        const bool take_local =
            m == m_end ||
            (l < l_end &&
             part.col_begin + L.col_idx[static_cast<std::size_t>(l)] <
                 part.halo_global[static_cast<std::size_t>(R.col_idx[static_cast<std::size_t>(m)])]);
        if (take_local) {
          A.col_idx.push_back(L.col_idx[static_cast<std::size_t>(l)]);
          A.values.push_back(L.values[static_cast<std::size_t>(l++)]);
        } else {
          A.col_idx.push_back(static_cast<int32_t>(owned) + R.col_idx[static_cast<std::size_t>(m)]);
          A.values.push_back(R.values[static_cast<std::size_t>(m++)]);
        }
      }
      A.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<int32_t>(A.col_idx.size());
    }
  }
  return A;
}

// The messages out of this rank's x, learnt from the receivers (`recv`: the messages into this
// rank's halo): counts and landing offsets by all-to-alls, then the indices (into this rank's x).
// Collective.
std::vector<HaloMessage> learn_sends(Group group, int me, const std::vector<HaloMessage>& recv,
                                     int64_t owned) {
  const auto P = static_cast<std::size_t>(size(group));
  std::vector<int> need(P, 0), wanted(P, 0), need_at(P, 0), wanted_at(P, 0), lands(P, 0), lands_at(P, 0);
  std::vector<int32_t> need_idx;
  for (const auto& m : recv) {
    need[static_cast<std::size_t>(m.from)] = m.count();
    need_at[static_cast<std::size_t>(m.from)] = static_cast<int>(need_idx.size());
    lands[static_cast<std::size_t>(m.from)] = m.recv_offset;
    need_idx.insert(need_idx.end(), m.send_local.begin(), m.send_local.end());
  }
  const MPI_Comm comm = detail::comm(group);
  detail::check(MPI_Alltoall(need.data(), 1, MPI_INT, wanted.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  detail::check(MPI_Alltoall(lands.data(), 1, MPI_INT, lands_at.data(), 1, MPI_INT, comm), "MPI_Alltoall");
  int64_t total = 0;
  for (std::size_t p = 0; p < P; ++p) {
    wanted_at[p] = static_cast<int>(total);
    total += wanted[p];
  }
  if (total > std::numeric_limits<int>::max())
    throw Error(
        fmt::format("distribute: rank {} sends {} x entries per product, more than MPI counts", me, total));
  std::vector<int32_t> wanted_idx(static_cast<std::size_t>(total));
  detail::check(MPI_Alltoallv(need_idx.data(), need.data(), need_at.data(), MPI_INT32_T, wanted_idx.data(),
                              wanted.data(), wanted_at.data(), MPI_INT32_T, comm),
                "MPI_Alltoallv");
  std::vector<HaloMessage> sends;
  for (std::size_t p = 0; p < P; ++p) {
    if (wanted[p] == 0) continue;
    HaloMessage m;
    m.from = me;
    m.to = static_cast<int>(p);
    m.recv_offset = lands_at[p];
    m.send_local.assign(wanted_idx.begin() + wanted_at[p], wanted_idx.begin() + wanted_at[p] + wanted[p]);
    for (const int32_t i : m.send_local)
      if (i < 0 || i >= owned)
        throw Error(
            fmt::format("distribute: rank {} asks rank {} for x entry {}; it owns {}", p, me, i, owned));
    sends.push_back(std::move(m));
  }
  return sends;
}

// A rank's statistics as a flat record of integers, for one MPI_Allgather.
constexpr int kStatFields = 9;
std::array<int64_t, kStatFields> flatten(const RankStats& r) {
  return {
      r.rank,      r.rows,       r.nnz,
      r.local_nnz, r.remote_nnz, r.owned_cols,
      r.halo_recv, r.halo_send,  int64_t{r.neighbours_recv} << 32 | static_cast<uint32_t>(r.neighbours_send)};
}
RankStats unflatten(const int64_t* f) {
  RankStats r;
  r.rank = static_cast<int>(f[0]);
  r.rows = f[1], r.nnz = f[2], r.local_nnz = f[3], r.remote_nnz = f[4], r.owned_cols = f[5];
  r.halo_recv = f[6], r.halo_send = f[7];
  r.neighbours_recv = static_cast<int>(f[8] >> 32);
  r.neighbours_send = static_cast<int>(static_cast<uint32_t>(f[8]));
  return r;
}

}  // namespace

template <class T>
RankMatrix<T> distribute(Group group, const Csr<T, int64_t>& my_rows, const Partition& row_partition,
                         const Partition& col_partition) {
  RankMatrix<T> M;
  M.group = group;
  M.rank = rank(group);
  const int ranks = size(group);
  std::string error;
  try {
    if (row_partition.ranks() != ranks || col_partition.ranks() != ranks)
      throw Error(fmt::format("distribute: partitions of {} and {} ranks for a job of {} ranks",
                              row_partition.ranks(), col_partition.ranks(), ranks));
    RankPart<T> part = split_block(my_rows, M.rank, row_partition, col_partition);
    M.rows = row_partition.size();
    M.cols = col_partition.size();
    M.row_partition = row_partition;
    M.col_partition = col_partition;
    M.row_begin = part.row_begin;
    M.col_begin = part.col_begin;
    M.owned = part.col_end - part.col_begin;
    M.recv = halo_messages(part, col_partition);
    M.A = merge_rows(part);
    M.halo_global = std::move(part.halo_global);
  } catch (const Error& e) {
    error = e.what();
  }
  detail::agree(group, error);

  M.send = learn_sends(group, M.rank, M.recv, M.owned);
  return M;
}

template <class T>
DistMatrix<T> distribute_parts(Group group, const Csr<T, int64_t>& my_rows, const Partition& row_partition,
                               const Partition& col_partition) {
  const int me = rank(group), ranks = size(group);
  DistMatrix<T> D;
  std::string error;
  try {
    if (row_partition.ranks() != ranks || col_partition.ranks() != ranks)
      throw Error(fmt::format("distribute: partitions of {} and {} ranks for a job of {} ranks",
                              row_partition.ranks(), col_partition.ranks(), ranks));
    D.rows = row_partition.size();
    D.cols = col_partition.size();
    D.row_partition = row_partition;
    D.col_partition = col_partition;
    D.parts.resize(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {  // shells: the ranges alone
      RankPart<T>& shell = D.parts[static_cast<std::size_t>(r)];
      shell.rank = r;
      shell.row_begin = row_partition.begin[static_cast<std::size_t>(r)];
      shell.row_end = row_partition.begin[static_cast<std::size_t>(r) + 1];
      shell.col_begin = col_partition.begin[static_cast<std::size_t>(r)];
      shell.col_end = col_partition.begin[static_cast<std::size_t>(r) + 1];
    }
    D.parts[static_cast<std::size_t>(me)] = split_block(my_rows, me, row_partition, col_partition);
    D.messages = halo_messages(D.parts[static_cast<std::size_t>(me)], col_partition);
  } catch (const Error& e) {
    error = e.what();
  }
  detail::agree(group, error);
  RankPart<T>& mine = D.parts[static_cast<std::size_t>(me)];
  std::vector<HaloMessage> sends = learn_sends(group, me, D.messages, mine.col_end - mine.col_begin);
  D.messages.insert(D.messages.end(), std::make_move_iterator(sends.begin()),
                    std::make_move_iterator(sends.end()));
  std::sort(D.messages.begin(), D.messages.end(), [](const HaloMessage& a, const HaloMessage& b) {
    return std::pair{a.to, a.from} < std::pair{b.to, b.from};
  });
  // Every rank's line of the statistics (this rank's messages are all it needs for its own).
  const auto flat = flatten(statistics(D).per_rank[static_cast<std::size_t>(me)]);
  std::vector<int64_t> all(static_cast<std::size_t>(kStatFields * ranks));
  detail::check(MPI_Allgather(flat.data(), kStatFields, MPI_INT64_T, all.data(), kStatFields, MPI_INT64_T,
                              detail::comm(group)),
                "MPI_Allgather");
  std::vector<RankStats> per_rank;
  for (int r = 0; r < ranks; ++r)
    per_rank.push_back(unflatten(&all[static_cast<std::size_t>(kStatFields * r)]));
  D.stats = statistics(std::move(per_rank));
  return D;
}

template <class T>
Product<T>::Product(const RankMatrix<T>& A) : A_(A), x_ext_(static_cast<std::size_t>(A.A.cols)) {
  std::size_t sends = 0;
  for (const auto& m : A.send) sends += m.send_local.size();
  send_.resize(sends);
}

template <class T>
void Product<T>::operator()(std::span<const T> x, std::span<T> y) {
  const RankMatrix<T>& M = A_;
  if (static_cast<int64_t>(x.size()) != M.owned || static_cast<int64_t>(y.size()) != M.A.rows)
    throw Error(fmt::format("spmv: rank {} got x of {} and y of {} entries; it owns {} of x and {} rows",
                            M.rank, x.size(), y.size(), M.owned, M.A.rows));
  std::copy(x.begin(), x.end(), x_ext_.begin());
  const MPI_Comm comm = detail::comm(M.group);
  const MPI_Datatype type = detail::datatype<T>();
  std::vector<MPI_Request> requests;
  requests.reserve(M.recv.size() + M.send.size());
  for (const auto& m : M.recv) {
    requests.emplace_back();
    detail::check(MPI_Irecv(x_ext_.data() + M.owned + m.recv_offset, m.count(), type, m.from, kHaloTag, comm,
                            &requests.back()),
                  "MPI_Irecv");
  }
  std::size_t at = 0;
  for (const auto& m : M.send) {
    T* buf = send_.data() + at;
    for (std::size_t i = 0; i < m.send_local.size(); ++i)
      buf[i] = x[static_cast<std::size_t>(m.send_local[i])];
    at += m.send_local.size();
    requests.emplace_back();
    detail::check(MPI_Isend(buf, m.count(), type, m.to, kHaloTag, comm, &requests.back()), "MPI_Isend");
  }
  detail::check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                "MPI_Waitall");
  omp::spmv(M.A, std::span<const T>(x_ext_), y);
}

#define SPX_INSTANTIATE(T)                                                                              \
  template RankMatrix<T> distribute(Group, const Csr<T, int64_t>&, const Partition&, const Partition&); \
  template DistMatrix<T> distribute_parts(Group, const Csr<T, int64_t>&, const Partition&,              \
                                          const Partition&);                                            \
  template class Product<T>;
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

}  // namespace spx::dist::mpi
