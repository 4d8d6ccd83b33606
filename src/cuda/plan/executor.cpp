// The planner's candidates as runnable objects (executor.hpp): one class per kernel family, each
// holding its converted matrix and configuration. The kernels obey the configuration; the rules
// (spx/plan/rules.hpp) give it unless the tuner's knobs replace it.
#include "cuda/plan/executor.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda/plan/executor_check.hpp"
#include "cuda/plan/mixed_executor.hpp"
#include "cuda/plan/rcm_executor.hpp"
#include "plan/catalogue.hpp"
#include "plan/format_bsr.hpp"
#include "spx/convert.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/spmm.hpp"
#include "spx/cuda/spmv.hpp"
#include "spx/cuda/spmv_bsr.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/cuda/spmv_csr_c16.hpp"
#include "spx/cuda/spmv_formats.hpp"
#include "spx/cuda/spmv_segsum.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"
#include "spx/cuda/vendor.hpp"
#include "spx/error.hpp"
#include "spx/plan/rules.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::cuda::detail {

template <class T>
void Executor<T>::spmv(Context&, std::span<const T>, std::span<T>, T, T) {
  throw Error("this plan is for SpMM, not SpMV");
}
template <class T>
void Executor<T>::spmm(Context&, DenseView<const T>, DenseView<T>, T, T) {
  throw Error("this plan is for SpMV, not SpMM");
}
template <class T>
bool Executor<T>::set_knobs(Context&, const plan::Knobs& knobs) {
  return knobs.empty();
}

namespace {

int to_int(int64_t v) { return v < INT_MIN || v > INT_MAX ? -1 : static_cast<int>(v); }

}  // namespace

std::optional<CsrSpmvParams> with_csr_knobs(const CsrSpmvParams& p, const plan::Knobs& k) {
  CsrSpmvParams q = p;
  q.repeat = to_int(plan::knob(k, "repeat", q.repeat));
  q.coop = to_int(plan::knob(k, "coop", q.coop));
  q.block_size = to_int(plan::knob(k, "block_size", q.block_size));
  if (!invalid_reason(q).empty()) return std::nullopt;
  return q;
}

plan::Knobs csr_knobs(const CsrSpmvParams& p) {
  return {{"repeat", p.repeat}, {"coop", p.coop}, {"block_size", p.block_size}};
}

template <class T>
std::vector<T> value_table_of(const MatrixParts<T>& m) {
  if (m.value_table_bits.empty() && m.host == nullptr)  // a 64-bit matrix whose values were not counted
    throw Error("SELL-C16-dict: the values' table was not kept for this 64-bit matrix");
  if (m.value_table_bits.empty()) return sell_c16_dict_table(std::span<const T>(m.host->values));
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  std::vector<T> table(m.value_table_bits.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto b = static_cast<Bits>(m.value_table_bits[i]);
    std::memcpy(&table[i], &b, sizeof b);
  }
  return table;
}
template std::vector<float> value_table_of(const MatrixParts<float>&);
template std::vector<double> value_table_of(const MatrixParts<double>&);

