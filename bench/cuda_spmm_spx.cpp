// spx's own SpMM kernels in `spx bench` (op spmm:L), beside the cuSPARSE entries of cuda_spmm.cpp
// and on the same B (device_b: the row-major copy with a 16-byte-padded leading dimension):
//   spx_spmm_row        what a user gets: spmm_format_rule picks ELLR-T or CSR, the rules the config
//   spmm_ellr_t_row     SSFastSpMM with spmm_ellr_rule (ELLR converted on the device, untimed)
//   spmm_csr_row        the CSR kernel with spmm_csr_rule
//   spmm_csr_split_row  the same, row-split mode forced (a group per row, the long-row list)
//   spmm_csr_tiled_row  the same, balanced mode forced (spmm_csr_tile_items)
//   spmm_set_spmvs_col  L ELLR-T SpMVs (ellr_t_rule), column-major B and C: the paper's baseline
//   spx_spmm_col, spmm_ellr_t_col, spmm_csr_col   the first three on column-major B and C
// The ELLR entries are skipped where the slab would exceed kMaxEllrPaddingRatio slots per nonzero.
//
// The CSR entries (and spx_spmm_*, which then runs the CSR kernel whatever the format rule says)
// take parameters: fields of the CSR configuration by their JSON names (threads_per_row,
// cols_per_lane, block_size, cols_per_pass, tile_items, long_row_nnz) replacing the rule's
// (`spx spmm --csr-config`). A merged configuration the kernel refuses is refused before any run.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <string>
#include <variant>

#include "bench/cuda_support.hpp"
#include "bench/registry.hpp"
#include "plan/catalogue.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/error.hpp"

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

bool is_csr(Which which) {
  return which == Which::Csr || which == Which::CsrSplit || which == Which::CsrTiled;
}

// The CSR configuration's fields by the names its `params` carry in the JSON.
struct CsrField {
  const char* key;
  int cuda::SpmmCsrParams::*field;
};
constexpr CsrField kCsrFields[] = {{"threads_per_row", &cuda::SpmmCsrParams::threads_per_row},
                                   {"cols_per_lane", &cuda::SpmmCsrParams::cols_per_lane},
                                   {"block_size", &cuda::SpmmCsrParams::block_size},
                                   {"cols_per_pass", &cuda::SpmmCsrParams::cols_per_pass},
                                   {"tile_items", &cuda::SpmmCsrParams::tile_items},
                                   {"long_row_nnz", &cuda::SpmmCsrParams::long_row_nnz}};

// The entry's CSR configuration for the problem: spmm_csr_rule's, the entry's forced mode, then
// the given parameters in order. Throws spx::Error naming what is wrong.
cuda::SpmmCsrParams csr_config(const Problem& p, Which which, const Params& params) {
  const cuda::DeviceProps& device = bench_context().props();
  // The forced modes as the planner's candidates run them (the catalogue's spmm_csr_config).
  const plan::SpmmCsrMode mode = which == Which::CsrSplit   ? plan::SpmmCsrMode::Split
                                 : which == Which::CsrTiled ? plan::SpmmCsrMode::Tiled
                                                            : plan::SpmmCsrMode::Rule;
  cuda::SpmmCsrParams c =
      plan::spmm_csr_config(mode, *p.stats, p.cols_dense, device, static_cast<int>(value_bytes(p.precision)));
  for (const Param& given : params) {
    const auto* known = std::find_if(std::begin(kCsrFields), std::end(kCsrFields),
                                     [&](const CsrField& f) { return given.key == f.key; });
    if (known == std::end(kCsrFields)) {
      std::string keys;
      for (const CsrField& f : kCsrFields) keys += fmt::format("{}{}", keys.empty() ? "" : ", ", f.key);
      throw Error(fmt::format("the CSR SpMM has no parameter '{}' (it takes {})", given.key, keys));
    }
    const int64_t* value = std::get_if<int64_t>(&given.value);
    if (value == nullptr || *value < 0 || *value > INT_MAX)
      throw Error(fmt::format("{} = {} is not a non-negative integer", given.key, to_string(given.value)));
    c.*(known->field) = static_cast<int>(*value);
  }
  try {
    cuda::validate(c);
  } catch (const Error& e) {
    throw Error(fmt::format("gives {}: {}", cuda::to_string(c), e.what()));
  }
  return c;
}

