// HYB SpMV (Bell & Garland): the ELL part writes every row with beta, then the COO tail adds its
// products with beta = 1, so rows without a tail are read and written once. The ELL width chosen
// by the Bell–Garland rule (spx::hyb_ell_width) keeps the slab dense in real entries; a few long
// rows cost the COO kernel only their own nonzeros.
#include <cstdint>

#include "cuda/common/scale.hpp"
#include "cuda/spmv/format_launch.hpp"
#include "cuda/spmv/spmv_checks.hpp"
#include "spx/cuda/spmv_formats.hpp"

namespace spx::cuda {

template <class T, class I>
void spmv_hyb(Context& ctx, const DeviceHyb<T, I>& A, std::span<const T> x, std::span<T> y, T alpha, T beta,
              const CooParams& coo) {
  check_spmv_operands("spmv_hyb", A.rows(), A.cols(), x, y);
  validate(coo);
  if (A.rows() == 0) return;
  const auto rows = static_cast<std::size_t>(A.rows());
  if (alpha == T{0}) return scale_in_place(ctx, y.data(), rows, beta);
  if (A.ell.width > 0)
    detail::launch_spmv_ell(ctx, A.ell, x.data(), y.data(), alpha, beta);
  else
    scale_in_place(ctx, y.data(), rows, beta);  // no ELL part (fewer than 4096 rows): y = beta*y
  if (A.coo.nnz > 0) detail::launch_spmv_coo(ctx, A.coo, x.data(), y.data(), alpha, T{1}, coo);
}

template void spmv_hyb(Context&, const DeviceHyb<float, int32_t>&, std::span<const float>, std::span<float>,
                       float, float, const CooParams&);
template void spmv_hyb(Context&, const DeviceHyb<double, int32_t>&, std::span<const double>,
                       std::span<double>, double, double, const CooParams&);

}  // namespace spx::cuda
