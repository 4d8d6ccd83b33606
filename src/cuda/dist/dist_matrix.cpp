// A matrix split over a team's GPUs and its products (spx/cuda/dist.hpp). Per rank this process
// drives: the local part and the remote pieces as front-door matrices, the send lists of the halo
// pattern, and the buffers the exchange fills. A rank's product, on the thread that drives it: the
// packing on the halo stream (after x is ready); its messages on the halo stream, one NCCL group
// per halo chunk; the local part on the compute stream; then each remote piece, once the chunk
// that brings its halo entries is in.
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/threads.hpp"
#include "cuda/common/check.hpp"
#include "cuda/dist/halo_buffer.hpp"
#include "cuda/dist/halo_kernels.hpp"
#include "cuda/dist/nccl.hpp"
#include "cuda/dist/rank_product.hpp"
#include "spx/cuda/dist.hpp"
#include "spx/cuda/stream.hpp"
#include "spx/error.hpp"

namespace spx::cuda::dist {
namespace {

// A send or receive of a product's halo, moved in `chunks` chunks: chunk k is its entries
// [chunk_begin(count, k), chunk_begin(count, k + 1)), which both ends compute alike.
struct Message {
  int peer = 0;
  int64_t offset = 0;  // a send: where its entries start in the send buffer
  int64_t count = 0;
  std::vector<int64_t> chunk_at;  // a receive: where each chunk lands in the halo buffer
};

int64_t chunk_begin(int64_t count, int k, int chunks) { return count * k / chunks; }

// Where the halo entries land when they move in `chunks` chunks: chunk-major (every sender's
// chunk 0, then every sender's chunk 1, ...), so that the entries remote piece k multiplies are
// the contiguous range [piece_begin[k], piece_begin[k + 1]). `in`: the messages to one rank, whose
// entries the split lays out back to back in sender order (recv_offset): with one chunk this is
// that layout, which the unsplit remote part's columns index.
struct ChunkLayout {
  std::vector<int64_t> piece_begin;            // chunks + 1 bounds
  std::vector<std::vector<int64_t>> chunk_at;  // per message of `in`, per chunk
};

ChunkLayout chunk_layout(const std::vector<const spx::dist::HaloMessage*>& in, int chunks) {
  ChunkLayout c;
  c.piece_begin.assign(static_cast<std::size_t>(chunks) + 1, 0);
  c.chunk_at.assign(in.size(), std::vector<int64_t>(static_cast<std::size_t>(chunks)));
  int64_t at = 0;
  for (int k = 0; k < chunks; ++k) {
    c.piece_begin[static_cast<std::size_t>(k)] = at;
    for (std::size_t m = 0; m < in.size(); ++m) {
      c.chunk_at[m][static_cast<std::size_t>(k)] = at;
      at += chunk_begin(in[m]->count(), k + 1, chunks) - chunk_begin(in[m]->count(), k, chunks);
    }
  }
  c.piece_begin.back() = at;
  return c;
}

// The messages to rank r with entries, in the split's order (by sender).
std::vector<const spx::dist::HaloMessage*> received_by(int r,
                                                       const std::vector<spx::dist::HaloMessage>& messages) {
  std::vector<const spx::dist::HaloMessage*> in;
  for (const auto& msg : messages)
    if (msg.to == r && msg.count() > 0) in.push_back(&msg);
  return in;
}

// Rows [row_begin, row_begin + A->rows()) of a rank's local part (spx::dist::LocalSlice).
template <class T>
struct Slice {
  int64_t row_begin = 0;
  std::unique_ptr<SparseMatrix<T>> A;
};

// The share of the remote part whose x entries chunk `chunk` of the halo brings: the halo buffer's
// entries [halo_offset, halo_offset + A->cols()).
template <class T>
struct RemotePiece {
  int chunk = 0;
  int64_t halo_offset = 0;
  std::unique_ptr<SparseMatrix<T>> A;
  bool compressed = false;
  int64_t rows = 0;
  DeviceBuffer<int32_t> row_map;  // compressed row i is the rank's row map[i]
  DeviceBuffer<T> out;            // the compressed product, before it is added into y
  std::optional<Event> arrived;   // recorded on the halo stream after its chunk
};

template <class T>
struct Rank {
  int device = 0;
  int64_t rows = 0, halo = 0;
  std::vector<Slice<T>> local;         // in row order, covering every row
  bool wide_local = false;             // the split's slices joined into one matrix of 64-bit offsets
  std::vector<RemotePiece<T>> remote;  // in chunk order
  std::vector<Message> sends, recvs;
  int64_t send_total = 0;
  DeviceBuffer<int32_t> send_index;             // every send list, concatenated in `sends` order
  int64_t capacity = 0;                         // columns the buffers below hold
  detail::HaloBuffer send_buffer, halo_buffer;  // registered with the rank's communicator
  std::optional<Event> x_ready, halo_done;
  double upload_seconds = 0, plan_seconds = 0;  // of the setup (host wall time on the rank's thread)

