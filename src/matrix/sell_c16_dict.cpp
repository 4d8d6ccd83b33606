// SellC16Dict (spx/sell_c16_dict.hpp): the distinct-value count, the conversion both ways, the
// checks, the byte count, and the reference SpMV.
#include "spx/sell_c16_dict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "cpu/kernel_checks.hpp"
#include "spx/error.hpp"

namespace spx {

namespace {

template <class T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

template <class T>
Bits<T> bits_of(T v) {
  Bits<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// An open-addressing set of bit patterns holding at most `limit` + 1 entries (the table is 4x that,
// a power of two), each with its index of first insertion.
template <class T>
class ValueSet {
 public:
  explicit ValueSet(int64_t limit) {
    std::size_t size = 16;
    while (size < static_cast<std::size_t>(4 * (limit + 1))) size *= 2;
    keys_.assign(size, 0);
    used_.assign(size, 0);
    index_.assign(size, 0);
  }
  // The value's index (inserted if new); -1 when the set already holds `limit` + 1 values.
  int64_t insert(T v, int64_t limit) {
    const Bits<T> b = bits_of(v);
    // Matrices of few values repeat them in runs (a stencil row: -1 after -1): the last hit first.
    if (count_ > 0 && b == last_bits_) return last_index_;
    std::size_t h = static_cast<std::size_t>((static_cast<uint64_t>(b) * 0x9E3779B97F4A7C15ull) >> 20) &
                    (keys_.size() - 1);
    while (used_[h] && keys_[h] != b) h = (h + 1) & (keys_.size() - 1);
    if (used_[h]) return remember(b, index_[h]);
    if (count_ > limit) return -1;
    used_[h] = 1;
    keys_[h] = b;
    index_[h] = count_;
    values_.push_back(v);
    return remember(b, count_++);
  }
  int64_t count() const { return count_; }
  const std::vector<T>& values() const { return values_; }

 private:
  std::vector<Bits<T>> keys_;
  std::vector<char> used_;
  std::vector<int64_t> index_;
  int64_t remember(Bits<T> b, int64_t index) {
    last_bits_ = b;
    last_index_ = index;
    return index;
  }

  std::vector<T> values_;
  int64_t count_ = 0;
  Bits<T> last_bits_ = 0;
  int64_t last_index_ = 0;
};

// Values per chunk of the parallel passes below (each chunk's own set, merged in chunk order).
constexpr std::size_t kValuesPerChunk = std::size_t{1} << 20;

// The distinct values of `values` in order of first appearance, at most limit + 1 of them (more:
// the list stops at limit + 1). Chunks are scanned in parallel, each into its own set, and merged
// in chunk order: a value's first appearance in the earliest chunk holding it is its first
// appearance overall, so the order is the serial pass's whatever the threads.
template <class T>
std::vector<T> first_distinct_values(std::span<const T> values, int64_t limit) {
  const std::size_t chunks = (values.size() + kValuesPerChunk - 1) / kValuesPerChunk;
  std::vector<std::vector<T>> found(chunks);
#pragma omp parallel for schedule(dynamic, 1) if (chunks > 1)
  for (std::size_t c = 0; c < chunks; ++c) {
    ValueSet<T> set(limit);
    const std::size_t end = std::min(values.size(), (c + 1) * kValuesPerChunk);
    for (std::size_t i = c * kValuesPerChunk; i < end && set.count() <= limit; ++i)
      set.insert(values[i], limit);
    found[c] = set.values();
  }
  ValueSet<T> all(limit);
  for (const std::vector<T>& chunk : found)
    for (const T v : chunk) {
      all.insert(v, limit);
      if (all.count() > limit) return all.values();
    }
  return all.values();
}

int64_t slices_of(int64_t rows) { return (rows + kSellC16SliceRows - 1) / kSellC16SliceRows; }

}  // namespace

template <class T>
std::vector<T> distinct_values_first(std::span<const T> values, int64_t limit) {
  if (limit < 0) throw Error(fmt::format("distinct_values: limit {} is negative", limit));
  // Each chunk stops at its first value past the limit: a matrix of random values within its first
  // few hundred.
  return first_distinct_values(values, limit);
}

template <class T>
std::vector<T> distinct_values_first_sampled(std::span<const T> values, bool& sampled, int64_t limit) {
  sampled = static_cast<int64_t>(values.size()) > kDistinctSampleAll;
  if (!sampled) return distinct_values_first(values, limit);
  std::vector<T> sample(values.begin(), values.begin() + kDistinctSampleHead);
  const auto rest = static_cast<int64_t>(values.size()) - kDistinctSampleHead;
  for (int64_t c = 0; c < kDistinctSampleChunks; ++c) {
    const int64_t first =
        kDistinctSampleHead + c * (rest - kDistinctSampleChunk) / (kDistinctSampleChunks - 1);
    sample.insert(sample.end(), values.begin() + first, values.begin() + first + kDistinctSampleChunk);
  }
  return distinct_values_first(std::span<const T>(sample), limit);
}

template <class T>
int64_t distinct_values_upto(std::span<const T> values, int64_t limit) {
  return static_cast<int64_t>(distinct_values_first(values, limit).size());
}

double sell_c16_dict_stream_bytes(int64_t slots, int64_t rows, int64_t distinct, int value_bytes) {
  const double code = distinct > 1 ? 1.0 : 0.0;
  return static_cast<double>(slots) * (2.0 + code) + 4.0 * static_cast<double>(rows) +
         8.0 * static_cast<double>(slices_of(rows) + 1) + static_cast<double>(distinct * value_bytes);
}

template <class T>
std::size_t SellC16Dict<T>::stream_bytes() const {
  return sell.slice_ptr.size() * sizeof(int64_t) + sell.base.size() * sizeof(int32_t) +
         sell.offsets.size() * sizeof(uint16_t) + codes.size() + table.size() * sizeof(T);
}

template <class T>
void SellC16Dict<T>::validate() const {
  sell.validate();
  if (table.empty() || table.size() > static_cast<std::size_t>(kSellC16DictMaxValues))
    throw Error(
        fmt::format("SellC16Dict: the table holds {} values (1..{})", table.size(), kSellC16DictMaxValues));
  for (std::size_t i = 0; i < table.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (bits_of(table[i]) == bits_of(table[j]))
        throw Error(fmt::format("SellC16Dict: table entries {} and {} are the same value", j, i));
  const bool want_codes = table.size() > 1;
  if (want_codes != !codes.empty() || (want_codes && codes.size() != sell.values.size()))
    throw Error(
        fmt::format("SellC16Dict: {} codes for {} slots and {} table values (codes only with two or more)",
                    codes.size(), sell.values.size(), table.size()));
  // Every real slot's value is the one its code names (padding: value 0, any code in range).
  for (int64_t s = 0; s < sell.slices(); ++s) {
    const int64_t width = (sell.slice_ptr[s + 1] - sell.slice_ptr[s]) / kSellC16SliceRows;
    for (int64_t i = 0; i < kSellC16SliceRows; ++i) {
      const int64_t r = s * kSellC16SliceRows + i;
      const int32_t b = r < sell.rows ? sell.base[static_cast<std::size_t>(r)] : kSellC16EmptyRow;
      for (int64_t j = 0; j < width; ++j) {
        const auto k = static_cast<std::size_t>(sell.slice_ptr[s] + j * kSellC16SliceRows + i);
        const uint8_t c = want_codes ? codes[k] : 0;
        if (c >= table.size())
          throw Error(
              fmt::format("SellC16Dict: slot {} has code {} past the table's {} values", k, c, table.size()));
        const bool real = b >= 0 && (j == 0 || sell.offsets[k] != 0);
        if (real && bits_of(table[c]) != bits_of(sell.values[k]))
          throw Error(fmt::format("SellC16Dict: slot {} (row {}) codes {} but holds {}", k, r, table[c],
                                  sell.values[k]));
      }
    }
  }
}

template <class T>
std::vector<T> sell_c16_dict_table(std::span<const T> values) {
  // One (parallel) pass over the values, refused at the 257th.
  std::vector<T> table = first_distinct_values(values, kSellC16DictMaxValues);
  if (static_cast<int64_t>(table.size()) > kSellC16DictMaxValues)
    throw Error(fmt::format("to_sell_c16_dict: the matrix holds more than {} distinct values",
                            kSellC16DictMaxValues));
  if (table.empty()) table.push_back(T{0});  // no nonzeros: one (unused) value
  return table;
}

template <class T>
SellC16Dict<T> to_sell_c16_dict(const Csr<T, int32_t>& A) {
  A.validate();
  const std::vector<T> table = sell_c16_dict_table(std::span<const T>(A.values));
  ValueSet<T> set(kSellC16DictMaxValues);  // the table again, for the codes' lookups
  for (const T v : table) set.insert(v, kSellC16DictMaxValues);
  SellC16Dict<T> d;
  d.sell = to_sell_c16(A);
  d.table = table;
  if (d.table.size() > 1) {
    d.codes.assign(d.sell.values.size(), 0);
    const SellC16<T>& s = d.sell;
    for (int64_t sl = 0; sl < s.slices(); ++sl) {
      const int64_t width = (s.slice_ptr[sl + 1] - s.slice_ptr[sl]) / kSellC16SliceRows;
      for (int64_t i = 0; i < kSellC16SliceRows; ++i) {
        const int64_t r = sl * kSellC16SliceRows + i;
        if (r >= s.rows || s.base[static_cast<std::size_t>(r)] < 0) continue;
        for (int64_t j = 0; j < width; ++j) {
          const auto k = static_cast<std::size_t>(s.slice_ptr[sl] + j * kSellC16SliceRows + i);
          if (j > 0 && s.offsets[k] == 0) break;  // padding from here on in this row
          d.codes[k] = static_cast<uint8_t>(set.insert(s.values[k], kSellC16DictMaxValues));
        }
      }
    }
  }
  return d;
}

template <class T>
Csr<T, int32_t> to_csr(const SellC16Dict<T>& A) {
  A.validate();
  return to_csr(A.sell);
}

namespace ref {

template <class T>
void spmv(const SellC16Dict<T>& A, std::span<const T> x, std::span<T> y, T alpha, T beta) {
  cpu_detail::check_vectors<T>("spmv", A.sell.rows, A.sell.cols, x, y);
  const auto rows = static_cast<std::size_t>(A.sell.rows);
  if (alpha == T{0}) {
    for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::scaled(beta, y[r]);
    return;
  }
  A.validate();
  const SellC16<T>& s = A.sell;
  std::vector<double> acc(rows, 0.0);
  for (int64_t r = 0; r < s.rows; ++r) {
    const int32_t b = s.base[static_cast<std::size_t>(r)];
    if (b == kSellC16EmptyRow) continue;
    const int64_t sl = r / kSellC16SliceRows;
    const int64_t first = s.slice_ptr[sl] + r % kSellC16SliceRows;
    const int64_t width = (s.slice_ptr[sl + 1] - s.slice_ptr[sl]) / kSellC16SliceRows;
    for (int64_t j = 0; j < width; ++j) {
      const auto k = static_cast<std::size_t>(first + j * kSellC16SliceRows);
      if (j > 0 && s.offsets[k] == 0) continue;  // padding
      const T v = A.table[A.uniform() ? 0 : A.codes[k]];
      acc[static_cast<std::size_t>(r)] += static_cast<double>(v) * static_cast<double>(x[b + s.offsets[k]]);
    }
  }
  for (std::size_t r = 0; r < rows; ++r) y[r] = cpu_detail::combine<T>(acc[r], alpha, beta, y[r]);
}

template void spmv(const SellC16Dict<float>&, std::span<const float>, std::span<float>, float, float);
template void spmv(const SellC16Dict<double>&, std::span<const double>, std::span<double>, double, double);

}  // namespace ref

template std::vector<float> distinct_values_first(std::span<const float>, int64_t);
template std::vector<double> distinct_values_first(std::span<const double>, int64_t);
template std::vector<float> distinct_values_first_sampled(std::span<const float>, bool&, int64_t);
template std::vector<double> distinct_values_first_sampled(std::span<const double>, bool&, int64_t);
template int64_t distinct_values_upto(std::span<const float>, int64_t);
template int64_t distinct_values_upto(std::span<const double>, int64_t);
template std::vector<float> sell_c16_dict_table(std::span<const float>);
template std::vector<double> sell_c16_dict_table(std::span<const double>);
template struct SellC16Dict<float>;
template struct SellC16Dict<double>;
template SellC16Dict<float> to_sell_c16_dict(const Csr<float, int32_t>&);
template SellC16Dict<double> to_sell_c16_dict(const Csr<double, int32_t>&);
template Csr<float, int32_t> to_csr(const SellC16Dict<float>&);
template Csr<double, int32_t> to_csr(const SellC16Dict<double>&);

}  // namespace spx
