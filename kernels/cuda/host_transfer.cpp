#include "kernels/cuda/host_transfer.hpp"

#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"

namespace fvmmini::cuda {

namespace {

constexpr std::size_t chunk_bytes = std::size_t{32} << 20;
constexpr std::size_t staged_from = std::size_t{8} << 20;

/// Two pinned chunks with a stream and an event each, made on the first staged copy and kept for
/// the process, on the device current then. None when pinned memory cannot be had: every copy is
/// then a plain cudaMemcpy.
class Staging {
 public:
  Staging() {
    bool made = cudaGetDevice(&device_) == cudaSuccess &&
                cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) == cudaSuccess;
    for (int b = 0; b < 2 && made; ++b)
      made = cudaMallocHost(&chunk_[b], chunk_bytes) == cudaSuccess &&
             cudaEventCreateWithFlags(&done_[b], cudaEventDisableTiming) == cudaSuccess;
    if (made) ready_ = true;
    else release();
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  ~Staging() { release(); }  // at exit: errors of a runtime already unloading are ignored

  /// Usable for a copy on the device current now.
  bool usable() const {
    int device = -1;
    return ready_ && cudaGetDevice(&device) == cudaSuccess && device == device_;
  }
  char* chunk(int b) { return static_cast<char*>(chunk_[b]); }
  cudaStream_t stream() const { return stream_; }
  cudaEvent_t done(int b) const { return done_[b]; }

 private:
  void release() {
    ready_ = false;
    for (int b = 0; b < 2; ++b) {
      if (chunk_[b]) cudaFreeHost(chunk_[b]);
      if (done_[b]) cudaEventDestroy(done_[b]);
      chunk_[b] = nullptr;
      done_[b] = nullptr;
    }
    if (stream_) cudaStreamDestroy(stream_);
    stream_ = nullptr;
    cudaGetLastError();
  }

  int device_ = -1;
  bool ready_ = false;
  void* chunk_[2] = {};
  cudaEvent_t done_[2] = {};
  cudaStream_t stream_ = nullptr;
};

std::mutex staging_mutex;  // one staged copy at a time: they share the chunks

Staging& staging() {
  static Staging s;
  return s;
}

/// memcpy split over the OpenMP threads (one thread inside a parallel region).
void parallel_copy(char* to, const char* from, std::size_t bytes) {
#pragma omp parallel
  {
    const auto threads = static_cast<std::size_t>(omp_get_num_threads());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t share = (bytes + threads - 1) / threads;
    const std::size_t begin = std::min(bytes, t * share), end = std::min(bytes, begin + share);
    if (end > begin) std::memcpy(to + begin, from + begin, end - begin);
  }
}

/// A staged upload of `bytes`: fill(chunk, offset, n) writes the device's bytes [offset, offset + n)
/// into a pinned chunk (from one thread, itself spread over the OpenMP threads), while the other
/// chunk is in flight. The caller holds staging_mutex, and staging() is usable.
template <class Fill>
void staged_upload(char* to, std::size_t bytes, Fill fill) {
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // the staging stream would not wait for queued work
  Staging& s = staging();
  for (std::size_t offset = 0, k = 0; offset < bytes; offset += chunk_bytes, ++k) {
    const std::size_t n = std::min(chunk_bytes, bytes - offset);
    const int b = static_cast<int>(k % 2);
    FVMMINI_CUDA_CHECK(cudaEventSynchronize(s.done(b)));  // the chunk's previous copy has left it
    fill(s.chunk(b), offset, n);
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(to + offset, s.chunk(b), n, cudaMemcpyHostToDevice, s.stream()));
    FVMMINI_CUDA_CHECK(cudaEventRecord(s.done(b), s.stream()));
  }
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s.stream()));
}