namespace {

// The padded slabs from whichever CSR the matrix has on the device. From 64-bit offsets no slot
// bound is passed: the planner's padding rule admitted the format, and the conversion still refuses
// a slab past the device's free memory before allocating it.
template <class T>
DeviceEll<T, int32_t> ell_of(Context& ctx, const MatrixParts<T>& m) {
  if (m.wide != nullptr) return to_ell(ctx, *m.wide, int32_t{-1}, std::numeric_limits<std::size_t>::max());
  return to_ell(ctx, *m.device);
}

template <class T>
DeviceEllR<T, int32_t> ellr_of(Context& ctx, const MatrixParts<T>& m) {
  if (m.wide != nullptr) return to_ellr(ctx, *m.wide, std::numeric_limits<std::size_t>::max());
  return to_ellr(ctx, *m.device);
}

// --- SpMV ------------------------------------------------------------------------------------------

template <class T>
class CsrParam final : public Executor<T> {
 public:
  CsrParam(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs) : m_(m) {
    plan_ = make_plan(ctx, std::nullopt);
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("csr_param refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    if (m_.wide != nullptr)
      spmv_csr(ctx, plan_, *m_.wide, x, y, alpha, beta);
    else
      spmv_csr(ctx, plan_, *m_.device, x, y, alpha, beta);
  }
  bool set_knobs(Context& ctx, const plan::Knobs& k) override {
    const auto p = with_csr_knobs(plan_.params, k);
    if (!p) return false;
    if (*p != plan_.params) plan_ = make_plan(ctx, *p);
    return true;
  }
  plan::Knobs knobs() const override { return csr_knobs(plan_.params); }
  std::string describe() const override {
    return fmt::format("{}{}{}", to_string(plan_.params),
                       plan_.has_long_rows() ? fmt::format(", {} long rows", plan_.long_rows.size()) : "",
                       m_.wide != nullptr ? ", 64-bit offsets" : "");
  }

 private:
  CsrSpmvPlan make_plan(Context& ctx, std::optional<CsrSpmvParams> params) const {
    if (m_.wide != nullptr) return plan_csr_spmv(ctx, *m_.wide, m_.wide_row_ptr, *m_.stats, params);
    return plan_csr_spmv(ctx, *m_.device, *m_.host, *m_.stats, params);
  }
  MatrixParts<T> m_;
  CsrSpmvPlan plan_;
};

// CSR-C16: the host CSR converted once (rows past the long-row threshold of csr_fixed_rule's params
// join the escape part) and uploaded; csr_param's knobs, which leave the split valid (it depends on
// the matrix only).
template <class T>
class CsrC16Spmv final : public Executor<T> {
 public:
  CsrC16Spmv(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs)
      : A_(upload_csr_c16(ctx, to_csr_c16(*m.host, plan::csr_c16_escape_threshold(*m.stats, ctx.props())))),
        params_(plan::csr_fixed_rule(*m.stats, ctx.props())) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("csr_c16 refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_csr_c16(ctx, A_, x, y, params_, alpha, beta);
  }
  bool set_knobs(Context&, const plan::Knobs& k) override {
    const auto p = with_csr_knobs(params_, k);
    if (p) params_ = *p;
    return p.has_value();
  }
  plan::Knobs knobs() const override { return csr_knobs(params_); }
  std::string describe() const override {
    return fmt::format("{}{}", to_string(params_),
                       A_.escape_count > 0 ? fmt::format(", {} escape rows", A_.escape_count) : "");
  }

 private:
  DeviceCsrC16<T> A_;
  CsrSpmvParams params_;
};

template <class T>
class CsrVector final : public Executor<T> {
 public:
  explicit CsrVector(const MatrixParts<T>& m) : m_(m) {}
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_csr_vector(ctx, *m_.device, x, y, alpha, beta);
  }
  std::string describe() const override { return "a warp per row"; }

 private:
  MatrixParts<T> m_;
};

template <class T>
class Segsum final : public Executor<T> {
 public:
  Segsum(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs) : m_(m) {
    plan_ = plan_segsum_spmv(ctx, *m.device);
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("spmv_segsum refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_segsum(ctx, plan_, *m_.device, x, y, alpha, beta);
  }
  bool set_knobs(Context& ctx, const plan::Knobs& k) override {
    SegsumSpmvParams p = plan_.params;
    p.nnz_per_lane = to_int(plan::knob(k, "nnz_per_lane", p.nnz_per_lane));
    p.tiles_per_warp = to_int(plan::knob(k, "tiles_per_warp", p.tiles_per_warp));
    p.block_size = to_int(plan::knob(k, "block_size", p.block_size));
    if (!invalid_reason(p).empty()) return false;
    try {
      plan_ = plan_segsum_spmv(ctx, *m_.device, p);
    } catch (const Error&) {
      return false;
    }
    return true;
  }
  plan::Knobs knobs() const override {
    return {{"nnz_per_lane", plan_.params.nnz_per_lane},
            {"tiles_per_warp", plan_.params.tiles_per_warp},
            {"block_size", plan_.params.block_size}};
  }
  std::string describe() const override { return to_string(plan_.params); }

 private:
  MatrixParts<T> m_;
  SegsumSpmvPlan plan_;
};

template <class T>
class Ell final : public Executor<T> {
 public:
  Ell(Context& ctx, const MatrixParts<T>& m) : A_(ell_of(ctx, m)) { this->bytes = A_.bytes(); }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_ell(ctx, A_, x, y, alpha, beta);
  }
  std::string describe() const override { return fmt::format("width {}", A_.width); }

