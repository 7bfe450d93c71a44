#pragma once
// How a run across ranks times its work: each run after a barrier, so that the ranks start
// together, and a run's time the slowest rank's (the one the others wait for).

#include <algorithm>
#include <chrono>
#include <limits>
#include <vector>

#include "comm/communicator.hpp"

namespace fvmmini {

/// Seconds `run` takes on this rank, started after a barrier.
template <class Run>
double seconds_after_barrier(const Communicator& comm, Run&& run) {
  comm.barrier();
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A part of the work (the solvers' IterationParts): the median of `repeats` runs, the slowest
/// rank's.
/// @param run does the work to time and returns once it is complete
template <class Run>
double slowest_median(const Communicator& comm, int repeats, Run&& run) {
  std::vector<double> times;
  for (int r = 0; r < std::max(repeats, 1); ++r) times.push_back(seconds_after_barrier(comm, run));
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return comm.max(times[times.size() / 2]);
}

/// A whole solve (LinearSolver::time_solves): the fastest of `repeats` runs, each the slowest
/// rank's, so the same figure on every rank.
/// @param reset readies the next run, untimed (before the barrier)
/// @param run does the work to time and returns once it is complete
template <class Reset, class Run>
double fastest_slowest(const Communicator& comm, int repeats, Reset&& reset, Run&& run) {
  double fastest = std::numeric_limits<double>::infinity();
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    reset();
    fastest = std::min(fastest, comm.max(seconds_after_barrier(comm, run)));
  }
  return fastest;
}

}  // namespace fvmmini
