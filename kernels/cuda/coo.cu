// "coo": coordinate triples in row order, a segmented reduction by row over the entries. The
// entries are cut into ranges of coo_span consecutive entries, one warp per range, whatever the
// rows; the warp walks its range 32 entries at a time (lane l takes entry base + l: coalesced),
// adds the products of each row with a segmented shuffle scan, and carries the running sum of the
// sub-chunk's last row into the next sub-chunk. No row pointer is used or built.
//
// Writing y: y is zeroed on the stream first (rows with no entries end as 0). A row whose entries
// all lie inside one range and touch neither of its ends is stored once. Only the range's first
// row (it may have begun in the range before) and its last row (it may go on in the next) can be
// shared with other ranges: their partial sums are added with atomicAdd.
//
// Determinism: a range's sums depend on nnz alone (fixed ranges, fixed shuffle tree). A row shared
// by two ranges gets two atomic adds onto 0, 0 + a + b, which is the same in either order; a row
// over three or more ranges (more than coo_span + 1 = 257 entries) gets three or more, whose sum
// depends on the order the atomics land in: y of such rows may differ in the last bits run to run.
//
// Fused dot product: x . y = sum_i x_i sum_(partials p of row i) p, so every partial sum that is
// stored or added to y[i] adds x_i * p to the thread's dot, whether the row is shared by ranges
// (or blocks) or not; the block partials depend on nnz alone, so they are deterministic even where
// y is not. In floating point this sums in another order than x . y over the final y (rounding).

#include <algorithm>
#include <cstddef>
#include <memory>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/coo_matrix.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int coo_block = 256;
constexpr int coo_warps = coo_block / 32;  ///< ranges a block takes at a time
constexpr int coo_per_lane = 8;            ///< sub-chunks of 32 entries in a range
constexpr int coo_span = 32 * coo_per_lane;  ///< entries of one range (one warp)
constexpr int coo_max_blocks = 8192;       ///< grid cap (constant: the dot partials do not depend on the device)

/// Row r's partial sum s into y: stored when the row lies inside this range alone, else added
/// atomically (y was zeroed). With the dot product, x_r * s into the thread's dot.
template <bool kDot>
__device__ inline void put_row(double* __restrict__ y, const double* __restrict__ x, int r, double s, bool shared,
                               double& dot) {
  if (shared)
    atomicAdd(y + r, s);
  else
    y[r] = s;
  if constexpr (kDot) dot += s * __ldg(x + r);
}

