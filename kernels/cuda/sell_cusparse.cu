// "sell-cusparse": cusparseSpMV (CUSPARSE_SPMV_SELL_ALG1) on cuSPARSE's sliced ELL, which has the
// SELL layout of linalg/formats/sell_matrix.hpp (slice offsets, column-major slices, -1 padding)
// but no row permutation: with sort_window > 1 cuSPARSE writes y in the stored row order and a
// scatter y[row_order[p]] = y_sorted[p] follows (3 more vector passes: time it with sigma 1).

#include <limits>
#include <memory>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cusparse_spmv.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "linalg/formats/sell_matrix.hpp"

namespace fvmmini::cuda {

namespace {

__global__ void scatter_rows_kernel(int n, const int* __restrict__ row_order, const double* __restrict__ y_sorted,
                                    double* __restrict__ y) {
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n) y[row_order[p]] = y_sorted[p];
}

class SellCusparseDevice final : public DeviceSpmv {
 public:
  explicit SellCusparseDevice(const SellMatrix& a) : n_rows_(a.n_rows) {
    for (label p = 0; p < a.n_rows; ++p)
      if (a.row_order[p] != p) {
        row_order_ = DeviceBuffer<int>(std::span<const int>(a.row_order));
        y_sorted_ = DeviceBuffer<double>(a.n_rows);
        break;
      }
    if (a.stored_entries() > std::numeric_limits<int>::max()) throw CudaError("sell-cusparse: more than 2^31 entries");
    std::vector<int> offsets(a.chunk_ptr.begin(), a.chunk_ptr.end());
    offsets_ = DeviceBuffer<int>(std::span<const int>(offsets));
    col_ = DeviceBuffer<int>(std::span<const int>(a.col));
    val_ = DeviceBuffer<double>(std::span<const double>(a.values));
    if (n_rows_ == 0) return;
    cusparseSpMatDescr_t matrix = nullptr;
    FVMMINI_CUSPARSE_CHECK(cusparseCreateSlicedEll(&matrix, n_rows_, n_rows_, a.nnz(), a.stored_entries(),
                                                   a.chunk_size, offsets_.data(), col_.data(), val_.data(),
                                                   CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                                   CUDA_R_64F));
    spmv_ = std::make_unique<CusparseSpmv>(matrix, n_rows_, n_rows_, CUSPARSE_SPMV_SELL_ALG1);
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override {
    return offsets_.bytes() + col_.bytes() + val_.bytes() + row_order_.bytes() + y_sorted_.bytes() +
           (spmv_ ? spmv_->buffer_bytes() : 0);
  }
  std::string format_name() const override { return "sell-cusparse"; }

  void apply(const double* x, double* y, cudaStream_t stream) override {
    if (!spmv_) return;
    if (row_order_.size() == 0) {
      spmv_->apply(x, y, stream);
      return;
    }
    // --- y_sorted = A_sorted x; y[row_order[p]] = y_sorted[p]
    spmv_->apply(x, y_sorted_.data(), stream);
    scatter_rows_kernel<<<(n_rows_ + 255) / 256, 256, 0, stream>>>(n_rows_, row_order_.data(), y_sorted_.data(), y);
    FVMMINI_CUDA_CHECK_LAUNCH(scatter_rows_kernel);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }

 private:
  label n_rows_;
  DeviceBuffer<int> offsets_, col_;
  DeviceBuffer<double> val_;
  DeviceBuffer<int> row_order_;     ///< empty when the stored order is the row order
  DeviceBuffer<double> y_sorted_;  ///< y in the stored order, before the scatter
  std::unique_ptr<CusparseSpmv> spmv_;
};

}  // namespace

const DeviceFormatUnit& device_format_sell_cusparse() {
  static const DeviceFormatUnit unit{"sell-cusparse", upload_as<SellCusparseDevice, SellMatrix>};
  return unit;
}

}  // namespace fvmmini::cuda
