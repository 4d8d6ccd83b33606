// Version 3's tile shapes as data (names and extents): the kernels (src/cuda/gemm/gemm_v3_<tile>.cu)
// instantiate them, the plan rule (gemm_rule.cpp) counts tiles and whole slabs with them, so both
// read one table, and builds without CUDA can still plan.
#include <fmt/format.h>

#include <string>

#include "spx/cuda/gemm.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

const char* gemm_tile_name(GemmTile tile) {
  switch (tile) {
    case GemmTile::Auto:
      return "auto";
    case GemmTile::T128x128:
      return "128x128";
    case GemmTile::T128x64:
      return "128x64";
    case GemmTile::T64x64:
      return "64x64";
    case GemmTile::T64x32:
      return "64x32";
    case GemmTile::T32x64:
      return "32x64";
    case GemmTile::T32x32:
      return "32x32";
  }
  throw Error("spx::cuda::gemm: unknown GemmTile");
}

GemmTileShape gemm_tile_shape(GemmTile tile) {
  switch (tile) {
    case GemmTile::T128x128:
      return {128, 128, 16};
    case GemmTile::T128x64:
      return {128, 64, 16};
    case GemmTile::T64x64:
      return {64, 64, 16};
    case GemmTile::T64x32:
      return {64, 32, 32};
    case GemmTile::T32x64:
      return {32, 64, 32};
    case GemmTile::T32x32:
      return {32, 32, 32};
    case GemmTile::Auto:
      break;
  }
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
