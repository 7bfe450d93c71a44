#include "kernels/cuda/cusparse_spmv.cuh"

#include <algorithm>

namespace fvmmini::cuda {

namespace {
const double one = 1.0;
const double zero = 0.0;
}  // namespace

CusparseSpmv::CusparseSpmv(cusparseSpMatDescr_t matrix, long long n_rows, long long n_cols,
                           cusparseSpMVAlg_t algorithm)
    : matrix_(matrix), algorithm_(algorithm), probe_x_(std::max(1LL, n_cols)), probe_y_(std::max(1LL, n_rows)) {
  try {
    FVMMINI_CUSPARSE_CHECK(cusparseCreate(&handle_));
    FVMMINI_CUSPARSE_CHECK(cusparseCreateDnVec(&x_, n_cols, probe_x_.data(), CUDA_R_64F));
    FVMMINI_CUSPARSE_CHECK(cusparseCreateDnVec(&y_, n_rows, probe_y_.data(), CUDA_R_64F));
    std::size_t bytes = 0;
    FVMMINI_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_, x_, &zero,
                                                   y_, CUDA_R_64F, algorithm_, &bytes));
    buffer_ = DeviceBuffer<char>(bytes);
    // --- the analysis of the sparsity pattern, once
    FVMMINI_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_, x_, &zero,
                                                   y_, CUDA_R_64F, algorithm_, buffer_.data()));
    // --- it ran on the handle's default stream, which our non-blocking streams do not wait for
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    release();
    throw;
  }
}

CusparseSpmv::~CusparseSpmv() { release(); }

void CusparseSpmv::release() noexcept {
  if (x_) cusparseDestroyDnVec(x_);
  if (y_) cusparseDestroyDnVec(y_);
  if (matrix_) cusparseDestroySpMat(matrix_);
  if (handle_) cusparseDestroy(handle_);
  x_ = y_ = nullptr;
  matrix_ = nullptr;
  handle_ = nullptr;
}

void CusparseSpmv::apply(const double* x, double* y, cudaStream_t stream) {
  FVMMINI_CUSPARSE_CHECK(cusparseSetStream(handle_, stream));
  FVMMINI_CUSPARSE_CHECK(cusparseDnVecSetValues(x_, const_cast<double*>(x)));
  FVMMINI_CUSPARSE_CHECK(cusparseDnVecSetValues(y_, y));
  FVMMINI_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_, x_, &zero, y_,
                                      CUDA_R_64F, algorithm_, buffer_.data()));
}

}  // namespace fvmmini::cuda
