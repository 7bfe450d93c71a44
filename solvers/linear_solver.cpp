#include "solvers/linear_solver.hpp"

#include <algorithm>
#include <stdexcept>

#include "comm/slowest_median.hpp"

namespace fvmmini {

void LinearSolver::update_distributed(const DistributedLdu&) {
  throw std::logic_error("LinearSolver: a solver of one whole matrix has no processor interfaces");
}

SolveTiming LinearSolver::time_solves(std::span<const double> b, int solves, const Communicator& comm) {
  SolveTiming t;
  std::vector<double> x(b.size());
  t.seconds = fastest_slowest(
      comm, solves, [&] { std::fill(x.begin(), x.end(), 0.0); }, [&] { t.performance = solve(x, b, "p"); });
  return t;
}

IterationParts LinearSolver::time_iteration_parts(int) {
  throw std::logic_error("LinearSolver: a solver of one whole matrix has no iteration across ranks to split");
}

std::vector<SolverPerformance> LinearSolver::solve_block(std::span<const std::span<double>> x,
                                                       std::span<const std::span<const double>> b,
                                                       std::span<const std::string> fields) {
  if (b.size() != x.size() || fields.size() != x.size())
    throw std::invalid_argument("solve_block: " + std::to_string(x.size()) + " solutions, " +
                                std::to_string(b.size()) + " right-hand sides and " + std::to_string(fields.size()) +
                                " field names");
  std::vector<SolverPerformance> performance;
  for (std::size_t j = 0; j < x.size(); ++j) performance.push_back(solve(x[j], b[j], fields[j]));
  return performance;
}

}  // namespace fvmmini
