// fvmmini-bench: every storage format x ordering x backend on one matrix. Per combination:
// set-up time, footprint, padding, SpMV median time with effective bandwidth against the
// device copy bandwidth of the same run, and CG time per iteration against its floor.
// A table to stdout; JSON (one object per combination) and CSV on request.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kernels/cuda/cuda_backend.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/ordering/matrix_statistics.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/timing.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/benchmark.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cuda/device_block_cg.hpp"
#include "solvers/krylov/cuda/device_cg.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tools/bench/bench_inputs.hpp"
#include "tools/bench/cg_timing.hpp"
#include "tools/bench/format_options.hpp"
#include "tools/bench/traffic.hpp"

#ifndef FVMMINI_GIT_REVISION
#define FVMMINI_GIT_REVISION "unknown"
#endif

namespace fvmmini::bench {
namespace {

using json = nlohmann::ordered_json;
using clock_type = std::chrono::steady_clock;

struct Options {
  int box = 0;
  int poly_like = 0;
  int cavity_momentum = 0;
  double poly_shift = 1e-2;
  std::string polymesh, gmsh, mtx;
  std::string formats = "all";
  std::string orderings = "none";
  std::string backends = "cuda";
  bool check = false;
  int warmup = 10;
  int repeats = 50;
  int cg_max_iter = 5000;
  double cg_tolerance = 1e-6;
  std::string cg_preconditioner = "none";
  bool no_cg = false;
  bool l2_window = false;  ///< also time SpMV and CG with a persisting-L2 window (cuda)
  bool mixed = false;      ///< also time SpMV and CG with the float32 twin, where the format has one (cuda)
  int block = 0;           ///< also time the SpMV of this many vectors at once, where the format has it (cuda)
  FormatOptionValues format_options;  ///< parameter key -> comma-separated values
  std::uint64_t seed = 1;
  std::string json_path, csv_path;
};

/// The ordering of a name, or of a chain "a+b" (b applied to the matrix renumbered by a).
/// "natural" is "none".
Permutation ordering_chain(const std::string& spec, const LduMatrix& matrix, std::uint64_t seed) {
  Permutation total = Permutation::identity(matrix.n_rows());
  for (std::string name : split(spec, '+')) {
    if (name == "natural") name = "none";
    if (total.is_identity()) {
      total = make_ordering(name, *matrix.addressing, seed);
    } else {
      const PermutedLdu renumbered = permute_ldu(matrix, total);
      total = compose(total, make_ordering(name, *renumbered.matrix.addressing, seed));
    }
  }
  return total;
}

/// max_i |y_i - ref_i| / scale_i, infinity for a non-finite y.
double worst_relative_error(std::span<const double> y, std::span<const double> ref, std::span<const double> scale) {
  double worst = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return INFINITY;
    worst = std::max(worst, std::abs(y[i] - ref[i]) / std::max(scale[i], 1e-300));
  }
  return worst;
}

struct Shared {
  const LduMatrix& matrix;
  std::vector<double> x;          ///< random, mesh order
  std::vector<double> y_ref;      ///< A x by the face loop, mesh order
  std::vector<double> row_scale;  ///< sum_j |a_ij x_j|
  std::vector<double> b;          ///< CG right-hand side, mesh order
  double copy_bandwidth = 0.0;    ///< bytes/s, read + write
};

SolverSettings cg_settings(const Options& o) {
  SolverSettings s;
  s.tolerance = o.cg_tolerance;
  s.max_iter = o.cg_max_iter;
  s.preconditioner = parse_preconditioner(o.cg_preconditioner);
  return s;
}

/// The combination's format set up: (grouping,) permuted CSR, format struct, keys set to auto tuned
/// by the timer the backend's solver uses. The staircase ordering is made again per format:
/// format_ordering gives the staircase format its Cuthill-McKee part.
PreparedFormat set_up_format(const Options& o, const LduMatrix& matrix, const std::string& format,
                             const FormatParameters& parameters, const std::string& ordering, const Permutation& base,
                             double ordering_seconds, const std::string& backend) {
  const SpmvTimer timer = backend == "cuda" ? cuda::spmv_timer(Precision::full, false) : reference_spmv_timer();
  if (ordering == "staircase") {
    const auto ordered_at = clock_type::now();
    Permutation own = format_ordering(format, resolve_format_parameters(format, parameters, matrix.n_rows()), ordering,
                                      *matrix.addressing, o.seed);
    return prepare_ordered_format(matrix, format, ordering, parameters, std::move(own), seconds_since(ordered_at),
                                  timer);
  }
  return prepare_ordered_format(matrix, format, ordering, parameters, base, ordering_seconds, timer);
}

/// The row's account of the format as set up: its description, its keys resolved, the tuning's
/// trials (where a key was auto), its entries and its padding.
void record_format(const std::string& format, const PreparedFormat& prepared, const FormatFigures& figures,
                   json& row) {
  const FormatUnit& unit = find_format(format);
  row["description"] = describe(prepared) + describe_tuning(prepared);
  row["resolved_parameters"] = format_parameter_text(unit, prepared.parameters);
  if (prepared.tuning.done()) {
    json trials = json::array();
    for (const auto& trial : prepared.tuning.trials)
      trials.push_back({{"parameters", format_parameter_text(unit, trial.parameters)}, {"spmv_ms", trial.spmv_ms}});
    row["tuning"] = {{"keys", prepared.tuning.keys},
                     {"timer", prepared.tuning.timer},
                     {"trials", trials},
                     {"chosen", format_parameter_text(unit, prepared.parameters)},
                     {"seconds", prepared.tuning.seconds}};
  }
  row["nnz"] = figures.nnz;
  row["stored_entries"] = figures.stored_entries;
  row["padding_ratio"] = figures.padding_ratio;
}

/// Shared's vectors and the matrix's diagonal in the operator's numbering.
struct OperatorVectors {
  std::vector<double> x, y_ref, row_scale, b, diag;
};

OperatorVectors operator_vectors(const Shared& shared, const Permutation& permutation) {
  auto permuted = [&](std::span<const double> mesh_order) {
    std::vector<double> operator_order(mesh_order.size());
    permute_to_new(permutation, mesh_order, operator_order);
    return operator_order;
  };
  return {permuted(shared.x), permuted(shared.y_ref), permuted(shared.row_scale), permuted(shared.b),
          permuted(shared.matrix.diag)};
}

/// The device SpMV: checked against the face loop (--check), timed, and timed again with a
/// persisting-L2 window (--l2-window). @return the timing without the window
cuda::TimingStats time_cuda_spmv(const Options& o, cuda::DeviceMatrix& device, const OperatorVectors& v,
                                 double min_bytes, double copy_bandwidth, std::vector<double>& y, json& spmv) {
  const auto n = static_cast<label>(v.x.size());
  if (o.check) {
    device.multiply(v.x, y);
    const double err = worst_relative_error(y, v.y_ref, v.row_scale);
    spmv["check_max_rel_error"] = err;
    if (!(err <= 1e-12)) throw std::runtime_error(fmt::format("check against the face loop failed: error {:.3g}", err));
  }
  const cuda::TimingStats t = cuda::time_spmv(device, v.x, o.warmup, o.repeats);
  spmv["median_ms"] = t.median_ms;
  spmv["min_ms"] = t.min_ms;
  spmv["max_ms"] = t.max_ms;
  spmv["repeats"] = t.repeats;
  const double bandwidth = min_bytes / (t.median_ms * 1e-3);
  spmv["effective_GBs"] = bandwidth / 1e9;
  spmv["pct_copy_bandwidth"] = 100.0 * bandwidth / copy_bandwidth;
  if (o.l2_window) {
    const cuda::TimingStats w = cuda::time_spmv(device, v.x, o.warmup, o.repeats, true);
    const cuda::L2Window window = cuda::l2_window_over(nullptr, n * sizeof(double));
    spmv["l2_window"] = {{"median_ms", w.median_ms}, {"min_ms", w.min_ms}, {"max_ms", w.max_ms},
                         {"pct_copy_bandwidth", 100.0 * min_bytes / (w.median_ms * 1e-3) / copy_bandwidth},
                         {"window_bytes", window.bytes}, {"hit_ratio", window.hit_ratio}};
  }
  return t;
}

/// --block: the SpMV of o.block right-hand sides at once (x scaled by 1, 1.25, ...) against as many
/// single SpMVs of single_ms each.
void time_cuda_block_spmv(const Options& o, cuda::DeviceMatrix& device, const OperatorVectors& v, std::int64_t nnz,
                          double single_ms, double copy_bandwidth, json& spmv) {
  const auto n = static_cast<label>(v.x.size());
  std::vector<double> xs(static_cast<std::size_t>(n) * o.block), ys(xs.size());
  for (label i = 0; i < n; ++i)
    for (int j = 0; j < o.block; ++j) xs[static_cast<std::size_t>(i) * o.block + j] = v.x[i] * (1.0 + 0.25 * j);
  if (o.check) {
    device.multiply_block(o.block, xs, ys);
    double worst = 0.0;
    for (label i = 0; i < n; ++i)
      for (int j = 0; j < o.block; ++j)
        worst = std::max(worst,
                         std::abs(ys[static_cast<std::size_t>(i) * o.block + j] - (1.0 + 0.25 * j) * v.y_ref[i]) /
                             std::max((1.0 + 0.25 * j) * v.row_scale[i], 1e-300));
    if (!(worst <= 1e-12))
      throw std::runtime_error(fmt::format("block: check against the face loop failed: error {:.3g}", worst));
  }
  const cuda::TimingStats b = cuda::time_spmv_block(device, o.block, xs, o.warmup, o.repeats);
  spmv["block"] = {{"vectors", o.block},
                   {"median_ms", b.median_ms},
                   {"min_ms", b.min_ms},
                   {"max_ms", b.max_ms},
                   {"ratio_to_single", b.median_ms / (o.block * single_ms)},
                   {"min_bytes", spmv_min_bytes(n, nnz, o.block)},
                   {"pct_copy_bandwidth",
                    100.0 * spmv_min_bytes(n, nnz, o.block) / (b.median_ms * 1e-3) / copy_bandwidth}};
}

/// --mixed: the float32 twin in a matrix of its own (a DeviceCg iterates with the twin of the
/// matrix it is given), checked and timed against the double SpMV of double_ms.
/// @return the twin's matrix, for the CG
cuda::DeviceMatrix time_mixed_spmv(const Options& o, const std::string& format, const PreparedFormat& prepared,
                                   const OperatorVectors& v, double double_ms, std::vector<double>& y, json& spmv) {
  cuda::DeviceMatrix mixed = cuda::make_device_matrix(format, prepared.format, prepared.parameters, true);
  mixed.multiply_mixed(v.x, y);
  // --- float32 coefficients: each row within a few float32 roundings of its scale
  const double mixed_error = worst_relative_error(y, v.y_ref, v.row_scale);
  if (o.check && !(mixed_error <= 1e-6))
    throw std::runtime_error(fmt::format("mixed: check against the face loop failed: error {:.3g}", mixed_error));
  const cuda::TimingStats m = cuda::time_spmv(mixed, v.x, o.warmup, o.repeats, false, true);
  // --- the SpMV the CG runs (the dot product fused), float32 twin and float64
  const cuda::TimingStats md = cuda::time_spmv(mixed, v.x, o.warmup, o.repeats, false, true, true);
  const cuda::TimingStats fd = cuda::time_spmv(mixed, v.x, o.warmup, o.repeats, false, false, true);
  spmv["mixed"] = {{"median_ms", m.median_ms},
                   {"min_ms", m.min_ms},
                   {"max_ms", m.max_ms},
                   {"ratio_to_double", m.median_ms / double_ms},
                   {"with_dot_median_ms", md.median_ms},
                   {"double_with_dot_median_ms", fd.median_ms},
                   {"narrow_fraction", mixed.narrow_fraction()},
                   {"check_max_rel_error", mixed_error}};
  return mixed;
}

/// --mixed: the CG through the float32 twin, against the double CG's iterations_ms.
void time_mixed_cg(const Options& o, cuda::DeviceMatrix& mixed, const std::vector<double>& diag_op,
                   const std::vector<double>& b_op, double iterations_ms, json& cg) {
  const auto n = static_cast<label>(b_op.size());
  cuda::DeviceCg solver(mixed, diag_op);
  std::vector<double> x(n, 0.0);
  const SolverPerformance m = solver.solve(x, b_op, cg_settings(o));
  const double mixed_ms = solver.last_iterations_ms();
  cg["mixed"] = {{"iterations", m.iterations},
                 {"converged", m.converged},
                 {"final_residual", m.final_residual},
                 {"replacements", solver.last_replacements()},
                 {"iterations_ms", mixed_ms},
                 {"ms_per_iteration", m.iterations > 0 ? mixed_ms / m.iterations : 0.0},
                 {"time_ratio_to_double", iterations_ms > 0 ? mixed_ms / iterations_ms : 0.0}};
}

/// --block: o.block solves one by one against one block CG of all of them (right-hand sides b
/// scaled by 1, 1.5, 2 and shifted, so that they stop apart).
void time_block_cg(const Options& o, cuda::DeviceMatrix& device, const std::vector<double>& diag_op,
                   const std::vector<double>& b_op, json& cg) {
  const auto n = static_cast<label>(b_op.size());
  const int k = o.block;
  std::vector<double> b_block(static_cast<std::size_t>(n) * k), x_block(b_block.size(), 0.0), bj(n);
  for (label i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) b_block[static_cast<std::size_t>(i) * k + j] = b_op[i] * (1.0 + 0.5 * j) + 0.01 * j;
  double one_by_one_ms = 0.0;
  json alone = json::array();
  for (int j = 0; j < k; ++j) {
    for (label i = 0; i < n; ++i) bj[i] = b_block[static_cast<std::size_t>(i) * k + j];
    cuda::DeviceCg solver(device, diag_op);
    std::vector<double> x(n, 0.0);
    const SolverPerformance perf = solver.solve(x, bj, cg_settings(o));
    one_by_one_ms += solver.last_iterations_ms();
    alone.push_back(perf.iterations);
  }
  cuda::DeviceCg single(device, diag_op);
  cuda::DeviceBlockCg block(single, k);
  json together = json::array();
  for (const SolverPerformance& perf : block.solve(x_block, b_block, cg_settings(o)))
    together.push_back(perf.iterations);
  cg["block"] = {{"vectors", k},
                 {"one_by_one_ms", one_by_one_ms},
                 {"together_ms", block.last_iterations_ms()},
                 {"ratio", block.last_iterations_ms() / one_by_one_ms},
                 {"iterations_one_by_one", alone},
                 {"iterations_together", together}};
}

/// The device CG, timed per iteration against its floor, then its --mixed, --block and
/// --l2-window variants. mixed: the float32 twin's matrix, or null.
void time_cuda_cg(const Options& o, const Shared& shared, cuda::DeviceMatrix& device, cuda::DeviceMatrix* mixed,
                  const std::vector<double>& diag_op, const std::vector<double>& b_op, const FormatFigures& figures,
                  json& cg) {
  const auto n = static_cast<label>(b_op.size());
  // --- a fresh solver per run (the same start), the window on the second only
  auto solve = [&](bool l2_window, SolverPerformance& perf) {
    cuda::DeviceCg solver(device, diag_op);
    solver.set_l2_window(l2_window);
    std::vector<double> x(n, 0.0);
    perf = solver.solve(x, b_op, cg_settings(o));
    return solver.last_iterations_ms();
  };
  SolverPerformance perf;
  const double iterations_ms = solve(false, perf);
  const double ms_per_it = perf.iterations > 0 ? iterations_ms / perf.iterations : 0.0;
  const bool jacobi = find_preconditioner(o.cg_preconditioner).cg_step == CgStep::jacobi;
  const double floor_ms = cg_floor_bytes(n, figures.nnz, jacobi) / shared.copy_bandwidth * 1e3;
  cg = {{"preconditioner", o.cg_preconditioner}, {"iterations", perf.iterations}, {"converged", perf.converged},
        {"initial_residual", perf.initial_residual}, {"final_residual", perf.final_residual},
        {"ms_per_iteration", ms_per_it}, {"floor_ms_per_iteration", floor_ms},
        {"ratio_to_floor", floor_ms > 0 ? ms_per_it / floor_ms : 0.0},
        {"iterations_ms", iterations_ms}};
  if (mixed) time_mixed_cg(o, *mixed, diag_op, b_op, iterations_ms, cg);
  if (o.block > 1 && device.max_block() >= o.block &&
      find_preconditioner(o.cg_preconditioner).cg_step != CgStep::applied)
    time_block_cg(o, device, diag_op, b_op, cg);
  if (o.l2_window) {
    SolverPerformance windowed;
    const double windowed_ms = solve(true, windowed);
    cg["l2_window"] = {{"iterations", windowed.iterations},
                       {"ms_per_iteration", windowed.iterations > 0 ? windowed_ms / windowed.iterations : 0.0}};
  }
}

/// The cuda backend's part of a combination: the upload, the SpMV and the CG with the variants the
/// options ask for.
void run_on_cuda(const Options& o, const Shared& shared, const std::string& format, const PreparedFormat& prepared,
                 const FormatFigures& figures, double setup_seconds, const OperatorVectors& v, json& row, json& spmv,
                 json& cg) {
  const label n = shared.matrix.n_rows();
  auto t0 = clock_type::now();
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  const double upload = seconds_since(t0);
  row["setup_s"] = {{"ordering", prepared.ordering_seconds}, {"csr", prepared.csr_seconds},
                    {"build", prepared.build_seconds}, {"tuning", prepared.tuning.seconds}, {"upload", upload},
                    {"total", setup_seconds + upload}};
  row["footprint_bytes"] = device.footprint_bytes();
  std::vector<double> y(n);
  const cuda::TimingStats t =
      time_cuda_spmv(o, device, v, spmv_min_bytes(n, figures.nnz), shared.copy_bandwidth, y, spmv);
  if (o.block > 1 && device.max_block() >= o.block)
    time_cuda_block_spmv(o, device, v, figures.nnz, t.median_ms, shared.copy_bandwidth, spmv);
  const auto& with_twin = cuda::mixed_format_names();
  std::optional<cuda::DeviceMatrix> mixed;
  if (o.mixed && std::find(with_twin.begin(), with_twin.end(), format) != with_twin.end())
    mixed.emplace(time_mixed_spmv(o, format, prepared, v, t.median_ms, y, spmv));
  if (!o.no_cg) time_cuda_cg(o, shared, device, mixed ? &*mixed : nullptr, v.diag, v.b, figures, cg);
}

/// The reference SpMV: checked against the face loop (an error fatal with --check) and timed, the
/// median of 3 to 11 runs.
void time_reference_spmv(const Options& o, const ReferenceOperator& op, const OperatorVectors& v, double min_bytes,
                         json& spmv) {
  std::vector<double> y(v.x.size());
  op.multiply(v.x, y);
  const double err = worst_relative_error(y, v.y_ref, v.row_scale);
  spmv["check_max_rel_error"] = err;
  if (o.check && !(err <= 1e-12))
    throw std::runtime_error(fmt::format("check against the face loop failed: error {:.3g}", err));
  const int repeats = std::max(3, std::min(o.repeats, 11));
  std::vector<double> ms(repeats);
  for (auto& m : ms) {
    const auto t0 = clock_type::now();
    op.multiply(v.x, y);
    m = seconds_since(t0) * 1e3;
  }
  std::sort(ms.begin(), ms.end());
  spmv["median_ms"] = ms[repeats / 2];
  spmv["min_ms"] = ms.front();
  spmv["max_ms"] = ms.back();
  spmv["repeats"] = repeats;
  spmv["effective_GBs"] = min_bytes / (ms[repeats / 2] * 1e-3) / 1e9;
}

/// The reference CG: one solve timed whole, and its iterations alone as fvmmini-cpu-bench and the
/// device CG count them (no floor: the copy bandwidth measured is the device's; fvmmini-cpu-bench
/// has the host's).
void time_reference_cg(const Options& o, const ReferenceOperator& op, const std::vector<double>& b_op, json& cg) {
  std::vector<double> x(b_op.size(), 0.0);
  CgWorkspace work;
  const auto t0 = clock_type::now();
  const SolverPerformance perf = reference_cg(op, x, b_op, cg_settings(o), work);
  const double total_ms = seconds_since(t0) * 1e3;
  const Timing per_iteration =
      cg_ms_per_iteration(op, b_op, parse_preconditioner(o.cg_preconditioner), 10, 3);
  cg = {{"preconditioner", o.cg_preconditioner}, {"iterations", perf.iterations}, {"converged", perf.converged},
        {"initial_residual", perf.initial_residual}, {"final_residual", perf.final_residual},
        {"ms_per_iteration", per_iteration.median_ms}, {"total_ms", total_ms}};
}

/// The reference backend's part of a combination: the operator, the SpMV and the CG.
void run_on_reference(const Options& o, const Shared& shared, PreparedFormat prepared, const FormatFigures& figures,
                      double setup_seconds, const OperatorVectors& v, json& row, json& spmv, json& cg) {
  auto op = make_reference_operator(shared.matrix, std::move(prepared));
  const PreparedFormat& p = op->prepared();
  row["setup_s"] = {{"ordering", p.ordering_seconds}, {"csr", p.csr_seconds}, {"build", p.build_seconds},
                    {"tuning", p.tuning.seconds}, {"total", setup_seconds}};
  row["footprint_bytes"] = figures.footprint_bytes;
  time_reference_spmv(o, *op, v, spmv_min_bytes(shared.matrix.n_rows(), figures.nnz), spmv);
  if (!o.no_cg) time_reference_cg(o, *op, v.b, cg);
}

/// One format x ordering x backend; fills `row` and sets completed (or throws with the reason).
void run_combination(const Options& o, const Shared& shared, const std::string& format,
                     const FormatParameters& parameters, const std::string& ordering, const Permutation& base,
                     double ordering_seconds, const std::string& backend, json& row) {
  PreparedFormat prepared =
      set_up_format(o, shared.matrix, format, parameters, ordering, base, ordering_seconds, backend);
  const FormatFigures figures = prepared.format.figures();
  record_format(format, prepared, figures, row);
  const double setup_seconds =
      prepared.ordering_seconds + prepared.csr_seconds + prepared.build_seconds + prepared.tuning.seconds;
  const OperatorVectors v = operator_vectors(shared, prepared.permutation);
  json spmv, cg;
  spmv["min_bytes"] = spmv_min_bytes(shared.matrix.n_rows(), figures.nnz);
  if (backend == "cuda")
    run_on_cuda(o, shared, format, prepared, figures, setup_seconds, v, row, spmv, cg);
  else
    run_on_reference(o, shared, std::move(prepared), figures, setup_seconds, v, row, spmv, cg);
  row["spmv"] = spmv;
  if (!cg.is_null()) row["cg"] = cg;
  row["completed"] = true;
}

/// The format column of the table: the format and its parameters that differ from the defaults.
std::string format_label(const json& row) {
  std::string label = row["format"].get<std::string>();
  if (row.contains("variant") && !row["variant"].get<std::string>().empty())
    label += " (" + row["variant"].get<std::string>() + ")";
  return label;
}

std::string number(const json& j, const char* key, const char* fmt_spec, double scale = 1.0) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "-";
  return fmt::format(fmt::runtime(fmt_spec), j[key].get<double>() * scale);
}

