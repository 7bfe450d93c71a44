// "staircase": Staircase SELL (thesis 4.3.4-4.3.5). One launch per group g, on its own stream:
// step_blocks[g] blocks of sh threads, thread t of block b handles row row_ptr[g] + b*sh + t and
// reads step_lengths[g] entries at step_ptr[g] + b*step_lengths[g]*sh + k*sh + t (a block takes
// several slices when a group has more than a few waves of them). The index arrays stay on the
// host; a group with no blocks launches nothing.

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/ell_slice.cuh"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini::cuda {

namespace {

/// One group; blockDim.x = sh. Block b handles slices b, b + gridDim.x, ... of the group's
/// `slices` (a bounded grid keeps the fused dot product's partials few); with partials, block b
/// writes partials[b] (pre-offset per group).
template <bool kDot>
__global__ void __launch_bounds__(1024)
    staircase_spmv_kernel(int length, int slices, int row_start, long long step_start, int n_rows,
                          const int* __restrict__ col, const double* __restrict__ val, const double* __restrict__ x,
                          double* __restrict__ y, double* __restrict__ partials) {
  const int sh = blockDim.x;
  double dot = 0.0;
  for (int b = blockIdx.x; b < slices; b += gridDim.x) {
    const long long base = step_start + static_cast<long long>(b) * length * sh + threadIdx.x;
    const int row = row_start + b * sh + threadIdx.x;
    // --- y_row = sum_k val[k] x[col[k]]; padding entries (col -1) and padding rows add nothing
    const double sum = slice_row(val, col, base, sh, length, x);
    if (row < n_rows) {
      y[row] = sum;
      if constexpr (kDot) dot += sum * x[row];
    }
  }
  if constexpr (kDot) write_block_partials<1>(Sums<1>{{dot}}, partials, gridDim.x, blockIdx.x);
}

class StaircaseDevice final : public DeviceSpmv {
 public:
  explicit StaircaseDevice(const StaircaseMatrix& a)
      : n_rows_(a.n_rows),
        slice_height_(a.slice_height),
        index_(a.index),
        col_(std::span<const int>(a.col)),
        val_(std::span<const double>(a.values)),
        fork_(true) {
    if (slice_height_ <= 0 || slice_height_ % 32 != 0 || slice_height_ > 1024)
      throw CudaError("staircase: slice height must be a positive multiple of 32, at most 1024");
    const label n_groups = index_.n_groups();
    partial_offset_.assign(n_groups + 1, 0);
    for (label g = 0; g < n_groups; ++g) partial_offset_[g + 1] = partial_offset_[g] + grid(g);
    streams_.reserve(n_groups);
    joins_.reserve(n_groups);
    for (label g = 0; g < n_groups; ++g) {
      streams_.emplace_back();
      joins_.emplace_back(true);
    }
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override { return col_.bytes() + val_.bytes(); }
  std::string format_name() const override { return "staircase"; }
  int dot_partial_count() const override { return std::max(1, partial_offset_.back()); }

  void apply(const double* x, double* y, cudaStream_t stream) override { launch<false>(x, y, nullptr, stream); }
  void apply_with_dot(const double* x, double* y, double* partials, cudaStream_t stream) override {
    // --- a matrix with no slices still owes the caller one (zero) partial
    if (partial_offset_.back() == 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(partials, 0, sizeof(double), stream));
    launch<true>(x, y, partials, stream);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }

 private:
  /// Blocks of group g: one per slice, at most spmv_max_threads / sh (a few waves of the device).
  int grid(label g) const { return std::min(index_.step_blocks[g], std::max(1, spmv_max_threads / slice_height_)); }

  template <bool kDot>
  void launch(const double* x, double* y, double* partials, cudaStream_t stream) {
    // --- fork: every group stream waits for the work already queued on the caller's stream
    fork_.record(stream);
    for (label g = 0; g < index_.n_groups(); ++g) {
      const int slices = index_.step_blocks[g];
      if (slices == 0) continue;
      cudaStream_t s = streams_[g].get();
      FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(s, fork_.get(), 0));
      staircase_spmv_kernel<kDot><<<grid(g), slice_height_, 0, s>>>(
          index_.step_lengths[g], slices, index_.row_ptr[g], index_.step_ptr[g], n_rows_, col_.data(), val_.data(), x,
          y, kDot ? partials + partial_offset_[g] : nullptr);
      FVMMINI_CUDA_CHECK_LAUNCH(staircase_spmv_kernel);
      // --- join: the caller's stream continues once every group is done
      joins_[g].record(s);
      FVMMINI_CUDA_CHECK(cudaStreamWaitEvent(stream, joins_[g].get(), 0));
    }
  }

  label n_rows_;
  int slice_height_;
  StaircaseIndex index_;  ///< host-side, as the thesis keeps it
  std::vector<int> partial_offset_;
  DeviceBuffer<int> col_;
  DeviceBuffer<double> val_;
  Event fork_;
  std::vector<Stream> streams_;
  std::vector<Event> joins_;
};

}  // namespace

std::unique_ptr<DeviceSpmv> make_staircase_device(const StaircaseMatrix& a) {
  return std::make_unique<StaircaseDevice>(a);
}

}  // namespace fvmmini::cuda
