// Block-distributed vectors (spx/cuda/dist.hpp): one device buffer per rank this process drives, on
// the rank's GPU (the other ranks' buffers stay empty).
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <vector>

#include "cuda/common/check.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/error.hpp"

namespace spx::cuda::dist {

template <class T>
DistVector<T>::DistVector(Team& team, const spx::dist::Partition& p, int64_t cols)
    : team_(&team), partition_(p), cols_(cols) {
  if (p.ranks() != team.size())
    throw Error(
        fmt::format("dist: a vector partitioned over {} ranks on a team of {}", p.ranks(), team.size()));
  if (cols < 1) throw Error(fmt::format("dist: a vector needs at least 1 column, not {}", cols));
  parts_.resize(static_cast<std::size_t>(team.size()));
  for (int r : team.members()) {
    DeviceScope scope(team.context(r).device());
    parts_[static_cast<std::size_t>(r)] =
        DeviceBuffer<T>(static_cast<std::size_t>(p.block_size(r) * cols), "distributed vector part");
  }
}

template <class T>
std::span<T> DistVector<T>::part(int rank) {
  return parts_.at(static_cast<std::size_t>(rank)).span();
}
template <class T>
std::span<const T> DistVector<T>::part(int rank) const {
  return parts_.at(static_cast<std::size_t>(rank)).span();
}

template <class T>
void DistVector<T>::upload(std::span<const T> host) {
  if (static_cast<int64_t>(host.size()) != size() * cols_)
    throw Error(
        fmt::format("dist: uploading {} values into a vector of {} × {}", host.size(), size(), cols_));
  for (int r : team_->members()) {
    const auto offset = static_cast<std::size_t>(partition_.begin[static_cast<std::size_t>(r)] * cols_);
    upload_part(r, host.subspan(offset, parts_[static_cast<std::size_t>(r)].size()));
  }
}

template <class T>
void DistVector<T>::upload_part(int rank, std::span<const T> host) {
  Context& ctx = team_->context(rank);  // throws for a rank another process drives
  auto& part = parts_[static_cast<std::size_t>(rank)];
  if (host.size() != part.size())
    throw Error(fmt::format("dist: uploading {} values into rank {}'s block of {} × {}", host.size(), rank,
                            partition_.block_size(rank), cols_));
  DeviceScope scope(ctx.device());
  copy_to_device_sync(ctx, part.data(), host.data(), part.bytes());
}

namespace {
// Rank r's block of `parts` into host memory at `dst` (its size), synchronously.
template <class T>
void copy_part_to_host(Team& team, int rank, const DeviceBuffer<T>& part, T* dst) {
  Context& ctx = team.context(rank);
  DeviceScope scope(ctx.device());
  copy_to_host_sync(ctx, dst, part.data(), part.bytes());
}
}  // namespace

template <class T>
std::vector<T> DistVector<T>::download_part(int rank) {
  (void)team_->context(rank);  // spx::Error for a rank this process does not drive, before any lookup
  const auto& part = parts_[static_cast<std::size_t>(rank)];
  std::vector<T> host(part.size());
  copy_part_to_host(*team_, rank, part, host.data());
  return host;
}

template <class T>
std::vector<T> DistVector<T>::download() {
  std::vector<T> host(static_cast<std::size_t>(size() * cols_));
  for (int r : team_->members()) {  // each block straight into its place
    const auto offset = static_cast<std::size_t>(partition_.begin[static_cast<std::size_t>(r)] * cols_);
    copy_part_to_host(*team_, r, parts_[static_cast<std::size_t>(r)], host.data() + offset);
  }
  return host;
}

template <class T>
void DistVector<T>::fill(T value) {
  for (int r : team_->members()) {
    Context& ctx = team_->context(r);
    DeviceScope scope(ctx.device());
    auto& part = parts_[static_cast<std::size_t>(r)];
    if (part.empty()) continue;
    if (value == T{0}) {
      SPX_CUDA_CHECK(cudaMemsetAsync(part.data(), 0, part.bytes(), ctx.stream()));
    } else {
      const std::vector<T> host(part.size(), value);
      copy_to_device_sync(ctx, part.data(), host.data(), part.bytes());
    }
  }
}

template class DistVector<float>;
template class DistVector<double>;

}  // namespace spx::cuda::dist