void print_table(const json& rows, std::ostream& out) {
  out << fmt::format("{:<28} {:<12} {:<9} {:>8} {:>7} {:>9} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6} {:>6} {:>8} {:>9} {:>7} {:>7} {:>6} {:>7}\n",
                     "format", "ordering", "backend", "setup s", "pad", "MB", "SpMV ms", "GB/s", "%copy", "CG ms/it",
                     "floor", "ratio", "iters", "L2w %cp", "L2w CG", "mixed x", "mxCG x", "blk x", "blkCG x");
  for (const auto& r : rows) {
    if (!r["completed"].get<bool>()) {
      out << fmt::format("{:<28} {:<12} {:<9} not completed: {}\n", format_label(r),
                         r["ordering"].get<std::string>(), r["backend"].get<std::string>(),
                         r["reason"].get<std::string>());
      continue;
    }
    const json& s = r["spmv"];
    const json cg = r.contains("cg") ? r["cg"] : json::object();
    const json s_window = s.contains("l2_window") ? s["l2_window"] : json::object();
    const json cg_window = cg.contains("l2_window") ? cg["l2_window"] : json::object();
    const json s_mixed = s.contains("mixed") ? s["mixed"] : json::object();
    const json cg_mixed = cg.contains("mixed") ? cg["mixed"] : json::object();
    const json s_block = s.contains("block") ? s["block"] : json::object();
    const json cg_block = cg.contains("block") ? cg["block"] : json::object();
    out << fmt::format("{:<28} {:<12} {:<9} {:>8} {:>7} {:>9} {:>9} {:>8} {:>6} {:>9} {:>9} {:>6} {:>6} {:>8} {:>9} {:>7} {:>7} {:>6} {:>7}\n",
                       format_label(r), r["ordering"].get<std::string>(), r["backend"].get<std::string>(),
                       number(r["setup_s"], "total", "{:.2f}"), number(r, "padding_ratio", "{:.3f}"),
                       number(r, "footprint_bytes", "{:.1f}", 1e-6), number(s, "median_ms", "{:.4f}"),
                       number(s, "effective_GBs", "{:.0f}"), number(s, "pct_copy_bandwidth", "{:.1f}"),
                       number(cg, "ms_per_iteration", "{:.4f}"), number(cg, "floor_ms_per_iteration", "{:.4f}"),
                       number(cg, "ratio_to_floor", "{:.2f}"),
                       cg.contains("iterations") ? std::to_string(cg["iterations"].get<int>()) : "-",
                       number(s_window, "pct_copy_bandwidth", "{:.1f}"), number(cg_window, "ms_per_iteration", "{:.4f}"),
                       number(s_mixed, "ratio_to_double", "{:.3f}"), number(cg_mixed, "time_ratio_to_double", "{:.3f}"),
                       number(s_block, "ratio_to_single", "{:.3f}"), number(cg_block, "ratio", "{:.3f}"));
  }
}

