#pragma once
// RAII owners of device memory, pinned host memory, streams, events and CUDA graphs.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/host_transfer.hpp"
#include "kernels/cuda/l2_window.hpp"

namespace fvmmini::cuda {

/// n elements of T in device memory (cudaMalloc, or stream-ordered from the device's pool; never
/// managed memory).
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : size_(n) {
    if (n > 0) FVMMINI_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T)));
    count_device_bytes(static_cast<long long>(bytes()));
  }
  /// Scratch allocated in `stream`'s order from the device's memory pool and freed in it, for a
  /// build that makes and drops many buffers (a cudaFree waits for the whole device). The stream
  /// must outlive the buffer; see RetainedPool.
  DeviceBuffer(std::size_t n, cudaStream_t stream) : size_(n), stream_(stream), ordered_(true) {
    if (n > 0) FVMMINI_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), n * sizeof(T), stream));
    count_device_bytes(static_cast<long long>(bytes()));
  }
  /// Allocate and copy the host data (synchronous).
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) { upload(host); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        stream_(o.stream_),
        ordered_(std::exchange(o.ordered_, false)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(stream_, o.stream_);
    std::swap(ordered_, o.ordered_);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_ && ordered_)
      cudaFreeAsync(data_, stream_);
    else if (data_)
      cudaFree(data_);
    if (data_) count_device_bytes(-static_cast<long long>(bytes()));
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  /// Whether allocated in a stream's order (scratch).
  bool stream_ordered() const { return ordered_; }
  /// Gives the memory up unfreed (other processes may still map it: PeerExchange on an error path).
  void release() {
    if (data_) count_device_bytes(-static_cast<long long>(bytes()));
    data_ = nullptr;
    size_ = 0;
  }

  /// Host -> device, complete on return (copy_to_device); host.size() must equal size().
  void upload(std::span<const T> host) {
    if (host.size() != size_) throw CudaError("DeviceBuffer::upload: size mismatch");
    copy_to_device(data_, host.data(), bytes());
  }
  /// Host -> device, ordered in the stream; host must stay valid until the stream reaches it.
  void upload(std::span<const T> host, cudaStream_t stream) {
    if (host.size() != size_) throw CudaError("DeviceBuffer::upload: size mismatch");
    if (size_ > 0) FVMMINI_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
  }
  /// Device -> host, complete on return (copy_to_host: after the device's queued work).
  void download(std::span<T> host) const {
    if (host.size() != size_) throw CudaError("DeviceBuffer::download: size mismatch");
    copy_to_host(host.data(), data_, bytes());
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
  bool ordered_ = false;
};

/// n elements of T with every byte 0xff (NaN for doubles, -1 for integers), so that an element no
/// kernel wrote shows.
template <class T>
DeviceBuffer<T> poisoned(std::size_t n) {
  DeviceBuffer<T> buffer(n);
  if (n > 0) FVMMINI_CUDA_CHECK(cudaMemset(buffer.data(), 0xff, buffer.bytes()));
  return buffer;
}

/// While alive, the current device's memory pool keeps what stream-ordered buffers free on
/// `stream` (by default it returns them to the driver at every synchronisation, and the next
/// allocation maps them again); at the end the stream is waited for and the pool emptied.
class RetainedPool {
 public:
  explicit RetainedPool(cudaStream_t stream) : stream_(stream) {
    int device = 0;
    FVMMINI_CUDA_CHECK(cudaGetDevice(&device));
    FVMMINI_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device));
    FVMMINI_CUDA_CHECK(cudaMemPoolGetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold_));
    std::uint64_t keep = ~std::uint64_t{0};
    FVMMINI_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &keep));
  }
  RetainedPool(const RetainedPool&) = delete;
  RetainedPool& operator=(const RetainedPool&) = delete;
  ~RetainedPool() {  // on an error path too: what failed is reported by the throw already under way
    cudaStreamSynchronize(stream_);
    cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold_);
    cudaMemPoolTrimTo(pool_, 0);
  }

 private:
  cudaStream_t stream_;
  cudaMemPool_t pool_ = nullptr;
  std::uint64_t threshold_ = 0;
};

