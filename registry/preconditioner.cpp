#include "registry/preconditioner.hpp"

#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "kernels/reference/triangular_solve.hpp"
#include "linalg/timing.hpp"

namespace fvmmini {

HostPreconditioner::HostPreconditioner(const LduMatrix& matrix, const Permutation& op, const SolverSettings& s,
                                       std::span<const label> sequence, GamgRanks ranks)
    : kind_(s.preconditioner), sweeps_(s.preconditioner == Preconditioner::mcsgs ? s.sweeps : 1) {
  if (sweeps_ < 1) throw std::invalid_argument(fmt::format("sweeps: {} (must be at least 1)", sweeps_));
  const auto start = std::chrono::steady_clock::now();
  if (kind_ == Preconditioner::DIC)
    factor_ = build_triangular_factor(matrix, op, TriangleSplit::index, true, sequence);
  else if (kind_ == Preconditioner::mcsgs)
    factor_ = build_triangular_factor(matrix, op, TriangleSplit::colour, false, sequence);
  else if (kind_ == Preconditioner::GAMG)
    gamg_ = std::make_unique<HostGamg>(matrix, op, s, sequence, ranks);
  setup_seconds_ = seconds_since(start);
}

HostPreconditioner::~HostPreconditioner() = default;

void HostPreconditioner::refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces) {
  if (!applied()) return;
  const auto start = std::chrono::steady_clock::now();
  if (gamg_)
    gamg_->refresh(matrix, interfaces);
  else
    refresh_triangular_factor(matrix, *factor_);
  refresh_seconds_ = seconds_since(start);
}

void HostPreconditioner::apply(const HostOperator& across, std::span<const double> r, std::span<double> z) {
  if (gamg_) return gamg_->apply(across, r, z);
  const HostOperator& a = across.local_block();
  reference::triangular_apply(*factor_, r, z);
  if (sweeps_ == 1) return;
  // --- each further symmetric sweep relaxes the residual: z += M^-1 (r - A z)
  const std::size_t n = r.size();
  residual_.resize(n);
  correction_.resize(n);
  for (int sweep = 1; sweep < sweeps_; ++sweep) {
    a.multiply(z, residual_);
    for (std::size_t i = 0; i < n; ++i) residual_[i] = r[i] - residual_[i];
    reference::triangular_apply(*factor_, residual_, correction_);
    for (std::size_t i = 0; i < n; ++i) z[i] += correction_[i];
  }
}

PreconditionerInfo HostPreconditioner::info(std::int64_t nnz) const {
  PreconditionerInfo i;
  i.name = name(kind_);
  i.setup_seconds = setup_seconds_;
  i.refresh_seconds = refresh_seconds_;
  if (gamg_) {
    i.grid_levels = gamg_->hierarchy().grid;
    i.smoother = name(gamg_->settings().smoother);
    i.setup_parts = gamg_->setup_parts();
  }
  if (factor_) {
    i.colours = factor_->colours;
    i.levels = factor_->levels();
    i.level_sizes = factor_->level_sizes();
    i.spmv_equivalents = spmv_equivalents(factor_->n_rows, factor_->lower.slots() + factor_->upper.slots(),
                                          factor_->rows_contiguous, sweeps_, nnz);
  }
  return i;
}

std::string preconditioner_across_ranks(const SolverSettings& s, int ranks) {
  if (s.preconditioner != Preconditioner::GAMG) return "preconditioner on each rank's block";
  const label gather = cells_to_gather(s.gamg, s.backend == Backend::cuda);
  return gather > 0 && ranks > 1 ? fmt::format("GAMG coupled across the ranks, its levels of at most {} cells gathered", gather)
                    : "GAMG coupled across the ranks";
}

namespace {

/// ": part ms, part ms" after a set-up's total, or nothing where it is not timed in parts.
std::string setup_parts_text(const PreconditionerInfo& info) {
  std::string text;
  for (std::size_t k = 0; k < info.setup_parts.size(); ++k)
    text += fmt::format("{}{} {:.1f}", k == 0 ? ": " : ", ", info.setup_parts[k].first, 1e3 * info.setup_parts[k].second);
  return text;
}

}  // namespace

std::string describe(const PreconditionerInfo& info) {
  if (!info.grid_levels.empty()) {
    std::string text = fmt::format("{} (levels {}, operator complexity {:.2f}, smoother {}, setup {:.1f} ms{})",
                                   info.name, info.grid_levels.size(), info.operator_complexity(), info.smoother,
                                   1e3 * info.setup_seconds, setup_parts_text(info));
    for (std::size_t l = 0; l < info.grid_levels.size(); ++l) {
      const auto& level = info.grid_levels[l];
      text += fmt::format("\n    level {:2}: {:>10} cells {:>11} nonzeros  {}", l, level.rows, level.nnz, level.format);
      if (level.colours > 0) text += fmt::format(", {} colours", level.colours);
    }
    return text;
  }
  if (info.levels == 0) return info.name;
  std::string text = fmt::format("{} (", info.name);
  if (info.colours > 0) text += fmt::format("colours {}, ", info.colours);
  text += fmt::format("levels {}, {:.2f} SpMV per application, setup {:.1f} ms", info.levels, info.spmv_equivalents,
                      1e3 * info.setup_seconds);
  return text + setup_parts_text(info) + ")";
}

}  // namespace fvmmini
