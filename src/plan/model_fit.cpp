// Fitting and using the performance model (spx/model.hpp): per-kernel non-negative least squares
// on relative error, predictions, and Guo & Wang's cross-architecture step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "plan/catalogue.hpp"
#include "plan/nnls.hpp"
#include "spx/error.hpp"
#include "spx/model.hpp"

namespace spx::model {

const std::array<const char*, kTerms> kTermNames = {"launch",        "dram",   "l2",    "row_gather",
                                                    "window_gather", "serial", "waves", "extra_launches"};

std::string KernelKey::label() const {
  std::string s = fmt::format("{} {}", kernel, value_bytes == 4 ? "f32" : "f64");
  if (cols_dense > 0) s += fmt::format(" L={}", cols_dense);
  return s;
}

const KernelFit* Profile::find(const KernelKey& key) const {
  for (const KernelFit& f : fits)
    if (f.key == key) return &f;
  return nullptr;
}

namespace {

// The model's keys of one operation, in the kernel catalogue's order (plan/catalogue.cpp).
std::vector<std::string> keys_of(plan::Operation op) {
  std::vector<std::string> k;
  for (const plan::ModelKeyRow& row : plan::model_keys())
    if (row.op == op) k.emplace_back(row.key);
  return k;
}

}  // namespace

const KernelFit* fit_for(const Profile& profile, const KernelKey& key) {
  if (const KernelFit* f = profile.find(key)) return f;
  const plan::ModelKeyRow* row = plan::find_model_key(key.kernel);
  if (row == nullptr || row->borrows == nullptr) return nullptr;
  return profile.find({row->borrows, key.value_bytes, key.cols_dense});
}

const std::vector<std::string>& spmv_kernels() {
  static const std::vector<std::string> k = keys_of(plan::Operation::Spmv);
  return k;
}

const std::vector<std::string>& spmm_kernels() {
  static const std::vector<std::string> k = keys_of(plan::Operation::Spmm);
  return k;
}

bool modelled(const std::string& kernel) {
  const auto has = [&](const std::vector<std::string>& v) {
    return std::find(v.begin(), v.end(), kernel) != v.end();
  };
  return has(spmv_kernels()) || has(spmm_kernels());
}

namespace {

double dot(const std::array<double, kTerms>& c, const Terms& t) {
  double s = 0;
  for (int i = 0; i < kTerms; ++i) s += c[i] * t.x[i];
  return s;
}

}  // namespace

std::optional<double> predict_us(const Profile& profile, const KernelKey& key, const MatrixFeatures& f,
                                 double matrix_bytes) {
  const KernelFit* fit = fit_for(profile, key);
  if (fit == nullptr) return std::nullopt;
  return dot(fit->coef, terms(key, f, profile.device, matrix_bytes));
}

std::optional<double> predict_cross_us(const Profile& ref, double measured_ref_us, const Profile& tar,
                                       const KernelKey& key, const MatrixFeatures& f) {
  const KernelFit* fr = fit_for(ref, key);
  const KernelFit* ft = fit_for(tar, key);
  if (fr == nullptr || ft == nullptr) return std::nullopt;
  // The whole predicted times, launch term included: their ratio stays near 1 on launch-bound
  // matrices, where the times above the two launch terms are small fitted residuals whose ratio
  // is not (docs/model.md, "Cross-GPU").
  const double pred_ref = dot(fr->coef, terms(key, f, ref.device));
  const double pred_tar = dot(ft->coef, terms(key, f, tar.device));
  if (!(pred_ref > 0)) return pred_tar;
  return measured_ref_us * (pred_tar / pred_ref);
}

Profile fit(const DeviceBasics& device, const std::vector<Sample>& samples) {
  Profile profile;
  profile.device = device;
  std::vector<KernelKey> keys;
  for (const Sample& s : samples)
    if (s.us > 0 && std::find(keys.begin(), keys.end(), s.key) == keys.end()) keys.push_back(s.key);
  for (const KernelKey& key : keys) {
    std::vector<const Sample*> mine;
    for (const Sample& s : samples)
      if (s.key == key && s.us > 0) mine.push_back(&s);
    if (static_cast<int>(mine.size()) < kTerms) continue;
    // Rows scaled by 1/t: least squares on relative error, what the goals are stated in.
    const std::size_t rows = mine.size();
    std::vector<double> A(rows * kTerms), b(rows, 1.0);
    std::vector<Terms> t(rows);
    for (std::size_t i = 0; i < rows; ++i) {
      t[i] = terms(key, mine[i]->features, device);
      for (std::size_t j = 0; j < kTerms; ++j) A[i * kTerms + j] = t[i].x[j] / mine[i]->us;
    }
    const std::vector<double> c = nnls(A, b, static_cast<int>(rows), kTerms);
    KernelFit kf;
    kf.key = key;
    std::copy(c.begin(), c.end(), kf.coef.begin());
    kf.samples = static_cast<int>(rows);
    double sum = 0;
    for (std::size_t i = 0; i < rows; ++i) {
      const double e = std::abs(dot(kf.coef, t[i]) - mine[i]->us) / mine[i]->us;
      sum += e;
      kf.max_abs_error = std::max(kf.max_abs_error, e);
    }
    kf.mean_abs_error = sum / static_cast<double>(rows);
    profile.fits.push_back(kf);
  }
  return profile;
}

}  // namespace spx::model
