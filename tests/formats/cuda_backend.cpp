// test_formats.cpp on the cuda backend (the device output is poisoned with NaN by DeviceMatrix).

#include <algorithm>
#include <numeric>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "tests/formats/format_backend.hpp"

namespace fvmmini::test {
namespace {

class CudaMatrix final : public BackendMatrix {
 public:
  explicit CudaMatrix(PreparedFormat prepared)
      : prepared_(std::move(prepared)), device_(cuda::make_device_matrix(prepared_)) {}
  void multiply(std::span<const double> x, std::span<double> y) override { device_.multiply(x, y); }
  double multiply_dot(std::span<const double> x, std::span<double> y) override {
    const std::vector<double> partials = device_.multiply_with_dot(x, y);
    if (partials.empty()) return std::inner_product(x.begin(), x.end(), y.begin(), 0.0);  // not fused
    return std::accumulate(partials.begin(), partials.end(), 0.0);
  }
  void refresh(const LduMatrix& m) override {
    refresh_format_values(m, prepared_);
    device_.upload_values(prepared_.format.values());
  }
  const PreparedFormat& prepared() const override { return prepared_; }

 private:
  PreparedFormat prepared_;
  cuda::DeviceMatrix device_;
};

}  // namespace

const FormatBackend& format_backend() {
  static const FormatBackend backend{
      "cuda",
      [] {
        return cuda::cuda_device_available() ? std::string() : std::string("no CUDA device or driver on this machine");
      },
      [](const std::string& format) {
        const auto& names = cuda::device_format_names();
        return std::find(names.begin(), names.end(), format) != names.end();
      },
      [](const LduMatrix&, PreparedFormat prepared) -> std::unique_ptr<BackendMatrix> {
        return std::make_unique<CudaMatrix>(std::move(prepared));
      }};
  return backend;
}

}  // namespace fvmmini::test
