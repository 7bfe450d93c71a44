// "csr": vector CSR, a sub-warp of W lanes per row, W the power of two at or above a quarter of
// the mean row length (at most 32): lanes read a row's entries contiguously, four at a time with
// predicated loads so they are in flight together, and a shuffle tree adds them. Measured on an
// H200 (200^3 box, 7 entries a row): W = 2 moved 3.3 TB/s, W = 8 (a lane per entry) 2.3 TB/s.
// Plain read-only loads: a sector is shared by neighbouring sub-warps, so no evict-first hint.
// On K vectors interleaved by row (apply_block) a lane keeps K sums: the device hierarchy's
// coarse levels of GAMG are csr, and its V-cycle on the momentum's components reads them once.

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/csr_format.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int csr_block = 256;
constexpr int kPerLane = 4;  ///< entries a lane loads at once (the sub-warp width is sized for ~4)

/// One sub-warp of W lanes per row, the block stepping through the rows in a grid-stride loop
/// (a bounded grid keeps the fused dot product's partials few); with partials, also the
/// block's sum of x_row * y_row (per vector: K vectors interleaved by row).
template <int W, bool kDot, int K = 1>
__global__ void __launch_bounds__(csr_block) csr_spmv_kernel(int n_rows, const int* __restrict__ row_ptr,
                                                             const int* __restrict__ col,
                                                             const double* __restrict__ val,
                                                             const double* __restrict__ x, double* __restrict__ y,
                                                             double* __restrict__ partials) {
  constexpr int rows_per_block = csr_block / W;
  const int lane = threadIdx.x % W;
  Sums<K> dot{};
  for (int first = blockIdx.x * rows_per_block; first < n_rows; first += gridDim.x * rows_per_block) {
    const int row = first + threadIdx.x / W;
    double sum[K] = {};
    if (row < n_rows) {
      const int end = row_ptr[row + 1];
      // --- kPerLane entries per lane at a time, loads predicated rather than looped, so all of a
      //     lane's column and value loads are in flight together (a remainder loop would chain them)
      for (int base = row_ptr[row] + lane; base < end; base += W * kPerLane) {
        int c[kPerLane];
        double v[kPerLane];
#pragma unroll
        for (int j = 0; j < kPerLane; ++j) {
          const int k = base + j * W;
          c[j] = k < end ? __ldg(col + k) : -1;
          v[j] = k < end ? __ldg(val + k) : 0.0;
        }
#pragma unroll
        for (int j = 0; j < kPerLane; ++j)
          if (c[j] >= 0)
#pragma unroll
            for (int q = 0; q < K; ++q) sum[q] += v[j] * __ldg(x + static_cast<long long>(c[j]) * K + q);
      }
    }
    // --- y_row = sum over the W lanes (fixed shuffle tree)
#pragma unroll
    for (int q = 0; q < K; ++q)
#pragma unroll
      for (int offset = W / 2; offset > 0; offset >>= 1) sum[q] += __shfl_down_sync(0xffffffffu, sum[q], offset, W);
    if (lane == 0 && row < n_rows)
#pragma unroll
      for (int q = 0; q < K; ++q) {
        const long long at = static_cast<long long>(row) * K + q;
        y[at] = sum[q];
        if constexpr (kDot) dot.v[q] += sum[q] * x[at];
      }
  }
  if constexpr (kDot) write_block_partials<K>(dot, partials, gridDim.x, blockIdx.x);
}

class CsrDevice final : public FusedDotSpmv<CsrDevice> {
  friend class FusedDotSpmv<CsrDevice>;

 public:
  explicit CsrDevice(const CsrFormat& format) : n_rows_(format.n_rows()), lanes_(lanes_for(format.mean_row_length)) {
    const CsrMatrix& a = format.matrix;
    if (a.nnz() > std::numeric_limits<int>::max()) throw CudaError("csr: more than 2^31 nonzeros");
    std::vector<int> row_ptr(a.row_ptr.begin(), a.row_ptr.end());
    row_ptr_ = DeviceBuffer<int>(std::span<const int>(row_ptr));
    col_ = DeviceBuffer<int>(std::span<const int>(a.col));
    row_ptr_at_ = row_ptr_.data();
    col_at_ = col_.data();
    val_ = DeviceBuffer<double>(std::span<const double>(a.values));
    size_grid();
  }

