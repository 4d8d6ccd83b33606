// The MPI ranks' commands (mpi_ranks.hpp). Every rank holds only its own rows: stencil specs are
// generated row block by row block; any other matrix is read by rank 0, which sends each rank its
// rows (scatter_rows) and alone holds the whole matrix. Rank 0 prints and writes the JSON; times are
// the slowest rank's.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "bench/dist_inputs.hpp"
#include "bench/report.hpp"
#include "cg_rhs.hpp"
#include "cli_common.hpp"
#include "common/median.hpp"
#include "mpi_ranks.hpp"
#include "spx/cpu.hpp"
#include "spx/dist_mpi.hpp"
#include "spx/dist_mpi_gpu.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace spx::cli {

namespace mpi = spx::dist::mpi;
using json = nlohmann::ordered_json;

template <class T>
RankRows<T> load_rank_rows(const bench::MatrixSource& source, bool keep_whole, const std::string& partition,
                           int64_t products) {
  const int ranks = mpi::size(), r = mpi::rank();
  RankRows<T> in;
  const dist::PartitionKind kind = dist::parse_partition_kind(partition);
  // A stencil spec is generated rank by rank in its own numbering, which auto keeps.
  const bool renumber = kind == dist::PartitionKind::Metis || kind == dist::PartitionKind::Rcm;
  if (const auto g = bench::stencil_grid(source); g && !renumber) {
    in.row_partition = dist::partition_even(g->rows(), ranks);
    in.col_partition = in.row_partition;
    const int64_t begin = in.row_partition.begin[static_cast<std::size_t>(r)],
                  end = in.row_partition.begin[static_cast<std::size_t>(r) + 1];
    in.mine = gen::stencil_rows<T>(g->points, g->nx, g->ny, g->nz, begin, end);
    in.built = "generated per rank";
    return in;
  }
  // Rank 0 reads the file (or builds the spec), partitions it and sends each rank its rows.
  dist::PartitionCosts costs;
  costs.products = products;
  costs.value_bytes = sizeof(T);
  auto rows = mpi::scatter_rows<T>(
      mpi::Group::World, [&source] { return bench::load_matrix<T, int32_t>(source); }, keep_whole, kind, 0,
      costs);
  in.row_partition = std::move(rows.row_partition);
  in.col_partition = std::move(rows.col_partition);
  in.mine = std::move(rows.mine);
  in.partition = dist::partition_kind_name(rows.partition);
  in.built = fmt::format("read by rank 0, {} sent out{}",
                         rows.partition == dist::PartitionKind::Metis ? "METIS parts"
                         : rows.partition == dist::PartitionKind::Rcm ? "RCM's row blocks"
                                                                      : "rows",
                         kind == dist::PartitionKind::Auto ? " (partition auto)" : "");
  if (!rows.partition_report.empty()) fmt::print(stderr, "{}\n", rows.partition_report);
  in.perm = std::move(rows.perm);
  in.read = true;
  in.whole = std::move(rows.whole);
  return in;
}

template <class T>
bool within_rounding(const Csr<T, int32_t>& A, std::span<const T> x, std::span<const T> got,
                     std::span<const T> want) {
  const double u = std::numeric_limits<T>::epsilon();
  for (int32_t i = 0; i < A.rows; ++i) {
    double scale = 0;
    const auto k0 = A.row_ptr[static_cast<std::size_t>(i)], k1 = A.row_ptr[static_cast<std::size_t>(i) + 1];
    for (auto k = k0; k < k1; ++k)
      scale +=
          std::abs(static_cast<double>(A.values[static_cast<std::size_t>(k)]) *
                   static_cast<double>(x[static_cast<std::size_t>(A.col_idx[static_cast<std::size_t>(k)])]));
    const double err = std::abs(static_cast<double>(got[static_cast<std::size_t>(i)]) -
                                static_cast<double>(want[static_cast<std::size_t>(i)]));
    if (!(err <= 2.0 * static_cast<double>(k1 - k0 + 2) * u * scale)) return false;
  }
  return true;
}