 private:
  DeviceEll<T, int32_t> A_;
};

// SELL-C16: converted on the device from the CSR there, at either offset width (the planner admits
// it only where every row spans at most 65535 columns; the conversion throws naming the first row
// otherwise).
template <class T>
DeviceSellC16<T> sell_c16_of(Context& ctx, const MatrixParts<T>& m) {
  if (m.wide != nullptr) return to_sell_c16(ctx, *m.wide);
  return to_sell_c16(ctx, *m.device);
}

template <class T>
class SellC16Spmv final : public Executor<T> {
 public:
  SellC16Spmv(Context& ctx, const MatrixParts<T>& m) : A_(sell_c16_of(ctx, m)) { this->bytes = A_.bytes(); }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_sell_c16(ctx, A_, x, y, alpha, beta);
  }
  std::string describe() const override { return fmt::format("{} slots over {} nonzeros", A_.slots, A_.nnz); }

 private:
  DeviceSellC16<T> A_;
};

// SELL-C16 with a value dictionary: the table the front door kept (else one pass over the host
// values), the slabs and codes converted on the device.
template <class T>
DeviceSellC16Dict<T> dict_of(Context& ctx, const MatrixParts<T>& m) {
  const std::vector<T> table = value_table_of(m);
  if (m.wide != nullptr) return to_sell_c16_dict(ctx, *m.wide, std::span<const T>(table));
  return to_sell_c16_dict(ctx, *m.device, std::span<const T>(table));
}

template <class T>
class SellC16DictSpmv final : public Executor<T> {
 public:
  SellC16DictSpmv(Context& ctx, const MatrixParts<T>& m) : A_(dict_of(ctx, m)) { this->bytes = A_.bytes(); }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_sell_c16_dict(ctx, A_, x, y, alpha, beta);
  }
  std::string describe() const override {
    return fmt::format("{} slots over {} nonzeros, {} distinct values{}", A_.slots, A_.nnz, A_.table.size(),
                       A_.codes.size() == 0 ? " (no codes)" : "");
  }

 private:
  DeviceSellC16Dict<T> A_;
};

template <class T>
class EllrT final : public Executor<T> {
 public:
  EllrT(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs)
      : A_(ellr_of(ctx, m)), config_(plan::ellr_t_rule(*m.stats, ctx.props())) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("ellr_t refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_ellr_t(ctx, A_, x, y, config_, alpha, beta);
  }
  bool set_knobs(Context&, const plan::Knobs& k) override {
    EllrTParams c = config_;
    c.threads_per_row = to_int(plan::knob(k, "threads_per_row", c.threads_per_row));
    c.block_size = to_int(plan::knob(k, "block_size", c.block_size));
    try {
      validate(c);
    } catch (const Error&) {
      return false;
    }
    config_ = c;
    return true;
  }
  plan::Knobs knobs() const override {
    return {{"threads_per_row", config_.threads_per_row}, {"block_size", config_.block_size}};
  }

 private:
  DeviceEllR<T, int32_t> A_;
  EllrTParams config_;
};

template <class T>
class CooSpmv final : public Executor<T> {
 public:
  CooSpmv(Context& ctx, const MatrixParts<T>& m) : A_(upload(ctx, to_coo(*m.host))) {
    this->bytes = A_.bytes();
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_coo(ctx, A_, x, y, alpha, beta);
  }
  std::string describe() const override { return "segmented scan, deterministic"; }

 private:
  DeviceCoo<T, int32_t> A_;
};

template <class T>
class HybSpmv final : public Executor<T> {
 public:
  HybSpmv(Context& ctx, const MatrixParts<T>& m) : A_(to_hyb(ctx, *m.device)) { this->bytes = A_.bytes(); }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_hyb(ctx, A_, x, y, alpha, beta);
  }
  std::string describe() const override {
    return fmt::format("ELL width {}, COO tail {}", A_.ell.width, A_.coo.nnz);
  }

 private:
  DeviceHyb<T, int32_t> A_;
};

// The block size a BSR candidate is built with: the planner's choice from the problem's block
// counts (the same rule as its eligibility), else the counts taken here from the host CSR.
template <class T>
int bsr_block_for(const MatrixParts<T>& m, const plan::Problem& p) {
  plan::Problem q = p;
  if (!q.bsr_blocks) q.bsr_blocks = bsr_block_counts(*m.host);
  const auto best = plan::best_bsr_block(*q.bsr_blocks, static_cast<int>(sizeof(T)));
  if (!best) throw Error("BSR needs at least one nonzero");
  return best->block;
}

template <class T>
DeviceBsr<T, int32_t> bsr_of(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p) {
  return upload(ctx, to_bsr(*m.host, bsr_block_for(m, p)));
}

