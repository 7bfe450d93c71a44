#include "tools/bench/bench_inputs.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "discretisation/boundary_conditions.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "discretisation/incompressible/flow_operators.hpp"
#include "discretisation/laplacian.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/polymesh_reader.hpp"

namespace fvmmini::bench {

namespace {

/// gamma times the FVM Laplacian of the mesh, `walls` on every patch that is not empty.
LduMatrix assemble_laplacian(const Mesh& mesh, const MeshGeometry& geometry,
                             BoundaryType walls = BoundaryType::fixed_value, double gamma = 1.0) {
  const Laplacian laplacian(mesh, geometry);
  ScalarBoundary boundary;
  for (const auto& patch : mesh.patches) {
    if (patch.type == "empty")
      boundary.patches.push_back({BoundaryType::empty, {}});
    else
      boundary.patches.push_back({walls, std::vector<double>(patch.size, 0.0)});
  }
  LduMatrix a = make_ldu_matrix(laplacian.addressing());
  laplacian.assemble(gamma, boundary, a);
  return a;
}

/// Addressing from (lower, upper) pairs with lower < upper, sorted upper-triangular, no duplicates.
std::shared_ptr<LduAddressing> addressing_from_sorted(label n, std::vector<std::pair<label, label>>& pairs) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  auto a = std::make_shared<LduAddressing>();
  a->n_rows = n;
  a->lower.reserve(pairs.size());
  a->upper.reserve(pairs.size());
  for (auto [l, u] : pairs) {
    a->lower.push_back(l);
    a->upper.push_back(u);
  }
  return a;
}

}  // namespace

BenchMatrix box_laplacian(int n) {
  BenchMatrix m = box_laplacian(std::array<label, 3>{n, n, n});
  m.source = fmt::format("box {}^3", n);
  return m;
}

BenchMatrix box_laplacian(const std::array<label, 3>& cells) {
  BoxSpec spec;
  spec.cells = cells;
  const Mesh mesh = generate_box(spec);
  return {assemble_laplacian(mesh, compute_geometry(mesh)), fmt::format("box {}x{}x{}", cells[0], cells[1], cells[2]),
          "FVM Laplacian (discretisation/laplacian.hpp), gamma 1, fixedValue 0 on all patches"};
}

BenchMatrix cavity_pressure(int n) {
  BoxSpec spec;
  spec.cells = {n, n, n};
  const Mesh mesh = generate_box(spec);
  LduMatrix a = assemble_laplacian(mesh, compute_geometry(mesh), BoundaryType::zero_gradient);
  a.diag[0] *= 1.0 + pressure_reference_pin;
  return {std::move(a), fmt::format("cavity pressure {}^3", n),
          "FVM Laplacian, zeroGradient walls, reference cell 0 pinned by 1e-4 of its diagonal"};
}

BenchMatrix cavity_momentum(int n) {
  constexpr double nu = 0.01, max_courant = 0.5, lid_speed = 1.0;
  BoxSpec spec;
  spec.cells = {n, n, n};
  const Mesh mesh = generate_box(spec);
  const MeshGeometry geometry = compute_geometry(mesh);
  LduMatrix a = assemble_laplacian(mesh, geometry, BoundaryType::fixed_value, nu);
  const double dt = max_courant / (lid_speed * n);
  for (label c = 0; c < a.n_rows(); ++c) a.diag[c] = flow::helmholtz_diagonal(a.diag[c], geometry.cell_volumes[c], dt);
  return {std::move(a), fmt::format("cavity momentum {}^3", n),
          fmt::format("nu L + V/dt (nu {}, dt {:g} = maxCo {} h / lid speed), fixedValue walls", nu, dt, max_courant)};
}

BenchMatrix mesh_laplacian(const std::filesystem::path& path, bool gmsh) {
  const Mesh mesh = gmsh ? read_gmsh(path) : read_polymesh(path);
  return {assemble_laplacian(mesh, compute_geometry(mesh)), path.string(),
          "FVM Laplacian (discretisation/laplacian.hpp), gamma 1, fixedValue 0 on all non-empty patches"};
}

