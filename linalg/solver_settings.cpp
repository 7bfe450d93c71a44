#include "linalg/solver_settings.hpp"

#include <fmt/format.h>

namespace fvmmini {

std::string format_solve_line(const SolverPerformance& p) {
  return fmt::format("{}: Solving for {}, Initial residual = {:.6g}, Final residual = {:.6g}, No Iterations {}",
                     p.solver_name, p.field, p.initial_residual, p.final_residual, p.iterations);
}

}  // namespace fvmmini
