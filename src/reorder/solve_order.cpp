// reorder_for_solve (spx/reorder.hpp): whether and how a solver's matrix is renumbered.
#include <fmt/format.h>

#include <chrono>
#include <span>

#include "reorder/square.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"

namespace spx::reorder {

const char* to_string(Choice c) {
  switch (c) {
    case Choice::None:
      return "none";
    case Choice::Rcm:
      return "rcm";
    case Choice::Auto:
      return "auto";
  }
  return "unknown";
}

Choice choice_from_string(const std::string& s) {
  for (Choice c : {Choice::None, Choice::Rcm, Choice::Auto})
    if (s == to_string(c)) return c;
  throw Error(fmt::format("unknown reordering '{}' (none, rcm or auto)", s));
}

template <class T, class I>
Reordered<T, I> reorder_for_solve(const Csr<T, I>& A0, Choice choice) {
  Reordered<T, I> r;
  if (choice == Choice::None) {
    r.why = "not reordered (reorder=none)";
    return r;
  }
  const auto t0 = std::chrono::steady_clock::now();
  detail::require_square(A0, "reorder");
  const Locality before = locality(A0);
  if (choice == Choice::Auto && !before.gathers_poorly()) {
    r.why =
        fmt::format("not reordered: x is gathered well ({:.2f} sectors per row, {:.2f} estimated after RCM)",
                    before.sectors_per_row, before.rcm_sectors_per_row);
  } else {
    r.perm = rcm_symmetric(A0);  // a solver's matrix is symmetric (spx cg checks it first)
    r.A = permute_symmetric(A0, std::span<const I>(r.perm));
    r.reordered = true;
    r.why =
        fmt::format("reordered by RCM (reorder={}): {:.2f} x sectors per row before, {:.2f} estimated after",
                    to_string(choice), before.sectors_per_row, before.rcm_sectors_per_row);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

template Reordered<float, int32_t> reorder_for_solve(const Csr<float, int32_t>&, Choice);
template Reordered<float, int64_t> reorder_for_solve(const Csr<float, int64_t>&, Choice);
template Reordered<double, int32_t> reorder_for_solve(const Csr<double, int32_t>&, Choice);
template Reordered<double, int64_t> reorder_for_solve(const Csr<double, int64_t>&, Choice);

}  // namespace spx::reorder
