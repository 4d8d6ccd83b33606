// k ranks simulated on the CPU: each holds only its part of x (or B) and of y (or C); the halo is
// exchanged by packing every message's send buffer and copying it into the receiver's halo buffer,
// the copies NCCL's grouped send/recv makes between GPUs; then the local and the remote product.
// Halo buffers start as NaN, so an entry the pattern forgot poisons the result instead of reading 0.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "spx/cpu.hpp"
#include "spx/dist.hpp"
#include "spx/error.hpp"

namespace spx::dist {
namespace {

template <class T>
void product(Kernels kernels, const Csr<T, int32_t>& A, std::span<const T> x, std::span<T> y, T beta) {
  if (kernels == Kernels::Reference)
    ref::spmv(A, x, y, T{1}, beta);
  else
    omp::spmv(A, x, y, T{1}, beta);
}

template <class T>
void product(Kernels kernels, const Csr<T, int32_t>& A, const Dense<T>& B, Dense<T>& C, T beta) {
  if (kernels == Kernels::Reference)
    ref::spmm(A, B, C, T{1}, beta);
  else
    omp::spmm(A, B, C, T{1}, beta);
}

}  // namespace

template <class T>
std::vector<std::vector<T>> scatter(const Partition& p, std::span<const T> v) {
  if (static_cast<int64_t>(v.size()) != p.size())
    throw Error(fmt::format("scatter: the vector has {} entries, the partition {}", v.size(), p.size()));
  std::vector<std::vector<T>> parts(static_cast<std::size_t>(p.ranks()));
  for (int r = 0; r < p.ranks(); ++r)
    parts[static_cast<std::size_t>(r)].assign(v.begin() + p.begin[static_cast<std::size_t>(r)],
                                              v.begin() + p.begin[static_cast<std::size_t>(r) + 1]);
  return parts;
}

template <class T>
std::vector<T> gather(const Partition& p, const std::vector<std::vector<T>>& parts) {
  if (static_cast<int>(parts.size()) != p.ranks())
    throw Error(fmt::format("gather: {} parts for {} ranks", parts.size(), p.ranks()));
  std::vector<T> v;
  v.reserve(static_cast<std::size_t>(p.size()));
  for (int r = 0; r < p.ranks(); ++r) {
    const auto& part = parts[static_cast<std::size_t>(r)];
    if (static_cast<int64_t>(part.size()) != p.block_size(r))
      throw Error(
          fmt::format("gather: rank {} holds {} entries; its block has {}", r, part.size(), p.block_size(r)));
    v.insert(v.end(), part.begin(), part.end());
  }
  return v;
}

template <class T>
std::vector<std::vector<T>> simulated_spmv(const DistMatrix<T>& D, const std::vector<std::vector<T>>& x_parts,
                                           Kernels kernels) {
  const auto k = static_cast<std::size_t>(D.ranks());
  if (x_parts.size() != k)
    throw Error(fmt::format("simulated_spmv: {} parts of x for {} ranks", x_parts.size(), k));
  for (const auto& p : D.parts)
    if (static_cast<int64_t>(x_parts[static_cast<std::size_t>(p.rank)].size()) != p.col_end - p.col_begin)
      throw Error(fmt::format("simulated_spmv: rank {} holds {} entries of x; it owns {}", p.rank,
                              x_parts[static_cast<std::size_t>(p.rank)].size(), p.col_end - p.col_begin));
  std::vector<std::vector<T>> halo(k);
  for (const auto& p : D.parts)
    halo[static_cast<std::size_t>(p.rank)].assign(p.halo_global.size(), std::numeric_limits<T>::quiet_NaN());
  std::vector<T> send;
  for (const auto& m : D.messages) {  // pack on the sender, then the transfer into the receiver's halo
    const auto& x = x_parts[static_cast<std::size_t>(m.from)];
    send.resize(m.send_local.size());
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = x[static_cast<std::size_t>(m.send_local[i])];
    std::copy(send.begin(), send.end(), halo[static_cast<std::size_t>(m.to)].begin() + m.recv_offset);
  }
  std::vector<std::vector<T>> y(k);
  for (const auto& p : D.parts) {
    const auto r = static_cast<std::size_t>(p.rank);
    y[r].resize(static_cast<std::size_t>(p.row_end - p.row_begin));
    for (const auto& slice : p.local)  // each slice writes its own rows of y
      product<T>(kernels, slice.A, x_parts[r],
                 std::span<T>(y[r]).subspan(static_cast<std::size_t>(slice.row_begin),
                                            static_cast<std::size_t>(slice.A.rows)),
                 T{0});
    product<T>(kernels, p.remote, halo[r], y[r], T{1});
  }
  return y;
}

template <class T>
std::vector<T> simulated_spmv(const DistMatrix<T>& D, std::span<const T> x, Kernels kernels) {
  return gather(D.row_partition, simulated_spmv(D, scatter(D.col_partition, x), kernels));
}

template <class T>
void simulated_spmm(const DistMatrix<T>& D, const Dense<T>& B, Dense<T>& C, Kernels kernels) {
  B.validate();
  C.validate();
  if (B.rows != D.cols || C.rows != D.rows || C.cols != B.cols)
    throw Error(fmt::format("simulated_spmm: A is {} x {}, B {} x {}, C {} x {}", D.rows, D.cols, B.rows,
                            B.cols, C.rows, C.cols));
  const int64_t L = B.cols;
  const auto k = static_cast<std::size_t>(D.ranks());
  // Row-major parts: one x entry's L values are contiguous, as they travel in a message.
  std::vector<Dense<T>> b(k), halo(k);
  for (const auto& p : D.parts) {
    const auto r = static_cast<std::size_t>(p.rank);
    b[r] = Dense<T>(p.col_end - p.col_begin, L, Layout::RowMajor);
    for (int64_t i = 0; i < b[r].rows; ++i)
      for (int64_t j = 0; j < L; ++j) b[r](i, j) = B(p.col_begin + i, j);
    halo[r] = Dense<T>(static_cast<int64_t>(p.halo_global.size()), L, Layout::RowMajor,
                       std::numeric_limits<T>::quiet_NaN());
  }
  std::vector<T> send;
  for (const auto& m : D.messages) {
    const Dense<T>& src = b[static_cast<std::size_t>(m.from)];
    Dense<T>& dst = halo[static_cast<std::size_t>(m.to)];
    send.resize(m.send_local.size() * static_cast<std::size_t>(L));
    for (std::size_t i = 0; i < m.send_local.size(); ++i)
      for (int64_t j = 0; j < L; ++j)
        send[i * static_cast<std::size_t>(L) + static_cast<std::size_t>(j)] = src(m.send_local[i], j);
    std::copy(send.begin(), send.end(), dst.data.begin() + static_cast<std::ptrdiff_t>(m.recv_offset) * L);
  }
  for (const auto& p : D.parts) {
    const auto r = static_cast<std::size_t>(p.rank);
    Dense<T> c(p.row_end - p.row_begin, L, Layout::RowMajor);
    for (const auto& slice : p.local) {
      Dense<T> cs(slice.A.rows, L, Layout::RowMajor);
      product<T>(kernels, slice.A, b[r], cs, T{0});
      std::copy(cs.data.begin(), cs.data.end(),
                c.data.begin() + static_cast<std::ptrdiff_t>(slice.row_begin * L));
    }
    product<T>(kernels, p.remote, halo[r], c, T{1});
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < L; ++j) C(p.row_begin + i, j) = c(i, j);
  }
}

#define SPX_INSTANTIATE(T)                                                                          \
  template std::vector<std::vector<T>> scatter(const Partition&, std::span<const T>);               \
  template std::vector<T> gather(const Partition&, const std::vector<std::vector<T>>&);             \
  template std::vector<std::vector<T>> simulated_spmv(const DistMatrix<T>&,                         \
                                                      const std::vector<std::vector<T>>&, Kernels); \
  template std::vector<T> simulated_spmv(const DistMatrix<T>&, std::span<const T>, Kernels);        \
  template void simulated_spmm(const DistMatrix<T>&, const Dense<T>&, Dense<T>&, Kernels);
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

}  // namespace spx::dist
