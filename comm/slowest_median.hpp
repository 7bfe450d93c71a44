#pragma once
// How a run across ranks times a part of its work (the solvers' IterationParts): the median of
// `repeats` runs, each after a barrier, the slowest rank's (the one the others wait for).

#include <algorithm>
#include <chrono>
#include <vector>

#include "comm/communicator.hpp"

namespace fvmmini {

/// @param run does the work to time and returns once it is complete
template <class Run>
double slowest_median(const Communicator& comm, int repeats, Run&& run) {
  std::vector<double> times;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    comm.barrier();
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return comm.max(times[times.size() / 2]);
}

}  // namespace fvmmini
