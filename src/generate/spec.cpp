// generate("KIND:key=value,..."): the text form of the generators that the CLI, `spx bench` suites
// and tests use. One table (kKinds) lists every kind, its keys with defaults and a summary;
// the parser checks keys against it, so help text and accepted input cannot drift apart.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "matrix/index_checks.hpp"
#include "spx/error.hpp"
#include "spx/fem.hpp"
#include "spx/generate.hpp"
#include "spx/reorder.hpp"

namespace spx::gen {
namespace {

struct KindDef {
  std::string_view kind;
  std::vector<std::string_view> keys;  // accepted keys, besides seed
  std::string_view keys_help;
  std::string_view summary;
};

const std::vector<KindDef>& kinds() {
  static const std::vector<KindDef> table{
      {"stencil2d", {"n", "nx", "ny"}, "n=64 nx=n ny=n", "5-point Laplacian on an nx x ny grid (SPD)"},
      {"stencil7",
       {"n", "nx", "ny", "nz"},
       "n=16 nx=n ny=n nz=n",
       "7-point Laplacian on an nx x ny x nz grid (SPD)"},
      {"stencil27",
       {"n", "nx", "ny", "nz"},
       "n=16 nx=n ny=n nz=n",
       "27-point stencil on an nx x ny x nz grid (SPD)"},
      {"fem",
       {"n", "rows", "len"},
       "rows=20000 (or n=) len=27",
       "FEM-like: ~len nonzeros per row in dense blocks near the diagonal; symmetric, SPD"},
      {"fem2d",
       {"n", "p", "dofs", "kappa", "nodes"},
       "n=64 (elements per side; or dofs=) p=1 kappa=0.5 nodes=gll",
       "FEM Poisson -div(kappa grad u) on the unit square, Q_p elements (p=1..4), Dirichlet eliminated; SPD"},
      {"banded",
       {"n", "bw", "density"},
       "n=10000 bw=8 density=0.5",
       "random symmetric band: entries within bw of the diagonal kept with probability density; SPD"},
      {"powerlaw",
       {"n", "avg", "exp"},
       "n=10000 avg=8 exp=2",
       "Zipf row lengths with exponent exp and mean avg, uniform random columns"},
      {"rmat",
       {"scale", "ef", "a", "b", "c"},
       "scale=14 ef=16 a=0.57 b=0.19 c=0.19",
       "R-MAT graph: 2^scale vertices, ef*2^scale edges, duplicates merged"},
      {"blockdense",
       {"n", "block", "per_row"},
       "n=4096 block=16 per_row=4",
       "dense block x block tiles, per_row tiles per block row (diagonal tile included)"},
      {"blockfem",
       {"n", "nx", "ny", "nz", "b"},
       "n=32 nx=n ny=n nz=n b=3",
       "FEM with b unknowns per node: a 27-point (nz=1: 9-point) mesh, dense b x b node blocks"},
      {"longrows",
       {"n", "rows", "cols", "long", "len", "empty", "short"},
       "rows=100000 (or n=) cols=rows long=3 len=10000 empty=0.5 short=4",
       "`long` rows of len nonzeros at random positions, a fraction `empty` of the rest empty, others short"},
      {"dense", {"n", "rows", "cols"}, "rows=256 (or n=) cols=rows", "every entry stored: dense as sparse"},
      {"random",
       {"n", "rows", "cols", "len"},
       "rows=10000 (or n=) cols=rows len=16",
       "len distinct uniformly random columns per row"},
  };
  return table;
}

std::string kind_list() {
  std::string list;
  for (const KindDef& k : kinds()) list += fmt::format("{}{}", list.empty() ? "" : ", ", k.kind);
  return list;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The key=value pairs of one spec, typed on demand. Every failure names the spec and says what
// would be accepted.
class Args {
 public:
  Args(const std::string& spec, const KindDef& def, std::string_view body) : spec_(spec) {
    // Every comma separates two items: "n=4,," and "n=4," have empty ones, which are errors.
    for (bool more = !trim(body).empty(); more;) {
      const std::size_t comma = body.find(',');
      const std::string_view item = trim(body.substr(0, comma));
      more = comma != std::string_view::npos;
      body = more ? body.substr(comma + 1) : std::string_view{};
      if (item.empty()) fail("empty item (two commas in a row, or a comma at an end); write key=value,...");
      const std::size_t eq = item.find('=');
      if (eq == std::string_view::npos || trim(item.substr(0, eq)).empty() ||
          trim(item.substr(eq + 1)).empty())
        fail(fmt::format("'{}' is not key=value", item));
      const std::string key(trim(item.substr(0, eq)));
      if (key != "seed" && key != "shuffle" &&
          std::find(def.keys.begin(), def.keys.end(), key) == def.keys.end())
        fail(
            fmt::format("unknown key '{}'; {} accepts {} seed=1 shuffle=SEED", key, def.kind, def.keys_help));
      if (!values_.emplace(key, std::string(trim(item.substr(eq + 1)))).second)
        fail(fmt::format("key '{}' given twice", key));
    }
  }

  // Integers accept plain digits and exact scientific notation ("2000000", "2e6").
  int64_t integer(const std::string& key, int64_t fallback) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    const std::string& text = it->second;
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc{} && end == text.data() + text.size()) return value;
    double real = 0;
    const auto [real_end, real_ec] = std::from_chars(text.data(), text.data() + text.size(), real);
    if (real_ec == std::errc{} && real_end == text.data() + text.size() && std::isfinite(real) &&
        real == std::floor(real) && std::abs(real) < 0x1.0p62)
      return static_cast<int64_t>(real);
    if (real_ec == std::errc{} && real_end == text.data() + text.size() && std::isfinite(real) &&
        real == std::floor(real))
      fail(fmt::format("{}={} is out of range (|value| < 2^62)", key, text));
    fail(fmt::format("{}={} is not an integer", key, text));
  }

