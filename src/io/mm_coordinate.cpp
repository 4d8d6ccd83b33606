// Coordinate-format body: entry lines -> canonical Csr.
//
// Speed plan (the target is a 50M-entry file in a few seconds on 2 cores): the text is already in
// memory; the entry section is cut into one piece per OpenMP thread at line boundaries; each
// thread parses its piece with from_chars into its own (row, col, value) lists; the lists are
// counted per row and scattered into the Csr (file order is kept within a row, which for the
// usual column- or row-sorted files already gives sorted rows); then rows are sorted and
// duplicates merged in parallel. Pieces do not know their absolute line numbers, so when any
// piece finds a problem the section is parsed again by one thread, which names the exact line.
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <new>
#include <utility>
#include <vector>

#include "io/mm_lex.hpp"
#include "io/mm_limits.hpp"
#include "io/mm_readers.hpp"
#include "io/mm_values.hpp"
#include "matrix/index_checks.hpp"

namespace spx::io {
namespace {

using Field = MatrixMarketHeader::Field;
using Symmetry = MatrixMarketHeader::Symmetry;

// Below this size one thread parses the section: thread start-up would cost more than it saves.
constexpr std::size_t kParallelMinBytes = std::size_t{4} << 20;

// Parallel pieces add their entries to a shared count in batches this large: a file holding more
// entries than its size line declares stops every piece soon after the count passes it, instead
// of listing all of them (a gzip bomb of 1e8 identical lines) before the count is compared.
constexpr int64_t kSharedCountBatch = 4096;

struct ScanResult {
  int64_t entries = 0;    // entry lines read
  int64_t last_line = 0;  // number of the last line of the scanned text
  bool stopped = false;   // the visitor asked to stop
};

// Unsigned decimal without sign, the overwhelmingly common index form. Returns false (p unchanged)
// for anything else, which then takes the careful path.
inline bool parse_plain_index(const char*& p, const char* end, int64_t& out) {
  const char* q = p;
  uint64_t v = 0;
  while (q != end && static_cast<unsigned>(static_cast<unsigned char>(*q)) - unsigned{'0'} < 10u) {
    v = v * 10 + static_cast<uint64_t>(*q - '0');
    ++q;
  }
  const auto digits = q - p;
  if (digits == 0 || digits > 18 || (q != end && !is_token_end(*q))) return false;
  out = static_cast<int64_t>(v);
  p = q;
  return true;
}

inline const char* parse_index(const char* p, const char* end, const EntryRules& rules, int64_t line,
                               const char* what, int64_t bound, int64_t& out) {
  if (parse_plain_index(p, end, out)) return p;
  const char* after = nullptr;
  const IntToken kind = parse_int64_token(p, end, out, &after);
  if (kind == IntToken::TooLarge) {
    throw Error(fmt::format("{}:{}: {} index {} out of range 1..{}", rules.name, line, what,
                            quote_token(p, end), bound));
  }
  if (kind != IntToken::Ok) {
    throw Error(
        fmt::format("{}:{}: {} index {} is not an integer", rules.name, line, what, quote_token(p, end)));
  }
  return after;  // a sign or many digits: the range check names it
}

[[noreturn]] void throw_missing(const EntryRules& rules, int64_t line, const char* what) {
  const char* form = rules.field == Field::Pattern ? "'row col'" : "'row col value'";
  throw Error(fmt::format("{}:{}: missing {} (an entry line is {})", rules.name, line, what, form));
}

// Scans entry lines in [p, end), starting at line number `line`, calling
// visit(row0, col0, value, line) -> bool (false stops the scan) for each entry, 0-based.
// Blank and '%' comment lines are skipped. More than max_entries entries is an error.
template <class T, class Visit>
ScanResult scan_entries(const char* p, const char* end, int64_t line, int64_t max_entries,
                        const EntryRules& rules, Visit&& visit) {
  ScanResult result;
  const char* const begin = p;
  const bool has_value = rules.field != Field::Pattern;
  const bool lower_only = rules.symmetry != Symmetry::General;
  const bool strict_lower = rules.symmetry == Symmetry::SkewSymmetric;
  while (p != end) {
    const char* q = skip_blanks(p, end);
    if (q == end) break;
    if (*q == '\n' || *q == '%') {
      p = skip_line(q, end);
      if (p[-1] == '\n') ++line;  // a final comment line without newline is still the last line
      continue;
    }
    if (result.entries == max_entries) {
      throw Error(fmt::format("{}:{}: more entries than the {} declared on the size line", rules.name, line,
                              max_entries));
    }
    int64_t row = 0, col = 0;
    q = parse_index(q, end, rules, line, "row", rules.rows, row);
    q = skip_blanks(q, end);
    if (q == end || *q == '\n') throw_missing(rules, line, "column index");
    q = parse_index(q, end, rules, line, "column", rules.cols, col);
    if (row < 1 || row > rules.rows) {
      throw Error(fmt::format("{}:{}: row index {} out of range 1..{}", rules.name, line, row, rules.rows));
    }
    if (col < 1 || col > rules.cols) {
      throw Error(
          fmt::format("{}:{}: column index {} out of range 1..{}", rules.name, line, col, rules.cols));
    }
    T value{1};
    if (has_value) {
      q = skip_blanks(q, end);
      if (q == end || *q == '\n') throw_missing(rules, line, "value");
      q = parse_value(q, end, rules, line, value);
    }
    q = skip_blanks(q, end);
    if (q != end && *q != '\n') {
      throw Error(fmt::format("{}:{}: unexpected {} after the entry (an entry line is {})", rules.name, line,
                              quote_token(q, end), has_value ? "'row col value'" : "'row col'"));
    }
    if (lower_only && (row < col || (strict_lower && row == col))) {
      if (row == col) {
        throw Error(
            fmt::format("{}:{}: diagonal entry ({}, {}) in a skew-symmetric file (its diagonal is zero "
                        "and must not be stored)",
                        rules.name, line, row, col));
      }
      throw Error(
          fmt::format("{}:{}: entry ({}, {}) is above the diagonal in a {} file (only the lower "
                      "triangle may be stored)",
                      rules.name, line, row, col,
                      rules.symmetry == Symmetry::Symmetric ? "symmetric" : "skew-symmetric"));
    }
    ++result.entries;
    if (!visit(row - 1, col - 1, value, line)) {
      result.stopped = true;
      result.last_line = line;
      return result;
    }
    p = q == end ? end : q + 1;
    if (q != end) ++line;
  }
  // `line` numbers the line starting at p; after a final newline (or in an empty section, which
  // follows the size line's newline) that line does not exist.
  result.last_line = (begin == end || end[-1] == '\n') ? line - 1 : line;
  return result;
}

template <class T, class I>
struct EntryList {
  std::vector<I> row;
  std::vector<I> col;
  std::vector<T> value;
  int64_t mirrored = 0;     // off-diagonal entries of a symmetric file: each adds its mirror image
  bool rows_sorted = true;  // row indices never decrease (files written row by row)