template <class T>
std::unique_ptr<Instance> spx_spmm(const Problem& p, Which which, Layout layout) {
  cuda::Context& ctx = bench_context();
  // Parameters configure the CSR kernel: spx_spmm_* given any runs it, as spx spmm --csr-config.
  if (which == Which::Rule)
    which = !p.params.empty() ||
                    plan::spmm_format_rule(*p.stats, p.cols_dense, ctx.props()) == cuda::SpmmFormat::Csr
                ? Which::Csr
                : Which::Ellr;
  auto B = device_b<T>(p, layout);
  auto C = std::make_shared<cuda::DeviceDense<T>>(make_c<T>(p, layout));
  const cuda::DenseView<const T> b = cuda::view(*B);
  const cuda::DenseView<T> c = cuda::view(*C);
  CudaInstanceParts parts;
  std::size_t matrix_bytes = 0;
  parts.params = {{"layout", layout == Layout::ColMajor ? "col" : "row"}, {"ld_b", B->ld}, {"ld_c", C->ld}};
  if (is_csr(which)) {
    auto A = device_csr<T>(p);
    const cuda::SpmmCsrParams config = csr_config(p, which, p.params);
    parts.launch = [A, B, C, b, c, config] { cuda::spmm_csr(bench_context(), *A, b, c, config); };
    matrix_bytes = A->bytes();
    parts.params.push_back({"format", "csr"});
    parts.params.push_back({"config", cuda::to_string(config)});
    for (const CsrField& f : kCsrFields) parts.params.push_back({f.key, int64_t{config.*(f.field)}});
  } else {
    auto A = device_ellr<T>(p);
    matrix_bytes = A->bytes();
    parts.params.push_back({"format", "ellr"});
    if (which == Which::SetSpmvs) {
      const cuda::EllrTParams config = plan::ellr_t_rule(*p.stats, ctx.props());
      parts.launch = [A, B, C, b, c, config] { cuda::spmm_set_spmvs(bench_context(), *A, b, c, config); };
      parts.params.push_back({"threads_per_row", int64_t{config.threads_per_row}});
      parts.params.push_back({"block_size", int64_t{config.block_size}});
    } else {
      const cuda::SpmmEllrParams config = plan::spmm_ellr_rule(*p.stats, p.cols_dense, ctx.props());
      parts.launch = [A, B, C, b, c, config] { cuda::spmm_ellr_t(bench_context(), *A, b, c, config); };
      parts.params.push_back({"config", cuda::to_string(config)});
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

// `study`: forced modes of the CSR kernel, the paper's SetSpMVs baseline, and the column-major
// copies of the user-facing entries (spx's kernels are measured and tuned on row-major B and C, the
// layout the docs recommend; `spx spmm --layout col` runs these).
void add(Registry& registry, const char* name, Which which, Layout layout, bool study, const char* summary) {
  auto e = cuda_entry(name, OpKind::Spmm,
                      which == Which::Ellr || which == Which::SetSpmvs ? Format::EllR : Format::Csr, false,
                      summary);
  e.study = study;
  e.layout = layout;
  if (which == Which::Ellr || which == Which::SetSpmvs) e.skip_reason = ellr_skip;
  if (which == Which::Rule || is_csr(which)) {
    e.check_params = [which](const Problem& p, const Params& params) -> std::string {
      try {
        csr_config(p, which == Which::Rule ? Which::Csr : which, params);
        return {};
      } catch (const Error& error) {
        return error.what();
      }
    };
  }
  e.prepare = [which, layout](const Problem& p) {
    return with_precision(p, [&](auto tag) { return spx_spmm<decltype(tag)>(p, which, layout); });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmm_spx(Registry& registry) {
  constexpr Layout row = Layout::RowMajor, col = Layout::ColMajor;
  add(registry, "spx_spmm_row", Which::Rule, row, false,
      "spx SpMM as a user gets it: plan::spmm_format_rule picks ELLR-T or CSR, the rules the config; "
      "row-major B, "
      "C");
  add(registry, "spmm_ellr_t_row", Which::Ellr, row, false,
      "spx SSFastSpMM (ELLR-T SpMM, spmm_ellr_rule), GPU-converted ELLR; row-major B, C");
  add(registry, "spmm_csr_row", Which::Csr, row, false, "spx CSR SpMM (spmm_csr_rule); row-major B, C");
  add(registry, "spmm_csr_split_row", Which::CsrSplit, row, true,
      "spx CSR SpMM, row-split mode forced (plan::spmm_csr_rule otherwise); row-major B, C");
  add(registry, "spmm_csr_tiled_row", Which::CsrTiled, row, true,
      "spx CSR SpMM, balanced tiles forced (spmm_csr_tile_items; plan::spmm_csr_rule otherwise); row-major "
      "B, C");
  add(registry, "spmm_set_spmvs_col", Which::SetSpmvs, col, true,
      "SetSpMVs: L ELLR-T SpMVs (ellr_t_rule), the FastSpMM paper's baseline; column-major B, C");
  add(registry, "spx_spmm_col", Which::Rule, col, true,
      "spx SpMM as a user gets it (spmm_format_rule, the rules' configs); column-major B, C");
  add(registry, "spmm_ellr_t_col", Which::Ellr, col, true,
      "spx SSFastSpMM (ELLR-T SpMM, spmm_ellr_rule), GPU-converted ELLR; column-major B, C");
  add(registry, "spmm_csr_col", Which::Csr, col, true, "spx CSR SpMM (spmm_csr_rule); column-major B, C");
}

}  // namespace spx::bench