  double real(const std::string& key, double fallback) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return fallback;
    const std::string& text = it->second;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
      fail(fmt::format("{}={} is not a number", key, text));
    return value;
  }

  std::string text(const std::string& key, const std::string& fallback) const {
    const auto it = values_.find(key);
    return it == values_.end() ? fallback : it->second;
  }

  uint64_t seed() const { return unsigned64("seed").value_or(1); }
  // shuffle=SEED: renumber the generated matrix by a random symmetric permutation (none when absent).
  std::optional<uint64_t> shuffle() const { return unsigned64("shuffle"); }

  std::optional<uint64_t> unsigned64(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    const std::string& text = it->second;
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
      fail(fmt::format("{}={} is not an unsigned 64-bit integer", key, text));
    return value;
  }

  // An integer argument of index type I: too large for I is the int64 advice, not a crash.
  template <class I>
  I index(const std::string& key, int64_t fallback) const {
    const int64_t value = integer(key, fallback);
    if (value > static_cast<int64_t>(std::numeric_limits<I>::max()))
      fail(fmt::format("{}={} does not fit {} indices; {}", key, value, sizeof(I) == 4 ? "int32" : "int64",
                       spx::detail::kWideIndexBuildHint));
    if (value < static_cast<int64_t>(std::numeric_limits<I>::min()))
      fail(fmt::format("{}={} is out of range", key, value));
    return static_cast<I>(value);
  }

  int small_int(const std::string& key, int64_t fallback) const {
    const int64_t value = integer(key, fallback);
    if (value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min())
      fail(fmt::format("{}={} is out of range", key, value));
    return static_cast<int>(value);
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("generator spec \"{}\": {}", spec_, what));
  }

 private:
  const std::string& spec_;
  std::map<std::string, std::string> values_;
};

fem::FemSpec fem_spec(const Args& args) {
  fem::FemSpec spec;
  spec.p = args.small_int("p", 1);
  spec.n = args.integer("n", 64);
  if (!args.text("dofs", "").empty()) spec.n = fem::elements_for_dofs(args.integer("dofs", 0), spec.p);
  spec.kappa_amplitude = args.real("kappa", 0.5);
  const std::string nodes = args.text("nodes", "gll");
  if (nodes != "gll" && nodes != "equi") args.fail(fmt::format("nodes={} must be gll or equi", nodes));
  spec.nodes = nodes == "gll" ? fem::NodeFamily::GaussLobatto : fem::NodeFamily::Equispaced;
  return spec;
}

