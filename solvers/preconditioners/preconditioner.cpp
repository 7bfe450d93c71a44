#include "solvers/preconditioners/preconditioner.hpp"

#include <chrono>

#include <fmt/format.h>

#include "linalg/timing.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

HostPreconditioner::HostPreconditioner(const LduMatrix& matrix, const Permutation& op, const SolverSettings& s,
                                       std::span<const label> sequence, GamgRanks ranks,
                                       const HostPreconditioner* same_pattern)
    : unit_(&find_preconditioner(s.preconditioner)) {
  if (unit_->cg_step != CgStep::applied) return;
  const auto start = std::chrono::steady_clock::now();
  method_ = unit_->make({.matrix = matrix,
                         .op = op,
                         .settings = s,
                         .sequence = sequence,
                         .ranks = ranks,
                         .same_pattern_gamg = same_pattern ? same_pattern->gamg() : nullptr});
  setup_seconds_ = seconds_since(start);
}

HostPreconditioner::~HostPreconditioner() = default;

void HostPreconditioner::refresh(const LduMatrix& matrix, const std::vector<ProcessorInterface>* interfaces) {
  if (!method_) return;
  const auto start = std::chrono::steady_clock::now();
  method_->refresh(matrix, interfaces);
  refresh_seconds_ = seconds_since(start);
}

void HostPreconditioner::apply(const HostOperator& a, std::span<const double> r, std::span<double> z) {
  method_->apply(a, r, z);
}

void HostPreconditioner::apply_block(const HostOperator& a, int k, std::span<const double> r, std::span<double> z) {
  method_->apply_block(a, k, r, z);
}

PreconditionerInfo HostPreconditioner::info(std::int64_t nnz) const {
  PreconditionerInfo i;
  i.name = unit_->name;
  i.setup_seconds = setup_seconds_;
  i.refresh_seconds = refresh_seconds_;
  if (method_) method_->describe(i, nnz);
  return i;
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
