// spx value and index types → cuSPARSE's enums.
#pragma once

#include <cusparse.h>

#include <cstdint>
#include <type_traits>

namespace spx::cuda {

template <class T>
constexpr cudaDataType cuda_data_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                "spx vendor baselines: float or double");
  return std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
}

template <class I>
constexpr cusparseIndexType_t cusparse_index_type() {
  static_assert(std::is_same_v<I, int32_t> || std::is_same_v<I, int64_t>,
                "spx vendor baselines: int32_t or int64_t");
  return std::is_same_v<I, int32_t> ? CUSPARSE_INDEX_32I : CUSPARSE_INDEX_64I;
}

}  // namespace spx::cuda
