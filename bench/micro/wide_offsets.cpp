// spx_wide_offsets: 64-bit row offsets on one GPU, measured (docs/index-width.md has the results).
//
//   spx_wide_offsets --json out.json [--both 'SPEC;SPEC...'] [--huge N] [--huge-precision f32,f64]
//
// --both: matrices that fit either width, built from generator specs; per precision, spx's
//   csr_param, ELL and ELLPACK-R and cuSPARSE's CSR ALG1/ALG2 (SpMV), and the CSR SpMM (row-split
//   and tiled), ELLPACK-R SpMM and cuSPARSE's CSR ALG2 at L = 8, at 32- and 64-bit offsets, each
//   forced through the front door, timed in the same run; the default plan at each width.
// --huge N: the 27-point stencil on N^3 points (N = 454: 2.51e9 nonzeros) assembled on the device
//   in row blocks (the host never holds it); the default SpMV and SpMM L = 8 plans and each spx
//   kernel timed against cuSPARSE's 64-bit CSR, 2048 sampled rows checked against a host product of
//   the same rows, and
//   100 CG iterations (Jacobi) through the front door. The floor: the CSR's bytes (8 a row, 4 + the
//   value's bytes a nonzero) plus x and y, at the measured copy bandwidth.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "spx/cg.hpp"
#include "spx/cpu.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/cg.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/cuda/timing.hpp"
#include "spx/error.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"

