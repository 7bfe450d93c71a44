// "GAMG": OpenFOAM's aggregation multigrid as a preconditioner of CG, symmetric V-cycles
// (gamg/multigrid.hpp); across ranks one multigrid of the whole matrix.

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "solvers/preconditioners/gamg/multigrid.hpp"
#include "solvers/preconditioners/preconditioner_unit.hpp"

namespace fvmmini {

namespace {

class GamgMethod final : public PreconditionerMethod {
 public:
  explicit GamgMethod(const PreconditionerInput& in)
      : gamg_(in.matrix, in.op, in.settings, in.sequence, in.ranks, in.same_pattern_gamg) {}
  void apply(const HostOperator& a, std::span<const double> r, std::span<double> z) override { gamg_.apply(a, r, z); }
  bool applies_block(const HostOperator& a, int k) const override { return gamg_.applies_block(a, k); }
  void apply_block(const HostOperator& a, int k, std::span<const double> r, std::span<double> z) override {
    gamg_.apply_block(a, k, r, z);
  }
  void refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces) override {
    gamg_.refresh(matrix, interfaces);
  }
  void describe(PreconditionerInfo& info, std::int64_t) const override {
    info.grid_levels = gamg_.hierarchy().grid;
    info.smoother = name(gamg_.settings().smoother);
    info.setup_parts = gamg_.setup_parts();
    info.refresh_parts = gamg_.refresh_parts();
  }
  HostGamg* gamg() override { return &gamg_; }

 private:
  HostGamg gamg_;
};

/// The coarse levels the keys make of n rows: each about 2^mergeLevels times smaller, down to
/// nCellsInCoarsestLevel, the rows' mean length kept.
std::vector<LevelSize> coarse_levels(const SolverSettings& s, label n, std::int64_t nnz) {
  std::vector<LevelSize> levels;
  const label factor = label{1} << std::clamp(s.gamg.merge_levels, 1, 16);
  label rows = n;
  for (int level = 0; level < 64 && rows / factor >= std::max<label>(1, s.gamg.n_cells_in_coarsest_level); ++level) {
    rows = (rows + factor - 1) / factor;
    levels.push_back({rows, std::max<std::int64_t>(rows, nnz / n * rows)});
  }
  return levels;
}

}  // namespace

const PreconditionerUnit& preconditioner_unit_gamg() {
  static const PreconditionerUnit unit{
      .name = "GAMG",
      .summary = "aggregation multigrid V-cycles (pairwise agglomeration: OpenFOAM's, or a handshake built on the GPU)",
      .cg_step = CgStep::applied,
      .symmetric_only = true,
      .keys = {"nCellsInCoarsestLevel", "mergeLevels", "smoother", "agglomerator", "nPreSweeps", "nPostSweeps",
               "nVcycles", "nCellsToGather", "correctionScale"},
      .make = [](const PreconditionerInput& in) -> std::unique_ptr<PreconditionerMethod> {
        return std::make_unique<GamgMethod>(in);
      },
      .across_ranks = [](const SolverSettings& s, int ranks) -> std::string {
        const label gather = cells_to_gather(s.gamg, s.backend == Backend::cuda);
        return gather > 0 && ranks > 1
                   ? fmt::format("GAMG coupled across the ranks, its levels of at most {} cells gathered", gather)
                   : "GAMG coupled across the ranks";
      },
      .levels = coarse_levels,
  };
  return unit;
}

}  // namespace fvmmini
