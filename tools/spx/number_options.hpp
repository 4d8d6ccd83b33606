// The one number parser of spx's options, and the bounds every numeric option is checked against.
//
// Counts (runs, threads, columns, nonzeros, bytes, ...) are whole numbers written as "300000",
// "1_000_000", "2e6", "1.5e3" or with a k/M/G suffix ("300k", "1.5M"); a fraction (2.5), a negative,
// NaN/Inf, trailing text or a value past the option's bound is refused with a line naming the option
// and the value. Reals (seconds, tolerances, alpha) must be finite and within their option's range.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <string>

namespace spx::cli {

// Bounds of the options; each command's --help shows them (CLI11 validators below).
inline constexpr int64_t kMaxRuns = 1'000'000'000;                         // --repeat, --runs, --warmup
inline constexpr int64_t kMaxIterations = 1'000'000'000'000;               // cg --maxit, --stagnation
inline constexpr int64_t kMaxExpectedCalls = 1'000'000'000'000;            // --expected-calls
inline constexpr int64_t kMaxRanks = 4096;                                 // --ranks, --gpus
inline constexpr int64_t kMaxStreams = 16;                                 // spmm --streams
inline constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();  // sizes of one dimension
inline constexpr int64_t kMaxCount = std::numeric_limits<int64_t>::max();  // nonzeros, bytes, seeds
inline constexpr double kMaxBenchSeconds = 60;   // --min-time of bench and model calibrate
inline constexpr double kMaxTuneSeconds = 10;    // tune --min-time
inline constexpr double kMaxGemmSeconds = 3600;  // gemm --min-time
inline constexpr double kMaxReal = std::numeric_limits<double>::max();

// The count `text` stands for, or throws spx::Error "OPTION: ..." when it is none or lies outside
// [least, most] (said with `unit`: "--gpus: 0 GPUs: give at least 1").
int64_t parse_count(const std::string& text, const std::string& option, int64_t least = 0,
                    int64_t most = kMaxCount, const std::string& unit = "");
// A finite real in [least, most], or spx::Error "OPTION: ...".
double parse_real(const std::string& text, const std::string& option, double least, double most,
                  const std::string& unit = "");

// CLI11 validators for option(...)->transform(count_in(...)) and ->check(real_in(...)): CLI11
// prefixes their message with the option's name. count_in rewrites the text as plain digits, so
// "2e6" or "1_000" reach an integer option of any type. `otherwise` says what to do instead of
// going below `least` ("leave it out for adaptive timing").
CLI::Validator count_in(int64_t least, int64_t most, const std::string& unit,
                        const std::string& otherwise = "");
CLI::Validator real_in(double least, double most, const std::string& unit, const std::string& otherwise = "");
// --threads: 1 .. spx::omp::max_settable_threads().
CLI::Validator thread_count();

}  // namespace spx::cli
