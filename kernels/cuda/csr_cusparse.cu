// "csr-cusparse": the cuSPARSE CSR SpMV (CUSPARSE_SPMV_CSR_ALG1) on the same CSR arrays as "csr".

#include <limits>
#include <memory>
#include <vector>

#include "kernels/cuda/cusparse_spmv.cuh"
#include "kernels/cuda/device_formats.cuh"
#include "linalg/formats/csr_format.hpp"

namespace fvmmini::cuda {

namespace {

class CsrCusparseDevice final : public DeviceSpmv {
 public:
  explicit CsrCusparseDevice(const CsrFormat& format) : n_rows_(format.n_rows()) {
    const CsrMatrix& a = format.matrix;
    if (a.nnz() > std::numeric_limits<int>::max()) throw CudaError("csr-cusparse: more than 2^31 nonzeros");
    std::vector<int> row_ptr(a.row_ptr.begin(), a.row_ptr.end());
    row_ptr_ = DeviceBuffer<int>(std::span<const int>(row_ptr));
    col_ = DeviceBuffer<int>(std::span<const int>(a.col));
    val_ = DeviceBuffer<double>(std::span<const double>(a.values));
    if (n_rows_ == 0) return;
    cusparseSpMatDescr_t matrix = nullptr;
    FVMMINI_CUSPARSE_CHECK(cusparseCreateCsr(&matrix, n_rows_, n_rows_, a.nnz(), row_ptr_.data(), col_.data(),
                                             val_.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                             CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    spmv_ = std::make_unique<CusparseSpmv>(matrix, n_rows_, n_rows_, CUSPARSE_SPMV_CSR_ALG1);
  }

  label n_rows() const override { return n_rows_; }
  std::int64_t stored_entries() const override { return static_cast<std::int64_t>(val_.size()); }
  std::size_t footprint_bytes() const override {
    return row_ptr_.bytes() + col_.bytes() + val_.bytes() + (spmv_ ? spmv_->buffer_bytes() : 0);
  }
  std::string format_name() const override { return "csr-cusparse"; }

  void apply(const double* x, double* y, cudaStream_t stream) override {
    if (spmv_) spmv_->apply(x, y, stream);
  }
  void upload_values(std::span<const double> values) override { val_.upload(values); }
  double* device_values() override { return val_.data(); }

 private:
  label n_rows_;
  DeviceBuffer<int> row_ptr_, col_;
  DeviceBuffer<double> val_;
  std::unique_ptr<CusparseSpmv> spmv_;
};

}  // namespace

const DeviceFormatUnit& device_format_csr_cusparse() {
  static const DeviceFormatUnit unit{"csr-cusparse", upload_as<CsrCusparseDevice, CsrFormat>};
  return unit;
}

}  // namespace fvmmini::cuda
