// spx dist FILE|SPEC --ranks K : how A would be spread over K GPUs (spx/dist.hpp) — the row blocks,
// each rank's local and remote nonzeros, the halo volume and bytes per product, the imbalance —
// and a check that the product on K simulated CPU ranks equals spx::ref. Nothing runs on a GPU.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "bench/dist_inputs.hpp"
#include "bench/inputs.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "cli_common.hpp"
#include "spx/cpu.hpp"
#include "spx/dist.hpp"
#include "spx/dist_graph.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::cli {
namespace {

using json = nlohmann::ordered_json;

struct DistCliOptions {
  std::string input;
  int ranks = 2;
  double row_overhead = 0.0;
  std::string precision = "f64";
  std::string json_path;
  int64_t products = 1000;  // --partition auto: the products the split serves
  std::string partition =
      "rows";  // rows, metis, rcm or auto (spx/dist_graph.hpp: P A Pᵀ split in row blocks)
};

// Rows where the simulated product misses spx::ref by more than the CPU kernels' bound for two
// roundings in T: 2·(2·eps_T + (n + 2)·eps_d)·Σ|a_ij x_j| (docs/cpu-backend.md has the one-rounding
// bound; the local and remote products round once each).
template <class T>
int64_t rows_off(const Csr<T, int32_t>& A, std::span<const T> x, std::span<const T> got,
                 std::span<const T> want, double& worst) {
  const double eps_t = std::numeric_limits<T>::epsilon(), eps_d = std::numeric_limits<double>::epsilon();
  int64_t off = 0;
  worst = 0;
  for (int32_t r = 0; r < A.rows; ++r) {
    double m = 0;
    for (int32_t k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      m += std::abs(static_cast<double>(A.values[k]) *
                    static_cast<double>(x[static_cast<std::size_t>(A.col_idx[k])]));
    const double tol = 2.0 * (2.0 * eps_t + static_cast<double>(A.row_length(r) + 2) * eps_d) * m;
    const double diff = std::abs(static_cast<double>(got[static_cast<std::size_t>(r)]) -
                                 static_cast<double>(want[static_cast<std::size_t>(r)]));
    if (!(diff <= tol)) ++off;
    if (m > 0) worst = std::max(worst, diff / m);
  }
  return off;
}

template <class T>
json run_dist(const DistCliOptions& o, const bench::MatrixSource& source, std::ostream& out) {
  auto A = bench::load_matrix<T, int32_t>(source);
  // Renumbered by METIS or RCM, everything below runs on P A Pᵀ, whose parts are row blocks; x and
  // the check follow. The choice counts every candidate's halo (the row blocks' among them).
  std::optional<dist::PartitionChoice> choice;
  if (const auto kind = dist::parse_partition_kind(o.partition); kind != dist::PartitionKind::Rows) {
    dist::PartitionCosts costs;
    costs.value_bytes = sizeof(T);
    costs.products = o.products;
    choice = dist::choose_partition(A, o.ranks, kind, costs);
  }
  const dist::GraphPartition* g = choice && choice->graph ? &*choice->graph : nullptr;
  const bool renumbered = g != nullptr;
  if (renumbered) A = reorder::permute_symmetric(A, std::span<const int32_t>(g->perm));
  const auto D =
      renumbered ? dist::distribute(A, g->rows, g->rows) : dist::distribute(A, o.ranks, o.row_overhead);
  const auto s = dist::statistics(D);
  const char* chosen = choice ? dist::partition_kind_name(choice->chosen) : "rows";

  fmt::print(out, "{}: {} x {}, {} nonzeros, on {} ranks ({}{})\n", source.name, A.rows, A.cols, A.nnz(),
             o.ranks,
             !renumbered                      ? "rows balanced by nonzeros"
             : std::string(chosen) == "metis" ? "METIS parts, rows renumbered part by part"
                                              : "blocks of RCM's numbering balanced by nonzeros",
             o.row_overhead > 0 && !renumbered ? fmt::format(" + {} per row", o.row_overhead) : "");
  fmt::print(out, "{:>4}  {:>21}  {:>10}  {:>10}  {:>10}  {:>9}  {:>10}  {:>4}  {:>10}  {:>4}\n", "rank",
             "rows", "nnz", "local", "remote", "x owned", "halo in", "from", "halo out", "to");
  for (const auto& r : s.per_rank) {
    const auto& p = D.parts[static_cast<std::size_t>(r.rank)];
    fmt::print(out, "{:>4}  {:>21}  {:>10}  {:>10}  {:>10}  {:>9}  {:>10}  {:>4}  {:>10}  {:>4}\n", r.rank,
               fmt::format("{}..{}", p.row_begin, p.row_end - 1), r.nnz, r.local_nnz, r.remote_nnz,
               r.owned_cols, r.halo_recv, r.neighbours_recv, r.halo_send, r.neighbours_send);
  }
  fmt::print(out,
             "halo per SpMV: {} x entries in {} messages = {} in f32, {} in f64 (times L for SpMM); "
             "busiest receiver {} in f64\n",
             s.halo_entries, s.messages, human_bytes(static_cast<uint64_t>(s.bytes_f32)),
             human_bytes(static_cast<uint64_t>(s.bytes_f64)),
             human_bytes(static_cast<uint64_t>(s.max_rank_recv_bytes_f64)));
  fmt::print(out, "imbalance: max/mean nonzeros per rank {:.4f}; remote nonzeros {:.2f}% of all\n",
             s.nnz_imbalance, 100.0 * s.remote_fraction);
  if (choice) fmt::print(out, "partition {}:\n{}\n", o.partition, choice->summary());

  std::vector<T> x(static_cast<std::size_t>(A.cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(1.0 + static_cast<double>(i % 17) / 16.0);
  std::vector<T> want(static_cast<std::size_t>(A.rows));
  ref::spmv(A, std::span<const T>(x), std::span<T>(want));
  const std::vector<T> got = dist::simulated_spmv(D, std::span<const T>(x));
  double worst = 0;
  const int64_t off = rows_off<T>(A, x, got, want, worst);
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  fmt::print(
      out, "check ({}): SpMV on {} simulated ranks vs spx::ref: {} (largest |diff| / sum|a x| {:.2e})\n",
      precision, o.ranks, off == 0 ? "equal within the bound" : fmt::format("{} rows off", off), worst);

  json ranks = json::array();
  for (const auto& r : s.per_rank) ranks.push_back(bench::rank_json(r, D.row_partition, D.col_partition));
  return json{
      {"matrix", source.name},
      {"precision", precision},
      {"rows", A.rows},
      {"cols", A.cols},
      {"nnz", A.nnz()},
      {"ranks", o.ranks},
      {"row_overhead", o.row_overhead},
      {"halo_entries", s.halo_entries},
      {"messages", s.messages},
      {"halo_bytes_f32", s.bytes_f32},
      {"halo_bytes_f64", s.bytes_f64},
      {"max_rank_recv_bytes_f64", s.max_rank_recv_bytes_f64},
      {"nnz_imbalance", s.nnz_imbalance},
      {"remote_fraction", s.remote_fraction},
      {"partition", chosen},
      {"partition_asked", o.partition},
      {"partition_report", choice ? json(choice->summary()) : json(nullptr)},
      {"row_blocks_halo_entries",
       choice && !choice->considered.empty() ? json(choice->considered.front().halo_entries) : json(nullptr)},
      {"per_rank", ranks},
      {"check", {{"rows_off", off}, {"worst_relative_diff", worst}, {"passed", off == 0}}}};
}

void run_dist_command(const DistCliOptions& o) {
  const auto source = bench::resolve_matrix(o.input);
  std::ostream& out = human_output(o.json_path);
  json runs = json::array();
  if (o.precision == "f32")
    runs.push_back(run_dist<float>(o, source, out));
  else if (o.precision == "f64")
    runs.push_back(run_dist<double>(o, source, out));
  else
    throw Error(fmt::format("--precision {}: choose f32 or f64", o.precision));
  if (!o.json_path.empty()) {
    json j;
    j["schema"] = "spx-dist-1";
    j["commit"] = bench::source_commit();
    j["date"] = bench::utc_now_iso8601();
    j["runs"] = runs;
    bench::write_json(o.json_path, j);
  }
  for (const auto& r : runs)
    if (!r["check"]["passed"].get<bool>()) throw ExitStatus{1};
}

}  // namespace

void add_dist_command(CLI::App& app) {
  auto o = std::make_shared<DistCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dist",
      "How a matrix splits over several GPUs: row blocks, halo volume, bytes per product, imbalance "
      "(simulated on the CPU)");
  cmd->add_option("input", o->input, "Matrix Market file or generator spec (e.g. stencil27:n=64)")
      ->required();
  cmd->add_option("--ranks", o->ranks, "Number of ranks (GPUs) to split over")
      ->capture_default_str()
      ->transform(count_in(1, kMaxRanks, "ranks"));
  cmd->add_option("--row-overhead", o->row_overhead,
                  "Cost of a row in units of one nonzero, added to its nonzeros when balancing")
      ->capture_default_str()
      ->check(real_in(0, kMaxReal, "nonzeros"));
  cmd->add_option("--precision", o->precision, "f32 or f64 (the value type of the check)")
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "Also write the results as JSON to FILE ('-': stdout)");
  cmd->add_option("--partition", o->partition,
                  "rows (contiguous blocks balanced by nonzeros), rcm (blocks of RCM's numbering), metis "
                  "(METIS parts of A + A^T, the rows renumbered part by part) or auto (the one whose halo "
                  "repays its cost over --products products); every candidate's halo is printed")
      ->check(CLI::IsMember({"rows", "metis", "rcm", "auto"}))
      ->capture_default_str();
  cmd->add_option("--products", o->products, "--partition auto: the products the split will serve")
      ->capture_default_str()
      ->transform(count_in(1, kMaxExpectedCalls, "products"));
  cmd->footer(R"(Examples:
  spx dist stencil27:n=64 --ranks 4
  spx dist cage11.mtx.gz --ranks 7 --precision f32 --json dist.json
  spx dist powerlaw:n=100000 --ranks 4 --partition metis
  spx dist stencil27:n=40,shuffle=1 --ranks 4 --partition auto --products 1e6)");
  cmd->callback([o] { run_dist_command(*o); });
}

}  // namespace spx::cli
