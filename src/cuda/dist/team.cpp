// The team of GPUs (spx/cuda/dist.hpp): a Context and a halo stream per rank this process drives,
// one NCCL communicator per rank: from ncclCommInitAll when one process drives all of them, from
// ncclCommInitRank on a shared id when each process drives one.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/worker_group.hpp"
#include "cuda/common/check.hpp"
#include "cuda/dist/nccl.hpp"
#include "spx/cuda/device.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::cuda::dist {

namespace detail {
void throw_nccl_error(ncclResult_t status, const char* call, const char* file, int line) {
  const char* last = ncclGetLastError(nullptr);
  throw Error(fmt::format("{} failed at {}:{}: {}{}{}", call, file, line, ncclGetErrorString(status),
                          last && *last ? "; " : "", last ? last : ""));
}
}  // namespace detail

int device_count() { return spx::cuda::device_count(); }

DeviceScope::DeviceScope(int device) {
  SPX_CUDA_CHECK(cudaGetDevice(&previous_));
  SPX_CUDA_CHECK(cudaSetDevice(device));
}
DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

struct Team::Impl {
  int size = 0;              // ranks over all processes
  std::vector<int> members;  // the ranks this process drives (contiguous)
  std::vector<int> devices;  // per member
  std::vector<std::unique_ptr<Context>> contexts;
  std::vector<Stream> halo;
  std::vector<ncclComm_t> comms;
  std::unique_ptr<spx::detail::WorkerGroup> workers;  // one per member, made on first use

  ~Impl() {
    workers.reset();  // no thread may use a communicator being destroyed
    for (std::size_t r = 0; r < comms.size(); ++r) {
      if (!comms[r]) continue;
      cudaSetDevice(devices[r]);
      ncclCommDestroy(comms[r]);
    }
  }
};

namespace {
// Point-to-point messages and 5-double all-reduces never need NVLink SHARP; leave it off unless
// the user turned it on explicitly.
void keep_nvls_off() { setenv("NCCL_NVLS_ENABLE", "0", 0); }

std::vector<int> first_devices(int gpus) {
  if (gpus < 1) throw Error(fmt::format("dist: a team needs at least 1 GPU, not {}", gpus));
  std::vector<int> d(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) d[static_cast<std::size_t>(i)] = i;
  return d;
}
}  // namespace

Team::Team(int gpus) : Team(first_devices(gpus)) {}

Team::Team(const std::vector<int>& devices) : impl_(std::make_unique<Impl>()) {
  const int available = device_count();
  if (devices.empty()) throw Error("dist: a team needs at least 1 GPU");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0 || devices[i] >= available)
      throw Error(fmt::format("dist: GPU {} asked for, but this process sees {} GPU{}", devices[i], available,
                              available == 1 ? "" : "s"));
    for (std::size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i]) throw Error(fmt::format("dist: GPU {} named twice", devices[i]));
  }
  keep_nvls_off();
  int previous = 0;
  SPX_CUDA_CHECK(cudaGetDevice(&previous));
  Impl& m = *impl_;
  m.size = static_cast<int>(devices.size());
  for (int r = 0; r < m.size; ++r) m.members.push_back(r);
  m.devices = devices;
  for (int d : devices) {
    m.contexts.push_back(std::make_unique<Context>(d));  // selects d
    m.halo.push_back(Stream::highest_priority());  // the exchange is not queued behind the product's blocks
  }
  m.comms.assign(devices.size(), nullptr);
  SPX_NCCL_CHECK(ncclCommInitAll(m.comms.data(), static_cast<int>(devices.size()), devices.data()));
  SPX_CUDA_CHECK(cudaSetDevice(previous));
}