template <class T>
class BsrSpmv final : public Executor<T> {
 public:
  BsrSpmv(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p, const plan::Knobs& knobs)
      : A_(bsr_of(ctx, m, p)), config_(plan::bsr_spmv_rule(A_.block, A_.blocks, A_.block_rows)) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("bsr refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    spmv_bsr(ctx, A_, x, y, config_, alpha, beta);
  }
  bool set_knobs(Context&, const plan::Knobs& k) override {
    BsrSpmvParams c = config_;
    c.lanes_per_row = to_int(plan::knob(k, "lanes_per_row", c.lanes_per_row));
    c.block_size = to_int(plan::knob(k, "block_size", c.block_size));
    try {
      validate(c, A_.block);
    } catch (const Error&) {
      return false;
    }
    config_ = c;
    return true;
  }
  plan::Knobs knobs() const override {
    return {{"lanes_per_row", config_.lanes_per_row}, {"block_size", config_.block_size}};
  }
  std::string describe() const override {
    return fmt::format("{}x{} blocks, {} lanes per row, block {}", A_.block, A_.block, config_.lanes_per_row,
                       config_.block_size);
  }

 private:
  DeviceBsr<T, int32_t> A_;
  BsrSpmvParams config_;
};

template <class T>
class VendorBsrSpmv final : public Executor<T> {
 public:
  VendorBsrSpmv(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p) : A_(bsr_of(ctx, m, p)) {
    DeviceBuffer<T> x(static_cast<std::size_t>(A_.cols), "planner x"),
        y(static_cast<std::size_t>(A_.rows), "planner y");
    op_.emplace(ctx, A_, std::span<const T>(x.span()), y.span());
    this->bytes = A_.bytes() + op_->workspace_bytes();
  }
  void spmv(Context&, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    op_->set_vectors(x, y);
    op_->set_scalars(alpha, beta);
    op_->run();
  }
  std::string describe() const override {
    return fmt::format("{}x{} blocks, workspace {} bytes", A_.block, A_.block, op_->workspace_bytes());
  }

 private:
  DeviceBsr<T, int32_t> A_;
  std::optional<CusparseBsrSpmv<T>> op_;
};

// A matrix with 64-bit row offsets as cuSPARSE takes it: the front door's offsets and values with
// a copy of the columns widened to 64 bits (cuSPARSE 13 refuses 64-bit offsets over 32-bit columns:
// "different index sizes ... not currently supported"). Its bytes are the copy's.
template <class T>
struct WideColumns {
  const WideDeviceCsr<T>* csr = nullptr;
  DeviceBuffer<int64_t> cols64;
  int32_t rows = 0, cols = 0;
  std::size_t bytes() const { return cols64.bytes(); }
};
template <class M>
inline constexpr bool kWide = false;
template <class T>
inline constexpr bool kWide<WideColumns<T>> = true;
// cuSPARSE's index type for a matrix the vendor executors hold.
template <class M>
using VendorIndex = std::conditional_t<kWide<M>, int64_t, int32_t>;

// The cuSPARSE object for `A` (a format of the front door's, or WideColumns) with the other arguments.
template <class Op, class M, class... Args>
void emplace_vendor(std::optional<Op>& op, Context& ctx, const M& A, Args&&... args) {
  if constexpr (kWide<M>)
    op.emplace(ctx, *A.csr, A.cols64, std::forward<Args>(args)...);
  else
    op.emplace(ctx, A, std::forward<Args>(args)...);
}

// cuSPARSE SpMV on CSR, COO, SELL or a 64-bit CSR: prepared (descriptors, workspace, preprocessing)
// on scratch vectors at build time; a call re-points the vectors and scalars (host side only). `A`
// owns a converted format (COO, SELL, the widened columns) or aliases the front door's CSR without
// owning it.
template <class T, class Matrix>
class VendorSpmv final : public Executor<T> {
 public:
  VendorSpmv(Context& ctx, std::shared_ptr<const Matrix> A, CusparseSpmvAlg alg, bool owns)
      : A_(std::move(A)) {
    // The scratch vectors only serve the preparation; every call re-points the descriptors.
    DeviceBuffer<T> x(static_cast<std::size_t>(A_->cols), "planner x"),
        y(static_cast<std::size_t>(A_->rows), "planner y");
    emplace_vendor(op_, ctx, *A_, alg, std::span<const T>(x.span()), y.span());
    this->bytes = (owns ? A_->bytes() : 0) + op_->workspace_bytes();
  }
  void spmv(Context&, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    op_->set_vectors(x, y);
    op_->set_scalars(alpha, beta);
    op_->run();
  }
  std::string describe() const override { return fmt::format("workspace {} bytes", op_->workspace_bytes()); }

