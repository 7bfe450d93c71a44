// Staircase SELL's two CUDA launch modes give bit-identical y, also on hand-laid shapes the
// builder never makes (empty groups, an all-padding slice), and fused dot partials that sum to
// x . y. (Every format against the face loop on every backend: tests/formats/.)

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kernels/cuda/device_matrix.hpp"
#include "kernels/cuda/device_rows.cuh"
#include "kernels/cuda/device_spmv.cuh"
#include "kernels/cuda/host_transfer.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "linalg/formats/staircase_matrix.hpp"
#include "kernels/reference/ldu_spmv.hpp"
#include "registry/format_registry.hpp"
#include "tests/cuda/cuda_test_support.hpp"
#include "tests/linalg/matrix_generators.hpp"

namespace fvmmini {
namespace {

using CudaStaircase = test::CudaTest;


/// max_i |y_i - ref_i| / scale_i (scale = sum_j |a_ij x_j|); NaN anywhere gives infinity.
double worst_relative_error(std::span<const double> y, std::span<const double> ref, std::span<const double> scale) {
  double worst = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i])) return INFINITY;
    worst = std::max(worst, std::abs(y[i] - ref[i]) / std::max(scale[i], 1e-300));
  }
  return worst;
}

/// Slices over all groups of a Staircase matrix.
int total_slices(const StaircaseMatrix& a) {
  return std::accumulate(a.index.step_blocks.begin(), a.index.step_blocks.end(), 0);
}

/// Both launch modes of one Staircase matrix: y bit-identical, to each other, to the plain multiply
/// and to the interleaved visit without slice positions; the fused partials deterministic and
/// summing to x . y. Returns the largest relative error of y against y_ref.
double check_launch_modes(PreparedFormat prepared, std::span<const double> x, std::span<const double> y_ref,
                          std::span<const double> scale, const std::string& what) {
  const StaircaseMatrix& a = prepared.format.as<StaircaseMatrix>();
  const std::size_t n = x.size();
  std::vector<double> y_groups(n), y_interleaved(n), y_dot(n), y_again(n);
  prepared.parameters.set("launch", std::string("groups"));
  cuda::DeviceMatrix groups = cuda::make_device_matrix(prepared);
  prepared.parameters.set("launch", std::string("interleaved"));
  cuda::DeviceMatrix interleaved = cuda::make_device_matrix(prepared);
  groups.multiply(x, y_groups);
  interleaved.multiply(x, y_interleaved);
  EXPECT_EQ(std::memcmp(y_groups.data(), y_interleaved.data(), n * sizeof(double)), 0) << what;
  // --- without slice positions the slices are visited by relative position in their group: same y
  //     (positions where the rows were grouped or laid by hand; rows of one group keep the ordering
  //     and have none)
  if (!prepared.position_before_grouping.empty() || !a.slice_position.empty()) {
    EXPECT_EQ(a.slice_position.size(), static_cast<std::size_t>(total_slices(a))) << what;
  }
  {
    PreparedFormat unplaced = prepared;
    unplaced.format.as<StaircaseMatrix>().slice_position.clear();
    std::vector<double> y_unplaced(n);
    cuda::make_device_matrix(unplaced).multiply(x, y_unplaced);
    EXPECT_EQ(std::memcmp(y_unplaced.data(), y_groups.data(), n * sizeof(double)), 0) << what;
  }

  // --- fused dot: same y; partials deterministic, their sum x . y up to rounding
  const std::vector<double> partials = interleaved.multiply_with_dot(x, y_dot);
  const std::vector<double> again = interleaved.multiply_with_dot(x, y_again);
  const std::vector<double> group_partials = groups.multiply_with_dot(x, y_again);
  EXPECT_EQ(std::memcmp(y_dot.data(), y_interleaved.data(), n * sizeof(double)), 0) << what;
  EXPECT_EQ(std::memcmp(y_again.data(), y_groups.data(), n * sizeof(double)), 0) << what;
  // --- one partial per interleaved block of 1024 / sh slices (below the grid cap on these
  // matrices)
  const int per_block = std::max(1, 1024 / a.slice_height);
  EXPECT_EQ(partials.size(), static_cast<std::size_t>(std::max(1, (total_slices(a) + per_block - 1) / per_block)))
      << what;
  EXPECT_EQ(partials, again) << what;
  double dot = 0.0, dot_scale = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    dot += x[i] * y_interleaved[i];
    dot_scale += std::abs(x[i] * y_interleaved[i]);
  }
  const double sum = std::accumulate(partials.begin(), partials.end(), 0.0);
  const double group_sum = std::accumulate(group_partials.begin(), group_partials.end(), 0.0);
  EXPECT_LE(std::abs(sum - dot), 1e-13 * dot_scale) << what;
  EXPECT_LE(std::abs(group_sum - dot), 1e-13 * dot_scale) << what;
  if (n == 0) {
    EXPECT_EQ(sum, 0.0) << what;
  }
  return worst_relative_error(y_interleaved, y_ref, scale);
}