  bool exchanges() const { return send_total > 0 || !recvs.empty(); }
  T* sent() const { return static_cast<T*>(send_buffer.data()); }
  T* received() const { return static_cast<T*>(halo_buffer.data()); }
};

// Nonzeros per block when a sliced local part is assembled on the device with 64-bit offsets: the
// host holds one block of 64-bit indices at a time.
constexpr int64_t kWideBlockNnz = int64_t{1} << 24;

// Rows [begin, end) of a rank's local part, across its slices, with 64-bit indices
// (upload_row_blocks' blocks).
template <class T>
Csr<T, int64_t> rows_of_slices(const std::vector<spx::dist::LocalSlice<T>>& slices, int64_t cols,
                               int64_t begin, int64_t end) {
  Csr<T, int64_t> B(end - begin, cols);
  for (const auto& slice : slices) {
    const Csr<T, int32_t>& S = slice.A;
    const int64_t first = std::max(begin, slice.row_begin), last = std::min(end, slice.row_begin + S.rows);
    for (int64_t r = first; r < last; ++r) {
      const auto i = static_cast<std::size_t>(r - slice.row_begin);
      for (auto k = static_cast<std::size_t>(S.row_ptr[i]); k < static_cast<std::size_t>(S.row_ptr[i + 1]);
           ++k) {
        B.col_idx.push_back(S.col_idx[k]);
        B.values.push_back(S.values[k]);
      }
      B.row_ptr[static_cast<std::size_t>(r - begin) + 1] = static_cast<int64_t>(B.col_idx.size());
    }
  }
  return B;
}

// The rows of R that hold entries.
template <class T>
std::vector<int32_t> nonempty_rows(const Csr<T, int32_t>& R) {
  std::vector<int32_t> kept;
  for (int32_t i = 0; i < R.rows; ++i)
    if (R.row_ptr[static_cast<std::size_t>(i) + 1] > R.row_ptr[static_cast<std::size_t>(i)])
      kept.push_back(i);
  return kept;
}

// R's entries whose column c, moved to where[c], falls in [begin, end), with columns where[c] − begin:
// one remote piece, over the halo entries its chunk brings.
template <class T>
Csr<T, int32_t> column_range(const Csr<T, int32_t>& R, const std::vector<int32_t>& where, int64_t begin,
                             int64_t end) {
  Csr<T, int32_t> C(R.rows, static_cast<int32_t>(end - begin));
  for (int32_t i = 0; i < R.rows; ++i) {
    for (auto k = static_cast<std::size_t>(R.row_ptr[static_cast<std::size_t>(i)]);
         k < static_cast<std::size_t>(R.row_ptr[static_cast<std::size_t>(i) + 1]); ++k) {
      const int32_t c = where[static_cast<std::size_t>(R.col_idx[k])];
      if (c >= begin && c < end) {
        C.col_idx.push_back(static_cast<int32_t>(c - begin));
        C.values.push_back(R.values[k]);
      }
    }
    C.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<int32_t>(C.col_idx.size());
  }
  return C;
}

// R restricted to the rows `kept` (all of its nonempty rows, in order).
template <class T>
Csr<T, int32_t> keep_rows(const Csr<T, int32_t>& R, const std::vector<int32_t>& kept) {
  Csr<T, int32_t> C(static_cast<int32_t>(kept.size()), R.cols);
  C.col_idx = R.col_idx;
  C.values = R.values;
  for (std::size_t k = 0; k < kept.size(); ++k)
    C.row_ptr[k + 1] = R.row_ptr[static_cast<std::size_t>(kept[k]) + 1];
  return C;
}

}  // namespace

template <class T>
struct DistSparseMatrix<T>::Impl {
  Team& team;
  spx::dist::Partition row_partition, col_partition;
  spx::dist::DistStats stats;
  DistOptions options;
  int chunks = 1;  // DistOptions::halo_chunks, resolved
  std::vector<Rank<T>> ranks;

