// The CUDA SpMM entries: cuSPARSE SpMM (CSR ALG1/ALG2/ALG3, COO ALG1, and COO ALG3/ALG4 where
// they apply) with column-major and with row-major dense operands.
//
// Layout is part of the kernel name (`cusparse_spmm_csr_alg2_row`), not only a parameter: the
// engine runs each registry entry once per problem, and the two layouts are different products
// whose times people compare side by side (cuSPARSE tunes ALG1 for column-major and ALG2/ALG3 for
// row-major). `params.layout` says it too. The row-major kernels get a B whose leading dimension
// is padded to a multiple of 16 bytes — CSR ALG3 faults on rows that start off a 16-byte boundary
// (docs/cuda-runtime.md) — and every kernel of a layout gets that same B (device_b), so they stay
// comparable.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "bench/cuda_support.hpp"
#include "spx/cuda/vendor.hpp"

namespace spx::bench {
namespace {

using cuda::CusparseSpmmAlg;

// device_b, make_c and staged_view: bench/cuda_support.hpp.

// "cusparse_spmm_csr_alg1" → "CUSPARSE_SPMM_CSR_ALG1", the enumerator's name.
std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text;
}

bool is_coo(CusparseSpmmAlg alg) {
  return alg != CusparseSpmmAlg::CsrAlg1 && alg != CusparseSpmmAlg::CsrAlg2 &&
         alg != CusparseSpmmAlg::CsrAlg3;
}

template <class T>
std::unique_ptr<Instance> cusparse_spmm(const Problem& p, CusparseSpmmAlg alg, Layout layout) {
  cuda::Context& ctx = bench_context();
  auto B = device_b<T>(p, layout);
  auto C = std::make_shared<cuda::DeviceDense<T>>(make_c<T>(p, layout));
  std::shared_ptr<const void> A;
  std::shared_ptr<cuda::CusparseSpmm<T, int32_t>> op;
  std::size_t matrix_bytes = 0;
  if (is_coo(alg)) {
    auto coo = device_coo<T>(p);
    op = std::make_shared<cuda::CusparseSpmm<T, int32_t>>(ctx, *coo, alg, *B, *C);
    matrix_bytes = coo->bytes();
    A = std::move(coo);
  } else {
    auto csr = device_csr<T>(p);
    op = std::make_shared<cuda::CusparseSpmm<T, int32_t>>(ctx, *csr, alg, *B, *C);
    matrix_bytes = csr->bytes();
    A = std::move(csr);
  }
  CudaInstanceParts parts;
  parts.launch = [op, A, B, C] { op->run(); };
  parts.view = [C] { return staged_view(*C); };
  parts.output = C->data.data();
  parts.output_bytes = C->bytes();
  parts.working_set = matrix_bytes + B->bytes() + C->bytes();
  parts.params = {{"algorithm", std::string(cuda::kernel_name(alg))},
                  {"layout", layout == Layout::ColMajor ? "col" : "row"},
                  {"ld_b", B->ld},
                  {"ld_c", C->ld},
                  {"workspace_bytes", static_cast<int64_t>(op->workspace_bytes())}};
  return std::make_unique<CudaInstance>(std::move(parts));
}

void add_cusparse_spmm(Registry& registry, CusparseSpmmAlg alg, Layout layout) {
  const bool col = layout == Layout::ColMajor;
  auto e = cuda_entry(fmt::format("{}_{}", cuda::kernel_name(alg), col ? "col" : "row"), OpKind::Spmm,
                      is_coo(alg) ? Format::Coo : Format::Csr, true,
                      fmt::format("cuSPARSE SpMM, {}, {} B and C", upper(cuda::kernel_name(alg)),
                                  col ? "column-major" : "row-major (ld padded to 16 bytes)"));
  e.layout = layout;
  e.prepare = [alg, layout](const Problem& p) {
    return with_precision(p, [&](auto tag) {
      using T = decltype(tag);
      return cusparse_spmm<T>(p, alg, layout);
    });
  };
  registry.add(std::move(e));
}

}  // namespace

void register_cuda_spmm(Registry& registry) {
  // COO ALG2 is left out: the deterministic variant ran 6-8x slower than ALG1/ALG3 on H100
  // (G3_circuit, docs/cuda-runtime.md) and would only lengthen the suite.
  for (Layout layout : {Layout::ColMajor, Layout::RowMajor}) {
    for (CusparseSpmmAlg alg :
         {CusparseSpmmAlg::CsrAlg1, CusparseSpmmAlg::CsrAlg2, CusparseSpmmAlg::CsrAlg3,
          CusparseSpmmAlg::CooAlg1, CusparseSpmmAlg::CooAlg3, CusparseSpmmAlg::CooAlg4}) {
      if (cuda::cusparse_spmm_supports(alg, layout)) add_cusparse_spmm(registry, alg, layout);
    }
  }
}

}  // namespace spx::bench
