// Halo volume, bytes moved per product and load imbalance of a distributed matrix.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "spx/dist.hpp"

namespace spx::dist {

template <class T>
DistStats statistics(const DistMatrix<T>& D) {
  std::vector<RankStats> per_rank(static_cast<std::size_t>(D.ranks()));
  for (const auto& p : D.parts) {
    RankStats& r = per_rank[static_cast<std::size_t>(p.rank)];
    r.rank = p.rank;
    r.rows = p.row_end - p.row_begin;
    r.local_nnz = p.local_nnz();
    r.remote_nnz = p.remote.nnz();
    r.nnz = r.local_nnz + r.remote_nnz;
    r.owned_cols = p.col_end - p.col_begin;
  }
  for (const auto& m : D.messages) {
    per_rank[static_cast<std::size_t>(m.to)].halo_recv += m.count();
    per_rank[static_cast<std::size_t>(m.to)].neighbours_recv += 1;
    per_rank[static_cast<std::size_t>(m.from)].halo_send += m.count();
    per_rank[static_cast<std::size_t>(m.from)].neighbours_send += 1;
  }
  return statistics(std::move(per_rank));
}

DistStats statistics(std::vector<RankStats> per_rank) {
  DistStats s;
  s.ranks = static_cast<int>(per_rank.size());
  s.per_rank = std::move(per_rank);
  int64_t remote = 0, max_nnz = 0, max_recv = 0;
  for (const auto& r : s.per_rank) {
    s.nnz += r.nnz;
    remote += r.remote_nnz;
    max_nnz = std::max(max_nnz, r.nnz);
    max_recv = std::max(max_recv, r.halo_recv);
    s.messages += r.neighbours_recv;
    s.halo_entries += r.halo_recv;
  }
  s.bytes_f32 = s.halo_entries * 4;
  s.bytes_f64 = s.halo_entries * 8;
  s.max_rank_recv_bytes_f64 = max_recv * 8;
  const double mean = static_cast<double>(s.nnz) / s.ranks;
  s.nnz_imbalance = mean > 0 ? static_cast<double>(max_nnz) / mean : 1.0;
  s.remote_fraction = s.nnz > 0 ? static_cast<double>(remote) / static_cast<double>(s.nnz) : 0.0;
  return s;
}

template DistStats statistics(const DistMatrix<float>&);
template DistStats statistics(const DistMatrix<double>&);

}  // namespace spx::dist
