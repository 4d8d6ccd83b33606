// The performance model: Guo & Wang's SpMV model (generated benchmark matrices, per-kernel linear
// fits per GPU, relative performance across GPUs) re-derived for Hopper, and extended to SpMM.
//
// For one kernel, precision and L, a matrix's time is a non-negative combination of a few terms,
// each a physical time of its own computed from the matrix's features (spx/features.hpp) and the
// device's measured figures (copy and L2 bandwidth, L2 size, SMs):
//
//   t = c_launch · 1                       launch and latency floor, µs
//     + c_dram   · stream bytes from DRAM / copy bandwidth
//     + c_l2     · stream bytes from L2   / L2 bandwidth       (the working set's L2-resident share)
//     + c_row    · x sectors gathered row by row     / L2 bandwidth
//     + c_window · x sectors gathered by 32-row windows / L2 bandwidth
//     + c_serial · the longest serial walk of one thread group (slots × 0.1 µs)
//     + c_waves  · waves of the grid over the resident threads (Guo & Wang's strips)
//     + c_extra  · launches beyond the first this matrix makes the kernel do (HYB's COO tail, the
//                  COO boundary pass past one chunk, the segmented sum's synchronizer, the CSR
//                  SpMM's long-row pass)
//
// The coefficients are fitted per (kernel, precision, L) by non-negative least squares on relative
// error (model/fit) from timings of generated matrices on the GPU (`spx model calibrate`), and kept
// in a device profile (JSON). Cross-architecture prediction is the paper's (§4): the measured time
// on a reference GPU scaled by the two profiles' predicted ratio.
// docs/model.md has the derivation, the fits and the errors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spx/features.hpp"
#include "spx/stats.hpp"

namespace spx::cuda {
struct DeviceProps;
}

namespace spx::model {

inline constexpr int kTerms = 8;
/// Term names, in order, as the profile JSON writes them.
extern const std::array<const char*, kTerms> kTermNames;

/// What the model, the planner and the fixed rules read of a device. The defaults are the H100
/// SXM's figures: device_basics() keeps them for every field DeviceProps leaves unset, and a
/// calibration profile replaces the bandwidths with measured ones.
struct DeviceBasics {
  std::string name;
  int sm_count = 132;
  int threads_per_sm = 2048;
  int blocks_per_sm = 32;
  int threads_per_block = 1024;
  int64_t l2_bytes = int64_t{50} << 20;
  double copy_gbs = 3000;  ///< measured device-to-device copy, bytes read + written
  double l2_gbs = 7000;    ///< measured L2-resident copy, bytes read + written
};

/// `props` with every unset (zero) field replaced by the H100 SXM's figure (DeviceBasics' defaults):
/// the one fallback for hand-made or partial properties. The bandwidths keep their defaults.
DeviceBasics device_basics(const cuda::DeviceProps& props);

/// A modelled product: a kernel (the benchmark registry's name), the value size and L (0: SpMV).
struct KernelKey {
  std::string kernel;
  int value_bytes = 8;
  int64_t cols_dense = 0;
  friend bool operator==(const KernelKey&, const KernelKey&) = default;
  std::string label() const;  ///< "csr_param f64", "spmm_csr_row f32 L=8"
};

struct Terms {
  std::array<double, kTerms> x{};
};

struct KernelFit {
  KernelKey key;
  std::array<double, kTerms> coef{};
  int samples = 0;
  double mean_abs_error = 0;  ///< on the calibration samples, as a fraction
  double max_abs_error = 0;
};

struct Profile {
  DeviceBasics device;
  std::string commit, date;  ///< of the calibration run
  std::vector<KernelFit> fits;
  const KernelFit* find(const KernelKey& key) const;
};

/// What the fixed rules read of a device and of a matrix, from a profile's figures and the features:
/// the model (and the planner without a GPU) configure every kernel by the same rules as the GPU
/// does. rule_stats fills every MatrixStats field but the bandwidths and the fingerprint.
cuda::DeviceProps device_props(const DeviceBasics& d);
MatrixStats rule_stats(const MatrixFeatures& f);

/// The kernels the model describes (registry names), SpMV and SpMM.
const std::vector<std::string>& spmv_kernels();
const std::vector<std::string>& spmm_kernels();
bool modelled(const std::string& kernel);

/// The terms of `key` on a matrix (throws spx::Error for a kernel the model does not know).
/// `matrix_bytes`: the bytes of A one pass reads where the features cannot count them (BSR's blocks,
/// from the planner's Problem); 0 takes the kernel's own count (for BSR: CSR's bytes).
Terms terms(const KernelKey& key, const MatrixFeatures& f, const DeviceBasics& device,
            double matrix_bytes = 0);
/// The fit a prediction of `key` uses: its own, else that of the sibling its kernel catalogue row
/// borrows until a profile fits it (src/plan/catalogue.cpp); null when neither is in the profile.
const KernelFit* fit_for(const Profile& profile, const KernelKey& key);
/// Predicted microseconds; nullopt when the profile has no fit for the key.
std::optional<double> predict_us(const Profile& profile, const KernelKey& key, const MatrixFeatures& f,
                                 double matrix_bytes = 0);
/// Guo & Wang's cross-architecture prediction: a time measured on the reference GPU (profile `ref`)
/// carried to the target (profile `tar`) by the relative performance of the two profiles:
/// t_tar = t_ref · P, with P = predicted_tar / predicted_ref, launch terms included (the paper
/// scales only the time above an initialization time; our launch coefficient is a fitted intercept,
/// and the ratio of what lies above it is unstable on launch-bound matrices).
std::optional<double> predict_cross_us(const Profile& ref, double measured_ref_us, const Profile& tar,
                                       const KernelKey& key, const MatrixFeatures& f);

/// One measurement for the fit.
struct Sample {
  std::string matrix;
  MatrixFeatures features;
  KernelKey key;
  double us = 0;
};
/// Fits every key present in the samples (at least kTerms samples each; fewer are skipped).
Profile fit(const DeviceBasics& device, const std::vector<Sample>& samples);

/// JSON (the profile files under data/profiles/).
std::string to_json(const Profile& p);
Profile profile_from_json(const std::string& text, const std::string& source = "profile");
Profile load_profile(const std::string& path);
/// The committed profile whose device name matches `device_name` (exact, then by the first word
/// after "NVIDIA"), searched in $SPX_PROFILES, the source tree's data/profiles and the installed
/// share/spx/profiles; nullopt when none does.
std::optional<std::string> find_profile(const std::string& device_name);

}  // namespace spx::model