  Impl(Team& t) : team(t) {}

  // Rank r's objects; spx::Error for a rank out of range or driven by another process.
  Rank<T>& driven(int r) {
    if (r < 0 || r >= team.size() || !team.drives(r))
      throw Error(fmt::format("dist: rank {} of {} is not one this process drives", r, team.size()));
    return ranks[static_cast<std::size_t>(r)];
  }
  const Rank<T>& driven(int r) const { return const_cast<Impl*>(this)->driven(r); }

  // Send, halo and remote-output buffers for `cols` columns (grown, never shrunk).
  void reserve(int64_t L) {
    const auto& members = team.members();
    if (std::all_of(members.begin(), members.end(),
                    [&](int r) { return ranks[static_cast<std::size_t>(r)].capacity >= L; }))
      return;
    team.synchronize();  // the old buffers may still be in use
    for (int r : members) {
      Rank<T>& k = ranks[static_cast<std::size_t>(r)];
      if (k.capacity >= L) continue;
      DeviceScope scope(k.device);
      void* comm = options.register_halo_buffers ? team.nccl_comm(r) : nullptr;
      k.send_buffer = {};  // the old ones go first: they may be most of the free memory
      k.halo_buffer = {};
      k.send_buffer = detail::HaloBuffer(
          checked_bytes(static_cast<std::size_t>(k.send_total * L), sizeof(T), "halo send buffer"), comm,
          "halo send buffer");
      k.halo_buffer = detail::HaloBuffer(
          checked_bytes(static_cast<std::size_t>(k.halo * L), sizeof(T), "halo buffer"), comm, "halo buffer");
      for (RemotePiece<T>& p : k.remote)
        p.out =
            DeviceBuffer<T>(static_cast<std::size_t>(p.compressed ? p.rows * L : 0), "remote part output");
      k.capacity = L;
    }
  }

  // Every driven rank's share of Y = alpha·A·X + beta·Y, each rank enqueued by a thread of its own.
  void product(const DistVector<T>& X, DistVector<T>& Y, int64_t L, T alpha, T beta, Phases phases) {
    reserve(L);
    team.on_ranks([&](int r) { rank_product(r, X, Y, L, alpha, beta, phases); });
  }
  // Rank r's share, on the thread that drives r (reserve(L) done).
  void rank_product(int r, const DistVector<T>& X, DistVector<T>& Y, int64_t L, T alpha, T beta,
                    Phases phases);
  // The driven ranks' sends and receives, and their send lists on the device.
  void set_halo_pattern(const std::vector<spx::dist::HaloMessage>& messages);

  // A remote piece on the GPU: S holds its entries over the halo columns from halo_offset on.
  RemotePiece<T> make_piece(Context& ctx, Csr<T, int32_t> S, int chunk, int64_t halo_offset) {
    RemotePiece<T> p;
    p.chunk = chunk, p.halo_offset = halo_offset;
    const std::vector<int32_t> kept = nonempty_rows(S);
    p.compressed =
        static_cast<double>(kept.size()) <= options.compress_remote_below * static_cast<double>(S.rows);
    p.rows = p.compressed ? static_cast<int64_t>(kept.size()) : S.rows;
    if (p.compressed) {
      p.row_map = to_device(ctx, kept, "remote row map");
      p.A = std::make_unique<SparseMatrix<T>>(ctx, keep_rows(S, kept));
    } else {
      p.A = std::make_unique<SparseMatrix<T>>(ctx, std::move(S));
    }
    p.arrived.emplace();
    return p;
  }

