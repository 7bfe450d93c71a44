// "smoothSolver" on the cuda backend: DeviceSmoothSolver, its sweeps a DeviceTriangularPreconditioner
// of the gauss_seidel method in the solve's ordering, which the solver sets up as it would a
// preconditioner (make_smoother) and hands to the method. One rank.

#include <memory>
#include <stdexcept>

#include "solvers/krylov/cuda/device_krylov.hpp"
#include "solvers/krylov/cuda/device_smooth_solver.hpp"
#include "solvers/krylov/smooth_solver_settings.hpp"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

const DeviceKrylovUnit& device_krylov_smoothsolver() {
  static const DeviceKrylovUnit unit{
      .name = "smoothSolver",
      .make = [](DeviceMatrix& matrix, std::span<const double> diagonal,
                 DeviceRanks* ranks) -> std::unique_ptr<DeviceKrylov> {
        // (a rank's sweep would need its neighbours' values at every row of a processor face)
        if (ranks) throw std::invalid_argument("solver smoothSolver runs on one rank (use PBiCGStab across ranks)");
        return std::make_unique<DeviceSmoothSolver>(matrix, diagonal);
      },
      .make_smoother = [](const DevicePreconditionerInput& in) -> std::unique_ptr<DevicePreconditioner> {
        check_smooth_solver_settings(in.settings);
        return std::make_unique<DeviceTriangularPreconditioner>(in.matrix, in.op, gauss_seidel, TriangularSolve::levels,
                                                                1, &in.spmv, LevelLaunch::automatic, in.sequence);
      },
  };
  return unit;
}

}  // namespace fvmmini::cuda