TEST_F(CudaStaircase, StaircaseLaunchModesAreBitIdentical) {
  int checked = 0;
  for (const auto& c : test::kernel_test_matrices())
    for (const std::string ordering : {"none", "rcm", "random"})
      for (int sh : {32, 64, 1024}) {
        FormatParameters parameters;
        parameters.set("sliceHeight", sh);
        const PreparedFormat prepared = prepare_format(c.matrix, "staircase", ordering, parameters, 5);
        const label n = c.matrix.n_rows();
        const auto x = test::random_vector(n, 98);
        std::vector<double> y_ref(n), scale = test::abs_row_scale(c.matrix, x);
        reference::ldu_spmv(c.matrix, x, y_ref);
        std::vector<double> x_op(n), y_ref_op(n), scale_op(n);
        permute_to_new(prepared.permutation, x, x_op);
        permute_to_new(prepared.permutation, y_ref, y_ref_op);
        permute_to_new(prepared.permutation, scale, scale_op);
        const std::string what = c.name + ", " + describe(prepared);
        EXPECT_LE(check_launch_modes(prepared, x_op, y_ref_op, scale_op, what), 10 * 2.2e-16 * 8) << what;
        ++checked;
      }
  EXPECT_GT(checked, 80);
  const LduMatrix empty = test::random_values(test::addressing_from_pairs(0, {}), 1);
  const PreparedFormat none = prepare_format(empty, "staircase", "none", FormatParameters{});
  EXPECT_EQ(check_launch_modes(none, {}, {}, {}, "empty matrix"), 0.0);
}

/// A Staircase matrix laid out by hand (the layout of staircase_matrix.hpp), with shapes the
/// builder makes rarely or never: empty groups first and in the middle, rows with no entries and
/// padded rows, rows longer than the slice (40 entries, sh 32), and a last group with a part-padding
/// slice and an all-padding one. Column 0 is used. Returns the matrix and its rows' entries.
std::pair<StaircaseMatrix, std::vector<std::vector<std::pair<label, double>>>> hand_laid_staircase() {
  constexpr int sh = 32;
  struct Group {
    label length, slices, rows;
  };
  const std::vector<Group> groups{{1, 0, 0}, {2, 1, 32}, {3, 0, 0}, {5, 2, 64}, {40, 3, 40}};
  StaircaseMatrix a;
  a.slice_height = sh;
  a.alpha = 1.0;
  a.index.step_ptr = {0};
  a.index.row_ptr = {0};
  for (const Group& g : groups) {
    a.index.step_lengths.push_back(g.length);
    a.index.step_blocks.push_back(g.slices);
    a.index.step_ptr.push_back(a.index.step_ptr.back() + static_cast<std::int64_t>(g.length) * g.slices * sh);
    a.index.row_ptr.push_back(a.index.row_ptr.back() + g.rows);
  }
  a.n_rows = a.index.row_ptr.back();
  a.col.assign(a.index.val_size(), -1);
  a.values.assign(a.index.val_size(), 0.0);
  std::vector<std::vector<std::pair<label, double>>> rows;
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> value(0.5, 1.5);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (label j = 0; j < groups[g].rows; ++j) {
      // --- row j of the group: up to `length` distinct columns, ascending (column 0 in the first row)
      const auto count = static_cast<label>(j == 0 ? groups[g].length : rng() % (groups[g].length + 1));
      std::set<label> columns;
      if (j == 0) columns.insert(0);
      while (static_cast<label>(columns.size()) < count) columns.insert(static_cast<label>(rng() % a.n_rows));
      std::vector<std::pair<label, double>> row;
      label k = 0;
      for (label c : columns) {
        const std::int64_t slot = a.index.step_ptr[g] + static_cast<std::int64_t>(j / sh) * groups[g].length * sh +
                                  static_cast<std::int64_t>(k++) * sh + j % sh;
        a.col[slot] = c;
        a.values[slot] = (rng() % 2 ? 1.0 : -1.0) * value(rng);
        row.emplace_back(c, a.values[slot]);
      }
      a.n_nonzeros += static_cast<std::int64_t>(row.size());
      rows.push_back(std::move(row));
    }
  return {std::move(a), std::move(rows)};
}

