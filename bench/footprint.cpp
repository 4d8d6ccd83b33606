#include "bench/footprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "common/host_memory.hpp"
#include "io/mm_limits.hpp"
#include "plan/catalogue.hpp"
#include "plan/format_table.hpp"
#include "spx/convert.hpp"
#include "spx/error.hpp"
#include "spx/io.hpp"
#include "spx/sell_c16.hpp"

namespace spx::bench {

namespace {

// "kind:key=value,...": the kind and the numeric values (2e6 accepted); a value that is no number
// makes the whole spec unreadable here (generate() then says what is wrong with it).
struct SpecArgs {
  std::string kind;
  std::map<std::string, double, std::less<>> values;
  double get(std::string_view key, double fallback) const {
    const auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  }
};

std::optional<SpecArgs> parse_spec(const std::string& spec) {
  SpecArgs args;
  const std::size_t colon = spec.find(':');
  args.kind = spec.substr(0, colon);
  std::string body = colon == std::string::npos ? "" : spec.substr(colon + 1);
  std::stringstream items(body);
  for (std::string item; std::getline(items, item, ',');) {
    const std::size_t eq = item.find('=');
    if (item.empty()) continue;
    if (eq == std::string::npos) return std::nullopt;
    try {
      std::size_t used = 0;
      const std::string text = item.substr(eq + 1);
      const double value = std::stod(text, &used);
      if (used != text.size()) return std::nullopt;
      args.values[item.substr(0, eq)] = value;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return args;
}

// The generators' sizes (include/spx/generate.hpp; defaults as in src/generate/spec.cpp's table).
std::optional<ShapeEstimate> spec_shape(const SpecArgs& a) {
  const std::string& kind = a.kind;
  auto shape = [](double rows, double cols, double nnz) {
    return ShapeEstimate{static_cast<int64_t>(rows), static_cast<int64_t>(cols),
                         static_cast<int64_t>(std::min(nnz, rows * cols))};
  };
  if (kind == "stencil2d") {
    const double n = a.get("n", 64), x = a.get("nx", n), y = a.get("ny", n);
    return shape(x * y, x * y, 5 * x * y - 2 * x - 2 * y);
  }
  if (kind == "stencil7" || kind == "stencil27") {
    const double n = a.get("n", 16), x = a.get("nx", n), y = a.get("ny", n), z = a.get("nz", n);
    const double nnz = kind == "stencil7" ? 7 * x * y * z - 2 * (y * z + x * z + x * y)
                                          : (3 * x - 2) * (3 * y - 2) * (3 * z - 2);
    return shape(x * y * z, x * y * z, nnz);
  }
  const double rows = a.get("rows", a.get("n", kind == "fem"          ? 20000
                                               : kind == "longrows"   ? 100000
                                               : kind == "dense"      ? 256
                                               : kind == "rmat"       ? 0
                                               : kind == "blockdense" ? 4096
                                                                      : 10000));
  const double cols = a.get("cols", rows);
  if (kind == "fem") return shape(rows, rows, rows * a.get("len", 27));
  if (kind == "banded") return shape(rows, rows, rows * (1 + 2 * a.get("bw", 8) * a.get("density", 0.5)));
  if (kind == "powerlaw") return shape(rows, rows, rows * a.get("avg", 8));
  if (kind == "rmat") {
    const double n = std::ldexp(1.0, static_cast<int>(a.get("scale", 14)));
    return shape(n, n, n * a.get("ef", 16));  // before duplicates are merged
  }
  if (kind == "blockdense") return shape(rows, rows, rows * a.get("block", 16) * a.get("per_row", 4));
  if (kind == "longrows") {
    const double long_rows = a.get("long", 3);
    return shape(
        rows, cols,
        long_rows * a.get("len", 10000) + (rows - long_rows) * (1 - a.get("empty", 0.5)) * a.get("short", 4));
  }
  if (kind == "dense") return shape(rows, cols, rows * cols);
  if (kind == "random") return shape(rows, cols, rows * a.get("len", 16));
  return std::nullopt;
}

constexpr uint64_t kIndex = sizeof(int32_t);
// deflate expands at most about 1032:1 (zlib's documentation); a little more for gzip headers.
constexpr uint64_t kMaxDeflateRatio = 1100;

uint64_t csr_bytes(uint64_t rows, uint64_t nnz, uint64_t value, uint64_t index = kIndex) {
  return nnz * (value + index) + (rows + 1) * index;
}

uint64_t round_up(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

uint64_t total(const std::vector<Footprint::Item>& items) {
  uint64_t sum = 0;
  for (const auto& i : items) sum += i.bytes;
  return sum;
}

std::string bytes_text(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", b / double(uint64_t{1} << 30));
  return fmt::format("{:.0f} MiB", b / double(uint64_t{1} << 20));
}

// "B 103.0 GiB, C 103.0 GiB, ...": the largest items first (equal ones in the order given).
std::string items_text(std::vector<Footprint::Item> items) {
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  std::string text;
  for (std::size_t i = 0; i < items.size() && i < 4; ++i)
    text += fmt::format("{}{} {}", i == 0 ? "" : ", ", items[i].what, bytes_text(items[i].bytes));
  if (items.size() > 4) text += ", ...";
  return text;
}

// Most entry lines the file can hold: its text (up to kMaxDeflateRatio times a gzip file's size)
// over the shortest entry line.
int64_t most_entries_in(const std::string& path) {
  std::error_code ec;
  const uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec) return std::numeric_limits<int64_t>::max();
  std::ifstream file(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  file.read(reinterpret_cast<char*>(magic), 2);
  const bool gzip = file.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  const uint64_t text = gzip ? bytes * kMaxDeflateRatio : bytes;
  return static_cast<int64_t>(
      std::min<uint64_t>(text / io::kMinEntryBytes + 1, std::numeric_limits<int64_t>::max()));
}

}  // namespace

uint64_t Footprint::host_bytes() const { return total(host); }
uint64_t Footprint::device_bytes() const { return total(device); }

Footprint& Footprint::operator+=(const Footprint& other) {
  host.insert(host.end(), other.host.begin(), other.host.end());
  device.insert(device.end(), other.device.begin(), other.device.end());
  return *this;
}

std::optional<ShapeEstimate> estimate_shape(const MatrixSource& source) {
  if (source.kind == MatrixSource::Kind::Spec) {
    const std::optional<SpecArgs> args = parse_spec(source.location);
    return args ? spec_shape(*args) : std::nullopt;
  }
  // A pipe or FIFO can be read only once: the reader checks its memory needs itself.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(source.location, ec)) return std::nullopt;
  try {
    const MatrixMarketHeader h = read_matrix_market_header(source.location);
    // Shapes beyond the int32_t indices the engine loads with: the reader refuses them with its
    // own message, which must not turn into a memory refusal.
    if (h.rows > std::numeric_limits<int32_t>::max() || h.cols > std::numeric_limits<int32_t>::max())
      return std::nullopt;
    // No more entries than the file's text can hold: a broken size line declaring 1e12 entries in
    // a small file is reported by the reader ("the file ends after ..."), not estimated at 58 TiB.
    const int64_t entries = std::min<int64_t>(h.entries, most_entries_in(source.location));
    const bool general = h.symmetry == MatrixMarketHeader::Symmetry::General;
    return ShapeEstimate{h.rows, h.cols, general ? entries : 2 * entries};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Footprint load_footprint(const MatrixSource& source, const ShapeEstimate& shape, bool f32, bool wide) {
  const uint64_t rows = static_cast<uint64_t>(shape.rows), nnz = static_cast<uint64_t>(shape.nnz);
  const uint64_t index = wide ? sizeof(int64_t) : kIndex;
  Footprint f;
  f.host.push_back({"the matrix", csr_bytes(rows, nnz, sizeof(double), index)});
  // A file's text is read whole and parsed into entry lists before the CSR is assembled (about 30
  // characters and 16 bytes per entry); the generators build the CSR in place with O(rows) beside.
  if (source.kind == MatrixSource::Kind::File)
    f.host.push_back({"reading the file", nnz * 46});
  else
    f.host.push_back({"generating it", rows * sizeof(int64_t)});
  if (f32) f.host.push_back({"its f32 copy", csr_bytes(rows, nnz, sizeof(float), index)});
  return f;
}

bool reads_wide_indices(const MatrixSource& source, plan::IndexWidth width, const std::string& use) {
  if (width == plan::IndexWidth::Bits64) return true;
  const std::optional<ShapeEstimate> shape = estimate_shape(source);
  const bool past_32 = shape && shape->nnz > std::numeric_limits<int32_t>::max();
  if (past_32 && width == plan::IndexWidth::Bits32)
    throw Error(fmt::format("{}: {} nonzeros pass 2^31 - 1, the most 32-bit indices hold: use `{}` (or auto)",
                            source.name, shape->nnz, use));
  return past_32;
}

template <class T>
FormatInputs format_inputs(const Csr<T, int32_t>& A, const std::optional<MatrixFeatures>& full) {
  FormatInputs in;
  in.column_spans = column_span_stats(A);
  in.bsr_blocks = bsr_block_counts(A);
  if (full) {
    in.features = *full;
    return in;
  }
  MatrixFeatures& f = in.features;
  f.rows = A.rows;
  f.cols = A.cols;
  f.nnz = A.nnz();
  f.sell_slots = sell_c16_slots(A);  // SELL-32's slots: MatrixFeatures::sell_slots
  f.hyb_width = hyb_ell_width(A);
  for (int32_t r = 0; r < A.rows; ++r)
    f.hyb_ell_nnz += std::min<int64_t>(A.row_ptr[r + 1] - A.row_ptr[r], f.hyb_width);
  return in;
}
template FormatInputs format_inputs(const Csr<float, int32_t>&, const std::optional<MatrixFeatures>&);
template FormatInputs format_inputs(const Csr<double, int32_t>&, const std::optional<MatrixFeatures>&);

plan::Problem format_problem(const Problem& p) {
  plan::Problem q;
  q.op = p.op == OpKind::Spmm ? plan::Operation::Spmm : plan::Operation::Spmv;
  q.cols_dense = p.op == OpKind::Spmm ? p.cols_dense : 0;
  q.layout = p.b_layout;
  q.value_bytes = static_cast<int>(value_bytes(p.precision));
  if (p.stats != nullptr) {
    q.stats = *p.stats;
  } else {
    // Before loading only the shape is known: rows of the average length (ELL's slots as many as
    // the nonzeros). The check after loading counts the real padding.
    MatrixStats& s = q.stats;
    s.rows = p.rows;
    s.cols = p.cols;
    s.nnz = p.nnz;
    s.avg_row = p.rows > 0 ? static_cast<double>(p.nnz) / static_cast<double>(p.rows) : 0.0;
    s.max_row = p.rows > 0 ? (p.nnz + p.rows - 1) / p.rows : 0;
    s.min_row = s.max_row;
    s.ell_padding_ratio =
        p.nnz > 0 ? static_cast<double>(p.rows) * static_cast<double>(s.max_row) / static_cast<double>(p.nnz)
                  : 0.0;
  }
  // Without them (before loading) the rows fall back on the statistics: SELL's and HYB's from the
  // padded width, CSR-C16's as if every row were narrow, BSR's 0 (unknown until its blocks are
  // counted): the check after loading, with the inputs, is the one that counts them.
  if (p.format_inputs != nullptr) {
    q.features = p.format_inputs->features;
    q.column_spans = p.format_inputs->column_spans;
    q.bsr_blocks = p.format_inputs->bsr_blocks;
  }
  return q;
}

FormatCopy format_copy(const Problem& p, const KernelEntry& kernel) {
  if (p.op == OpKind::Gemm) return {};
  // The catalogue row the entry times: its format is the one the planner would build.
  const plan::FormatRow* format = nullptr;
  for (const plan::KernelRow& row : plan::catalogue())
    if (row.bench_name() == kernel.name && row.spmm() == (p.op == OpKind::Spmm))
      format = plan::find_format(row.format);
  // Not a candidate (a study variant, coo_fast, csr_scalar, a CPU reference): the format the entry
  // declares, named as the format table names it (dense has no row: nothing beyond A).
  if (format == nullptr) format = plan::find_format(to_string(kernel.format));
  if (format == nullptr) return {};
  plan::Problem q = format_problem(p);
  if (kernel.layout) q.layout = *kernel.layout;
  const double bytes = format->extra_bytes(q);
  if (!(bytes > 0)) return {format->name, 0};
  return {format->name,
          bytes >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(bytes)};
}

Footprint problem_footprint(const Problem& p, const std::vector<const KernelEntry*>& kernels) {
  const uint64_t T = static_cast<uint64_t>(value_bytes(p.precision));
  const uint64_t rows = static_cast<uint64_t>(p.rows), cols = static_cast<uint64_t>(p.cols);
  const uint64_t nnz = static_cast<uint64_t>(p.nnz);
  Footprint f;
  // The kernel that adds the most on each side (kernels run one at a time).
  Footprint::Item host_most, device_most;
  auto largest = [&](const KernelEntry& k, uint64_t host, uint64_t device) {
    if (host > host_most.bytes) host_most = {fmt::format("{}'s output and copies", k.name), host};
    if (device > device_most.bytes) device_most = {fmt::format("{}'s own arrays", k.name), device};
  };
  if (p.op == OpKind::Gemm) {  // C (rows x cols_dense) = A (rows x cols) B (cols x cols_dense)
    const uint64_t m = rows, k = cols, n = static_cast<uint64_t>(p.cols_dense);
    f.host = {{"A", m * k * T}, {"B", k * n * T}};
    for (const KernelEntry* kernel : kernels)
      largest(*kernel, m * n * T, kernel->backend == "cpu" ? 0 : (m * k + k * n + m * n) * T);
  } else {
    const uint64_t L = p.op == OpKind::Spmv ? 1 : static_cast<uint64_t>(p.cols_dense);
    const uint64_t out = rows * L * T;
    // A row-major operand's leading dimension is padded to 16 bytes (bench/cuda_support.hpp).
    const uint64_t row_ld = p.op == OpKind::Spmv ? 1 : round_up(L * T, 16) / T;
    f.host.push_back({p.op == OpKind::Spmv ? "x" : "B", cols * L * T});
    std::map<std::string, uint64_t> shared_device, shared_host;  // copies the CUDA entries share
    for (const KernelEntry* kernel : kernels) {
      const bool row = kernel->layout == Layout::RowMajor;
      const FormatCopy copy = format_copy(p, *kernel);
      const bool b_as_is = kernel->layout == p.b_layout;  // else the kernel copies B into its layout
      if (kernel->backend == "cpu") {
        largest(*kernel, out + copy.bytes, 0);
      } else if (kernel->host_resident) {
        // B and C stay on the host; the device holds A and chunks sized to what is free.
        largest(*kernel, out + (b_as_is ? 0 : cols * L * T), 0);
        shared_device["A (CSR)"] = csr_bytes(rows, nnz, T);
      } else {
        const uint64_t output = rows * (row ? row_ld : L) * T;  // on the device, and staged back
        largest(*kernel, output, output);
        shared_device["A (CSR)"] = csr_bytes(rows, nnz, T);
        if (copy.bytes > 0) shared_device[fmt::format("A ({})", copy.format)] = copy.bytes;
        if (p.op == OpKind::Spmv) {
          shared_device["x"] = cols * T;
        } else {
          const uint64_t b = cols * (row ? row_ld : L) * T;
          shared_device[row ? "B (row-major)" : "B"] = b;
          // Uploaded from a host copy unless the Problem's B has the layout and ld already.
          if (!b_as_is || (row && row_ld != L)) shared_host[row ? "B's row-major copy" : "B's copy"] = b;
        }
      }
    }
    for (const auto& [what, bytes] : shared_host) f.host.push_back({what, bytes});
    for (const auto& [what, bytes] : shared_device) f.device.push_back({what, bytes});
  }
  if (host_most.bytes > 0) f.host.push_back(host_most);
  if (device_most.bytes > 0) f.device.push_back(device_most);
  return f;
}

Footprint gemm_command_footprint(int64_t m, int64_t n, int64_t k, int64_t ld_pad, int64_t value_bytes,
                                 bool transpose_a, bool transpose_b) {
  const uint64_t T = static_cast<uint64_t>(value_bytes), pad = static_cast<uint64_t>(ld_pad);
  const uint64_t um = static_cast<uint64_t>(m), un = static_cast<uint64_t>(n), uk = static_cast<uint64_t>(k);
  // Stored shapes: A is m x k (k x m when transposed), B k x n (n x k), C m x n; ld = rows + pad.
  const uint64_t a = (transpose_a ? (uk + pad) * um : (um + pad) * uk) * T;
  const uint64_t b = (transpose_b ? (un + pad) * uk : (uk + pad) * un) * T;
  const uint64_t c = (um + pad) * un * T;
  Footprint f;
  f.host = {{"A", a}, {"B", b}, {"C0", c}, {"C read back", c}};
  if (transpose_a) f.host.push_back({"op(A) for the reference", um * uk * T});
  if (transpose_b) f.host.push_back({"op(B) for the reference", uk * un * T});
  f.device = {{"A", a}, {"B", b}, {"C", c}};
  return f;
}

uint64_t host_memory_available() { return spx::detail::host_memory_available(); }

MemoryAvailable memory_available(const Registry& registry, std::string_view backend) {
  MemoryAvailable a;
  a.host = host_memory_available();
  if (const BackendEntry* b = registry.backend(backend); b != nullptr && b->free_memory)
    a.device = b->free_memory();
  return a;
}

std::string memory_refusal(const Footprint& need, const MemoryAvailable& available) {
  std::string why;
  if (available.host > 0 && need.host_bytes() > available.host)
    why = fmt::format("needs about {} of host memory ({}), {} available", bytes_text(need.host_bytes()),
                      items_text(need.host), bytes_text(available.host));
  if (available.device > 0 && need.device_bytes() > available.device)
    why +=
        fmt::format("{}needs about {} of device memory ({}), {} free on the GPU", why.empty() ? "" : "; and ",
                    bytes_text(need.device_bytes()), items_text(need.device), bytes_text(available.device));
  return why;
}

}  // namespace spx::bench
