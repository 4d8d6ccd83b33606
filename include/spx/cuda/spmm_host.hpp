// Host-resident SpMM (FastSpMM*, FastSpMM; Ortega et al., Algorithms 2 and 3; docs/spmm-streaming.md):
// C = alpha*A*B + beta*C with A already on the device and B, C in host memory, processed in column
// chunks of L_GPU columns so that B and C never need to fit on the device at once.
//
//   streams == 1  FastSpMM* (Algorithm 2): copy B_i in, multiply, copy C_i out, chunk after chunk.
//   streams >= 2  FastSpMM  (Algorithm 3): `streams` buffer sets (lanes) in flight, one copy stream
//                 per direction, kernels in order on ctx.stream(), joined by events, so H2D(i+1),
//                 the kernel of chunk i and D2H(i-1) overlap and PCIe runs both directions at once.
//
// B and C may be row- or column-major with any valid ld, and need not share a layout. A column chunk
// of a row-major matrix is strided; it lands tight on the device (ld = chunk width) either through a
// host-side pack into pinned staging, or straight from the (registered) user memory by
// cudaMemcpy2DAsync. Errors: size mismatches, a device-memory budget too small for one column, and
// failed allocations are spx::Error one-liners naming the bytes asked and free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/matrix.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {

// How the host copies reach page-locked memory (a DMA engine can only read/write pinned pages).
enum class HostTransfer {
  Auto,        // Direct when B and C are already pinned, else the measured default (Staged)
  Staged,      // pack/unpack each chunk into pinned staging buffers (OpenMP host memcpy), reused
  Registered,  // cudaHostRegister B and C for the call (page pinning is paid once, then 2D copies)
  Direct,      // copy from the user's memory as it is: right when it is pinned; pageable memory makes
               // the driver stage synchronously, so nothing overlaps (kept to measure that)
};
const char* to_string(HostTransfer transfer);
HostTransfer parse_host_transfer(const std::string& text);  // "auto", "staged", "registered", "direct"

// cudaHostRegister of a host range for the object's lifetime (a no-op for memory already pinned):
// pin B and C once when the same matrices go through many calls, and HostTransfer::Auto then copies
// straight from them. Throws spx::Error when the system refuses to pin the range.
class PinnedRegion {
 public:
  PinnedRegion(const void* ptr, std::size_t bytes);
  ~PinnedRegion();
  PinnedRegion(const PinnedRegion&) = delete;
  PinnedRegion& operator=(const PinnedRegion&) = delete;

 private:
  void* ptr_ = nullptr;
};

struct SpmmHostOptions {
  int streams = 2;         // lanes: 1 = FastSpMM* (Algorithm 2); >= 2 = FastSpMM (Algorithm 3), at most 16
  int64_t chunk_cols = 0;  // L_GPU; 0 = sized from free device memory (see resolve_chunk_cols)
  // Cap on the device memory this product may occupy, A included (0 = none): emulates the paper's
  // small cards on an 80 GB GPU, so out-of-core chunking is exercised.
  std::size_t device_memory_limit = 0;
  HostTransfer transfer = HostTransfer::Auto;
};

// The paper's Table 4 columns for one call, plus what the overlapped version needs to be read.
// Times in ms. Every stage is timed with CUDA events on its own stream:
//   processing_ms     PT: sum of the kernel times (each chunk's kernels, event to event)
//   h2d_ms, d2h_ms    the copies' times, each direction summed over chunks
//   communication_ms  CT = h2d_ms + d2h_ms (busy time of the PCIe copies, overlapped or not)
//   staging_ms        host time spent packing/unpacking pinned staging, or registering B and C
//   runtime_ms        Runt: wall clock (steady_clock) from the first copy enqueued to the last
//                     chunk of C in the user's memory: staging and registration included, the
//                     allocation of the reusable chunk buffers not (that is setup_ms)
//   percent_communication = 100 * CT / runtime (the paper's "% Com"; over 100 means the copies
//                     overlapped each other and the kernels)
//   exposed_ms        runtime - PT: the time the GPU's SMs were not multiplying
struct SpmmHostReport {
  int64_t chunks = 0;
  int64_t chunk_cols = 0;  // L_GPU as run
  int streams = 0;
  HostTransfer transfer = HostTransfer::Auto;  // as resolved
  double processing_ms = 0;
  double h2d_ms = 0;
  double d2h_ms = 0;
  double communication_ms = 0;
  double staging_ms = 0;
  double setup_ms = 0;  // allocating the device chunk buffers and pinned staging (reusable)
  double runtime_ms = 0;
  double percent_communication = 0;
  double exposed_ms = 0;
  uint64_t h2d_bytes = 0;        // B chunks, plus C chunks when beta != 0
  uint64_t d2h_bytes = 0;        // C chunks
  std::size_t device_bytes = 0;  // chunk buffers allocated on the device (all lanes)
  std::size_t pinned_bytes = 0;  // staging buffers allocated on the host (all lanes)
};
std::string to_string(const SpmmHostReport& report);  // one line for logs