TEST_F(CudaStaircase, StaircaseHandLaidShapesMatchTheirRowsInBothLaunchModes) {
  auto [a, rows] = hand_laid_staircase();
  ASSERT_EQ(a.n_rows, 136);
  ASSERT_EQ(total_slices(a), 6);  // the last of them rows 160..191: padding only
  const auto x = test::random_vector(a.n_rows, 5);
  std::vector<double> y_ref(a.n_rows, 0.0), scale(a.n_rows, 0.0);
  for (label i = 0; i < a.n_rows; ++i)
    for (const auto& [c, v] : rows[i]) {
      y_ref[i] += v * x[c];
      scale[i] += std::abs(v * x[c]);
    }
  // --- slices visited out of group order, the padding-only one in the middle
  a.slice_position = {5, 3, 0, 4, 1, 2};
  PreparedFormat prepared;
  prepared.format_name = "staircase";
  prepared.ordering_name = "none";
  prepared.parameters = resolve_format_parameters("staircase", {}, a.n_rows);
  prepared.format = std::move(a);
  EXPECT_LE(check_launch_modes(prepared, x, y_ref, scale, "hand-laid"), 10 * 2.2e-16 * 8);
}

/// A device buffer's contents on the host.
template <class T>
std::vector<T> downloaded(const cuda::DeviceBuffer<T>& buffer) {
  std::vector<T> host(buffer.size());
  buffer.download(std::span<T>(host));
  return host;
}

/// A host map's slots as a std::vector (LduToCsrMap's are unfilled vectors).
template <class Slots>
std::vector<std::int64_t> plain(const Slots& slots) {
  return {slots.begin(), slots.end()};
}

