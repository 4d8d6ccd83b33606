// plan::fill_host_extras (spx/plan.hpp): the host-side inputs of the formats' eligibility, shared
// by the front door and `spx plan show`.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "spx/bsr.hpp"
#include "spx/column_spans.hpp"
#include "spx/plan.hpp"
#include "spx/reorder.hpp"
#include "spx/sell_c16_dict.hpp"

namespace spx::plan {

namespace {

template <class T>
std::vector<uint64_t> value_bits(std::span<const T> values) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  std::vector<uint64_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    Bits b;
    std::memcpy(&b, &values[i], sizeof b);
    out[i] = b;
  }
  return out;
}

}  // namespace

template <class T>
void fill_host_extras(const Csr<T, int32_t>& A, HostExtras& extras, Problem& p) {
  if (!extras.column_spans) extras.column_spans = column_span_stats(A);  // O(rows)
  p.column_spans = extras.column_spans;
  if (p.op != Operation::Spmv) return;
  // Sampled (1024 windows of 32 rows): rcm_csr's eligibility.
  if (A.rows == A.cols) {
    if (!extras.locality) extras.locality = reorder::locality(A);
    p.locality = extras.locality;
  }
  // Sampled (6 block sizes, rows of about kBsrPlannerSampleNnz nonzeros each): BSR's eligibility
  // and bytes.
  if (!extras.bsr_blocks) {
    const double avg_row = A.rows > 0 ? static_cast<double>(A.nnz()) / static_cast<double>(A.rows) : 0.0;
    const auto budget =
        static_cast<int64_t>(static_cast<double>(kBsrPlannerSampleNnz) / std::max(avg_row, 1.0));
    extras.bsr_blocks =
        bsr_block_counts(A, std::clamp(budget, kBsrMinPlannerSampleRows, kBsrMaxPlannerSampleRows));
  }
  p.bsr_blocks = extras.bsr_blocks;
  // Counted only where SELL-C16 can hold the matrix (no row wider than 16-bit offsets) or its RCM
  // renumbering may (rcm_sell_c16: x gathered poorly); it stops at the 257th distinct value (a
  // matrix of random values within its first hundreds); on a sample of a large matrix's values
  // (distinct_values_first_sampled: the dictionary conversions refuse a value the sample missed).
  if (extras.column_spans->wide_rows == 0 || (p.locality && p.locality->gathers_poorly())) {
    count_distinct_values(std::span<const T>(A.values), extras);
    p.distinct_values = extras.distinct_values;
  }
}

template <class T>
void count_distinct_values(std::span<const T> values, HostExtras& extras) {
  if (extras.distinct_values) return;
  bool sampled = false;
  const std::vector<T> first = distinct_values_first_sampled(values, sampled, kSellC16DictMaxValues);
  extras.distinct_values = static_cast<int64_t>(first.size());
  if (first.size() <= static_cast<std::size_t>(kSellC16DictMaxValues))
    extras.value_table_bits = value_bits(std::span<const T>(first));
}

template void fill_host_extras(const Csr<float, int32_t>&, HostExtras&, Problem&);
template void fill_host_extras(const Csr<double, int32_t>&, HostExtras&, Problem&);
template void count_distinct_values(std::span<const float>, HostExtras&);
template void count_distinct_values(std::span<const double>, HostExtras&);

}  // namespace spx::plan
