// Scratch benchmark (session 38): a 4 GiB host -> device copy, pageable cudaMemcpy against
// staging through two pinned chunks filled on every OpenMP thread, and against registering the
// source (cudaHostRegister). Not built by the project; upbench.txt has its output.
// pageable cudaMemcpy against staging through pinned chunks filled on every thread
#include <cuda_runtime.h>
#include <omp.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
#include <sys/mman.h>
#include <cstdlib>
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
int main(int argc, char** argv) {
  size_t bytes = (argc > 1 ? atol(argv[1]) : 4096) << 20;
  size_t chunk = (argc > 2 ? atol(argv[2]) : 64) << 20;
  void* h = nullptr; posix_memalign(&h, 2 << 20, bytes); madvise(h, bytes, MADV_HUGEPAGE);
  #pragma omp parallel for
  for (long k = 0; k < (long)(bytes / 8); ++k) ((double*)h)[k] = k * 0.5;
  void* d; CK(cudaMalloc(&d, bytes)); CK(cudaFree(0));
  for (int rep = 0; rep < 3; ++rep) {
    double t = now(); CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); CK(cudaDeviceSynchronize());
    double tp = now() - t;
    // staged: two pinned chunks, filled by all threads while the other is copied
    void* pin[2]; CK(cudaMallocHost(&pin[0], chunk)); CK(cudaMallocHost(&pin[1], chunk));
    cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); cudaEvent_t ev[2]; CK(cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming)); CK(cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming));
    t = now();
    for (size_t off = 0, i = 0; off < bytes; off += chunk, ++i) {
      size_t n = std::min(chunk, bytes - off); int b = i & 1;
      CK(cudaEventSynchronize(ev[b]));
      char* dst = (char*)pin[b]; const char* src = (const char*)h + off;
      #pragma omp parallel
      { int T = omp_get_num_threads(), r = omp_get_thread_num(); size_t per = (n + T - 1) / T; size_t a = std::min(n, per * r), e = std::min(n, a + per); std::memcpy(dst + a, src + a, e - a); }
      CK(cudaMemcpyAsync((char*)d + off, dst, n, cudaMemcpyHostToDevice, s)); CK(cudaEventRecord(ev[b], s));
    }
    CK(cudaStreamSynchronize(s));
    double ts = now() - t;
    // pinning the source itself
    t = now(); CK(cudaHostRegister(h, bytes, 0)); double treg = now() - t;
    t = now(); CK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)); double tr = now() - t;
    t = now(); CK(cudaHostUnregister(h)); double tun = now() - t;
    printf("%zu MiB: pageable %.2f GB/s, staged %zu MiB chunks %.2f GB/s (%d threads), register %.3f s + copy %.2f GB/s + unregister %.3f s\n",
           bytes >> 20, bytes / tp / 1e9, chunk >> 20, bytes / ts / 1e9, omp_get_max_threads(), treg, bytes / tr / 1e9, tun);
    cudaFreeHost(pin[0]); cudaFreeHost(pin[1]);
  }
}
