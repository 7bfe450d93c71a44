#pragma once
// The cuda backend's Krylov methods (plain C++ interface): a method resident on the device, as
// DeviceSolver drives it, and the units that make one by name. A Krylov unit (krylov_unit.hpp)
// has its CUDA twin in solvers/krylov/units/cuda/, listed in solvers/CMakeLists.txt
// (FVMMINI_CUDA_KRYLOV), as a format's CUDA kernel is.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "linalg/solver_settings.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DevicePreconditioner;
class DeviceRanks;
struct DevicePreconditionerInput;

/// k systems of one matrix solved together on the device, their vectors interleaved by row
/// (linalg/block_vectors.hpp).
class DeviceBlockKrylov {
 public:
  virtual ~DeviceBlockKrylov() = default;
  virtual int vectors() const = 0;
  /// Host vectors in the matrix's ordering; x: the guesses in, the solutions out.
  virtual std::vector<SolverPerformance> solve(std::span<double> x, std::span<const double> b,
                                               const SolverSettings& settings) = 0;
  /// The vectors already in x_device() and b_device(); the solutions left in x_device().
  virtual std::vector<SolverPerformance> solve_resident(const SolverSettings& settings) = 0;
  virtual double* x_device() = 0;
  virtual double* b_device() = 0;
};

/// A Krylov method on the device: the matrix stays there, vectors cross at the start and the end of
/// a solve or not at all (solve_resident); the stopping rules, checks and errors of
/// solvers/krylov/cg_rules.hpp.
class DeviceKrylov {
 public:
  virtual ~DeviceKrylov() = default;
  /// After new values were uploaded to the matrix: new diagonal (the matrix's ordering).
  virtual void refresh(std::span<const double> diagonal) = 0;
  /// After a new diagonal was written on the device into inverse_diagonal_device(), as 1/a_ii.
  virtual void refresh_on_device() = 0;
  /// Host vectors in the matrix's ordering; x: the guess in, the solution out.
  virtual SolverPerformance solve(std::span<double> x, std::span<const double> b, const SolverSettings& settings) = 0;
  /// The vectors already in x_device() and b_device(); the solution left in x_device().
  virtual SolverPerformance solve_resident(const SolverSettings& settings) = 0;
  virtual double* x_device() = 0;
  virtual double* b_device() = 0;
  virtual double* inverse_diagonal_device() = 0;
  /// The stream its work is queued on.
  virtual CUstream_st* stream() const = 0;
  /// The applied preconditioner (null: none, or one fused into the method's passes), or the
  /// method's own splitting (DeviceKrylovUnit::make_smoother); not owned.
  virtual void set_preconditioner(DevicePreconditioner* preconditioner) = 0;
  /// Whether each solve keeps a persisting-L2 window over the vector the SpMV gathers.
  virtual void set_l2_window(bool on) = 0;
  /// Whether make_block makes a solver of several systems at once.
  virtual bool has_block() const { return false; }
  /// A solver of k systems of this matrix at once, borrowing this one's matrix, diagonal and
  /// stream; null where the method has none.
  virtual std::unique_ptr<DeviceBlockKrylov> make_block(int /*k*/) { return nullptr; }
};

/// A Krylov unit's CUDA twin: the unit's name and its method on the device for a matrix there.
struct DeviceKrylovUnit {
  std::string name;
  /// @param[in] diagonal the matrix's diagonal in its ordering
  /// @param[in] ranks across ranks, the solver's (null on one rank); must outlive the method
  std::function<std::unique_ptr<DeviceKrylov>(DeviceMatrix& matrix, std::span<const double> diagonal,
                                              DeviceRanks* ranks)>
      make;
  /// A method that sweeps with a splitting of the matrix (smoothSolver) sets the splitting up here,
  /// from what a preconditioner's set-up gets; the solver hands it to the method through
  /// DeviceKrylov::set_preconditioner. Empty: the method takes the settings' preconditioner.
  std::function<std::unique_ptr<DevicePreconditioner>(const DevicePreconditionerInput& input)> make_smoother{};
};

/// The cuda backend's twin of the Krylov unit `name`.
/// @throws std::invalid_argument where the cuda backend has none, naming those it has
const DeviceKrylovUnit& find_device_krylov(const std::string& name);

}  // namespace fvmmini::cuda
