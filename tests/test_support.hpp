// Helpers shared by the tests: independent random matrices (not built with spx's generators, so a
// generator bug cannot hide a kernel bug), poisoning, error norms, the shared-matrix folder.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <random>
#include <set>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "spx/matrix.hpp"

namespace spx::test {

// Fresh seed per call unless SPX_TEST_SEED is set (printed by the test so a failure can be replayed).
inline uint64_t fresh_seed() {
  if (const char* s = std::getenv("SPX_TEST_SEED")) return std::stoull(s);
  static std::random_device rd;
  return (uint64_t{rd()} << 32) ^ rd();
}

// Random canonical CSR: row lengths uniform in [min_len, max_len] (clamped to cols), a fraction
// `empty_fraction` of rows forced empty, values uniform in [-1, 1].
template <class T, class I>
Csr<T, I> random_csr(I rows, I cols, I min_len, I max_len, uint64_t seed, double empty_fraction = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> len_dist(min_len, std::max(min_len, max_len));
  std::uniform_real_distribution<double> val(-1.0, 1.0), coin(0.0, 1.0);
  std::uniform_int_distribution<int64_t> col_dist(0, cols > 0 ? cols - 1 : 0);
  Csr<T, I> A(rows, cols);
  for (I r = 0; r < rows; ++r) {
    int64_t len = std::min<int64_t>(len_dist(rng), cols);
    if (coin(rng) < empty_fraction) len = 0;
    std::set<int64_t> picked;
    if (len * 2 > cols) {  // dense-ish row: pick by shuffling
      std::vector<int64_t> all(cols);
      for (int64_t c = 0; c < cols; ++c) all[c] = c;
      std::shuffle(all.begin(), all.end(), rng);
      picked.insert(all.begin(), all.begin() + len);
    } else {
      while (static_cast<int64_t>(picked.size()) < len) picked.insert(col_dist(rng));
    }
    for (int64_t c : picked) {
      A.col_idx.push_back(static_cast<I>(c));
      A.values.push_back(static_cast<T>(val(rng)));
    }
    A.row_ptr[r + 1] = static_cast<I>(A.col_idx.size());
  }
  return A;
}

template <class T>
std::vector<T> random_vector(std::size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> val(-1.0, 1.0);
  std::vector<T> v(n);
  for (auto& e : v) e = static_cast<T>(val(rng));
  return v;
}

// Outputs are poisoned with NaN before a kernel runs, so an unwritten element fails the check.
template <class T>
void poison(std::span<T> v) {
  std::fill(v.begin(), v.end(), std::numeric_limits<T>::quiet_NaN());
}

// ||a - b||_2 / ||b||_2 in double (||a||_2 when b is all zero); NaN anywhere gives +inf.
template <class A, class B>
double relative_error(std::span<const A> a, std::span<const B> b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    num += d * d;
    den += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  }
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// Folder of the shared real matrices (with MANIFEST.tsv); empty when absent. SPX_SHARED_MATRICES
// in the environment overrides the path compiled in.
inline std::filesystem::path shared_matrices_dir() {
  std::filesystem::path p;
  if (const char* env = std::getenv("SPX_SHARED_MATRICES")) p = env;
#ifdef SPX_SHARED_MATRICES
  else
    p = SPX_SHARED_MATRICES;
#endif
  if (!p.empty() && std::filesystem::exists(p / "MANIFEST.tsv")) return p;
  return {};
}

// An error message users see: every one of `words` in it, on one line.
inline void expect_words(const std::string& message, std::initializer_list<const char*> words) {
  for (const char* w : words)
    EXPECT_NE(message.find(w), std::string::npos) << "missing '" << w << "' in: " << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << "message must be one line: " << message;
}

// A path in a per-process temporary folder, removed with this object (the file, if any).
class TempPath {
 public:
  explicit TempPath(const std::string& suffix) {
    static std::atomic<int> counter{0};
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("spx_tests_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::string name = "f";  // appended: GCC 12 gives a false -Wrestrict on "f" + ... here
    name += std::to_string(counter++);
    name += suffix;
    path_ = (dir / name).string();
  }
  ~TempPath() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace spx::test
