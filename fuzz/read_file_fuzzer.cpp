// libFuzzer harness: the file layer under the Matrix Market reader — plain files, the gzip
// decoder (well-formed, truncated and corrupted streams, highly compressible "bombs" against the
// expansion cap) and the streaming header reader. The first input byte picks how the rest becomes
// a file:
//   0: the bytes as they are (a gzip stream only when they start with its magic bytes)
//   1: the bytes gzip-compressed (a well-formed stream; repetitive text expands a lot)
//   2: the bytes gzip-compressed, then cut at a point the second byte chooses (truncated stream)
//   3: the bytes gzip-compressed, then one byte flipped at a point the second byte chooses
// Every file is read twice: the header alone (read_matrix_market_header) and whole
// (read_matrix_market). spx::Error is the only acceptable failure (fuzz_support.hpp).
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "spx/io.hpp"

namespace {

std::string gzip(std::string_view text) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper, as `gzip` writes.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) std::abort();
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const int mode = data[0] % 4;
  const std::size_t where = data[1];
  const std::string_view text = spx::fuzz::as_text(data + 2, size - 2);
  if (spx::fuzz::huge_valid_shape(text)) return 0;
  // Raw bytes that happen to be a gzip stream hide their header from the check above; modes 1-3
  // cover gzip.
  if (mode == 0 && text.size() >= 2 && text[0] == '\x1f' && text[1] == '\x8b') return 0;

  std::string bytes(text);
  if (mode >= 1) bytes = gzip(text);
  if (mode == 2 && !bytes.empty()) bytes.resize(where % bytes.size());
  if (mode == 3 && !bytes.empty()) bytes[where % bytes.size()] ^= static_cast<char>(0x5a);

  const spx::fuzz::TempFile file(bytes, mode >= 1 ? ".mtx.gz" : ".mtx");
  try {
    (void)spx::read_matrix_market_header(file.path());
  } catch (const spx::Error&) {
  }
  spx::Csr<double, int32_t> A;
  try {
    A = spx::read_matrix_market<double, int32_t>(file.path());
  } catch (const spx::Error&) {
    return 0;
  }
  spx::fuzz::expect_valid(A, "read_matrix_market");
  return 0;
}
