// Every format the backend implements, on every ordering and every combination of its
// parameters' test values (declared by the format units), against the LDU face loop: y, the
// fused x . y, refresh in place, the empty matrix; and a clear error for the formats it does not
// implement. Linked once per backend (format_backend.hpp). Without the backend's device the tests
// skip, or fail when FVMMINI_REQUIRE_GPU=1 (tools/gpu-check sets it).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/ordering/orderings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/make_linear_solver.hpp"
#include "tests/formats/format_backend.hpp"
#include "tests/linalg/matrix_generators.hpp"
#include "tests/require_gpu.hpp"

namespace fvmmini {
namespace {

using test::format_backend;

class Formats : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = format_backend().unavailable();
    if (why.empty()) return;
    if (test::gpu_required()) FAIL() << "FVMMINI_REQUIRE_GPU=1 but backend " << format_backend().name << ": " << why;
    GTEST_SKIP() << "backend " << format_backend().name << ": " << why << " (test skipped)";
  }
};


/// Every combination of the unit's parameters' test values (the default where a key has none).
std::vector<FormatParameters> parameter_sweep(const FormatUnit& unit) {
  return parameter_combinations(unit, [](const ParameterSpec& spec) { return spec.test_values; });
}

/// Largest |y - y_ref| / scale over the rows of A x (mesh order in, prepared numbering on the
/// backend), infinity for a row left NaN; and the fused dot's error relative to sum |x_i y_i|.
struct Errors {
  double y = 0.0;
  double dot = 0.0;
};

Errors errors_against_face_loop(const LduMatrix& m, test::BackendMatrix& a, std::uint64_t seed) {
  const label n = m.n_rows();
  const auto x = test::random_vector(n, seed);
  std::vector<double> y_ref(n);
  reference::ldu_spmv(m, x, y_ref);
  const auto scale = test::abs_row_scale(m, x);
  const Permutation& p = a.prepared().permutation;
  std::vector<double> x_op(n), y_op(n), y(n);
  permute_to_new(p, x, x_op);
  a.multiply(x_op, y_op);
  permute_to_old(p, y_op, y);
  Errors e;
  for (label i = 0; i < n; ++i)
    e.y = std::isfinite(y[i]) ? std::max(e.y, std::abs(y[i] - y_ref[i]) / std::max(scale[i], 1e-300)) : INFINITY;
  // --- the fused dot against x . y of the same y
  std::vector<double> y_dot(n);
  const double dot = a.multiply_dot(x_op, y_dot);
  double exact = 0.0, dot_scale = 0.0;
  for (label i = 0; i < n; ++i) {
    exact += x_op[i] * y_dot[i];
    dot_scale += std::abs(x_op[i] * y_dot[i]);
  }
  e.dot = std::isfinite(dot) ? std::abs(dot - exact) / std::max(dot_scale, 1e-300) : INFINITY;
  return e;
}

constexpr double row_tolerance = 10 * 2.2e-16 * 8;  // a few rounding steps per row of up to ~40 terms
constexpr double dot_tolerance = 1e-13;

TEST_F(Formats, EveryFormatOrderingAndParameterMatchesTheFaceLoop) {
  int checked = 0;
  for (const auto& unit : format_table()) {
    if (!format_backend().implements(unit.name)) continue;
    const auto sweep = parameter_sweep(unit);
    for (const auto& c : test::kernel_test_matrices())
      for (const auto& ordering : ordering_names())
        for (const auto& parameters : sweep) {
          PreparedFormat prepared;
          try {
            prepared = prepare_format(c.matrix, unit.name, ordering, parameters, 5);
          } catch (const std::invalid_argument& e) {
            // a format may decline a matrix it does not apply to, saying why (never silently)
            ASSERT_FALSE(std::string(e.what()).empty());
            continue;
          }
          const std::string what = fmt::format("{}, {}", c.name, describe(prepared));
          auto a = format_backend().upload(c.matrix, std::move(prepared));
          const Errors e = errors_against_face_loop(c.matrix, *a, 99);
          EXPECT_LE(e.y, row_tolerance) << what;
          EXPECT_LE(e.dot, dot_tolerance) << what;
          ++checked;
        }
  }
  EXPECT_GT(checked, 500);
}