  // Rank r's matrices from its part (whose slices move into them), planned. `messages`: the split's
  // (those r receives say where its halo entries land, chunk by chunk).
  void setup_rank(int r, spx::dist::RankPart<T>& part, const std::vector<spx::dist::HaloMessage>& messages) {
    Rank<T>& k = ranks[static_cast<std::size_t>(r)];
    Context& ctx = team.context(r);
    k.device = ctx.device();
    DeviceScope scope(k.device);
    const auto t0 = std::chrono::steady_clock::now();
    k.rows = part.row_end - part.row_begin;
    k.halo = static_cast<int64_t>(part.halo_global.size());
    // Every part is on the GPU before any is planned: the planner tries formats within the memory
    // then left free, which must leave room for the parts still to come.
    const int64_t local_nnz = part.local_nnz();
    if (part.local.size() > 1 && local_nnz > options.wide_local_above) {
      // One matrix with 64-bit row offsets (the 64-bit kernels) rather than int32 slices run one
      // after another: assembled on the device block by block from the host's slices.
      const int64_t cols = part.col_end - part.col_begin;
      const int64_t per_block =
          std::max<int64_t>(1, k.rows * kWideBlockNnz / std::max<int64_t>(1, local_nnz));
      WideDeviceCsr<T> wide = upload_row_blocks<T>(
          ctx, k.rows, cols, local_nnz, per_block,
          [&part, cols](int64_t begin, int64_t end) { return rows_of_slices(part.local, cols, begin, end); });
      part.local.clear();
      k.local.push_back({0, std::make_unique<SparseMatrix<T>>(ctx, std::move(wide))});
      k.wide_local = true;
    }
    for (auto& slice : part.local)
      k.local.push_back({slice.row_begin, std::make_unique<SparseMatrix<T>>(ctx, std::move(slice.A))});
    if (part.remote.nnz() > 0 && chunks == 1) {
      k.remote.push_back(make_piece(ctx, std::move(part.remote), 0, 0));
    } else if (part.remote.nnz() > 0) {
      // Halo entry h lands at where[h] (chunk-major); piece c multiplies chunk c's entries.
      const auto in = received_by(r, messages);
      const ChunkLayout layout = chunk_layout(in, chunks);
      std::vector<int32_t> where(static_cast<std::size_t>(k.halo));
      for (std::size_t m = 0; m < in.size(); ++m)
        for (int c = 0; c < chunks; ++c) {
          const int64_t first = chunk_begin(in[m]->count(), c, chunks);
          for (int64_t j = first; j < chunk_begin(in[m]->count(), c + 1, chunks); ++j)
            where[static_cast<std::size_t>(in[m]->recv_offset + j)] =
                static_cast<int32_t>(layout.chunk_at[m][static_cast<std::size_t>(c)] + j - first);
        }
      for (int c = 0; c < chunks; ++c) {
        const int64_t begin = layout.piece_begin[static_cast<std::size_t>(c)],
                      end = layout.piece_begin[static_cast<std::size_t>(c) + 1];
        Csr<T, int32_t> S = column_range(part.remote, where, begin, end);
        if (S.nnz() > 0) k.remote.push_back(make_piece(ctx, std::move(S), c, begin));
      }
    }
    part.remote = Csr<T, int32_t>{};
    const auto t1 = std::chrono::steady_clock::now();
    for (auto& slice : k.local) slice.A->plan_spmv(options.plan);
    for (RemotePiece<T>& p : k.remote) p.A->plan_spmv(options.plan);
    k.x_ready.emplace();
    k.halo_done.emplace();
    k.upload_seconds = std::chrono::duration<double>(t1 - t0).count();
    k.plan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  }

  // Rank r's messages of chunk c, L values per entry, on its halo stream (a message smaller than the
  // chunk count has empty chunks: nothing is posted for them, at either end).
  void enqueue_messages(int r, int c, int64_t L) {
    Rank<T>& k = ranks[static_cast<std::size_t>(r)];
    auto comm = static_cast<ncclComm_t>(team.nccl_comm(r));
    for (const Message& s : k.sends) {
      const int64_t begin = chunk_begin(s.count, c, chunks), n = chunk_begin(s.count, c + 1, chunks) - begin;
      if (n > 0)
        SPX_NCCL_CHECK(ncclSend(k.sent() + (s.offset + begin) * L, static_cast<std::size_t>(n * L),
                                detail::nccl_type<T>(), s.peer, comm, team.halo_stream(r)));
    }
    for (const Message& v : k.recvs) {
      const int64_t n = chunk_begin(v.count, c + 1, chunks) - chunk_begin(v.count, c, chunks);
      if (n > 0)
        SPX_NCCL_CHECK(ncclRecv(k.received() + v.chunk_at[static_cast<std::size_t>(c)] * L,
                                static_cast<std::size_t>(n * L), detail::nccl_type<T>(), v.peer, comm,
                                team.halo_stream(r)));
    }
  }

