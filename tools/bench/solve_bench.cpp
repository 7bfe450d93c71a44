// fvmmini-solve-bench: time to solution of the pressure solve, by preconditioner and ordering.
// Each method is set up once (timed), then solves A x = b from x = 0 to each relative residual
// (OpenFOAM's normalised residual over its initial value) `repeats` times; the median solve is
// reported with its iterations, time per iteration and cost per iteration against plain CG. On
// cuda the timed solves take device vectors, as the flow step's do; the median of as many solves
// of host vectors (the copies and the host's reordering included) is reported beside them. With
// --triangular it also times the two triangular solves of DIC alone, fvmmini's levels against
// cusparseSpSV on the same factor and ordering: analysis (both on the device) and solve.

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "comm/communicator.hpp"
#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/timing.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/benchmark.hpp"
#include "solvers/make_linear_solver.hpp"
#include "tools/bench/bench_inputs.hpp"
#include "tools/bench/format_options.hpp"
#include "tools/bench/preconditioner_method.hpp"

namespace fvmmini::bench {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Options {
  int box = 0, poly_like = 0, cavity = 0;
  double poly_shift = 1e-2;
  std::string backend = "auto";
  std::string format = "auto";
  std::string methods = "default";
  std::string tolerances = "1e-6,1e-8";
  int repeats = 3;
  int max_iter = 20000;
  bool triangular = false;
  std::string triangular_orderings = "none,cm,colour";
  std::string triangular_solves = "per-level,sync-free,cusparse";
  std::uint64_t seed = 1;
  std::string json_path, csv_path;
};

/// A method: a preconditioner (set_preconditioner's names), then ":ordering" (default none).
struct Method {
  std::string label;
  SolverSettings settings;
};

Method parse_method(const std::string& text, Backend backend, const std::string& format) {
  const auto parts = split(text, ':');
  if (parts.empty() || parts.size() > 2) throw std::invalid_argument("method '" + text + "': name[:ordering]");
  Method m{text, {}};
  SolverSettings& s = m.settings;
  s.backend = backend;
  s.format = format;
  s.ordering = parts.size() == 2 ? parts[1] : "none";
  set_preconditioner(parts[0], s);
  return m;
}

std::string default_methods(Backend backend) {
  std::string m = "CG,diagonal,DIC:none,DIC:cm,DIC:colour,mcsgs:none,mcsgs:colour,mcsgs2:colour,GAMG,GAMG/mcsgs";
  // GAMG's other agglomerator beside the backend's own (cuda: parallelPair, built on the device)
  m += backend == Backend::cuda ? ",GAMG/algebraicPair" : ",GAMG/parallelPair";
  if (backend == Backend::cuda) m += ",DIC-cusparse:none,DIC-cusparse:cm,DIC-cusparse:colour";
  return m;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// What --triangular times: orderings, and solves by name (fvmmini's levels in either launch, or
// cusparseSpSV).
struct TriangularSolveChoice {
  std::string label;
  TriangularSolve solve;
  cuda::LevelLaunch launch;
};

struct TriangularPlan {
  std::vector<std::string> orderings;
  std::vector<TriangularSolveChoice> solves;
};

TriangularPlan triangular_plan(const Options& o) {
  const std::vector<TriangularSolveChoice> known{
      {"per-level", TriangularSolve::levels, cuda::LevelLaunch::per_level},
      {"sync-free", TriangularSolve::levels, cuda::LevelLaunch::sync_free},
      {"cusparse", TriangularSolve::cusparse, cuda::LevelLaunch::automatic}};
  TriangularPlan plan;
  for (const std::string& ordering : split(o.triangular_orderings)) {
    if (std::find(ordering_names().begin(), ordering_names().end(), ordering) == ordering_names().end())
      throw std::invalid_argument(fmt::format("--triangular-orderings: unknown ordering '{}' (known: {})", ordering,
                                              fmt::join(ordering_names(), ", ")));
    plan.orderings.push_back(ordering);
  }
  for (const std::string& label : split(o.triangular_solves)) {
    const auto it = std::find_if(known.begin(), known.end(), [&](const auto& k) { return k.label == label; });
    if (it == known.end()) {
      std::vector<std::string> names;
      for (const auto& k : known) names.push_back(k.label);
      throw std::invalid_argument(
          fmt::format("--triangular-solves: unknown solve '{}' (known: {})", label, fmt::join(names, ", ")));
    }
    plan.solves.push_back(*it);
  }
  if (plan.orderings.empty()) throw std::invalid_argument("--triangular-orderings: no ordering given");
  if (plan.solves.empty()) throw std::invalid_argument("--triangular-solves: no solve given");
  return plan;
}

// The triangular solves of DIC alone, by ordering: fvmmini's levels (a launch per level, and
// sync-free) and cusparseSpSV, each with its analysis on the device (median of three warm set-ups)
// and its solve.
json triangular_rows(const LduMatrix& a, const TriangularPlan& plan, int repeats, std::uint64_t seed) {
  json rows = json::array();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> r(a.n_rows());
  for (auto& e : r) e = u(rng);
  for (const std::string& ordering : plan.orderings) {
    const Permutation op = make_ordering(ordering, *a.addressing, seed);
    long long hops = 0;  // the level pass's modelled critical path, the same for both launches
    for (const auto& [label, solve, launch] : plan.solves) {
      double analysis = 0.0, layout = 0.0;
      int levels = 0;
      const cuda::TimingStats t = cuda::time_triangular_solve(a, op, solve, launch, r, 3, repeats, &analysis, &layout,
                                                              &levels, hops == 0 ? &hops : nullptr);
      const bool chosen = solve == TriangularSolve::levels && launch == cuda::automatic_level_launch(a.n_rows(), levels);
      json row = {{"ordering", ordering}, {"solve", name(solve)}, {"launch", label}, {"automatic", chosen},
                  {"levels", levels}, {"analysis_ms", 1e3 * analysis}, {"layout_ms", 1e3 * layout}, {"solve_ms", t.median_ms},
                  {"solve_min_ms", t.min_ms}, {"solve_max_ms", t.max_ms}};
      std::string hop_note;
      if (solve == TriangularSolve::levels && hops > 0) {
        const double us_per_hop = 1e6 * analysis / static_cast<double>(hops);
        row["analysis_hops"] = hops;
        row["analysis_us_per_hop"] = us_per_hop;
        hop_note = fmt::format(" ({} hops, {:.2f} us a hop)", hops, us_per_hop);
      }
      rows.push_back(std::move(row));
      std::cout << fmt::format("  triangular {:7s} {:9s} levels {:6d}: analysis {:8.3f} ms{}, layout {:7.3f} ms, "
                               "forward+backward {:8.3f} ms (min {:.3f}, max {:.3f}){}\n",
                               ordering, label, levels, 1e3 * analysis, hop_note, 1e3 * layout, t.median_ms, t.min_ms,
                               t.max_ms, chosen ? "  <- automatic" : "")
                << std::flush;
    }
  }
  return rows;
}

int run(const Options& o) {
  const TriangularPlan triangular = triangular_plan(o);  // a misspelt name fails before any solve
  const BenchMatrix input = o.box > 0         ? box_laplacian(o.box)
                            : o.poly_like > 0 ? polyhedral_like(o.poly_like, o.poly_shift, o.seed)
                                              : cavity_pressure(o.cavity);
  const LduMatrix& a = input.matrix;
  const label n = a.n_rows();
  SolverSettings probe;
  probe.backend = parse_backend(o.backend);
  const SolverSettings resolved = resolve_solver_settings(probe);
  const Backend backend = resolved.backend;
  if (o.triangular && backend != Backend::cuda) throw std::invalid_argument("--triangular needs the cuda backend");
  const std::string format = o.format == "auto" ? auto_format(name(backend)) : o.format;

  // --- b = A x_true for a random x_true (a consistent system, also for the pinned cavity)
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x_true(n), b(n);
  for (auto& e : x_true) e = u(rng);
  reference::ldu_spmv(a, x_true, b);

  json report;
  report["matrix"] = {{"source", input.source}, {"values", input.values}, {"rows", n}, {"nnz", a.addressing->nnz()}};
  report["backend"] = name(backend);
  report["format"] = format;
  report["device"] = backend == Backend::cuda ? cuda::describe(cuda::device_info()) : "CPU (reference backend)";
  const char* env_revision = std::getenv("FVMMINI_GIT_REVISION");  // as fvmmini-bench: set at run time, it wins
  report["revision"] = env_revision && *env_revision ? env_revision : FVMMINI_GIT_REVISION;
  report["repeats"] = o.repeats;
  std::cout << fmt::format("fvmmini-solve-bench: {} ({} rows, {} nonzeros), backend {} on {}, format {}\n",
                           input.source, n, a.addressing->nnz(), name(backend), report["device"].get<std::string>(),
                           format);

  const std::vector<std::string> method_names =
      split(o.methods == "default" ? default_methods(backend) : o.methods, ',');
  std::vector<double> tolerances;
  for (const auto& t : split(o.tolerances, ',')) tolerances.push_back(std::stod(t));
  json rows = json::array();
  std::map<double, double> cg_ms_per_iteration;  // by tolerance, for the cost relative to CG
  for (const auto& text : method_names) {
    Method m = parse_method(text, backend, format);
    json base = {{"method", m.label}, {"preconditioner", m.settings.preconditioner},
                 {"ordering", m.settings.ordering}};
    try {
      for (const double tol : tolerances) {
        // --- the stopping rule belongs to the settings: a solver (and its set-up) per tolerance
        SolverSettings s = m.settings;
        s.tolerance = 0.0;
        s.rel_tol = tol;
        s.max_iter = o.max_iter;
        const auto start = Clock::now();
        auto solver = make_linear_solver(a, s);
        const double setup = seconds_since(start);
        // --- a refresh, as a new time step makes it: new values on the same addressing
        const auto refresh_start = Clock::now();
        solver->update_coefficients(a);
        const double refresh = seconds_since(refresh_start);
        const PreconditionerInfo info = solver->preconditioner_info();
        json row = base;
        row["tolerance"] = tol;
        row["setup_ms"] = 1e3 * setup;
        row["preconditioner_setup_ms"] = 1e3 * info.setup_seconds;
        for (const auto& [part, seconds] : info.setup_parts) row["preconditioner_setup_parts_ms"][part] = 1e3 * seconds;
        row["refresh_ms"] = 1e3 * refresh;
        row["preconditioner_refresh_ms"] = 1e3 * info.refresh_seconds;
        for (const auto& [part, seconds] : info.refresh_parts)
          row["preconditioner_refresh_parts_ms"][part] = 1e3 * seconds;
        if (!info.grid_levels.empty()) {
          row["grid_levels"] = static_cast<int>(info.grid_levels.size());
          row["operator_complexity"] = info.operator_complexity();
        }
        row["levels"] = info.levels;
        row["colours"] = info.colours;
        row["level_size_histogram"] = json::array();  // [rows from (a power of two), levels]
        for (const auto& [rows_from, count] : level_size_histogram(info.level_sizes))
          row["level_size_histogram"].push_back({rows_from, count});
        row["spmv_equivalents_model"] = info.spmv_equivalents;
        row["describe"] = solver->describe();
        // --- timed where the backend keeps its vectors (cuda: on the device, as the flow step
        // solves), so the host copies and the host's reordering of b and x are not the solver's
        std::vector<double> times;
        SolverPerformance perf;
        for (int k = 0; k < o.repeats + 1; ++k) {  // the first solve warms up (graph capture, buffers)
          const SolveTiming t = solver->time_solves(b, 1, Communicator::serial());
          perf = t.performance;
          if (k > 0) times.push_back(1e3 * t.seconds);
        }
        const double total = median(times);
        if (backend == Backend::cuda) {  // what a caller with host vectors waits for: as many, warmed up
          std::vector<double> x, host_times;
          for (int k = 0; k < o.repeats + 1; ++k) {
            x.assign(n, 0.0);
            const auto t0 = Clock::now();
            solver->solve(x, b, "p");
            if (k > 0) host_times.push_back(1e3 * seconds_since(t0));
          }
          row["host_vectors_solve_ms"] = median(host_times);
        }
        row["iterations"] = perf.iterations;
        row["converged"] = perf.converged;
        row["final_residual"] = perf.final_residual;
        row["solve_ms"] = total;
        row["ms_per_iteration"] = perf.iterations > 0 ? total / perf.iterations : 0.0;
        if (m.settings.preconditioner == "none") cg_ms_per_iteration[tol] = row["ms_per_iteration"];
        if (cg_ms_per_iteration.count(tol) && cg_ms_per_iteration[tol] > 0)
          row["iteration_cost_vs_cg"] = row["ms_per_iteration"].get<double>() / cg_ms_per_iteration[tol];
        std::cout << fmt::format("  {:20s} rel {:5.0e}: setup {:9.2f} ms, refresh {:8.2f} ms, {:6d} its{}, {:8.4f} ms/it, "
                                 "solve {:10.2f} ms\n",
                                 m.label, tol, 1e3 * setup, 1e3 * refresh, perf.iterations,
                                 perf.converged ? "" : " (NOT converged)", row["ms_per_iteration"].get<double>(), total)
                  << std::flush;
        rows.push_back(row);
      }
    } catch (const std::exception& e) {
      base["completed"] = false;
      base["reason"] = e.what();
      std::cout << fmt::format("  {:22s} not completed: {}\n", m.label, e.what());
      rows.push_back(base);
    }
  }
  report["results"] = rows;
  if (o.triangular) report["triangular"] = triangular_rows(a, triangular, std::max(o.repeats, 5), o.seed);

  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    if (!out) throw std::runtime_error(o.json_path + ": cannot write");
    out << report.dump(2) << '\n';
  }
  if (!o.csv_path.empty()) {
    std::ofstream out(o.csv_path);
    if (!out) throw std::runtime_error(o.csv_path + ": cannot write");
    out << "matrix,backend,format,method,ordering,tolerance,setup_ms,refresh_ms,levels,colours,spmv_equivalents_model,"
           "iterations,converged,ms_per_iteration,iteration_cost_vs_cg,solve_ms\n";
    for (const auto& r : rows) {
      if (!r.contains("iterations")) continue;
      out << fmt::format("{},{},{},{},{},{},{:.3f},{:.3f},{},{},{:.3f},{},{},{:.5f},{:.3f},{:.3f}\n", input.source,
                         name(backend), format, r["method"].get<std::string>(), r["ordering"].get<std::string>(),
                         r["tolerance"].get<double>(), r["setup_ms"].get<double>(), r["refresh_ms"].get<double>(),
                         r["levels"].get<int>(),
                         r["colours"].get<int>(), r["spmv_equivalents_model"].get<double>(), r["iterations"].get<int>(),
                         r["converged"].get<bool>(), r["ms_per_iteration"].get<double>(),
                         r.value("iteration_cost_vs_cg", 0.0), r["solve_ms"].get<double>());
    }
  }
  return 0;
}

}  // namespace
}  // namespace fvmmini::bench

