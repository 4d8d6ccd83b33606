// A GPU rank's product (spx/dist_mpi_gpu.hpp): the rank's device, the halo transport agreed by all
// ranks, the merged owned + halo matrix (columns in global order) as one planned SparseMatrix, and the
// product with its halo moved by NCCL on the rank's stream or staged through the host over MPI.
#ifdef SPX_HAVE_CUDA
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "cuda/common/check.hpp"
#include "cuda/dist/halo_kernels.hpp"
#include "cuda/dist/nccl.hpp"
#include "mpi/comm.hpp"
#include "spx/cuda/buffer.hpp"
#include "spx/cuda/context.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/dist_mpi.hpp"
#include "spx/cuda/sparse_matrix.hpp"
#include "spx/dist_mpi_gpu.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {

bool built_with_gpu_ranks() { return true; }

const char* to_string(HaloTransport t) {
  switch (t) {
    case HaloTransport::Auto:
      return "auto";
    case HaloTransport::Nccl:
      return "nccl";
    case HaloTransport::Mpi:
      return "mpi";
  }
  return "?";
}

HaloTransport parse_halo_transport(const std::string& s) {
  if (s == "auto") return HaloTransport::Auto;
  if (s == "nccl") return HaloTransport::Nccl;
  if (s == "mpi") return HaloTransport::Mpi;
  throw Error(fmt::format("halo transport '{}': give auto, nccl or mpi", s));
}

namespace {

constexpr int kGpuHaloTag = 42;
constexpr std::size_t kBusIdChars = 32;  // "0000:19:00.0" with room to spare

// The rank's index among the ranks of its host, and how many share the host. Collective.
std::pair<int, int> ranks_on_host(MPI_Comm comm) {
  MPI_Comm host = MPI_COMM_NULL;
  detail::check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
                "MPI_Comm_split_type");
  int r = 0, n = 1;
  MPI_Comm_rank(host, &r);
  MPI_Comm_size(host, &n);
  MPI_Comm_free(&host);
  return {r, n};
}

// `host_rank`: the rank's index among its host's ranks (found before, by every rank: a collective
// must not depend on what this rank's environment says).
int choose_device(const GpuRankOptions& o, int host_rank) {
  const int visible = spx::cuda::device_count();
  if (visible == 0)
    throw Error(fmt::format("GPU ranks need a GPU: {} (drop --backend cuda to run CPU ranks)",
                            spx::cuda::gpu_unavailable_reason()));
  int device = o.device;
  const char* how = "asked for";
  if (device < 0) {
    if (const char* env = std::getenv(kRankGpuEnv); env && *env) {
      char* end = nullptr;
      const long v = std::strtol(env, &end, 10);
      if (*end != '\0' || v < 0 || v > 1 << 20)
        throw Error(fmt::format("{}={} is not a GPU index", kRankGpuEnv, env));
      device = static_cast<int>(v);
      how = kRankGpuEnv;
    } else {
      device = host_rank % visible;
      how = "the host-local rank";
    }
  }
  if (device >= visible)
    throw Error(fmt::format("GPU {} ({}), but this process sees {} GPU{}", device, how, visible,
                            visible == 1 ? "" : "s"));
  return device;
}

// Whether two ranks of one host hold the same GPU (its PCI bus id, whatever index each sees it by):
// the first such pair, or nullopt.
std::optional<std::pair<int, int>> shared_gpu(MPI_Comm comm, int device) {
  char bus[kBusIdChars] = {};
  SPX_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, static_cast<int>(kBusIdChars), device));
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  std::string key = std::string(host, static_cast<std::size_t>(length)) + "/" + bus;
  key.resize(MPI_MAX_PROCESSOR_NAME + kBusIdChars, '\0');
  int ranks = 1;
  MPI_Comm_size(comm, &ranks);
  std::vector<char> all(key.size() * static_cast<std::size_t>(ranks));
  detail::check(MPI_Allgather(key.data(), static_cast<int>(key.size()), MPI_CHAR, all.data(),
                              static_cast<int>(key.size()), MPI_CHAR, comm),
                "MPI_Allgather");
  for (int a = 0; a < ranks; ++a)
    for (int b = a + 1; b < ranks; ++b)
      if (std::memcmp(&all[key.size() * static_cast<std::size_t>(a)],
                      &all[key.size() * static_cast<std::size_t>(b)], key.size()) == 0)
        return std::pair{a, b};
  return std::nullopt;
}

}  // namespace

