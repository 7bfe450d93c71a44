#include "kernels/cuda/device_matrix.hpp"

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"

namespace fvmmini::cuda {

void DeviceSpmv::apply_with_dot(const double*, double*, double*, cudaStream_t) {
  throw CudaError(format_name() + ": apply_with_dot called on a format that does not fuse the dot product");
}

void DeviceSpmv::apply_block(int k, const double* x, double* y, double* partials, cudaStream_t stream) {
  if (k != 1)
    throw CudaError(format_name() + ": apply_block of " + std::to_string(k) + " vectors (this format takes at most " +
                    std::to_string(max_block()) + ")");
  if (partials)
    apply_with_dot(x, y, partials, stream);
  else
    apply(x, y, stream);
}

DeviceMatrix::DeviceMatrix(std::unique_ptr<DeviceSpmv> spmv, std::unique_ptr<MixedSpmv> mixed)
    : spmv_(std::move(spmv)), mixed_(std::move(mixed)) {}
DeviceMatrix::DeviceMatrix(DeviceMatrix&&) noexcept = default;
DeviceMatrix& DeviceMatrix::operator=(DeviceMatrix&&) noexcept = default;
DeviceMatrix::~DeviceMatrix() = default;

label DeviceMatrix::n_rows() const { return spmv_->n_rows(); }
std::int64_t DeviceMatrix::stored_entries() const { return spmv_->stored_entries(); }
std::size_t DeviceMatrix::footprint_bytes() const {
  return spmv_->footprint_bytes() + (mixed_ ? mixed_->footprint_bytes() : 0);
}
std::string DeviceMatrix::format_name() const { return spmv_->format_name(); }

namespace {

/// y = A x host to host, y poisoned with NaN before apply(x, y, stream) writes it.
template <class Apply>
void multiply_host(label n_rows, std::span<const double> x, std::span<double> y, Apply apply) {
  const auto n = static_cast<std::size_t>(n_rows);
  if (x.size() != n || y.size() != n) throw CudaError("DeviceMatrix::multiply: vector length differs from n_rows");
  DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(n);
  Stream stream;
  // --- all-ones bytes are a NaN: any row the kernel does not write shows up (same stream: ordered)
  if (n > 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(dy.data(), 0xff, dy.bytes(), stream.get()));
  apply(dx.data(), dy.data(), stream.get());
  stream.synchronize();
  dy.download(y);
}

}  // namespace

void DeviceMatrix::multiply(std::span<const double> x, std::span<double> y) {
  multiply_host(spmv_->n_rows(), x, y, [&](const double* dx, double* dy, cudaStream_t s) { spmv_->apply(dx, dy, s); });
}

int DeviceMatrix::max_block() const { return spmv_->max_block(); }

std::vector<double> DeviceMatrix::multiply_block(int k, std::span<const double> x, std::span<double> y,
                                                 bool with_dot) {
  if (k < 1 || k > spmv_->max_block())
    throw CudaError("DeviceMatrix::multiply_block: " + std::to_string(k) + " vectors (format " + format_name() +
                    " takes 1 to " + std::to_string(spmv_->max_block()) + ")");
  const int count = with_dot ? spmv_->dot_partial_count() : 0;
  if (with_dot && count == 0) throw CudaError("DeviceMatrix::multiply_block: " + format_name() + " fuses no dot product");
  const auto n = static_cast<std::size_t>(spmv_->n_rows()) * static_cast<std::size_t>(k);
  if (x.size() != n || y.size() != n) throw CudaError("DeviceMatrix::multiply_block: vector length differs from k n_rows");
  DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(n);
  DeviceBuffer<double> dpartials(static_cast<std::size_t>(k) * static_cast<std::size_t>(count));
  Stream stream;
  // --- NaN in y and in the partials: a row or a partial the kernel does not write shows up
  if (n > 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(dy.data(), 0xff, dy.bytes(), stream.get()));
  if (count > 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(dpartials.data(), 0xff, dpartials.bytes(), stream.get()));
  spmv_->apply_block(k, dx.data(), dy.data(), count > 0 ? dpartials.data() : nullptr, stream.get());
  stream.synchronize();
  dy.download(y);
  std::vector<double> partials(dpartials.size());
  if (count > 0) dpartials.download(partials);
  return partials;
}

void DeviceMatrix::multiply_mixed(std::span<const double> x, std::span<double> y) {
  if (!mixed_) throw CudaError("DeviceMatrix::multiply_mixed: the matrix has no float32 twin");
  multiply_host(spmv_->n_rows(), x, y, [&](const double* dx, double* dy, cudaStream_t s) { mixed_->apply(dx, dy, s); });
}

double DeviceMatrix::narrow_fraction() const { return mixed_ ? mixed_->narrow_fraction() : 0.0; }

std::vector<double> DeviceMatrix::multiply_with_dot(std::span<const double> x, std::span<double> y) {
  const int count = spmv_->dot_partial_count();
  if (count == 0) {
    multiply(x, y);
    return {};
  }
  const auto n = static_cast<std::size_t>(spmv_->n_rows());
  if (x.size() != n || y.size() != n)
    throw CudaError("DeviceMatrix::multiply_with_dot: vector length differs from n_rows");
  DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(n);
  DeviceBuffer<double> dpartials(static_cast<std::size_t>(count));
  Stream stream;
  // --- NaN in y and in the partials: a row or a partial the kernel does not write shows up
  if (n > 0) FVMMINI_CUDA_CHECK(cudaMemsetAsync(dy.data(), 0xff, dy.bytes(), stream.get()));
  FVMMINI_CUDA_CHECK(cudaMemsetAsync(dpartials.data(), 0xff, dpartials.bytes(), stream.get()));
  spmv_->apply_with_dot(dx.data(), dy.data(), dpartials.data(), stream.get());
  stream.synchronize();
  dy.download(y);
  std::vector<double> partials(static_cast<std::size_t>(count));
  dpartials.download(partials);
  return partials;
}

void DeviceMatrix::upload_values(std::span<const double> values) {
  spmv_->upload_values(values);
  if (!mixed_) return;
  // --- the upload is complete on return (DeviceBuffer::upload); so is the twin's copy
  mixed_->refresh(nullptr);
  FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace fvmmini::cuda
