#pragma once
// The buffers the reference backend's Krylov methods take their work vectors from.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

namespace fvmmini {

/// Buffers of doubles, each kept at the largest size asked for, so that no solve allocates once
/// the largest has run. The solvers of one mesh that never solve at the same time may share one
/// (the flow's U and p: make_linear_solver's same_pattern), their work vectors then one memory.
struct WorkStore {
  std::array<std::vector<double>, 9> buffers;  ///< CG takes six, PBiCGStab nine
  /// The first n values of buffer i, grown (zero-filled) where it is shorter: views taken earlier
  /// from a buffer that grows are stale, so a method takes its views anew at each solve.
  std::span<double> take(int i, std::size_t n) {
    std::vector<double>& buffer = buffers.at(static_cast<std::size_t>(i));
    if (buffer.size() < n) buffer.resize(n);
    return std::span<double>(buffer).first(n);
  }
};

}  // namespace fvmmini
