// The split of a matrix over ranks, chosen by the halo it leaves (spx/dist_graph.hpp): every
// candidate's halo is counted on the host from a row → rank map, without renumbering the matrix;
// only the chosen renumbering is returned.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/wall_clock.hpp"
#include "spx/dist_graph.hpp"
#include "spx/error.hpp"

namespace spx::dist {
namespace {

// The halo of the split that gives rank r the rows order[rows.begin[r] .. rows.begin[r + 1]) (order:
// new position → old row; empty: the identity), x split like the rows.
template <class T>
PartitionCandidate halo_of(const Csr<T, int32_t>& A, const Partition& rows, std::span<const int32_t> order,
                           PartitionKind kind, double seconds, const PartitionCosts& costs) {
  const auto n = static_cast<std::size_t>(A.rows);
  const int ranks = rows.ranks();
  const auto old_row = [&](int64_t k) {
    return order.empty() ? k : static_cast<int64_t>(order[static_cast<std::size_t>(k)]);
  };
  std::vector<int32_t> owner(n);
  for (int r = 0; r < ranks; ++r)
    for (int64_t k = rows.begin[static_cast<std::size_t>(r)]; k < rows.begin[static_cast<std::size_t>(r) + 1];
         ++k)
      owner[static_cast<std::size_t>(old_row(k))] = r;
  PartitionCandidate c;
  c.kind = kind;
  c.seconds = seconds;
  std::vector<int32_t> seen(n, -1);  // the last rank that counted column c in its halo
  int64_t remote = 0;
  for (int r = 0; r < ranks; ++r) {
    int64_t halo = 0, rank_remote = 0;
    for (int64_t k = rows.begin[static_cast<std::size_t>(r)]; k < rows.begin[static_cast<std::size_t>(r) + 1];
         ++k) {
      const auto i = static_cast<std::size_t>(old_row(k));
      for (auto p = static_cast<std::size_t>(A.row_ptr[i]); p < static_cast<std::size_t>(A.row_ptr[i + 1]);
           ++p) {
        const auto col = static_cast<std::size_t>(A.col_idx[p]);
        if (owner[col] == r) continue;
        ++rank_remote;
        if (seen[col] != r) seen[col] = r, ++halo;
      }
    }
    remote += rank_remote;
    c.halo_entries += halo;
    c.busiest_halo = std::max(c.busiest_halo, halo);
    // What the halo adds to the rank's product: the exchange (its messages move in one group: one
    // latency), and the remote part after it.
    const double t = halo == 0
                         ? 0.0
                         : costs.exchange_seconds + costs.remote_part_seconds +
                               static_cast<double>(halo) * costs.value_bytes / costs.halo_bytes_per_second +
                               static_cast<double>(rank_remote) * costs.remote_seconds_per_nnz;
    c.predicted_seconds = std::max(c.predicted_seconds, t);
  }
  c.remote_fraction = A.nnz() > 0 ? static_cast<double>(remote) / static_cast<double>(A.nnz()) : 0.0;
  return c;
}

template <class T>
GraphPartition renumbering(const Csr<T, int32_t>& A, int ranks, PartitionKind kind) {
  return kind == PartitionKind::Metis ? partition_graph(A, ranks) : partition_rcm(A, ranks);
}

}  // namespace

const char* partition_kind_name(PartitionKind kind) {
  switch (kind) {
    case PartitionKind::Metis:
      return "metis";
    case PartitionKind::Rcm:
      return "rcm";
    case PartitionKind::Auto:
      return "auto";
    case PartitionKind::Rows:
      break;
  }
  return "rows";
}

PartitionKind parse_partition_kind(const std::string& word) {
  for (PartitionKind k : {PartitionKind::Rows, PartitionKind::Metis, PartitionKind::Rcm, PartitionKind::Auto})
    if (word == partition_kind_name(k)) return k;
  throw Error(fmt::format("partition '{}': give rows, metis, rcm or auto", word));
}

std::string PartitionChoice::summary() const {
  std::string s;
  for (const PartitionCandidate& c : considered)
    s += fmt::format(
        "{}: halo {} x entries (busiest rank {}), remote nonzeros {:.1f}%, predicted {:.3g} µs a "
        "product{}\n",
        partition_kind_name(c.kind), c.halo_entries, c.busiest_halo, 100.0 * c.remote_fraction,
        1e6 * c.predicted_seconds, c.seconds > 0 ? fmt::format(", {:.2f} s to compute", c.seconds) : "");
  return s + fmt::format("chose {}: {}", partition_kind_name(chosen), reason);
}

template <class T>
PartitionChoice choose_partition(const Csr<T, int32_t>& A, int ranks, PartitionKind kind,
                                 const PartitionCosts& costs) {
  if (ranks < 1 || ranks > A.rows)
    throw Error(fmt::format("partition: {} ranks for {} rows; give 1 .. {}", ranks, A.rows, A.rows));
  PartitionChoice choice;
  const bool square = A.rows == A.cols;
  if (square)
    choice.considered.push_back(halo_of(A, partition_rows(A, ranks), {}, PartitionKind::Rows, 0, costs));
  if (kind == PartitionKind::Rows) {
    choice.reason = "asked for";
    return choice;
  }
  if (!square && kind != PartitionKind::Auto)
    throw Error(fmt::format("partition {}: the matrix is {} x {}; a renumbering needs a square one",
                            partition_kind_name(kind), A.rows, A.cols));
  if (kind == PartitionKind::Auto && (!square || ranks == 1)) {
    choice.reason = square ? "one rank" : "a rectangular matrix keeps its numbering";
    return choice;
  }
  // Tries `k`; keeps it when asked for, or when it cuts the best predicted halo time by min_gain.
  std::size_t best = 0;  // in considered
  const auto attempt = [&](PartitionKind k, bool asked) {
    const auto t0 = std::chrono::steady_clock::now();
    GraphPartition g = renumbering(A, ranks, k);
    choice.considered.push_back(
        halo_of(A, g.rows, std::span<const int32_t>(g.perm), k, spx::detail::seconds_since(t0), costs));
    const double t = choice.considered.back().predicted_seconds;
    if (asked || t < (1 - costs.min_gain) * choice.considered[best].predicted_seconds) {
      best = choice.considered.size() - 1;
      choice.chosen = k;
      choice.graph = std::move(g);
    }
  };
  if (kind != PartitionKind::Auto) {
    attempt(kind, true);
    choice.reason = "asked for";
    return choice;
  }
  // Auto: RCM first (cheap), then METIS, each tried only when what a renumbering could remove from
  // the best split's halo time (all but the fixed costs, which any halo pays) over the products
  // exceeds its predicted cost. A renumbering that fails (METIS's 32-bit limits) is skipped.
  std::string skipped;
  const double fixed = costs.exchange_seconds + costs.remote_part_seconds;
  for (PartitionKind k : {PartitionKind::Rcm, PartitionKind::Metis}) {
    if (k == PartitionKind::Metis && !metis_available()) {
      skipped += "; METIS not built in";
      continue;
    }
    const double left = static_cast<double>(costs.products) *
                        std::max(0.0, choice.considered[best].predicted_seconds - fixed);
    const double cost = static_cast<double>(A.nnz()) *
                        (k == PartitionKind::Metis ? costs.metis_seconds_per_nnz : costs.rcm_seconds_per_nnz);
    if (left <= cost) {
      skipped +=
          fmt::format("; {} not tried: {:.3g} s predicted against {:.3g} s it could save over {} products",
                      partition_kind_name(k), cost, left, costs.products);
      continue;
    }
    try {
      attempt(k, false);
    } catch (const Error& e) {
      skipped += fmt::format("; {} failed: {}", partition_kind_name(k), e.what());
    }
  }
  const double rows_us = 1e6 * choice.considered.front().predicted_seconds,
               best_us = 1e6 * choice.considered[best].predicted_seconds;
  choice.reason =
      choice.chosen == PartitionKind::Rows
          ? fmt::format("nothing tried cut the predicted halo time ({:.3g} µs a product) by {:.0f}%{}",
                        rows_us, 100 * costs.min_gain, skipped)
          : fmt::format("predicted halo time {:.3g} µs a product against {:.3g} µs for rows{}", best_us,
                        rows_us, skipped);
  return choice;
}

template PartitionChoice choose_partition(const Csr<float, int32_t>&, int, PartitionKind,
                                          const PartitionCosts&);
template PartitionChoice choose_partition(const Csr<double, int32_t>&, int, PartitionKind,
                                          const PartitionCosts&);

}  // namespace spx::dist
