// The multi-GPU benchmark (multigpu.hpp).
//
// Timing: time_team (bench/team_timing.hpp: the slowest rank's span, the median round). The pieces:
// Phases::Local alone, Phases::Halo alone (pack + NCCL send/recv), Phases::Remote alone (on the halo left by
// the last exchange). overlap = (t_local + t_halo + t_remote − t_all) / min(t_local, t_halo), clamped to [0,
// 1]: the fraction of the shorter of the two that the product hid behind the other — an upper bound, since a
// piece alone may be bound by the host's enqueueing (four ranks from one thread) rather than by the GPUs;
// "beyond local" = t_all − t_local is the time the product adds to its local part.
//
// Checks: y against the CPU product of the ranks' parts in double, within a rounding bound of
// 2·(terms + 3)·u·Σ|a||x| per entry; where the whole matrix was loaded, that CPU product is itself
// checked against spx::ref on the whole matrix (the split is exact: the CPU tests check it too).
// The inputs are small multiples of 1/64, so a stencil's products are exact on every team size.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "bench/dist_inputs.hpp"
#include "bench/multigpu.hpp"
#include "bench/provenance.hpp"
#include "bench/team_timing.hpp"
#include "common/median.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::bench {
namespace {

namespace cd = spx::cuda::dist;
using json = nlohmann::ordered_json;

// Deterministic inputs every team size sees alike: small integers, so products of a stencil
// are exact and any size of team must give the same y.
template <class T>
std::vector<T> input_values(int64_t n, int64_t salt) {
  std::vector<T> v(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<std::size_t>(i)] = static_cast<T>((i * 7 + salt) % 257 - 128) / T{64};
  return v;
}

// Worst |got − want| / (rows' Σ|a||x| · n_row · u), over every entry: ≤ 1 passes.
template <class T>
double check_ratio(const std::vector<T>& got, const std::vector<T>& want, const std::vector<double>& scale) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double err = std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
    if (!std::isfinite(static_cast<double>(got[i]))) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, err / (scale[i] + std::numeric_limits<double>::min()));
  }
  return worst;
}

struct Reference {
  std::vector<double> y;      // the CPU result (rows × L)
  std::vector<double> scale;  // per entry: 2·(terms + 3)·u·Σ|a||x|
};

// The CPU reference for one product, from the whole matrix or from the stencil's rows.
template <class T>
Reference reference(const DistInput<T>& in, const std::vector<T>& x, int64_t L) {
  const auto& D = in.D;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  Reference ref;
  ref.y.assign(static_cast<std::size_t>(D.rows * L), 0.0);
  ref.scale.assign(ref.y.size(), 0.0);
  // Per rank, from its parts (the parts are the matrix): y_local + y_remote in double.
  for (const auto& part : D.parts)
    for (const auto& slice : part.local) {
#pragma omp parallel for schedule(static)
      for (int64_t si = 0; si < slice.A.rows; ++si) {
        const int64_t i = slice.row_begin + si;  // the row within the rank
        for (int64_t j = 0; j < L; ++j) {
          double s = 0, m = 0;
          int64_t terms = 0;
          const auto add = [&](const Csr<T, int32_t>& P, int64_t row, auto column) {
            for (int32_t k = P.row_ptr[static_cast<std::size_t>(row)];
                 k < P.row_ptr[static_cast<std::size_t>(row) + 1]; ++k) {
              const double a = P.values[static_cast<std::size_t>(k)];
              const double xv =
                  x[static_cast<std::size_t>(column(P.col_idx[static_cast<std::size_t>(k)]) * L + j)];
              s += a * xv;
              m += std::abs(a * xv);
              ++terms;
            }
          };
          add(slice.A, si, [&](int32_t c) { return part.col_begin + c; });
          add(part.remote, i, [&](int32_t c) { return part.halo_global[static_cast<std::size_t>(c)]; });
          const auto at = static_cast<std::size_t>((part.row_begin + i) * L + j);
          ref.y[at] = s;
          ref.scale[at] = 2.0 * static_cast<double>(terms + 3) * u * m;
        }
      }
    }
  // An independent check of the split itself where the whole matrix exists: spx::ref on it.
  if (in.whole && L == 1) {
    std::vector<double> xd(x.begin(), x.end()), yd(static_cast<std::size_t>(D.rows));
    ref::spmv(cast<double, int32_t>(*in.whole), std::span<const double>(xd), std::span<double>(yd));
    for (std::size_t i = 0; i < yd.size(); ++i)
      if (std::abs(yd[i] - ref.y[i]) > 1e-9 * (std::abs(yd[i]) + 1))
        throw Error(fmt::format("multigpu: the split matrix differs from the whole one at row {}", i));
  }
  return ref;
}

