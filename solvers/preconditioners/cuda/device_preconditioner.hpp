#pragma once
// The cuda backend's preconditioners (plain C++ interface): z = M^-1 r on the device as the device
// CG applies it, and the units that set one up by name. A preconditioner unit
// (preconditioner_unit.hpp) the CG applies has its CUDA twin in units/cuda/, listed in
// solvers/CMakeLists.txt (FVMMINI_CUDA_PRECONDITIONERS), as a format's CUDA kernel is.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "linalg/csr_matrix.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/gamg/multigrid.hpp"

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace fvmmini::cuda {

class DeviceSpmv;
class DeviceRanks;
struct DeviceSlotMap;

/// The mesh's LDU rows and faces -> slots of the operator's device values: the host's map, or the
/// one a format built on the device wrote there (kernels/cuda/device_rows.cuh). `identity` is the
/// same for two solvers whose formats share one shape (their slots alike); none known: all null.
struct FineSlots {
  FineSlots() = default;
  FineSlots(const LduToCsrMap* map) : host(map), identity(map) {}  // NOLINT: a host map is its own identity
  FineSlots(const LduToCsrMap& map) : FineSlots(&map) {}           // NOLINT
  FineSlots(const DeviceSlotMap& map, const void* shape) : device(&map), identity(shape) {}
  const LduToCsrMap* host = nullptr;
  const DeviceSlotMap* device = nullptr;
  const void* identity = nullptr;
  bool known() const { return host || device; }
};

/// The operator's coefficients after new values were written on the device (DeviceSolver::
/// set_coefficients, the PISO step's matrices): the operator's format holds them too.
struct DeviceCoefficients {
  const double* diagonal;  ///< operator numbering
  const double* upper;     ///< per mesh face: a_{owner, neighbour}
  const double* lower;     ///< per mesh face: a_{neighbour, owner} (upper where symmetric)
};

/// z = M^-1 r on the device, as the device CG applies it.
class DevicePreconditioner {
 public:
  virtual ~DevicePreconditioner() = default;
  /// z = M^-1 r on `stream` (r and z device vectors that do not alias). When `status` is not
  /// null, the level kernels return at once unless *status == 0 (the CG has stopped: its graphs
  /// replay iterations past convergence); cusparseSpSV runs regardless, on data nobody reads.
  virtual void apply(const double* r, double* z, const int* status, CUstream_st* stream) = 0;
  /// Whether apply_block takes k vectors together (GAMG with the jacobi smoother on one rank).
  virtual bool applies_block(int /*k*/) const { return false; }
  /// The buffers of apply_block (allocates: before any graph capture).
  virtual void reserve_block() {}
  /// Z = M^-1 R for k vectors interleaved by row (linalg/block_vectors.hpp), vector j's as apply()
  /// of vector j gives it, to rounding; status as apply's. @pre reserve_block() and applies_block(k)
  virtual void apply_block(int k, const double* r, double* z, const int* status, CUstream_st* stream);
  /// New values on the same addressing (the operator's own were uploaded): no new analysis.
  /// @throws SolverError when the new matrix breaks the preconditioner (a pivot not positive)
  virtual void refresh(const LduMatrix& matrix) = 0;
  /// A new diagonal of the operator (device vector, operator numbering) after the off-diagonal
  /// values stayed, taken on `stream`.
  virtual void refactor(const double* diagonal, CUstream_st* stream) = 0;
  /// New values on the same addressing written on the device, taken on `stream` with no host copy
  /// and no wait: a pivot that is not positive shows as the method's breakdown, not here.
  virtual void refresh_on_device(const DeviceCoefficients& coefficients, CUstream_st* stream) = 0;
  /// Whether refresh_on_device takes new values; where not, the caller downloads them and calls
  /// refresh() (GAMG whose hierarchy was built on the host).
  virtual bool refreshes_on_device() const { return true; }
  /// Across ranks, the processor interfaces' new coefficients (the LDU block's rows), told before
  /// refresh(): GAMG couples its levels through them; the others act on the rank's block alone.
  virtual void refresh_interfaces(const std::vector<ProcessorInterface>&) {}
  /// Set-up and refresh times and the modelled cost of one application.
  /// @param[in] nnz the operator's nonzeros (for the SpMV it is compared with)
  virtual PreconditionerInfo info(std::int64_t nnz) const = 0;
};

/// What a device unit's set-up gets, in the operator's numbering.
struct DevicePreconditionerInput {
  const LduMatrix& matrix;          ///< the mesh's numbering (a rank's block across ranks)
  const Permutation& op;            ///< the operator's numbering (new -> old mesh rows)
  const SolverSettings& settings;
  DeviceSpmv& spmv;                 ///< the operator on the device; outlives the preconditioner
  std::span<const label> sequence;  ///< the solve's ordering before a format's grouping
  GamgRanks ranks;                  ///< across ranks: the processor interfaces (empty on one rank)
  DeviceRanks* device_ranks;        ///< across ranks: the solver's (null on one rank)
  /// The mesh's LDU rows and faces -> slots of spmv's device values (GAMG's device hierarchy
  /// reads the fine coefficients there); none where the solver has none.
  FineSlots fine_slots;
  /// Another solver's preconditioner on the same pattern (the flow's U for its p): GAMG may take
  /// its agglomeration. Null: none.
  const DevicePreconditioner* same_pattern = nullptr;
};

/// A preconditioner unit's CUDA twin: the unit's name and its set-up on the device.
struct DevicePreconditionerUnit {
  std::string name;
  std::function<std::unique_ptr<DevicePreconditioner>(const DevicePreconditionerInput&)> make;
};

/// The cuda backend's twin of the preconditioner unit `name` (a unit's name, not an alias).
/// @throws std::invalid_argument where the cuda backend has none, naming those it has
const DevicePreconditionerUnit& find_device_preconditioner(const std::string& name);

}  // namespace fvmmini::cuda
