#include "bench/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <variant>

#include "bench/features_json.hpp"
#include "plan/catalogue.hpp"
#include "spx/error.hpp"
#include "spx/version.hpp"

namespace spx::bench {

namespace {

// Whether a result is a planner candidate's: its entry's name (a variant's "#N" cut) is a catalogue
// row of the same operation.
bool is_candidate(const Result& r) {
  const std::string name = r.kernel.substr(0, r.kernel.find('#'));
  const plan::KernelRow* row = plan::find_kernel(name);
  return row != nullptr && (r.op == OpKind::Spmm) == row->spmm() && r.op != OpKind::Gemm;
}

std::string bytes_text(int64_t bytes) {
  if (bytes <= 0) return "unknown";
  if (bytes >= (int64_t{1} << 20)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} KiB", bytes >> 10);
}

// Four significant digits, no exponent above 1e-4 ms: 0.0001234, 0.01234, 1.234, 12.34, 1234.
std::string ms_text(double ms) {
  if (ms <= 0) return "-";
  if (ms < 1) return fmt::format("{:#.4g}", ms);
  if (ms < 100) return fmt::format("{:.3f}", ms);
  return fmt::format("{:.1f}", ms);
}

std::string op_text(const Result& r) { return op_spec_of(r.op, r.rows, r.cols, r.cols_dense).label(); }

double pct_copy(const Result& r, const BenchReport& report) {
  return report.device.copy_gbs > 0 ? 100.0 * r.gbs_min / report.device.copy_gbs : 0.0;
}

nlohmann::ordered_json params_json(const Params& params) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const Param& p : params) {
    std::visit([&](const auto& v) { out[p.key] = v; }, p.value);
  }
  return out;
}

// JSON has no NaN or Inf: write null instead.
nlohmann::ordered_json number(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}

}  // namespace

void print_device_line(std::ostream& out, const BenchReport& report) {
  const model::DeviceBasics& d = report.device;
  const std::string units = report.backend == "cpu" ? "threads" : "SMs";
  const std::string cache = report.backend == "cpu" ? "last-level cache" : "L2";
  fmt::print(out, "spx bench: {} backend, {} ({} {}, {} {}), measured copy bandwidth {:.1f} GB/s\n",
             report.backend, d.name, d.sm_count, units, cache, bytes_text(d.l2_bytes), d.copy_gbs);
  fmt::print(out, "commit {}, {}\n", report.commit, report.date);
}

void print_matrix_table(std::ostream& out, const BenchReport& report, const MatrixInfo& m) {
  fmt::print(out, "\n== {}  ({} x {}, {} nonzeros{}", m.name, m.rows, m.cols, m.nnz,
             m.offset_bits == 64 ? ", 64-bit indices" : "");
  if (m.stats) {
    const MatrixStats& s = *m.stats;
    fmt::print(out, "; row length {}/{:.1f}/{} min/avg/max, stddev {:.1f}, {} empty rows", s.min_row,
               s.avg_row, s.max_row, s.stddev_row, s.empty_rows);
  }
  fmt::print(out, ")\n");
  if (!m.description.empty() || m.source != m.name) {
    fmt::print(out, "   {}{}{}\n", m.description, m.description.empty() ? "" : "; ", m.source);
  }
  bool any = false;
  bool any_cold = false;          // an "ms cold" column only where cold runs were measured
  std::size_t kernel_width = 14;  // widened for long names (cusparse_spmm_csr_alg3_row)
  for (const Result& r : report.results) {
    if (r.matrix != m.name) continue;
    any = true;
    any_cold = any_cold || r.cold.has_value();
    kernel_width = std::max(kernel_width, r.kernel.size());
  }
  if (!any) {
    fmt::print(out, "   (no results: see the notes)\n");
    return;
  }
  fmt::print(out, "   {:<8} {:<4} {:<{}} {:<5} {:>10} {:>10}{} {:>8} {:>8} {:>6} {:>8} {:>8} {:>5}\n", "op",
             "prec", "kernel", kernel_width, "fmt", "ms median", "ms min",
             any_cold ? fmt::format(" {:>10}", "ms cold") : "", "GB/s", "GB/s min", "%copy", "GFLOP/s",
             "speedup", "check");
  for (const Result& r : report.results) {
    if (r.matrix != m.name) continue;
    const std::string speedup = r.speedup > 0 ? fmt::format("{:.2f}x", r.speedup) : "-";
    const std::string copy = pct_copy(r, report) > 0 ? fmt::format("{:.0f}%", pct_copy(r, report)) : "-";
    const std::string cold =
        any_cold ? fmt::format(" {:>10}", r.cold ? ms_text(r.cold->median_ms) : "-") : "";
    fmt::print(out,
               "   {:<8} {:<4} {:<{}} {:<5} {:>10} {:>10}{} {:>8.2f} {:>8.2f} {:>6} {:>8.2f} {:>8} {:>5}\n",
               op_text(r), to_string(r.precision), r.kernel, kernel_width, to_string(r.format),
               ms_text(r.timing.median_ms), ms_text(r.timing.min_ms), cold, r.gbs, r.gbs_min, copy, r.gflops,
               speedup, r.checked ? "ok" : "FAIL");
  }
}

