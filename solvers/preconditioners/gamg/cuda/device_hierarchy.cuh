#pragma once
// GAMG's hierarchy built on the device (agglomerator parallelPair, one rank): the handshake
// matching of pair_matching.hpp on each level's faces, the coarse faces by sorting the fine faces'
// pairs of groups, each coarse level stored as csr in its agglomeration numbering (groups in the
// order of their least row, so a level keeps the finer one's locality), and the Galerkin product
// as maps from the coarse coefficients to the fine ones they sum, so that a refresh is one pass
// over each level's values with no host round trip. The fine values are read where the solver's
// format keeps them on the device. Every sum runs in the order the host's galerkin_values takes,
// so the coarse matrices equal the host's agglomerate(..., parallel = true) to the last bit.
//
// A coefficient of a level is read through its slots: diag_slot per row, upper_slot (a_{l,u})
// and lower_slot (a_{u,l}) per face; a symmetric matrix has both stored, so an asymmetric one
// (OpenFOAM's separate lower coefficients) needs no other map, only symmetric = false.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/device_memory.cuh"
#include "solvers/preconditioners/cuda/device_preconditioner.hpp"
#include "kernels/cuda/device_spmv.cuh"
#include "linalg/csr_matrix.hpp"
#include "linalg/ldu_matrix.hpp"
#include "linalg/ordering/permutation.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

/// Where a level's coefficients lie among its values.
struct DeviceSlots {
  DeviceBuffer<long long> diag;  ///< per row (the operator's numbering on level 0)
  DeviceBuffer<int> upper;       ///< per face: a_{lower, upper}
  DeviceBuffer<int> lower;       ///< per face: a_{upper, lower} (empty: the upper's, a symmetric matrix)
};

/// Level l -> l + 1's coefficients: each coarse face sums a run of fine coefficients (fine faces
/// ascending), each coarse diagonal its rows' diagonals then its inner faces' two coefficients.
struct DeviceGalerkin {
  int n_coarse = 0, n_coarse_faces = 0;
  DeviceBuffer<int> run_ptr;  ///< coarse faces, then coarse rows' inner faces: n_coarse_faces + n_coarse + 1
  DeviceBuffer<int> to_upper, to_lower;  ///< per run entry: the fine slots adding to a_{l,u} / a_{u,l}
                                         ///< (to_lower empty for a symmetric matrix)
  DeviceBuffer<int> row_ptr;             ///< coarse rows + 1, into row_diag
  DeviceBuffer<long long> row_diag;      ///< per fine row of each group, ascending: its diagonal's slot
};

/// One level of the hierarchy on the device, numbered as agglomerated (level 0: the solver's
/// operator, whose values the solver's format keeps): its structure, the same for every matrix on
/// the pattern.
struct DeviceLevel {
  int n = 0;
  std::int64_t nnz = 0;
  DeviceBuffer<int> row_ptr, col;     ///< levels >= 1: the csr pattern
  DeviceSlots slots;                  ///< levels >= 1; level 0's are the agglomeration's fine slots
  DeviceBuffer<int> lower, upper;     ///< levels >= 1: the faces (lower < upper, sorted), for the coarsest's download
  // --- the transfer to the next level, in this level's operator numbering
  DeviceBuffer<int> coarse_of, group_ptr, group_rows;
  DeviceGalerkin galerkin;            ///< to the next level
};

/// What the hierarchies of the matrices on one pattern share (OpenFOAM keeps one agglomeration a
/// mesh): every level's structure, made by the first from its values' face weights.
struct DeviceAgglomeration {
  /// The fine values' slots it was built for (FineSlots::identity): only compared (shares), never
  /// read; the solvers that hold this structure hold the format that owns the map too.
  const void* fine_map = nullptr;
  int merge_levels = 0, n_cells_in_coarsest_level = 0;
  bool symmetric = true;                   ///< a_{u,l} == a_{l,u}: no lower slots or to_lower maps
  DeviceSlots fine_slots;                  ///< mesh rows and faces -> the fine values
  DeviceBuffer<long long> fine_diag_op;    ///< operator row -> its diagonal's slot
  std::vector<DeviceLevel> levels;
  std::vector<std::pair<std::string, double>> setup_parts;  ///< the build's (DeviceHierarchy::setup_parts)
};

class DeviceHierarchy {
 public:
  /// Agglomerate the operator's matrix on the device (settings: nCellsInCoarsestLevel,
  /// mergeLevels) and make every coarse level's pattern and Galerkin map; refresh() computes
  /// their coefficients.
  /// @param[in] fine the mesh's LDU (its addressing is uploaded; values are read on the device)
  /// @param[in] op the operator's numbering (new -> old mesh rows)
  /// @param[in] fine_values the operator's values on the device (the solver's format)
  /// @param[in] fine_map mesh LDU rows and faces -> slots of fine_values (on the host or the device)
  DeviceHierarchy(const LduMatrix& fine, const Permutation& op, const GamgSettings& settings,
                  const double* fine_values, const FineSlots& fine_map, cudaStream_t stream);
  /// Another matrix's hierarchy on `shared`'s pattern and slots (shares): the structure shared,
  /// the coarse values this one's own.
  DeviceHierarchy(std::shared_ptr<const DeviceAgglomeration> shared, const double* fine_values);

  /// Whether a matrix whose values lie at fine_map's slots, agglomerated with `settings`, may take
  /// `model`'s structure: the same slots (one format of one pattern) and the keys that shape the
  /// groups. Its groups come from |a_f|, so a matrix whose faces are another's times a constant
  /// (the momentum's nu L beside the pressure's L) agglomerates alike, up to ties.
  static bool shares(const DeviceAgglomeration& model, const GamgSettings& settings, const FineSlots& fine_map);

  int levels() const { return static_cast<int>(agglomeration_->levels.size()); }
  const DeviceLevel& level(int l) const { return agglomeration_->levels[l]; }
  /// Level l's matrix (l >= 1): csr on the shared pattern, this hierarchy's values.
  DeviceSpmv& csr(int l) { return *csr_[l]; }
  const std::shared_ptr<const DeviceAgglomeration>& agglomeration() const { return agglomeration_; }

  /// Every coarse level's coefficients from the fine values, on `stream`; with diag[l] and
  /// inner[l] not null (levels >= 1), the level's diagonal and its inner faces' share of it.
  void refresh(const std::vector<double*>& diag, const std::vector<double*>& inner, cudaStream_t stream);

  /// A coarse level's matrix on the host (the coarsest's: a few hundred rows at most), its upper
  /// coefficients a_{l,u}. Synchronises `stream`.
  LduMatrix download(int level, cudaStream_t stream);

  /// The operator's diagonal (level 0, its numbering) from the fine values, on `stream`.
  void fine_diagonal(double* diag, cudaStream_t stream) const;

  /// The set-up's time by part: fine level (its addressing and value slots uploaded, its
  /// pattern), matching, coarse faces, operators (each coarse level's csr, transfer and Galerkin
  /// map); or, sharing another's, shared agglomeration (this one's coarse values' buffers).
  const std::vector<std::pair<std::string, double>>& setup_parts() const { return setup_parts_; }

 private:
  std::shared_ptr<const DeviceAgglomeration> agglomeration_;
  const double* fine_values_;
  std::vector<std::unique_ptr<DeviceSpmv>> csr_;  ///< levels >= 1 (csr_[0] null), on the shared pattern
  std::vector<std::pair<std::string, double>> setup_parts_;
};

}  // namespace fvmmini::cuda
