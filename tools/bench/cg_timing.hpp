#pragma once
// CG time per iteration on the reference backend, as both benches measure it: the time of the
// iterations alone (set-up, row sums and the initial residual excluded) over their count. The
// cuda backend times the same span with device events (DeviceCg::last_iterations_ms).

#include <span>
#include <vector>

#include "linalg/solver_settings.hpp"
#include "registry/host_operator.hpp"

namespace fvmmini::bench {

struct Timing {
  double median_ms = 0.0;
  double best_ms = 0.0;
};

/// Median and best of some timings in ms (at least one).
Timing timing_of(std::vector<double> ms);

/// Runs of `few` and `few + k` iterations (tolerance 0), the difference over k; median and best
/// of `repeats` after one untimed run (which allocates the workspace).
/// @throws std::runtime_error when CG stops early (a breakdown)
Timing cg_ms_per_iteration(const HostOperator& op, std::span<const double> b, const std::string& preconditioner, int k,
                           int repeats);

}  // namespace fvmmini::bench