template <class T>
struct GpuProduct<T>::Impl {
  const RankMatrix<T>& A;
  int device = 0;
  HaloTransport halo = HaloTransport::Mpi;
  std::optional<spx::cuda::Context> ctx;
  std::optional<spx::cuda::SparseMatrix<T>> M;
  // x_ext on the device: [halo below the owned columns | owned x | halo above], the columns in
  // increasing global order, so the device matrix (its columns renumbered alike) is canonical CSR
  // with each row's nonzeros in the order of the whole matrix's row. halo_below: how many are below.
  spx::cuda::DeviceBuffer<T> x_ext, y, send_buffer;
  int64_t halo_below = 0;
  spx::cuda::DeviceBuffer<int32_t> send_index;  // every send list, concatenated in A.send order
  std::vector<T> host_send, host_halo;          // the MPI transport's staging
  std::unique_ptr<spx::cuda::dist::Team> team;  // NCCL transport: this rank's member (join_team)
  ncclComm_t nccl = nullptr;                    // its communicator

  explicit Impl(const RankMatrix<T>& A_) : A(A_) {}

  // Where halo entry h (A's column owned + h) sits in x_ext.
  int64_t halo_slot(int64_t h) const { return h < halo_below ? h : A.owned + h; }

  // A's columns renumbered to x_ext's order: owned c -> halo_below + c, halo h -> halo_slot(h).
  Csr<T, int32_t> monotone_columns() const {
    Csr<T, int32_t> B = A.A;
    for (int32_t& c : B.col_idx)
      c = static_cast<int32_t>(c < A.owned ? halo_below + c : halo_slot(c - A.owned));
    return B;
  }

  // A message's entries are consecutive halo entries from one rank, all below or all above the
  // owned columns (ranks own increasing column blocks): one contiguous run of x_ext.
  int64_t recv_slot(const HaloMessage& m) const {
    const int64_t first = halo_slot(m.recv_offset), last = halo_slot(m.recv_offset + m.count() - 1);
    if (m.count() > 0 && last - first != m.count() - 1)
      throw Error(fmt::format("rank {}: the halo from rank {} straddles the owned columns", A.rank, m.from));
    return first;
  }

  int64_t send_total() const {
    int64_t n = 0;
    for (const auto& m : A.send) n += m.count();
    return n;
  }

  void exchange_nccl() {
    const auto type = spx::cuda::dist::detail::nccl_type<T>();
    spx::cuda::dist::detail::launch_pack<T>(ctx->stream(), static_cast<int64_t>(send_buffer.size()), 1,
                                            send_index.data(), x_ext.data(), send_buffer.data());
    SPX_NCCL_CHECK(ncclGroupStart());
    int64_t at = 0;
    for (const auto& m : A.send) {
      SPX_NCCL_CHECK(ncclSend(send_buffer.data() + at, static_cast<std::size_t>(m.count()), type, m.to, nccl,
                              ctx->stream()));
      at += m.count();
    }
    for (const auto& m : A.recv)
      SPX_NCCL_CHECK(ncclRecv(x_ext.data() + recv_slot(m), static_cast<std::size_t>(m.count()), type, m.from,
                              nccl, ctx->stream()));
    SPX_NCCL_CHECK(ncclGroupEnd());
  }

  // The halo received into host memory over MPI, then uploaded behind x.
  void exchange_mpi(std::span<const T> x) {
    const MPI_Comm comm = detail::comm(A.group);
    const MPI_Datatype type = detail::datatype<T>();
    std::vector<MPI_Request> requests;
    requests.reserve(A.recv.size() + A.send.size());
    for (const auto& m : A.recv) {
      requests.emplace_back();
      detail::check(MPI_Irecv(host_halo.data() + m.recv_offset, m.count(), type, m.from, kGpuHaloTag, comm,
                              &requests.back()),
                    "MPI_Irecv");
    }
    std::size_t at = 0;
    for (const auto& m : A.send) {
      T* buf = host_send.data() + at;
      for (std::size_t i = 0; i < m.send_local.size(); ++i)
        buf[i] = x[static_cast<std::size_t>(m.send_local[i])];
      at += m.send_local.size();
      requests.emplace_back();
      detail::check(MPI_Isend(buf, m.count(), type, m.to, kGpuHaloTag, comm, &requests.back()), "MPI_Isend");
    }
    detail::check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
    const auto below = static_cast<std::size_t>(halo_below);
    if (below > 0) spx::cuda::copy_to_device_async(*ctx, x_ext.data(), host_halo.data(), below * sizeof(T));
    if (host_halo.size() > below)
      spx::cuda::copy_to_device_async(*ctx, x_ext.data() + halo_below + A.owned, host_halo.data() + below,
                                      (host_halo.size() - below) * sizeof(T));
  }
};