Team::Team(const TeamMember& member) : impl_(std::make_unique<Impl>()) {
  if (member.size < 1 || member.rank < 0 || member.rank >= member.size)
    throw Error(fmt::format("dist: rank {} of a team of {}", member.rank, member.size));
  const int available = device_count();
  if (member.device < 0 || member.device >= available)
    throw Error(fmt::format("dist: rank {} asks for GPU {}, but this process sees {} GPU{}", member.rank,
                            member.device, available, available == 1 ? "" : "s"));
  keep_nvls_off();
  int previous = 0;
  SPX_CUDA_CHECK(cudaGetDevice(&previous));
  Impl& m = *impl_;
  m.size = member.size;
  m.members = {member.rank};
  m.devices = {member.device};
  m.contexts.push_back(std::make_unique<Context>(member.device));  // selects it
  m.halo.push_back(Stream::highest_priority());
  m.comms.assign(1, nullptr);
  ncclUniqueId id;
  static_assert(sizeof(id) == std::tuple_size_v<NcclId>);
  std::memcpy(&id, member.id.data(), sizeof(id));
  SPX_NCCL_CHECK(ncclCommInitRank(&m.comms[0], member.size, id, member.rank));
  SPX_CUDA_CHECK(cudaSetDevice(previous));
}

NcclId Team::new_id() {
  ncclUniqueId id;
  SPX_NCCL_CHECK(ncclGetUniqueId(&id));
  NcclId out;
  std::memcpy(out.data(), &id, sizeof(id));
  return out;
}

Team::~Team() = default;

int Team::size() const { return impl_->size; }
const std::vector<int>& Team::members() const { return impl_->members; }
bool Team::drives(int rank) const { return rank >= impl_->members.front() && rank <= impl_->members.back(); }

namespace {
// The member slot of `rank`; spx::Error when this process does not drive it.
std::size_t slot(const Team& team, int rank) {
  if (!team.drives(rank))
    throw Error(fmt::format("dist: rank {} of {} is driven by another process", rank, team.size()));
  return static_cast<std::size_t>(rank - team.lead());
}
}  // namespace

Context& Team::context(int rank) { return *impl_->contexts[slot(*this, rank)]; }
cudaStream_t Team::halo_stream(int rank) { return impl_->halo[slot(*this, rank)].get(); }
void* Team::nccl_comm(int rank) { return impl_->comms[slot(*this, rank)]; }

void Team::synchronize() {
  for (std::size_t i = 0; i < impl_->members.size(); ++i) {
    DeviceScope scope(impl_->devices[i]);
    impl_->halo[i].synchronize();
    impl_->contexts[i]->synchronize();
  }
}

void Team::on_ranks(const std::function<void(int rank)>& f) {
  Impl& m = *impl_;
  if (m.members.size() == 1) {
    DeviceScope scope(m.devices.front());
    f(m.members.front());
    return;
  }
  if (!m.workers)
    m.workers = std::make_unique<spx::detail::WorkerGroup>(static_cast<int>(m.members.size()), [&m](int i) {
      SPX_CUDA_CHECK(cudaSetDevice(m.devices[static_cast<std::size_t>(i)]));
    });
  m.workers->run([&](int i) { f(m.members[static_cast<std::size_t>(i)]); });
}

std::string Team::summary() const {
  const Impl& m = *impl_;
  int version = 0;
  ncclGetVersion(&version);
  std::string s = fmt::format("{} × {}, NCCL {}.{}.{}", m.size, m.contexts.front()->props().name,
                              version / 10000, version / 100 % 100, version % 100);
  if (m.members.size() < static_cast<std::size_t>(m.size))
    s += fmt::format(", rank {} on GPU {} (one process per rank)", m.members.front(), m.devices.front());
  std::string peers;
  for (std::size_t i = 0; i < m.devices.size(); ++i)
    for (std::size_t j = i + 1; j < m.devices.size(); ++j) {
      int can = 0;
      cudaDeviceCanAccessPeer(&can, m.devices[i], m.devices[j]);
      peers += fmt::format("{}{}{}{}", peers.empty() ? "" : " ", m.devices[i], can ? "↔" : "✗", m.devices[j]);
    }
  if (!peers.empty()) s += ", peer access " + peers;
  return s;
}

}  // namespace spx::cuda::dist