  void reserve(std::size_t n) {
    row.reserve(n);
    col.reserve(n);
    value.reserve(n);
  }
};

// Entries counted by every piece of a parallel parse, against the declared count.
struct SharedCount {
  std::atomic<int64_t> entries{0};
  int64_t declared = 0;
};

// Stops (ScanResult::stopped) once `shared` passes its declared count.
template <class T, class I>
ScanResult scan_into(const char* p, const char* end, int64_t line, int64_t max_entries,
                     const EntryRules& rules, std::size_t reserve, EntryList<T, I>& list,
                     SharedCount* shared = nullptr) {
  list.reserve(reserve);
  const bool mirror = rules.symmetry != Symmetry::General;
  int64_t mirrored = 0;
  int64_t previous_row = 0;
  bool rows_sorted = true;
  int64_t batch = 0;
  const ScanResult r =
      scan_entries<T>(p, end, line, max_entries, rules, [&](int64_t row, int64_t col, T v, int64_t) {
        list.row.push_back(static_cast<I>(row));
        list.col.push_back(static_cast<I>(col));
        list.value.push_back(v);
        mirrored += mirror && row != col ? 1 : 0;
        rows_sorted = rows_sorted && row >= previous_row;
        previous_row = row;
        if (shared != nullptr && ++batch == kSharedCountBatch) {
          batch = 0;
          if (shared->entries.fetch_add(kSharedCountBatch) + kSharedCountBatch > shared->declared)
            return false;
        }
        return true;
      });
  list.mirrored = mirrored;
  list.rows_sorted = rows_sorted;
  return r;
}

// Parses the entry section into one list per piece; with one piece the errors carry exact lines.
template <class T, class I>
std::vector<EntryList<T, I>> parse_entry_section(std::string_view body, int64_t body_line, int64_t declared,
                                                 int64_t size_line, const EntryRules& rules) {
  const char* const begin = body.data();
  const char* const end = begin + body.size();
  const auto reserve_for = [&](std::size_t bytes) {
    // The declared count, shared out by bytes, never more than the text can hold.
    const double share = static_cast<double>(declared) * static_cast<double>(bytes) /
                         static_cast<double>(std::max<std::size_t>(body.size(), 1));
    return std::min(static_cast<std::size_t>(share) + 16, bytes / kMinEntryBytes + 1);
  };
  const auto sequential = [&] {
    std::vector<EntryList<T, I>> lists(1);
    const ScanResult r =
        scan_into(begin, end, body_line, declared, rules, reserve_for(body.size()), lists[0]);
    if (r.entries < declared) {
      throw Error(fmt::format("{}:{}: the file ends after {} of the {} entries declared on line {}",
                              rules.name, r.last_line, r.entries, declared, size_line));
    }
    return lists;
  };

  const int threads = omp_get_max_threads();
  if (body.size() < kParallelMinBytes || threads < 2) return sequential();

  const auto pieces = static_cast<std::size_t>(threads);
  std::vector<const char*> cut(pieces + 1, end);
  cut[0] = begin;
  for (std::size_t k = 1; k < pieces; ++k) {
    const char* c = begin + body.size() / pieces * k;
    c = std::max(c, cut[k - 1]);
    cut[k] = c == begin ? c : skip_line(c - 1, end);  // start of the line holding byte c (or next)
  }
  std::vector<EntryList<T, I>> lists(pieces);
  std::vector<char> failed(pieces, 0);
  std::vector<int64_t> counts(pieces, 0);
  SharedCount shared;
  shared.declared = declared;
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (std::size_t k = 0; k < pieces; ++k) {
    try {
      // A piece alone holding more than the declared count is already wrong.
      const auto bytes = static_cast<std::size_t>(cut[k + 1] - cut[k]);
      const ScanResult r =
          scan_into(cut[k], cut[k + 1], 0, declared, rules, reserve_for(bytes), lists[k], &shared);
      counts[k] = r.entries;
      if (r.stopped) failed[k] = 1;  // the count passed the declared one: the pass below names the line
    } catch (...) {  // bad input or out of memory: the single-thread pass below reports it properly
      failed[k] = 1;
    }
  }
  int64_t total = 0;
  for (std::size_t k = 0; k < pieces; ++k) total += counts[k];
  if (std::find(failed.begin(), failed.end(), 1) != failed.end() || total != declared) {
    lists.clear();
    return sequential();
  }
  return lists;
}

// Fills A.row_ptr, col_idx and values from the entry lists (symmetry expanded), keeping file
// order within each row. Lists are consumed.
template <class T, class I>
void assemble_csr(std::vector<EntryList<T, I>>& lists, int64_t total, Symmetry symmetry, Csr<T, I>& A) {
  const bool mirror = symmetry != Symmetry::General;
  const T mirror_sign = symmetry == Symmetry::SkewSymmetric ? T{-1} : T{1};
  const auto rows = static_cast<std::size_t>(A.rows);

  // Entries already in row order (general files written row by row, like spx's own): the lists
  // are the Csr arrays; only the row pointers need counting.
  bool rows_sorted = !mirror;
  I previous_last = 0;
  for (const auto& l : lists) {
    if (l.row.empty()) continue;
    rows_sorted = rows_sorted && l.rows_sorted && l.row.front() >= previous_last;
    previous_last = l.row.back();
  }
  if (rows_sorted) {
    for (const auto& l : lists) {
      for (const I r : l.row) ++A.row_ptr[static_cast<std::size_t>(r) + 1];
    }
    for (std::size_t r = 0; r < rows; ++r) A.row_ptr[r + 1] += A.row_ptr[r];
    if (lists.size() == 1) {
      A.col_idx = std::move(lists[0].col);
      A.values = std::move(lists[0].value);
    } else {
      A.col_idx.resize(static_cast<std::size_t>(total));
      A.values.resize(static_cast<std::size_t>(total));
      std::vector<std::size_t> offset(lists.size() + 1, 0);
      for (std::size_t k = 0; k < lists.size(); ++k) offset[k + 1] = offset[k] + lists[k].col.size();
#pragma omp parallel for schedule(static, 1)
      for (std::size_t k = 0; k < lists.size(); ++k) {
        std::copy(lists[k].col.begin(), lists[k].col.end(),
                  A.col_idx.begin() + static_cast<std::ptrdiff_t>(offset[k]));
        std::copy(lists[k].value.begin(), lists[k].value.end(),
                  A.values.begin() + static_cast<std::ptrdiff_t>(offset[k]));
      }
    }
    lists.clear();
    return;
  }

  // Counting sort by row, one thread per list: each list counts its entries per row, the counts
  // become per-list write offsets (list k's entries of row r follow those of lists < k, as in the
  // file), and each list scatters into its own slots. Per-list counters cost lists x rows
  // indices, so hypersparse matrices (few entries per row) use one counter array.
  const std::size_t groups =
      lists.size() > 1 && rows * lists.size() <= 2 * static_cast<std::size_t>(total) ? lists.size() : 1;
  std::vector<std::vector<I>> next(groups, std::vector<I>(rows, I{0}));
  const auto lists_of = [&](std::size_t g) {
    return groups == 1 ? std::pair<std::size_t, std::size_t>{0, lists.size()} : std::pair{g, g + 1};
  };
#pragma omp parallel for schedule(static, 1) if (groups > 1)
  for (std::size_t g = 0; g < groups; ++g) {
    I* const count = next[g].data();
    for (auto [k, k_end] = lists_of(g); k < k_end; ++k) {
      const auto& l = lists[k];
      for (std::size_t e = 0; e < l.row.size(); ++e) {
        ++count[l.row[e]];
        if (mirror && l.row[e] != l.col[e]) ++count[l.col[e]];
      }
    }
  }
  I running = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    A.row_ptr[r] = running;
    for (std::size_t g = 0; g < groups; ++g) {
      const I c = next[g][r];
      next[g][r] = running;
      running += c;
    }
  }
  A.row_ptr[rows] = running;
  A.col_idx.resize(static_cast<std::size_t>(total));
  A.values.resize(static_cast<std::size_t>(total));
  I* const col = A.col_idx.data();
  T* const val = A.values.data();
#pragma omp parallel for schedule(static, 1) if (groups > 1)
  for (std::size_t g = 0; g < groups; ++g) {
    I* const at = next[g].data();
    for (auto [k, k_end] = lists_of(g); k < k_end; ++k) {
      auto& l = lists[k];
      for (std::size_t e = 0; e < l.row.size(); ++e) {
        const I r = l.row[e], c = l.col[e];
        const T v = l.value[e];
        const I slot = at[r]++;
        col[slot] = c;
        val[slot] = v;
        if (mirror && r != c) {
          const I mirrored_slot = at[c]++;
          col[mirrored_slot] = r;
          val[mirrored_slot] = mirror_sign * v;
        }
      }
      l = EntryList<T, I>{};  // release as we go
    }
  }
  lists.clear();
}

// Sorts each row by column and merges (Sum) or detects (Error) repeated columns. Returns the
// first row holding a duplicate when duplicates are an error, -1 otherwise.
template <class T, class I>
int64_t sort_and_merge_rows(Csr<T, I>& A, Duplicates duplicates) {
  const I rows = A.rows;
  std::vector<I> kept(static_cast<std::size_t>(rows));
  int64_t first_duplicate_row = std::numeric_limits<int64_t>::max();
  bool shrunk = false;
  I* const col = A.col_idx.data();
  T* const val = A.values.data();
  const I* const ptr = A.row_ptr.data();
  // Small matrices skip the thread team: waking it costs more than sorting a few rows.
#pragma omp parallel if (A.nnz() > 100000)
  {
    std::vector<std::pair<I, T>> scratch;
    int64_t my_first_duplicate = std::numeric_limits<int64_t>::max();
    bool my_shrunk = false;
#pragma omp for schedule(dynamic, 2048)
    for (I r = 0; r < rows; ++r) {
      const I b = ptr[r], e = ptr[r + 1];
      kept[r] = e - b;
      I k = b + 1;
      while (k < e && col[k - 1] < col[k]) ++k;
      if (k >= e) continue;  // already strictly increasing: the usual case
      if (e - b <= 32) {     // insertion sort (stable, so duplicates sum in file order)
        for (I i = b + 1; i < e; ++i) {
          const I c = col[i];
          const T v = val[i];
          I j = i;
          for (; j > b && col[j - 1] > c; --j) {
            col[j] = col[j - 1];
            val[j] = val[j - 1];
          }
          col[j] = c;
          val[j] = v;
        }
      } else {
        scratch.clear();
        for (I i = b; i < e; ++i) scratch.emplace_back(col[i], val[i]);
        std::stable_sort(scratch.begin(), scratch.end(),
                         [](const auto& x, const auto& y) { return x.first < y.first; });
        for (I i = b; i < e; ++i) {
          col[i] = scratch[static_cast<std::size_t>(i - b)].first;
          val[i] = scratch[static_cast<std::size_t>(i - b)].second;
        }
      }
      if (duplicates == Duplicates::Error) {
        for (I i = b + 1; i < e; ++i) {
          if (col[i] == col[i - 1]) {
            my_first_duplicate = std::min<int64_t>(my_first_duplicate, r);
            break;
          }
        }
        continue;
      }
      I w = b;  // merge equal columns into their first slot
      for (I i = b + 1; i < e; ++i) {
        if (col[i] == col[w]) {
          val[w] += val[i];
        } else {
          ++w;
          col[w] = col[i];
          val[w] = val[i];
        }
      }
      kept[r] = w + 1 - b;
      my_shrunk = my_shrunk || kept[r] != e - b;
    }
#pragma omp critical
    {
      first_duplicate_row = std::min(first_duplicate_row, my_first_duplicate);
      shrunk = shrunk || my_shrunk;
    }
  }
  if (first_duplicate_row != std::numeric_limits<int64_t>::max()) return first_duplicate_row;
  if (shrunk) {  // close the gaps merging left at row ends
    I w = 0;
    for (I r = 0; r < rows; ++r) {
      const I b = A.row_ptr[r];
      for (I i = 0; i < kept[r]; ++i) {
        col[w + i] = col[b + i];
        val[w + i] = val[b + i];
      }
      A.row_ptr[r] = w;
      w += kept[r];
    }
    A.row_ptr[rows] = w;
    A.col_idx.resize(static_cast<std::size_t>(w));
    A.values.resize(static_cast<std::size_t>(w));
    A.col_idx.shrink_to_fit();
    A.values.shrink_to_fit();
  }
  return -1;
}

// Error path only: finds the lines of the first two file entries that land on (row, col).
[[noreturn]] void throw_duplicate(std::string_view body, int64_t body_line, int64_t declared,
                                  const EntryRules& rules, int64_t row, int64_t col) {
  int64_t first_line = 0, repeat_line = 0;
  const bool mirror = rules.symmetry != Symmetry::General;
  scan_entries<double>(body.data(), body.data() + body.size(), body_line, declared, rules,
                       [&](int64_t r, int64_t c, double, int64_t line) {
                         if ((r == row && c == col) || (mirror && r == col && c == row)) {
                           if (first_line == 0) {
                             first_line = line;
                             return true;
                           }
                           repeat_line = line;
                           return false;
                         }
                         return true;
                       });
  if (first_line != 0 && repeat_line == 0) repeat_line = first_line;
  // Report the entry as the file wrote it (lower triangle for symmetric files).
  const int64_t file_row = mirror ? std::max(row, col) : row;
  const int64_t file_col = mirror ? std::min(row, col) : col;
  throw Error(
      fmt::format("{}:{}: duplicate entry ({}, {}), first given on line {} (duplicates are an error "
                  "with ReadOptions::duplicates = Duplicates::Error)",
                  rules.name, repeat_line, file_row + 1, file_col + 1, first_line));
}

}  // namespace

