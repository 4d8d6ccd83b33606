// Carving one Context::workspace() allocation into parts: each part's size rounded up to 256
// bytes, so every part starts where cudaMalloc's own alignment would (CUB's temporary storage and
// 8-byte counters need no more).
#pragma once

#include <cstddef>

namespace spx::cuda::detail {

inline constexpr std::size_t kWorkspaceAlignment = 256;

constexpr std::size_t workspace_aligned(std::size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

}  // namespace spx::cuda::detail
