// Every real matrix of the shared collection reads back with the shape, nonzero count and row
// length figures its MANIFEST.tsv records (computed independently when the files were collected).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "spx/io.hpp"
#include "test_support.hpp"

namespace {

using Row = std::map<std::string, std::string>;

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t')) out.push_back(field);
  return out;
}

std::vector<Row> read_manifest(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  const auto names = split_tabs(line);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto fields = split_tabs(line);
    Row r;
    for (std::size_t i = 0; i < names.size() && i < fields.size(); ++i) r[names[i]] = fields[i];
    rows.push_back(r);
  }
  return rows;
}

TEST(SharedMatrices, ManifestFiguresMatch) {
  const auto dir = spx::test::shared_matrices_dir();
  if (dir.empty()) {
    GTEST_SKIP()
        << "shared matrices folder not found (set SPX_SHARED_MATRICES to a folder with MANIFEST.tsv)";
  }
  const auto manifest = read_manifest((dir / "MANIFEST.tsv").string());
  ASSERT_FALSE(manifest.empty()) << "MANIFEST.tsv has no rows";
  for (const Row& m : manifest) {
    for (const char* key : {"name", "rows", "cols", "nnz", "symmetric", "field", "nnz_full", "min_per_row",
                            "avg_per_row", "max_per_row"}) {
      ASSERT_TRUE(m.count(key)) << "MANIFEST.tsv lacks column " << key;
    }
    const std::string& name = m.at("name");
    SCOPED_TRACE(name);
    const std::string path = (dir / (name + ".mtx.gz")).string();

    const auto h = spx::read_matrix_market_header(path);
    EXPECT_EQ(h.rows, std::stoll(m.at("rows")));
    EXPECT_EQ(h.cols, std::stoll(m.at("cols")));
    EXPECT_EQ(h.entries, std::stoll(m.at("nnz")));
    EXPECT_EQ(h.symmetry == spx::MatrixMarketHeader::Symmetry::Symmetric, m.at("symmetric") == "yes");
    const char* field = h.field == spx::MatrixMarketHeader::Field::Real      ? "real"
                        : h.field == spx::MatrixMarketHeader::Field::Integer ? "integer"
                                                                             : "pattern";
    EXPECT_EQ(field, m.at("field"));

    // The manifest says no (row, col) repeats: reading with duplicates as errors checks that too.
    spx::ReadOptions strict;
    strict.duplicates = spx::Duplicates::Error;
    const auto A = spx::read_matrix_market<double, int32_t>(path, strict);
    EXPECT_EQ(A.rows, std::stoll(m.at("rows")));
    EXPECT_EQ(A.cols, std::stoll(m.at("cols")));
    EXPECT_EQ(A.nnz(), std::stoll(m.at("nnz_full")));
    int64_t min_len = A.rows > 0 ? A.nnz() : 0, max_len = 0;
    for (int32_t r = 0; r < A.rows; ++r) {
      min_len = std::min<int64_t>(min_len, A.row_length(r));
      max_len = std::max<int64_t>(max_len, A.row_length(r));
    }
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.2f", A.rows > 0 ? static_cast<double>(A.nnz()) / A.rows : 0.0);
    EXPECT_EQ(min_len, std::stoll(m.at("min_per_row")));
    EXPECT_EQ(avg, m.at("avg_per_row"));
    EXPECT_EQ(max_len, std::stoll(m.at("max_per_row")));
    EXPECT_NO_THROW(A.validate());
  }
}

}  // namespace
