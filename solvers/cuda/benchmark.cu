#include "solvers/cuda/benchmark.hpp"

#include <algorithm>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "solvers/preconditioners/triangular/cuda/level_analysis.cuh"
#include "solvers/preconditioners/triangular/cuda/triangular_preconditioner.hpp"

namespace fvmmini::cuda {

namespace {

/// Median, least and most of some timings (ms).
TimingStats stats_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  TimingStats t;
  t.repeats = static_cast<int>(ms.size());
  if (!ms.empty()) {
    const std::size_t k = ms.size();
    t.min_ms = ms.front();
    t.max_ms = ms.back();
    t.median_ms = k % 2 ? ms[k / 2] : 0.5 * (ms[k / 2 - 1] + ms[k / 2]);
  }
  return t;
}

/// Runs `work` on the stream warmup times, then repeats times between events.
template <class Work>
TimingStats time_on_stream(Stream& stream, int warmup, int repeats, Work&& work) {
  for (int k = 0; k < warmup; ++k) work(stream.get());
  std::vector<Event> starts(repeats), ends(repeats);
  for (int k = 0; k < repeats; ++k) {
    starts[k].record(stream.get());
    work(stream.get());
    ends[k].record(stream.get());
  }
  stream.synchronize();
  std::vector<double> ms(repeats);
  for (int k = 0; k < repeats; ++k) ms[k] = ends[k].elapsed_since(starts[k]);
  return stats_of(std::move(ms));
}

}  // namespace

double measure_copy_bandwidth(std::size_t bytes, int warmup, int repeats, TimingStats* stats) {
  const std::size_t n = std::max<std::size_t>(1, bytes / sizeof(double));
  std::vector<double> host(n);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (auto& v : host) v = dist(rng);
  DeviceBuffer<double> src{std::span<const double>(host)};
  DeviceBuffer<double> dst(n);
  Stream stream;
  const TimingStats t = time_on_stream(stream, warmup, std::max(1, repeats), [&](cudaStream_t s) {
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice, s));
  });
  if (stats) *stats = t;
  return 2.0 * static_cast<double>(src.bytes()) / (t.median_ms * 1e-3);
}

TimingStats time_spmv(DeviceMatrix& a, std::span<const double> x, int warmup, int repeats, bool l2_window,
                      bool mixed, bool with_dot) {
  if (mixed && !a.mixed()) throw CudaError("time_spmv: the matrix has no float32 twin");
  const int partial_count = mixed ? a.mixed()->dot_partial_count() : a.spmv().dot_partial_count();
  if (with_dot && partial_count == 0) throw CudaError("time_spmv: the format does not fuse the dot product");
  DeviceBuffer<double> dx(x), dy(x.size()), partials(static_cast<std::size_t>(std::max(1, partial_count)));
  Stream stream;
  const L2WindowScope window(stream.get(), l2_window ? l2_window_over(dx.data(), dx.bytes()) : L2Window{});
  return time_on_stream(stream, warmup, std::max(1, repeats), [&](cudaStream_t s) {
    if (mixed && with_dot)
      a.mixed()->apply_with_dot(dx.data(), dy.data(), partials.data(), s);
    else if (mixed)
      a.mixed()->apply(dx.data(), dy.data(), s);
    else if (with_dot)
      a.spmv().apply_with_dot(dx.data(), dy.data(), partials.data(), s);
    else
      a.spmv().apply(dx.data(), dy.data(), s);
  });
}

TimingStats time_spmv_block(DeviceMatrix& a, int k, std::span<const double> x, int warmup, int repeats) {
  if (k < 1 || k > a.spmv().max_block())
    throw CudaError("time_spmv_block: " + a.format_name() + " takes 1 to " + std::to_string(a.spmv().max_block()) +
                    " vectors, not " + std::to_string(k));
  DeviceBuffer<double> dx(x), dy(x.size());
  Stream stream;
  return time_on_stream(stream, warmup, std::max(1, repeats),
                        [&](cudaStream_t s) { a.spmv().apply_block(k, dx.data(), dy.data(), nullptr, s); });
}

TimingStats time_triangular_solve(const LduMatrix& matrix, const Permutation& op, TriangularSolve solve,
                                  LevelLaunch launch, std::span<const double> r, int warmup, int repeats,
                                  double* analysis_seconds, double* layout_seconds, int* levels,
                                  long long* hops) {
  if (hops && solve == TriangularSolve::levels) {  // the schedule DeviceTriangularPreconditioner analyses
    const FactorPattern pattern = factor_pattern(*matrix.addressing, op);
    *hops = level_pass_hops(pattern, schedule_order(pattern, TriangleSplit::index, nullptr));
  }
  // --- a cold set-up, then warm_setups whose medians are reported; the last one is solved with
  constexpr int warm_setups = 3;
  std::unique_ptr<DeviceTriangularPreconditioner> set_up;
  std::vector<double> analyses, layouts;  // ms
  for (int k = 0; k <= warm_setups; ++k) {
    set_up.reset();
    set_up = std::make_unique<DeviceTriangularPreconditioner>(matrix, op, incomplete_cholesky, solve, 1, nullptr,
                                                              launch);
    if (k == 0) continue;
    analyses.push_back(1e3 * set_up->analysis_seconds());
    layouts.push_back(1e3 * set_up->layout_seconds());
  }
  if (analysis_seconds) *analysis_seconds = 1e-3 * stats_of(analyses).median_ms;
  if (layout_seconds) *layout_seconds = 1e-3 * stats_of(layouts).median_ms;
  DeviceTriangularPreconditioner& m = *set_up;
  if (levels) *levels = m.info(0).levels;
  DeviceBuffer<double> dr(r), dz(r.size());
  Stream stream;
  // captured once and replayed, as the device CG applies it (a graph per iteration)
  GraphExec graph;
  const bool captured = graph.capture(stream.get(), [&] { m.apply(dr.data(), dz.data(), nullptr, stream.get()); });
  return time_on_stream(stream, warmup, std::max(1, repeats), [&](cudaStream_t s) {
    if (captured) graph.launch(s);
    else m.apply(dr.data(), dz.data(), nullptr, s);
  });
}

}  // namespace fvmmini::cuda
