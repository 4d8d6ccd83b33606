#include "bench/features_json.hpp"

#include <fmt/format.h>

#include <string>

#include "spx/error.hpp"

namespace spx::bench {
namespace {

using json = nlohmann::ordered_json;

// The three granularities of the sector arrays, as the JSON names them.
constexpr const char* kGranularity[MatrixFeatures::kGranularities] = {"f32", "f64", "col"};

template <class A>
json triple(const A& a) {
  json j;
  for (int g = 0; g < MatrixFeatures::kGranularities; ++g)
    j[kGranularity[g]] = a[static_cast<std::size_t>(g)];
  return j;
}

template <class A>
void read_triple(const json& j, A& a) {
  for (int g = 0; g < MatrixFeatures::kGranularities; ++g)
    a[static_cast<std::size_t>(g)] = j.at(kGranularity[g]).get<int64_t>();
}

}  // namespace

json to_json(const MatrixFeatures& f) {
  json buckets = json::array();
  for (const RowLengthBucket& b : f.length_buckets) buckets.push_back({b.rows, b.nnz});
  return json{{"rows", f.rows},
              {"cols", f.cols},
              {"nnz", f.nnz},
              {"min_row", f.min_row},
              {"max_row", f.max_row},
              {"empty_rows", f.empty_rows},
              {"sum_sq_row", f.sum_sq_row},
              {"length_buckets", buckets},
              {"hyb_width", f.hyb_width},
              {"hyb_ell_nnz", f.hyb_ell_nnz},
              {"sell_slots", f.sell_slots},
              {"nonempty_cols", f.nonempty_cols},
              {"x_sectors", triple(f.x_sectors)},
              {"row_sectors", triple(f.row_sectors)},
              {"window_sectors", triple(f.window_sectors)}};
}

MatrixFeatures features_from_json(const json& j) {
  try {
    MatrixFeatures f;
    f.rows = j.at("rows").get<int64_t>();
    f.cols = j.at("cols").get<int64_t>();
    f.nnz = j.at("nnz").get<int64_t>();
    f.min_row = j.at("min_row").get<int64_t>();
    f.max_row = j.at("max_row").get<int64_t>();
    f.empty_rows = j.at("empty_rows").get<int64_t>();
    f.sum_sq_row = j.at("sum_sq_row").get<uint64_t>();
    const json& buckets = j.at("length_buckets");
    if (!buckets.is_array() || buckets.size() != f.length_buckets.size())
      throw Error(fmt::format("length_buckets needs {} [rows, nnz] pairs", f.length_buckets.size()));
    for (std::size_t b = 0; b < f.length_buckets.size(); ++b)
      f.length_buckets[b] = {buckets[b].at(0).get<int64_t>(), buckets[b].at(1).get<int64_t>()};
    f.hyb_width = j.at("hyb_width").get<int64_t>();
    f.hyb_ell_nnz = j.at("hyb_ell_nnz").get<int64_t>();
    f.sell_slots = j.at("sell_slots").get<int64_t>();
    f.nonempty_cols = j.at("nonempty_cols").get<int64_t>();
    read_triple(j.at("x_sectors"), f.x_sectors);
    read_triple(j.at("row_sectors"), f.row_sectors);
    read_triple(j.at("window_sectors"), f.window_sectors);
    return f;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("matrix features: {}", e.what()));
  }
}

}  // namespace spx::bench
