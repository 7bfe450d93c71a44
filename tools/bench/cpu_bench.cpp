// fvmmini-cpu-bench: the reference (CPU) backend's SpMV and CG per format x ordering, in a
// build without CUDA (fvmmini-bench needs the CUDA library). Threads: OMP_NUM_THREADS.

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/timing.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "tools/bench/bench_inputs.hpp"
#include "tools/bench/cg_timing.hpp"
#include "tools/bench/format_options.hpp"
#include "tools/bench/traffic.hpp"

namespace fvmmini::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Options {
  int box = 200;
  std::vector<int> cells;  ///< NX,NY,NZ: a box of unequal sides (overrides box)
  std::string formats = "csr,sell,staircase";
  std::string orderings = "none";
  int repeats = 7;
  int cg_iterations = 20;
  int block = 0;                ///< also time k Jacobi-PCG solves one by one against one block CG of k
  double block_tolerance = 1e-8;
  FormatOptionValues format_options;  ///< parameter key -> comma-separated values
};

/// STREAM triad a = b + s c on 3 x 8n bytes with the bench's threads: GB/s counted as STREAM
/// does (24 bytes per element; the write-allocate read of a is not counted).
double triad_bandwidth(std::size_t n, int repeats) {
  std::vector<double> a(n), b(n), c(n);
  const auto size = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < size; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  std::vector<double> seconds;
  for (int k = 0; k < repeats; ++k) {
    const auto t0 = clock_type::now();
#pragma omp parallel for schedule(static)
    for (std::ptrdiff_t i = 0; i < size; ++i) a[i] = b[i] + 3.0 * c[i];
    seconds.push_back(seconds_since(t0));
  }
  if (a[n / 2] != 7.0) throw std::runtime_error("triad check failed");
  return 24.0 * static_cast<double>(n) / median(seconds) / 1e9;
}

struct BlockTiming {
  double one_by_one_ms = 0.0, together_ms = 0.0;  ///< medians
  std::string iterations;                         ///< each system's
};

/// k Jacobi-PCG solves from zero (right-hand sides b scaled by 1, 1.5, 2, ...), one after another
/// against reference_block_cg on all of them; the medians of `repeats` runs each, alternated.
BlockTiming time_block_solves(const HostOperator& op, int k, const std::vector<double>& b, double tolerance,
                              int repeats) {
  const label n = op.n_rows();
  SolverSettings s;
  s.preconditioner = "diagonal";
  s.tolerance = tolerance;
  s.max_iter = 100000;
  std::vector<double> b_block(static_cast<std::size_t>(n) * k);
  for (label i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) b_block[static_cast<std::size_t>(i) * k + j] = b[i] * (1.0 + 0.5 * j) + 0.01 * j;
  std::vector<double> one, together;
  BlockTiming t;
  CgWorkspace work;
  BlockCgWorkspace block_work;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = clock_type::now();
    std::vector<double> x(n), bj(n);
    for (int j = 0; j < k; ++j) {
      for (label i = 0; i < n; ++i) bj[i] = b_block[static_cast<std::size_t>(i) * k + j];
      std::fill(x.begin(), x.end(), 0.0);
      reference_cg(op, x, bj, s, work);
    }
    one.push_back(seconds_since(t0) * 1e3);
    t0 = clock_type::now();
    std::vector<double> x_block(b_block.size(), 0.0);
    const std::vector<SolverPerformance> perf = reference_block_cg(op, k, x_block, b_block, s, block_work);
    together.push_back(seconds_since(t0) * 1e3);
    t.iterations.clear();
    for (const auto& p : perf) {
      if (!t.iterations.empty()) t.iterations += '/';
      t.iterations += std::to_string(p.iterations);
    }
  }
  t.one_by_one_ms = median(one);
  t.together_ms = median(together);
  return t;
}