 private:
  std::shared_ptr<const Matrix> A_;
  std::optional<CusparseSpmv<T, VendorIndex<Matrix>>> op_;
};

// The front door's CSR as a non-owning shared_ptr (it outlives every executor of its matrix).
template <class T>
std::shared_ptr<const DeviceCsr<T, int32_t>> borrowed(const DeviceCsr<T, int32_t>& A) {
  return std::shared_ptr<const DeviceCsr<T, int32_t>>(std::shared_ptr<const void>(), &A);
}

template <class M>
std::shared_ptr<const M> owned(M&& A) {
  return std::make_shared<const M>(std::move(A));
}

// --- SpMM ------------------------------------------------------------------------------------------

// Both SpMM kernels' configurations have G (threads_per_row), L_c (cols_per_pass) and the block
// size as tunable knobs; `check` is the kernel's own validation (spx::Error when refused).
template <class Config, class Check>
bool apply_spmm_knobs(Config& config, const plan::Knobs& k, Check check) {
  Config c = config;
  c.threads_per_row = to_int(plan::knob(k, "threads_per_row", c.threads_per_row));
  c.cols_per_pass = to_int(plan::knob(k, "cols_per_pass", c.cols_per_pass));
  c.block_size = to_int(plan::knob(k, "block_size", c.block_size));
  try {
    check(c);
  } catch (const Error&) {
    return false;
  }
  config = c;
  return true;
}

template <class Config>
plan::Knobs spmm_knobs(const Config& c) {
  return {{"threads_per_row", c.threads_per_row},
          {"cols_per_pass", c.cols_per_pass},
          {"block_size", c.block_size}};
}

template <class T>
class SpmmCsr final : public Executor<T> {
 public:
  SpmmCsr(Context& ctx, const MatrixParts<T>& m, int64_t L, plan::SpmmCsrMode mode, const plan::Knobs& knobs)
      : m_(m), config_(plan::spmm_csr_config(mode, *m.stats, L, ctx.props(), static_cast<int>(sizeof(T)))) {
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("spmm_csr refuses {}", plan::to_string(knobs)));
  }
  void spmm(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) override {
    if (m_.wide != nullptr)
      spmm_csr(ctx, *m_.wide, B, C, config_, alpha, beta);
    else
      spmm_csr(ctx, *m_.device, B, C, config_, alpha, beta);
  }
  bool set_knobs(Context&, const plan::Knobs& k) override {
    return apply_spmm_knobs(config_, k, [](const SpmmCsrParams& c) { validate(c); });
  }
  plan::Knobs knobs() const override { return spmm_knobs(config_); }
  std::string describe() const override { return to_string(config_); }

 private:
  MatrixParts<T> m_;
  SpmmCsrParams config_;
};

template <class T>
class SpmmEllrT final : public Executor<T> {
 public:
  SpmmEllrT(Context& ctx, const MatrixParts<T>& m, int64_t L, const plan::Knobs& knobs)
      : A_(ellr_of(ctx, m)), config_(plan::spmm_ellr_rule(*m.stats, L, ctx.props())) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("spmm_ellr_t refuses {}", plan::to_string(knobs)));
  }
  void spmm(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) override {
    spmm_ellr_t(ctx, A_, B, C, config_, alpha, beta);
  }
  bool set_knobs(Context&, const plan::Knobs& k) override {
    return apply_spmm_knobs(config_, k, [](const SpmmEllrParams& c) { validate(c); });
  }
  plan::Knobs knobs() const override { return spmm_knobs(config_); }
  std::string describe() const override { return to_string(config_); }

 private:
  DeviceEllR<T, int32_t> A_;
  SpmmEllrParams config_;
};

template <class T>
std::unique_ptr<Executor<T>> make_spmm_csr(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                           const plan::KernelRow& row, const plan::Knobs& knobs) {
  return std::make_unique<SpmmCsr<T>>(ctx, m, p.cols_dense, row.csr_mode, knobs);
}

template <class T>
std::unique_ptr<Executor<T>> make_spmm_ellr_t(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                              const plan::KernelRow&, const plan::Knobs& knobs) {
  return std::make_unique<SpmmEllrT<T>>(ctx, m, p.cols_dense, knobs);
}

