#pragma once
// One row of an ELLPACK slice (column-major: entry k of the row at base + k * stride), as the
// SELL and Staircase kernels read it. Matrix entries stream through once (__ldcs: evict-first,
// so L2 keeps x); padding has column -1 (column 0 is real: the test is >= 0).

#include <cuda_runtime.h>

namespace fvmmini::cuda {

/// out[j] = sum_k val[k] * x[col[k] * K + j] over the L stored entries for K vectors interleaved by
/// row (K = 1: one vector; K > 1: the matrix read once for all of them); all loads issued before
/// the first use.
template <int K, int L>
__device__ inline void slice_row_block_fixed(const double* __restrict__ val, const int* __restrict__ col,
                                             long long base, int stride, const double* __restrict__ x,
                                             double (&out)[K]) {
  int c[L];
  double v[L];
#pragma unroll
  for (int k = 0; k < L; ++k) {
    c[k] = __ldcs(col + base + static_cast<long long>(k) * stride);
    v[k] = __ldcs(val + base + static_cast<long long>(k) * stride);
  }
#pragma unroll
  for (int j = 0; j < K; ++j) out[j] = 0.0;
#pragma unroll
  for (int k = 0; k < L; ++k)
    if (c[k] >= 0) {
      const double* xc = x + static_cast<long long>(c[k]) * K;
#pragma unroll
      for (int j = 0; j < K; ++j) out[j] += v[k] * __ldg(xc + j);
    }
}

/// sum_k val[k] * x[col[k]] over the L stored entries: the block form on one vector.
template <int L>
__device__ inline double slice_row_fixed(const double* __restrict__ val, const int* __restrict__ col, long long base,
                                         int stride, const double* __restrict__ x) {
  double out[1];
  slice_row_block_fixed<1, L>(val, col, base, stride, x, out);
  return out[0];
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

/// The block form for a run-time length.
template <int K>
__device__ inline void slice_row_block(const double* __restrict__ val, const int* __restrict__ col, long long base,
                                       int stride, int length, const double* __restrict__ x, double (&out)[K]) {
  switch (length) {
    case 1: return slice_row_block_fixed<K, 1>(val, col, base, stride, x, out);
    case 2: return slice_row_block_fixed<K, 2>(val, col, base, stride, x, out);
    case 3: return slice_row_block_fixed<K, 3>(val, col, base, stride, x, out);
    case 4: return slice_row_block_fixed<K, 4>(val, col, base, stride, x, out);
    case 5: return slice_row_block_fixed<K, 5>(val, col, base, stride, x, out);
    case 6: return slice_row_block_fixed<K, 6>(val, col, base, stride, x, out);
    case 7: return slice_row_block_fixed<K, 7>(val, col, base, stride, x, out);
    case 8: return slice_row_block_fixed<K, 8>(val, col, base, stride, x, out);
    default: break;
  }
#pragma unroll
  for (int j = 0; j < K; ++j) out[j] = 0.0;
#pragma unroll 2
  for (int k = 0; k < length; ++k) {
    const long long i = base + static_cast<long long>(k) * stride;
    const int c = __ldcs(col + i);
    const double v = __ldcs(val + i);
    if (c >= 0)
#pragma unroll
      for (int j = 0; j < K; ++j) out[j] += v * __ldg(x + static_cast<long long>(c) * K + j);
  }
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
  /// K vectors interleaved by row (x[i * K + j]), the entries read once.
  template <int K>
  __device__ void sum_block(long long base, int stride, int length, const double* __restrict__ x,
                            double (&out)[K]) const {
    slice_row_block<K>(val, col, base, stride, length, x, out);
  }
};

/// The most vectors the ELL-slice formats' multi-vector SpMV takes (the three velocity components).
constexpr int max_ell_block = 3;

/// An ELL-slice format's apply_block for k vectors, 2 <= k <= max_ell_block: run.template
/// operator()<kDot, K>() with K = k (kDot: partials wanted). @return false for any other k
template <class Run>
bool run_block(int k, bool with_dot, Run&& run) {
  switch (k) {
    case 2: with_dot ? run.template operator()<true, 2>() : run.template operator()<false, 2>(); return true;
    case 3: with_dot ? run.template operator()<true, 3>() : run.template operator()<false, 3>(); return true;
    default: return false;
  }
}

/// out[j] = row `row`'s sum against vector j of K (K = 1: Rows::sum; else Rows::sum_block on x
/// interleaved by row): what a kernel templated on K calls.
template <int K, class Rows>
__device__ inline void row_sums(const Rows& rows, long long base, int stride, int length, int row, long long slice,
                                const double* __restrict__ x, double (&out)[K]) {
  if constexpr (K == 1)
    out[0] = rows.sum(base, stride, length, row, slice, x);
  else
    rows.template sum_block<K>(base, stride, length, x, out);
}

}  // namespace fvmmini::cuda
