// Matrices split over ranks for the multi-GPU benchmark and `spx cg --gpus`: a structured stencil
// spec ("stencil27:nx=640,ny=640,nz=700") is generated rank by rank straight into its parts, so a
// matrix larger than one GPU (or than the host could hold twice) never exists whole; anything else
// is loaded whole and split with rows balanced by nonzeros.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bench/inputs.hpp"
#include "spx/dist.hpp"
#include "spx/matrix.hpp"

namespace spx::bench {

// A stencil spec's grid: points 5 (stencil2d), 7 (stencil7) or 27 (stencil27).
struct StencilGrid {
  int points = 27;
  int64_t nx = 0, ny = 0, nz = 1;
  int64_t rows() const { return nx * ny * nz; }
};
// The grid of a stencil2d / stencil7 / stencil27 spec with no key but n, nx, ny, nz (the generator's
// defaults), or nothing for any other source: a shuffled stencil is generated whole (rank by rank
// it would be the unshuffled one).
std::optional<StencilGrid> stencil_grid(const MatrixSource& source);

template <class T>
struct DistInput {
  dist::DistMatrix<T> D;
  std::vector<int32_t> perm;       // renumbered (metis or rcm chosen): D is P A Pᵀ, new row i old perm[i]
  std::string partition = "rows";  // the split used (auto resolved)
  std::string partition_report;    // dist::PartitionChoice::summary() where a choice was made
  std::optional<Csr<T, int32_t>> whole;  // when loaded whole and asked to keep it
  std::optional<StencilGrid> stencil;    // when generated rank by rank
  double seconds = 0;                    // generating or reading, and splitting
};

// Splits `source` over `ranks` (stencils rank by rank with equal row blocks, anything else whole and
// balanced by nonzeros); keep_whole keeps the whole matrix of a loaded source for reference checks.
// `partition` metis, rcm or auto (spx/dist_graph.hpp, auto weighing `products` products): loaded
// whole, and where renumbered P A Pᵀ split at the parts (D, whole and every vector then in the new
// numbering: `perm`); rows: as above; auto on a stencil spec is rows (its numbering is already local).
template <class T>
DistInput<T> load_distributed(const MatrixSource& source, int ranks, bool keep_whole,
                              const std::string& partition = "rows", int64_t products = 1000);

// Seconds of each setup phase of a distributed run, printed to stderr as each ends ("[4 GPUs]
// split: 51.2 s (4 parts)"): a matrix of billions of nonzeros takes minutes to split and upload,
// and whoever waits should see where.
class SetupClock {
 public:
  explicit SetupClock(int gpus);
  void done(const std::string& phase, const std::string& what);
  const nlohmann::ordered_json& seconds() const { return seconds_; }  // {"split": 51.2, ...}

 private:
  int gpus_;
  double last_;
  nlohmann::ordered_json seconds_ = nlohmann::ordered_json::object();
};

// One rank's line of the JSON `spx dist` and `spx bench --gpus` write: its row and x ranges, nonzeros
// (local, remote), halo entries in and out, and neighbours.
nlohmann::ordered_json rank_json(const dist::RankStats& r, const dist::Partition& rows,
                                 const dist::Partition& cols);

}  // namespace spx::bench