// The leading dimension the planner prepares cuSPARSE for: row-major rows padded to 16 bytes (what
// CSR ALG3 needs), column-major columns as they are.
int64_t planned_ld(int64_t rows, int64_t L, Layout layout) {
  if (layout == Layout::ColMajor) return std::max<int64_t>(rows, 1);
  const int64_t per16 = static_cast<int64_t>(16 / sizeof(float));
  return std::max<int64_t>((L + per16 - 1) / per16 * per16, 1);
}

// cuSPARSE SpMM on CSR or COO: prepared at build time on scratch B and C of the planned L, layout
// and leading dimensions; a call with the same shapes re-points them, another rebuilds (and
// allocates its workspace then). `A` as in VendorSpmv.
template <class T, class Matrix>
class VendorSpmm final : public Executor<T> {
 public:
  VendorSpmm(Context& ctx, std::shared_ptr<const Matrix> A, CusparseSpmmAlg alg, int64_t L, Layout layout,
             bool owns)
      : A_(std::move(A)), alg_(alg), owns_(owns) {
    const int64_t ldb = planned_ld(A_->cols, L, layout), ldc = planned_ld(A_->rows, L, layout);
    const auto elements = [&](int64_t rows, int64_t ld) {
      return static_cast<std::size_t>(layout == Layout::RowMajor ? rows * ld : ld * L);
    };
    DeviceBuffer<T> b(elements(A_->cols, ldb), "planner B"), c(elements(A_->rows, ldc), "planner C");
    build(ctx, {b.data(), A_->cols, L, ldb, layout}, {c.data(), A_->rows, L, ldc, layout}, T{1}, T{0});
  }
  void spmm(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) override {
    if (B.ld == ldb_ && C.ld == ldc_ && B.cols == cols_ && B.layout == layout_)
      op_->set_operands(B, C, alpha, beta);
    else
      build(ctx, B, C, alpha, beta);
    op_->run();
  }
  std::string describe() const override { return fmt::format("workspace {} bytes", op_->workspace_bytes()); }

 private:
  void build(Context& ctx, DenseView<const T> B, DenseView<T> C, T alpha, T beta) {
    op_.reset();
    emplace_vendor(op_, ctx, *A_, alg_, B, C, alpha, beta);
    ldb_ = B.ld;
    ldc_ = C.ld;
    cols_ = B.cols;
    layout_ = B.layout;
    this->bytes = (owns_ ? A_->bytes() : 0) + op_->workspace_bytes();
  }
  std::shared_ptr<const Matrix> A_;
  CusparseSpmmAlg alg_;
  bool owns_;
  int64_t ldb_ = 0, ldc_ = 0, cols_ = 0;
  Layout layout_ = Layout::RowMajor;
  std::optional<CusparseSpmm<T, VendorIndex<Matrix>>> op_;
};

// --- The factory table ----------------------------------------------------------------------------

template <class T>
using Make = std::unique_ptr<Executor<T>> (*)(Context&, const MatrixParts<T>&, const plan::Problem&,
                                              const plan::KernelRow&, const plan::Knobs&);