void print_footer(std::ostream& out, const BenchReport& report) {
  const bool any_vendor =
      std::any_of(report.results.begin(), report.results.end(), [](const Result& r) { return r.vendor; });
  fmt::print(
      out,
      "\nms: warm runs (the same inputs again and again); ms cold: L2 flushed before each run, measured\n"
      "where the working set fits in L2. GB/s: effective bytes (Reguly-Giles eq. 2) / median time.\n"
      "GB/s min: minimum traffic (eq. 4); "
      "%copy compares it with the copy bandwidth measured above\n(over 100%: the matrix sits in cache).\n"
      "speedup: over {} for the same op and precision.\ncheck: output vs spx::ref within the "
      "rounding-error bound (docs/ARCHITECTURE.md).\n",
      any_vendor ? "the fastest vendor kernel (cuSPARSE/cuBLAS)"
                 : "the fastest spx::ref kernel (no vendor library on this backend)");
  if (!report.notes.empty()) {
    fmt::print(out, "notes:\n");
    for (const auto& n : report.notes) fmt::print(out, "  {}\n", n);
  }
}

nlohmann::ordered_json to_json(const MatrixStats& s) {
  nlohmann::ordered_json j;
  j["min_row"] = s.min_row;
  j["avg_row"] = s.avg_row;
  j["max_row"] = s.max_row;
  j["stddev_row"] = s.stddev_row;
  j["empty_rows"] = s.empty_rows;
  j["lower_bandwidth"] = s.lower_bandwidth;
  j["upper_bandwidth"] = s.upper_bandwidth;
  j["bandwidth"] = s.bandwidth;
  j["ell_padding_ratio"] = s.ell_padding_ratio;
  j["fingerprint"] = fmt::format("{:016x}", s.fingerprint);
  return j;
}