/// Whether from[0..count) fit in 32 bits; to[k] = from[k] where they do.
bool narrow(std::int32_t* to, const std::int64_t* from, std::size_t count) {
  const auto n = static_cast<std::int64_t>(count);
  bool fits = true;
#pragma omp parallel for schedule(static) reduction(&& : fits)
  for (std::int64_t k = 0; k < n; ++k) {
    fits = fits && from[k] >= INT32_MIN && from[k] <= INT32_MAX;
    to[k] = static_cast<std::int32_t>(from[k]);
  }
  return fits;
}

}  // namespace

bool staged_transfer(std::size_t bytes) { return bytes >= staged_from; }

std::size_t transfer_chunk_bytes() { return chunk_bytes; }

void copy_to_device(void* device, const void* host, std::size_t bytes) {
  if (bytes == 0) return;
  std::unique_lock lock(staging_mutex, std::defer_lock);
  if (staged_transfer(bytes)) lock.lock();
  if (!lock.owns_lock() || !staging().usable()) {
    FVMMINI_CUDA_CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may return before it lands
    return;
  }
  const char* from = static_cast<const char*>(host);
  staged_upload(static_cast<char*>(device), bytes,
                [&](char* chunk, std::size_t offset, std::size_t n) { parallel_copy(chunk, from + offset, n); });
}

bool copy_narrowed_to_device(std::int32_t* device, const std::int64_t* host, std::size_t count) {
  const std::size_t bytes = count * sizeof(std::int32_t);
  if (bytes == 0) return true;
  std::unique_lock lock(staging_mutex, std::defer_lock);
  if (staged_transfer(bytes)) lock.lock();
  if (!lock.owns_lock() || !staging().usable()) {
    std::vector<std::int32_t> narrowed(count);
    if (!narrow(narrowed.data(), host, count)) return false;
    FVMMINI_CUDA_CHECK(cudaMemcpy(device, narrowed.data(), bytes, cudaMemcpyHostToDevice));
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // a pageable copy may return before it lands
    return true;
  }
  bool fits = true;
  staged_upload(reinterpret_cast<char*>(device), bytes, [&](char* chunk, std::size_t offset, std::size_t n) {
    static_assert(chunk_bytes % sizeof(std::int32_t) == 0);
    fits = narrow(reinterpret_cast<std::int32_t*>(chunk), host + offset / sizeof(std::int32_t),
                  n / sizeof(std::int32_t)) && fits;
  });
  return fits;
}

void copy_to_host(void* host, const void* device, std::size_t bytes) {
  if (bytes == 0) return;
  std::unique_lock lock(staging_mutex, std::defer_lock);
  if (staged_transfer(bytes)) lock.lock();
  if (!lock.owns_lock() || !staging().usable()) {
    FVMMINI_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
    return;
  }
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());  // the staging stream would not wait for queued work
  Staging& s = staging();
  const char* from = static_cast<const char*>(device);
  char* to = static_cast<char*>(host);
  // --- chunk k comes into buffer k % 2 while chunk k - 1 is copied out of the other
  const std::size_t chunks = (bytes + chunk_bytes - 1) / chunk_bytes;
  auto size_of = [&](std::size_t k) { return std::min(chunk_bytes, bytes - k * chunk_bytes); };
  for (std::size_t k = 0; k <= chunks; ++k) {
    if (k < chunks) {
      const int b = static_cast<int>(k % 2);
      FVMMINI_CUDA_CHECK(
          cudaMemcpyAsync(s.chunk(b), from + k * chunk_bytes, size_of(k), cudaMemcpyDeviceToHost, s.stream()));
      FVMMINI_CUDA_CHECK(cudaEventRecord(s.done(b), s.stream()));
    }
    if (k > 0) {
      const int b = static_cast<int>((k - 1) % 2);
      FVMMINI_CUDA_CHECK(cudaEventSynchronize(s.done(b)));
      parallel_copy(to + (k - 1) * chunk_bytes, s.chunk(b), size_of(k - 1));
    }
  }
}

}  // namespace fvmmini::cuda
