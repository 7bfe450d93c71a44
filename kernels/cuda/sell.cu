// "sell": SELL-C-sigma, one thread per stored row position p (chunk p / C, lane p % C); the
// result goes to y[row_order[p]] (the sort inside the format is a row-only permutation).

#include <algorithm>
#include <limits>
#include <memory>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/mixed_rows.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int sell_block = 256;
constexpr int sell_max_blocks = 8192;  ///< grid cap (a constant: the dot partials do not depend on the device)

/// One thread per stored position, the block stepping through chunks of sell_block positions in
/// a grid-stride loop (bounded grid: few partials for the fused dot product).
/// Rows: FullRows (float64) or MixedRows (the float32 twin), its slices the chunks. K > 1: K vectors
/// interleaved by row (x[i * K + j]), vector j's partials at j * gridDim.x.
template <bool kDot, class Rows, int K = 1>
__global__ void __launch_bounds__(sell_block)
    sell_spmv_kernel(int n_rows, int chunk_size, const long long* __restrict__ chunk_ptr,
                     const int* __restrict__ row_order, Rows rows, const double* __restrict__ x,
                     double* __restrict__ y, double* __restrict__ partials) {
  Sums<K> dot{};
  for (int p = blockIdx.x * sell_block + threadIdx.x; p < n_rows; p += gridDim.x * sell_block) {
    const int c = p / chunk_size;
    const int lane = p - c * chunk_size;
    const long long start = chunk_ptr[c];
    const int width = static_cast<int>((chunk_ptr[c + 1] - start) / chunk_size);
    // --- y_row = sum_k val[k] x[col[k]] over the lane's column of the chunk
    const int row = row_order[p];
    double sum[K];
    row_sums<K>(rows, start + lane, chunk_size, width, row, c, x, sum);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      y[static_cast<long long>(row) * K + j] = sum[j];
      if constexpr (kDot) dot.v[j] += sum[j] * x[static_cast<long long>(row) * K + j];
    }
  }
  if constexpr (kDot) write_block_partials<K>(dot, partials, gridDim.x, blockIdx.x);
}

class SellDevice final : public FusedDotSpmv<SellDevice> {
  friend class FusedDotSpmv<SellDevice>;

 public:
  explicit SellDevice(const SellMatrix& a)
      : FusedDotSpmv<SellDevice>(a.values),
        n_rows_(a.n_rows),
        chunk_size_(a.chunk_size),
        chunk_ptr_(a.chunk_ptr.size()),
        row_order_(std::span<const int>(a.row_order)),
        col_(std::span<const int>(a.col)) {
    std::vector<long long> chunk_ptr(a.chunk_ptr.begin(), a.chunk_ptr.end());
    chunk_ptr_.upload(chunk_ptr);
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override {
    return chunk_ptr_.bytes() + row_order_.bytes() + col_.bytes() + val_.bytes();
  }
  std::string format_name() const override { return "sell"; }
  int dot_partial_count() const override { return grid(); }
  const int* device_columns() const { return col_.data(); }

  /// The columns of the float32 twin, its slices the chunks.
  NarrowColumns narrow(const SellMatrix& a) const {
    std::vector<EllSlice> chunks;
    for (label c = 0; c < a.n_chunks; ++c) chunks.push_back({a.chunk_ptr[c], a.chunk_size, a.chunk_width(c)});
    return narrow_columns(a.col, chunks, [&](std::size_t c, int lane) {
      const std::size_t p = c * a.chunk_size + lane;
      return p < a.row_order.size() ? a.row_order[p] : -1;
    });
  }

  int max_block() const override { return max_ell_block; }
  void apply_block(int k, const double* x, double* y, double* partials, cudaStream_t stream) override {
    if (!run_block(k, partials != nullptr, [&]<bool kDot, int K>() {
          run<kDot, FullRows, K>(FullRows{col_.data(), val_.data()}, x, y, partials, stream);
        }))
      DeviceSpmv::apply_block(k, x, y, partials, stream);
  }

  /// The SpMV with rows read as Rows reads them (FullRows: this matrix; MixedRows: its twin), on K
  /// vectors interleaved by row.
  template <bool kDot, class Rows, int K = 1>
  void run(Rows rows, const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_rows_ == 0) {
      // --- no rows, no launch; the partials still sum to the (zero) dot products
      if constexpr (kDot)
        FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * K * dot_partial_count(), stream));
      return;
    }
    sell_spmv_kernel<kDot, Rows, K><<<grid(), sell_block, 0, stream>>>(n_rows_, chunk_size_, chunk_ptr_.data(),
                                                                       row_order_.data(), rows, x, y, partials);
    FVMMINI_CUDA_CHECK_LAUNCH(sell_spmv_kernel);
  }

 private:
  /// A fixed cap of a few waves: one wave (launch_grid.cuh) made this kernel slower (H200, 6173a8e:
  /// 54 % of copy bandwidth on the polyhedral-like 200^3 matrix against 83 %, 95 against 100 % on
  /// the 200^3 box), unlike csr and staircase.
  int grid() const { return std::clamp((n_rows_ + sell_block - 1) / sell_block, 1, sell_max_blocks); }

  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    run<kDot>(FullRows{col_.data(), val_.data()}, x, y, partials, stream);
  }

  label n_rows_;
  int chunk_size_;
  DeviceBuffer<long long> chunk_ptr_;
  DeviceBuffer<int> row_order_, col_;
};

}  // namespace

const DeviceFormatUnit& device_format_sell() {
  static const DeviceFormatUnit unit{"sell", upload_as<SellDevice, SellMatrix>,
                                     [](const StoredFormat& f, const FormatParameters&) {
                                       return make_twins<SellDevice>(f.as<SellMatrix>());
                                     }};
  return unit;
}

}  // namespace fvmmini::cuda