RankGpu choose_rank_gpu(Group group, const GpuRankOptions& options) {
  const MPI_Comm comm = detail::comm(group);
  const int on_host = ranks_on_host(comm).first;
  RankGpu g;
  std::string error;
  try {
    g.device = choose_device(options, on_host);
  } catch (const Error& e) {
    error = e.what();
  }
  detail::agree(group, error, "another rank has no usable GPU", true);
  // NCCL only when no two ranks of a host share a GPU (it refuses duplicates).
  const auto shared = shared_gpu(comm, g.device);
  if (options.halo == HaloTransport::Nccl && shared)
    throw JobError(fmt::format("halo over NCCL: ranks {} and {} share one GPU, and NCCL needs a GPU per rank "
                               "(use the MPI transport, or as many GPUs as ranks)",
                               shared->first, shared->second),
                   rank(group) == 0);
  g.halo = options.halo == HaloTransport::Auto ? (shared ? HaloTransport::Mpi : HaloTransport::Nccl)
                                               : options.halo;
  return g;
}

template <class T>
GpuProduct<T>::GpuProduct(const RankMatrix<T>& A, const GpuRankOptions& options)
    : impl_(std::make_unique<Impl>(A)) {
  Impl& m = *impl_;
  const RankGpu g = choose_rank_gpu(A.group, options);
  m.device = g.device;
  m.halo = g.halo;
  std::string error;
  try {
    m.ctx.emplace(m.device);
    m.halo_below =
        std::lower_bound(A.halo_global.begin(), A.halo_global.end(), A.col_begin) - A.halo_global.begin();
    for (const auto& r : A.recv) (void)m.recv_slot(r);
    m.M.emplace(*m.ctx, m.monotone_columns());  // a copy: A stays the CG driver's (Jacobi's diagonal)
    m.M->plan_spmv(options.plan);
    m.x_ext = spx::cuda::DeviceBuffer<T>(static_cast<std::size_t>(A.A.cols), "GPU rank x and halo");
    m.y = spx::cuda::DeviceBuffer<T>(static_cast<std::size_t>(A.A.rows), "GPU rank y");
    const int64_t sends = m.send_total();
    if (m.halo == HaloTransport::Nccl) {
      std::vector<int32_t> index;
      index.reserve(static_cast<std::size_t>(sends));
      for (const auto& s : A.send)
        for (const int32_t c : s.send_local) index.push_back(static_cast<int32_t>(m.halo_below + c));
      m.send_index = spx::cuda::to_device(*m.ctx, index, "GPU rank send index");
      m.send_buffer = spx::cuda::DeviceBuffer<T>(static_cast<std::size_t>(sends), "GPU rank send buffer");
    } else {
      m.host_send.resize(static_cast<std::size_t>(sends));
      m.host_halo.resize(A.halo_global.size());
    }
  } catch (const Error& e) {
    error = fmt::format("GPU {}: {}", m.device, e.what());
  }
  detail::agree(A.group, error);
  if (m.halo != HaloTransport::Nccl) return;
  m.team = join_team(A.group, m.device);  // collective; NVLink multicast stays off there
  m.nccl = static_cast<ncclComm_t>(m.team->nccl_comm(A.rank));
}

template <class T>
GpuProduct<T>::~GpuProduct() = default;

template <class T>
void GpuProduct<T>::operator()(std::span<const T> x, std::span<T> y) {
  Impl& m = *impl_;
  const RankMatrix<T>& A = m.A;
  if (static_cast<int64_t>(x.size()) != A.owned || static_cast<int64_t>(y.size()) != A.A.rows)
    throw Error(fmt::format("spmv: rank {} got x of {} and y of {} entries; it owns {} of x and {} rows",
                            A.rank, x.size(), y.size(), A.owned, A.A.rows));
  SPX_CUDA_CHECK(cudaSetDevice(m.device));
  if (!x.empty())
    spx::cuda::copy_to_device_async(*m.ctx, m.x_ext.data() + m.halo_below, x.data(), x.size_bytes());
  if (m.halo == HaloTransport::Nccl)
    m.exchange_nccl();
  else
    m.exchange_mpi(x);
  spx::cuda::spmv(*m.ctx, *m.M, std::span<const T>(m.x_ext.span()), m.y.span());
  if (!y.empty()) spx::cuda::copy_to_host_sync(*m.ctx, y.data(), m.y.data(), y.size_bytes());
  m.ctx->synchronize();
}

template <class T>
int GpuProduct<T>::device() const {
  return impl_->device;
}

template <class T>
HaloTransport GpuProduct<T>::halo() const {
  return impl_->halo;
}

template <class T>
std::string GpuProduct<T>::describe() const {
  const Impl& m = *impl_;
  const plan::Report* report = m.M->spmv_report();
  return fmt::format("GPU {} ({}), halo over {}, kernel {}", m.device, m.ctx->props().name,
                     m.halo == HaloTransport::Nccl ? "NCCL" : "MPI via the host",
                     report ? report->winner().kernel : std::string("unplanned"));
}

template class GpuProduct<float>;
template class GpuProduct<double>;

}  // namespace spx::dist::mpi
#endif  // SPX_HAVE_CUDA
