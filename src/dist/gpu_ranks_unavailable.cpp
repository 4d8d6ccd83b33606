// spx/dist_mpi_gpu.hpp without MPI or without CUDA: built_with_gpu_ranks() says so and a
// GpuProduct throws, so the CLI's --dist --backend cuda names the missing piece instead of failing
// to link.
#if !(defined(SPX_HAVE_MPI) && defined(SPX_HAVE_CUDA))
#include <string>

#include "spx/dist_mpi_gpu.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {
namespace {
[[noreturn]] void unavailable() {
  throw Error(
#ifndef SPX_HAVE_CUDA
      "GPU ranks: this spx was built without CUDA"
#else
      "GPU ranks: this spx was built without MPI (install Open MPI and configure with -DSPX_MPI=ON)"
#endif
  );
}
}  // namespace

bool built_with_gpu_ranks() { return false; }

const char* to_string(HaloTransport t) {
  return t == HaloTransport::Nccl ? "nccl" : t == HaloTransport::Mpi ? "mpi" : "auto";
}

HaloTransport parse_halo_transport(const std::string& s) {
  if (s == "auto") return HaloTransport::Auto;
  if (s == "nccl") return HaloTransport::Nccl;
  if (s == "mpi") return HaloTransport::Mpi;
  throw Error("halo transport '" + s + "': give auto, nccl or mpi");
}

RankGpu choose_rank_gpu(Group, const GpuRankOptions&) { unavailable(); }

template <class T>
struct GpuProduct<T>::Impl {};

template <class T>
GpuProduct<T>::GpuProduct(const RankMatrix<T>&, const GpuRankOptions&) {
  unavailable();
}
template <class T>
GpuProduct<T>::~GpuProduct() = default;
template <class T>
void GpuProduct<T>::operator()(std::span<const T>, std::span<T>) {}
template <class T>
int GpuProduct<T>::device() const {
  return -1;
}
template <class T>
HaloTransport GpuProduct<T>::halo() const {
  return HaloTransport::Auto;
}
template <class T>
std::string GpuProduct<T>::describe() const {
  return {};
}

template class GpuProduct<float>;
template class GpuProduct<double>;

}  // namespace spx::dist::mpi
#endif