void write_csv(const json& rows, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path));
  out << "format,ordering,backend,completed,reason,n_rows,nnz,stored_entries,padding_ratio,footprint_bytes,setup_s,"
         "spmv_median_ms,spmv_min_ms,spmv_max_ms,effective_GBs,pct_copy_bandwidth,check_max_rel_error,"
         "cg_iterations,cg_converged,cg_ms_per_iteration,cg_floor_ms_per_iteration,cg_ratio_to_floor,"
         "parameters,l2_window_spmv_median_ms,l2_window_cg_ms_per_iteration\n";
  auto get = [](const json& j, const char* k) -> std::string {
    if (!j.is_object() || !j.contains(k)) return "";
    const json& v = j[k];
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    return v.dump();
  };
  for (const auto& r : rows) {
    const json s = r.contains("spmv") ? r["spmv"] : json::object();
    const json cg = r.contains("cg") ? r["cg"] : json::object();
    const json setup = r.contains("setup_s") ? r["setup_s"] : json::object();
    std::string reason = get(r, "reason");
    std::replace(reason.begin(), reason.end(), ',', ';');
    std::replace(reason.begin(), reason.end(), '\n', ' ');
    out << get(r, "format") << ',' << get(r, "ordering") << ',' << get(r, "backend") << ',' << get(r, "completed")
        << ',' << reason << ',' << get(r, "n_rows") << ',' << get(r, "nnz") << ',' << get(r, "stored_entries") << ','
        << get(r, "padding_ratio") << ',' << get(r, "footprint_bytes") << ',' << get(setup, "total") << ','
        << get(s, "median_ms") << ',' << get(s, "min_ms") << ',' << get(s, "max_ms") << ',' << get(s, "effective_GBs")
        << ',' << get(s, "pct_copy_bandwidth") << ',' << get(s, "check_max_rel_error") << ','
        << get(cg, "iterations") << ',' << get(cg, "converged") << ',' << get(cg, "ms_per_iteration") << ','
        << get(cg, "floor_ms_per_iteration") << ',' << get(cg, "ratio_to_floor") << ',' << '"' << get(r, "variant") << '"'
        << ',' << get(s.contains("l2_window") ? s["l2_window"] : json::object(), "median_ms") << ','
        << get(cg.contains("l2_window") ? cg["l2_window"] : json::object(), "ms_per_iteration") << '\n';
  }
}

