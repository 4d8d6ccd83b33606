#include "cuda/common/check.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

#include "spx/error.hpp"

namespace spx::cuda::detail {
namespace {

// "cudaMemcpyAsync(dst, src, ...)" → "cudaMemcpyAsync"; the macro passes the call's source text.
std::string_view function_name(const char* call) {
  std::string_view s(call);
  const auto paren = s.find('(');
  s = s.substr(0, paren);
  while (!s.empty() && (s.back() == ' ')) s.remove_suffix(1);
  const auto scope = s.rfind("::");
  if (scope != std::string_view::npos) s = s.substr(scope + 2);
  return s;
}

std::string_view base_name(const char* file) {
  std::string_view s(file);
  const auto slash = s.find_last_of("/\\");
  return slash == std::string_view::npos ? s : s.substr(slash + 1);
}

[[noreturn]] void throw_failure(const char* call, const char* file, int line, std::string_view what) {
  std::string msg(function_name(call));
  msg += " failed at ";
  msg += base_name(file);
  msg += ':';
  msg += std::to_string(line);
  msg += ": ";
  msg += what;
  throw Error(msg);
}

bool sync_after_launch() {
  static const bool enabled = [] {
    const char* v = std::getenv("SPX_CUDA_SYNC");
    return v != nullptr && v[0] != '\0' && v[0] != '0';
  }();
  return enabled;
}

}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  // Clear a non-sticky error so the next check does not report it again (sticky errors, such as
  // an illegal address, stay set: the context is unusable after them, as CUDA documents).
  cudaGetLastError();
  std::string what = cudaGetErrorString(status);
  what += " (";
  what += cudaGetErrorName(status);
  what += ')';
  throw_failure(call, file, line, what);
}

void throw_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  std::string what = cusparseGetErrorString(status);
  what += " (";
  what += cusparseGetErrorName(status);
  what += ')';
  throw_failure(call, file, line, what);
}

void throw_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  std::string what = cublasGetStatusString(status);
  throw_failure(call, file, line, what);
}

void check_last_launch(const char* kernel, cudaStream_t stream, const char* file, int line) {
  cudaError_t status = cudaGetLastError();
  if (status == cudaSuccess && sync_after_launch()) status = cudaStreamSynchronize(stream);
  if (status != cudaSuccess) {
    std::string call = "launch of ";
    call += kernel;
    cudaGetLastError();
    std::string what = cudaGetErrorString(status);
    what += " (";
    what += cudaGetErrorName(status);
    what += ')';
    throw_failure(call.c_str(), file, line, what);
  }
}

}  // namespace spx::cuda::detail
