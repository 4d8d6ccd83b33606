// Range-checked numbers from the JSON a user hands spx (device profiles, the bench JSON that
// `spx model fit` reads): finite, within bounds far past any real GPU, integers integral before
// they are converted (get<int>() of 1e20 is undefined behaviour). Errors name the field:
// "device.sm_count = 1e+20 is outside [1, 100000]".
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "spx/error.hpp"
#include "spx/model.hpp"

namespace spx::model {

struct FieldBounds {
  double least, most;
};
// What a device's figures may be. A model fit is non-negative least squares, so coefficients are
// >= 0 (the bounds of fits live with the profile reader); these only refuse what would overflow or
// divide the model into nonsense (a plan chosen at -9631 us from negative coefficients).
inline constexpr FieldBounds kSmCount{1, 100'000};
inline constexpr FieldBounds kThreadsPerSm{1, 65'536};
inline constexpr FieldBounds kBlocksPerSm{1, 1'024};
inline constexpr FieldBounds kL2Bytes{1, 0x1p40};       // 1 TiB
inline constexpr FieldBounds kBandwidthGbs{1e-3, 1e6};  // GB/s

// A finite number in [least, most].
inline double real_field(const nlohmann::ordered_json& object, const std::string& name,
                         const std::string& key, FieldBounds b) {
  const nlohmann::ordered_json& field = object.at(key);
  if (!field.is_number()) throw Error(fmt::format("{} is not a number", name));
  const double value = field.get<double>();
  if (!std::isfinite(value) || value < b.least || value > b.most)
    throw Error(fmt::format("{} = {} is outside [{}, {}]", name, value, b.least, b.most));
  return value;
}

// The same, and integral.
template <class I>
I integer_field(const nlohmann::ordered_json& object, const std::string& name, const std::string& key,
                FieldBounds b) {
  const double value = real_field(object, name, key, b);
  if (value != std::floor(value)) throw Error(fmt::format("{} = {} is not a whole number", name, value));
  return static_cast<I>(value);
}

enum class DeviceFields {
  AllRequired,           // a profile: every figure present
  RatesAndShapeOptional  // bench JSON from before the model: l2_gbs, threads/blocks per SM may be absent
};

// The "device" object of a profile or a bench JSON, every figure range-checked.
inline DeviceBasics device_from_json(const nlohmann::ordered_json& d, DeviceFields fields) {
  DeviceBasics device;
  device.name = d.at("name").get<std::string>();
  device.sm_count = integer_field<int>(d, "device.sm_count", "sm_count", kSmCount);
  device.l2_bytes = integer_field<int64_t>(d, "device.l2_bytes", "l2_bytes", kL2Bytes);
  device.copy_gbs = real_field(d, "device.copy_gbs", "copy_gbs", kBandwidthGbs);
  const bool optional = fields == DeviceFields::RatesAndShapeOptional;
  if (!optional || d.contains("threads_per_sm"))
    device.threads_per_sm = integer_field<int>(d, "device.threads_per_sm", "threads_per_sm", kThreadsPerSm);
  if (!optional || d.contains("blocks_per_sm"))
    device.blocks_per_sm = integer_field<int>(d, "device.blocks_per_sm", "blocks_per_sm", kBlocksPerSm);
  if (!optional || d.contains("l2_gbs"))
    device.l2_gbs = real_field(d, "device.l2_gbs", "l2_gbs", kBandwidthGbs);
  return device;
}

}  // namespace spx::model
