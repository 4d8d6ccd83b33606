#include "bench/registry.hpp"

#include <fmt/format.h>

#include <chrono>

#include "spx/cuda/device.hpp"
#include "spx/error.hpp"
#include "spx/version.hpp"

namespace spx::bench {

double Instance::timed_run_ms() {
  auto start = std::chrono::steady_clock::now();
  run();
  auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

void Registry::add(KernelEntry entry) {
  if (kernel(entry.name, entry.op) != nullptr) {
    throw Error(fmt::format("kernel '{}' for {} registered twice", entry.name, to_string(entry.op)));
  }
  if (!entry.prepare) throw Error(fmt::format("kernel '{}' has no prepare function", entry.name));
  kernels_.push_back(std::move(entry));
}

void Registry::add_backend(BackendEntry backend) {
  if (this->backend(backend.name) != nullptr) {
    throw Error(fmt::format("backend '{}' registered twice", backend.name));
  }
  backends_.push_back(std::move(backend));
}

const BackendEntry* Registry::backend(std::string_view name) const {
  for (const auto& b : backends_) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

const KernelEntry* Registry::kernel(std::string_view name, OpKind op) const {
  for (const auto& k : kernels_) {
    if (k.name == name && k.op == op) return &k;
  }
  return nullptr;
}

const Registry& default_registry() {
  static const Registry registry = [] {
    Registry r;
    register_cpu_kernels(r);
    register_cuda_kernels(r);
    return r;
  }();
  return registry;
}

std::string backend_unavailable_reason(const Registry& registry, std::string_view backend) {
  if (backend == "cuda") {
    // The basic reasons first, whatever the registered backend says.
    if (!spx::built_with_cuda()) return "spx was built without CUDA (-DSPX_CUDA=OFF); use --backend cpu";
    if (spx::cuda::device_count() == 0) return spx::cuda::gpu_unavailable_reason() + "; use --backend cpu";
  }
  if (const BackendEntry* b = registry.backend(backend)) {
    return b->unavailable_reason ? b->unavailable_reason() : std::string();
  }
  if (backend == "cuda") {
    return "this build registers no CUDA kernels (bench/cuda_kernels.cu is missing); use --backend cpu";
  }
  return fmt::format("unknown backend '{}' (use cpu or cuda)", backend);
}

std::string resolve_backend(const Registry& registry, std::string_view requested) {
  if (requested != "auto") return std::string(requested);
  return backend_unavailable_reason(registry, "cuda").empty() ? "cuda" : "cpu";
}

}  // namespace spx::bench