// Rank 0's first local slice: the planner's candidates, times, setup and why the winner won.
template <class T>
std::string plan_explained(cd::DistSparseMatrix<T>& A, int64_t L) {
  const plan::Report* rep = L == 1 ? A.local(0).spmv_report() : A.local(0).spmm_report(L);
  return rep ? rep->explain() : std::string();
}

template <class T>
void run_matrix(const MatrixSource& src, const OpSpec& op, const MultiGpuOptions& o, std::ostream& out,
                json& results, int& failures) {
  const int64_t L = op.op == OpKind::Spmm ? op.size : 1;
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  std::optional<double> t_one;
  fmt::print(out, "\n{} {} {}\n", src.name, op.label(), precision);
  fmt::print(out, "{:>4} {:>6} {:>10} {:>8} {:>6} {:>9} {:>9} {:>9} {:>7} {:>10} {:>6} {:>8}  {}\n", "gpus",
             "chunks", "ms", "GB/s", "eff", "local ms", "halo ms", "remote ms", "overlap", "halo KB", "imbal",
             "check", "kernels (rank 0)");
  for (int n : o.gpus) {
    cd::Team team(n);
    SetupClock setup(n);
    DistInput<T> in = load_distributed<T>(src, n, /*keep_whole=*/n == o.gpus.front(), o.partition);
    setup.done("split", fmt::format("{} parts, {}", n, in.partition));
    if (!in.partition_report.empty()) fmt::print(out, "{}\n", in.partition_report);
    const std::string partition = in.partition, partition_report = in.partition_report;
    // The reference needs the parts; compute it before the matrix goes to the GPUs.
    const std::vector<T> x = input_values<T>(in.D.cols * L, 3);
    const Reference ref = reference(in, x, L);
    setup.done("reference", "on the CPU");
    // One GPU has no halo: one run whatever the chunk counts.
    const std::size_t runs = n == 1 ? 1 : o.halo_chunks.size();
    for (std::size_t ci = 0; ci < runs; ++ci) {
      cd::DistOptions dopt;
      dopt.plan.mode = o.plan_mode;
      dopt.plan.expected_calls = 1000;
      dopt.halo_chunks = o.halo_chunks[ci];
      // Every chunk count but the last takes a copy of the split.
      const bool last = ci + 1 == runs;
      cd::DistSparseMatrix<T> A(team, last ? std::move(in.D) : dist::DistMatrix<T>(in.D), dopt);
      setup.done("gpus", A.setup_summary());
      if (last) in = DistInput<T>{};  // frees the rest
      const dist::DistStats& D_stats = A.stats();
      const int64_t rows = A.rows(), cols = A.cols(), nnz = A.nnz();
      cd::DistVector<T> dx(team, A.col_partition(), L), dy(team, A.row_partition(), L);
      dx.upload(x);
      dy.upload(std::vector<T>(static_cast<std::size_t>(rows * L), std::numeric_limits<T>::quiet_NaN()));
      const auto product = [&](cd::Phases ph) {
        if (L == 1)
          cd::spmv(A, dx, dy, T{1}, T{0}, ph);
        else
          cd::spmm(A, dx, dy, T{1}, T{0}, ph);
      };
      product(cd::Phases::All);
      team.synchronize();
      const double ratio = check_ratio(dy.download(), std::vector<T>(ref.y.begin(), ref.y.end()), ref.scale);
      const bool ok = ratio <= 1.0;
      if (!ok) ++failures;
      const double t_all = time_team(
          team, [&] { product(cd::Phases::All); }, o.min_seconds, o.rounds);
      const double t_local = time_team(
          team, [&] { product(cd::Phases::Local); }, o.min_seconds, o.rounds);
      const double t_halo = n > 1 ? time_team(
                                        team, [&] { product(cd::Phases::Halo); }, o.min_seconds, o.rounds)
                                  : 0;
      const double t_remote = n > 1 ? time_team(
                                          team, [&] { product(cd::Phases::Remote); }, o.min_seconds, o.rounds)
                                    : 0;
      const double hidden = t_local + t_halo + t_remote - t_all;
      const double overlap =
          n > 1 && t_halo > 0 ? std::clamp(hidden / std::min(t_local, t_halo), 0.0, 1.0) : 0;
      if (n == o.gpus.front() && n == 1) t_one = t_all;
      const double eff = t_one ? *t_one / (n * t_all) : 0;
      // Bytes: CSR of both parts (values, indices, row pointers), x read once, y written.
      const double vb = sizeof(T);
      const double bytes = static_cast<double>(nnz) * (vb + 4) + static_cast<double>(rows) * 4 +
                           static_cast<double>(cols * L) * vb + static_cast<double>(rows * L) * vb;
      const double halo_bytes = static_cast<double>(D_stats.halo_entries * L) * vb;
      std::string kernels;
      if (const plan::Report* rep = L == 1 ? A.local(0).spmv_report() : A.local(0).spmm_report(L))
        kernels = rep->winner().kernel;
      if (A.remote(0))
        if (const plan::Report* rep = L == 1 ? A.remote(0)->spmv_report() : A.remote(0)->spmm_report(L))
          kernels += " + " + rep->winner().kernel +
                     (A.remote_pieces(0) > 1 ? fmt::format(" ({} pieces)", A.remote_pieces(0)) : "");
      fmt::print(out,
                 "{:>4} {:>6} {:>10.4f} {:>8.0f} {:>6} {:>9.4f} {:>9.4f} {:>9.4f} {:>7.2f} {:>10.1f} "
                 "{:>6.3f} {:>8}  {}\n",
                 n, A.halo_chunks(), t_all, bytes / (t_all * 1e6), t_one ? fmt::format("{:.2f}", eff) : "-",
                 t_local, t_halo, t_remote, overlap, halo_bytes / 1024, D_stats.nnz_imbalance,
                 ok ? "ok" : fmt::format("FAIL {:.1e}", ratio), kernels);
      out.flush();
      json per_rank = json::array();
      for (const auto& r : D_stats.per_rank) {
        json line = rank_json(r, A.row_partition(), A.col_partition());
        json pieces = json::array();
        for (int p = 0; p < A.remote_pieces(r.rank); ++p)
          pieces.push_back(
              {{"rows", A.remote_rows(r.rank, p)}, {"compressed", A.remote_compressed(r.rank, p)}});
        line["remote_pieces"] = std::move(pieces);
        per_rank.push_back(std::move(line));
      }
      results.push_back({{"matrix", src.name},
                         {"source", src.location},
                         {"op", op.label()},
                         {"L", L},
                         {"precision", precision},
                         {"partition", partition},
                         {"partition_report", partition_report},
                         {"halo_chunks", A.halo_chunks()},
                         {"gpus", n},
                         {"rows", rows},
                         {"cols", cols},
                         {"nnz", nnz},
                         {"ms", t_all},
                         {"gbs", bytes / (t_all * 1e6)},
                         {"gflops", 2.0 * static_cast<double>(nnz * L) / (t_all * 1e6)},
                         {"efficiency_vs_1", t_one ? json(eff) : json(nullptr)},
                         {"local_ms", t_local},
                         {"halo_ms", t_halo},
                         {"remote_ms", t_remote},
                         {"beyond_local_ms", t_all - t_local},
                         {"overlap", overlap},
                         {"halo_entries", D_stats.halo_entries},
                         {"halo_bytes", halo_bytes},
                         {"messages", D_stats.messages},
                         {"nnz_imbalance", D_stats.nnz_imbalance},
                         {"remote_fraction", D_stats.remote_fraction},
                         {"check", ok ? "ok" : "failed"},
                         {"check_ratio", ratio},
                         {"kernels_rank0", kernels},
                         {"per_rank", per_rank},
                         {"layout", A.describe()},
                         {"setup_seconds", setup.seconds()},
                         {"plan_rank0", plan_explained(A, L)},
                         {"team", team.summary()}});
    }
  }
}

}  // namespace

nlohmann::ordered_json run_multigpu(const MultiGpuOptions& o, std::ostream& out) {
  const int available = cd::device_count();
  if (o.gpus.empty()) throw Error("--gpus: give team sizes, e.g. 1,2,4");
  for (int n : o.gpus)
    if (n < 1 || n > available)
      throw Error(fmt::format("--gpus {}: this machine has {} usable GPU{}", n, available,
                              available == 1 ? "" : "s"));
  for (const auto& op : o.ops)
    if (op.op == OpKind::Gemm) throw Error("--gpus: distributed products are spmv and spmm:L");
  json results = json::array();
  int failures = 0;
  for (const auto& src : o.matrices)
    for (const auto& op : o.ops)
      for (Precision p : o.precisions) {
        if (p == Precision::F32)
          run_matrix<float>(src, op, o, out, results, failures);
        else
          run_matrix<double>(src, op, o, out, results, failures);
      }
  json j;
  j["schema"] = "spx-multigpu-1";
  j["commit"] = source_commit();
  j["date"] = utc_now_iso8601();
  j["results"] = results;
  if (failures > 0) {
    out.flush();
    throw Error(fmt::format("--gpus: {} product(s) failed their check (see the table)", failures));
  }
  return j;
}

}  // namespace spx::bench
