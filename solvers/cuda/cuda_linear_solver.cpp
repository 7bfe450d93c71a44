#include "solvers/cuda/cuda_linear_solver.hpp"

#include "kernels/cuda/cuda_backend.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"

namespace fvmmini::cuda {

namespace {

class CudaLinearSolver final : public LinearSolver {
 public:
  CudaLinearSolver(const LduMatrix& matrix, const SolverSettings& settings) : solver_(matrix, settings) {}
  CudaLinearSolver(const DistributedLdu& system, const SolverSettings& settings, const Communicator& comm)
      : solver_(system, settings, comm) {}

  SolverPerformance solve(std::span<double> x, std::span<const double> b, const std::string& field) override {
    return solver_.solve(x, b, field);
  }

  std::vector<SolverPerformance> solve_block(std::span<const std::span<double>> x,
                                             std::span<const std::span<const double>> b,
                                             std::span<const std::string> fields) override {
    return solver_.solve_block(x, b, fields);
  }
  bool solves_together(int k) const override { return solver_.solves_together(k); }

  void update_coefficients(const LduMatrix& matrix) override { solver_.update_coefficients(matrix); }

  void update_distributed(const DistributedLdu& system) override { solver_.update_distributed(system); }

  IterationParts time_iteration_parts(int repeats) override { return solver_.time_iteration_parts(repeats); }
  SolveTiming time_solves(std::span<const double> b, int solves, const Communicator& comm) override {
    return solver_.time_solves(b, solves, comm);
  }

  std::string describe() const override { return solver_.describe(); }

  PreconditionerInfo preconditioner_info() const override { return solver_.preconditioner_info(); }

  FormatInfo format_info() const override { return solver_.format_info(); }

 private:
  DeviceSolver solver_;
};

}  // namespace

bool cuda_backend_built() { return true; }

bool cuda_device_ready() { return cuda_device_available(); }

std::size_t device_memory_peak() { return device_bytes_peak(); }

std::jthread start_device(int node_rank) {
  return std::jthread([node_rank] {
    try {
      if (!cuda_device_available()) return;
      select_device(node_rank);
      device_info();  // creates the context and loads cuSPARSE, as the first solver would
    } catch (const std::exception&) {
      // the first solver on the device meets the same failure and reports it
    }
  });
}

bool ranks_have_their_own_gpus(const Communicator& comm) {
  select_device(comm.node_rank());
  return !ranks_share_a_gpu(comm);
}

std::unique_ptr<LinearSolver> make_cuda_linear_solver(const LduMatrix& matrix, const SolverSettings& settings) {
  return std::make_unique<CudaLinearSolver>(matrix, settings);
}

std::unique_ptr<LinearSolver> make_cuda_distributed_linear_solver(const DistributedLdu& system,
                                                                  const SolverSettings& settings,
                                                                  const Communicator& comm) {
  return std::make_unique<CudaLinearSolver>(system, settings, comm);
}

}  // namespace fvmmini::cuda
