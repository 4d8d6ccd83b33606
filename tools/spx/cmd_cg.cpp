// spx cg FILE|SPEC : solve A x = b with conjugate gradients (spx/cg.hpp, spx/cuda/cg.hpp) on the
// GPU or the CPU, with the operators CSR, ELL and (for fem2d: problems) the local matrix approach;
// a progress line on stderr, a summary, JSON; optionally the plain cuSPARSE + cuBLAS CG beside it.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench/inputs.hpp"
#include "bench/provenance.hpp"
#include "bench/report.hpp"
#include "cg_cli.hpp"
#include "cg_rhs.hpp"
#include "cli_common.hpp"
#include "common/median.hpp"
#include "mpi_ranks.hpp"
#include "plan/catalogue.hpp"
#include "spx/cg.hpp"
#include "spx/convert.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/device.hpp"
#include "spx/error.hpp"
#include "spx/fem.hpp"
#include "spx/io.hpp"
#include "spx/plan.hpp"
#include "spx/reorder.hpp"
#ifdef SPX_HAVE_CUDA
#include "bench/cg_vendor.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/cg_reorder.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/timing.hpp"
#endif

namespace spx::cli {
namespace {

using json = nlohmann::ordered_json;

// Refuses what CG cannot solve: non-square, or not symmetric (pattern or values, relative to the
// largest entry of the row).
template <class T, class I>
void require_symmetric(const Csr<T, I>& A) {
  if (A.rows != A.cols)
    throw Error(fmt::format("cg needs a square matrix; this one is {} x {}", A.rows, A.cols));
  for (I r = 0; r < A.rows; ++r) {
    double row_max = 0;
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      row_max = std::max(row_max, std::abs(static_cast<double>(A.values[k])));
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k) {
      const I c = A.col_idx[k];
      const auto begin = A.col_idx.begin() + A.row_ptr[c], end = A.col_idx.begin() + A.row_ptr[c + 1];
      const auto it = std::lower_bound(begin, end, r);
      const double mirror =
          it != end && *it == r
              ? static_cast<double>(A.values[static_cast<std::size_t>(it - A.col_idx.begin())])
              : 0.0;
      if (std::abs(mirror - static_cast<double>(A.values[k])) > 1e-6 * row_max)
        throw Error(fmt::format("cg needs a symmetric matrix; A({},{}) = {} but A({},{}) = {}", r, c,
                                static_cast<double>(A.values[k]), c, r, mirror));
    }
  }
}

template <class T, class I>
double true_relative_residual(const Csr<T, I>& A, const std::vector<T>& b, const std::vector<T>& x) {
  double num = 0, den = 0;
#pragma omp parallel for reduction(+ : num, den) if (A.rows > 100000)
  for (I r = 0; r < A.rows; ++r) {
    double ax = 0;
    for (I k = A.row_ptr[r]; k < A.row_ptr[r + 1]; ++k)
      ax += static_cast<double>(A.values[k]) * static_cast<double>(x[static_cast<std::size_t>(A.col_idx[k])]);
    const double d = static_cast<double>(b[static_cast<std::size_t>(r)]) - ax;
    num += d * d;
    den += static_cast<double>(b[static_cast<std::size_t>(r)]) *
           static_cast<double>(b[static_cast<std::size_t>(r)]);
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// On a terminal, rewritten in place a few times a second; elsewhere (a log) a line every
// kProgressLogInterval. Nothing before the first interval has passed, so a short solve adds no line.
class CgProgressLine {
 public:
  explicit CgProgressLine(std::string label)
      : label_(std::move(label)), terminal_(stderr_is_terminal()), last_(std::chrono::steady_clock::now()) {}
  ~CgProgressLine() {
    if (shown_ && terminal_) std::cerr << "\r\033[K" << std::flush;
  }
  CgProgressLine(const CgProgressLine&) = delete;
  CgProgressLine& operator=(const CgProgressLine&) = delete;
  void show(int64_t it, double residual, double rhs_norm, double seconds) {
    using Duration = std::chrono::steady_clock::duration;
    constexpr std::chrono::milliseconds kTerminalInterval{250};
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < (terminal_ ? Duration(kTerminalInterval) : Duration(kProgressLogInterval))) return;
    last_ = now;
    shown_ = true;
    const std::string line = fmt::format("[cg {}] iteration {}  |r|/|b| {:.3e}  {:.0f} it/s", label_, it,
                                         rhs_norm > 0 ? residual / rhs_norm : residual,
                                         seconds > 0 ? static_cast<double>(it) / seconds : 0.0);
    if (terminal_)
      std::cerr << "\r\033[K" << line << std::flush;
    else
      std::cerr << line << "\n";
  }

 private:
  std::string label_;
  bool terminal_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

json result_json(const CgResult& r, bool history) {
  json j{{"status", to_string(r.status)},
         {"iterations", r.iterations},
         {"residual", r.residual},
         {"rhs_norm", r.rhs_norm},
         {"relative_residual", r.relative_residual},
         {"seconds", r.seconds},
         {"iterations_per_second", r.seconds > 0 ? static_cast<double>(r.iterations) / r.seconds : 0.0},
         {"message", r.message}};
  if (history) j["history"] = r.history;
  return j;
}

struct Problem {
  std::string name;
  bench::MatrixSource source;
  std::optional<fem::FemSpec> spec;
  plan::IndexWidth width = plan::IndexWidth::Auto;  // --index
};

// Thrown by a 32-bit load under --index auto when a generator spec is too large for 32-bit indices
// and reads_wide_indices' estimate did not say so (the generators check their sizes before
// allocating): run_cg runs it again with 64-bit ones.
struct NeedsWideIndices {};

// The generators' refusal of a size past int32 (src/generate: "... does not fit int32 indices ...").
bool is_int32_size_error(const Error& e) {
  return std::string_view(e.what()).find("does not fit int32 indices") != std::string_view::npos;
}

// What runs on 32-bit indices only, refused for a 64-bit run, naming the option that asked for it
// (or the size that did).
void refuse_for_wide(const CgCliOptions& o, const std::vector<std::string>& operators, int64_t nnz) {
  const std::string why =
      o.index == "64" ? std::string("--index 64") : fmt::format("{} nonzeros need 64-bit indices", nnz);
  for (const std::string& op : operators)
    if (op != "csr" && op != "auto")
      throw Error(fmt::format("--operator {} runs with 32-bit indices only ({}): use --operator csr or auto",
                              op, why));
  if (o.baseline) throw Error(fmt::format("--baseline runs with 32-bit indices only ({})", why));
  if (o.reorder != "none") throw Error(fmt::format("--reorder runs with 32-bit indices only ({})", why));
}

// I: the host matrix's index type (int64_t: --index 64, or a matrix past 32 bits under auto).
template <class T, class I>
void run_precision(const CgCliOptions& o, const Problem& problem, const std::string& backend,
                   const std::vector<std::string>& operators, std::ostream& out, json& runs) {
  constexpr bool kWide = sizeof(I) == 8;
  const char* precision = sizeof(T) == 4 ? "f32" : "f64";
  const bool need_lma = std::any_of(operators.begin(), operators.end(),
                                    [](const std::string& s) { return s.starts_with("lma"); });
  if (need_lma && !problem.spec)
    throw Error("--operator lma needs a fem2d: generator input (the element data come from the mesh)");
  fem::Problem<T> P;
  Csr<T, I> A_wide;  // the matrix with 64-bit indices (kWide); P.A holds a 32-bit one
  const auto t0 = std::chrono::steady_clock::now();
  if (problem.spec) {
    P = fem::build<T>(*problem.spec, true, need_lma);
    if constexpr (kWide) A_wide = cast<T, I>(P.A);  // fem2d builds 32-bit; --index 64 widens it
  } else if constexpr (kWide) {
    A_wide = bench::load_matrix<T, I>(problem.source);
  } else {
    try {
      P.A = bench::load_matrix<T, I>(problem.source);
    } catch (const Error& e) {
      if (problem.width == plan::IndexWidth::Auto && is_int32_size_error(e)) throw NeedsWideIndices{};
      throw;
    }
  }
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const Csr<T, I>& A = [&]() -> const Csr<T, I>& {
    if constexpr (kWide)
      return A_wide;
    else
      return P.A;
  }();
  if constexpr (kWide) refuse_for_wide(o, operators, A.nnz());
  require_symmetric(A);
  // --reorder: the matrix operators run on P A P^T (b, x and the Jacobi diagonal permuted on the way
  // in and out); the lma operators run on the mesh's elements and are not renumbered.
  const reorder::Choice reorder_choice = reorder::choice_from_string(o.reorder);
  if (reorder_choice != reorder::Choice::None && need_lma)
    throw Error(
        "--reorder renumbers the assembled matrix; the lma operators run on the mesh's elements: "
        "use --reorder none with them");
  const reorder::Reordered<T, I> R = reorder::reorder_for_solve(A, reorder_choice);
  const Csr<T, I>& As = R.reordered ? R.A : A;  // what the operators are built on
  const json reorder_json{{"reorder", o.reorder}, {"reordered", R.reordered}, {"reorder_seconds", R.seconds}};
  const std::vector<T> b = make_rhs<T>(o.rhs, A.rows);
  CgOptions opt = solver_options(o);
  opt.use_graph = !o.no_graph;
  opt.stagnation_window = o.stagnation;
  const bool jacobi = opt.preconditioner == Preconditioner::Jacobi;
  fmt::print(out,
             "matrix      {}  {} x {}, {} nonzeros ({:.1f} per row), {}, {}-bit indices, built in {:.2f} s\n",
             problem.name, A.rows, A.cols, A.nnz(),
             A.rows ? static_cast<double>(A.nnz()) / static_cast<double>(A.rows) : 0.0, precision,
             8 * sizeof(I), setup_s);
  if (reorder_choice != reorder::Choice::None)
    fmt::print(out, "reorder     {}; {:.3f} s on the host\n", R.why, R.seconds);

  // index: the width of the row offsets the operator ran on (32 or 64).
  auto record = [&](const std::string& op, const std::string& details, const std::vector<CgResult>& results,
                    const std::vector<T>& x, int index, json extra) {
    std::vector<double> secs;
    for (const auto& r : results) secs.push_back(r.seconds);
    CgResult r = results.back();
    r.seconds = median(secs);
    const double true_res = true_relative_residual(A, b, x);
    fmt::print(out, "{:<11} {:<10} {}: {}; true |b-Ax|/|b| = {:.3e}; {:.4f} s ({:.0f} it/s, {:.3f} ms/it)\n",
               precision, op, backend, summary(r), true_res, r.seconds,
               r.seconds > 0 ? static_cast<double>(r.iterations) / r.seconds : 0.0,
               r.iterations ? 1e3 * r.seconds / static_cast<double>(r.iterations) : 0.0);
    json j{{"matrix", problem.name},
           {"rows", A.rows},
           {"nnz", A.nnz()},
           {"precision", precision},
           {"backend", backend},
           {"operator", op},
           {"index", index},
           {"details", details},
           {"preconditioner", o.precond},
           {"rtol", o.tol},
           {"atol", o.atol},
           {"max_iterations", o.maxit},
           {"repeat", static_cast<int64_t>(results.size())},
           {"seconds_all", secs}};
    if (problem.spec)
      j["fem"] = {{"n", problem.spec->n}, {"p", problem.spec->p}, {"kappa", problem.spec->kappa_amplitude}};
    j["result"] = result_json(r, o.history);
    j["true_relative_residual"] = true_res;
    for (auto& [k, v] : extra.items()) j[k] = v;
    runs.push_back(j);
  };

  double b_norm = 0;  // for the progress line's |r|/|b|
  for (const T v : b) b_norm += static_cast<double>(v) * static_cast<double>(v);
  b_norm = std::sqrt(b_norm);

  if (backend == "cpu") {
    std::vector<T> inv;
    if (jacobi) inv = need_lma ? fem::lma_inverse_diagonal(P.elements) : inverse_diagonal(As);
    const std::span<const I> perm(R.perm);
    const std::vector<T> bs = R.reordered ? reorder::permute<T, I>(std::span<const T>(b), perm) : b;
    for (const std::string& op : operators) {
      HostOperator<T> apply;
      if (op == "csr" || op == "csr_param") {
        apply = [&As](std::span<const T> in, std::span<T> y) { omp::spmv(As, in, y); };
      } else if (op.starts_with("lma")) {
        apply = [&P](std::span<const T> in, std::span<T> y) { fem::lma_apply(P.elements, in, y); };
      } else {
        throw Error(fmt::format("--backend cpu runs the operators csr and lma, not {}", op));
      }
      std::vector<T> x(b.size());
      std::vector<CgResult> results;
      for (int i = 0; i < o.repeat; ++i) {
        CgProgressLine line(fmt::format("{} {}", precision, op));
        const auto start = std::chrono::steady_clock::now();
        results.push_back(cg<T>(
            apply, A.rows, std::span<const T>(inv), std::span<const T>(bs), std::span<T>(x), opt,
            [&](int64_t it, double res) {
              line.show(it, res, b_norm,
                        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
            }));
      }
      if (R.reordered) x = reorder::unpermute<T, I>(std::span<const T>(x), perm);
      record(op, op == "csr" ? "spx::omp::spmv" : "fem::lma_apply (colours)", results, x,
             static_cast<int>(8 * sizeof(I)), reorder_json);
    }
    return;
  }
#ifdef SPX_HAVE_CUDA
  cuda::Context ctx;
  double copy_gbs = 0;
  if (o.spmv_timing) copy_gbs = cuda::measure_copy_bandwidth(ctx, std::size_t{512} << 20).gbs;
  const auto d_b = cuda::to_device(ctx, b, "cg b");
  cuda::DeviceBuffer<T> d_x(b.size(), "cg x");
  // 64-bit runs are never reordered (refuse_for_wide): no permutation there.
  const auto d_perm = cuda::to_device(
      ctx,
      [&] {
        if constexpr (kWide)
          return std::vector<int32_t>{};
        else
          return R.perm;
      }(),
      "cg permutation");
  for (const std::string& op_name : operators) {
    std::unique_ptr<cuda::LinearOperator<T>> op;
    int index = 32;
    if constexpr (kWide) {  // csr or auto (refuse_for_wide): the front door at the width asked for
      index = plan::offset_bits(problem.width, As.rows, As.cols, As.nnz());
      op = cuda::make_planned_operator(ctx, As, problem.width, op_name == "csr",
                                       std::max<int64_t>(o.maxit, 100));
    } else if (op_name == "csr" || op_name == "auto")
      op = cuda::make_planned_operator(ctx, As, op_name == "csr", std::max<int64_t>(o.maxit, 100));
    else if (op_name == "csr_param")
      op = cuda::make_csr_operator(ctx, As);
    else if (op_name == "ell")
      op = cuda::make_ell_operator(ctx, As);
    else
      op = cuda::make_lma_operator(
          ctx, P.elements, op_name == "lma_colour" ? cuda::LmaScatter::Colour : cuda::LmaScatter::Atomic);
    cuda::DeviceBuffer<T> d_inv;
    if (jacobi)
      d_inv = cuda::to_device(
          ctx, op_name.starts_with("lma") ? fem::lma_inverse_diagonal(P.elements) : inverse_diagonal(A),
          "cg jacobi");
    cuda::CgSolver<T> solver(ctx, *op);
    std::vector<CgResult> results;
    for (int i = 0; i < o.repeat; ++i) {
      CgProgressLine line(fmt::format("{} {}", precision, op->name()));
      const auto start = std::chrono::steady_clock::now();
      results.push_back(cuda::solve_permuted(
          ctx, solver, std::span<const int32_t>(d_perm.span()),
          std::span<const T>(d_inv.data(), d_inv.size()), std::span<const T>(d_b.span()), d_x.span(), opt,
          [&](int64_t it, double res) {
            line.show(it, res, b_norm,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          }));
    }
    json extra = reorder_json;
    extra.update(json{{"operator_bytes", op->bytes()},
                      {"operator_bytes_per_apply", op->bytes_per_apply()},
                      {"vector_bytes_per_iteration", solver.vector_bytes_per_iteration(jacobi)}});
    if (o.spmv_timing) {
      cuda::DeviceBuffer<T> w(b.size(), "spmv y");
      const auto t =
          cuda::time_kernel(ctx, [&] { op->apply(ctx, std::span<const T>(d_b.span()), w.span()); });
      const double floor_ms = solver.vector_bytes_per_iteration(jacobi) / (copy_gbs * 1e9) * 1e3;
      extra["spmv_ms"] = t.median_ms;
      extra["spmv_gbs"] = op->bytes_per_apply() / (t.median_ms * 1e-3) / 1e9;
      extra["vector_floor_ms"] = floor_ms;
      extra["copy_gbs"] = copy_gbs;
      const CgResult& r = results.back();
      if (r.iterations > 0) {
        const double ms_it = 1e3 * median([&] {
                               std::vector<double> s;
                               for (const auto& q : results) s.push_back(q.seconds);
                               return s;
                             }()) /
                             static_cast<double>(r.iterations);
        extra["ms_per_iteration"] = ms_it;
        extra["ratio_to_floor"] = ms_it / (t.median_ms + floor_ms);
        fmt::print(out,
                   "{:<11} {:<10} SpMV {:.4f} ms ({:.0f} GB/s), vector floor {:.4f} ms at {:.0f} GB/s; "
                   "iteration {:.4f} ms = {:.2f}x (SpMV + floor)\n",
                   "", op->name(), t.median_ms, extra["spmv_gbs"].get<double>(), floor_ms, copy_gbs, ms_it,
                   ms_it / (t.median_ms + floor_ms));
      }
    }
    std::vector<T> x = cuda::to_host(ctx, d_x);
    record(op->name(), op->details(), results, x, index, extra);
  }
  if constexpr (!kWide) {  // the baseline uploads 32-bit CSR (refuse_for_wide)
    if (o.baseline) {
      const cuda::DeviceCsr<T, int32_t> dA = cuda::upload(ctx, A);
      cuda::DeviceBuffer<T> d_inv;
      if (jacobi) d_inv = cuda::to_device(ctx, inverse_diagonal(A), "baseline jacobi");
      std::vector<double> secs;
      bench::VendorCgResult v;
      for (int i = 0; i < o.repeat; ++i) {
        v = bench::vendor_cg<T>(ctx, dA, std::span<const T>(d_inv.data(), d_inv.size()),
                                std::span<const T>(d_b.span()), d_x.span(), o.tol, o.maxit);
        secs.push_back(v.seconds);
      }
      v.seconds = median(secs);
      const std::vector<T> x = cuda::to_host(ctx, d_x);
      const double true_res = true_relative_residual(A, b, x);
      fmt::print(
          out,
          "{:<11} {:<10} cuda: cuSPARSE SpMV + cuBLAS, {} in {} iterations, |r|/|b| = {:.3e}; true {:.3e}; "
          "{:.4f} s ({:.0f} it/s)\n",
          precision, "vendor", v.converged ? "converged" : "not converged", v.iterations,
          v.rhs_norm > 0 ? v.residual / v.rhs_norm : 0.0, true_res, v.seconds,
          v.seconds > 0 ? static_cast<double>(v.iterations) / v.seconds : 0.0);
      runs.push_back(
          {{"matrix", problem.name},
           {"rows", A.rows},
           {"nnz", A.nnz()},
           {"precision", precision},
           {"backend", "cuda"},
           {"operator", "vendor_cusparse_cublas"},
           {"index", 32},
           {"details", "cusparseSpMV CSR_ALG1 + cublas dot/axpy/scal (host pointer mode)"},
           {"preconditioner", o.precond},
           {"rtol", o.tol},
           {"max_iterations", o.maxit},
           {"repeat", o.repeat},
           {"seconds_all", secs},
           {"vendor", true},
           {"result",
            {{"status", v.converged ? "converged" : "max_iterations"},
             {"iterations", v.iterations},
             {"residual", v.residual},
             {"rhs_norm", v.rhs_norm},
             {"relative_residual", v.rhs_norm > 0 ? v.residual / v.rhs_norm : 0.0},
             {"seconds", v.seconds},
             {"iterations_per_second", v.seconds > 0 ? static_cast<double>(v.iterations) / v.seconds : 0.0}}},
           {"true_relative_residual", true_res}});
    }
  }
#else
  (void)out;
  throw Error("--backend cuda: this spx was built without CUDA");
#endif
}

// --gpus and --dist --backend cuda: --operator names the ranks' kernels (SpMV rows of the catalogue),
// checked before anything is loaded.
void check_rank_kernels(const CgCliOptions& o) {
  if (o.operators != "auto")
    plan::check_kernel_names(split_list(o.operators), plan::Operation::Spmv, plan::DenseLayout::RowMajor,
                             "--operator (the ranks' kernel)");
}

void run_cg(const CgCliOptions& o, const CLI::App& cmd) {
  if (o.dist) {
    if (!o.gpus.empty()) throw Error("--dist runs CPU ranks under MPI; --gpus one process's GPUs: give one");
    if (o.operators != "auto" && o.backend != "cuda")
      throw Error("--dist on CPUs multiplies with omp::spmv on each rank; drop --operator");
    if (o.halo != "auto" && o.backend != "cuda") throw Error("--halo: GPU ranks only (--backend cuda)");
    if (o.baseline || o.spmv_timing)
      throw Error("--dist: --baseline and --spmv-timing are single-GPU studies");
    if (o.reorder != "none") throw Error("--dist partitions the matrix as numbered; drop --reorder");
    if (o.index == "64") throw Error("--dist runs with 32-bit indices per rank; drop --index 64");
    warn_not_applied(cmd, {"--no-graph", "--repeat"}, "with --dist");
    if (o.backend != "cuda") warn_not_applied(cmd, {"--check-every", "--reductions"}, "with --dist on CPUs");
    if (o.backend == "cuda" && o.reductions != "one" && o.reductions != "two")
      throw Error(
          fmt::format("--reductions {} with --dist: give one or two (one solve per run)", o.reductions));
    if (o.backend == "cuda") check_rank_kernels(o);
    run_mpi_cg(o);
    return;
  }
  warn_not_applied(cmd, {"--halo"}, "without --dist");
  if (o.gpus.empty()) warn_not_applied(cmd, {"--partition"}, "without --dist or --gpus");
  if (!o.gpus.empty()) {
    warn_not_applied(cmd, {"--stagnation", "--no-graph"}, "with --gpus (the distributed solver)");
    if (o.backend == "cpu") throw Error("--gpus runs on GPUs; drop --backend cpu");
    if (o.baseline || o.spmv_timing)
      throw Error("--gpus: --baseline and --spmv-timing are single-GPU studies");
    if (o.reorder != "none") throw Error("--gpus partitions the matrix as numbered; drop --reorder");
    if (o.index == "64") throw Error("--gpus runs with 32-bit indices only; drop --index 64");
    check_rank_kernels(o);
    run_distributed_cg(o);
    return;
  }
  Problem problem;
  problem.source = bench::resolve_matrix(o.input);
  problem.name = problem.source.name;
  if (problem.source.kind == bench::MatrixSource::Kind::Spec)
    problem.spec = fem::parse_spec(problem.source.location);
  problem.width = plan::parse_index_width(o.index);
  std::string backend = o.backend;
  if (backend == "auto") backend = cuda::device_count() > 0 ? "cuda" : "cpu";
  if (backend == "cuda" && cuda::device_count() == 0)
    throw Error(fmt::format("--backend cuda: {}", cuda::gpu_unavailable_reason()));
  warn_not_applied(cmd, {"--reductions"}, "without --gpus");
  if (backend == "cpu")
    warn_not_applied(cmd, {"--baseline", "--spmv-timing", "--check-every", "--no-graph"},
                     "on the CPU backend (GPU only)");
  std::vector<std::string> operators;
  for (const std::string& op : split_list(o.operators)) {
    if (op == "auto") {
      operators.push_back(backend == "cuda" ? "auto" : "csr");
    } else if (op == "all") {
      // The CPU backend has one CSR and one LMA operator (csr_param and the LMA variants are GPU
      // kernels): "all" there is those two, not every name.
      const std::vector<const char*> all =
          backend == "cuda" ? std::vector<const char*>{"csr", "csr_param", "ell", "lma_atomic", "lma_colour"}
                            : std::vector<const char*>{"csr", "lma_atomic"};
      for (const char* k : all)
        if (problem.spec || std::string(k).find("lma") == std::string::npos) operators.push_back(k);
    } else if (op == "lma") {
      operators.push_back("lma_atomic");
    } else if (op == "csr" || op == "csr_param" || op == "ell" || op == "lma_atomic" || op == "lma_colour") {
      operators.push_back(op);
    } else {
      throw Error(fmt::format(
          "--operator {}: choose auto, csr, csr_param, ell, lma, lma_atomic, lma_colour or all", op));
    }
  }
  if (operators.empty()) throw Error("--operator: nothing to run");
  std::ostream& out = human_output(o.json_path);
  json runs = json::array();
  // A matrix read wide that fits still gets 32-bit offsets on the GPU (plan::offset_bits); a spec
  // whose size the estimate misses falls back to 64 bits through NeedsWideIndices.
  bool wide = reads_wide_indices(problem.source, problem.width, "cg");
  for (const std::string& p : split_list(o.precision)) {
    if (p != "f32" && p != "f64") throw Error(fmt::format("--precision {}: choose f32, f64 or f32,f64", p));
    const auto run = [&]<class T>() {
      if (wide) return run_precision<T, int64_t>(o, problem, backend, operators, out, runs);
      try {
        run_precision<T, int32_t>(o, problem, backend, operators, out, runs);
      } catch (const NeedsWideIndices&) {  // --index auto, a spec past 32 bits: nothing printed yet
        wide = true;
        run_precision<T, int64_t>(o, problem, backend, operators, out, runs);
      }
    };
    if (p == "f32")
      run.template operator()<float>();
    else
      run.template operator()<double>();
  }
  if (!o.json_path.empty()) {
    json j;
    j["schema"] = "spx-cg-1";
    j["commit"] = bench::source_commit();
    j["date"] = bench::utc_now_iso8601();
#ifdef SPX_HAVE_CUDA
    if (backend == "cuda") j["device"] = cuda::query_device(0).name;
#endif
    if (backend == "cpu") j["device"] = "cpu";
    j["runs"] = runs;
    bench::write_json(o.json_path, j);
  }
  // The plain cuSPARSE + cuBLAS baseline is a yardstick beside spx's solves: its status does not
  // set the exit status.
  std::vector<std::string> statuses;
  for (const auto& r : runs)
    if (!r.contains("vendor")) statuses.push_back(r["result"]["status"].get<std::string>());
  exit_for_statuses(statuses);
}

}  // namespace

void add_cg_command(CLI::App& app) {
  auto o = std::make_shared<CgCliOptions>();
  CLI::App* cmd =
      app.add_subcommand("cg", "Solve A x = b (A symmetric positive definite) with conjugate gradients");
  cmd->add_option("input", o->input, "Matrix Market file or generator spec (e.g. fem2d:n=512,p=2)")
      ->required();
  cmd->add_option("--rhs", o->rhs, "Right-hand side: ones, random, or a Matrix Market n x 1 FILE")
      ->capture_default_str();
  cmd->add_option("--tol", o->tol, "Relative tolerance: stop when |r| <= tol |b|")
      ->check(real_in(0, kMaxReal, ""))
      ->capture_default_str();
  cmd->add_option("--atol", o->atol, "Absolute tolerance: stop when |r| <= atol")
      ->check(real_in(0, kMaxReal, ""))
      ->capture_default_str();
  cmd->add_option("--maxit", o->maxit, "Iteration cap")
      ->transform(count_in(0, kMaxIterations, "iterations"))
      ->capture_default_str();
  cmd->add_option("--precond", o->precond, "none or jacobi")
      ->check(CLI::IsMember({"none", "jacobi"}))
      ->capture_default_str();
  cmd->add_option(
         "--operator", o->operators,
         "Comma list: auto (GPU: the front door's planned SpMV over every candidate), csr (the front door, "
         "CSR candidates), csr_param (the parametrised CSR kernel directly), ell (ELLR-T), lma (= "
         "lma_atomic), lma_colour, all; lma needs a fem2d: input")
      ->capture_default_str();
  cmd->add_option("--reorder", o->reorder,
                  "none, rcm (solve in reverse Cuthill-McKee's numbering: P A P^T, b and x permuted) or auto "
                  "(rcm where the sampled locality says x is gathered poorly); matrix operators only")
      ->check(CLI::IsMember({"none", "rcm", "auto"}))
      ->capture_default_str();
  cmd->add_option("--index", o->index,
                  "Index width: auto (32-bit where the matrix fits, else 64; a file's header decides before "
                  "reading), 32, or 64 (64-bit indices on any matrix; operators csr and auto)")
      ->check(CLI::IsMember({"auto", "32", "64"}))
      ->capture_default_str();
  cmd->add_option("--backend", o->backend, "auto (GPU when usable), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--precision", o->precision, "f32, f64 or f32,f64")->capture_default_str();
  cmd->add_option("--check-every", o->check_every, "GPU: iterations between two reads of the device status")
      ->transform(count_in(1, kMaxRuns, "iterations"))
      ->capture_default_str();
  cmd->add_flag("--no-graph", o->no_graph,
                "GPU: launch the kernels directly instead of replaying a CUDA graph");
  cmd->add_option("--stagnation", o->stagnation,
                  "Also stop after this many iterations without a smaller residual (0: off; a step that no "
                  "longer changes x always stops)")
      ->transform(count_in(0, kMaxIterations, "iterations"))
      ->capture_default_str();
  cmd->add_flag("--baseline", o->baseline,
                "GPU: also run CG written the plain way on cuSPARSE SpMV + cuBLAS");
  cmd->add_flag("--spmv-timing", o->spmv_timing,
                "GPU: also time the operator alone and compare the iteration with SpMV + vector bytes at "
                "copy bandwidth");
  cmd->add_flag("--history", o->history, "Put every iteration's residual into the JSON");
  cmd->add_option("--repeat", o->repeat, "Solves per operator (the median time is reported)")
      ->transform(count_in(1, kMaxRuns, "solves"))
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "Also write the results as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  cmd->add_option(
         "--gpus", o->gpus,
         "Solve on several GPUs over NCCL, once per team size (e.g. 1,2,4); with 1, the single-GPU "
         "solver runs beside it (--operator: the ranks' kernel). Stencil specs are generated rank by "
         "rank")
      ->type_name("N[,N...]");
  cmd->add_flag(
      "--dist", o->dist,
      "Solve on this MPI job's ranks, one process per rank (mpirun -np N spx cg FILE --dist): on CPUs, "
      "or one GPU per rank with --backend cuda (--operator: the ranks' kernel). Ranks with a GPU each run "
      "--gpus N's solver on the device and match its iterates bit for bit; CPU ranks, and GPU ranks "
      "sharing GPUs (--halo mpi), iterate bitwise the same for every rank count");
  cmd->add_option("--halo", o->halo,
                  "--dist --backend cuda: nccl (a GPU per rank), mpi (staged through the host; ranks may "
                  "share a GPU) or auto (nccl when no two ranks share one)")
      ->check(CLI::IsMember({"auto", "nccl", "mpi"}))
      ->capture_default_str();
  cmd->add_option(
         "--partition", o->partition,
         "--dist or --gpus: rows (contiguous, balanced by nonzeros), metis (METIS parts), rcm (blocks of "
         "RCM's numbering) or auto (the one whose halo repays its cost); metis and rcm renumber the matrix "
         "on "
         "one host (rank 0)")
      ->check(CLI::IsMember({"rows", "metis", "rcm", "auto"}))
      ->capture_default_str();
  cmd->add_option("--reductions", o->reductions,
                  "--gpus: all-reduces per iteration: one (the update's sums wait for the next product's), "
                  "two (one per reduction point), or one,two; --dist with a GPU per rank: one or two")
      ->capture_default_str();
  cmd->footer(R"(Exit status: 0 when every solve converged, 3 when one stopped at --maxit or stagnated (the
report and the JSON are written first), 1 on a breakdown (A or the preconditioner not SPD) or an
error. Progress (iteration, |r|/|b|) goes to stderr while a solve runs.

Examples:
  spx cg fem2d:n=256,p=2                         GPU when present, CSR operator, rhs of ones
  spx cg fem2d:dofs=4e6,p=4 --operator all --precision f32,f64 --baseline --spmv-timing
  spx cg bcsstk13.mtx.gz --precond jacobi --tol 1e-6 --backend cpu
  spx cg stencil27:nx=640,ny=640,nz=700 --gpus 4 --precond jacobi --tol 1e-6
  mpirun -np 4 spx cg stencil27:n=64 --dist --precond jacobi)");
  cmd->callback([o, cmd] { run_cg(*o, *cmd); });
}

}  // namespace spx::cli