// spx's kernels by their catalogue row's executor (plan/catalogue.cpp): no kernel name here, and a
// new SpxExecutor without a case is a compiler warning (-Wswitch) and a gap in
// executor_factory_gaps(). cuSPARSE's rows are built from their algorithm and format below.
template <class T>
Make<T> spx_factory(plan::SpxExecutor e) {
  using P = const plan::Problem&;
  using R = const plan::KernelRow&;
  using K = const plan::Knobs&;
  using E = std::unique_ptr<Executor<T>>;
  using X = plan::SpxExecutor;
  switch (e) {
    case X::None:
      return nullptr;
    case X::CsrParam:
      return [](Context& c, const MatrixParts<T>& m, P, R, K k) -> E {
        return std::make_unique<CsrParam<T>>(c, m, k);
      };
    case X::CsrVector:
      return
          [](Context&, const MatrixParts<T>& m, P, R, K) -> E { return std::make_unique<CsrVector<T>>(m); };
    case X::CsrC16:
      return [](Context& c, const MatrixParts<T>& m, P, R, K k) -> E {
        return std::make_unique<CsrC16Spmv<T>>(c, m, k);
      };
    case X::Segsum:
      return [](Context& c, const MatrixParts<T>& m, P, R, K k) -> E {
        return std::make_unique<Segsum<T>>(c, m, k);
      };
    case X::Ell:
      return [](Context& c, const MatrixParts<T>& m, P, R, K) -> E { return std::make_unique<Ell<T>>(c, m); };
    case X::SellC16:
      return [](Context& c, const MatrixParts<T>& m, P, R, K) -> E {
        return std::make_unique<SellC16Spmv<T>>(c, m);
      };
    case X::SellC16Dict:
      return [](Context& c, const MatrixParts<T>& m, P, R, K) -> E {
        return std::make_unique<SellC16DictSpmv<T>>(c, m);
      };
    case X::EllrT:
      return [](Context& c, const MatrixParts<T>& m, P, R, K k) -> E {
        return std::make_unique<EllrT<T>>(c, m, k);
      };
    case X::Coo:
      return [](Context& c, const MatrixParts<T>& m, P, R, K) -> E {
        return std::make_unique<CooSpmv<T>>(c, m);
      };
    case X::Hyb:
      return [](Context& c, const MatrixParts<T>& m, P, R, K) -> E {
        return std::make_unique<HybSpmv<T>>(c, m);
      };
    case X::CsrParamMixed:
      return make_mixed_executor<T>;
    case X::RcmCsr:
      return make_rcm_executor<T>;
    case X::RcmSellC16:
      return make_rcm_sell_executor<T>;
    case X::Bsr:
      return [](Context& c, const MatrixParts<T>& m, P p, R, K k) -> E {
        return std::make_unique<BsrSpmv<T>>(c, m, p, k);
      };
    case X::SpmmCsr:
      return make_spmm_csr<T>;
    case X::SpmmEllrT:
      return make_spmm_ellr_t<T>;
  }
  return nullptr;
}

std::optional<CusparseSpmvAlg> spmv_alg(plan::VendorAlg a) {
  switch (a) {
    case plan::VendorAlg::CsrAlg1:
      return CusparseSpmvAlg::CsrAlg1;
    case plan::VendorAlg::CsrAlg2:
      return CusparseSpmvAlg::CsrAlg2;
    case plan::VendorAlg::CooAlg1:
      return CusparseSpmvAlg::CooAlg1;
    case plan::VendorAlg::CooAlg2:
      return CusparseSpmvAlg::CooAlg2;
    case plan::VendorAlg::SellAlg1:
      return CusparseSpmvAlg::SellAlg1;
    case plan::VendorAlg::BsrAlg1:  // its own wrapper (CusparseBsrSpmv), not CusparseSpmv
    default:
      return std::nullopt;
  }
}

std::optional<CusparseSpmmAlg> spmm_alg(plan::VendorAlg a) {
  switch (a) {
    case plan::VendorAlg::CsrAlg1:
      return CusparseSpmmAlg::CsrAlg1;
    case plan::VendorAlg::CsrAlg2:
      return CusparseSpmmAlg::CsrAlg2;
    case plan::VendorAlg::CsrAlg3:
      return CusparseSpmmAlg::CsrAlg3;
    case plan::VendorAlg::CooAlg1:
      return CusparseSpmmAlg::CooAlg1;
    case plan::VendorAlg::CooAlg2:
      return CusparseSpmmAlg::CooAlg2;
    case plan::VendorAlg::CooAlg3:
      return CusparseSpmmAlg::CooAlg3;
    case plan::VendorAlg::CooAlg4:
      return CusparseSpmmAlg::CooAlg4;
    default:
      return std::nullopt;
  }
}

// Why a cuSPARSE row cannot be built ("" when it can): its algorithm, format and layout.
std::string vendor_gap(const plan::KernelRow& row) {
  const std::string_view f = row.format;
  if (row.op == plan::Operation::Spmv) {
    if (row.vendor == plan::VendorAlg::BsrAlg1) return f == "bsr" ? "" : "BSR ALG1 runs on BSR only";
    if (!spmv_alg(row.vendor)) return "no cuSPARSE SpMV algorithm";
    if (f != "csr" && f != "coo" && f != "sell") return "a format cuSPARSE SpMV is not built on here";
    return {};
  }
  const auto alg = spmm_alg(row.vendor);
  if (!alg) return "no cuSPARSE SpMM algorithm";
  if (!cusparse_spmm_supports(*alg, row.layout)) return "an algorithm cuSPARSE runs in the other layout only";
  if (f != "csr" && f != "coo") return "a format cuSPARSE SpMM is not built on here";
  return {};
}

