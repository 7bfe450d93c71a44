#pragma once
// The backend a build of test_formats.cpp runs on: the same test source is linked once with
// reference_backend.cpp and, when the CUDA library is built, once with cuda_backend.cpp.

#include <memory>
#include <span>
#include <string>

#include "registry/format_registry.hpp"

namespace fvmmini::test {

/// A prepared format on the backend, vectors in the prepared numbering.
class BackendMatrix {
 public:
  virtual ~BackendMatrix() = default;
  /// y = A x; y is poisoned with NaN first, so a row the kernel skips shows up.
  virtual void multiply(std::span<const double> x, std::span<double> y) = 0;
  /// y = A x and x . y as the backend's CG sums it (the fused partials where the format has them).
  virtual double multiply_dot(std::span<const double> x, std::span<double> y) = 0;
  /// New values of the same structure, refreshed in place (and uploaded).
  virtual void refresh(const LduMatrix& matrix) = 0;
  virtual const PreparedFormat& prepared() const = 0;
};

struct FormatBackend {
  std::string name;  ///< as in case files: reference, cuda
  /// Why the backend cannot run here ("" when it can).
  std::string (*unavailable)();
  /// Whether the backend implements the format.
  bool (*implements)(const std::string& format);
  /// Put a prepared format on the backend. @throws std::invalid_argument for a format it does not implement
  std::unique_ptr<BackendMatrix> (*upload)(const LduMatrix& matrix, PreparedFormat prepared);
};

/// The backend this test binary was linked with.
const FormatBackend& format_backend();

}  // namespace fvmmini::test