namespace {

using namespace spx;
using json = nlohmann::json;

template <class T>
const char* precision_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

template <class T>
std::vector<T> random_values(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(u(rng));
  return v;
}

double median_us(cuda::Context& ctx, const std::function<void()>& launch) {
  cuda::TimingOptions o;
  o.warmup = 3;
  o.min_runs = 10;
  o.min_seconds = 0.2;
  o.max_runs = 400;
  return 1e3 * cuda::time_kernel(ctx, launch, o).median_ms;
}

// Bytes an SpMV moves at least: the CSR (offsets, columns, values), x once and y once.
double spmv_floor_bytes(int64_t rows, int64_t cols, int64_t nnz, int offset_bytes, int index_bytes,
                        int value_bytes) {
  return static_cast<double>(rows + 1) * offset_bytes +
         static_cast<double>(nnz) * (index_bytes + value_bytes) +
         static_cast<double>(rows + cols) * value_bytes;
}

template <class T>
json time_forced_spmv(cuda::Context& ctx, cuda::SparseMatrix<T>& M, const std::string& kernel,
                      cuda::DeviceBuffer<T>& x, cuda::DeviceBuffer<T>& y, double copy_gbs) {
  plan::Options o;
  o.mode = plan::Mode::Measure;
  o.tuning_cache = "-";
  if (!kernel.empty()) o.kernels = {kernel};
  json j;
  j["kernel"] = kernel.empty() ? std::string("default") : kernel;
  j["offset_bits"] = M.offset_bits();
  try {
    const plan::Report& r = kernel.empty() ? M.plan_spmv() : M.plan_spmv(o);
    j["chosen"] = r.winner().kernel;
    j["params"] = r.winner().params;
    j["planning_us"] = r.planning_us;
    const double us = median_us(ctx, [&] { cuda::spmv(ctx, M, std::span<const T>(x.span()), y.span()); });
    // cuSPARSE's 64-bit candidates read 8-byte columns.
    const bool vendor64 = M.offset_bits() == 64 && r.winner().owner == "cuSPARSE";
    const double bytes = spmv_floor_bytes(M.rows(), M.cols(), M.nnz(), M.offset_bits() / 8, vendor64 ? 8 : 4,
                                          static_cast<int>(sizeof(T)));
    j["us"] = us;
    j["gbs"] = bytes / us / 1e3;
    j["pct_copy"] = 100.0 * bytes / us / 1e3 / copy_gbs;
  } catch (const Error& e) {
    j["error"] = e.what();
  }
  return j;
}

template <class T>
json time_forced_spmm(cuda::Context& ctx, cuda::SparseMatrix<T>& M, const std::string& kernel, int64_t L) {
  json j;
  j["kernel"] = kernel.empty() ? std::string("default") : kernel;
  j["offset_bits"] = M.offset_bits();
  j["L"] = L;
  try {
    auto B = cuda::make_device_dense<T>(M.cols(), L, Layout::RowMajor);
    auto C = cuda::make_device_dense<T>(M.rows(), L, Layout::RowMajor);
    const auto b = random_values<T>(B.data.size(), 11);
    cuda::copy_to_device_sync(ctx, B.data.data(), b.data(), B.data.bytes());
    plan::Options o;
    o.mode = plan::Mode::Measure;
    o.tuning_cache = "-";
    if (!kernel.empty()) o.kernels = {kernel};
    const plan::Report& r = kernel.empty() ? M.plan_spmm(L) : M.plan_spmm(L, plan::DenseLayout::RowMajor, o);
    j["chosen"] = r.winner().kernel;
    j["params"] = r.winner().params;
    const auto bv = cuda::view(static_cast<const cuda::DeviceDense<T>&>(B));
    const auto cv = cuda::view(C);
    j["us"] = median_us(ctx, [&] { cuda::spmm(ctx, M, bv, cv); });
  } catch (const Error& e) {
    j["error"] = e.what();
  }
  return j;
}

// Part A: one matrix at both widths, spx's and cuSPARSE's CSR kernels forced, same run.
template <class T>
json both_widths(cuda::Context& ctx, const std::string& spec, double copy_gbs) {
  const auto A = gen::generate<T, int32_t>(spec);
  json out;
  out["spec"] = spec;
  out["precision"] = precision_name<T>();
  out["rows"] = A.rows;
  out["nnz"] = A.nnz();
  cuda::DeviceBuffer<T> x(static_cast<std::size_t>(A.cols), "x"), y(static_cast<std::size_t>(A.rows), "y");
  const auto xh = random_values<T>(x.size(), 3);
  cuda::copy_to_device_sync(ctx, x.data(), xh.data(), x.bytes());
  for (auto width : {plan::IndexWidth::Bits32, plan::IndexWidth::Bits64}) {
    cuda::SparseMatrix<T> M(ctx, A, width);
    for (const char* k : {"csr_param", "ell", "ellr_t", "cusparse_csr_alg1", "cusparse_csr_alg2", ""})
      out["spmv"].push_back(time_forced_spmv<T>(ctx, M, k, x, y, copy_gbs));
    for (const char* k :
         {"spmm_csr_row", "spmm_csr_tiled_row", "spmm_ellr_t_row", "cusparse_spmm_csr_alg2_row", ""})
      out["spmm"].push_back(time_forced_spmm<T>(ctx, M, k, 8));
  }
  return out;
}

// The 27-point stencil's row r dotted with x on the host (the generator's own rows).
template <class T>
double host_row(int64_t n, int64_t r, const std::vector<T>& x) {
  const auto row = gen::stencil_rows<T>(27, n, n, n, r, r + 1);
  double s = 0;
  for (int64_t p = row.row_ptr[0]; p < row.row_ptr[1]; ++p)
    s +=
        static_cast<double>(row.values[p]) * static_cast<double>(x[static_cast<std::size_t>(row.col_idx[p])]);
  return s;
}

// A CG operator on a front-door matrix already built (the huge one cannot be rebuilt from a host copy).
template <class T>
class FrontDoorOperator final : public cuda::LinearOperator<T> {
 public:
  explicit FrontDoorOperator(cuda::SparseMatrix<T>& M) : M_(M) {}
  int64_t size() const override { return M_.rows(); }
  void apply(cuda::Context& ctx, std::span<const T> x, std::span<T> y) override { cuda::spmv(ctx, M_, x, y); }
  std::string name() const override { return "front door"; }
  std::string details() const override { return M_.spmv_report() ? M_.spmv_report()->winner().kernel : ""; }
  std::size_t bytes() const override { return M_.device_bytes(); }
  double bytes_per_apply() const override { return static_cast<double>(M_.device_bytes()); }

