// Version 3's tiles by name and extents, looked up in kGemmTileTable (gemm.hpp): host code, so
// builds without CUDA can still plan.
#include <fmt/format.h>

#include <string>

#include "spx/cuda/gemm.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

const char* gemm_tile_name(GemmTile tile) {
  if (tile == GemmTile::Auto) return "auto";
  if (const GemmTileRow* row = gemm_tile_row(tile)) return row->name;
  throw Error("spx::cuda::gemm: unknown GemmTile");
}

GemmTileShape gemm_tile_shape(GemmTile tile) {
  if (const GemmTileRow* row = gemm_tile_row(tile)) return row->shape;
  throw Error(
      fmt::format("spx::cuda::gemm: tile {} has no extents (resolve it first)", gemm_tile_name(tile)));
}

GemmTile gemm_tile_from_name(std::string_view name) {
  if (name == gemm_tile_name(GemmTile::Auto)) return GemmTile::Auto;
  std::string names = gemm_tile_name(GemmTile::Auto);
  for (GemmTile t : kGemmTiles) {
    if (name == gemm_tile_name(t)) return t;
    names += std::string(", ") + gemm_tile_name(t);
  }
  throw Error(fmt::format("unknown GEMM tile '{}' (one of: {})", name, names));
}

}  // namespace spx::cuda