/// Per tuned row (a key set to auto): its SpMV time against the best of the rows run with the
/// settings of its grid given explicitly (same format, ordering and backend), each timed the same
/// way; rows with none of its grid run explicitly are left out.
json tuning_checks(const json& rows) {
  json checks = json::array();
  for (const auto& tuned : rows) {
    if (!tuned["completed"].get<bool>() || !tuned.contains("tuning")) continue;
    std::vector<std::string> grid;
    for (const auto& trial : tuned["tuning"]["trials"]) grid.push_back(trial["parameters"].get<std::string>());
    const json* best = nullptr;
    std::vector<std::string> covered;  // the grid's settings run explicitly (alike ones once)
    for (const auto& r : rows) {
      if (!r["completed"].get<bool>() || r.contains("tuning") || r["format"] != tuned["format"] ||
          r["ordering"] != tuned["ordering"] || r["backend"] != tuned["backend"])
        continue;
      const std::string setting = r["resolved_parameters"].get<std::string>();
      if (std::find(grid.begin(), grid.end(), setting) == grid.end()) continue;
      if (std::find(covered.begin(), covered.end(), setting) == covered.end()) covered.push_back(setting);
      if (!best || r["spmv"]["median_ms"].get<double>() < (*best)["spmv"]["median_ms"].get<double>()) best = &r;
    }
    if (!best) continue;
    const double tuned_ms = tuned["spmv"]["median_ms"].get<double>();
    const double best_ms = (*best)["spmv"]["median_ms"].get<double>();
    checks.push_back({{"format", tuned["format"]},
                      {"ordering", tuned["ordering"]},
                      {"backend", tuned["backend"]},
                      {"variant", tuned["variant"]},
                      {"chosen", tuned["tuning"]["chosen"]},
                      {"chosen_spmv_ms", tuned_ms},
                      {"grid_settings", grid.size()},
                      {"grid_settings_run", covered.size()},
                      {"best_of_grid", (*best)["resolved_parameters"]},
                      {"best_of_grid_spmv_ms", best_ms},
                      {"ratio_to_best", tuned_ms / best_ms},
                      {"tuning_seconds", tuned["tuning"]["seconds"]}});
  }
  return checks;
}

