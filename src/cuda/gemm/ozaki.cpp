// The emulated DGEMM's host side (ozaki.hpp): the workspace, the statistics round trip, the
// choice of width and moduli, the INT8 products through cuBLASLt (int8 in, int32 out, "TN": the
// residue matrices are stored k-major, so op(A)'s rows and op(B)'s columns are both columns of
// k-deep int8 matrices), and the reconstruction.
#include "cuda/gemm/ozaki.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <optional>

#include "cpu/gemm_ozaki_host.hpp"
#include "cuda/common/check.hpp"
#include "cuda/common/workspace.hpp"
#include "cuda/gemm/ozaki_launch.hpp"
#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

constexpr std::size_t kLtWorkspace = std::size_t{32} << 20;  // cuBLASLt's split-k / stream-k scratch
constexpr int64_t kMaxTilesK = 65535;                        // the conversion grid's y extent, in 32s of k

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }
double mib(std::size_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

// The cuBLASLt handle of this host thread and device (created on first use, kept for the thread).
cublasLtHandle_t lt_handle(int device) {
  thread_local std::map<int, cublasLtHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t h = nullptr;
  SPX_CUBLAS_CHECK(cublasLtCreate(&h));
  handles[device] = h;
  return h;
}

// One INT8 product shape: C (m × n, int32, ldc) = A^T B with A kc × m and B kc × n int8, both with
// leading dimension kpad (multiples of 16 bytes: the IMMA kernels' alignment), one algorithm from the
// heuristic, reused for every modulus.
class Int8Gemm {
 public:
  Int8Gemm(cublasLtHandle_t lt, int64_t m, int64_t n, int64_t kc, int64_t kpad, int64_t ldc) : lt_(lt) {
    SPX_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32I, CUDA_R_32I));
    const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
    SPX_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa));
    SPX_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb));
    SPX_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_, CUDA_R_8I, static_cast<uint64_t>(kc),
                                                static_cast<uint64_t>(m), kpad));
    SPX_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_, CUDA_R_8I, static_cast<uint64_t>(kc),
                                                static_cast<uint64_t>(n), kpad));
    SPX_CUBLAS_CHECK(
        cublasLtMatrixLayoutCreate(&c_, CUDA_R_32I, static_cast<uint64_t>(m), static_cast<uint64_t>(n), ldc));
    cublasLtMatmulPreference_t pref = nullptr;
    SPX_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kLtWorkspace;
    SPX_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    int found = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(lt_, op_, a_, b_, c_, c_, pref, 1, &algo_, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (status != CUBLAS_STATUS_SUCCESS || found == 0) {
      release();
      throw Error(fmt::format("emulated DGEMM: cuBLASLt has no INT8 algorithm for {} x {} x {} (status {})",
                              m, n, kc, static_cast<int>(status)));
    }
  }
  ~Int8Gemm() { release(); }
  Int8Gemm(const Int8Gemm&) = delete;
  Int8Gemm& operator=(const Int8Gemm&) = delete;

  void run(Context& ctx, const int8_t* A, const int8_t* B, int32_t* C, void* workspace) const {
    const int32_t one = 1, zero = 0;
    SPX_CUBLAS_CHECK(cublasLtMatmul(lt_, op_, &one, A, a_, B, b_, &zero, C, c_, C, c_, &algo_.algo, workspace,
                                    kLtWorkspace, ctx.stream()));
  }

 private:
  void release() {
    if (a_) cublasLtMatrixLayoutDestroy(a_);
    if (b_) cublasLtMatrixLayoutDestroy(b_);
    if (c_) cublasLtMatrixLayoutDestroy(c_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    a_ = b_ = c_ = nullptr;
    op_ = nullptr;
  }
  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
};