int run(const Options& o) {
  auto t0 = clock_type::now();
  const BenchMatrix input =
      o.cells.empty() ? box_laplacian(o.box) : box_laplacian(std::array<label, 3>{o.cells[0], o.cells[1], o.cells[2]});
  const LduMatrix& matrix = input.matrix;
  const label n = matrix.n_rows();
  const double nnz = static_cast<double>(matrix.addressing->nnz());
  std::cout << fmt::format("matrix: {}, {} rows, {:.0f} nonzeros, built in {:.1f} s; {} OpenMP threads\n", input.source,
                           n, nnz, seconds_since(t0), omp_get_max_threads());
  const double triad = triad_bandwidth(std::max<std::size_t>(n, std::size_t{1} << 24), 10);
  std::cout << fmt::format("STREAM triad: {:.1f} GB/s (24 bytes per element)\n", triad);

  // --- random x (never zeros) and b; the face-loop product checks every format first
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> x(n), b(n), y_ref(n);
  for (auto& v : x) v = dist(rng);
  for (auto& v : b) v = dist(rng);
  reference::ldu_spmv(matrix, x, y_ref);
  double y_scale = 0.0;
  for (double v : y_ref) y_scale = std::max(y_scale, std::abs(v));

  const double floor_none = cg_floor_bytes(n, nnz, false), floor_jacobi = cg_floor_bytes(n, nnz, true);
  std::cout << fmt::format("minimal bytes: SpMV {:.0f} MB, CG iteration {:.0f} MB (none), {:.0f} MB (jacobi); "
                           "at the triad rate {:.1f} / {:.1f} ms\n\n",
                           spmv_min_bytes(n, nnz) / 1e6, floor_none / 1e6, floor_jacobi / 1e6,
                           floor_none / triad / 1e6, floor_jacobi / triad / 1e6);
  std::cout << "(ms: median / best of the repeats; GB/s: the minimal SpMV bytes over the median)\n";
  std::cout << fmt::format("{:<30} {:<10} {:>8} {:>14} {:>7} {:>14} {:>14}\n", "format", "ordering", "MB",
                           "SpMV ms", "GB/s", "CG ms/it", "PCG ms/it");
  for (const auto& ordering : split(o.orderings))
    for (const auto& format : split(o.formats))
      for (const FormatParameters& parameters : format_variants(find_format(format), o.format_options)) {
      const std::string variant = format_parameter_text(find_format(format), parameters, true);
      const std::string shown = variant.empty() ? format : format + " (" + variant + ")";
      try {
        auto op = make_reference_operator(matrix, prepare_format(matrix, format, ordering, parameters));
        const Permutation& perm = op->prepared().permutation;
        std::vector<double> x_op(n), b_op(n), y_ref_op(n), y(n);
        permute_to_new(perm, x, x_op);
        permute_to_new(perm, b, b_op);
        permute_to_new(perm, y_ref, y_ref_op);
        // --- check against the face loop, then time
        op->multiply(x_op, y);
        for (label i = 0; i < n; ++i)
          if (!(std::abs(y[i] - y_ref_op[i]) <= 1e-12 * y_scale))
            throw std::runtime_error(fmt::format("SpMV differs from the face loop at row {}", i));
        std::vector<double> ms;
        for (int r = 0; r < o.repeats; ++r) {
          t0 = clock_type::now();
          op->multiply(x_op, y);
          ms.push_back(seconds_since(t0) * 1e3);
        }
        const Timing spmv = timing_of(ms);
        const Timing cg = cg_ms_per_iteration(*op, b_op, "none", o.cg_iterations, o.repeats);
        const Timing pcg = cg_ms_per_iteration(*op, b_op, "diagonal", o.cg_iterations, o.repeats);
        // --- more digits below a millisecond (small matrices)
        auto both = [](const Timing& t) {
          const int digits = t.median_ms < 1.0 ? 4 : 2;
          return fmt::format("{:.{}f} / {:.{}f}", t.median_ms, digits, t.best_ms, digits);
        };
        std::cout << fmt::format("{:<30} {:<10} {:>8.1f} {:>14} {:>7.1f} {:>14} {:>14}\n", shown, ordering,
                                 op->prepared().format.figures().footprint_bytes / 1e6, both(spmv),
                                 spmv_min_bytes(n, nnz) / spmv.median_ms / 1e6, both(cg), both(pcg))
                  << std::flush;
        if (o.block > 1 && op->has_multiply_block()) {
          const BlockTiming t = time_block_solves(*op, o.block, b_op, o.block_tolerance, o.repeats);
          std::cout << fmt::format("  {} Jacobi-PCG solves to {:g}: one by one {:.1f} ms, together {:.1f} ms "
                                   "(ratio {:.3f}; iterations {})\n",
                                   o.block, o.block_tolerance, t.one_by_one_ms, t.together_ms,
                                   t.together_ms / t.one_by_one_ms, t.iterations)
                    << std::flush;
        }
      } catch (const std::exception& e) {
        std::cout << fmt::format("{:<30} {:<10} not completed: {}\n", shown, ordering, e.what()) << std::flush;
      }
    }
  return 0;
}

}  // namespace
}  // namespace fvmmini::bench

int main(int argc, char** argv) {
  fvmmini::bench::Options o;
  CLI::App app{"fvmmini-cpu-bench: reference-backend SpMV and CG per format x ordering on a box Laplacian"};
  app.add_option("--box", o.box, "FVM Laplacian of an N^3 box")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--cells", o.cells, "FVM Laplacian of an NX x NY x NZ box instead (e.g. 128,128,1: 2-D)")
      ->delimiter(',')
      ->expected(3)
      ->check(CLI::PositiveNumber);
  app.add_option("--formats", o.formats, "comma-separated formats with a reference kernel")->capture_default_str();
  app.add_option("--orderings", o.orderings, "comma-separated orderings")->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs (median reported)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--cg-iterations", o.cg_iterations, "CG iterations timed per run")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--block", o.block,
                 "also time this many Jacobi-PCG solves one by one against one block CG of all of them (formats "
                 "with a multi-vector SpMV: csr, ell, sell, staircase, dia)")
      ->check(CLI::Range(2, 3));
  app.add_option("--block-tolerance", o.block_tolerance, "the tolerance of those solves")->capture_default_str();
  fvmmini::bench::add_format_options(app, o.format_options);
  CLI11_PARSE(app, argc, argv);
  try {
    return fvmmini::bench::run(o);
  } catch (const std::exception& e) {
    std::cerr << "fvmmini-cpu-bench: " << e.what() << '\n';
    return 1;
  }
}
