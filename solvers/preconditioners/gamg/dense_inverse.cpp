#include "solvers/preconditioners/gamg/dense_inverse.hpp"

#include <cmath>

#include <fmt/format.h>

#include "linalg/solver_settings.hpp"

namespace fvmmini {

std::vector<double> dense_spd_inverse(const LduMatrix& m) {
  const label n = m.n_rows();
  if (n > max_direct_rows)
    throw SolverError(fmt::format("GAMG: the coarsest level has {} cells, more than the {} a direct solve takes "
                                  "(the matrix has too few couplings to agglomerate further)",
                                  n, max_direct_rows));
  const auto at = [n](label i, label j) { return static_cast<std::size_t>(i) * n + j; };
  std::vector<double> l(static_cast<std::size_t>(n) * n, 0.0);
  for (label i = 0; i < n; ++i) l[at(i, i)] = m.diag[i];
  for (label f = 0; f < m.addressing->n_faces(); ++f) l[at(m.upper_addr()[f], m.lower_addr()[f])] = m.upper[f];
  // --- A = L L^T in the lower triangle
  for (label j = 0; j < n; ++j) {
    double d = l[at(j, j)];
    for (label k = 0; k < j; ++k) d -= l[at(j, k)] * l[at(j, k)];
    if (!(d > 0.0) || !std::isfinite(d))
      throw SolverError(fmt::format("GAMG: the coarsest level's matrix ({} cells) is not positive definite "
                                    "(pivot {:.3g} at coarse cell {})",
                                    n, d, j));
    l[at(j, j)] = std::sqrt(d);
    for (label i = j + 1; i < n; ++i) {
      double s = l[at(i, j)];
      for (label k = 0; k < j; ++k) s -= l[at(i, k)] * l[at(j, k)];
      l[at(i, j)] = s / l[at(j, j)];
    }
  }
  // --- column c of A^-1: L y = e_c, then L^T x = y
  std::vector<double> inverse(static_cast<std::size_t>(n) * n), y(n);
  for (label c = 0; c < n; ++c) {
    for (label i = 0; i < n; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (label k = c; k < i; ++k) s -= l[at(i, k)] * y[k];
      y[i] = i < c ? 0.0 : s / l[at(i, i)];
    }
    for (label i = n - 1; i >= 0; --i) {
      double s = y[i];
      for (label k = i + 1; k < n; ++k) s -= l[at(k, i)] * inverse[at(k, c)];
      inverse[at(i, c)] = s / l[at(i, i)];
    }
  }
  return inverse;
}

}  // namespace fvmmini
