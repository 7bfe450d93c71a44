#include "tools/bench/preconditioner_method.hpp"

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "solvers/preconditioners/gamg/dense_inverse.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tools/bench/split.hpp"

namespace fvmmini::bench {

namespace {

/// The number after `prefix` in `option` ("merge3" -> 3), within [low, high]; whole: an integer.
double number_after(const std::string& method, const std::string& option, std::size_t prefix, double low, double high,
                    bool whole) {
  const std::string digits = option.substr(prefix);
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(digits, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (digits.empty() || used != digits.size() || !(value >= low && value <= high) ||
      (whole && value != std::floor(value)))
    throw std::invalid_argument(fmt::format("preconditioner '{}': '{}' wants {} from {:g} to {:g} after '{}'", method,
                                            option, whole ? "a whole number" : "a number", low, high,
                                            option.substr(0, prefix)));
  return value;
}

}  // namespace

void set_preconditioner(const std::string& name, SolverSettings& s) {
  if (name == "CG") {
    s.preconditioner = "none";
  } else if (name == "DIC-cusparse") {
    s.preconditioner = "DIC";
    s.triangular_solve = TriangularSolve::cusparse;
  } else if (name.rfind("GAMG/", 0) == 0) {
    s.preconditioner = "GAMG";
    const std::vector<std::string> options = split(name, '/');
    for (std::size_t k = 1; k < options.size(); ++k) {
      const std::string& option = options[k];
      const auto whole = [&](std::size_t prefix, int low, int high) {
        return static_cast<int>(number_after(name, option, prefix, low, high, true));
      };
      if (option.rfind("merge", 0) == 0) {
        s.gamg.merge_levels = whole(5, 1, 4);
      } else if (option.rfind("sweeps", 0) == 0) {
        s.gamg.n_pre_sweeps = s.gamg.n_post_sweeps = whole(6, 0, 20);
      } else if (option.rfind("scale", 0) == 0) {
        s.gamg.correction_scale = number_after(name, option, 5, 0.01, 1.99, false);
      } else if (option.rfind("coarsest", 0) == 0) {
        s.gamg.n_cells_in_coarsest_level = whole(8, 1, static_cast<int>(max_direct_rows / 4));
      } else if (option.size() > 1 && option[0] == 'v') {
        s.gamg.n_vcycles = whole(1, 1, 20);
      } else if (option == "jacobi" || option == "mcsgs") {
        s.gamg.smoother = parse_smoother(option);
      } else if (option == "algebraicPair" || option == "parallelPair") {
        s.gamg.agglomerator = parse_agglomerator(option);
      } else {
        throw std::invalid_argument("preconditioner '" + name + "': unknown GAMG option '" + option +
                                    "' (jacobi, mcsgs, algebraicPair, parallelPair, mergeN, sweepsN, vN, coarsestN or "
                                    "scaleX)");
      }
    }
  } else if (name.rfind("mcsgs", 0) == 0 && name.size() > 5) {
    s.preconditioner = "mcsgs";
    s.sweeps = static_cast<int>(number_after(name, name, 5, 1, 100, true));
  } else {
    s.preconditioner = parse_preconditioner(name);
  }
}

std::string preconditioner_method_error(const std::string& name) {
  SolverSettings probe;
  try {
    set_preconditioner(name, probe);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace fvmmini::bench