BenchMatrix matrix_market(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open", path.string()));
  std::string line;
  long line_no = 1;
  if (!std::getline(in, line) || line.rfind("%%MatrixMarket", 0) != 0)
    throw std::runtime_error(fmt::format("{}:1: not a Matrix Market file (no %%MatrixMarket header)", path.string()));
  std::string lower_header = line;
  std::transform(lower_header.begin(), lower_header.end(), lower_header.begin(), ::tolower);
  if (lower_header.find("coordinate") == std::string::npos || lower_header.find("complex") != std::string::npos ||
      lower_header.find("pattern") != std::string::npos)
    throw std::runtime_error(fmt::format("{}:1: only 'coordinate real|integer' matrices are supported", path.string()));
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line[0] != '%') break;
  }
  long rows = 0, cols = 0, entries = 0;
  if (!(std::istringstream(line) >> rows >> cols >> entries) || rows != cols || rows <= 0)
    throw std::runtime_error(fmt::format("{}:{}: expected 'rows cols entries' of a square matrix", path.string(), line_no));
  std::vector<double> diag(rows, 0.0);
  std::map<std::pair<label, label>, double> upper;
  for (long k = 0; k < entries; ++k) {
    if (!std::getline(in, line))
      throw std::runtime_error(fmt::format("{}:{}: file ends after {} of {} entries", path.string(), line_no, k, entries));
    ++line_no;
    long i = 0, j = 0;
    double v = 0.0;
    if (!(std::istringstream(line) >> i >> j >> v) || i < 1 || j < 1 || i > rows || j > rows)
      throw std::runtime_error(fmt::format("{}:{}: bad entry '{}'", path.string(), line_no, line));
    if (i == j)
      diag[i - 1] += v;
    else if (i < j)
      upper[{static_cast<label>(i - 1), static_cast<label>(j - 1)}] += v;
    else
      upper.try_emplace({static_cast<label>(j - 1), static_cast<label>(i - 1)}, v);
  }
  std::vector<std::pair<label, label>> pairs;
  for (const auto& [key, v] : upper) pairs.push_back(key);
  LduMatrix m = make_ldu_matrix(addressing_from_sorted(static_cast<label>(rows), pairs));
  m.diag.assign(diag.begin(), diag.end());
  std::size_t f = 0;
  for (const auto& [key, v] : upper) m.upper[f++] = v;
  return {std::move(m), path.string(), "Matrix Market values (upper triangle)"};
}

BenchMatrix polyhedral_like(int n, double shift, std::uint64_t seed) {
  const label n_rows = static_cast<label>(n) * n * n;
  auto id = [n](int i, int j, int k) { return static_cast<label>((static_cast<long>(k) * n + j) * n + i); };
  std::vector<std::pair<label, label>> pairs;
  pairs.reserve(static_cast<std::size_t>(n_rows) * 6);
  std::mt19937_64 rng(seed);
  // --- forward neighbours only (each pair once): 3 face neighbours, 6 edge diagonals
  const int face_dirs[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const int edge_dirs[6][3] = {{1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const label c = id(i, j, k);
        auto link = [&](const int* d) {
          const int a = i + d[0], b = j + d[1], e = k + d[2];
          if (a < 0 || b < 0 || e < 0 || a >= n || b >= n || e >= n) return;
          const label o = id(a, b, e);
          pairs.push_back({std::min(c, o), std::max(c, o)});
        };
        for (const auto& d : face_dirs) link(d);
        const std::uint64_t bits = rng();
        for (int e = 0; e < 6; ++e)
          if ((bits >> e) & 1u) link(edge_dirs[e]);
      }
  LduMatrix m = make_ldu_matrix(addressing_from_sorted(n_rows, pairs));
  // --- graph Laplacian: -1 per coupling, degree + shift on the diagonal
  std::fill(m.upper.begin(), m.upper.end(), -1.0);
  std::fill(m.diag.begin(), m.diag.end(), shift);
  for (label f = 0; f < m.addressing->n_faces(); ++f) {
    m.diag[m.lower_addr()[f]] += 1.0;
    m.diag[m.upper_addr()[f]] += 1.0;
  }
  return {std::move(m), fmt::format("polyhedral-like {}^3 lattice (6 face + random edge-diagonal couplings)", n),
          fmt::format("unit-coefficient graph Laplacian + {:g} on the diagonal", shift)};
}

}  // namespace fvmmini::bench