  // The given ranks' messages, one NCCL group per chunk (every rank this process drives from one
  // thread, or one rank on its own thread); after each chunk, the `arrived` event of the remote
  // piece it feeds; after the last, halo_done (the send buffer is free again).
  void exchange(std::span<const int> which, int64_t L) {
    if (team.size() < 2) return;
    for (int c = 0; c < chunks; ++c) {
      SPX_NCCL_CHECK(ncclGroupStart());
      for (int r : which) enqueue_messages(r, c, L);
      SPX_NCCL_CHECK(ncclGroupEnd());
      for (int r : which)
        for (RemotePiece<T>& p : ranks[static_cast<std::size_t>(r)].remote)
          if (p.chunk == c) p.arrived->record(team.halo_stream(r));
    }
    for (int r : which) ranks[static_cast<std::size_t>(r)].halo_done->record(team.halo_stream(r));
  }

  // One exchange of the send buffers' (meaningless) contents, waited for: NCCL connects a pair of
  // ranks on its first message (milliseconds per peer), which belongs to setup, not to the first
  // product or solve.
  void exchange_once() {
    exchange(team.members(), 1);
    team.synchronize();
  }
};

template <class T>
DistSparseMatrix<T>::DistSparseMatrix(Team& team, spx::dist::DistMatrix<T> D, const DistOptions& options)
    : impl_(std::make_unique<Impl>(team)) {
  Impl& m = *impl_;
  if (D.ranks() != team.size())
    throw Error(
        fmt::format("dist: the matrix is split over {} ranks, the team has {} GPUs", D.ranks(), team.size()));
  m.row_partition = D.row_partition;
  m.col_partition = D.col_partition;
  m.stats = D.stats ? *D.stats : spx::dist::statistics(D);
  m.options = options;
  if (options.halo_chunks < 0 || options.max_halo_chunks < 1 || !(options.halo_chunk_bytes > 0))
    throw Error(
        fmt::format("dist: halo_chunks {} (0: automatic), max_halo_chunks {} (>= 1) and "
                    "halo_chunk_bytes {} (> 0) are out of range",
                    options.halo_chunks, options.max_halo_chunks, options.halo_chunk_bytes));
  // From the split's statistics, which every process holds whole: the same choice on every rank.
  const double busiest_halo =
      static_cast<double>(m.stats.max_rank_recv_bytes_f64) * static_cast<double>(sizeof(T)) / sizeof(double);
  m.chunks = options.halo_chunks > 0
                 ? options.halo_chunks
                 : static_cast<int>(std::clamp(std::floor(busiest_halo / options.halo_chunk_bytes), 1.0,
                                               static_cast<double>(options.max_halo_chunks)));
  m.ranks.resize(static_cast<std::size_t>(team.size()));
  for (int r = 0; r < team.size(); ++r) {
    const auto& part = D.parts[static_cast<std::size_t>(r)];
    const int64_t rows = part.row_end - part.row_begin, owned = part.col_end - part.col_begin;
    if (rows < 1 || owned < 1)
      throw Error(
          fmt::format("dist: rank {} holds {} rows and owns {} entries of x; split the {} × {} matrix "
                      "over fewer GPUs",
                      r, rows, owned, D.rows, D.cols));
  }
  // One host thread per rank: checking, uploading and planning a rank's parts (seconds for parts of
  // billions of nonzeros) overlap across the GPUs. The slices move into their matrices, so a
  // matrix passed as an rvalue is never copied on the host.
  const std::vector<int>& members = team.members();
  std::string error;
  try {
    spx::detail::on_threads(static_cast<int>(members.size()), [&](int i) {
      const int r = members[static_cast<std::size_t>(i)];
      m.setup_rank(r, D.parts[static_cast<std::size_t>(r)], D.messages);
    });
    m.set_halo_pattern(D.messages);
    m.reserve(1);
  } catch (const Error& e) {
    if (!options.agree) throw;
    error = e.what();
  }
  if (options.agree) options.agree(error);
  m.exchange_once();
}

template <class T>
void DistSparseMatrix<T>::Impl::set_halo_pattern(const std::vector<spx::dist::HaloMessage>& messages) {
  // `messages` sorted by (to, from); receives land chunk by chunk where chunk_layout says, sends are
  // packed back to back in the order of the receiving rank. Only the driven ranks' ends are kept.
  std::vector<std::vector<int32_t>> send_lists(static_cast<std::size_t>(team.size()));
  for (int r : team.members()) {
    const auto in = received_by(r, messages);
    ChunkLayout layout = chunk_layout(in, chunks);
    for (std::size_t m = 0; m < in.size(); ++m)
      ranks[static_cast<std::size_t>(r)].recvs.push_back(
          {in[m]->from, 0, in[m]->count(), std::move(layout.chunk_at[m])});
  }
  for (const auto& msg : messages) {
    if (msg.count() == 0 || !team.drives(msg.from)) continue;
    Rank<T>& from = ranks[static_cast<std::size_t>(msg.from)];
    from.sends.push_back({msg.to, from.send_total, msg.count(), {}});
    from.send_total += msg.count();
    auto& list = send_lists[static_cast<std::size_t>(msg.from)];
    list.insert(list.end(), msg.send_local.begin(), msg.send_local.end());
  }
  for (int r : team.members()) {
    Rank<T>& k = ranks[static_cast<std::size_t>(r)];
    DeviceScope scope(k.device);
    k.send_index = to_device(team.context(r), send_lists[static_cast<std::size_t>(r)], "halo send index");
  }
}

template <class T>
DistSparseMatrix<T>::~DistSparseMatrix() = default;
template <class T>
DistSparseMatrix<T>::DistSparseMatrix(DistSparseMatrix&&) noexcept = default;
template <class T>
DistSparseMatrix<T>& DistSparseMatrix<T>::operator=(DistSparseMatrix&&) noexcept = default;

template <class T>
int64_t DistSparseMatrix<T>::rows() const {
  return impl_->row_partition.size();
}
template <class T>
int64_t DistSparseMatrix<T>::cols() const {
  return impl_->col_partition.size();
}
template <class T>
int64_t DistSparseMatrix<T>::nnz() const {
  return impl_->stats.nnz;
}
template <class T>
Team& DistSparseMatrix<T>::team() {
  return impl_->team;
}
template <class T>
const spx::dist::Partition& DistSparseMatrix<T>::row_partition() const {
  return impl_->row_partition;
}
template <class T>
const spx::dist::Partition& DistSparseMatrix<T>::col_partition() const {
  return impl_->col_partition;
}
template <class T>
const spx::dist::DistStats& DistSparseMatrix<T>::stats() const {
  return impl_->stats;
}
template <class T>
int DistSparseMatrix<T>::local_slices(int rank) const {
  return static_cast<int>(impl_->driven(rank).local.size());
}
template <class T>
SparseMatrix<T>& DistSparseMatrix<T>::local(int rank, int slice) {
  return *impl_->driven(rank).local.at(static_cast<std::size_t>(slice)).A;
}
template <class T>
int DistSparseMatrix<T>::remote_pieces(int rank) const {
  return static_cast<int>(impl_->driven(rank).remote.size());
}
template <class T>
SparseMatrix<T>* DistSparseMatrix<T>::remote(int rank, int piece) {
  auto& pieces = impl_->driven(rank).remote;
  return piece >= 0 && static_cast<std::size_t>(piece) < pieces.size()
             ? pieces[static_cast<std::size_t>(piece)].A.get()
             : nullptr;
}
namespace {
template <class Pieces>
const auto& piece_at(const Pieces& pieces, int rank, int piece) {
  if (piece < 0 || static_cast<std::size_t>(piece) >= pieces.size())
    throw Error(fmt::format("dist: rank {} has {} remote piece{}, not a piece {}", rank, pieces.size(),
                            pieces.size() == 1 ? "" : "s", piece));
  return pieces[static_cast<std::size_t>(piece)];
}
}  // namespace
template <class T>
int64_t DistSparseMatrix<T>::remote_rows(int rank, int piece) const {
  const auto& pieces = impl_->driven(rank).remote;
  return pieces.empty() && piece == 0 ? 0 : piece_at(pieces, rank, piece).rows;
}
template <class T>
bool DistSparseMatrix<T>::remote_compressed(int rank, int piece) const {
  const auto& pieces = impl_->driven(rank).remote;
  return pieces.empty() && piece == 0 ? false : piece_at(pieces, rank, piece).compressed;
}
template <class T>
int DistSparseMatrix<T>::halo_chunks() const {
  return impl_->chunks;
}

template <class T>
std::string DistSparseMatrix<T>::setup_summary() const {
  double upload = 0, plan = 0;
  for (int r : impl_->team.members()) {
    const Rank<T>& k = impl_->ranks[static_cast<std::size_t>(r)];
    upload = std::max(upload, k.upload_seconds), plan = std::max(plan, k.plan_seconds);
  }
  return fmt::format("slowest rank: upload {:.1f} s, plan {:.1f} s", upload, plan);
}

template <class T>
std::string DistSparseMatrix<T>::describe() const {
  const Impl& m = *impl_;
  std::string s;
  for (int rank : m.team.members()) {
    const auto r = static_cast<std::size_t>(rank);
    const Rank<T>& k = m.ranks[r];
    const auto& st = m.stats.per_rank[r];
    const auto kernel = [](const SparseMatrix<T>& A) {
      const plan::Report* rep = A.spmv_report();
      return rep ? fmt::format("{} ({})", rep->winner().kernel, rep->winner().owner)
                 : std::string("unplanned");
    };
    s += fmt::format(
        "rank {} (GPU {}): {} rows, {} nonzeros ({} local, {} remote), halo in {} / out {}; "
        "local {}",
        r, k.device, k.rows, st.nnz, st.local_nnz, st.remote_nnz, st.halo_recv, st.halo_send,
        kernel(*k.local.front().A));
    if (k.local.size() > 1)
      s += fmt::format(" (slice 1 of {}: its rows hold more than int32_t indexes)", k.local.size());
    if (k.wide_local) s += " (64-bit row offsets: its rows hold more than int32_t indexes)";
    for (const RemotePiece<T>& p : k.remote)
      s += fmt::format(", remote{} {} on {} rows{}",
                       k.remote.size() > 1 ? fmt::format(" chunk {}", p.chunk) : std::string(), kernel(*p.A),
                       p.rows, p.compressed ? " (compressed)" : "");
    s += "\n";
  }
  return s;
}

namespace {
bool has(Phases all, Phases p) { return (static_cast<unsigned>(all) & static_cast<unsigned>(p)) != 0; }

template <class T>
void part_product(Context& ctx, SparseMatrix<T>& A, const T* x, T* y, int64_t L, T alpha, T beta) {
  const auto n_in = static_cast<std::size_t>(A.cols()), n_out = static_cast<std::size_t>(A.rows());
  if (L == 1)
    spmv(ctx, A, std::span<const T>(x, n_in), std::span<T>(y, n_out), alpha, beta);
  else
    spmm(ctx, A, DenseView<const T>{x, A.cols(), L, L, Layout::RowMajor},
         DenseView<T>{y, A.rows(), L, L, Layout::RowMajor}, alpha, beta);
}
}  // namespace

template <class T>
void DistSparseMatrix<T>::Impl::rank_product(int r, const DistVector<T>& X, DistVector<T>& Y, int64_t L,
                                             T alpha, T beta, Phases phases) {
  Rank<T>& k = ranks[static_cast<std::size_t>(r)];
  Context& ctx = team.context(r);
  DeviceScope scope(k.device);
  // 1. Pack what the rank sends (halo stream, after x is ready) and post its messages. They are
  // enqueued before the local product and the halo stream has the greatest priority, so their
  // kernels take SMs as soon as any free up instead of queueing behind every block of the product.
  const bool halo = has(phases, Phases::Halo) && k.exchanges();
  if (halo) {
    k.x_ready->record(ctx.stream());
    SPX_CUDA_CHECK(cudaStreamWaitEvent(team.halo_stream(r), k.x_ready->get(), 0));
    detail::launch_pack<T>(team.halo_stream(r), k.send_total, L, k.send_index.data(), X.part(r).data(),
                           k.sent());
    exchange(std::span<const int>(&r, 1), L);
  }
  // 2. The local part meanwhile, on the compute stream, slice after slice (each on its own rows).
  if (has(phases, Phases::Local))
    for (Slice<T>& slice : k.local)
      part_product(ctx, *slice.A, X.part(r).data(), Y.part(r).data() + slice.row_begin * L, L, alpha, beta);
  // 3. Each remote piece adds its share once the chunk bringing its halo entries is in; then the
  // compute stream waits for the whole exchange, so that nothing after the product (a solver
  // updating x) overtakes the packing or a send.
  if (has(phases, Phases::Remote))
    for (RemotePiece<T>& p : k.remote) {
      if (halo) SPX_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), p.arrived->get(), 0));
      const T* h = k.received() + p.halo_offset * L;
      if (p.compressed) {
        part_product(ctx, *p.A, h, p.out.data(), L, alpha, T{0});
        detail::launch_scatter_add<T>(ctx.stream(), p.rows, L, p.row_map.data(), p.out.data(),
                                      Y.part(r).data());
      } else {
        part_product(ctx, *p.A, h, Y.part(r).data(), L, alpha, T{1});
      }
    }
  if (halo) SPX_CUDA_CHECK(cudaStreamWaitEvent(ctx.stream(), k.halo_done->get(), 0));
}

