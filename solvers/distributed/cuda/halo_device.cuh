#pragma once
// The device side of rank_transport.cuh's HaloSource and HaloArrival: a kernel that sends reads
// its values through halo_source_value; a kernel that reads a halo received takes them from
// halo_values and, after every block has read them, calls done_with_halo. Internal to the CUDA
// library.

#include <cuda/atomic>

#include <cstdio>

#include "solvers/distributed/cuda/rank_transport.cuh"

namespace fvmmini::cuda {

/// A part this late means a rank is gone: stop, not hang.
constexpr long long halo_wait_limit_ns = 120'000'000'000LL;

__device__ inline double halo_source_value(const HaloSource& s, long long k) {
  if (!s.rows) return s.x[k];
  const long long f = k / s.width;
  return s.x[static_cast<long long>(s.rows[f]) * s.width + (k - f * s.width)];
}

__device__ inline HaloFlag load_acquire(const HaloFlag* flag) {
  return ::cuda::atomic_ref<HaloFlag, ::cuda::thread_scope_system>(*const_cast<HaloFlag*>(flag))
      .load(::cuda::memory_order_acquire);
}

/// The values received, for this block: an inbox's thread 0 first waits until every sender's flag
/// shows this round (the block then sees what they wrote). Read them with __ldcg (not L1: a
/// peer wrote them).
__device__ inline const double* halo_values(const HaloArrival& a) {
  if (!a.flags) return a.values;
  const HaloFlag e = *reinterpret_cast<volatile HaloFlag*>(a.round);
  if (threadIdx.x == 0) {
    long long start = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (int i = 0; i < a.n_senders; ++i) {
      const HaloFlag* flag = a.flags + a.senders[i];  // before the loop: its acquire loads would reload it
      while (load_acquire(flag) < e + 1) {
        __nanosleep(64);
        long long now = 0;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > halo_wait_limit_ns) {
          printf("fvmmini: rank %d waited 120 s for a part from rank %d (transport ipc): stopping\n", a.rank,
                 a.senders[i]);
          __trap();
        }
      }
    }
  }
  __syncthreads();
  return a.values + static_cast<long long>(e & 1) * a.slot;
}

/// After this block's last read of halo_values: the inbox's last block of the grid counts the
/// round, so that the next one reads the other slot.
__device__ inline void done_with_halo(const HaloArrival& a) {
  if (!a.flags) return;
  const HaloFlag e = *reinterpret_cast<volatile HaloFlag*>(a.round);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(a.finished, 1u) == gridDim.x * gridDim.y * gridDim.z - 1) {
      *a.finished = 0;
      *a.round = e + 1;
    }
  }
}

}  // namespace fvmmini::cuda