  /// On a pattern another object owns (make_device_csr).
  CsrDevice(int n_rows, const int* row_ptr, const int* col, DeviceBuffer<double> values)
      : n_rows_(n_rows),
        lanes_(lanes_for(n_rows > 0 ? static_cast<double>(values.size()) / n_rows : 0.0)),
        row_ptr_at_(row_ptr),
        col_at_(col) {
    if (n_rows > 0 && (!row_ptr || (!col && values.size() > 0))) throw CudaError("csr: no row offsets or columns");
    val_ = std::move(values);
    size_grid();
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  /// A borrowed pattern is its owner's to count.
  std::size_t footprint_bytes() const override { return row_ptr_.bytes() + col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "csr"; }
  int dot_partial_count() const override { return grid(); }
  int max_block() const override { return max_ell_block; }
  void apply_block(int k, const double* x, double* y, double* partials, cudaStream_t stream) override {
    if (!run_block(k, partials != nullptr, [&]<bool kDot, int K>() { launch<kDot, K>(x, y, partials, stream); }))
      DeviceSpmv::apply_block(k, x, y, partials, stream);
  }

 private:
  void size_grid() {
    // --- one wave (launch_grid.cuh) of the kernel for this sub-warp width
    const int rows_per_block = csr_block / lanes_;
    const int blocks = std::max(1, (n_rows_ + rows_per_block - 1) / rows_per_block);
    auto wave = [&](auto kernel) { return one_wave_grid(kernel, csr_block, blocks); };
    switch (lanes_) {
      case 1: grid_ = wave(csr_spmv_kernel<1, true>); break;
      case 2: grid_ = wave(csr_spmv_kernel<2, true>); break;
      case 4: grid_ = wave(csr_spmv_kernel<4, true>); break;
      case 8: grid_ = wave(csr_spmv_kernel<8, true>); break;
      case 16: grid_ = wave(csr_spmv_kernel<16, true>); break;
      default: grid_ = wave(csr_spmv_kernel<32, true>); break;
    }
  }

  /// The power of two at or above mean / 4, in [1, 32].
  static int lanes_for(double mean_row_length) {
    int lanes = 1;
    while (lanes < 32 && 4 * lanes < mean_row_length) lanes *= 2;
    return lanes;
  }

  int grid() const { return grid_; }

  template <bool kDot, int K = 1>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_rows_ == 0) {
      // --- no rows, no launch; the partials still sum to the (zero) dot product
      if constexpr (kDot)
        FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * K * dot_partial_count(), stream));
      return;
    }
    const int g = grid();
    auto args = [&](auto kernel) {
      kernel<<<g, csr_block, 0, stream>>>(n_rows_, row_ptr_at_, col_at_, val_.data(), x, y, partials);
    };
    switch (lanes_) {
      case 1: args(csr_spmv_kernel<1, kDot, K>); break;
      case 2: args(csr_spmv_kernel<2, kDot, K>); break;
      case 4: args(csr_spmv_kernel<4, kDot, K>); break;
      case 8: args(csr_spmv_kernel<8, kDot, K>); break;
      case 16: args(csr_spmv_kernel<16, kDot, K>); break;
      default: args(csr_spmv_kernel<32, kDot, K>); break;
    }
    FVMMINI_CUDA_CHECK_LAUNCH(csr_spmv_kernel);
  }

  label n_rows_;
  int lanes_;
  int grid_ = 1;
  DeviceBuffer<int> row_ptr_, col_;                        ///< an uploaded format's own pattern
  const int* row_ptr_at_ = nullptr, *col_at_ = nullptr;  ///< the pattern the kernel reads
};

}  // namespace

std::unique_ptr<DeviceSpmv> make_device_csr(int n_rows, const int* row_ptr, const int* col,
                                            DeviceBuffer<double> values) {
  return std::make_unique<CsrDevice>(n_rows, row_ptr, col, std::move(values));
}

const DeviceFormatUnit& device_format_csr() {
  static const DeviceFormatUnit unit{"csr", upload_as<CsrDevice, CsrFormat>};
  return unit;
}

}  // namespace fvmmini::cuda