namespace {
// The JSON fields every run shares (bench and cg add their own after them).
json run_json(const RankRun& r) {
  return {{"matrix", r.matrix},   {"precision", r.precision}, {"ranks", mpi::size()},
          {"backend", r.backend}, {"driver", r.driver},       {"halo_transport", r.halo},
          {"rank0", r.where},     {"rows", r.rows},           {"halo_entries", r.halo_entries},
          {"built", r.built},     {"partition", r.partition}, {"setup_seconds", r.setup_seconds}};
}
}  // namespace

json report_rank_bench(const RankBenchRun& r, std::ostream& out) {
  const double gflops = 2.0 * static_cast<double>(r.nnz) / r.median_seconds * 1e-9;
  if (mpi::rank() == 0) {
    if (r.backend == "cuda") fmt::print(out, "rank 0 of {}: {}\n", mpi::size(), r.where);
    fmt::print(out, "{:<28} {:<4} {:>5} {:>10} {:>11} {:>10} {:>10.4f} {:>8.2f}  {}\n", r.matrix, r.precision,
               mpi::size(), r.rows, r.nnz, r.halo_entries, r.median_seconds * 1e3, gflops, r.check);
  }
  json j = run_json(r);
  j["cols"] = r.cols;
  j["nnz"] = r.nnz;
  j["runs"] = r.runs;
  j["median_seconds"] = r.median_seconds;
  j["gflops"] = gflops;
  j["check"] = r.check;
  return j;
}

json report_rank_cg(const RankCgRun& r, std::ostream& out) {
  const CgResult& res = r.result;
  const double seconds = mpi::max_over_ranks(res.seconds);  // the slowest rank's (collective)
  const double per_second = seconds > 0 ? static_cast<double>(res.iterations) / seconds : 0.0;
  if (mpi::rank() == 0) {
    fmt::print(out, "{} {} on {} MPI rank{} ({}): {}\n", r.matrix, r.precision, mpi::size(),
               mpi::size() == 1 ? "" : "s", r.built, summary(res));
    if (r.backend == "cuda") fmt::print(out, "  rank 0: {}\n", r.where);
    fmt::print(out,
               "  |r| = {:.17g}, true |b - Ax|/|b| = {:.3e}, {:.4f} s ({:.1f} it/s), setup {:.2f} s, halo {} "
               "entries\n",
               res.residual, r.true_relative_residual, seconds, per_second, r.setup_seconds, r.halo_entries);
  }
  json j = run_json(r);
  j["preconditioner"] = to_string(r.preconditioner);
  j["status"] = to_string(res.status);
  j["iterations"] = res.iterations;
  j["residual"] = res.residual;
  j["rhs_norm"] = res.rhs_norm;
  j["relative_residual"] = res.relative_residual;
  j["true_relative_residual"] = r.true_relative_residual;
  j["seconds"] = seconds;
  j["ms_per_iteration"] = res.iterations > 0 ? 1e3 * seconds / static_cast<double>(res.iterations) : 0.0;
  if (r.history) j["history"] = res.history;
  return j;
}

template <class T>
double true_relative_residual(std::span<const T> b, std::span<const T> ax, double rhs_norm) {
  double rr = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double d = static_cast<double>(b[i]) - static_cast<double>(ax[i]);
    rr += d * d;
  }
  rr = mpi::sum_over_ranks(rr);
  return rhs_norm > 0 ? std::sqrt(rr) / rhs_norm : 0.0;
}

template <class T>
std::string check_against_cpu(const RankRows<T>& rows, std::span<const T> x_whole, std::span<const T> my_y,
                              bool bitwise) {
  if (!rows.read) return "not checked (generated per rank)";
  const std::vector<T> got = mpi::gather_rows(mpi::Group::World, rows.row_partition, my_y);
  int64_t bad = 0;
  if (rows.whole) {
    std::vector<T> want(static_cast<std::size_t>(rows.whole->rows));
    omp::spmv(*rows.whole, x_whole, std::span<T>(want));
    bad = bitwise ? std::memcmp(want.data(), got.data(), want.size() * sizeof(T)) != 0
                  : !within_rounding(*rows.whole, x_whole, std::span<const T>(got), std::span<const T>(want));
  }
  return mpi::sum_over_ranks(bad) != 0 ? "FAILED"
         : bitwise                     ? "bitwise the single-process product"
                                       : "within rounding of the CPU product";
}

