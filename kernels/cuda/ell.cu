// "ell": ELLPACK, one thread per row. Entry k of row i sits at slot k * n_rows + i, so for each k
// the 32 lanes of a warp read 32 consecutive slots (coalesced); padding (column -1) is tested
// before x is read. The kernel is sell's with one chunk of n_rows rows and no row order: the same
// row reader (ell_slice.cuh), the same fused dot product and the same fixed grid cap.

#include <algorithm>
#include <cstddef>
#include <memory>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/ell_matrix.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int ell_block = 256;
/// Grid cap, as sell's: a constant, so the dot partials do not depend on the device. The access
/// pattern is sell's (a thread per row walking its column-major slots), and on that kernel a grid
/// of one wave (launch_grid.cuh) was measured slower than this cap (kernels/cuda/README.md).
constexpr int ell_max_blocks = 8192;

/// One thread per row, the block stepping through the rows in a grid-stride loop (a bounded grid:
/// few partials for the fused dot product). Row and slot indices in 64 bits: n_rows * width may
/// exceed 2^31 (slice_row forms base + k * stride in long long), and so may i + the grid's stride.
template <bool kDot>
__global__ void __launch_bounds__(ell_block)
    ell_spmv_kernel(int n_rows, int width, const int* __restrict__ col, const double* __restrict__ val,
                    const double* __restrict__ x, double* __restrict__ y, double* __restrict__ partials) {
  double dot = 0.0;
  const long long stride = static_cast<long long>(gridDim.x) * ell_block;
  for (long long i = static_cast<long long>(blockIdx.x) * ell_block + threadIdx.x; i < n_rows; i += stride) {
    // --- y_i = sum_k val[k n + i] x[col[k n + i]], padding skipped (width 0: y_i = 0)
    const double sum = slice_row(val, col, i, n_rows, width, x);
    y[i] = sum;
    if constexpr (kDot) dot += sum * x[i];
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

class EllDevice final : public FusedDotSpmv<EllDevice> {
  friend class FusedDotSpmv<EllDevice>;

 public:
  explicit EllDevice(const EllMatrix& a) : n_rows_(a.n_rows), width_(a.width) {
    // --- the kernel reads n_rows * width slots of each array without bounds: check them once
    const std::size_t slots = static_cast<std::size_t>(a.n_rows) * static_cast<std::size_t>(a.width);
    if (a.n_rows < 0 || a.width < 0 || a.col.size() != slots || a.values.size() != slots)
      throw CudaError("ell: col and values must hold n_rows * width slots");
    col_ = DeviceBuffer<int>(std::span<const int>(a.col));
    val_ = DeviceBuffer<double>(std::span<const double>(a.values));
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override { return col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "ell"; }
  int dot_partial_count() const override { return grid(); }

 private:
  int grid() const {
    return static_cast<int>(std::clamp((static_cast<long long>(n_rows_) + ell_block - 1) / ell_block, 1LL,
                                       static_cast<long long>(ell_max_blocks)));
  }

  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_rows_ == 0) {
      // --- no rows, no launch; the one partial is still the (zero) dot product
      if constexpr (kDot) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * grid(), stream));
      return;
    }
    ell_spmv_kernel<kDot><<<grid(), ell_block, 0, stream>>>(n_rows_, width_, col_.data(), val_.data(), x, y,
                                                            partials);
    FVMMINI_CUDA_CHECK_LAUNCH(ell_spmv_kernel);
  }

  label n_rows_;
  int width_;
  DeviceBuffer<int> col_;
};

}  // namespace

const DeviceFormatUnit& device_format_ell() {
  static const DeviceFormatUnit unit{"ell", upload_as<EllDevice, EllMatrix>};
  return unit;
}

}  // namespace fvmmini::cuda
