#pragma once
// Vector reductions of the CUDA backend from plain C++, host vectors in and a number out
// (for tests and checks; solvers keep their vectors on the device). Deterministic: the same
// input gives bit-identical results.

#include <span>

namespace fvmmini::cuda {

/// @return a . b computed on the device
double dot(std::span<const double> a, std::span<const double> b);

}  // namespace fvmmini::cuda