// An Int8Gemm for (m, n, kc) into C with ld m, or why cuBLASLt offers none (then native runs).
std::string make_gemm(std::optional<Int8Gemm>& g, cublasLtHandle_t lt, int64_t m, int64_t n, int64_t kc,
                      int64_t kpad) {
  try {
    g.emplace(lt, m, n, kc, kpad, m);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

// Where everything lives in ctx.workspace(): the statistics and flags first (they outlive the
// round trip), then the bound product's integers — dead once the room is known — overlapped by
// the residues and the int32 products.
struct Layout {
  std::size_t flags = 0, exp_a = 0, rel_a = 0, exp_b = 0, rel_b = 0, lt = 0, body = 0;
  std::size_t bound_a = 0, bound_b = 0, bound = 0;              // phase 1, from body
  std::size_t res_a = 0, res_b = 0, products = 0, scratch = 0;  // phase 2, from body
  std::size_t total = 0;
};
Layout layout_for(int64_t mpad, int64_t npad, int64_t kpad, int moduli, bool chunked) {
  Layout L;
  std::size_t at = 0;
  const auto take = [&](std::size_t& field, std::size_t bytes) {
    field = at;
    at += detail::workspace_aligned(bytes);
  };
  const auto M = static_cast<std::size_t>(mpad), N = static_cast<std::size_t>(npad),
             K = static_cast<std::size_t>(kpad);
  const std::size_t C32 = M * N * sizeof(int32_t);
  take(L.flags, sizeof(OzakiFlags));
  take(L.exp_a, M * sizeof(int));
  take(L.rel_a, M * sizeof(double));
  take(L.exp_b, N * sizeof(int));
  take(L.rel_b, N * sizeof(double));
  take(L.lt, kLtWorkspace);
  L.body = at;
  take(L.bound_a, M * K);
  take(L.bound_b, N * K);
  take(L.bound, C32);
  const std::size_t phase1 = at;
  at = L.body;
  const auto R = static_cast<std::size_t>(moduli);
  take(L.res_a, R * M * K);
  take(L.res_b, R * N * K);
  take(L.products, R * C32);
  if (chunked) take(L.scratch, C32);
  L.total = std::max(phase1, at);
  return L;
}

// Whether `bytes` of workspace can be had: what the context holds plus what the device has free.
std::string workspace_refusal(Context& ctx, std::size_t bytes) {
  if (bytes <= ctx.workspace_bytes()) return {};
  std::size_t free = 0, total = 0;
  SPX_CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes - ctx.workspace_bytes() <= free) return {};
  return fmt::format("the emulation needs {:.0f} MiB of workspace, {:.0f} MiB free of {:.0f} MiB", mib(bytes),
                     mib(free + ctx.workspace_bytes()), mib(total));
}

}  // namespace

