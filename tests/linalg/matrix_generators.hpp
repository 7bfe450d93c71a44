#pragma once
// Seeded LDU test matrices: random sparsity patterns with varied row lengths, box-mesh Laplacian
// patterns, and small special shapes, symmetric unless made asymmetric. Values are random (never
// zeros).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernels/reference/ldu_spmv.hpp"
#include "linalg/ldu_matrix.hpp"
#include "mesh/box_generator.hpp"

namespace fvmmini::test {

/// Addressing from a list of (i, j) couplings, i != j, duplicates dropped.
inline std::shared_ptr<LduAddressing> addressing_from_pairs(label n, const std::vector<std::pair<label, label>>& pairs) {
  std::set<std::pair<label, label>> faces;
  for (auto [i, j] : pairs)
    if (i != j) faces.insert({std::min(i, j), std::max(i, j)});
  auto a = std::make_shared<LduAddressing>();
  a->n_rows = n;
  for (auto [l, u] : faces) {
    a->lower.push_back(l);
    a->upper.push_back(u);
  }
  return a;
}

/// Random values on the addressing: off-diagonals in [-1, -0.1], diagonals dominant (SPD).
inline LduMatrix random_values(std::shared_ptr<const LduAddressing> a, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> off(-1.0, -0.1), extra(0.1, 1.0);
  LduMatrix m = make_ldu_matrix(std::move(a));
  for (auto& u : m.upper) u = off(rng);
  for (auto& d : m.diag) d = extra(rng);
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    m.diag[m.lower_addr()[f]] += std::abs(m.upper[f]);
    m.diag[m.upper_addr()[f]] += std::abs(m.upper[f]);
  }
  return m;
}

/// The matrix with lower coefficients of its own (the upper ones times factors in [0.2, 1.8]), its
/// diagonal raised to stay dominant: an asymmetric matrix on the same pattern.
inline LduMatrix asymmetric(LduMatrix m, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> factor(0.2, 1.8);
  m.lower.resize(m.upper.size());
  for (std::size_t f = 0; f < m.upper.size(); ++f) {
    m.lower[f] = m.upper[f] * factor(rng);
    m.diag[m.upper_addr()[f]] += std::abs(m.lower[f]);
  }
  return m;
}

/// n rows, each coupled to up to max_extra random others (row lengths vary widely).
inline LduMatrix random_matrix(label n, int max_extra, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::pair<label, label>> pairs;
  for (label i = 0; i < n && n > 1; ++i) {
    const auto k = static_cast<int>(rng() % static_cast<std::uint64_t>(max_extra + 1));
    for (int e = 0; e < k; ++e) pairs.push_back({i, static_cast<label>(rng() % static_cast<std::uint64_t>(n))});
  }
  return random_values(addressing_from_pairs(n, pairs), seed + 1);
}

/// The internal-face addressing of an nx x ny x nz box mesh.
inline std::shared_ptr<LduAddressing> box_addressing(label nx, label ny, label nz) {
  BoxSpec spec;
  spec.cells = {nx, ny, nz};
  const Mesh mesh = generate_box(spec);
  auto a = std::make_shared<LduAddressing>();
  a->n_rows = mesh.n_cells;
  a->lower.assign(mesh.owner.begin(), mesh.owner.begin() + mesh.n_internal_faces());
  a->upper.assign(mesh.neighbour.begin(), mesh.neighbour.end());
  return a;
}

inline LduMatrix box_matrix(label nx, label ny, label nz, std::uint64_t seed) {
  return random_values(box_addressing(nx, ny, nz), seed);
}

/// A hub row coupled to every other row (its length exceeds any slice width) plus a chain.
inline LduMatrix star_matrix(label n, std::uint64_t seed) {
  std::vector<std::pair<label, label>> pairs;
  for (label i = 1; i < n; ++i) pairs.push_back({n / 2, i == n / 2 ? 0 : i});
  for (label i = 0; i + 1 < n; ++i) pairs.push_back({i, i + 1});
  return random_values(addressing_from_pairs(n, pairs), seed);
}

/// A ring: every row has exactly three nonzeros.
inline LduMatrix ring_matrix(label n, std::uint64_t seed) {
  std::vector<std::pair<label, label>> pairs;
  for (label i = 0; i < n; ++i) pairs.push_back({i, (i + 1) % n});
  return random_values(addressing_from_pairs(n, pairs), seed);
}

/// A seeded vector with entries in [-1, 1].
inline std::vector<double> random_vector(label n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> x(n);
  for (auto& v : x) v = d(rng);
  return x;
}

/// An asymmetric system on a box's pattern (a convection-diffusion-like matrix, diagonally
/// dominant) with a right-hand side from a known solution.
struct AsymmetricSystem {
  LduMatrix a;
  std::vector<double> x_true, b;
};
inline AsymmetricSystem asymmetric_system(label nx, label ny, label nz, std::uint64_t seed) {
  AsymmetricSystem s{asymmetric(box_matrix(nx, ny, nz, seed), seed + 1), random_vector(nx * ny * nz, seed + 2), {}};
  s.b.resize(s.x_true.size());
  reference::ldu_spmv(s.a, s.x_true, s.b);
  return s;
}

/// Per-row scale sum_j |a_ij x_j| for a relative comparison with the LDU face loop.
inline std::vector<double> abs_row_scale(const LduMatrix& m, std::span<const double> x) {
  LduMatrix abs_m = m;
  for (auto& d : abs_m.diag) d = std::abs(d);
  for (auto& u : abs_m.upper) u = std::abs(u);
  for (auto& l : abs_m.lower) l = std::abs(l);
  std::vector<double> ax(x.size());
  for (size_t i = 0; i < x.size(); ++i) ax[i] = std::abs(x[i]);
  std::vector<double> y(x.size());
  reference::ldu_spmv(abs_m, ax, y);
  return y;
}

/// A test matrix with the name its failures print.
struct NamedMatrix {
  std::string name;
  LduMatrix matrix;
};

/// The shapes the kernels of every format are tested on: tiny, random (narrow and wide rows),
/// 3-D and 2-D boxes, a hub row longer than a warp, one row length throughout.
inline std::vector<NamedMatrix> kernel_test_matrices() {
  std::vector<NamedMatrix> cases;
  cases.push_back({"one row", random_matrix(1, 0, 11)});
  cases.push_back({"two rows", random_values(addressing_from_pairs(2, {{0, 1}}), 12)});
  cases.push_back({"two uncoupled rows", random_values(addressing_from_pairs(2, {}), 13)});
  cases.push_back({"33 rows (a slice of one real row)", random_matrix(33, 3, 14)});
  cases.push_back({"random 700", random_matrix(700, 6, 15)});
  cases.push_back({"random 3000 wide rows", random_matrix(3000, 40, 16)});
  cases.push_back({"box 17x13x11", box_matrix(17, 13, 11, 17)});
  cases.push_back({"box 2-D 30x20", box_matrix(30, 20, 1, 18)});
  cases.push_back({"star 300 (hub row longer than a warp)", star_matrix(300, 19)});
  cases.push_back({"ring 100 (one row length)", ring_matrix(100, 20)});
  return cases;
}

/// kernel_test_matrices() with lower coefficients of their own.
inline std::vector<NamedMatrix> asymmetric_test_matrices() {
  std::vector<NamedMatrix> cases = kernel_test_matrices();
  std::uint64_t seed = 70;
  for (auto& c : cases) {
    c.name = "asymmetric " + c.name;
    c.matrix = asymmetric(std::move(c.matrix), ++seed);
  }
  return cases;
}

}  // namespace fvmmini::test
