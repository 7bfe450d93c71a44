#pragma once
// GAMG on the device: the hierarchy built on the device (device_hierarchy.cuh: parallelPair, one
// rank, the jacobi smoother; its levels csr) or the one the host sets up
// (solvers/preconditioners/gamg/multigrid.hpp) uploaded once, every level but the coarsest in its
// own format with that format's SpMV kernel, the coarsest solved by its dense inverse; with the
// Jacobi smoother, where no level exchanges a halo, the levels of a few thousand rows and below
// run as one kernel of one block (their launches cost more than their arithmetic). The whole
// V-cycle is queued on the CG's stream (and recorded in its graphs), with no host round trip.
// Across ranks every level's product adds its interfaces' couplings through a DeviceRanks of the
// level (the solver's transport; NCCL's communicator shared) and the coarsest level gathers every
// rank's right-hand side for its rows of the whole inverse.
// Plain C++ interface.

#include <cstdint>
#include <memory>
#include <span>

#include "linalg/csr_matrix.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "solvers/preconditioners/gamg/multigrid.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

class DeviceRanks;

class DeviceGamg final : public DevicePreconditioner {
 public:
  /// @param[in] op the operator's numbering of `fine`
  /// @param[in] fine_spmv the operator on the device (level 0); must outlive this object
  /// @param[in] sequence the operator's position_before_grouping (build_gamg_hierarchy)
  /// @param[in] ranks across ranks, the matrix's interfaces (LDU rows) and the ranks
  /// @param[in] fine_ranks across ranks, the solver's DeviceRanks (level 0's halo and the
  ///            transport of the others); must outlive this object
  /// @param[in] fine_map the mesh's LDU -> slots of fine_spmv's values (on the host or the
  ///            device): with it, where builds_on_device, the hierarchy is built on the device
  ///            from those values
  /// @param[in] same_pattern another matrix's GAMG on the same pattern (the flow's U for its p):
  ///            its agglomeration is taken where the keys that shape it agree and, on the
  ///            device, the values lie at the same slots (DeviceHierarchy::shares); what is
  ///            taken is held or copied, so it need not outlive this one. Null: none
  /// @throws as build_gamg_hierarchy
  DeviceGamg(const LduMatrix& fine, const Permutation& op, const SolverSettings& settings, DeviceSpmv& fine_spmv,
             std::span<const label> sequence = {}, GamgRanks ranks = {}, DeviceRanks* fine_ranks = nullptr,
             FineSlots fine_map = {}, const DeviceGamg* same_pattern = nullptr);
  ~DeviceGamg() override;
  DeviceGamg(const DeviceGamg&) = delete;
  DeviceGamg& operator=(const DeviceGamg&) = delete;

  /// z = M^-1 r: nVcycles V-cycles from zero, queued on `stream`.
  void apply(const double* r, double* z, const int* status, CUstream_st* stream) override;
  /// Whether apply_block takes k vectors together: the jacobi smoother on one rank (no level
  /// exchanging a halo or gathered), every level's format with a multi-vector SpMV of k.
  bool applies_block(int k) const override;
  /// The levels' buffers of several vectors, for apply_block (allocates: not inside a graph capture).
  void reserve_block() override;
  /// Z = M^-1 R for k vectors interleaved by row (linalg/block_vectors.hpp), each level's matrix
  /// read once for all k: vector j's as apply() of vector j gives it, to rounding. Queued on `stream`.
  /// @pre reserve_block() and applies_block(k)
  void apply_block(int k, const double* r, double* z, const int* status, CUstream_st* stream) override;
  /// New values: coarse matrices on the device from the solver's values (a device hierarchy), or
  /// on the host and uploaded; smoothers and the coarsest inverse renewed.
  void refresh(const LduMatrix& matrix) override;
  /// A new fine diagonal on the device: the coarse diagonals restricted there, the smoothers
  /// refactored; the coarsest diagonal comes to the host for its inverse (one small copy).
  void refactor(const double* diagonal, CUstream_st* stream) override;
  /// The operator's new values (its format's, on the device) down the device hierarchy; the
  /// coarsest inverse on the host, as refresh() does. @pre refreshes_on_device()
  void refresh_on_device(const DeviceCoefficients& coefficients, CUstream_st* stream) override;
  /// Whether the hierarchy was built on the device (builds_on_device), so that it refreshes there.
  bool refreshes_on_device() const override;
  /// Across ranks, the finest interfaces' new coefficients; refresh() takes them down the levels.
  void refresh_interfaces(const std::vector<ProcessorInterface>& interfaces) override;
  PreconditionerInfo info(std::int64_t nnz) const override;

  /// The hierarchy's levels on this rank (the coarsest: solved whole, gathered across ranks).
  int levels() const;
  /// One V-cycle from `level` down, queued on `stream`: level 0's is apply()'s first cycle; a
  /// coarser level's runs on that level's own right-hand side and correction (what the last cycle
  /// left there), so that timing it and the next level's apart gives the level's own share.
  void cycle_from(int level, const double* r, double* z, const int* status, CUstream_st* stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fvmmini::cuda
