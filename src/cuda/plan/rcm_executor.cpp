// The RCM candidates' executors (rcm_executor.hpp). rcm_csr's knobs are csr_param's (coop,
// block_size, repeat) on the renumbered matrix; rcm_sell_c16 has none.
#include "cuda/plan/rcm_executor.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cuda/common/scale.hpp"
#include "cuda/spmv/sell_c16_launch.hpp"
#include "spx/column_spans.hpp"
#include "spx/cuda/convert.hpp"
#include "spx/cuda/reorder.hpp"
#include "spx/cuda/spmv_csr.hpp"
#include "spx/error.hpp"
#include "spx/reorder.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::cuda::detail {
namespace {

template <class T>
class RcmCsrExecutor final : public Executor<T> {
 public:
  RcmCsrExecutor(Context& ctx, const MatrixParts<T>& m, const plan::Knobs& knobs) : A_(ctx, *m.host) {
    this->bytes = A_.bytes();
    if (!knobs.empty() && !set_knobs(ctx, knobs))
      throw Error(fmt::format("rcm_csr refuses {}", plan::to_string(knobs)));
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    A_.spmv(ctx, x, y, alpha, beta);
  }
  bool set_knobs(Context& ctx, const plan::Knobs& k) override {
    const auto p = with_csr_knobs(A_.plan().params, k);
    if (!p) return false;
    if (*p != A_.plan().params) A_.plan() = plan_csr_spmv(ctx, A_.permuted(), A_.host_permuted(), *p);
    return true;
  }
  plan::Knobs knobs() const override { return csr_knobs(A_.plan().params); }
  std::string describe() const override {
    return fmt::format("RCM-renumbered ({:.0f} us on the host), {}", A_.host_reorder_us(),
                       to_string(A_.plan().params));
  }

 private:
  RcmCsr<T> A_;
};

// rcm_sell_c16: the matrix renumbered by RCM on the host (B = P A P^T), uploaded and converted on
// the device to SELL-C16 -- with the value dictionary where A holds at most 256 distinct values --
// since RCM's band brings every row's columns within 16-bit offsets of its first. A product is two
// launches: x' = x[perm] (gather), then SELL-C16's kernel on B writing row i to y[perm[i]] (no y'
// and no second pass over y, as rcm_csr's scatter).
template <class T>
class RcmSellExecutor final : public Executor<T> {
 public:
  RcmSellExecutor(Context& ctx, const MatrixParts<T>& m) {
    const Csr<T, int32_t>& A = *m.host;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<int32_t> perm = reorder::rcm(A);
    const Csr<T, int32_t> B = reorder::permute_symmetric(A, std::span<const int32_t>(perm));
    host_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    const ColumnSpanStats spans = column_span_stats(B);
    if (spans.wide_rows > 0)
      throw Error(
          fmt::format("after RCM {} rows still span more than {} columns (widest {}): no 16-bit offsets",
                      spans.wide_rows, kC16MaxSpan, spans.max_span));
    {
      const DeviceCsr<T, int32_t> dB = upload(ctx, B);  // freed once converted
      // B holds A's values: the front door's table (or one pass) is B's.
      const bool few =
          !m.value_table_bits.empty() ||
          distinct_values_upto(std::span<const T>(B.values), kSellC16DictMaxValues) <= kSellC16DictMaxValues;
      if (few) {
        const std::vector<T> table = value_table_of(m);
        try {
          dict_ = to_sell_c16_dict(ctx, dB, std::span<const T>(table));
        } catch (const Error&) {
          // The front door's table came from a sample of the values and missed one: no dictionary.
          if (m.value_table_bits.empty()) throw;
          sell_ = to_sell_c16(ctx, dB);
        }
      } else {
        sell_ = to_sell_c16(ctx, dB);
      }
      ctx.synchronize();
    }
    perm_ = to_device(ctx, perm, "rcm permutation");
    x_ = DeviceBuffer<T>(perm.size(), "rcm x'");
    this->bytes = (dict_ ? dict_->bytes() : sell_->bytes()) + perm_.bytes() + x_.bytes();
  }
  void spmv(Context& ctx, std::span<const T> x, std::span<T> y, T alpha, T beta) override {
    const int64_t n = static_cast<int64_t>(x_.size());
    if (static_cast<int64_t>(x.size()) != n || static_cast<int64_t>(y.size()) != n)
      throw Error(fmt::format("rcm_sell_c16: x has {} and y {} entries; the matrix is {} x {}", x.size(),
                              y.size(), n, n));
    if (n == 0) return;
    // BLAS convention, as every spx kernel: alpha == 0 reads neither A nor x.
    if (alpha == T{0}) return scale_in_place(ctx, y.data(), y.size(), beta);
    gather<T>(ctx, perm_.span(), x, x_.span());
    const std::span<const T> xp(x_.span());
    if (dict_)
      spmv_sell_c16_dict_rows(ctx, *dict_, xp, y, perm_.span(), alpha, beta);
    else
      spmv_sell_c16_rows(ctx, *sell_, xp, y, perm_.span(), alpha, beta);
  }
  std::string describe() const override {
    if (dict_)
      return fmt::format("RCM-renumbered ({:.0f} us on the host), SELL-C16 with {} distinct values, {} slots",
                         host_us_, dict_->table.size(), dict_->slots);
    return fmt::format("RCM-renumbered ({:.0f} us on the host), SELL-C16, {} slots", host_us_, sell_->slots);
  }

 private:
  std::optional<DeviceSellC16<T>> sell_;
  std::optional<DeviceSellC16Dict<T>> dict_;
  DeviceBuffer<int32_t> perm_;
  DeviceBuffer<T> x_;
  double host_us_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Executor<T>> make_rcm_sell_executor(Context& ctx, const MatrixParts<T>& m,
                                                    const plan::Problem& p, const plan::KernelRow&,
                                                    const plan::Knobs& knobs) {
  if (p.op != plan::Operation::Spmv) throw Error("rcm_sell_c16 is an SpMV candidate");
  if (!knobs.empty()) throw Error(fmt::format("rcm_sell_c16 has no knobs, not {}", plan::to_string(knobs)));
  return std::make_unique<RcmSellExecutor<T>>(ctx, m);
}

template <class T>
std::unique_ptr<Executor<T>> make_rcm_executor(Context& ctx, const MatrixParts<T>& m, const plan::Problem& p,
                                               const plan::KernelRow&, const plan::Knobs& knobs) {
  if (p.op != plan::Operation::Spmv) throw Error("rcm_csr is an SpMV candidate");
  return std::make_unique<RcmCsrExecutor<T>>(ctx, m, knobs);
}

template std::unique_ptr<Executor<float>> make_rcm_executor(Context&, const MatrixParts<float>&,
                                                            const plan::Problem&, const plan::KernelRow&,
                                                            const plan::Knobs&);
template std::unique_ptr<Executor<double>> make_rcm_executor(Context&, const MatrixParts<double>&,
                                                             const plan::Problem&, const plan::KernelRow&,
                                                             const plan::Knobs&);
template std::unique_ptr<Executor<float>> make_rcm_sell_executor(Context&, const MatrixParts<float>&,
                                                                 const plan::Problem&, const plan::KernelRow&,
                                                                 const plan::Knobs&);
template std::unique_ptr<Executor<double>> make_rcm_sell_executor(Context&, const MatrixParts<double>&,
                                                                  const plan::Problem&,
                                                                  const plan::KernelRow&, const plan::Knobs&);

}  // namespace spx::cuda::detail