// Pinned host<->device bandwidth (GB/s = 1e9 B/s): each direction alone and both at once.
struct PcieBandwidth {
  std::size_t bytes = 0;
  double h2d_gbs = 0;             // alone
  double d2h_gbs = 0;             // alone
  double h2d_concurrent_gbs = 0;  // while a D2H of the same size runs on another stream
  double d2h_concurrent_gbs = 0;
};
// bytes == 0: 256 MiB per direction (an eighth of free device memory if less). Medians of 5.
PcieBandwidth measure_pcie_bandwidth(Context& ctx, std::size_t bytes = 0);

// The PCIe floor of a run: the copies at the measured pinned bandwidth. Serialized (streams == 1):
// h2d/bw_h2d + d2h/bw_d2h. Overlapped: the slower direction at the concurrent bandwidths,
// max(h2d/bw_h2d_conc, d2h/bw_d2h_conc). In ms.
double pcie_bound_ms(const SpmmHostReport& report, const PcieBandwidth& bw);

// The L_GPU a call would use. chunk_cols > 0 is taken as given (clamped to L). Otherwise the budget
// is min(free device memory - margin, device_memory_limit - a_device_bytes), the margin being
// max(256 MiB, 2% of the device); one column costs streams * (a_rows + a_cols) * sizeof(T), so
// L_GPU = min(L, budget / that). With streams >= 2 it is further capped at round_up(ceil(L / 16), 8)
// (at least 8), so the pipeline has about 16 chunks to overlap (one chunk leaves nothing to hide). Throws
// spx::Error when the budget cannot hold one column.
int64_t resolve_chunk_cols(const Context& ctx, int64_t a_rows, int64_t a_cols, std::size_t a_device_bytes,
                           std::size_t value_bytes, int64_t dense_cols, const SpmmHostOptions& options);

// The chunk product: enqueue C_chunk = alpha*A*B_chunk + beta*C_chunk on ctx.stream() for the given
// device views (B_chunk is a_cols x w, C_chunk a_rows x w, w <= L_GPU; layouts as the host's).
template <class T>
using ChunkProduct = std::function<void(DenseView<const T> B_chunk, DenseView<T> C_chunk)>;

// The engine: any chunk product (our kernels, SetSpMVs, ...). reads_c: beta != 0, so C chunks are
// copied in as well as out. a_device_bytes: A's footprint, counted in device_memory_limit.
template <class T>
SpmmHostReport spmm_host(Context& ctx, int64_t a_rows, int64_t a_cols, std::size_t a_device_bytes,
                         const ChunkProduct<T>& product, bool reads_c, const Dense<T>& B, Dense<T>& C,
                         const SpmmHostOptions& options = {});

// FastSpMM on ELLPACK-R: SSFastSpMM (spmm_ellr_t) per chunk with spmm_ellr_rule(stats, L_GPU).
template <class T, class I>
SpmmHostReport spmm_host(Context& ctx, const DeviceEllR<T, I>& A, const MatrixStats& stats, const Dense<T>& B,
                         Dense<T>& C, const SpmmHostOptions& options = {}, T alpha = T{1}, T beta = T{0});
// The same with the CSR SpMM (spmm_csr with spmm_csr_rule), for matrices spmm_format_rule sends to CSR.
template <class T, class I>
SpmmHostReport spmm_host(Context& ctx, const DeviceCsr<T, I>& A, const MatrixStats& stats, const Dense<T>& B,
                         Dense<T>& C, const SpmmHostOptions& options = {}, T alpha = T{1}, T beta = T{0});

}  // namespace spx::cuda
