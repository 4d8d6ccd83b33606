// `spx cg --gpus`: the distributed solve per team size (cg_cli.hpp). The matrix is split by the
// multi-GPU benchmark's loader (stencil specs generated rank by rank, anything else loaded whole and
// balanced by nonzeros); both parts of every rank are planned by the front door among the
// bitwise-reproducible candidates, as the single-GPU CG's operator is. The true residual ‖b − Ax‖ is
// recomputed with the distributed product.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "bench/dist_inputs.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "cg_cli.hpp"
#include "cg_rhs.hpp"
#include "cli_common.hpp"
#include "common/median.hpp"
#include "spx/cg.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"
#ifdef SPX_HAVE_CUDA
#include "spx/cuda/cg.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/dist_cg.hpp"
#endif

namespace spx::cli {

#ifdef SPX_HAVE_CUDA
namespace {

using json = nlohmann::ordered_json;
namespace cd = spx::cuda::dist;

struct Row {
  int gpus = 0;
  std::string solver;
  CgResult result;
  double seconds = 0;  // median over the repeats
  double true_relative_residual = 0;
  json setup_seconds = json::object();  // the distributed solver's setup phases (SetupClock)
  std::string partition = "rows";       // the split used (--partition auto resolved)
};

template <class T>
void run_precision(const CgCliOptions& o, const bench::MatrixSource& source, const std::vector<int>& teams,
                   std::ostream& out, json& runs) {
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  CgOptions opt = solver_options(o);
  opt.history = o.history;
  std::vector<Row> rows;
  for (int n : teams) {
    cd::Team team(n);
    bench::SetupClock setup(n);
    bench::DistInput<T> in = bench::load_distributed<T>(source, n, false, o.partition, o.maxit);
    setup.done("split", fmt::format("{} parts, {}", n, in.partition));
    if (!in.partition_report.empty()) fmt::print(out, "{}\n", in.partition_report);
    const std::string partition = in.partition;
    if (in.D.rows != in.D.cols) throw Error(fmt::format("{}: CG needs a square matrix", source.name));
    const int64_t size = in.D.rows;
    std::vector<T> b = make_rhs<T>(o.rhs, size);  // ones or random (checked by the caller)
    if (!in.perm.empty())                         // the system renumbered P A Pᵀ: b too
      b = reorder::permute(std::span<const T>(b), std::span<const int32_t>(in.perm));
    std::optional<cd::DistVector<T>> inv;
    if (opt.preconditioner == Preconditioner::Jacobi) {
      inv.emplace(cd::inverse_diagonal(team, in.D));
      setup.done("jacobi", "the inverse diagonal");
    }
    // The single-GPU solver on the same matrix: one rank's local part is the whole matrix (when it
    // is one slice: the single-GPU solver indexes with int32_t too).
    std::optional<Csr<T, int32_t>> whole;
    if (n == 1 && in.D.parts[0].local.size() == 1) whole = in.D.parts[0].local[0].A;
    cd::DistOptions dopt;
    dopt.plan.mode = plan::Mode::Measure;
    dopt.plan.deterministic_only = true;
    dopt.plan.expected_calls = std::max<int64_t>(o.maxit, 100);
    if (o.operators != "auto") dopt.plan.kernels = split_list(o.operators);
    cd::DistSparseMatrix<T> A(team, std::move(in.D), dopt);
    setup.done("gpus", A.setup_summary());
    in = bench::DistInput<T>{};
    cd::DistVector<T> db(team, A.row_partition()), dx(team, A.row_partition()), dy(team, A.row_partition());
    db.upload(b);
    const auto true_residual = [&] {
      cd::spmv(A, dx, dy);
      const std::vector<T> y = dy.download();
      double num = 0, den = 0;
      for (std::size_t i = 0; i < b.size(); ++i) {
        const double r = static_cast<double>(b[i]) - static_cast<double>(y[i]);
        num += r * r;
        den += static_cast<double>(b[i]) * static_cast<double>(b[i]);
      }
      return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
    };
    for (const std::string& red : split_list(o.reductions)) {
      cd::DistCgSolver<T> solver(A, red == "two" ? cd::Reductions::Two : cd::Reductions::One);
      Row row{n, fmt::format("dist-{}", red), {}, 0, 0};
      std::vector<double> times;
      for (int k = 0; k < o.repeat; ++k) {
        row.result = solver.solve(inv ? &*inv : nullptr, db, dx, opt);
        times.push_back(row.result.seconds);
      }
      row.seconds = median(times);
      row.true_relative_residual = true_residual();
      row.setup_seconds = setup.seconds();
      row.partition = partition;
      rows.push_back(std::move(row));
    }
    if (whole) {
      cuda::Context& ctx = team.context(0);
      cd::DeviceScope scope(ctx.device());
      auto op = cuda::make_planned_operator(ctx, *whole, false, std::max<int64_t>(o.maxit, 100));
      cuda::CgSolver<T> solver(ctx, *op);
      cuda::DeviceBuffer<T> d_inv;
      if (inv) d_inv = cuda::to_device(ctx, inverse_diagonal(*whole), "cg jacobi");
      Row row{1, "single-gpu", {}, 0, 0};
      std::vector<double> times;
      for (int k = 0; k < o.repeat; ++k) {
        row.result =
            solver.solve(std::span<const T>(d_inv.data(), d_inv.size()), db.part(0), dx.part(0), opt);
        times.push_back(row.result.seconds);
      }
      row.seconds = median(times);
      row.true_relative_residual = true_residual();
      rows.push_back(std::move(row));
    }
  }
  fmt::print(out, "\n{} {} ({} preconditioner, rtol {:g})\n", source.name, precision, o.precond, o.tol);
  fmt::print(out, "{:>4} {:<11} {:>15} {:>6} {:>10} {:>10} {:>8} {:>11} {:>11}\n", "gpus", "solver", "status",
             "iters", "seconds", "ms/iter", "speedup", "|r|/|b|", "true");
  const double base = rows.empty() ? 0 : rows.front().seconds;
  for (const Row& r : rows) {
    const double per_it =
        r.result.iterations > 0 ? 1e3 * r.seconds / static_cast<double>(r.result.iterations) : 0;
    fmt::print(out, "{:>4} {:<11} {:>15} {:>6} {:>10.4f} {:>10.4f} {:>7.2f}x {:>11.3e} {:>11.3e}\n", r.gpus,
               r.solver, to_string(r.result.status), r.result.iterations, r.seconds, per_it,
               r.seconds > 0 ? base / r.seconds : 0.0, r.result.relative_residual, r.true_relative_residual);
    json j{{"matrix", source.name},
           {"source", source.location},
           {"precision", precision},
           {"precond", o.precond},
           {"partition", r.partition},
           {"gpus", r.gpus},
           {"solver", r.solver},
           {"status", to_string(r.result.status)},
           {"iterations", r.result.iterations},
           {"seconds", r.seconds},
           {"ms_per_iteration", per_it},
           {"speedup_vs_first", r.seconds > 0 ? base / r.seconds : 0.0},
           {"relative_residual", r.result.relative_residual},
           {"true_relative_residual", r.true_relative_residual},
           {"message", r.result.message},
           {"setup_seconds", r.setup_seconds}};
    if (o.history) j["history"] = r.result.history;
    runs.push_back(std::move(j));
  }
  out.flush();
}

}  // namespace

void run_distributed_cg(const CgCliOptions& o) {
  const bench::MatrixSource source = bench::resolve_matrix(o.input);
  std::vector<int> teams;
  for (const auto& g : split_list(o.gpus))
    teams.push_back(static_cast<int>(parse_count(g, "--gpus", 0, kMaxRanks, "GPUs")));
  if (teams.empty()) throw Error("--gpus: give team sizes, e.g. 1,2,4");
  const int available = cd::device_count();
  for (int n : teams)
    if (n < 1 || n > available)
      throw Error(fmt::format("--gpus {}: this machine has {} usable GPU{}", n, available,
                              available == 1 ? "" : "s"));
  for (const auto& r : split_list(o.reductions))
    if (r != "one" && r != "two") throw Error(fmt::format("--reductions {}: choose one, two or one,two", r));
  if (o.rhs != "ones" && o.rhs != "random") throw Error("--gpus: the right-hand side must be ones or random");
  std::ostream& out = human_output(o.json_path);
  json runs = json::array();
  for (const std::string& p : split_list(o.precision)) {
    if (p == "f32")
      run_precision<float>(o, source, teams, out, runs);
    else if (p == "f64")
      run_precision<double>(o, source, teams, out, runs);
    else
      throw Error(fmt::format("--precision {}: choose f32, f64 or f32,f64", p));
  }
  if (!o.json_path.empty()) {
    json j;
    j["schema"] = "spx-cg-dist-1";
    j["commit"] = bench::source_commit();
    j["date"] = bench::utc_now_iso8601();
    {
      cd::Team all(teams.back());
      j["team"] = all.summary();
    }
    j["runs"] = runs;
    bench::write_json(o.json_path, j);
  }
  std::vector<std::string> statuses;
  for (const auto& r : runs) statuses.push_back(r["status"].get<std::string>());
  exit_for_statuses(statuses);
}

#else

void run_distributed_cg(const CgCliOptions&) { throw Error("--gpus: this spx was built without CUDA"); }

#endif

}  // namespace spx::cli
