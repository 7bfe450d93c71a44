#include "kernels/cuda/cuda_linear_solver.hpp"

#include <stdexcept>
#include <vector>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_cg.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "linalg/format_registry.hpp"

namespace fvmmini::cuda {

namespace {

class CudaLinearSolver final : public LinearSolver {
 public:
  CudaLinearSolver(const LduMatrix& matrix, const SolverSettings& settings)
      : settings_(settings),
        prepared_(prepare_format(matrix, settings.format, settings.ordering, settings.format_parameters)),
        device_(make_device_matrix(prepared_)),
        diagonal_(matrix.n_rows()),
        x_(matrix.n_rows()),
        b_(matrix.n_rows()),
        device_name_(cuda::describe(device_info())) {
    permute_to_new(prepared_.permutation, matrix.diag, diagonal_);
    cg_ = std::make_unique<DeviceCg>(device_, diagonal_);
  }

  SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) override {
    // --- into the operator's numbering, solve on the device, back to the mesh's
    permute_to_new(prepared_.permutation, x, x_);
    permute_to_new(prepared_.permutation, b, b_);
    SolverPerformance perf = cg_->solve(x_, b_, settings_);
    permute_to_old(prepared_.permutation, x_, x);
    perf.field = field;
    return perf;
  }

  void update_coefficients(const LduMatrix& matrix) override {
    refresh_format_values(matrix, prepared_);
    device_.upload_values(format_values(prepared_.format));
    permute_to_new(prepared_.permutation, matrix.diag, diagonal_);
    cg_->refresh(diagonal_);
  }

  std::string describe() const override { return "cuda on " + device_name_ + ": " + fvmmini::describe(prepared_); }

 private:
  SolverSettings settings_;
  PreparedFormat prepared_;
  DeviceMatrix device_;
  std::vector<double> diagonal_, x_, b_;
  std::string device_name_;
  std::unique_ptr<DeviceCg> cg_;  ///< refers to device_
};

}  // namespace

std::unique_ptr<LinearSolver> make_cuda_linear_solver(const LduMatrix& matrix, const SolverSettings& settings) {
  if (settings.preconditioner != "none" && settings.preconditioner != "jacobi")
    throw std::invalid_argument("unknown preconditioner '" + settings.preconditioner + "' (known: none, jacobi)");
  if (!cuda_device_available()) throw CudaError("backend cuda: no CUDA device is available (no driver or no GPU)");
  return std::make_unique<CudaLinearSolver>(matrix, settings);
}

}  // namespace fvmmini::cuda
