#pragma once
// Sync-free dependency waits (Liu, Li, Hogg, Duff and Vinter, "A Synchronization-Free Algorithm for
// Parallel Sparse Triangular Solves", Euro-Par 2016): a kernel's blocks take their rows in
// dependency order by ticket, so every row a thread waits for belongs to a block that is already
// running or done, and a thread waits on each value it needs until the value's writer has
// published it. No grid barrier: a level's rows start as soon as their own inputs are ready.
//
// The value is its own flag. Before a sweep its outputs hold `unset` (a signalling NaN, which no
// arithmetic produces: operations on NaNs return quiet ones), and the writer's single 64-bit store
// both publishes the value and marks it ready.

#include <cuda_runtime.h>

namespace fvmmini::cuda {

constexpr unsigned long long unset_bits = 0x7ff4dead0000beefULL;

__device__ inline double load_relaxed(const double* p) {
  double v;
  asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline int load_relaxed(const int* p) {
  int v;
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ inline void publish(double* p, double v) {
  asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" ::"l"(p), "d"(v) : "memory");
}
__device__ inline void publish(int* p, int v) { asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }

__device__ inline bool is_unset(double v) { return __double_as_longlong(v) == static_cast<long long>(unset_bits); }
__device__ inline bool is_unset(int v) { return v < 0; }  ///< for non-negative values, unset as -1

/// A wait sleeps a little longer after each poll that found nothing, up to `MaxNs`:
/// hundreds of thousands of threads polling at full rate saturate L2 and slow the very writers
/// they wait for, while a longer sleep adds to each hop of a dependency chain. Each kernel picks
/// its ceiling by measurement (the analysis's waits are many and mostly long, a sweep's few and short).
template <unsigned MaxNs>
class Backoff {
 public:
  __device__ void operator()() {
    __nanosleep(ns_);
    ns_ = ns_ < MaxNs ? 2 * ns_ : ns_;
  }

 private:
  unsigned ns_ = MaxNs < 32 ? MaxNs : 32;
};

/// v[k] = x[index[k]] for each bit k of `pending` (v already holds a first load of each), the
/// unset ones reloaded together until their writers have published them: a row that needs
/// several values waits about one round trip past the last of them, not one per value.
template <unsigned MaxNs, int N, class T>
__device__ inline void wait_all(const T* x, const int (&index)[N], T (&v)[N], unsigned pending) {
  for (Backoff<MaxNs> backoff;;) {
#pragma unroll
    for (int k = 0; k < N; ++k)
      if ((pending >> k & 1u) && !is_unset(v[k])) pending &= ~(1u << k);
    if (pending == 0) return;
    backoff();
#pragma unroll
    for (int k = 0; k < N; ++k)
      if (pending >> k & 1u) v[k] = load_relaxed(x + index[k]);
  }
}

/// The block's ticket: blocks are numbered in the order they start. tickets[0] counts the blocks
/// started, tickets[1] those done; both are zero before the launch (release_ticket leaves them so).
__device__ inline int take_ticket(int* tickets) {
  __shared__ int ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(tickets, 1);
  __syncthreads();
  return ticket;
}

/// The block is done; the last block of the grid zeroes the counters for the next launch.
__device__ inline void release_ticket(int* tickets) {
  __syncthreads();
  if (threadIdx.x == 0 && atomicAdd(tickets + 1, 1) == static_cast<int>(gridDim.x) - 1) {
    tickets[0] = 0;
    tickets[1] = 0;
  }
}

}  // namespace fvmmini::cuda