/// n elements of T in page-locked host memory (for asynchronous reads of device scalars).
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t n) : size_(n) {
    if (n > 0) FVMMINI_CUDA_CHECK(cudaMallocHost(&data_, n * sizeof(T)));
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  T* data() { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  std::size_t size() const { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A non-blocking CUDA stream.
class Stream {
 public:
  Stream() { FVMMINI_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }
  void synchronize() const { FVMMINI_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// A CUDA event; timing events unless made with disable_timing.
class Event {
 public:
  explicit Event(bool disable_timing = false) {
    FVMMINI_CUDA_CHECK(cudaEventCreateWithFlags(&event_, disable_timing ? cudaEventDisableTiming : cudaEventDefault));
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { FVMMINI_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { FVMMINI_CUDA_CHECK(cudaEventSynchronize(event_)); }
  /// Milliseconds from start to this event (both recorded and complete).
  float elapsed_since(const Event& start) const {
    float ms = 0.0f;
    FVMMINI_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// A stream beside a caller's, for work that overlaps what the caller queues meanwhile (a halo):
/// fork() orders it after the caller's queued work, end() marks the end of its part, join()
/// orders the caller's next work after that part.
class SideStream {
 public:
  /// The side stream, after the work queued on `stream` so far.
  cudaStream_t fork(cudaStream_t stream) {
    forked_.record(stream);
    FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(side_.get(), forked_.get(), 0));
    return side_.get();
  }
  void end() { ended_.record(side_.get()); }
  void join(cudaStream_t stream) const { FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(stream, ended_.get(), 0)); }
  cudaStream_t get() const { return side_.get(); }

 private:
  Stream side_;
  Event forked_{true}, ended_{true};
};

/// A graph whose while node loops over `body` (graph_loop.cu).
struct WhileLoop {
  cudaGraph_t graph = nullptr;
  cudaGraph_t body = nullptr;
  cudaGraphConditionalHandle handle{};
};

/// A new graph of a test node (*flag == value) and, after it, a while node on that test; `stream`
/// then captures into its body. False, nothing left behind and the error cleared, where the
/// driver has no conditional nodes, the capture cannot begin or loops are off
/// (device_loops_enabled, cuda_backend.hpp).
bool begin_while_loop(cudaStream_t stream, const int* flag, int value, WhileLoop& loop);
/// Queues the test that ends a pass of the body (whether the loop goes on: *flag == value).
void end_while_pass(const WhileLoop& loop, const int* flag, int value, cudaStream_t stream);

/// An instantiated CUDA graph: a launch sequence captured once from a stream and replayed with
/// one launch (kernel arguments are fixed at capture).
class GraphExec {
 public:
  GraphExec() = default;
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }

  /// Capture what enqueue() queues on `stream` (other streams it forks to included) and
  /// instantiate it, with `window` on every kernel (none when empty). Returns false, with the
  /// stream usable and nothing queued, when the work cannot be captured (an operation that graphs
  /// do not allow); the caller then launches directly.
  template <class Enqueue>
  bool capture(cudaStream_t stream, Enqueue&& enqueue, const L2Window& window = {}) {
    reset();
    if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    const bool queued = queues(enqueue);
    cudaGraph_t graph = nullptr;
    const bool ended = cudaStreamEndCapture(stream, &graph) == cudaSuccess && graph;
    return instantiate(graph, queued && ended, nullptr, window);
  }

  /// The same for a loop the device runs on its own: what enqueue() queues is the body of a
  /// conditional while node, replayed as long as *flag == value (tested by a one-thread kernel
  /// before the first pass and after each: no host in the loop, and no pass after the flag
  /// changed). Returns false as capture does, also where the driver has no conditional nodes.
  template <class Enqueue>
  bool capture_while(cudaStream_t stream, const int* flag, int value, Enqueue&& enqueue,
                     const L2Window& window = {}) {
    reset();
    WhileLoop loop{};
    if (!begin_while_loop(stream, flag, value, loop)) return false;
    bool queued = queues(enqueue);
    if (queued) queued = queues([&] { end_while_pass(loop, flag, value, stream); });
    cudaGraph_t body = loop.body;
    const bool ended = cudaStreamEndCapture(stream, &body) == cudaSuccess;
    return instantiate(loop.graph, queued && ended, loop.body, window);
  }

  bool valid() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) { FVMMINI_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }
  template <class Enqueue>
  static bool queues(Enqueue&& enqueue) {
    try {
      enqueue();
      return true;
    } catch (const CudaError&) {
      return false;
    }
  }
  /// Instantiates `graph` (destroyed here) where `ok`, `window` on its kernels and on those of
  /// `body` (a conditional node's body graph, or null).
  bool instantiate(cudaGraph_t graph, bool ok, cudaGraph_t body, const L2Window& window) {
    if (ok && !window.empty()) {
      try {
        apply_l2_window(graph, window);
        if (body) apply_l2_window(body, window);
      } catch (...) {
        cudaGraphDestroy(graph);
        throw;
      }
    }
    if (ok && cudaGraphInstantiate(&exec_, graph, 0) != cudaSuccess) exec_ = nullptr;
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();  // a failed capture leaves its error behind: it is not the caller's
    return exec_ != nullptr;
  }

  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace fvmmini::cuda
