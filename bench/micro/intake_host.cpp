// spx_intake_host: the host side of the front door's intake (cuda::SparseMatrix from a host CSR),
// step by step, on generated matrices: the copy a by-value caller makes, validation, spx::stats
// (validation, row statistics, fingerprint), the fingerprint alone, column_span_stats, the
// distinct-value count, and the 64-to-32-bit cast. Runs without a GPU (the uploads are not timed).
//
//   spx_intake_host [--reps N] [--f32] SPEC...     e.g. blockfem:n=48,b=3 stencil7:n=160 rmat:scale=21
//
// Each step's fastest of N runs (default 5: the least disturbed on a shared machine), in ms;
// OMP_NUM_THREADS sets the threads.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/splitmix64.hpp"
#include "spx/column_spans.hpp"
#include "spx/convert.hpp"
#include "spx/generate.hpp"
#include "spx/plan.hpp"
#include "spx/stats.hpp"

namespace {

double fastest_ms(int reps, const std::function<void()>& step) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return *std::min_element(ms.begin(), ms.end());
}

volatile uint64_t sink = 0;  // keeps the timed results alive

template <class T>
void run(const std::string& spec, int reps) {
  const spx::Csr<T, int32_t> A = spx::gen::generate<T, int32_t>(spec);
  const spx::Csr<T, int64_t> A64 = spx::cast<T, int64_t>(A);
  fmt::print("{} ({}, {} rows, {} nnz, {} threads)\n", spec, sizeof(T) == 8 ? "f64" : "f32", A.rows, A.nnz(),
             omp_get_max_threads());
  const auto row = [&](const char* name, const std::function<void()>& step) {
    fmt::print("  {:<28} {:9.2f} ms\n", name, fastest_ms(reps, step));
  };
  row("copy (by-value caller)", [&] {
    spx::Csr<T, int32_t> B = A;
    sink = sink + B.col_idx.back();
  });
  {
    spx::Csr<T, int32_t> B = A;
    row("copy into a faulted-in copy", [&] {
      B.col_idx.assign(A.col_idx.begin(), A.col_idx.end());
      B.values.assign(A.values.begin(), A.values.end());
      sink = sink + B.col_idx.back();
    });
  }
  row("validate", [&] { A.validate(); });
  row("stats (validate+rows+fp)", [&] { sink = sink + spx::stats(A).fingerprint; });
  row("structure_fingerprint", [&] { sink = sink + spx::structure_fingerprint(A); });
  // The part of the fingerprint no thread count shortens: fpv2 folds the rows' hashes in row order,
  // one dependent splitmix64 a row (here folding the row lengths instead of the rows' hashes).
  row("fingerprint's serial fold", [&] {
    uint64_t h = 0;
    for (int32_t r = 0; r < A.rows; ++r)
      h = spx::detail::splitmix64(h ^ static_cast<uint64_t>(A.row_ptr[r + 1] - A.row_ptr[r]));
    sink = sink + h;
  });
  row("column_span_stats", [&] { sink = sink + spx::column_span_stats(A).max_span; });
  row("count_distinct_values", [&] {
    spx::plan::HostExtras extras;
    spx::plan::count_distinct_values(std::span<const T>(A.values), extras);
    sink = sink + static_cast<uint64_t>(*extras.distinct_values);
  });
  row("cast int64 -> int32", [&] {
    const spx::Csr<T, int32_t> B = spx::cast<T, int32_t>(A64);
    sink = sink + B.col_idx.back();
  });
  row("stats (int64)", [&] { sink = sink + spx::stats(A64).fingerprint; });
  row("column_span_stats (int64)", [&] { sink = sink + spx::column_span_stats(A64).max_span; });
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  bool f32 = false;
  std::vector<std::string> specs;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--f32")
      f32 = true;
    else
      specs.push_back(a);
  }
  if (specs.empty()) specs = {"blockfem:n=48,b=3", "stencil7:n=160", "rmat:scale=21"};
  for (const std::string& s : specs) f32 ? run<float>(s, reps) : run<double>(s, reps);
  return 0;
}