void print_tuning_checks(const json& checks, std::ostream& out) {
  if (checks.empty()) return;
  out << "\nauto-tuning against the best of its grid run explicitly (SpMV medians of this run):\n";
  for (const auto& c : checks)
    out << fmt::format("  {} / {} / {} ({}): chose {} {:.4f} ms; best of {}/{} run: {} {:.4f} ms; ratio {:.3f}; "
                       "tuning {:.2f} s\n",
                       c["format"].get<std::string>(), c["ordering"].get<std::string>(),
                       c["backend"].get<std::string>(), c["variant"].get<std::string>(),
                       c["chosen"].get<std::string>(), c["chosen_spmv_ms"].get<double>(),
                       c["grid_settings_run"].get<std::size_t>(), c["grid_settings"].get<std::size_t>(),
                       c["best_of_grid"].get<std::string>(), c["best_of_grid_spmv_ms"].get<double>(),
                       c["ratio_to_best"].get<double>(), c["tuning_seconds"].get<double>());
}

/// One entry of --formats as it is run: the format with one combination of its parameters.
struct FormatVariant {
  std::string format;
  FormatParameters parameters;
};

/// --formats: the list, or "all": every format with a kernel on one of the --backends.
std::vector<std::string> format_list(const Options& o) {
  if (o.formats != "all") return split(o.formats);
  const auto backends = split(o.backends);
  auto wants = [&](const char* b) { return std::find(backends.begin(), backends.end(), b) != backends.end(); };
  const auto& on_cuda = cuda::device_format_names();
  std::vector<std::string> formats;
  for (const auto& unit : format_table())
    if ((wants("reference") && unit.multiply) ||
        (wants("cuda") && std::find(on_cuda.begin(), on_cuda.end(), unit.name) != on_cuda.end()))
      formats.push_back(unit.name);
  return formats;
}

