#pragma once
// A matrix stored in some format on the reference (CPU) backend, in its own row
// ordering. The reference CG sees only this.

#include <cstdint>
#include <span>
#include <string>

#include "linalg/ldu_matrix.hpp"

namespace fvmmini {

class HostOperator {
 public:
  virtual ~HostOperator() = default;

  virtual label n_rows() const = 0;
  /// y = A x, both in the operator's ordering. @param[out] y overwritten
  virtual void multiply(std::span<const double> x, std::span<double> y) const = 0;
  /// y = A x and x . y (CG's p'Ap). Formats whose kernel can sum x . y in the same pass override
  /// this to save CG one read of both vectors; the default multiplies, then reads them again.
  /// @param[out] y overwritten. @return x . y, deterministic for a given thread count
  virtual double multiply_dot(std::span<const double> x, std::span<double> y) const;
  /// The diagonal in the operator's ordering (for Jacobi).
  virtual std::span<const double> diagonal() const = 0;
  /// New coefficients on the same addressing (LDU in mesh order), refreshed through the slot maps.
  virtual void refresh_values(const LduMatrix& matrix) = 0;
  /// The format's name as in case files ("csr", "staircase", ...).
  virtual std::string format_name() const = 0;
};

}  // namespace fvmmini
