#include "linalg/solver_settings.hpp"

#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fvmmini {

namespace {

template <class E>
E parse_name(const std::vector<std::string>& names, const std::string& text, const char* what) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<E>(i);
  throw std::invalid_argument(fmt::format("unknown {} '{}' (known: {})", what, text, fmt::join(names, ", ")));
}

}  // namespace

const std::vector<std::string>& krylov_solver_names() {
  static const std::vector<std::string> names{"CG"};
  return names;
}
const std::vector<std::string>& preconditioner_names() {
  static const std::vector<std::string> names{"none", "jacobi"};
  return names;
}
const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names{"reference", "cuda", "auto"};
  return names;
}
const std::string& name(KrylovSolver solver) { return krylov_solver_names().at(static_cast<std::size_t>(solver)); }
const std::string& name(Preconditioner p) { return preconditioner_names().at(static_cast<std::size_t>(p)); }
const std::string& name(Backend backend) { return backend_names().at(static_cast<std::size_t>(backend)); }
KrylovSolver parse_krylov_solver(const std::string& text) {
  return parse_name<KrylovSolver>(krylov_solver_names(), text, "solver");
}
Preconditioner parse_preconditioner(const std::string& text) {
  return parse_name<Preconditioner>(preconditioner_names(), text, "preconditioner");
}
Backend parse_backend(const std::string& text) { return parse_name<Backend>(backend_names(), text, "backend"); }

std::string format_solve_line(const SolverPerformance& p) {
  return fmt::format("{}: Solving for {}, Initial residual = {:.6g}, Final residual = {:.6g}, No Iterations {}",
                     p.solver_name, p.field, p.initial_residual, p.final_residual, p.iterations);
}

}  // namespace fvmmini
