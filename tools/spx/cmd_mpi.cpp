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
namespace {

using json = nlohmann::ordered_json;
namespace mpi = spx::dist::mpi;

constexpr int kMinTimedRuns = 3;

template <class T>
struct RankInput {
  mpi::RankMatrix<T> A;
  std::optional<Csr<T, int32_t>> whole;  // rank 0: a matrix it read (the SpMV check's reference)
  bool read = false;                     // read by rank 0 (else generated per rank)
  std::string built;                     // how: "generated per rank" or "read by rank 0, rows sent out"
  std::vector<int32_t> perm;             // --partition metis: new row i is old row perm[i]
};

template <class T>
RankInput<T> load_rank(const bench::MatrixSource& source, bool keep_whole, const std::string& partition) {
  const int ranks = mpi::size(), r = mpi::rank();
  RankInput<T> in;
  const bool metis = partition == "metis";
  if (partition != "rows" && !metis)
    throw Error(fmt::format("--partition {}: give rows or metis", partition));
  if (const auto g = bench::stencil_grid(source); g && !metis) {
    const auto rows = dist::partition_even(g->rows(), ranks);
    const int64_t begin = rows.begin[static_cast<std::size_t>(r)],
                  end = rows.begin[static_cast<std::size_t>(r) + 1];
    in.A = mpi::distribute(mpi::Group::World,
                           gen::stencil_rows<T>(g->points, g->nx, g->ny, g->nz, begin, end), rows, rows);
    in.built = "generated per rank";
    return in;
  }
  // Rank 0 reads the file (or builds the spec), partitions it and sends each rank its rows.
  auto rows = mpi::scatter_rows<T>(
      mpi::Group::World, [&source] { return bench::load_matrix<T, int32_t>(source); }, keep_whole,
      metis ? mpi::RowSplit::Graph : mpi::RowSplit::Blocks);
  in.A = mpi::distribute(mpi::Group::World, rows.mine, rows.row_partition, rows.col_partition);
  in.built = metis ? "read by rank 0, METIS parts sent out" : "read by rank 0, rows sent out";
  in.perm = std::move(rows.perm);
  in.read = true;
  in.whole = std::move(rows.whole);
  return in;
}

template <class T>
std::vector<T> my_block(const std::vector<T>& v, const dist::Partition& p) {
  const auto r = static_cast<std::size_t>(mpi::rank());
  return std::vector<T>(v.begin() + p.begin[r], v.begin() + p.begin[r + 1]);
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

// GPU ranks against the CPU: every row within the forward error bound of its sum,
// |y_i − ŷ_i| <= 2 (n_i + 2) u (|A| |x|)_i (CPU and GPU sum in different orders).
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

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  const std::vector<T> x = my_block(x_whole, A.col_partition);
  std::vector<T> y(static_cast<std::size_t>(A.A.rows));
  RankProduct<T> rp = make_product(A, o.gpu, o.halo, o.kernels);
  auto& product = *rp.apply;
  product(std::span<const T>(x), std::span<T>(y));
  // The check on rank 0: CPU ranks bitwise the single-process product of the matrix it read, GPU
  // ranks within rounding of it.
  std::string check = "not checked (generated per rank)";
  if (in.read) {
    const std::vector<T> got = mpi::gather_rows(mpi::Group::World, A.row_partition, std::span<const T>(y));
    int64_t bad = 0;
    if (in.whole) {
      std::vector<T> want(static_cast<std::size_t>(in.whole->rows));
      omp::spmv(*in.whole, std::span<const T>(x_whole), std::span<T>(want));
      bad = o.gpu ? !within_rounding(*in.whole, std::span<const T>(x_whole), std::span<const T>(got),
                                     std::span<const T>(want))
                  : std::memcmp(want.data(), got.data(), want.size() * sizeof(T)) != 0;
    }
    check = mpi::sum_over_ranks(bad) != 0 ? "FAILED"
            : o.gpu                       ? "within rounding of the CPU product"
                                          : "bitwise the single-process product";
    in.whole.reset();
  }
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
  const double med = median(times);
  const int64_t nnz = mpi::sum_over_ranks(static_cast<int64_t>(A.A.nnz()));
  const int64_t halo = halo_entries(A);
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  if (mpi::rank() == 0) {
    if (o.gpu) fmt::print(out, "rank 0 of {}: {}\n", mpi::size(), rp.where);
    fmt::print(out, "{:<28} {:<4} {:>5} {:>10} {:>11} {:>10} {:>10.4f} {:>8.2f}  {}\n", source.name,
               precision, mpi::size(), A.rows, nnz, halo, med * 1e3,
               2.0 * static_cast<double>(nnz) / med * 1e-9, check);
  }
  return {{"matrix", source.name},
          {"backend", o.gpu ? "cuda" : "cpu"},
          {"halo_transport", rp.halo},
          {"rank0", rp.where},
          {"precision", precision},
          {"ranks", mpi::size()},
          {"rows", A.rows},
          {"cols", A.cols},
          {"nnz", nnz},
          {"halo_entries", halo},
          {"built", in.built},
          {"partition", o.partition},
          {"setup_seconds", setup},
          {"runs", times.size()},
          {"median_seconds", med},
          {"gflops", 2.0 * static_cast<double>(nnz) / med * 1e-9},
          {"check", check}};
}

template <class T>
json cg_one(const CgCliOptions& o, const bench::MatrixSource& source, std::ostream& out) {
  const auto t0 = std::chrono::steady_clock::now();
  RankInput<T> in = load_rank<T>(source, false, o.partition);
  const double setup = mpi::max_over_ranks(seconds_since(t0));
  const auto& A = in.A;
  if (A.rows != A.cols)
    throw Error(fmt::format("{}: cg needs a square matrix; it is {} x {}", source.name, A.rows, A.cols));
  std::vector<T> b_whole = make_rhs<T>(o.rhs, A.rows);
  if (!in.perm.empty())
    b_whole = reorder::permute(std::span<const T>(b_whole), std::span<const int32_t>(in.perm));
  const std::vector<T> b = my_block(b_whole, A.row_partition);
  b_whole = {};
  std::vector<T> x(b.size());
  CgOptions opt = solver_options(o);
  opt.history = o.history;
  opt.stagnation_window = o.stagnation;
  const bool gpu = o.backend == "cuda";
  RankProduct<T> rp = make_product(
      A, gpu, o.halo, o.operators == "auto" ? std::vector<std::string>{} : split_list(o.operators));
  const CgResult res = mpi::cg(A, *rp.apply, std::span<const T>(b), std::span<T>(x), opt);
  const double seconds = mpi::max_over_ranks(res.seconds);
  // The true residual ‖b − A x‖ / ‖b‖ from the distributed product.
  std::vector<T> ax(b.size());
  (*rp.apply)(std::span<const T>(x), std::span<T>(ax));
  double rr = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double d = static_cast<double>(b[i]) - static_cast<double>(ax[i]);
    rr += d * d;
  }
  rr = mpi::sum_over_ranks(rr);
  const double true_rel = res.rhs_norm > 0 ? std::sqrt(rr) / res.rhs_norm : 0.0;
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  if (mpi::rank() == 0) {
    fmt::print(out, "{} {} on {} MPI rank{} ({}): {}\n", source.name, precision, mpi::size(),
               mpi::size() == 1 ? "" : "s", in.built, summary(res));
    if (gpu) fmt::print(out, "  rank 0: {}\n", rp.where);
    fmt::print(out,
               "  |r| = {:.17g}, true |b - Ax|/|b| = {:.3e}, {:.4f} s ({:.1f} it/s), setup {:.2f} s, halo {} "
               "entries\n",
               res.residual, true_rel, seconds,
               seconds > 0 ? static_cast<double>(res.iterations) / seconds : 0.0, setup, halo_entries(A));
  } else {
    (void)halo_entries(A);  // a collective: every rank takes part
  }
  json j = {{"matrix", source.name},
            {"precision", precision},
            {"ranks", mpi::size()},
            {"backend", gpu ? "cuda" : "cpu"},
            {"halo_transport", rp.halo},
            {"rank0", rp.where},
            {"rows", A.rows},
            {"built", in.built},
            {"partition", o.partition},
            {"preconditioner", to_string(opt.preconditioner)},
            {"status", to_string(res.status)},
            {"iterations", res.iterations},
            {"residual", res.residual},
            {"rhs_norm", res.rhs_norm},
            {"relative_residual", res.relative_residual},
            {"true_relative_residual", true_rel},
            {"seconds", seconds},
            {"setup_seconds", setup}};
  if (o.history) j["history"] = res.history;
  return j;
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

void write_json_on_rank0(const std::string& path, const json& j) {
  if (!path.empty() && mpi::rank() == 0) bench::write_json(path, j);
}

}  // namespace