TEST_F(Formats, RefreshInPlaceEqualsAFreshBuild) {
  const LduMatrix first = test::random_matrix(2000, 8, 41);
  const LduMatrix second = test::random_values(first.addressing, 42);  // same structure, new values
  for (const auto& unit : format_table()) {
    if (!format_backend().implements(unit.name)) continue;
    for (const std::string ordering : {"none", "rcm", "staircase", "random"}) {
      PreparedFormat prepared;
      try {
        prepared = prepare_format(first, unit.name, ordering, FormatParameters{}, 3);
      } catch (const std::invalid_argument&) {
        continue;  // declined, as above
      }
      SCOPED_TRACE(unit.name + " / " + ordering);
      auto a = format_backend().upload(first, std::move(prepared));
      a->refresh(second);
      const PreparedFormat fresh = prepare_format(second, unit.name, ordering, FormatParameters{}, 3);
      const auto refreshed = a->prepared().format.values();
      const auto rebuilt = fresh.format.values();
      ASSERT_EQ(refreshed.size(), rebuilt.size());
      for (size_t k = 0; k < rebuilt.size(); ++k) ASSERT_EQ(refreshed[k], rebuilt[k]) << "slot " << k;
      const Errors e = errors_against_face_loop(second, *a, 5);
      EXPECT_LE(e.y, row_tolerance);
    }
  }
}

TEST_F(Formats, AsymmetricMatricesMatchTheFaceLoopWhereTheFormatHoldsOne) {
  int checked = 0;
  for (const auto& unit : format_table()) {
    if (!format_backend().implements(unit.name)) continue;
    for (const auto& c : test::asymmetric_test_matrices())
      for (const std::string ordering : {"none", "rcm", "staircase", "random"}) {
        if (c.matrix.symmetric()) continue;  // no face: nothing below the diagonal
        if (unit.symmetric_only) {  // refused, naming the format, before anything is built
          try {
            prepare_format(c.matrix, unit.name, ordering, FormatParameters{}, 5);
            ADD_FAILURE() << unit.name << " took " << c.name;
          } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("format " + unit.name + " takes symmetric matrices only"),
                      std::string::npos)
                << e.what();
          }
          continue;
        }
        PreparedFormat prepared;
        try {
          prepared = prepare_format(c.matrix, unit.name, ordering, FormatParameters{}, 5);
        } catch (const std::invalid_argument& e) {
          ASSERT_FALSE(std::string(e.what()).empty());  // declined for the pattern, saying why
          continue;
        }
        const std::string what = fmt::format("{}, {}", c.name, describe(prepared));
        auto a = format_backend().upload(c.matrix, std::move(prepared));
        EXPECT_LE(errors_against_face_loop(c.matrix, *a, 98).y, row_tolerance) << what;
        // --- new lower coefficients through the slot maps, as a fresh build of them
        const LduMatrix second = test::asymmetric(c.matrix, 7);
        a->refresh(second);
        EXPECT_LE(errors_against_face_loop(second, *a, 97).y, row_tolerance) << what << ", refreshed";
        ++checked;
      }
  }
  EXPECT_GT(checked, 100);
}

TEST_F(Formats, EmptyMatrix) {
  const LduMatrix m = test::random_values(test::addressing_from_pairs(0, {}), 1);
  for (const auto& unit : format_table()) {
    if (!format_backend().implements(unit.name)) continue;
    SCOPED_TRACE(unit.name);
    PreparedFormat prepared = prepare_format(m, unit.name, "rcm", FormatParameters{});
    EXPECT_EQ(prepared.format.figures().stored_entries, 0);
    auto a = format_backend().upload(m, std::move(prepared));
    std::vector<double> x, y;
    EXPECT_NO_THROW(a->multiply(x, y));
    EXPECT_EQ(a->multiply_dot(x, y), 0.0);
  }
}

TEST_F(Formats, AFormatNotOnThisBackendIsAClearError) {
  const LduMatrix m = test::random_matrix(50, 3, 5);
  int rejected = 0;
  for (const auto& unit : format_table()) {
    if (format_backend().implements(unit.name)) continue;
    try {
      format_backend().upload(m, prepare_format(m, unit.name, "none", FormatParameters{}));
      ADD_FAILURE() << unit.name << ": expected an error";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not available on the " + format_backend().name + " backend"),
                std::string::npos)
          << e.what();
      ++rejected;
    }
  }
  SUCCEED() << rejected << " formats rejected";
}

TEST_F(Formats, TheBackendListsAgreeWithWhatTheBackendImplements) {
  // --- format_backends() (what --help and the docs list, in any build) against the backend itself
  for (const auto& unit : format_table()) {
    const auto listed = format_backends(unit.name);
    EXPECT_EQ(std::find(listed.begin(), listed.end(), format_backend().name) != listed.end(),
              format_backend().implements(unit.name))
        << unit.name;
  }
}

}  // namespace
}  // namespace fvmmini