bool run_ozaki_gemm(Context& ctx, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const double* A, int64_t lda, const double* B, int64_t ldb, double beta, double* C,
                    int64_t ldc, int expected_moduli, const std::function<std::string(int)>& veto,
                    GemmEmulationReport& report) {
  report = GemmEmulationReport{};
  // k, m and n padded to multiples of 16 with zeros: every INT8 product is a multiple of 16 in
  // each extent and every leading dimension a multiple of 16 bytes (the IMMA kernels' alignment).
  const int64_t kpad = round_up(k, ozaki::kPadK), mpad = round_up(m, ozaki::kPadK);
  const int64_t npad = round_up(n, ozaki::kPadK), ldp = mpad;
  if (kpad / 32 + 1 > kMaxTilesK) {
    report.reason = fmt::format("k = {} is past the conversion grid ({} at most)", k, kMaxTilesK * 32 - 32);
    return false;
  }
  const int64_t chunks = (kpad + ozaki::kChunkK - 1) / ozaki::kChunkK;
  const int guess = std::clamp(expected_moduli, 1, ozaki::kMaxModuli);
  Layout L = layout_for(mpad, npad, kpad, guess, chunks > 1);
  if (std::string why = workspace_refusal(ctx, L.total); !why.empty()) {
    report.reason = why;
    return false;
  }
  auto* ws = static_cast<std::byte*>(ctx.workspace(L.total));
  const auto at = [&](std::size_t offset) { return ws + offset; };
  // op(A)'s rows and op(B)'s columns as vectors along k.
  const OzakiVectors va{A, m, k, op_a == Op::N ? 1 : lda, op_a == Op::N ? lda : 1};
  const OzakiVectors vb{B, n, k, op_b == Op::N ? ldb : 1, op_b == Op::N ? 1 : ldb};
  const auto stats = [&] {
    auto* flags = reinterpret_cast<OzakiFlags*>(at(L.flags));
    static const OzakiFlags kInitial{0x7ff0000000000000ULL, 0, kNoVector, kNoVector};  // +inf, 0, none, none
    SPX_CUDA_CHECK(cudaMemcpyAsync(flags, &kInitial, sizeof kInitial, cudaMemcpyHostToDevice, ctx.stream()));
    launch_ozaki_stats(ctx, va, reinterpret_cast<int*>(at(L.exp_a)), reinterpret_cast<double*>(at(L.rel_a)),
                       &flags->nonfinite_a);
    launch_ozaki_stats(ctx, vb, reinterpret_cast<int*>(at(L.exp_b)), reinterpret_cast<double*>(at(L.rel_b)),
                       &flags->nonfinite_b);
  };
  stats();
  const auto* exp_a = reinterpret_cast<const int*>(at(L.exp_a));
  const auto* exp_b = reinterpret_cast<const int*>(at(L.exp_b));
  const ozaki::CrtTable none{};
  const cublasLtHandle_t lt = lt_handle(ctx.device());

  // The bound product (7-bit integers of |A| and |B|, the first kBoundK of k) and the room it
  // leaves each element; then the one round trip.
  auto* bound_a = reinterpret_cast<int8_t*>(at(L.bound_a));
  auto* bound_b = reinterpret_cast<int8_t*>(at(L.bound_b));
  auto* bound = reinterpret_cast<int32_t*>(at(L.bound));
  std::optional<Int8Gemm> bound_gemm;
  if (std::string why = make_gemm(bound_gemm, lt, mpad, npad, std::min(kpad, ozaki::kBoundK), kpad);
      !why.empty()) {
    report.reason = why;
    return false;
  }
  launch_ozaki_convert(ctx, va, mpad, exp_a, kpad, 0, none, bound_a, 0);
  launch_ozaki_convert(ctx, vb, npad, exp_b, kpad, 0, none, bound_b, 0);
  bound_gemm->run(ctx, bound_a, bound_b, bound, at(L.lt));
  auto* flags_d = reinterpret_cast<OzakiFlags*>(at(L.flags));
  launch_ozaki_room(ctx, m, n, k, bound, ldp, exp_a, reinterpret_cast<const double*>(at(L.rel_a)), exp_b,
                    reinterpret_cast<const double*>(at(L.rel_b)), flags_d);
  OzakiFlags flags{};
  SPX_CUDA_CHECK(cudaMemcpyAsync(&flags, flags_d, sizeof flags, cudaMemcpyDeviceToHost, ctx.stream()));
  SPX_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  if (flags.nonfinite_a != kNoVector) {
    report.reason = fmt::format("row {} of op(A) holds Inf or NaN", flags.nonfinite_a);
    return false;
  }
  if (flags.nonfinite_b != kNoVector) {
    report.reason = fmt::format("column {} of op(B) holds Inf or NaN", flags.nonfinite_b);
    return false;
  }
  double min_room = 0;
  static_assert(sizeof min_room == sizeof flags.min_room_bits);
  std::memcpy(&min_room, &flags.min_room_bits, sizeof min_room);
  const ozaki::OzakiChoice choice =
      ozaki::choose_emulation(k, min_room, static_cast<int64_t>(flags.uncertified));
  report.room = min_room;
  report.bits = choice.bits;
  report.moduli = choice.moduli;
  if (!choice.emulate) {
    report.reason = choice.reason;
    return false;
  }
  if (std::string why = veto ? veto(choice.moduli) : std::string(); !why.empty()) {
    report.reason = why;
    return false;
  }

  // The residues and their products, with the workspace the moduli need (a larger one is a new
  // allocation: the statistics are computed again into it).
  L = layout_for(mpad, npad, kpad, choice.moduli, chunks > 1);
  if (L.total > ctx.workspace_bytes()) {
    if (std::string why = workspace_refusal(ctx, L.total); !why.empty()) {
      report.reason = why;
      return false;
    }
    ws = static_cast<std::byte*>(ctx.workspace(L.total));
    stats();
    exp_a = reinterpret_cast<const int*>(at(L.exp_a));
    exp_b = reinterpret_cast<const int*>(at(L.exp_b));
  }
  const ozaki::CrtTable table = ozaki::crt_table(choice.moduli);
  auto* res_a = reinterpret_cast<int8_t*>(at(L.res_a));
  auto* res_b = reinterpret_cast<int8_t*>(at(L.res_b));
  auto* products = reinterpret_cast<int32_t*>(at(L.products));
  const int64_t stride_a = mpad * kpad, stride_b = npad * kpad, stride_p = ldp * npad;
  const int64_t last_k = kpad - (chunks - 1) * ozaki::kChunkK;
  std::optional<Int8Gemm> last, full;
  std::string why = make_gemm(last, lt, mpad, npad, last_k, kpad);
  if (why.empty() && chunks > 1) why = make_gemm(full, lt, mpad, npad, ozaki::kChunkK, kpad);
  if (!why.empty()) {
    report.reason = why;
    return false;
  }
  launch_ozaki_convert(ctx, va, mpad, exp_a, kpad, choice.bits, table, res_a, stride_a);
  launch_ozaki_convert(ctx, vb, npad, exp_b, kpad, choice.bits, table, res_b, stride_b);
  for (int l = 0; l < choice.moduli; ++l) {
    int32_t* out = products + l * stride_p;
    for (int64_t c = 0; c < chunks; ++c) {
      const int64_t offset = c * ozaki::kChunkK;
      const Int8Gemm& g = c + 1 == chunks ? *last : *full;
      int32_t* dst = c == 0 ? out : reinterpret_cast<int32_t*>(at(L.scratch));
      g.run(ctx, res_a + l * stride_a + offset, res_b + l * stride_b + offset, dst, at(L.lt));
      if (c > 0) launch_ozaki_fold(ctx, m, n, ldp, out, dst, table.moduli[l], table.inverse[l]);
    }
  }
  launch_ozaki_reconstruct(ctx, table, choice.bits, m, n, products, ldp, stride_p, exp_a, exp_b, alpha, beta,
                           C, ldc);
  report.emulated = true;
  return true;
}

}  // namespace spx::cuda::detail
