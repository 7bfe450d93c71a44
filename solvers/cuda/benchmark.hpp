#pragma once
// Device timings for the format benchmark (plain C++): CUDA events around each run, warm-up
// first, the median of many.

#include <cstddef>
#include <span>

#include "kernels/cuda/device_matrix.hpp"
#include "linalg/solver_settings.hpp"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

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

/// y = A x on the device: x uploaded once, warmup runs, then repeats each timed with events;
/// with `l2_window`, a persisting-L2 window over x throughout (l2_window.hpp); with `mixed`, through
/// the matrix's float32 twin; with `with_dot`, the SpMV that also sums x . y (the CG's).
TimingStats time_spmv(DeviceMatrix& a, std::span<const double> x, int warmup, int repeats, bool l2_window = false,
                      bool mixed = false, bool with_dot = false);

/// Y = A X for k vectors interleaved by row (x: k n_rows values), the matrix read once
/// (DeviceMatrix::multiply_block); timed as time_spmv.
TimingStats time_spmv_block(DeviceMatrix& a, int k, std::span<const double> x, int warmup, int repeats);

/// DIC's two triangular solves (forward, then backward) on the device, set up there for `matrix`
/// in the numbering `op`: fvmmini's levels (launched as `launch` says) or cusparseSpSV. Set up four
/// times: the first loads the kernels, the other three are warm and give the median analysis and
/// layout; r uploaded once, the application captured
/// in a CUDA graph as the device CG runs it, warm-up runs, then repeats each timed with events.
/// @param[out] analysis_seconds the analysis alone, its input and workspace on the device: the
///             level analysis, or both cusparseSpSV analyses (median of three)
/// @param[out] layout_seconds the levels' triangles laid out after it (zero for cusparseSpSV; median)
/// @param[out] levels the schedule's levels
/// @param[out] hops fvmmini's levels only: the level pass's modelled critical path (level_pass_hops)
TimingStats time_triangular_solve(const LduMatrix& matrix, const Permutation& op, TriangularSolve solve,
                                  LevelLaunch launch, std::span<const double> r, int warmup, int repeats,
                                  double* analysis_seconds, double* layout_seconds, int* levels,
                                  long long* hops = nullptr);

}  // namespace fvmmini::cuda