void run_mpi_bench(const MpiBenchOptions& o) {
  on_ranks([&] {
    std::ostream& out = human_output(o.json);
    if (mpi::rank() == 0)
      fmt::print(out, "{:<28} {:<4} {:>5} {:>10} {:>11} {:>10} {:>10} {:>8}  {}\n", "matrix", "prec", "ranks",
                 "rows", "nnz", "halo", "median ms", "GFLOP/s", "check");
    json runs = json::array();
    bool failed = false;
    for (const auto& source : o.matrices)
      for (const auto& p : o.precisions) {
        runs.push_back(p == "f32" ? bench_one<float>(o, source, out) : bench_one<double>(o, source, out));
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
    json runs = json::array();
    std::vector<std::string> statuses;
    for (const auto& p : split_list(o.precision)) {
      if (p != "f32" && p != "f64") throw Error(fmt::format("--precision {}: give f32, f64 or f32,f64", p));
      runs.push_back(p == "f32" ? cg_one<float>(o, source, out) : cg_one<double>(o, source, out));
      statuses.push_back(runs.back()["status"].get<std::string>());
    }
    write_json_on_rank0(o.json_path,
                        json{{"schema", "spx-cg-mpi-1"}, {"ranks", mpi::size()}, {"runs", runs}});
    exit_for_statuses(statuses);
  });
}

}  // namespace spx::cli