namespace {
template <class T>
void check_operands(DistSparseMatrix<T>& A, const DistVector<T>& X, const DistVector<T>& Y, bool single) {
  const char* what = single ? "spmv" : "spmm";
  if (X.partition().begin != A.col_partition().begin)
    throw Error(fmt::format("dist {}: x is not split like the matrix's columns", what));
  if (Y.partition().begin != A.row_partition().begin)
    throw Error(fmt::format("dist {}: y is not split like the matrix's rows", what));
  if (X.cols() != Y.cols())
    throw Error(fmt::format("dist {}: X has {} columns, Y {}", what, X.cols(), Y.cols()));
  if (single && X.cols() != 1) throw Error(fmt::format("dist spmv: x has {} columns; use spmm", X.cols()));
}
}  // namespace

template <class T>
void spmv(DistSparseMatrix<T>& A, const DistVector<T>& x, DistVector<T>& y, T alpha, T beta, Phases phases) {
  check_operands(A, x, y, true);
  A.impl().product(x, y, 1, alpha, beta, phases);
}

template <class T>
void spmm(DistSparseMatrix<T>& A, const DistVector<T>& X, DistVector<T>& Y, T alpha, T beta, Phases phases) {
  check_operands(A, X, Y, false);
  const int64_t L = X.cols();
  auto& m = A.impl();
  if (L > 1)
    for (int r : A.team().members()) {  // plan every part for this L with the matrix's options
      DeviceScope scope(m.ranks[static_cast<std::size_t>(r)].device);
      std::vector<SparseMatrix<T>*> parts;
      for (int p = 0; p < A.remote_pieces(r); ++p) parts.push_back(A.remote(r, p));
      for (int s = 0; s < A.local_slices(r); ++s) parts.push_back(&A.local(r, s));
      for (SparseMatrix<T>* part : parts)
        if (part && !part->spmm_report(L)) part->plan_spmm(L, plan::DenseLayout::RowMajor, m.options.plan);
    }
  m.product(X, Y, L, alpha, beta, phases);
}

namespace detail {
template <class T>
void rank_spmv(DistSparseMatrix<T>& A, int rank, const DistVector<T>& x, DistVector<T>& y) {
  A.impl().rank_product(rank, x, y, 1, T{1}, T{0}, Phases::All);
}
template void rank_spmv(DistSparseMatrix<float>&, int, const DistVector<float>&, DistVector<float>&);
template void rank_spmv(DistSparseMatrix<double>&, int, const DistVector<double>&, DistVector<double>&);
}  // namespace detail

template class DistSparseMatrix<float>;
template class DistSparseMatrix<double>;
template void spmv<float>(DistSparseMatrix<float>&, const DistVector<float>&, DistVector<float>&, float,
                          float, Phases);
template void spmv<double>(DistSparseMatrix<double>&, const DistVector<double>&, DistVector<double>&, double,
                           double, Phases);
template void spmm<float>(DistSparseMatrix<float>&, const DistVector<float>&, DistVector<float>&, float,
                          float, Phases);
template void spmm<double>(DistSparseMatrix<double>&, const DistVector<double>&, DistVector<double>&, double,
                           double, Phases);

}  // namespace spx::cuda::dist
