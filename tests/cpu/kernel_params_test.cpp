// Every kernel's parameter struct follows one convention (kernel_params.hpp): invalid_reason names
// the field and its value, validate throws spx::Error "<kernel>: <reason>".
#include "spx/cuda/kernel_params.hpp"

#include <gtest/gtest.h>

#include <string>

#include "spx/error.hpp"

namespace spx::test {
namespace {

template <class P, class... Extra>
void expect_refused(const P& p, const std::string& message, Extra... extra) {
  EXPECT_EQ(cuda::invalid_reason(p, extra...).empty(), false) << message;
  try {
    cuda::validate(p, extra...);
    ADD_FAILURE() << "accepted: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(KernelParams, EveryStructNamesTheKernelTheFieldAndTheValue) {
  expect_refused(cuda::CsrSpmvParams{256, 3, 1}, "spmv_csr_param: coop 3 is not a power of two in 1..32");
  expect_refused(cuda::EllrTParams{4, 100},
                 "spmv_ellr_t: block_size 100 is not a multiple of 32 in 32..1024");
  expect_refused(cuda::CooParams{true, 48, 256},
                 "spmv_coo: nnz_per_warp 48 is not a multiple of 32 in 32..2^20");
  expect_refused(cuda::SegsumSpmvParams{6, 0, 128, -1},
                 "spmv_segsum: nnz_per_lane 6 is not a multiple of 4 in 4..32 (or 0: chosen from nnz)");
  expect_refused(cuda::SpmmEllrParams{4, 256, 64},
                 "spmm_ellr_t: cols_per_pass 64 is not 1, 2, 4, 8, 16 or 32");
  expect_refused(cuda::SpmmCsrParams{8, 256, 8, 16}, "spmm_csr: long_row_nnz 16 is below 32");
  expect_refused(cuda::BsrSpmvParams{16, 256},
                 "spmv_bsr: lanes_per_row 16 is not a power of two with 4 x "
                 "lanes_per_row <= 32",
                 4);
}

TEST(KernelParams, DefaultsAreValid) {
  EXPECT_NO_THROW(cuda::validate(cuda::CsrSpmvParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::EllrTParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::CooParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::SegsumSpmvParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::SpmmEllrParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::SpmmCsrParams{}));
  EXPECT_NO_THROW(cuda::validate(cuda::BsrSpmvParams{}, 4));
}

}  // namespace
}  // namespace spx::test