template RankRows<float> load_rank_rows(const bench::MatrixSource&, bool, const std::string&, int64_t);
template RankRows<double> load_rank_rows(const bench::MatrixSource&, bool, const std::string&, int64_t);
template bool within_rounding(const Csr<float, int32_t>&, std::span<const float>, std::span<const float>,
                              std::span<const float>);
template double true_relative_residual(std::span<const float>, std::span<const float>, double);
template double true_relative_residual(std::span<const double>, std::span<const double>, double);
template std::string check_against_cpu(const RankRows<float>&, std::span<const float>, std::span<const float>,
                                       bool);
template std::string check_against_cpu(const RankRows<double>&, std::span<const double>,
                                       std::span<const double>, bool);
template bool within_rounding(const Csr<double, int32_t>&, std::span<const double>, std::span<const double>,
                              std::span<const double>);

namespace {

constexpr int kMinTimedRuns = 3;

// A rank's rows merged over [owned x | halo] (spx/dist_mpi.hpp), and what it loaded.
template <class T>
struct RankInput {
  RankRows<T> rows;  // its rows moved into A; the rest stays
  mpi::RankMatrix<T> A;
};

template <class T>
RankInput<T> load_rank(const bench::MatrixSource& source, bool keep_whole, const std::string& partition,
                       int64_t products = 1000) {
  RankInput<T> in;
  in.rows = load_rank_rows<T>(source, keep_whole, partition, products);
  in.A = mpi::distribute(mpi::Group::World, in.rows.mine, in.rows.row_partition, in.rows.col_partition);
  in.rows.mine = {};
  return in;
}

template <class T>
int64_t halo_entries(const mpi::RankMatrix<T>& A) {
  return mpi::sum_over_ranks(static_cast<int64_t>(A.halo_global.size()));
}

// The rank's product: omp::spmv on CPU ranks, the planned SparseMatrix on GPU ranks (`where`: the
// GPU, its transport and kernel, for the report).
template <class T>
struct RankProduct {
  std::unique_ptr<mpi::RankOperator<T>> apply;
  std::string where = "CPU";
  std::string halo = "mpi";
};

template <class T>
RankProduct<T> make_product(const mpi::RankMatrix<T>& A, bool gpu, const std::string& halo,
                            const std::vector<std::string>& kernels) {
  RankProduct<T> p;
  if (!gpu) {
    p.apply = std::make_unique<mpi::Product<T>>(A);
    return p;
  }
  if (!mpi::built_with_gpu_ranks()) throw Error("--dist --backend cuda: this spx was built without CUDA");
  mpi::GpuRankOptions o;
  o.halo = mpi::parse_halo_transport(halo);
  o.plan.kernels = kernels;
  auto g = std::make_unique<mpi::GpuProduct<T>>(A, o);
  p.where = g->describe();
  p.halo = mpi::to_string(g->halo());
  p.apply = std::move(g);
  return p;
}

template <class T>
json bench_one(const MpiBenchOptions& o, const bench::MatrixSource& source, std::ostream& out) {
  const auto t0 = std::chrono::steady_clock::now();
  RankInput<T> in = load_rank<T>(source, true, o.partition);
  const double setup = mpi::max_over_ranks(seconds_since(t0));
  const auto& A = in.A;
  std::vector<T> x_whole(static_cast<std::size_t>(A.cols));
  for (std::size_t i = 0; i < x_whole.size(); ++i)
    x_whole[i] = static_cast<T>(1.0 + 0.5 * std::sin(0.1 * static_cast<double>(i)));
  const std::vector<T> x = my_block(x_whole, A.col_partition, mpi::rank());
  std::vector<T> y(static_cast<std::size_t>(A.A.rows));
  RankProduct<T> rp = make_product(A, o.gpu, o.halo, o.kernels);
  auto& product = *rp.apply;
  product(std::span<const T>(x), std::span<T>(y));
  // CPU ranks: bitwise the single-process product; GPU ranks within rounding of it.
  const std::string check =
      check_against_cpu(in.rows, std::span<const T>(x_whole), std::span<const T>(y), !o.gpu);
  in.rows.whole.reset();
  // Timed runs: every rank decides from the same (slowest-rank) times, so all run equally often.
  std::vector<double> times;
  double total = 0;
  while (total < o.min_seconds || static_cast<int>(times.size()) < kMinTimedRuns) {
    mpi::barrier();
    const auto t = std::chrono::steady_clock::now();
    product(std::span<const T>(x), std::span<T>(y));
    times.push_back(mpi::max_over_ranks(seconds_since(t)));
    total += times.back();
  }
  RankBenchRun r;
  static_cast<RankRun&>(r) =
      rank_run<T>(source.name, o.gpu ? "cuda" : "cpu", "rank operator", rp.halo, rp.where, in.rows.built,
                  in.rows.partition, A.rows, halo_entries(A), setup);
  r.check = check;
  r.cols = A.cols;
  r.nnz = mpi::sum_over_ranks(static_cast<int64_t>(A.A.nnz()));
  r.runs = static_cast<int64_t>(times.size());
  r.median_seconds = median(times);
  return report_rank_bench(r, out);
}

template <class T>
json cg_one(const CgCliOptions& o, const bench::MatrixSource& source, std::ostream& out) {
  const auto t0 = std::chrono::steady_clock::now();
  RankInput<T> in = load_rank<T>(source, false, o.partition, o.maxit);
  const double setup = mpi::max_over_ranks(seconds_since(t0));
  const auto& A = in.A;
  if (A.rows != A.cols)
    throw Error(fmt::format("{}: cg needs a square matrix; it is {} x {}", source.name, A.rows, A.cols));
  std::vector<T> b_whole = make_rhs<T>(o.rhs, A.rows);
  if (!in.rows.perm.empty())
    b_whole = reorder::permute(std::span<const T>(b_whole), std::span<const int32_t>(in.rows.perm));
  const std::vector<T> b = my_block(b_whole, A.row_partition, mpi::rank());
  b_whole = {};
  std::vector<T> x(b.size());
  CgOptions opt = solver_options(o);
  opt.history = o.history;
  opt.stagnation_window = o.stagnation;
  const bool gpu = o.backend == "cuda";
  RankProduct<T> rp = make_product(
      A, gpu, o.halo, o.operators == "auto" ? std::vector<std::string>{} : split_list(o.operators));
  RankCgRun r;
  static_cast<RankRun&>(r) =
      rank_run<T>(source.name, gpu ? "cuda" : "cpu", "rank operator", rp.halo, rp.where, in.rows.built,
                  in.rows.partition, A.rows, halo_entries(A), setup);
  r.result = mpi::cg(A, *rp.apply, std::span<const T>(b), std::span<T>(x), opt);
  // The true residual ‖b − A x‖ / ‖b‖ from the distributed product.
  std::vector<T> ax(b.size());
  (*rp.apply)(std::span<const T>(x), std::span<T>(ax));
  r.true_relative_residual =
      true_relative_residual(std::span<const T>(b), std::span<const T>(ax), r.result.rhs_norm);
  r.preconditioner = opt.preconditioner;
  r.history = o.history;
  return report_rank_cg(r, out);
}

// Runs `body` on every rank of the job. An error all ranks agreed on (mpi::JobError: a bad matrix
// rank 0 read, a setup step or Jacobi diagonal that failed on some rank) ends the job normally with
// status 1; any other error is printed with the rank and the job aborted, since a rank that failed
// alone would leave the others waiting in a collective.
template <class Body>
void on_ranks(const Body& body) {
  if (!mpi::built_with_mpi())
    throw Error(
        "--dist: this spx was built without MPI (install Open MPI, e.g. Debian's libopenmpi-dev, "
        "and configure with -DSPX_MPI=ON)");
  mpi::Session session;
  try {
    body();
  } catch (const mpi::JobError& e) {  // every rank is here: end normally, the finder printing it
    if (e.origin) print_error(fmt::format("rank {} of {}: {}", mpi::rank(), mpi::size(), e.what()));
    throw ExitStatus{1};
  } catch (const Error& e) {
    if (mpi::size() == 1) throw;
    print_error(fmt::format("rank {} of {}: {}", mpi::rank(), mpi::size(), e.what()));
    mpi::abort_job(1);
  }
}

// GPU ranks with a GPU each form one team (cmd_mpi_team.cpp); null for CPU ranks and ranks whose
// halo goes through the host. Collective.
std::shared_ptr<RankTeam> team_if_gpus_distinct(bool gpu, const std::string& halo) {
  if (!gpu) return nullptr;
  if (!mpi::built_with_gpu_ranks()) throw Error("--dist --backend cuda: this spx was built without CUDA");
  mpi::GpuRankOptions go;
  go.halo = mpi::parse_halo_transport(halo);
  const mpi::RankGpu g = mpi::choose_rank_gpu(mpi::Group::World, go);
  return g.halo == mpi::HaloTransport::Nccl ? join_rank_team(g.device) : nullptr;
}

void write_json_on_rank0(const std::string& path, const json& j) {
  if (!path.empty() && mpi::rank() == 0) bench::write_json(path, j);
}

}  // namespace

