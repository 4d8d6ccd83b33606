// SELL-C16 with a value dictionary (SellC16Dict): SELL-C16's slices, bases and 16-bit column offsets
// (spx/sell_c16.hpp), with the values stored once each in a table of at most 256 and a uint8 code a
// slot — or, where the matrix holds a single value (a pattern or adjacency matrix), no codes at all.
// Constant-coefficient stencils, graphs and pattern matrices have a handful of distinct values: an
// f64 slot then moves 3 bytes (2 + 1) instead of SELL-C16's 10 and CSR's 12, or 2 (docs/formats.md,
// "SELL-C16 with a value dictionary").
//
// Values are told apart bitwise (0.0 and -0.0 are two entries, NaN payloads are kept), so the
// product multiplies exactly the values of the CSR in the same order as SELL-C16: the two agree
// bitwise. Plain host code, every build; the device copy and kernel: spx/cuda/spmv_sell_c16.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "spx/sell_c16.hpp"

namespace spx {

/// The largest table: codes are one byte.
inline constexpr int kSellC16DictMaxValues = 256;

template <class T>
struct SellC16Dict {
  using value_type = T;
  /// The slices, bases and offsets; its `values` are the slots' values as SellC16 stores them (kept
  /// on the host for validate() and to_csr; the device copy holds only the table and the codes).
  SellC16<T> sell;
  std::vector<T> table;        ///< 1..256 distinct values (bitwise), in order of first appearance
  std::vector<uint8_t> codes;  ///< per slot: table index (0 in padding); empty when the table has 1
  bool uniform() const { return table.size() == 1; }
  /// Bytes of what an SpMV streams: offsets, codes, bases, slice pointers, table.
  std::size_t stream_bytes() const;
  /// SELL-C16's checks, the table's size and distinctness, codes in range and matching the values.
  void validate() const;
};

/// Distinct values of `values`, compared bitwise, counted up to `limit`: the count, or limit + 1
/// when there are more (it stops there: a matrix of random values within its first few hundred).
/// One pass with a small open-addressing table: O(n) where the values are few.
template <class T>
int64_t distinct_values_upto(std::span<const T> values, int64_t limit = kSellC16DictMaxValues);

/// The distinct values (told apart bitwise) in order of first appearance, at most limit + 1 of them:
/// the list stops there. distinct_values_upto is its length; the front door keeps the list as the
/// dictionary's table so that converting costs no second pass.
template <class T>
std::vector<T> distinct_values_first(std::span<const T> values, int64_t limit = kSellC16DictMaxValues);

/// The planner's sample of a large matrix's values: its first kDistinctSampleHead values and
/// kDistinctSampleChunks evenly spaced runs of kDistinctSampleChunk (all values up to
/// kDistinctSampleAll). A count past the limit is exact (the matrix has at least that many); a
/// count within it may miss values the sample did not see, which every dictionary conversion
/// finds (each slot's value is looked up in the table) and refuses, so a dictionary candidate
/// planned from a sample refuses itself rather than compute a wrong product.
inline constexpr int64_t kDistinctSampleAll = int64_t{1} << 16;
inline constexpr int64_t kDistinctSampleHead = int64_t{1} << 14;
inline constexpr int64_t kDistinctSampleChunks = 32;
inline constexpr int64_t kDistinctSampleChunk = 512;

/// distinct_values_first over that sample; `sampled` says whether it was one.
template <class T>
std::vector<T> distinct_values_first_sampled(std::span<const T> values, bool& sampled,
                                             int64_t limit = kSellC16DictMaxValues);

/// The table to_sell_c16_dict builds from a matrix's values: bitwise distinct, in order of first
/// appearance, {0} for no values; spx::Error past 256 (the GPU conversion takes it from here).
template <class T>
std::vector<T> sell_c16_dict_table(std::span<const T> values);

/// Converts a canonical Csr (validated first). Throws spx::Error for what to_sell_c16 refuses, and
/// when the matrix holds more than 256 distinct values (naming the count reached).
template <class T>
SellC16Dict<T> to_sell_c16_dict(const Csr<T, int32_t>& A);

template <class T>
Csr<T, int32_t> to_csr(const SellC16Dict<T>& A);

/// Bytes a SellC16Dict of `slots` slots over `rows` rows streams with `distinct` table values.
double sell_c16_dict_stream_bytes(int64_t slots, int64_t rows, int64_t distinct, int value_bytes);

namespace ref {
/// Reference SpMV (checks first; products and sums in double in slot order, y rounded once), reading
/// each value through the table.
template <class T>
void spmv(const SellC16Dict<T>& A, std::span<const T> x, std::span<T> y, T alpha = T{1}, T beta = T{0});
}  // namespace ref

}  // namespace spx
