// spx::cuda::Stream and Event (stream.hpp).
#include "spx/cuda/stream.hpp"

#include <utility>

#include "cuda/common/check.hpp"

namespace spx::cuda {

Stream::Stream() { SPX_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }

Stream Stream::highest_priority() {
  int least = 0, greatest = 0;
  SPX_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  Stream s(nullptr);
  SPX_CUDA_CHECK(cudaStreamCreateWithPriority(&s.stream_, cudaStreamNonBlocking, greatest));
  return s;
}

Stream::~Stream() {
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

Stream::Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}

Stream& Stream::operator=(Stream&& other) noexcept {
  if (this != &other) {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

void Stream::synchronize() const { SPX_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

void Stream::wait(cudaEvent_t event) const { SPX_CUDA_CHECK(cudaStreamWaitEvent(stream_, event, 0)); }

Event::Event() { SPX_CUDA_CHECK(cudaEventCreate(&event_)); }

Event::~Event() {
  if (event_ != nullptr) cudaEventDestroy(event_);
}

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (event_ != nullptr) cudaEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

void Event::record(cudaStream_t stream) const { SPX_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void Event::synchronize() const { SPX_CUDA_CHECK(cudaEventSynchronize(event_)); }

bool Event::done() const {
  const cudaError_t status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) return false;
  if (status != cudaSuccess) detail::throw_cuda_error(status, "cudaEventQuery", __FILE__, __LINE__);
  return true;
}

double elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  SPX_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms;
}

}  // namespace spx::cuda