std::vector<FormatVariant> format_variants(const Options& o) {
  std::vector<FormatVariant> variants;
  for (const auto& format : format_list(o))
    for (FormatParameters& p : bench::format_variants(find_format(format), o.format_options))
      variants.push_back({format, std::move(p)});
  return variants;
}

/// --mixed: each variant takes the keys precision mixed picks in a solver for those the command
/// line leaves at their defaults (staircase's alpha: one group where that pads little), so that the
/// bench times the layout a case with `precision: mixed` runs.
void take_mixed_precision_keys(const Options& o, std::vector<FormatVariant>& variants, const LduAddressing& addressing) {
  for (auto& [format, parameters] : variants) {
    FormatParameters given;
    for (const auto& [key, value] : parameters.values())
      if (const auto option = o.format_options.find(key); option != o.format_options.end() && !option->second.empty())
        given.set(key, value);
    const FormatParameters picked = mixed_precision_parameters(format, given, addressing);
    for (const auto& [key, value] : picked.values()) parameters.set(key, value);
  }
}

int run(const Options& o) {
  std::vector<FormatVariant> variants = format_variants(o);

  // --- the matrix
  auto t0 = clock_type::now();
  BenchMatrix input = o.box > 0              ? box_laplacian(o.box)
                      : o.poly_like > 0      ? polyhedral_like(o.poly_like, o.poly_shift, o.seed)
                      : o.cavity_momentum > 0 ? cavity_momentum(o.cavity_momentum)
                      : !o.polymesh.empty()  ? mesh_laplacian(o.polymesh, false)
                      : !o.gmsh.empty()      ? mesh_laplacian(o.gmsh, true)
                                             : matrix_market(o.mtx);
  const double input_seconds = seconds_since(t0);
  const LduMatrix& matrix = input.matrix;
  const label n = matrix.n_rows();
  if (o.mixed) take_mixed_precision_keys(o, variants, *matrix.addressing);
  const RowLengthStats lengths = row_length_stats(*matrix.addressing);
  std::cout << fmt::format("matrix: {} ({}), {} rows, {} nonzeros, row length {}..{} (mean {:.2f}), built in {:.1f} s\n",
                           input.source, input.values, n, matrix.addressing->nnz(), lengths.min, lengths.max,
                           lengths.mean, input_seconds);

  json report;
  report["tool"] = "fvmmini-bench";
  const char* env_revision = std::getenv("FVMMINI_GIT_REVISION");
  report["git_revision"] = env_revision && *env_revision ? env_revision : FVMMINI_GIT_REVISION;
  report["matrix"] = {{"source", input.source},
                      {"values", input.values},
                      {"n_rows", n},
                      {"nnz", matrix.addressing->nnz()},
                      {"row_length_min", lengths.min},
                      {"row_length_max", lengths.max},
                      {"row_length_mean", lengths.mean},
                      {"row_length_histogram", lengths.histogram},
                      {"build_s", input_seconds}};
  report["settings"] = {{"formats", o.formats}, {"orderings", o.orderings}, {"backends", o.backends},
                        {"check", o.check}, {"warmup", o.warmup}, {"repeats", o.repeats},
                        {"format_parameters", o.format_options},
                        {"cg_tolerance", o.cg_tolerance}, {"cg_max_iter", o.cg_max_iter},
                        {"cg_preconditioner", o.cg_preconditioner}, {"seed", o.seed},
                        {"spmv_min_bytes", spmv_min_bytes_text}, {"cg_floor", cg_floor_text}};

  // --- shared vectors: random x (never zeros), its face-loop product, the CG right-hand side
  Shared shared{matrix, {}, {}, {}, {}, 0.0};
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  shared.x.resize(n);
  shared.b.resize(n);
  for (auto& v : shared.x) v = dist(rng);
  for (auto& v : shared.b) v = dist(rng);
  shared.y_ref.resize(n);
  reference::ldu_spmv(matrix, shared.x, shared.y_ref);
  {
    LduMatrix abs_matrix = matrix;
    for (auto& d : abs_matrix.diag) d = std::abs(d);
    for (auto& u : abs_matrix.upper) u = std::abs(u);
    std::vector<double> abs_x(n);
    for (label i = 0; i < n; ++i) abs_x[i] = std::abs(shared.x[i]);
    shared.row_scale.resize(n);
    reference::ldu_spmv(abs_matrix, abs_x, shared.row_scale);
  }

  const auto backends = split(o.backends);
  const bool want_cuda = std::find(backends.begin(), backends.end(), "cuda") != backends.end();
  const bool have_cuda = want_cuda && cuda::cuda_device_available();
  if (have_cuda) {
    const cuda::DeviceInfo info = cuda::device_info();
    report["device"] = {{"name", info.name},
                        {"compute_capability", fmt::format("{}.{}", info.compute_capability_major, info.compute_capability_minor)},
                        {"multiprocessors", info.multiprocessors},
                        {"l2_bytes", info.l2_bytes},
                        {"global_memory_bytes", info.global_memory_bytes},
                        {"cuda_runtime_version", info.runtime_version},
                        {"cuda_driver_version", info.driver_version},
                        {"cusparse_version", info.cusparse_version}};
    // --- copy bandwidth: 1 GiB copied device to device, bytes read + written
    cuda::TimingStats copy;
    shared.copy_bandwidth = cuda::measure_copy_bandwidth(std::size_t{1} << 30, 5, 30, &copy);
    report["copy_bandwidth"] = {{"bytes_per_copy", 2.0 * (std::size_t{1} << 30)}, {"median_ms", copy.median_ms},
                                {"GBs", shared.copy_bandwidth / 1e9}};
    std::cout << fmt::format("device: {}\ncopy bandwidth (read + write): {:.0f} GB/s\n", cuda::describe(info),
                             shared.copy_bandwidth / 1e9);
    if (static_cast<double>(info.l2_bytes) * 4 > spmv_min_bytes(n, matrix.addressing->nnz()))
      std::cout << "warning: the matrix is less than 4x the L2 cache: SpMV timings include cache reuse\n";
  } else if (want_cuda) {
    report["device"] = nullptr;
    std::cout << "no CUDA device: cuda combinations are recorded as not completed\n";
  }

  // --- every ordering once, then each format and backend on it
  json rows = json::array();
  for (const auto& ordering : split(o.orderings)) {
    Permutation base;
    double ordering_seconds = 0.0;
    std::string ordering_error;
    try {
      t0 = clock_type::now();
      base = ordering_chain(ordering, matrix, o.seed);
      ordering_seconds = seconds_since(t0);
      const MatrixStatistics stats = matrix_statistics(*matrix.addressing, base);
      std::cout << fmt::format("ordering {}: {} ({:.2f} s)\n", ordering, describe(stats), ordering_seconds);
    } catch (const std::exception& e) {
      ordering_error = e.what();
    }
    for (const auto& [format, parameters] : variants)
      for (const auto& backend : backends) {
        const FormatUnit& unit = find_format(format);
        json row = {{"format", format},
                    {"variant", format_parameter_text(unit, parameters, true)},
                    {"parameters", format_parameter_text(unit, parameters)},
                    {"ordering", ordering},
                    {"backend", backend},
                    {"n_rows", n},
                    {"completed", false}};
        try {
          if (!ordering_error.empty()) throw std::runtime_error("ordering failed: " + ordering_error);
          if (parse_backend(backend) == Backend::automatic)
            throw std::invalid_argument("name the backend: reference or cuda, not auto");
          if (backend == "cuda" && !have_cuda) throw std::runtime_error("no CUDA device");
          if (backend == "reference" && !unit.multiply)
            throw std::invalid_argument("format is not available on the reference backend (cuda only)");
          run_combination(o, shared, format, parameters, ordering, base, ordering_seconds, backend, row);
        } catch (const std::exception& e) {
          row["completed"] = false;
          row["reason"] = e.what();
        }
        std::cout << fmt::format("  {} / {} / {}: {}\n", format_label(row), ordering, backend,
                                 row["completed"].get<bool>() ? row["description"].get<std::string>()
                                                              : "not completed: " + row["reason"].get<std::string>())
                  << std::flush;
        rows.push_back(row);
      }
  }
  report["results"] = rows;
  report["tuning_checks"] = tuning_checks(rows);

  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", o.json_path));
    out << report.dump(2) << '\n';
  }
  if (!o.csv_path.empty()) write_csv(rows, o.csv_path);
  std::cout << '\n';
  print_table(rows, std::cout);
  print_tuning_checks(report["tuning_checks"], std::cout);
  return 0;
}

}  // namespace
}  // namespace fvmmini::bench

