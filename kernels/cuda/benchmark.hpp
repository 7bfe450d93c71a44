#pragma once
// Device timings for the format benchmark (plain C++): CUDA events around each run, warm-up
// first, the median of many.

#include <cstddef>
#include <span>

#include "kernels/cuda/device_matrix.hpp"
#include "linalg/preconditioners/triangular_factor.hpp"
#include "linalg/solver_settings.hpp"

namespace fvmmini::cuda {

struct TimingStats {
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  int repeats = 0;
};

/// Device-to-device copy of `bytes` (random data): bandwidth counting bytes read plus written,
/// in bytes per second, from the median time.
double measure_copy_bandwidth(std::size_t bytes, int warmup, int repeats, TimingStats* stats = nullptr);

/// y = A x on the device: x uploaded once, warmup runs, then repeats each timed with events.
TimingStats time_spmv(DeviceMatrix& a, std::span<const double> x, int warmup, int repeats);

/// The two triangular solves of a factor (forward, then backward) on the device, levels or
/// cusparseSpSV: r uploaded once, warmup runs, then repeats each timed with events.
/// @param[out] analysis_seconds the device set-up: upload (levels) or upload and analysis (cusparse)
TimingStats time_triangular_solve(const TriangularFactor& factor, TriangularSolve solve, std::span<const double> r,
                                  int warmup, int repeats, double* analysis_seconds);

}  // namespace fvmmini::cuda