TEST_F(CudaStaircase, TheArraysBuiltOnTheDeviceAreTheHostsToTheBit) {
  // --- grouped and ungrouped rows, a hub longer than any slice, asymmetric values, duplicate
  //     pairs of cells (random), orderings that scatter the rows, both launches: the shape's
  //     arrays built on the device are the host's build from the rows, values, map and y
  const std::vector<test::NamedMatrix> cases{
      {"box 30x30x20", test::box_matrix(30, 30, 20, 61)},
      {"asymmetric box 9x7x5", test::asymmetric(test::box_matrix(9, 7, 5, 62), 63)},
      {"random 3000 wide rows", test::random_matrix(3000, 40, 64)},
      {"star", test::star_matrix(300, 65)},
      {"ring", test::ring_matrix(200, 66)},
      {"one row", test::random_matrix(1, 0, 67)}};
  int checked = 0;
  for (const auto& c : cases)
    for (const std::string ordering : {"none", "rcm", "staircase"})
      for (double alpha : {0.01, 1.0})
        for (const std::string launch : {"interleaved", "groups"}) {
          FormatParameters given;
          given.set("alpha", alpha);
          given.set("launch", launch);
          given.set("sliceHeight", c.matrix.n_rows() > 1000 ? 64 : 32);
          PreparedFormat host, shape;
          try {
            host = prepare_format(c.matrix, "staircase", ordering, given, 9);
          } catch (const std::invalid_argument&) {
            continue;  // alpha below sliceHeight / rows: no such matrix in either route
          }
          shape = prepare_format(c.matrix, "staircase", ordering, given, 9, {}, nullptr, FormatArrays::device);
          const std::string what = c.name + ", " + describe(host);
          ASSERT_TRUE(shape.arrays_on_device) << what;
          EXPECT_EQ(shape.value_map, nullptr) << what;
          EXPECT_TRUE(shape.format.values().empty()) << what;
          EXPECT_EQ(shape.permutation.new_to_old, host.permutation.new_to_old) << what;
          EXPECT_EQ(shape.format.figures().stored_entries, host.format.figures().stored_entries) << what;
          EXPECT_EQ(shape.format.figures().footprint_bytes, host.format.figures().footprint_bytes) << what;
          EXPECT_EQ(shape.format.as<StaircaseMatrix>().slice_position, host.format.as<StaircaseMatrix>().slice_position)
              << what;
          EXPECT_THROW(refresh_format_values(c.matrix, shape), std::logic_error) << what;

          cuda::DeviceSlotMap map;
          cuda::DeviceMatrix built =
              cuda::build_on_device("staircase", shape.format, shape.parameters, c.matrix, shape.permutation, map);
          const auto values = host.format.values();
          ASSERT_EQ(built.stored_entries(), static_cast<std::int64_t>(values.size())) << what;
          std::vector<double> device_values(values.size());
          cuda::copy_to_host(device_values.data(), built.spmv().device_values(), values.size() * sizeof(double));
          EXPECT_EQ(std::memcmp(device_values.data(), values.data(), values.size() * sizeof(double)), 0) << what;
          EXPECT_EQ(downloaded(map.diag), plain(host.value_map->diag_slot)) << what;
          EXPECT_EQ(downloaded(map.upper), plain(host.value_map->upper_slot)) << what;
          EXPECT_EQ(downloaded(map.lower), plain(host.value_map->lower_slot)) << what;
          // --- the columns through y: the same sums in the same order as the host struct's upload
          const label n = c.matrix.n_rows();
          const auto x = test::random_vector(n, 68);
          std::vector<double> y_built(n), y_uploaded(n);
          built.multiply(x, y_built);
          cuda::make_device_matrix(host).multiply(x, y_uploaded);
          EXPECT_EQ(std::memcmp(y_built.data(), y_uploaded.data(), n * sizeof(double)), 0) << what;
          // --- the slots alone, made again from the addressing
          const cuda::DeviceSlotMap again =
              cuda::slots_on_device("staircase", shape.format, *c.matrix.addressing, shape.permutation);
          EXPECT_EQ(downloaded(again.diag), plain(host.value_map->diag_slot)) << what;
          EXPECT_EQ(downloaded(again.upper), plain(host.value_map->upper_slot)) << what;
          EXPECT_EQ(downloaded(again.lower), plain(host.value_map->lower_slot)) << what;
          ++checked;
        }
  EXPECT_GT(checked, 50);
}

TEST_F(CudaStaircase, ASolverBuildsItsStaircaseOnTheDeviceAndRefreshesThroughItsSlots) {
  // --- the cuda solver takes the device's build for staircase in double precision (its log says
  //     so; the float32 twin keeps the host's build), and a refresh from the host, through the
  //     slots made again on the device, solves to the bit as a solver set up on the new values
  const LduMatrix m = test::box_matrix(16, 12, 10, 71);
  SolverSettings s;
  s.backend = Backend::cuda;
  s.format = "staircase";
  s.ordering = "rcm";
  s.tolerance = 1e-10;
  s.rel_tol = 0.0;
  const label n = m.n_rows();
  const auto b = test::random_vector(n, 72);
  cuda::DeviceSolver on_device(m, s);
  EXPECT_NE(on_device.describe().find("arrays on the device"), std::string::npos) << on_device.describe();
  std::vector<double> x(n, 0.0);
  const SolverPerformance performance = on_device.solve(x, b, "p");
  EXPECT_TRUE(performance.converged);
  // --- a refresh from the host goes through the slots on the device
  LduMatrix m2 = m;
  for (double& d : m2.diag) d *= 1.25;
  on_device.update_coefficients(m2);
  cuda::DeviceSolver fresh(m2, s);
  std::vector<double> x1(n, 0.0), x2(n, 0.0);
  const SolverPerformance refreshed = on_device.solve(x1, b, "p");
  const SolverPerformance made = fresh.solve(x2, b, "p");
  EXPECT_EQ(refreshed.iterations, made.iterations);
  EXPECT_EQ(std::memcmp(x1.data(), x2.data(), n * sizeof(double)), 0);
  SolverSettings mixed = s;
  mixed.precision = Precision::mixed;
  EXPECT_EQ(cuda::DeviceSolver(m, mixed).describe().find("arrays on the device"), std::string::npos);
}

}  // namespace
}  // namespace fvmmini
