// Benchmark output: tables for people, JSON for plots and the performance model.
//
// The JSON (docs/ARCHITECTURE.md, "Benchmark JSON") is one object:
//   device  {name, sm_count, l2_bytes, copy_gbs, kind}
//   commit, date (ISO 8601 UTC), backend, spx_version, notes [..]
//   results [{matrix, rows, cols, nnz, op, cols_dense, precision, kernel, vendor, params,
//             ms_median, ms_min, ms_max, gbs, gflops, checked,   ← the fixed schema (issue 3)
//             backend, format, reference, [override], runs, gbs_min, pct_copy, rel_error,
//             check_ratio, max_error, prepare_ms, speedup, baseline, [ms_cold_*], stats {…}}]
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/engine.hpp"

namespace spx::bench {

// "spx bench: cpu backend — AMD EPYC, 2 threads, LLC 32 MiB, copy 18.2 GB/s; commit …"
void print_device_line(std::ostream& out, const BenchReport& report);
// The results of one matrix: a heading with its shape and row-length statistics, then one row per
// (op, precision, kernel).
void print_matrix_table(std::ostream& out, const BenchReport& report, const MatrixInfo& matrix);
// Column legend and the notes (skips, failures).
void print_footer(std::ostream& out, const BenchReport& report);

nlohmann::ordered_json to_json(const BenchReport& report);
nlohmann::ordered_json to_json(const MatrixStats& stats);

// Writes JSON (indented) to `path`, or to stdout when path is "-". Throws spx::Error on failure.
void write_json(const std::string& path, const nlohmann::ordered_json& json);

}  // namespace spx::bench