int main(int argc, char** argv) {
  using fvmmini::bench::Options;
  Options o;
  CLI::App app{"fvmmini-solve-bench: time to solution of one matrix by preconditioner and ordering (on cuda the "
               "timed solves take device vectors, as the flow step's do; the median of as many solves of host "
               "vectors is reported beside them)"};
  auto* input = app.add_option_group("input", "the matrix (exactly one)");
  input->add_option("--box", o.box, "FVM Laplacian of an N^3 box, fixedValue walls")->check(CLI::PositiveNumber);
  input->add_option("--poly-like", o.poly_like, "polyhedral-like N^3 lattice pattern (7-19 nonzeros per row)")
      ->check(CLI::PositiveNumber);
  input->add_option("--cavity-pressure", o.cavity, "the pressure matrix of the N^3 lid-driven cavity")
      ->check(CLI::PositiveNumber);
  input->require_option(1);
  app.add_option("--backend", o.backend, "reference, cuda or auto")->capture_default_str()
      ->check(CLI::IsMember(fvmmini::backend_names()));
  app.add_option("--format", o.format, "the operator's storage format (auto: staircase on cuda, csr on reference)")
      ->capture_default_str();
  app.add_option("--methods", o.methods,
                 std::string("comma-separated name[:ordering], name one of ") + fvmmini::bench::preconditioner_method_syntax +
                     "; default: all of them, the triangular ones on none, cm and colour orderings")
      ->capture_default_str();
  app.add_option("--tolerances", o.tolerances, "comma-separated relative residuals")->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed solves per method and tolerance (median)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--max-iter", o.max_iter, "iteration limit")->capture_default_str();
  auto* triangular =
      app.add_flag("--triangular", o.triangular, "also time DIC's triangular solves alone: levels vs cusparseSpSV");
  app.add_option("--triangular-orderings", o.triangular_orderings, "comma-separated orderings --triangular times")
      ->capture_default_str()
      ->needs(triangular);
  app.add_option("--triangular-solves", o.triangular_solves,
                 "comma-separated solves --triangular times: per-level, sync-free (fvmmini's levels), cusparse")
      ->capture_default_str()
      ->needs(triangular);
  app.add_option("--poly-shift", o.poly_shift, "diagonal shift of the polyhedral-like graph Laplacian")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the solution and the polyhedral-like pattern")->capture_default_str();
  app.add_option("--json", o.json_path, "write the results as JSON");
  app.add_option("--csv", o.csv_path, "write the results as CSV");
  CLI11_PARSE(app, argc, argv);
  try {
    return fvmmini::bench::run(o);
  } catch (const std::exception& e) {
    std::cerr << "fvmmini-solve-bench: " << e.what() << '\n';
    return 1;
  }
}
