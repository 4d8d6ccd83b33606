// `spx bench --dist` and `spx cg --dist`: the job's MPI ranks on CPUs (spx/dist_mpi.hpp) or, with
// --backend cuda, one GPU each, one process per rank under mpirun; started without mpirun, one
// rank. GPU ranks that each have a GPU of their own (the halo over NCCL) run as one team spread
// over the processes (spx/cuda/dist_mpi.hpp: the single-process products and DistCgSolver, vectors
// on the device; cmd_mpi_team.cpp); ranks sharing a GPU, or --halo mpi, run the CPU ranks' driver
// with a GpuProduct (spx/dist_mpi_gpu.hpp: vectors on the host).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "cg_cli.hpp"
#include "common/wall_clock.hpp"
#include "spx/cg.hpp"
#include "spx/dist.hpp"
#include "spx/matrix.hpp"

namespace spx::cli {

struct MpiBenchOptions {
  std::vector<bench::MatrixSource> matrices;
  std::vector<std::string> precisions;  // "f32", "f64"
  double min_seconds = 0.2;
  std::string json;
  std::string partition = "rows";    // rows or metis
  bool gpu = false;                  // one GPU per rank (spx/dist_mpi_gpu.hpp), else CPU ranks
  std::string halo = "auto";         // GPU ranks: auto, nccl or mpi
  int halo_chunks = 0;               // GPU ranks over NCCL: DistOptions::halo_chunks (0: auto)
  std::vector<std::string> kernels;  // GPU ranks: the plan's allowed kernels (empty: all)
};

void run_mpi_bench(const MpiBenchOptions& options);
void run_mpi_cg(const CgCliOptions& options);

// What one rank loads (collective): its rows with global columns and the split every rank agreed
// on. Stencil specs are generated row block by row block; anything else is read by rank 0, which
// sends each rank its rows (and keeps the whole matrix when asked).
template <class T>
struct RankRows {
  dist::Partition row_partition, col_partition;
  Csr<T, int64_t> mine;
  std::optional<Csr<T, int32_t>> whole;  // rank 0, keep_whole, read: the SpMV check's reference
  bool read = false;                     // read by rank 0 (else generated per rank)
  std::string built;                     // how: "generated per rank" or "read by rank 0, rows sent out"
  std::vector<int32_t> perm;             // renumbered (metis, rcm): new row i is old row perm[i]
  std::string partition = "rows";        // the split used (--partition auto resolved)
};
template <class T>
RankRows<T> load_rank_rows(const bench::MatrixSource& source, bool keep_whole, const std::string& partition,
                           int64_t products = 1000);

// GPU against CPU: every row within the forward error bound of its sum,
// |y_i − ŷ_i| <= 2 (n_i + 2) u (|A| |x|)_i (they sum in different orders).
template <class T>
bool within_rounding(const Csr<T, int32_t>& A, std::span<const T> x, std::span<const T> got,
                     std::span<const T> want);

// What both drivers (host-vector rank operators, the GPU team) report: rank 0 prints its line,
// every rank returns the JSON run.
struct RankRun {
  std::string matrix, precision, backend, driver, halo, where, built, partition;
  int64_t rows = 0, halo_entries = 0;
  double setup_seconds = 0;
};
// The fields every run of a precision-T matrix shares (the rest are each command's).
template <class T>
RankRun rank_run(const std::string& matrix, const std::string& backend, const std::string& driver,
                 const std::string& halo, const std::string& where, const std::string& built,
                 const std::string& partition, int64_t rows, int64_t halo_entries, double setup_seconds) {
  return {matrix,       sizeof(T) == 4 ? "f32" : "f64",
          backend,      driver,
          halo,         where,
          built,        partition,
          rows,         halo_entries,
          setup_seconds};
}
struct RankBenchRun : RankRun {
  std::string check;
  int64_t cols = 0, nnz = 0, runs = 0;
  double median_seconds = 0;
};
nlohmann::ordered_json report_rank_bench(const RankBenchRun& r, std::ostream& out);
struct RankCgRun : RankRun {
  Preconditioner preconditioner = Preconditioner::None;
  CgResult result;
  double true_relative_residual = 0;
  bool history = false;
};
// Collective: the solve's seconds are the slowest rank's.
nlohmann::ordered_json report_rank_cg(const RankCgRun& r, std::ostream& out);

// The SpMV check on rank 0 (collective): this rank's rows of y gathered and compared with the CPU
// product of the matrix rank 0 read — bitwise, or within rounding (GPU rows sum in another order).
template <class T>
std::string check_against_cpu(const RankRows<T>& rows, std::span<const T> x_whole, std::span<const T> my_y,
                              bool bitwise);

// ‖b − A x‖ / ‖b‖ over the job from this rank's rows of b and A x (collective).
template <class T>
double true_relative_residual(std::span<const T> b, std::span<const T> ax, double rhs_norm);

// This rank's block of a whole vector; seconds since t0.
template <class T>
std::vector<T> my_block(const std::vector<T>& v, const dist::Partition& p, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return std::vector<T>(v.begin() + p.begin[r], v.begin() + p.begin[r + 1]);
}
using spx::detail::seconds_since;

// This process's rank of a GPU team spread over the job (cmd_mpi_team.cpp). Collective.
class RankTeam;
std::shared_ptr<RankTeam> join_rank_team(int device);
template <class T>
nlohmann::ordered_json team_bench_one(const MpiBenchOptions& o, const bench::MatrixSource& source,
                                      std::ostream& out, RankTeam& team);
template <class T>
nlohmann::ordered_json team_cg_one(const CgCliOptions& o, const bench::MatrixSource& source,
                                   std::ostream& out, RankTeam& team);

}  // namespace spx::cli