void run_mpi_bench(const MpiBenchOptions& o) {
  on_ranks([&] {
    std::ostream& out = human_output(o.json);
    const std::shared_ptr<RankTeam> team = team_if_gpus_distinct(o.gpu, o.halo);
    if (mpi::rank() == 0)
      fmt::print(out, "{:<28} {:<4} {:>5} {:>10} {:>11} {:>10} {:>10} {:>8}  {}\n", "matrix", "prec", "ranks",
                 "rows", "nnz", "halo", "median ms", "GFLOP/s", "check");
    json runs = json::array();
    bool failed = false;
    for (const auto& source : o.matrices)
      for (const auto& p : o.precisions) {
        runs.push_back(team         ? (p == "f32" ? team_bench_one<float>(o, source, out, *team)
                                                  : team_bench_one<double>(o, source, out, *team))
                       : p == "f32" ? bench_one<float>(o, source, out)
                                    : bench_one<double>(o, source, out));
        failed = failed || runs.back()["check"].get<std::string>().starts_with("FAILED");
      }
    write_json_on_rank0(o.json, json{{"schema", "spx-bench-mpi-1"}, {"ranks", mpi::size()}, {"runs", runs}});
    if (failed) throw ExitStatus{1};
  });
}

void run_mpi_cg(const CgCliOptions& o) {
  on_ranks([&] {
    const bench::MatrixSource source = bench::resolve_matrix(o.input);
    std::ostream& out = human_output(o.json_path);
    const std::shared_ptr<RankTeam> team = team_if_gpus_distinct(o.backend == "cuda", o.halo);
    json runs = json::array();
    std::vector<std::string> statuses;
    for (const auto& p : split_list(o.precision)) {
      if (p != "f32" && p != "f64") throw Error(fmt::format("--precision {}: give f32, f64 or f32,f64", p));
      runs.push_back(team         ? (p == "f32" ? team_cg_one<float>(o, source, out, *team)
                                                : team_cg_one<double>(o, source, out, *team))
                     : p == "f32" ? cg_one<float>(o, source, out)
                                  : cg_one<double>(o, source, out));
      statuses.push_back(runs.back()["status"].get<std::string>());
    }
    write_json_on_rank0(o.json_path,
                        json{{"schema", "spx-cg-mpi-1"}, {"ranks", mpi::size()}, {"runs", runs}});
    exit_for_statuses(statuses);
  });
}

}  // namespace spx::cli