 private:
  cuda::SparseMatrix<T>& M_;
};

template <class T>
json huge(cuda::Context& ctx, int64_t n, double copy_gbs) {
  json out;
  const int64_t rows = n * n * n, nnz = (3 * n - 2) * (3 * n - 2) * (3 * n - 2);
  out["matrix"] = fmt::format("stencil27:n={}", n);
  out["precision"] = precision_name<T>();
  out["rows"] = rows;
  out["nnz"] = nnz;
  auto t0 = std::chrono::steady_clock::now();
  const int64_t block = std::max<int64_t>(n * n * 16, 1);
  auto dA = cuda::upload_row_blocks<T>(ctx, rows, rows, nnz, block, [&](int64_t b, int64_t e) {
    return gen::stencil_rows<T>(27, n, n, n, b, e);
  });
  out["assemble_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out["device_bytes"] = dA.bytes();
  fmt::print("assembled {} nonzeros in {:.1f} s\n", nnz, out["assemble_s"].get<double>());
  std::fflush(stdout);
  cuda::SparseMatrix<T> M(ctx, std::move(dA));
  const auto xh = random_values<T>(static_cast<std::size_t>(rows), 5);
  cuda::DeviceBuffer<T> x(xh.size(), "x"), y(xh.size(), "y");
  cuda::copy_to_device_sync(ctx, x.data(), xh.data(), x.bytes());
  const double floor_bytes = spmv_floor_bytes(rows, rows, nnz, 8, 4, static_cast<int>(sizeof(T)));
  out["floor_us"] = floor_bytes / copy_gbs / 1e3;
  // SpMV: the default plan, then cuSPARSE's 64-bit CSR forced.
  for (const char* k : {"", "cusparse_csr_alg1", "cusparse_csr_alg2", "csr_param", "ell", "ellr_t"}) {
    out["spmv"].push_back(time_forced_spmv<T>(ctx, M, k, x, y, copy_gbs));
    fmt::print("spmv {}\n", out["spmv"].back().dump());
    std::fflush(stdout);
  }
  // The run-time tuner on real calls (Mode::Tune over csr_param's knobs), then timed as frozen.
  {
    plan::Options o;
    o.mode = plan::Mode::Tune;
    o.tune_calls = 16;
    o.tuning_cache = "-";
    M.plan_spmv(o);
    int calls = 0;
    for (; calls < 400 && !M.spmv_report()->frozen; ++calls) {
      cuda::spmv(ctx, M, std::span<const T>(x.span()), y.span());
      ctx.synchronize();
    }
    json j;
    j["kernel"] = "tuned";
    j["calls"] = calls;
    j["frozen"] = M.spmv_report()->frozen;
    j["params"] = M.spmv_report()->winner().params;
    j["us"] = median_us(ctx, [&] { cuda::spmv(ctx, M, std::span<const T>(x.span()), y.span()); });
    j["pct_copy"] = 100.0 * floor_bytes / j["us"].get<double>() / 1e3 / copy_gbs;
    out["spmv"].push_back(j);
    fmt::print("spmv {}\n", j.dump());
    std::fflush(stdout);
  }
  // Sampled rows of the default plan's product against the host.
  M.plan_spmv();
  cuda::spmv(ctx, M, std::span<const T>(x.span()), y.span());
  std::vector<T> yh(xh.size());
  cuda::copy_to_host_sync(ctx, yh.data(), y.data(), y.bytes());
  std::mt19937_64 rng(7);
  double worst = 0;
  int64_t bad = 0;
  for (int s = 0; s < 2048; ++s) {
    const int64_t r =
        s < 2 ? (s == 0 ? 0 : rows - 1) : static_cast<int64_t>(rng() % static_cast<uint64_t>(rows));
    const double want = host_row<T>(n, r, xh);
    const double err = std::abs(static_cast<double>(yh[static_cast<std::size_t>(r)]) - want);
    const double tol = 64.0 * std::numeric_limits<T>::epsilon() * 27.0 * 26.0;
    worst = std::max(worst, err / tol);
    bad += err > tol ? 1 : 0;
  }
  out["spmv_check"] = {{"rows", 2048}, {"bad", bad}, {"worst_over_tol", worst}};
  fmt::print("spmv check: {} bad of 2048, worst {:.3g} of tolerance\n", bad, worst);
  // SpMM L = 8: default plan and cuSPARSE's.
  for (const char* k : {"", "cusparse_spmm_csr_alg2_row", "spmm_csr_row", "spmm_csr_tiled_row"}) {
    out["spmm"].push_back(time_forced_spmm<T>(ctx, M, k, 8));
    fmt::print("spmm {}\n", out["spmm"].back().dump());
    std::fflush(stdout);
  }
  // CG: 100 iterations, Jacobi (the diagonal is 26 everywhere), b = A·1 so x = 1 is the solution.
  {
    M.plan_spmv();
    FrontDoorOperator<T> op(M);
    cuda::CgSolver<T> solver(ctx, op);
    cuda::DeviceBuffer<T> ones(xh.size(), "ones"), b(xh.size(), "b"), xs(xh.size(), "x"),
        inv(xh.size(), "inv");
    const std::vector<T> one(xh.size(), T{1}), inv_d(xh.size(), T{1} / T{26});
    cuda::copy_to_device_sync(ctx, ones.data(), one.data(), ones.bytes());
    cuda::copy_to_device_sync(ctx, inv.data(), inv_d.data(), inv.bytes());
    cuda::spmv(ctx, M, std::span<const T>(ones.span()), b.span());
    CgOptions o;
    o.rtol = 0;  // run all 100
    o.max_iterations = 100;
    o.preconditioner = Preconditioner::Jacobi;
    o.history = true;
    const CgResult r =
        solver.solve(std::span<const T>(inv.span()), std::span<const T>(b.span()), xs.span(), o);
    out["cg"] = {{"iterations", r.iterations},
                 {"seconds", r.seconds},
                 {"ms_per_iteration", 1e3 * r.seconds / std::max<int64_t>(r.iterations, 1)},
                 {"relative_residual", r.relative_residual},
                 {"first_residual", r.history.empty() ? 0.0 : r.history.front()},
                 {"message", r.message}};
    fmt::print("cg {}\n", out["cg"].dump());
  }
  out["explain_spmv"] = M.spmv_report()->explain();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string json_path = "wide_offsets.json",
                both = "stencil27:n=150;powerlaw:n=4000000,avg=8;blockfem:n=64,b=3";
    std::string huge_precision = "f32";
    int64_t huge_n = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string k = argv[i], v = argv[i + 1];
      if (k == "--json")
        json_path = v;
      else if (k == "--both")
        both = v;
      else if (k == "--huge")
        huge_n = std::stoll(v);
      else if (k == "--huge-precision")
        huge_precision = v;
      else
        throw Error("unknown option " + k);
    }
    cuda::Context ctx;
    const auto copy = cuda::measure_copy_bandwidth(ctx);
    json out;
    out["device"] = ctx.props().name;
    out["copy_gbs"] = copy.gbs;
    auto save = [&] {
      std::ofstream f(json_path);
      f << out.dump(1);
    };
    if (!both.empty()) {
      std::size_t p = 0;
      while (p <= both.size()) {
        // Specs hold commas inside (key=value lists) only after ':'; they are separated by ';'.
        const std::size_t q = std::min(both.find(';', p), both.size());
        const std::string spec = both.substr(p, q - p);
        for (int prec : {4, 8}) {
          out["both"].push_back(prec == 4 ? both_widths<float>(ctx, spec, copy.gbs)
                                          : both_widths<double>(ctx, spec, copy.gbs));
          fmt::print("{}\n", out["both"].back().dump());
          std::fflush(stdout);
          save();
        }
        p = q + 1;
      }
    }
    if (huge_n > 0) {
      // "f32,f64": one after the other (each freed before the next is assembled).
      for (const std::string p : {std::string("f32"), std::string("f64")}) {
        if (huge_precision.find(p) == std::string::npos) continue;
        out["huge"].push_back(p == "f64" ? huge<double>(ctx, huge_n, copy.gbs)
                                         : huge<float>(ctx, huge_n, copy.gbs));
        save();
      }
    }
    save();
  } catch (const std::exception& e) {
    std::cerr << "spx_wide_offsets: " << e.what() << "\n";
    return 1;
  }
}
