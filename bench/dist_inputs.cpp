// Splitting benchmark inputs over ranks (dist_inputs.hpp).
#include "bench/dist_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "common/wall_clock.hpp"
#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace spx::bench {

std::optional<StencilGrid> stencil_grid(const MatrixSource& source) {
  if (source.kind != MatrixSource::Kind::Spec) return std::nullopt;
  const std::string& spec = source.location;
  const std::string kind = spec.substr(0, spec.find(':'));
  StencilGrid g;
  if (kind == "stencil2d")
    g.points = 5;
  else if (kind == "stencil7")
    g.points = 7;
  else if (kind == "stencil27")
    g.points = 27;
  else
    return std::nullopt;
  // The spec was validated by resolve_matrix (gen::generate's parser); read its keys the same way.
  int64_t n = g.points == 5 ? 64 : 16;
  std::optional<int64_t> nx, ny, nz;
  if (spec.find(':') != std::string::npos) {
    std::string rest = spec.substr(spec.find(':') + 1);
    std::size_t start = 0;
    while (start < rest.size()) {
      std::size_t comma = rest.find(',', start);
      if (comma == std::string::npos) comma = rest.size();
      const std::string item = rest.substr(start, comma - start);
      const std::size_t eq = item.find('=');
      if (eq != std::string::npos) {
        const std::string key = item.substr(0, eq);
        const auto value = static_cast<int64_t>(std::stod(item.substr(eq + 1)));
        if (key == "n")
          n = value;
        else if (key == "nx")
          nx = value;
        else if (key == "ny")
          ny = value;
        else if (key == "nz")
          nz = value;
        else  // shuffle=, or any key the row generator does not take: built whole, then split
          return std::nullopt;
      }
      start = comma + 1;
    }
  }
  g.nx = nx.value_or(n);
  g.ny = ny.value_or(n);
  g.nz = g.points == 5 ? 1 : nz.value_or(n);
  return g;
}

template <class T>
DistInput<T> load_distributed(const MatrixSource& source, int ranks, bool keep_whole,
                              const std::string& partition, int64_t products) {
  const auto t0 = std::chrono::steady_clock::now();
  DistInput<T> in;
  dist::PartitionKind kind = dist::parse_partition_kind(partition);
  if (kind == dist::PartitionKind::Auto && stencil_grid(source)) kind = dist::PartitionKind::Rows;
  if (kind != dist::PartitionKind::Rows) {
    Csr<T, int32_t> A = load_matrix<T, int32_t>(source);
    dist::PartitionCosts costs;
    costs.products = products;
    costs.value_bytes = sizeof(T);
    dist::PartitionChoice choice = dist::choose_partition(A, ranks, kind, costs);
    in.partition = dist::partition_kind_name(choice.chosen);
    in.partition_report = choice.summary();
    if (choice.graph) {
      A = reorder::permute_symmetric(A, std::span<const int32_t>(choice.graph->perm));
      in.D = dist::distribute(A, choice.graph->rows, choice.graph->rows);
      in.perm = std::move(choice.graph->perm);
    } else {
      in.D = dist::distribute(A, ranks);
    }
    if (keep_whole) in.whole = std::move(A);
    in.seconds = spx::detail::seconds_since(t0);
    return in;
  }
  in.stencil = stencil_grid(source);
  if (in.stencil) {
    const StencilGrid g = *in.stencil;
    const dist::Partition rows = dist::partition_even(g.rows(), ranks);
    in.D = dist::distribute_blocks<T>(g.rows(), g.rows(), rows, rows, [&g](int64_t begin, int64_t end) {
      return gen::stencil_rows<T>(g.points, g.nx, g.ny, g.nz, begin, end);
    });
  } else {
    Csr<T, int32_t> A = load_matrix<T, int32_t>(source);
    in.D = dist::distribute(A, ranks);
    if (keep_whole) in.whole = std::move(A);
  }
  in.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return in;
}

namespace {
double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

SetupClock::SetupClock(int gpus) : gpus_(gpus), last_(steady_seconds()) {}

void SetupClock::done(const std::string& phase, const std::string& what) {
  const double now = steady_seconds(), s = now - last_;
  last_ = now;
  seconds_[phase] = s;
  fmt::print(stderr, "[{} GPU{}] {}: {:.1f} s ({})\n", gpus_, gpus_ == 1 ? "" : "s", phase, s, what);
}

nlohmann::ordered_json rank_json(const dist::RankStats& r, const dist::Partition& rows,
                                 const dist::Partition& cols) {
  const auto at = static_cast<std::size_t>(r.rank);
  return {{"rank", r.rank},
          {"row_begin", rows.begin[at]},
          {"row_end", rows.begin[at + 1]},
          {"col_begin", cols.begin[at]},
          {"col_end", cols.begin[at + 1]},
          {"nnz", r.nnz},
          {"local_nnz", r.local_nnz},
          {"remote_nnz", r.remote_nnz},
          {"halo_recv", r.halo_recv},
          {"halo_send", r.halo_send},
          {"neighbours_recv", r.neighbours_recv},
          {"neighbours_send", r.neighbours_send}};
}

template DistInput<float> load_distributed<float>(const MatrixSource&, int, bool, const std::string&,
                                                  int64_t);
template DistInput<double> load_distributed<double>(const MatrixSource&, int, bool, const std::string&,
                                                    int64_t);

}  // namespace spx::bench
