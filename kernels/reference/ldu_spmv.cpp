#include "kernels/reference/ldu_spmv.hpp"

namespace fvmmini::reference {

void ldu_spmv(const LduMatrix& a, std::span<const double> x, std::span<double> y) {
  const auto& lower = a.lower_addr();
  const auto& upper = a.upper_addr();
  const auto& lower_coeffs = a.lower_coeffs();
  // --- y = D x
  for (label i = 0; i < a.n_rows(); ++i) y[i] = a.diag[i] * x[i];
  // --- y += U x + L x, one face at a time (sequential: faces scatter to two rows)
  for (label f = 0; f < static_cast<label>(lower.size()); ++f) {
    y[lower[f]] += a.upper[f] * x[upper[f]];
    y[upper[f]] += lower_coeffs[f] * x[lower[f]];
  }
}

}  // namespace fvmmini::reference