/// One warp per range of coo_span entries, the block stepping through its coo_warps ranges in a
/// grid-stride loop (a bounded grid: few partials for the fused dot product). All branches on the
/// range and the sub-chunk are warp-uniform, so the full-mask shuffles see all 32 lanes.
template <bool kDot>
__global__ void __launch_bounds__(coo_block)
    coo_spmv_kernel(long long nnz, const int* __restrict__ row, const int* __restrict__ col,
                    const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,
                    double* __restrict__ partials) {
  constexpr unsigned full = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const long long n_ranges = (nnz + coo_span - 1) / coo_span;
  double dot = 0.0;
  for (long long w = static_cast<long long>(blockIdx.x) * coo_warps + (threadIdx.x >> 5); w < n_ranges;
       w += static_cast<long long>(gridDim.x) * coo_warps) {
    const long long begin = w * coo_span;
    const long long end = begin + coo_span < nnz ? begin + coo_span : nnz;
    // --- every load of the range first, so they are in flight together; lanes past the end get
    //     row -1, which no real row equals (they only ever follow the real entries)
    int r[coo_per_lane];
    double v[coo_per_lane];
#pragma unroll
    for (int j = 0; j < coo_per_lane; ++j) {
      const long long k = begin + j * 32 + lane;
      r[j] = k < end ? __ldcs(row + k) : -1;
      const int c = k < end ? __ldcs(col + k) : -1;
      v[j] = k < end ? __ldcs(val + k) : 0.0;
      if (c >= 0) v[j] *= __ldg(x + c);
    }
    const int first_row = __shfl_sync(full, r[0], 0);  // row[begin]: may have begun in the range before
    int carry_row = -1;  ///< the last row of the previous sub-chunk (-1: none yet)
    double carry = 0.0;  ///< its running sum
#pragma unroll
    for (int j = 0; j < coo_per_lane; ++j) {
      const long long base = begin + j * 32;
      if (base >= end) break;  // warp-uniform: only in the last range
      const int last = static_cast<int>(end - base < 32 ? end - base - 1 : 31);  ///< the last real lane
      // --- the carried row goes on at lane 0, or it ended with the previous sub-chunk: write it
      if (lane == 0) {
        if (r[j] == carry_row)
          v[j] += carry;
        else if (carry_row >= 0)
          put_row<kDot>(y, x, carry_row, carry, carry_row == first_row, dot);
      }
      // --- segmented inclusive scan: rows are non-decreasing, so an equal row d lanes down means
      //     every lane between is that row too; lane l ends with the sum from its row's first lane
      double s = v[j];
#pragma unroll
      for (int d = 1; d < 32; d <<= 1) {
        const double s_up = __shfl_up_sync(full, s, d);
        const int r_up = __shfl_up_sync(full, r[j], d);
        if (lane >= d && r_up == r[j]) s += s_up;
      }
      // --- a row that ends before the last real lane is complete in this range: write it; the
      //     last real lane's row is carried on
      const int r_next = __shfl_down_sync(full, r[j], 1);
      if (lane < last && r_next != r[j]) put_row<kDot>(y, x, r[j], s, r[j] == first_row, dot);
      carry_row = __shfl_sync(full, r[j], last);
      carry = __shfl_sync(full, s, last);
    }
    // --- the range's last row may go on in the next range: always atomic
    if (lane == 0) put_row<kDot>(y, x, carry_row, carry, true, dot);
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

class CooDevice final : public FusedDotSpmv<CooDevice> {
  friend class FusedDotSpmv<CooDevice>;

 public:
  explicit CooDevice(const CooMatrix& a) : n_rows_(a.n_rows), nnz_(a.nnz()) {
    if (a.n_rows < 0 || a.row.size() != a.values.size() || a.col.size() != a.values.size())
      throw CudaError("coo: row, col and values must hold nnz entries each");
    row_ = DeviceBuffer<int>(std::span<const int>(a.row));
    col_ = DeviceBuffer<int>(std::span<const int>(a.col));
    val_ = DeviceBuffer<double>(std::span<const double>(a.values));
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return nnz_; }
  std::size_t footprint_bytes() const override { return row_.bytes() + col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "coo"; }
  int dot_partial_count() const override { return grid(); }

 private:
  /// One block per coo_warps ranges up to the cap: depends on nnz alone.
  int grid() const {
    const long long ranges = (nnz_ + coo_span - 1) / coo_span;
    const long long blocks = (ranges + coo_warps - 1) / coo_warps;
    return static_cast<int>(std::clamp(blocks, 1LL, static_cast<long long>(coo_max_blocks)));
  }

  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    // --- y = 0 first: rows with no entries stay 0, shared rows are added to it
    if (n_rows_ > 0)
      FVMMINI_CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(double) * static_cast<std::size_t>(n_rows_), stream));
    if (nnz_ == 0) {
      // --- no entries, no launch; the one partial is still the (zero) dot product
      if constexpr (kDot) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * grid(), stream));
      return;
    }
    coo_spmv_kernel<kDot><<<grid(), coo_block, 0, stream>>>(nnz_, row_.data(), col_.data(), val_.data(), x, y,
                                                            partials);
    FVMMINI_CUDA_CHECK_LAUNCH(coo_spmv_kernel);
  }

  label n_rows_;
  long long nnz_;
  DeviceBuffer<int> row_, col_;
};

}  // namespace

const DeviceFormatUnit& device_format_coo() {
  static const DeviceFormatUnit unit{"coo", upload_as<CooDevice, CooMatrix>};
  return unit;
}

}  // namespace fvmmini::cuda
