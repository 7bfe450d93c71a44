#pragma once
// One row of an ELLPACK slice (column-major: entry k of the row at base + k * stride), as the
// SELL and Staircase kernels read it. Matrix entries stream through once (__ldcs: evict-first,
// so L2 keeps x); padding has column -1 (column 0 is real: the test is >= 0).

#include <cuda_runtime.h>

namespace fvmmini::cuda {

/// sum_k val[k] * x[col[k]] over the L stored entries; all loads issued before the first use.
template <int L>
__device__ inline double slice_row_fixed(const double* __restrict__ val, const int* __restrict__ col, long long base,
                                         int stride, const double* __restrict__ x) {
  int c[L];
  double v[L];
#pragma unroll
  for (int k = 0; k < L; ++k) {
    c[k] = __ldcs(col + base + static_cast<long long>(k) * stride);
    v[k] = __ldcs(val + base + static_cast<long long>(k) * stride);
  }
  double sum = 0.0;
#pragma unroll
  for (int k = 0; k < L; ++k)
    if (c[k] >= 0) sum += v[k] * __ldg(x + c[k]);
  return sum;
}

/// The same for a run-time length: unrolled code for the short lengths of FVM rows, a loop beyond.
__device__ inline double slice_row(const double* __restrict__ val, const int* __restrict__ col, long long base,
                                   int stride, int length, const double* __restrict__ x) {
  switch (length) {
    case 0: return 0.0;
    case 1: return slice_row_fixed<1>(val, col, base, stride, x);
    case 2: return slice_row_fixed<2>(val, col, base, stride, x);
    case 3: return slice_row_fixed<3>(val, col, base, stride, x);
    case 4: return slice_row_fixed<4>(val, col, base, stride, x);
    case 5: return slice_row_fixed<5>(val, col, base, stride, x);
    case 6: return slice_row_fixed<6>(val, col, base, stride, x);
    case 7: return slice_row_fixed<7>(val, col, base, stride, x);
    case 8: return slice_row_fixed<8>(val, col, base, stride, x);
    default: break;
  }
  double sum = 0.0;
#pragma unroll 4
  for (int k = 0; k < length; ++k) {
    const long long i = base + static_cast<long long>(k) * stride;
    const int c = __ldcs(col + i);
    const double v = __ldcs(val + i);
    if (c >= 0) sum += v * __ldg(x + c);
  }
  return sum;
}

/// The float64 entries of an ELL-slice format, for kernels templated on how a row is read
/// (MixedRows in mixed_spmv.cuh reads the float32 twin). `slice` indexes the format's slices.
struct FullRows {
  /// Whether a kernel that also sums the dot product should keep no prefetched slice table entry
  /// (see MixedRows).
  static constexpr bool kTightWithDot = false;
  const int* __restrict__ col;
  const double* __restrict__ val;
  __device__ double sum(long long base, int stride, int length, int /*row*/, long long /*slice*/,
                        const double* __restrict__ x) const {
    return slice_row(val, col, base, stride, length, x);
  }
};

}  // namespace fvmmini::cuda
