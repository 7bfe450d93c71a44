#pragma once
// The solver factory: the one place that chooses a backend (the LinearSolver interface it
// returns: solvers/linear_solver.hpp).

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "comm/communicator.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/linear_solver.hpp"

namespace fvmmini {

/// The settings with backend and format made concrete: backend cuda when asked (an error without a
/// device) or when auto finds one, else reference; format auto is staircase on cuda and csr on
/// reference. @param[out] note if not null, why auto chose reference (empty otherwise)
/// @throws std::invalid_argument for an unknown solver, backend or preconditioner; SolverError for
///         backend cuda without a device
SolverSettings resolve_solver_settings(const SolverSettings& requested, std::string* note = nullptr);

/// An asymmetric matrix only where every part of the solver takes one: the Krylov method and the
/// preconditioner on one rank (the decomposed operator takes symmetric matrices only; a
/// symmetric-only format refuses one in prepare_format). Every factory checks it; so does a
/// step that makes its solvers itself (the device PISO step).
/// @throws std::invalid_argument naming the key
void check_symmetry(const LduMatrix& matrix, const SolverSettings& s, bool decomposed);

/// Where any of `settings` may resolve to the cuda backend (cuda, or auto in a build with it, with a
/// Krylov method the backend has), the GPU of node rank `node_rank` started on a thread of its own
/// (cuda::start_device), so that its driver's and context's start-up overlaps the host's set-up
/// before the first solver; else an empty thread. The thread joins when the returned object goes.
std::jthread start_device_early(std::span<const SolverSettings> settings, int node_rank);

/// Whether any of `settings` resolves to the cuda backend (resolve_solver_settings'): cuda, or auto
/// in a build with it, with a Krylov method and preconditioner the backend has, and a device found.
bool resolves_to_device(std::span<const SolverSettings> settings);

/// The most bytes the cuda backend's device buffers held at once in this process so far (the CUDA
/// context and the libraries' own workspaces not counted); 0 where the device was not used or the
/// build has no CUDA backend.
std::size_t device_memory_peak();

/// The backends that implement `format`, whatever this build has: reference when its unit has a
/// reference kernel, cuda when the CUDA library lists it (kernels/CMakeLists.txt).
/// @throws std::invalid_argument for an unknown format
std::vector<std::string> format_backends(const std::string& format);

/// The backends that have a Krylov method: reference always; cuda where the cuda backend has the
/// unit's twin (solvers/krylov/units/cuda/).
std::vector<std::string> krylov_backends(const std::string& name);

/// The backends that have a preconditioner (a name or an alias): reference always; cuda where the
/// CG fuses it or the cuda backend has the unit's twin (solvers/preconditioners/units/cuda/).
std::vector<std::string> preconditioner_backends(const std::string& name);

/// Build the solver the settings ask for. Format "auto" is staircase on the cuda backend and csr
/// on the reference backend. `same_pattern`: a solver built before on the same matrix pattern
/// (a mesh's velocity solver for its pressure solver) whose format the new one copies where
/// both are reference solvers with the same format, keys and ordering (prepare_format's model;
/// the GPU flow step shares its own through cuda::DeviceSolver), and whose GAMG agglomeration a
/// GAMG takes where both have the same agglomeration keys (shares_agglomeration); two reference
/// solvers so built share their Krylov work vectors (WorkStore), so they must not solve at the
/// same time. Throws std::invalid_argument for
/// an unknown backend, format, ordering or preconditioner, or a format that does not apply.
std::unique_ptr<LinearSolver> make_linear_solver(const LduMatrix& matrix, const SolverSettings& settings,
                                                 const LinearSolver* same_pattern = nullptr);

/// The solver of one rank's piece of a matrix decomposed over the ranks of comm (every rank calls
/// this, and then every solve, together): the CG of the backend the settings resolve to (as
/// make_linear_solver) on the local block in the format they ask for, coupled through the
/// processor interfaces (reference: solvers/distributed/distributed_operator.hpp; cuda:
/// solvers/distributed/cuda/device_ranks.hpp over the settings' transport), its sums over all ranks, the
/// preconditioner on the rank's own block. Vectors are the rank's rows. comm must outlive the
/// solver.
/// @throws as make_linear_solver; SolverError for a transport the build or the ranks cannot use
std::unique_ptr<LinearSolver> make_distributed_linear_solver(const DistributedLdu& system,
                                                             const SolverSettings& settings,
                                                             const Communicator& comm,
                                                             const LinearSolver* same_pattern = nullptr);

}  // namespace fvmmini
