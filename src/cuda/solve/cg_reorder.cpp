// solve_permuted (spx/cuda/cg_reorder.hpp): permute in, solve, permute out.
#include "spx/cuda/cg_reorder.hpp"

#include <fmt/format.h>

#include <chrono>

#include "spx/cuda/buffer.hpp"
#include "spx/cuda/reorder.hpp"
#include "spx/error.hpp"

namespace spx::cuda {

template <class T>
CgResult solve_permuted(Context& ctx, CgSolver<T>& solver, std::span<const int32_t> perm,
                        std::span<const T> inv_diag, std::span<const T> b, std::span<T> x,
                        const CgOptions& options, const CgProgress& progress) {
  if (perm.empty()) return solver.solve(inv_diag, b, x, options, progress);
  const auto start = std::chrono::steady_clock::now();
  const std::size_t n = perm.size();
  if (static_cast<int64_t>(n) != solver.size() || b.size() != n || x.size() != n ||
      (!inv_diag.empty() && inv_diag.size() != n))
    throw Error(
        fmt::format("cg: the permutation has {} entries, b {}, x {}, the Jacobi diagonal {}; the "
                    "operator has {} rows",
                    n, b.size(), x.size(), inv_diag.size(), solver.size()));
  DeviceBuffer<T> bp(n, "cg b (renumbered)"), xp(n, "cg x (renumbered)"),
      dp(inv_diag.empty() ? 0 : n, "cg jacobi (renumbered)");
  gather<T>(ctx, perm, b, bp.span());
  if (!options.zero_initial_guess) gather<T>(ctx, perm, std::span<const T>(x), xp.span());
  if (!inv_diag.empty()) gather<T>(ctx, perm, inv_diag, dp.span());
  CgResult r = solver.solve(std::span<const T>(dp.data(), dp.size()), std::span<const T>(bp.span()),
                            xp.span(), options, progress);
  scatter_axpby<T>(ctx, perm, std::span<const T>(xp.span()), x, T{1}, T{0});
  ctx.synchronize();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

template CgResult solve_permuted<float>(Context&, CgSolver<float>&, std::span<const int32_t>,
                                        std::span<const float>, std::span<const float>, std::span<float>,
                                        const CgOptions&, const CgProgress&);
template CgResult solve_permuted<double>(Context&, CgSolver<double>&, std::span<const int32_t>,
                                         std::span<const double>, std::span<const double>, std::span<double>,
                                         const CgOptions&, const CgProgress&);

}  // namespace spx::cuda
