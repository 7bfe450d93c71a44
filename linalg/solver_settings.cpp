#include "linalg/solver_settings.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini {

const std::vector<std::string>& staircase_launch_names() {
  static const std::vector<std::string> names{"groups", "interleaved"};
  return names;
}

std::string staircase_launch_name(StaircaseLaunch launch) {
  return staircase_launch_names().at(static_cast<std::size_t>(launch));
}

StaircaseLaunch parse_staircase_launch(const std::string& name) {
  const auto& names = staircase_launch_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<StaircaseLaunch>(i);
  throw std::invalid_argument(
      fmt::format("unknown staircase launch '{}' (known: {})", name, fmt::join(names, ", ")));
}

std::string format_solve_line(const SolverPerformance& p) {
  return fmt::format("{}: Solving for {}, Initial residual = {:.6g}, Final residual = {:.6g}, No Iterations {}",
                     p.solver_name, p.field, p.initial_residual, p.final_residual, p.iterations);
}

}  // namespace fvmmini
