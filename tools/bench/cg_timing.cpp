#include "tools/bench/cg_timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "solvers/krylov/reference_cg.hpp"

namespace fvmmini::bench {

Timing timing_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms.front()};
}

Timing cg_ms_per_iteration(const HostOperator& op, std::span<const double> b, const std::string& preconditioner, int k,
                           int repeats) {
  const label n = op.n_rows();
  SolverSettings s;
  s.preconditioner = preconditioner;
  s.tolerance = 0.0;
  CgWorkspace work;
  std::vector<double> x(n);
  auto timed = [&](int iterations) {
    s.max_iter = iterations;
    std::fill(x.begin(), x.end(), 0.0);
    const auto t0 = std::chrono::steady_clock::now();
    const SolverPerformance perf = reference_cg(op, x, b, s, work);
    if (perf.iterations != iterations) throw std::runtime_error("CG stopped early");
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  constexpr int few = 2;
  timed(few);
  std::vector<double> per_iteration;
  for (int r = 0; r < repeats; ++r) per_iteration.push_back((timed(few + k) - timed(few)) / k);
  return timing_of(per_iteration);
}

}  // namespace fvmmini::bench