template <class T>
std::unique_ptr<Executor<T>> build_vendor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                          const plan::KernelRow& row) {
  using Csr = DeviceCsr<T, int32_t>;
  using Coo = DeviceCoo<T, int32_t>;
  const std::string_view f = row.format;
  if (m.wide != nullptr) {  // only the CSR rows have offsets64 (the catalogue's vendor_row)
    if (f != "csr") throw Error(fmt::format("{}: cuSPARSE's {} is not built on 64-bit offsets", row.name, f));
    auto A = std::make_shared<const WideColumns<T>>(
        WideColumns<T>{m.wide, widen_columns(ctx, *m.wide), m.wide->rows, m.wide->cols});
    if (row.op == plan::Operation::Spmv)
      return std::make_unique<VendorSpmv<T, WideColumns<T>>>(ctx, std::move(A), *spmv_alg(row.vendor), true);
    return std::make_unique<VendorSpmm<T, WideColumns<T>>>(ctx, std::move(A), *spmm_alg(row.vendor),
                                                           p.cols_dense, p.layout, true);
  }
  if (row.op == plan::Operation::Spmv) {
    if (row.vendor == plan::VendorAlg::BsrAlg1) return std::make_unique<VendorBsrSpmv<T>>(ctx, m, p);
    const CusparseSpmvAlg alg = *spmv_alg(row.vendor);
    if (f == "csr") return std::make_unique<VendorSpmv<T, Csr>>(ctx, borrowed(*m.device), alg, false);
    if (f == "coo")
      return std::make_unique<VendorSpmv<T, Coo>>(ctx, owned(upload(ctx, to_coo(*m.host))), alg, true);
    return std::make_unique<VendorSpmv<T, DeviceSell<T, int32_t>>>(
        ctx, owned(upload_sell(ctx, *m.host, int32_t{32})), alg, true);
  }
  const CusparseSpmmAlg alg = *spmm_alg(row.vendor);
  const Layout layout = p.layout;
  if (f == "csr")
    return std::make_unique<VendorSpmm<T, Csr>>(ctx, borrowed(*m.device), alg, p.cols_dense, layout, false);
  return std::make_unique<VendorSpmm<T, Coo>>(ctx, owned(upload(ctx, to_coo(*m.host))), alg, p.cols_dense,
                                              layout, true);
}

}  // namespace

std::vector<std::string> executor_factory_gaps() {
  std::vector<std::string> gaps;
  for (const plan::KernelRow& row : plan::catalogue()) {
    if (std::string_view(row.owner) == "cuSPARSE") {
      if (std::string why = vendor_gap(row); !why.empty())
        gaps.push_back(fmt::format("{}: {}", row.name, why));
    } else if (spx_factory<float>(row.executor) == nullptr || spx_factory<double>(row.executor) == nullptr) {
      gaps.push_back(fmt::format("{}: no executor factory (src/cuda/plan/executor.cpp)", row.name));
    }
  }
  return gaps;
}

template <class T>
std::unique_ptr<Executor<T>> build_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                            const std::string& k, const plan::Knobs& knobs) {
  const plan::KernelRow* row = plan::find_kernel(k);
  if (row == nullptr || row->op != p.op || (p.op == plan::Operation::Spmm && row->layout != p.layout))
    throw Error(fmt::format("the planner has no candidate '{}' for {}", k,
                            p.op == plan::Operation::Spmv             ? "SpMV"
                            : p.layout == plan::DenseLayout::RowMajor ? "row-major SpMM"
                                                                      : "column-major SpMM"));
  if (m.wide != nullptr && !row->offsets64)
    throw Error(fmt::format("{}: runs with 32-bit row offsets only; this matrix has 64-bit ones", k));
  if (std::string_view(row->owner) == "cuSPARSE") {
    if (std::string why = vendor_gap(*row); !why.empty()) throw Error(fmt::format("{}: {}", k, why));
    return build_vendor(ctx, m, p, *row);
  }
  const Make<T> make = spx_factory<T>(row->executor);
  if (make == nullptr) throw Error(fmt::format("{}: no executor factory (src/cuda/plan/executor.cpp)", k));
  return make(ctx, m, p, *row, knobs);
}

template class Executor<float>;
template class Executor<double>;
template std::unique_ptr<Executor<float>> build_executor(Context&, const MatrixParts<float>&,
                                                         const plan::Problem&, const std::string&,
                                                         const plan::Knobs&);
template std::unique_ptr<Executor<double>> build_executor(Context&, const MatrixParts<double>&,
                                                          const plan::Problem&, const std::string&,
                                                          const plan::Knobs&);

}  // namespace spx::cuda::detail