template <class T, class I>
Csr<T, I> generate_kind(const std::string_view kind, const Args& args) {
  const uint64_t seed = args.seed();
  if (kind == "stencil2d" || kind == "stencil7" || kind == "stencil27") {
    const int64_t n = args.integer("n", kind == "stencil2d" ? 64 : 16);
    const I nx = args.index<I>("nx", n), ny = args.index<I>("ny", n);
    if (kind == "stencil2d") return stencil_2d_5pt<T, I>(nx, ny);
    const I nz = args.index<I>("nz", n);
    return kind == "stencil7" ? stencil_3d_7pt<T, I>(nx, ny, nz) : stencil_3d_27pt<T, I>(nx, ny, nz);
  }
  // Kinds with rows (and cols) take n= as shorthand for a square rows = cols = n.
  const auto rows_or = [&](int64_t fallback) { return args.index<I>("rows", args.integer("n", fallback)); };
  if (kind == "fem") return fem_like<T, I>(rows_or(20000), args.index<I>("len", 27), seed);
  if (kind == "fem2d") {
    if constexpr (!std::is_same_v<I, int32_t>) {
      args.fail("fem2d builds int32 indices only");
    } else {
      return fem::build<T>(fem_spec(args), true, false).A;
    }
  }
  if (kind == "banded")
    return banded<T, I>(args.index<I>("n", 10000), args.index<I>("bw", 8), args.real("density", 0.5), seed);
  if (kind == "powerlaw")
    return power_law<T, I>(args.index<I>("n", 10000), args.real("avg", 8), args.real("exp", 2), seed);
  if (kind == "rmat")
    return rmat<T, I>(args.small_int("scale", 14), args.small_int("ef", 16), args.real("a", 0.57),
                      args.real("b", 0.19), args.real("c", 0.19), seed);
  if (kind == "blockdense")
    return block_dense<T, I>(args.index<I>("n", 4096), args.index<I>("block", 16),
                             args.index<I>("per_row", 4), seed);
  if (kind == "blockfem") {
    const I n = args.index<I>("n", 32);
    return block_fem<T, I>(args.index<I>("nx", n), args.index<I>("ny", n), args.index<I>("nz", n),
                           args.small_int("b", 3), seed);
  }
  if (kind == "longrows") {
    const I rows = rows_or(100000);
    return long_rows<T, I>(rows, args.index<I>("cols", rows), args.index<I>("long", 3),
                           args.index<I>("len", 10000), args.real("empty", 0.5), args.index<I>("short", 4),
                           seed);
  }
  if (kind == "dense") {
    const I rows = rows_or(256);
    return dense_as_sparse<T, I>(rows, args.index<I>("cols", rows), seed);
  }
  const I rows = rows_or(10000);  // "random"
  return random_uniform<T, I>(rows, args.index<I>("cols", rows), args.index<I>("len", 16), seed);
}

}  // namespace

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> info = [] {
    std::vector<GeneratorInfo> out;
    for (const KindDef& k : kinds())
      out.push_back(
          {std::string(k.kind), fmt::format("{} seed=1 shuffle=SEED", k.keys_help), std::string(k.summary)});
    return out;
  }();
  return info;
}

template <class T, class I>
Csr<T, I> generate(const std::string& spec) {
  const std::string_view text = trim(spec);
  const std::size_t colon = text.find(':');
  const std::string_view kind = trim(text.substr(0, colon));
  const auto def =
      std::find_if(kinds().begin(), kinds().end(), [&](const KindDef& k) { return k.kind == kind; });
  if (def == kinds().end())
    throw Error(
        fmt::format("generator spec \"{}\": unknown kind '{}'; accepted kinds: {} (spec: KIND:key=value,...)",
                    spec, kind, kind_list()));
  const Args args(spec, *def, colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1));
  const std::optional<uint64_t> shuffle = args.shuffle();  // checked before the (maybe long) generation
  try {
    Csr<T, I> A = generate_kind<T, I>(kind, args);
    if (shuffle) {
      if (A.rows != A.cols)
        args.fail(fmt::format("shuffle= renumbers square matrices; this one is {} x {}",
                              static_cast<int64_t>(A.rows), static_cast<int64_t>(A.cols)));
      const std::vector<I> perm = reorder::random_permutation<I>(A.rows, *shuffle);
      return reorder::permute_symmetric(A, std::span<const I>(perm));
    }
    return A;
  } catch (const Error& e) {
    const std::string_view message = e.what();
    if (message.starts_with("generator spec")) throw;
    throw Error(fmt::format("generator spec \"{}\": {}", spec, message));  // a generator's parameter check
  }
}

}  // namespace spx::gen

namespace spx::fem {

std::optional<FemSpec> parse_spec(const std::string& text) {
  const std::string_view body = gen::trim(text);
  const std::size_t colon = body.find(':');
  if (gen::trim(body.substr(0, colon)) != "fem2d") return std::nullopt;
  const auto def = std::find_if(gen::kinds().begin(), gen::kinds().end(),
                                [](const gen::KindDef& k) { return k.kind == "fem2d"; });
  const gen::Args args(text, *def,
                       colon == std::string_view::npos ? std::string_view{} : body.substr(colon + 1));
  // A shuffled mesh is a renumbered matrix, not the mesh's own numbering: callers build it through
  // generate() (the element data, numbered as the mesh, would not match it).
  if (args.shuffle()) return std::nullopt;
  FemSpec spec = gen::fem_spec(args);
  try {
    check_spec(spec);
  } catch (const Error& e) {
    args.fail(e.what());
  }
  return spec;
}

}  // namespace spx::fem

namespace spx::gen {

template Csr<float, int32_t> generate<float, int32_t>(const std::string&);
template Csr<float, int64_t> generate<float, int64_t>(const std::string&);
template Csr<double, int32_t> generate<double, int32_t>(const std::string&);
template Csr<double, int64_t> generate<double, int64_t>(const std::string&);

}  // namespace spx::gen
