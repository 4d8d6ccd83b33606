// spx's own SpMM kernels in `spx bench` (op spmm:L), beside the cuSPARSE entries of cuda_spmm.cpp
// and on the same B (device_b: the row-major copy with a 16-byte-padded leading dimension):
//   spx_spmm_row        what a user gets: spmm_format_rule picks ELLR-T or CSR, the rules the config
//   spmm_ellr_t_row     SSFastSpMM with spmm_ellr_rule (ELLR converted on the device, untimed)
//   spmm_csr_row        the CSR kernel with spmm_csr_rule
//   spmm_csr_split_row  the same, row-split mode forced (a group per row, the long-row list)
//   spmm_csr_tiled_row  the same, balanced mode forced (spmm_csr_tile_items)
//   spmm_set_spmvs_col  L ELLR-T SpMVs (ellr_t_rule), column-major B and C: the paper's baseline
// The ELLR entries are skipped where the slab would exceed kMaxEllrPaddingRatio slots per nonzero.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv_formats.hpp"

namespace spx::bench {
namespace {

// As the SpMV ELLR entry (cuda_spmv_formats.cpp): past this the slab alone takes gigabytes.
constexpr double kMaxEllrPaddingRatio = 64.0;

std::string ellr_skip(const Problem& p) {
  if (p.stats == nullptr || p.stats->ell_padding_ratio <= kMaxEllrPaddingRatio) return {};
  return fmt::format(
      "ELLR padding {:.0f} slots per nonzero > {:.0f} (longest row {}): spmm_csr is for such matrices",
      p.stats->ell_padding_ratio, kMaxEllrPaddingRatio, p.stats->max_row);
}

// The ELLR copy of the problem's matrix, converted on the device once and shared by the entries.
template <class T>
std::shared_ptr<const cuda::DeviceEllR<T, int32_t>> device_ellr(const Problem& p) {
  return device_cache().get<cuda::DeviceEllR<T, int32_t>>(
      p, "ellr", [&] { return cuda::to_ellr(bench_context(), *device_csr<T>(p)); });
}

enum class Which { Rule, Ellr, Csr, CsrSplit, CsrTiled, SetSpmvs };

template <class T>
std::unique_ptr<Instance> spx_spmm(const Problem& p, Which which) {
  cuda::Context& ctx = bench_context();
  const Layout layout = which == Which::SetSpmvs ? Layout::ColMajor : Layout::RowMajor;
  if (which == Which::Rule)
    which = cuda::spmm_format_rule(*p.stats, p.cols_dense, ctx.props()) == cuda::SpmmFormat::Csr
                ? Which::Csr
                : Which::Ellr;
  auto B = device_b<T>(p, layout);
  auto C = std::make_shared<cuda::DeviceDense<T>>(make_c<T>(p, layout));
  const cuda::DenseView<const T> b = cuda::view(*B);
  const cuda::DenseView<T> c = cuda::view(*C);
  CudaInstanceParts parts;
  std::size_t matrix_bytes = 0;
  parts.params = {{"layout", layout == Layout::ColMajor ? "col" : "row"}, {"ld_b", B->ld}, {"ld_c", C->ld}};
  if (which == Which::Csr || which == Which::CsrSplit || which == Which::CsrTiled) {
    auto A = device_csr<T>(p);
    cuda::SpmmCsrConfig config =
        cuda::spmm_csr_rule(*p.stats, p.cols_dense, ctx.props(), static_cast<int>(sizeof(T)));
    if (which == Which::CsrSplit) config.tile_items = 0;
    if (which == Which::CsrTiled) config.tile_items = cuda::spmm_csr_tile_items(*p.stats, ctx.props());
    parts.launch = [A, B, C, b, c, config] { cuda::spmm_csr(bench_context(), *A, b, c, config); };
    matrix_bytes = A->bytes();
    parts.params.push_back({"format", "csr"});
    parts.params.push_back({"threads_per_row", int64_t{config.threads_per_row}});
    parts.params.push_back({"block_size", int64_t{config.block_size}});
    parts.params.push_back({"cols_per_pass", int64_t{config.cols_per_pass}});
    parts.params.push_back({"long_row_nnz", int64_t{config.long_row_nnz}});
    parts.params.push_back({"tile_items", int64_t{config.tile_items}});
    parts.params.push_back({"cols_per_lane", int64_t{config.cols_per_lane}});
  } else {
    auto A = device_ellr<T>(p);
    matrix_bytes = A->bytes();
    parts.params.push_back({"format", "ellr"});
    if (which == Which::SetSpmvs) {
      const cuda::EllrTConfig config = cuda::ellr_t_rule(*p.stats, ctx.props());
      parts.launch = [A, B, C, b, c, config] { cuda::spmm_set_spmvs(bench_context(), *A, b, c, config); };
      parts.params.push_back({"threads_per_row", int64_t{config.threads_per_row}});
      parts.params.push_back({"block_size", int64_t{config.block_size}});
    } else {
      const cuda::SpmmEllrConfig config = cuda::spmm_ellr_rule(*p.stats, p.cols_dense, ctx.props());
      parts.launch = [A, B, C, b, c, config] { cuda::spmm_ellr_t(bench_context(), *A, b, c, config); };
      parts.params.push_back({"threads_per_row", int64_t{config.threads_per_row}});
      parts.params.push_back({"block_size", int64_t{config.block_size}});
      parts.params.push_back({"cols_per_pass", int64_t{config.cols_per_pass}});
    }
  }
  parts.view = [C] { return staged_view(*C); };
  parts.output = C->data.data();
  parts.output_bytes = C->bytes();
  parts.working_set = matrix_bytes + B->bytes() + C->bytes();
  return std::make_unique<CudaInstance>(std::move(parts));
}

void add(Registry& registry, const char* name, Which which, Format format, const char* summary) {
  auto e = cuda_entry(name, OpKind::Spmm, format, false, summary);
  // Forced modes of the CSR kernel and the paper's SetSpMVs baseline: studies, not choices.
  e.study = which == Which::CsrSplit || which == Which::CsrTiled || which == Which::SetSpmvs;
  if (which == Which::Ellr || which == Which::SetSpmvs) e.skip_reason = ellr_skip;
  e.prepare = [which](const Problem& p) {
    return with_precision(p, [&](auto tag) { return spx_spmm<decltype(tag)>(p, which); });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmm_spx(Registry& registry) {
  add(registry, "spx_spmm_row", Which::Rule, Format::Csr,
      "spx SpMM as a user gets it: spmm_format_rule picks ELLR-T or CSR, the rules the config; row-major B, "
      "C");
  add(registry, "spmm_ellr_t_row", Which::Ellr, Format::EllR,
      "spx SSFastSpMM (ELLR-T SpMM, spmm_ellr_rule), GPU-converted ELLR; row-major B, C");
  add(registry, "spmm_csr_row", Which::Csr, Format::Csr, "spx CSR SpMM (spmm_csr_rule); row-major B, C");
  add(registry, "spmm_csr_split_row", Which::CsrSplit, Format::Csr,
      "spx CSR SpMM, row-split mode forced (spmm_csr_rule otherwise); row-major B, C");
  add(registry, "spmm_csr_tiled_row", Which::CsrTiled, Format::Csr,
      "spx CSR SpMM, balanced tiles forced (spmm_csr_tile_items; spmm_csr_rule otherwise); row-major B, C");
  add(registry, "spmm_set_spmvs_col", Which::SetSpmvs, Format::EllR,
      "SetSpMVs: L ELLR-T SpMVs (ellr_t_rule), the FastSpMM paper's baseline; column-major B, C");
}

}  // namespace spx::bench
