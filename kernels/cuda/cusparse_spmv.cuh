#pragma once
// cusparseSpMV set up once: handle, matrix and vector descriptors, work buffer and the
// preprocessing step; each call only points the vector descriptors at x and y.

#include <cusparse.h>

#include "kernels/cuda/device_memory.cuh"

namespace fvmmini::cuda {

class CusparseSpmv {
 public:
  /// Takes ownership of matrix (destroyed with this object); sizes the work buffer and runs
  /// cusparseSpMV_preprocess once, on scratch vectors of the right lengths.
  CusparseSpmv(cusparseSpMatDescr_t matrix, long long n_rows, long long n_cols, cusparseSpMVAlg_t algorithm);
  CusparseSpmv(const CusparseSpmv&) = delete;
  CusparseSpmv& operator=(const CusparseSpmv&) = delete;
  ~CusparseSpmv();

  /// y = A x on the stream.
  void apply(const double* x, double* y, cudaStream_t stream);
  std::size_t buffer_bytes() const { return buffer_.bytes(); }

 private:
  void release() noexcept;

  cusparseHandle_t handle_ = nullptr;
  cusparseSpMatDescr_t matrix_ = nullptr;
  cusparseDnVecDescr_t x_ = nullptr;
  cusparseDnVecDescr_t y_ = nullptr;
  cusparseSpMVAlg_t algorithm_;
  DeviceBuffer<double> probe_x_, probe_y_;
  DeviceBuffer<char> buffer_;
};

}  // namespace fvmmini::cuda