int main(int argc, char** argv) {
  using fvmmini::bench::Options;
  Options o;
  CLI::App app{"fvmmini-bench: SpMV and CG of every storage format x ordering x backend on one matrix"};
  auto* input = app.add_option_group("input", "the matrix (exactly one)");
  input->add_option("--box", o.box, "FVM Laplacian of an N^3 box")->check(CLI::PositiveNumber);
  input->add_option("--poly-like", o.poly_like, "polyhedral-like N^3 lattice pattern (7-19 nonzeros per row)")
      ->check(CLI::PositiveNumber);
  input->add_option("--cavity-momentum", o.cavity_momentum,
                    "the momentum matrix nu L + V/dt of the N^3 lid-driven cavity (Re 100, dt of maxCo 0.5)")
      ->check(CLI::PositiveNumber);
  input->add_option("--polymesh", o.polymesh, "OpenFOAM case or polyMesh directory")->check(CLI::ExistingDirectory);
  input->add_option("--gmsh", o.gmsh, "Gmsh .msh file")->check(CLI::ExistingFile);
  input->add_option("--mtx", o.mtx, "Matrix Market file (symmetric)")->check(CLI::ExistingFile);
  input->require_option(1);
  app.add_option("--formats", o.formats,
                 "comma-separated formats, or all: every format with a kernel on one of the --backends")
      ->capture_default_str();
  app.add_option("--orderings", o.orderings,
                 "comma-separated orderings; 'a+b' applies b after a (e.g. random+rcm); natural = none")
      ->capture_default_str();
  app.add_option("--backends", o.backends, "comma-separated: cuda, reference")->capture_default_str();
  app.add_flag("--check", o.check, "verify every combination against the LDU face loop before timing");
  app.add_option("--warmup", o.warmup, "untimed SpMV runs first")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--repeats", o.repeats, "timed SpMV runs (median reported)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--cg-tolerance", o.cg_tolerance, "CG tolerance on the normalised residual")->capture_default_str();
  app.add_option("--cg-max-iter", o.cg_max_iter, "CG iteration limit")->capture_default_str();
  app.add_option("--cg-preconditioner", o.cg_preconditioner,
                 "the CG's preconditioner (DIC and mcsgs: fvmmini-solve-bench, by time to solution)")
      ->capture_default_str()
      ->check(CLI::IsMember({"none", "diagonal", "jacobi"}));
  app.add_flag("--no-cg", o.no_cg, "time SpMV only");
  app.add_option("--block", o.block,
                 "cuda: also time the SpMV of this many vectors at once (the matrix read once; formats that have "
                 "it: staircase, sell) against as many single SpMVs, and (with CG, preconditioner none or diagonal) "
                 "as many solves one by one against one block CG of all of them")
      ->check(CLI::Range(2, 3));
  app.add_flag("--mixed", o.mixed,
               "cuda: also time SpMV and CG through the float32 twin (precision mixed) of each format that has one "
               "(JSON spmv.mixed, cg.mixed: time against the double run's; CG to --cg-tolerance, measured with the "
               "float64 matrix); a format key not given takes the value precision mixed picks in a solver (staircase's "
               "alpha: every row in one group where that pads at most 1 % more entries), both runs on that layout");
  app.add_flag("--l2-window", o.l2_window,
               "cuda: also time SpMV and CG with a persisting-L2 window over the gathered vector (JSON l2_window, "
               "table columns L2w)");
  app.add_option("--poly-shift", o.poly_shift, "diagonal shift of the polyhedral-like graph Laplacian")->capture_default_str();
  fvmmini::bench::add_format_options(app, o.format_options);
  app.add_option("--seed", o.seed, "seed of x, b and the random ordering")->capture_default_str();
  app.add_option("--json", o.json_path, "write the results as JSON");
  app.add_option("--csv", o.csv_path, "write the results as CSV");
  CLI11_PARSE(app, argc, argv);
  try {
    return fvmmini::bench::run(o);
  } catch (const std::exception& e) {
    std::cerr << "fvmmini-bench: " << e.what() << '\n';
    return 1;
  }
}