nlohmann::ordered_json to_json(const BenchReport& report) {
  nlohmann::ordered_json j;
  const model::DeviceBasics& d = report.device;
  j["device"] = {{"name", d.name},
                 {"sm_count", d.sm_count},
                 {"l2_bytes", d.l2_bytes},
                 {"copy_gbs", d.copy_gbs},
                 {"kind", report.backend}};
  if (report.backend == "cuda" && d.copy_gbs > 0) {  // measured on GPUs only
    j["device"]["l2_gbs"] = d.l2_gbs;
    j["device"]["threads_per_sm"] = d.threads_per_sm;
    j["device"]["blocks_per_sm"] = d.blocks_per_sm;
  }
  j["commit"] = report.commit;
  j["date"] = report.date;
  j["backend"] = report.backend;
  j["spx_version"] = spx::kVersionString;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const Result& r : report.results) {
    nlohmann::ordered_json e;
    e["matrix"] = r.matrix;
    e["rows"] = r.rows;
    e["cols"] = r.cols;
    e["nnz"] = r.nnz;
    e["op"] = to_string(r.op);
    e["cols_dense"] =
        r.op == OpKind::Spmm ? nlohmann::ordered_json(r.cols_dense) : nlohmann::ordered_json(nullptr);
    e["precision"] = to_string(r.precision);
    e["kernel"] = r.kernel;
    e["vendor"] = r.vendor;
    e["params"] = params_json(r.params);
    e["ms_median"] = r.timing.median_ms;
    e["ms_min"] = r.timing.min_ms;
    e["ms_max"] = r.timing.max_ms;
    e["gbs"] = r.gbs;
    e["gflops"] = r.gflops;
    e["checked"] = r.checked;
    // Fields beyond the fixed schema.
    e["backend"] = r.backend;
    e["format"] = to_string(r.format);
    e["reference"] = r.reference;
    // A candidate of the planner (a row of the kernel catalogue, src/plan/catalogue.cpp): the
    // summaries take the per-problem oracle over these.
    e["candidate"] = is_candidate(r);
    // An opt-in candidate that rounds the values (mixed precision): not in a default plan's oracle.
    if (is_candidate(r) && plan::kernel_row(r.kernel.substr(0, r.kernel.find('#'))).rounds_values)
      e["rounds_values"] = true;
    if (!r.override.empty()) e["override"] = r.override;         // the parameters this run was given
    if (r.op != OpKind::Gemm) e["offset_bits"] = r.offset_bits;  // spx bench --index
    if (r.op == OpKind::Gemm) {
      e["m"] = r.rows;
      e["n"] = r.cols_dense;
      e["k"] = r.cols;
    }
    e["runs"] = r.timing.runs;
    e["gbs_min"] = r.gbs_min;
    e["pct_copy"] = pct_copy(r, report);
    e["rel_error"] = number(r.rel_error);
    e["check_ratio"] = number(r.check_ratio);
    e["max_error"] = number(r.max_error);
    e["prepare_ms"] = r.prepare_ms;
    e["speedup"] = r.speedup > 0 ? nlohmann::ordered_json(r.speedup) : nlohmann::ordered_json(nullptr);
    e["baseline"] = r.baseline.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.baseline);
    if (r.cold) {
      e["ms_cold_median"] = r.cold->median_ms;
      e["ms_cold_min"] = r.cold->min_ms;
      e["ms_cold_max"] = r.cold->max_ms;
    }
    e["stats"] = r.stats ? to_json(*r.stats) : nlohmann::ordered_json(nullptr);
    results.push_back(std::move(e));
  }
  j["results"] = std::move(results);
  // The sparse matrices with their features (the performance model's inputs).
  nlohmann::ordered_json matrices = nlohmann::ordered_json::array();
  for (const MatrixInfo& m : report.matrices) {
    if (!m.features) continue;
    matrices.push_back({{"name", m.name},
                        {"source", m.source},
                        {"offset_bits", m.offset_bits},
                        {"features", to_json(*m.features)}});
  }
  j["matrices"] = std::move(matrices);
  j["notes"] = report.notes;
  return j;
}

void write_json(const std::string& path, const nlohmann::ordered_json& json) {
  const std::string text = json.dump(2) + "\n";
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  // Written beside the target and renamed over it: a reader (or a run killed mid-write) never sees
  // half a file.
  const std::string tmp = fmt::format("{}.tmp-{}", path, static_cast<long>(::getpid()));
  std::ofstream file(tmp, std::ios::binary);
  if (!file) throw Error(fmt::format("{}: cannot open for writing", tmp));
  file << text;
  file.close();
  if (!file) {
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: write failed", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(fmt::format("{}: cannot replace it ({})", path, std::strerror(err)));
  }
}

}  // namespace spx::bench