template <class I>
void check_shape_fits(const ParsedHeader& header, std::string_view name) {
  constexpr int64_t max_index = std::numeric_limits<I>::max();
  const auto& h = header.header;
  for (const auto& [size, what] : {std::pair{h.rows, "rows"}, std::pair{h.cols, "columns"}}) {
    if (size > max_index) {
      throw Error(fmt::format("{}:{}: {} {} do not fit the index type {} (max {}); {}", name,
                              header.size_line, size, what, index_type_name<I>(), max_index,
                              spx::detail::kWideIndexReadHint));
    }
  }
}

template <class I>
void check_nnz_fits(int64_t nnz, const ParsedHeader& header, std::string_view name) {
  constexpr int64_t max_index = std::numeric_limits<I>::max();
  if (nnz > max_index) {
    const bool expanded = header.header.symmetry != MatrixMarketHeader::Symmetry::General;
    throw Error(fmt::format("{}:{}: {} nonzeros{} do not fit the index type {} (max {}); {}", name,
                            header.size_line, nnz, expanded ? " after symmetric expansion" : "",
                            index_type_name<I>(), max_index, spx::detail::kWideIndexReadHint));
  }
}

template <class T, class I>
Csr<T, I> read_coordinate(std::string_view text, const ParsedHeader& header, std::string_view name,
                          const ReadOptions& options) {
  check_shape_fits<I>(header, name);
  const auto& h = header.header;
  EntryRules rules;
  rules.rows = h.rows;
  rules.cols = h.cols;
  rules.field = h.field;
  rules.symmetry = h.symmetry;
  rules.allow_nonfinite = options.allow_nonfinite;
  rules.name = name;
  const std::string_view body = text.substr(std::min(header.body_offset, text.size()));

  try {
    auto lists = parse_entry_section<T, I>(body, header.body_line, h.entries, header.size_line, rules);

    int64_t total = 0;
    for (const auto& l : lists) total += static_cast<int64_t>(l.row.size()) + l.mirrored;
    check_nnz_fits<I>(total, header, name);

    // Allocated only now: the text has proven it holds every declared entry.
    Csr<T, I> A(static_cast<I>(h.rows), static_cast<I>(h.cols));
    assemble_csr(lists, total, h.symmetry, A);

    const int64_t duplicate_row = sort_and_merge_rows(A, options.duplicates);
    if (duplicate_row >= 0) {
      const auto r = static_cast<I>(duplicate_row);
      I duplicate_col = 0;
      for (I i = A.row_ptr[r] + 1; i < A.row_ptr[r + 1]; ++i) {
        if (A.col_idx[i] == A.col_idx[i - 1]) {
          duplicate_col = A.col_idx[i];
          break;
        }
      }
      throw_duplicate(body, header.body_line, h.entries, rules, duplicate_row, duplicate_col);
    }
    return A;
  } catch (const std::bad_alloc&) {
    throw Error(fmt::format("{}:{}: out of memory reading a {} x {} matrix with {} entries", name,
                            header.size_line, h.rows, h.cols, h.entries));
  } catch (const std::length_error&) {
    throw Error(fmt::format("{}:{}: a {} x {} matrix with {} entries is too large to allocate", name,
                            header.size_line, h.rows, h.cols, h.entries));
  }
}

#define SPX_INSTANTIATE(T, I)                                                                       \
  template Csr<T, I> read_coordinate<T, I>(std::string_view, const ParsedHeader&, std::string_view, \
                                           const ReadOptions&);
SPX_INSTANTIATE(float, int32_t)
SPX_INSTANTIATE(float, int64_t)
SPX_INSTANTIATE(double, int32_t)
SPX_INSTANTIATE(double, int64_t)
#undef SPX_INSTANTIATE
template void check_shape_fits<int32_t>(const ParsedHeader&, std::string_view);
template void check_shape_fits<int64_t>(const ParsedHeader&, std::string_view);
template void check_nnz_fits<int32_t>(int64_t, const ParsedHeader&, std::string_view);
template void check_nnz_fits<int64_t>(int64_t, const ParsedHeader&, std::string_view);

}  // namespace spx::io
