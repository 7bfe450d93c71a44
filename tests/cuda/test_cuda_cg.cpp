// Device CG and Jacobi-PCG against the reference CG: same iterations (to one), same residuals
// and solution to rounding, the same stopping rules and errors, bit-identical repeats in the
// device loop and whatever the host's check interval, and the LinearSolver in mesh order with a
// coefficient refresh.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_error.hpp"
#include "kernels/cuda/device_matrix.hpp"
#include "registry/format_registry.hpp"
#include "solvers/cuda/cuda_linear_solver.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/krylov/cg_rules.hpp"
#include "solvers/krylov/cuda/device_cg.hpp"
#include "solvers/krylov/cuda/device_krylov.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/krylov/reference_cg.hpp"
#include "solvers/make_linear_solver.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"
#include "tests/scoped_env.hpp"

namespace fvmmini {
namespace {

using CudaCg = test::CudaTest;

SolverSettings settings_for(const std::string& preconditioner, double tolerance = 1e-10, int max_iter = 1000) {
  SolverSettings s;
  s.preconditioner = parse_preconditioner(preconditioner);
  s.tolerance = tolerance;
  s.max_iter = max_iter;
  return s;
}

/// Default parameters (Staircase alpha 0.01, raised to sliceHeight/rows on small matrices).
FormatParameters parameters() { return {}; }

double max_abs(std::span<const double> v) {
  double m = 0.0;
  for (double e : v) m = std::max(m, std::abs(e));
  return m;
}

/// The reference CG and the device CG on the same prepared format from the same x0.
/// @return false when the format declines the matrix in both orders tried
bool expect_agreement(const LduMatrix& m, const std::string& format, const SolverSettings& s) {
  // --- rcm, or the natural order for a format that declines rcm (dia: a box in natural order)
  std::string ordering = "rcm";
  PreparedFormat prepared;
  try {
    prepared = prepare_format(m, format, ordering, parameters());
  } catch (const std::invalid_argument&) {
    ordering = "none";
    try {
      prepared = prepare_format(m, format, ordering, parameters());
    } catch (const std::invalid_argument&) {
      return false;  // declined in either order (dia on an unstructured pattern)
    }
  }
  // --- a library baseline has no reference kernel: csr in the same ordering stands in
  const std::string reference_format = find_format(format).multiply ? format : "csr";
  auto op = make_reference_operator(m, prepare_format(m, reference_format, ordering, parameters()));
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceCg cg(device, op->diagonal());

  const label n = m.n_rows();
  const auto b = test::random_vector(n, 3);
  const auto x0 = test::random_vector(n, 4);
  std::vector<double> x_ref = x0, x_dev = x0;
  CgWorkspace work;
  const SolverPerformance ref = reference_cg(*op, x_ref, b, s, work);
  const SolverPerformance dev = cg.solve(x_dev, b, s);

  const std::string where = format + " / " + s.preconditioner;
  EXPECT_EQ(dev.solver_name, solver_name(s, format));
  EXPECT_TRUE(ref.converged) << where;
  EXPECT_TRUE(dev.converged) << where;
  EXPECT_NEAR(dev.iterations, ref.iterations, 1) << where;
  EXPECT_NEAR(dev.initial_residual, ref.initial_residual, 1e-12 * ref.initial_residual) << where;
  EXPECT_LT(dev.final_residual, s.tolerance) << where;
  EXPECT_EQ(cg.residual_history().size(), static_cast<size_t>(dev.iterations) + 1) << where;
  if (!cg.residual_history().empty()) {
    EXPECT_EQ(cg.residual_history().front(), dev.initial_residual) << where;
    EXPECT_EQ(cg.residual_history().back(), dev.final_residual) << where;
  }
  double diff = 0.0;
  for (label i = 0; i < n; ++i) diff = std::max(diff, std::abs(x_dev[i] - x_ref[i]));
  EXPECT_LT(diff, 1e-7 * max_abs(x_ref)) << where;
  return true;
}

TEST_F(CudaCg, CgAndJacobiPcgAgreeWithTheReference) {
  const LduMatrix random = test::random_matrix(3000, 6, 51);
  const LduMatrix box = test::box_matrix(24, 20, 16, 52);
  for (const auto& format : cuda::device_format_names())
    for (const std::string pc : {"none", "jacobi"}) {
      expect_agreement(random, format, settings_for(pc));  // dia declines it
      // --- every format solves the box (in natural order at least)
      EXPECT_TRUE(expect_agreement(box, format, settings_for(pc))) << format;
    }
}

// Every Krylov unit the cuda backend lists has its CUDA twin, and the cuda backend's solver with it
// agrees with the reference backend's under none and diagonal (one that takes no preconditioner,
// smoothSolver, under none): the solve line, iterations within one, the solution. A unit it does not
// list is refused there, saying so.
TEST_F(CudaCg, EveryKrylovUnitHasADeviceTwinThatAgreesWithTheReference) {
  const LduMatrix m = test::box_matrix(14, 12, 10, 53);
  const auto b = test::random_vector(m.n_rows(), 8);
  for (const KrylovUnit& method : krylov_table()) {
    const std::vector<std::string> backends = krylov_backends(method.name);
    if (std::find(backends.begin(), backends.end(), "cuda") == backends.end()) {
      SolverSettings s = settings_for("none");
      s.solver = method.name;
      s.backend = Backend::cuda;
      EXPECT_THROW(make_linear_solver(m, s), std::invalid_argument) << method.name;
      continue;
    }
    EXPECT_EQ(cuda::find_device_krylov(method.name).name, method.name);
    for (const std::string pc : {"none", "diagonal"}) {
      if (!method.preconditioned && pc != "none") continue;  // smoothSolver: its smoother instead
      SolverSettings s = settings_for(pc);
      s.solver = method.name;
      s.format = "csr";
      std::vector<double> x_ref(m.n_rows(), 0.0), x_dev(m.n_rows(), 0.0);
      s.backend = Backend::reference;
      const SolverPerformance r = make_linear_solver(m, s)->solve(x_ref, b, "T");
      s.backend = Backend::cuda;
      const SolverPerformance d = cuda::make_cuda_linear_solver(m, s)->solve(x_dev, b, "T");
      const std::string where = method.name + " / " + pc;
      EXPECT_EQ(d.solver_name, r.solver_name) << where;
      EXPECT_TRUE(d.converged) << where;
      EXPECT_NEAR(d.iterations, r.iterations, 1) << where;
      double diff = 0.0;
      for (label i = 0; i < m.n_rows(); ++i) diff = std::max(diff, std::abs(x_dev[i] - x_ref[i]));
      EXPECT_LT(diff, 1e-7 * max_abs(x_ref)) << where;
    }
  }
}

TEST_F(CudaCg, RepeatRunsAreBitIdenticalInTheDeviceLoopAndWhateverTheCheckInterval) {
  const LduMatrix m = test::box_matrix(30, 30, 30, 61);
  for (const std::string format : {"csr", "sell", "staircase"}) {
    const PreparedFormat prepared = prepare_format(m, format, "rcm", parameters());
    auto op = make_reference_operator(m, prepared);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    cuda::DeviceCg cg(device, op->diagonal());
    const auto b = test::random_vector(m.n_rows(), 5);
    std::vector<double> first_x(m.n_rows(), 0.0), first_history;
    SolverPerformance first;
    for (int interval : {0, 8, 1, 0, 64}) {  // 0: the device loop, else batches of `interval`
      cg.set_device_loop(interval == 0);
      if (interval > 0) cg.set_check_interval(interval);
      std::vector<double> x(m.n_rows(), 0.0);
      const SolverPerformance perf = cg.solve(x, b, settings_for("jacobi", 1e-12));
      EXPECT_EQ(cg.last_solve_looped(), interval == 0 && cuda::device_loops_enabled()) << format << ", interval " << interval;
      if (first_history.empty()) {
        first = perf;
        first_x = x;
        first_history = cg.residual_history();
        continue;
      }
      EXPECT_EQ(perf.iterations, first.iterations) << format << ", interval " << interval;
      ASSERT_EQ(cg.residual_history().size(), first_history.size());
      EXPECT_EQ(std::memcmp(cg.residual_history().data(), first_history.data(), first_history.size() * sizeof(double)), 0)
          << format << ", interval " << interval;
      EXPECT_EQ(std::memcmp(x.data(), first_x.data(), x.size() * sizeof(double)), 0) << format << ", interval " << interval;
    }
  }
}

// The persisting-L2 window is a cache hint: a solve with it gives the bits of one without it, in
// every launch mode (staircase groups forks streams), and the window ends with the solve.
TEST_F(CudaCg, AnL2WindowChangesNoBitAndEndsWithItsSolve) {
  const cuda::PersistingL2 device_l2 = cuda::persisting_l2();
  ASSERT_GT(device_l2.max_set_aside_bytes, 0u) << "the tests run on Hopper, which has persisting L2";
  ASSERT_GT(device_l2.max_window_bytes, 0u);
  const LduMatrix m = test::box_matrix(30, 30, 30, 62);
  const label n = m.n_rows();
  const auto b = test::random_vector(n, 6);
  FormatParameters groups;
  groups.set("launch", "groups");
  for (const auto& [format, given] : {std::pair{std::string("csr"), parameters()}, std::pair{std::string("sell"), parameters()},
                                      std::pair{std::string("staircase"), parameters()}, std::pair{std::string("staircase"), groups}}) {
    const PreparedFormat prepared = prepare_format(m, format, "rcm", given);
    auto op = make_reference_operator(m, prepared);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    cuda::DeviceCg plain(device, op->diagonal()), windowed(device, op->diagonal());
    windowed.set_l2_window(true);
    std::vector<double> x_plain(n, 0.0), x_windowed(n, 0.0);
    const SolverPerformance a = plain.solve(x_plain, b, settings_for("jacobi", 1e-12));
    const SolverPerformance w = windowed.solve(x_windowed, b, settings_for("jacobi", 1e-12));
    const std::string where = format + (given.has("launch") ? " (launch groups)" : "");
    EXPECT_EQ(w.iterations, a.iterations) << where;
    EXPECT_EQ(std::memcmp(x_windowed.data(), x_plain.data(), n * sizeof(double)), 0) << where;
    ASSERT_EQ(windowed.residual_history().size(), plain.residual_history().size()) << where;
    EXPECT_EQ(std::memcmp(windowed.residual_history().data(), plain.residual_history().data(),
                          plain.residual_history().size() * sizeof(double)),
              0)
        << where;
    // --- the window covered p (n doubles), as much of it as may persist, and is gone after the solve
    const cuda::L2Window used = windowed.last_l2_window();
    EXPECT_EQ(used.bytes, std::min<std::size_t>(n * sizeof(double), device_l2.max_window_bytes)) << where;
    EXPECT_GT(used.hit_ratio, 0.0) << where;
    EXPECT_LE(used.hit_ratio, 1.0) << where;
    EXPECT_TRUE(plain.last_l2_window().empty()) << where;
    EXPECT_EQ(cuda::stream_l2_window_bytes(windowed.stream()), 0u) << where;
    EXPECT_EQ(cuda::persisting_l2_set_aside_bytes(), 0u) << where;
    // --- turned off, the same solver recaptures its graphs without the window: the same bits again
    windowed.set_l2_window(false);
    std::vector<double> x_again(n, 0.0);
    windowed.solve(x_again, b, settings_for("jacobi", 1e-12));
    EXPECT_TRUE(windowed.last_l2_window().empty()) << where;
    EXPECT_EQ(std::memcmp(x_again.data(), x_plain.data(), n * sizeof(double)), 0) << where;
  }
}

// l2Window auto: on for vectors above a sixteenth of L2 up to a third of it, off outside.
TEST_F(CudaCg, AnL2WindowPaysForVectorsFromASixteenthToAThirdOfL2) {
  const std::size_t l2 = cuda::device_info().l2_bytes;
  EXPECT_TRUE(cuda::l2_window_pays(l2 / 3));
  EXPECT_TRUE(cuda::l2_window_pays(l2 / 16 + 1));
  EXPECT_FALSE(cuda::l2_window_pays(l2 / 3 + 1));
  EXPECT_FALSE(cuda::l2_window_pays(l2 / 16));
  EXPECT_EQ(parse_l2_window("auto"), L2WindowSetting::automatic);
  EXPECT_THROW(parse_l2_window("yes"), std::invalid_argument);
}

// auto keeps a window for CG and Jacobi-PCG on a vector of the right size (an 80^3 box: 4 MB,
// above a sixteenth of an H200's L2), not under another preconditioner; on and off are obeyed.
TEST_F(CudaCg, AutoKeepsAnL2WindowForCgAndJacobiPcgOnly) {
  const LduMatrix m = test::box_matrix(80, 80, 80, 63);
  ASSERT_TRUE(cuda::l2_window_pays(m.n_rows() * sizeof(double))) << "the box must be in auto's range";
  auto described = [&](const std::string& preconditioner, L2WindowSetting window) {
    SolverSettings s = settings_for(preconditioner);
    s.backend = Backend::cuda;
    s.l2_window = window;
    return cuda::DeviceSolver(m, s).describe();
  };
  const std::string on = "l2Window on";
  EXPECT_NE(described("none", L2WindowSetting::automatic).find(on), std::string::npos);
  EXPECT_NE(described("diagonal", L2WindowSetting::automatic).find(on), std::string::npos);
  EXPECT_EQ(described("DIC", L2WindowSetting::automatic).find(on), std::string::npos);
  EXPECT_NE(described("DIC", L2WindowSetting::on).find(on), std::string::npos);
  EXPECT_EQ(described("diagonal", L2WindowSetting::off).find(on), std::string::npos);
}

// FVMMINI_DEVICE_LOOP=off (for compute-sanitizer runs) solves in the host's batches, to the bits
// of the device loop; a value other than on or off is an error naming the variable.
TEST_F(CudaCg, TheDeviceLoopSwitchedOffSolvesInBatchesToTheSameBits) {
  const LduMatrix m = test::box_matrix(20, 20, 20, 61);
  const PreparedFormat prepared = prepare_format(m, "csr", "rcm", parameters());
  auto op = make_reference_operator(m, prepared);
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  const auto b = test::random_vector(m.n_rows(), 5);
  struct Solve {
    SolverPerformance perf;
    std::vector<double> x;
    bool looped = false;
  };
  const auto solve = [&] {  // a fresh CG: its graphs captured under the variable as it is now
    cuda::DeviceCg cg(device, op->diagonal());
    Solve s;
    s.x.assign(m.n_rows(), 0.0);
    s.perf = cg.solve(s.x, b, settings_for("jacobi", 1e-12));
    s.looped = cg.last_solve_looped();
    return s;
  };
  const Solve as_set = solve();  // on, unless the whole run has it off
  EXPECT_EQ(as_set.looped, cuda::device_loops_enabled());
  {
    const test::ScopedEnv off("FVMMINI_DEVICE_LOOP", "off");
    EXPECT_FALSE(cuda::device_loops_enabled());
    const Solve batches = solve();
    EXPECT_FALSE(batches.looped);
    EXPECT_EQ(batches.perf.iterations, as_set.perf.iterations);
    EXPECT_EQ(batches.perf.final_residual, as_set.perf.final_residual);
    EXPECT_EQ(std::memcmp(batches.x.data(), as_set.x.data(), as_set.x.size() * sizeof(double)), 0);
  }
  const test::ScopedEnv bad("FVMMINI_DEVICE_LOOP", "no");
  try {
    solve();
    ADD_FAILURE() << "FVMMINI_DEVICE_LOOP=no accepted";
  } catch (const cuda::CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("FVMMINI_DEVICE_LOOP='no': expected on or off"), std::string::npos) << e.what();
  }
}

TEST_F(CudaCg, StoppingRulesFollowTheReference) {
  const LduMatrix m = test::random_matrix(2000, 5, 71);
  const PreparedFormat prepared = prepare_format(m, "csr", "none", parameters());
  auto op = make_reference_operator(m, prepared);
  cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
  cuda::DeviceCg cg(device, op->diagonal());
  const auto b = test::random_vector(m.n_rows(), 6);
  CgWorkspace work;
  for (const bool loop : {true, false}) {  // the device loop, and the host's batches
    SCOPED_TRACE(loop ? "device loop" : "batches");
    cg.set_device_loop(loop);
    // --- the solution after the last iteration (its x update included) agrees with the reference's
    //     to rounding: a lost or repeated last update would differ by alpha p
    auto both = [&](const SolverSettings& s) {
      std::vector<double> xr(m.n_rows(), 0.0), xd(m.n_rows(), 0.0);
      auto result = std::pair{reference_cg(*op, xr, b, s, work), cg.solve(xd, b, s)};
      double diff = 0.0;
      for (label i = 0; i < m.n_rows(); ++i) diff = std::max(diff, std::abs(xd[i] - xr[i]));
      EXPECT_LE(diff, 1e-11 * std::max(1e-300, max_abs(xr))) << result.second.iterations << " iterations";
      return result;
    };
    // --- max_iter reached: exactly max_iter iterations, not converged
    auto [r1, d1] = both(settings_for("none", 1e-14, 3));
    EXPECT_EQ(d1.iterations, 3);
    EXPECT_FALSE(d1.converged);
    EXPECT_EQ(r1.iterations, 3);
    // --- converged within the first batch, which is as long as the last solve (3 iterations)
    auto [r5, d5] = both(settings_for("none", 0.5 * r1.final_residual + 0.5 * r1.initial_residual));
    EXPECT_TRUE(d5.converged);
    EXPECT_EQ(d5.iterations, r5.iterations);
    // --- converged at the start: no iteration
    auto [r2, d2] = both(settings_for("none", 10.0));
    EXPECT_EQ(d2.iterations, 0);
    EXPECT_TRUE(d2.converged);
    // --- max_iter 0
    auto [r3, d3] = both(settings_for("none", 1e-14, 0));
    EXPECT_EQ(d3.iterations, 0);
    EXPECT_FALSE(d3.converged);
    // --- relative tolerance
    SolverSettings rel = settings_for("jacobi", 0.0);
    rel.rel_tol = 1e-3;
    auto [r4, d4] = both(rel);
    EXPECT_TRUE(d4.converged);
    EXPECT_NEAR(d4.iterations, r4.iterations, 1);
    EXPECT_LT(d4.final_residual, 1e-3 * d4.initial_residual);
    EXPECT_EQ(cg.last_solve_looped(), loop && cuda::device_loops_enabled());
  }
}

TEST_F(CudaCg, BreakdownSingularAndNanAreSolverErrors) {
  LduMatrix m = test::random_matrix(500, 4, 81);
  const auto b = test::random_vector(m.n_rows(), 7);
  // --- the SolverError's message, whose text comes from the rules both CGs share (cg_rules.hpp)
  auto solve = [&](const LduMatrix& a, std::vector<double> rhs, const std::string& pc) {
    const PreparedFormat prepared = prepare_format(a, "staircase", "none", parameters());
    auto op = make_reference_operator(a, prepared);
    cuda::DeviceMatrix device = cuda::make_device_matrix(prepared);
    cuda::DeviceCg cg(device, op->diagonal());
    std::vector<double> x(a.n_rows(), 0.0);
    try {
      cg.solve(x, rhs, settings_for(pc));
    } catch (const SolverError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto starts_with = [](const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; };
  // --- negative definite: p'Ap < 0 at the first iteration; Jacobi refuses the negative diagonal
  LduMatrix negative = m;
  for (auto& d : negative.diag) d = -d;
  for (auto& u : negative.upper) u = -u;
  const std::string breakdown = solve(negative, b, "none");
  EXPECT_TRUE(starts_with(breakdown, "CG breakdown at iteration 1: p'Ap = -")) << breakdown;
  const std::string jacobi = solve(negative, b, "jacobi");
  EXPECT_TRUE(starts_with(jacobi, "Jacobi: diagonal entry ")) << jacobi;
  EXPECT_NE(jacobi.find(" (not positive)"), std::string::npos) << jacobi;
  // --- every row sums to zero: singular
  LduMatrix laplacian = m;
  std::fill(laplacian.diag.begin(), laplacian.diag.end(), 0.0);
  for (label f = 0; f < laplacian.addressing->n_faces(); ++f) {
    laplacian.diag[laplacian.lower_addr()[f]] -= laplacian.upper[f];
    laplacian.diag[laplacian.upper_addr()[f]] -= laplacian.upper[f];
  }
  EXPECT_EQ(solve(laplacian, b, "none"), cg_error({CgStatus::singular}).what());
  // --- NaN in b
  std::vector<double> bad = b;
  bad[17] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(solve(m, bad, "none"), cg_error({CgStatus::initial_not_finite}).what());
}

TEST_F(CudaCg, LinearSolverSolvesInMeshOrderAndRefreshes) {
  const LduMatrix first = test::box_matrix(20, 18, 16, 91);
  const LduMatrix second = test::random_values(first.addressing, 92);
  for (const std::string format : {"staircase", "sell", "csr-cusparse"}) {
    SolverSettings s = settings_for("jacobi");
    s.backend = Backend::cuda;
    s.format = format;
    s.ordering = "rcm";
    s.format_parameters = parameters();
    auto solver = cuda::make_cuda_linear_solver(first, s);
    EXPECT_NE(solver->describe().find(format), std::string::npos);
    for (const LduMatrix* m : {&first, &second}) {
      if (m == &second) solver->update_coefficients(second);
      const auto b = test::random_vector(m->n_rows(), 8);
      std::vector<double> x(m->n_rows(), 0.0), x_ref(m->n_rows(), 0.0);
      const SolverPerformance perf = solver->solve(x, b, "p");
      EXPECT_EQ(perf.field, "p");
      EXPECT_TRUE(perf.converged);
      auto op = make_reference_operator(*m, prepare_format(*m, "csr", "none", parameters()));
      CgWorkspace work;
      reference_cg(*op, x_ref, b, s, work);
      double diff = 0.0;
      for (label i = 0; i < m->n_rows(); ++i) diff = std::max(diff, std::abs(x[i] - x_ref[i]));
      EXPECT_LT(diff, 1e-7 * max_abs(x_ref)) << format;
    }
  }
}

TEST_F(CudaCg, FormatKeysSetToAutoAreTimedOnTheDeviceAndTheChoiceSolves) {
  const LduMatrix first = test::box_matrix(24, 20, 18, 93);
  const LduMatrix second = test::random_values(first.addressing, 94);
  const ParameterValue automatic = std::string("auto");
  struct Tuned {
    std::string format;
    std::vector<std::string> keys;
    Precision precision;
    std::string timer;
  };
  for (const Tuned& t : {Tuned{"staircase", {"sliceHeight", "alpha"}, Precision::full,
                               "cuda SpMV as the CG runs it"},
                         Tuned{"sell", {"chunkSize", "sortWindow"}, Precision::mixed,
                               "cuda SpMV of the float32 twin as the CG runs it"},
                         Tuned{"ellwarp", {"threshold"}, Precision::full, "cuda SpMV"}}) {
    SolverSettings s = settings_for("jacobi");
    s.backend = Backend::cuda;
    s.format = t.format;
    s.ordering = "rcm";
    s.precision = t.precision;
    s.l2_window = L2WindowSetting::off;
    for (const auto& key : t.keys) s.format_parameters.set(key, automatic);
    if (t.format == "ellwarp") s.format_parameters.set("kernel", "k2");
    auto solver = cuda::make_cuda_linear_solver(first, s);
    const std::string described = solver->describe();
    EXPECT_NE(described.find(t.format + " tuned: "), std::string::npos) << described;
    EXPECT_NE(described.find("each setting timed by the " + t.timer), std::string::npos) << described;
    EXPECT_NE(described.find("  chosen"), std::string::npos) << described;
    for (const LduMatrix* m : {&first, &second}) {
      if (m == &second) solver->update_coefficients(second);
      const auto b = test::random_vector(m->n_rows(), 9);
      std::vector<double> x(m->n_rows(), 0.0), x_ref(m->n_rows(), 0.0);
      const SolverPerformance perf = solver->solve(x, b, "p");
      EXPECT_TRUE(perf.converged) << t.format;
      auto op = make_reference_operator(*m, prepare_format(*m, "csr", "none", parameters()));
      CgWorkspace work;
      reference_cg(*op, x_ref, b, s, work);
      double diff = 0.0;
      for (label i = 0; i < m->n_rows(); ++i) diff = std::max(diff, std::abs(x[i] - x_ref[i]));
      EXPECT_LT(diff, 1e-7 * max_abs(x_ref)) << t.format;
    }
  }
  // --- the timer alone: a time for a format, an error for a twin the format does not have
  const PreparedFormat csr = prepare_format(first, "csr", "rcm", parameters());
  const double ms = cuda::spmv_timer(Precision::full, true).milliseconds("csr", csr.format, csr.parameters, first.n_rows());
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 100.0);
  EXPECT_THROW(cuda::spmv_timer(Precision::mixed, false).milliseconds("csr", csr.format, csr.parameters, first.n_rows()),
               std::invalid_argument);
}

}  // namespace
}  // namespace fvmmini
