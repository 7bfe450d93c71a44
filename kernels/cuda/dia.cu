// "dia": DIA (linalg/formats/dia_matrix.hpp), one thread per row as in the CDS kernel of Godwin
// et al. (GPGPU-5, 2012): the 32 rows of a warp read 32 consecutive values of each diagonal
// (coalesced) and no column index; x[row + d] goes through the read-only path, where neighbouring
// rows share its sectors. On the 200^3 box a row moves 7 * 8 bytes of values, 8 of x and 8 of y.
// Values stream through once with evict-first loads, so L2 keeps x (as the ELL kernels do).

#include <algorithm>
#include <memory>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/launch_grid.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/formats/dia_matrix.hpp"

namespace fvmmini::cuda {

namespace {

constexpr int dia_block = 256;
constexpr int dia_fixed_max = 7;  ///< up to the 3-D 7-point stencil the offsets are a kernel argument

/// The first diagonals' offsets by value: kernel arguments are read from the constant bank, no loads.
struct FixedOffsets {
  int d[dia_fixed_max];
};

/// y_row = sum_k val[k n + row] x[row + d_k] over the diagonals whose column lies inside the
/// matrix, every row written (0 without entries). K > 0: exactly K diagonals, offsets from
/// `fixed`, unrolled so that all loads of a row are in flight together; K == 0: n_diag diagonals
/// from `offsets` (device memory, the same address across the warp). Grid-stride loop over rows;
/// with kDot, also the block's sum of x_row * y_row.
template <int K, bool kDot>
__global__ void __launch_bounds__(dia_block)
    dia_spmv_kernel(int n_rows, int n_diag, FixedOffsets fixed, const int* __restrict__ offsets,
                    const double* __restrict__ val, const double* __restrict__ x, double* __restrict__ y,
                    double* __restrict__ partials) {
  static_assert(K >= 0 && K <= dia_fixed_max);
  const long long n = n_rows;
  const auto n_unsigned = static_cast<unsigned>(n_rows);
  double dot = 0.0;
  for (int row = blockIdx.x * dia_block + threadIdx.x; row < n_rows; row += gridDim.x * dia_block) {
    // --- column row + d in unsigned arithmetic: with -n < d < n < 2^31, a column below 0 wraps
    //     to >= 2^31 > n, so one compare keeps x in range at both ends
    double sum = 0.0;
    if constexpr (K > 0) {
      // --- every load unconditional (x's address clamped into range, the entry then dropped), so
      //     all 2K loads of the row are in flight before the first multiply
      double v[K], xv[K];
#pragma unroll
      for (int k = 0; k < K; ++k) {
        const unsigned col = static_cast<unsigned>(row) + static_cast<unsigned>(fixed.d[k]);
        v[k] = __ldcs(val + k * n + row);
        xv[k] = __ldg(x + min(col, n_unsigned - 1u));
        if (col >= n_unsigned) xv[k] = 0.0;
      }
#pragma unroll
      for (int k = 0; k < K; ++k) sum += v[k] * xv[k];
    } else {
#pragma unroll 4
      for (int k = 0; k < n_diag; ++k) {
        const unsigned col = static_cast<unsigned>(row) + static_cast<unsigned>(__ldg(offsets + k));
        if (col < n_unsigned) sum += __ldcs(val + k * n + row) * __ldg(x + col);
      }
    }
    y[row] = sum;
    if constexpr (kDot) dot += sum * __ldg(x + row);
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

class DiaDevice final : public FusedDotSpmv<DiaDevice> {
  friend class FusedDotSpmv<DiaDevice>;

 public:
  explicit DiaDevice(const DiaMatrix& a)
      : FusedDotSpmv<DiaDevice>(a.values),
        n_rows_(a.n_rows),
        n_diag_(a.n_diagonals()),
        offsets_(std::span<const int>(a.offsets)) {
    for (int k = 0; k < std::min(n_diag_, dia_fixed_max); ++k) fixed_.d[k] = a.offsets[k];
    // --- one wave (launch_grid.cuh) of the kernel for this diagonal count
    const int blocks = std::max(1, (n_rows_ + dia_block - 1) / dia_block);
    auto wave = [&](auto kernel) { return one_wave_grid(kernel, dia_block, blocks); };
    switch (n_diag_) {
      case 3: grid_ = wave(dia_spmv_kernel<3, true>); break;
      case 5: grid_ = wave(dia_spmv_kernel<5, true>); break;
      case 7: grid_ = wave(dia_spmv_kernel<7, true>); break;
      default: grid_ = wave(dia_spmv_kernel<0, true>); break;
    }
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override { return offsets_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "dia"; }
  int dot_partial_count() const override { return grid_; }

 private:
  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    if (n_rows_ == 0) {
      // --- no rows, no launch; the partials still sum to the (zero) dot product
      if constexpr (kDot) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double) * dot_partial_count(), stream));
      return;
    }
    auto args = [&](auto kernel) {
      kernel<<<grid_, dia_block, 0, stream>>>(n_rows_, n_diag_, fixed_, offsets_.data(), val_.data(), x, y,
                                              partials);
    };
    switch (n_diag_) {
      case 3: args(dia_spmv_kernel<3, kDot>); break;
      case 5: args(dia_spmv_kernel<5, kDot>); break;
      case 7: args(dia_spmv_kernel<7, kDot>); break;
      default: args(dia_spmv_kernel<0, kDot>); break;
    }
    FVMMINI_CUDA_CHECK_LAUNCH(dia_spmv_kernel);
  }

  label n_rows_;
  int n_diag_;
  FixedOffsets fixed_{};
  int grid_ = 1;
  DeviceBuffer<int> offsets_;
};

}  // namespace

const DeviceFormatUnit& device_format_dia() {
  static const DeviceFormatUnit unit{"dia", upload_as<DiaDevice, DiaMatrix>};
  return unit;
}

}  // namespace fvmmini::cuda
