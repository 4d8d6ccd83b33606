// spx/dist_mpi.hpp without MPI: built_with_mpi() says so and every other call throws, so a caller
// (the CLI's --dist) names the missing build option instead of failing to link.
#ifndef SPX_HAVE_MPI
#include "spx/dist_mpi.hpp"
#include "spx/error.hpp"

namespace spx::dist::mpi {
namespace {
[[noreturn]] void unavailable() {
  throw Error(
      "this spx was built without MPI (install Open MPI, e.g. libopenmpi-dev, and configure with "
      "-DSPX_MPI=ON)");
}
}  // namespace

bool built_with_mpi() { return false; }
Session::Session() { unavailable(); }
Session::~Session() = default;
int rank(Group) { unavailable(); }
int size(Group) { unavailable(); }
void barrier(Group) { unavailable(); }
double max_over_ranks(double, Group) { unavailable(); }
int64_t sum_over_ranks(int64_t, Group) { unavailable(); }
double sum_over_ranks(double, Group) { unavailable(); }
void abort_job(int) { unavailable(); }

template <class T>
RankMatrix<T> distribute(Group, const Csr<T, int64_t>&, const Partition&, const Partition&) {
  unavailable();
}
template <class T>
DistMatrix<T> distribute_parts(Group, const Csr<T, int64_t>&, const Partition&, const Partition&) {
  unavailable();
}
template <class T>
ScatteredRows<T> scatter_rows(Group, const std::function<Csr<T, int32_t>()>&, bool, PartitionKind, int,
                              const PartitionCosts&) {
  unavailable();
}
template <class T>
std::vector<T> gather_rows(Group, const Partition&, std::span<const T>, int) {
  unavailable();
}
template <class T>
Product<T>::Product(const RankMatrix<T>& A) : A_(A) {
  unavailable();
}
template <class T>
void Product<T>::operator()(std::span<const T>, std::span<T>) {
  unavailable();
}
template <class T>
CgResult cg(const RankMatrix<T>&, std::span<const T>, std::span<T>, const CgOptions&) {
  unavailable();
}
template <class T>
CgResult cg(const RankMatrix<T>&, RankOperator<T>&, std::span<const T>, std::span<T>, const CgOptions&) {
  unavailable();
}

#define SPX_INSTANTIATE(T)                                                                              \
  template RankMatrix<T> distribute(Group, const Csr<T, int64_t>&, const Partition&, const Partition&); \
  template DistMatrix<T> distribute_parts(Group, const Csr<T, int64_t>&, const Partition&,              \
                                          const Partition&);                                            \
  template class Product<T>;                                                                            \
  template CgResult cg(const RankMatrix<T>&, std::span<const T>, std::span<T>, const CgOptions&);       \
  template CgResult cg(const RankMatrix<T>&, RankOperator<T>&, std::span<const T>, std::span<T>,        \
                       const CgOptions&);                                                               \
  template ScatteredRows<T> scatter_rows(Group, const std::function<Csr<T, int32_t>()>&, bool,          \
                                         PartitionKind, int, const PartitionCosts&);                    \
  template std::vector<T> gather_rows(Group, const Partition&, std::span<const T>, int);
SPX_INSTANTIATE(float)
SPX_INSTANTIATE(double)
#undef SPX_INSTANTIATE

}  // namespace spx::dist::mpi
#endif
