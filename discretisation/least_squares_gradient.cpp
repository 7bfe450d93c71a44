#include "discretisation/least_squares_gradient.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fvmmini {

namespace {

// The fit's unknowns: the gradient (3) and the Hessian's distinct entries (6).
constexpr int n_terms = 9;
using Terms = std::array<double, n_terms>;
using Normal = std::array<Terms, n_terms>;

/// The row of d in the fit phi - phi_P = d . g + d^T H d / 2, d in units of the stencil's scale.
Terms quadratic_terms(const Vec3& d) {
  return {d.x, d.y, d.z, 0.5 * d.x * d.x, 0.5 * d.y * d.y, 0.5 * d.z * d.z, d.x * d.y, d.x * d.z, d.y * d.z};
}

double weight(const Vec3& d) { return 1.0 / dot(d, d); }

int packed(int i, int j) {  // index of (i, j), i <= j, in the upper triangle by rows
  return i * n_terms - i * (i - 1) / 2 + (j - i);
}

/// The inverse of m (symmetric positive semi-definite) by Cholesky, packed. A direction no point
/// spans (the empty direction of a 2-D mesh) leaves m singular: a tiny diagonal term makes the
/// inverse finite and the fit's terms there zero.
std::array<double, 45> invert(Normal m) {
  double trace = 0.0;
  for (int i = 0; i < n_terms; ++i) trace += m[i][i];
  for (int i = 0; i < n_terms; ++i) m[i][i] += 1e-10 * trace;
  // --- m = L L^T, L in the lower triangle of m
  for (int j = 0; j < n_terms; ++j) {
    for (int k = 0; k < j; ++k) m[j][j] -= m[j][k] * m[j][k];
    m[j][j] = std::sqrt(m[j][j]);
    for (int i = j + 1; i < n_terms; ++i) {
      for (int k = 0; k < j; ++k) m[i][j] -= m[i][k] * m[j][k];
      m[i][j] /= m[j][j];
    }
  }
  // --- column r of the inverse solves L L^T x = e_r
  std::array<double, 45> inverse{};
  for (int r = 0; r < n_terms; ++r) {
    Terms x{};
    x[r] = 1.0;
    for (int i = 0; i < n_terms; ++i) {
      for (int k = 0; k < i; ++k) x[i] -= m[i][k] * x[k];
      x[i] /= m[i][i];
    }
    for (int i = n_terms - 1; i >= 0; --i) {
      for (int k = i + 1; k < n_terms; ++k) x[i] -= m[k][i] * x[k];
      x[i] /= m[i][i];
    }
    for (int i = 0; i <= r; ++i) inverse[packed(i, r)] = x[i];
  }
  return inverse;
}

/// CSR of the items that visit(add) adds, add(c, item), per cell c.
template <class F>
void build_csr(label n_cells, std::vector<label>& offsets, std::vector<label>& items, F&& visit) {
  offsets.assign(n_cells + 1, 0);
  visit([&](label c, label) { ++offsets[c + 1]; });
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  items.resize(offsets.back());
  std::vector<label> next(offsets.begin(), offsets.end() - 1);
  visit([&](label c, label item) { items[next[c]++] = item; });
}

}  // namespace

LeastSquaresGradient::LeastSquaresGradient(const Mesh& mesh, const MeshGeometry& g) : mesh_(mesh), geometry_(g) {
  const label n_cells = mesh.n_cells;
  // --- each cell's face neighbours and boundary faces (empty patches have no values)
  std::vector<label> neighbour_offsets, neighbours, boundary_offsets, boundary_faces;
  build_csr(n_cells, neighbour_offsets, neighbours, [&](auto add) {
    for (label f = 0; f < mesh.n_internal_faces(); ++f) {
      add(mesh.owner[f], mesh.neighbour[f]);
      add(mesh.neighbour[f], mesh.owner[f]);
    }
  });
  build_csr(n_cells, boundary_offsets, boundary_faces, [&](auto add) {
    for (const Patch& patch : mesh.patches)
      if (patch.type != "empty")
        for (label f = patch.start; f < patch.start + patch.size; ++f) add(mesh.owner[f], f);
  });

  scales_.resize(n_cells);
  inverses_.resize(n_cells);
  std::vector<label> stamp(n_cells, -1);  // stamp[c] == P: c is in P's stencil already
  std::vector<label> cells, faces;
  std::vector<Vec3> offsets;
  auto n_boundary = [&](label c) { return static_cast<size_t>(boundary_offsets[c + 1] - boundary_offsets[c]); };
  for (label p = 0; p < n_cells; ++p) {
    // --- rings of face neighbours until the fit has twice as many points as unknowns, then the
    //     boundary faces of every stencil cell. Two rings alone (about 16 points inside a tetrahedral
    //     mesh, 9 at the domain's edges) left fits near interpolation, badly conditioned enough to
    //     make the correction loop diverge on the 48877-tetrahedron mesh
    cells.assign(1, p);
    stamp[p] = p;
    size_t n_points = n_boundary(p);
    for (size_t begin = 0;;) {
      const size_t end = cells.size();
      for (size_t k = begin; k < end; ++k)
        for (label i = neighbour_offsets[cells[k]]; i < neighbour_offsets[cells[k] + 1]; ++i) {
          const label n = neighbours[i];
          if (stamp[n] == p) continue;
          stamp[n] = p;
          cells.push_back(n);
          n_points += 1 + n_boundary(n);
        }
      begin = end;
      if (cells.size() == end || n_points >= 2 * n_terms) break;
    }
    faces.clear();
    for (label c : cells)
      faces.insert(faces.end(), boundary_faces.begin() + boundary_offsets[c],
                   boundary_faces.begin() + boundary_offsets[c + 1]);
    cells.erase(cells.begin());  // P itself

    // --- normal matrix of the fit in d / scale (scale: the farthest point)
    offsets.clear();
    for (label c : cells) offsets.push_back(g.cell_centres[c] - g.cell_centres[p]);
    for (label f : faces) offsets.push_back(g.face_centres[f] - g.cell_centres[p]);
    double scale = 0.0;
    for (const Vec3& d : offsets) scale = std::max(scale, mag(d));
    Normal m{};
    for (const Vec3& d : offsets) {
      const Terms t = quadratic_terms(d / scale);
      const double w = weight(d / scale);
      for (int i = 0; i < n_terms; ++i)
        for (int j = 0; j < n_terms; ++j) m[i][j] += w * t[i] * t[j];
    }
    scales_[p] = scale;
    inverses_[p] = invert(m);
    stencil_cells_.insert(stencil_cells_.end(), cells.begin(), cells.end());
    stencil_faces_.insert(stencil_faces_.end(), faces.begin(), faces.end());
    cell_offsets_.push_back(static_cast<label>(stencil_cells_.size()));
    face_offsets_.push_back(static_cast<label>(stencil_faces_.size()));
  }
}

void LeastSquaresGradient::compute(const ScalarBoundary& boundary, std::span<const double> phi,
                                   std::span<Vec3> gradient, std::span<Hessian> hessian) const {
  const auto& g = geometry_;
  const label n_internal = mesh_.n_internal_faces();
  // --- the boundary faces' values
  std::vector<double> face_values(mesh_.n_faces() - n_internal);
  for (size_t p = 0; p < mesh_.patches.size(); ++p) {
    const PatchCondition& bc = boundary.patches[p];
    const Patch& patch = mesh_.patches[p];
    for (label i = 0; i < patch.size; ++i) {
      const label f = patch.start + i;
      face_values[f - n_internal] = bc.type == BoundaryType::fixed_value ? bc.values[i] : phi[mesh_.owner[f]];
    }
  }
  for (label c = 0; c < mesh_.n_cells; ++c) {
    // --- right-hand side sum_j w_j t_j (phi_j - phi_P), then the fit's terms
    const double scale = scales_[c];
    Terms rhs{};
    auto add = [&](const Vec3& x, double value) {
      const Vec3 d = (x - g.cell_centres[c]) / scale;
      const Terms t = quadratic_terms(d);
      const double w = weight(d) * (value - phi[c]);
      for (int i = 0; i < n_terms; ++i) rhs[i] += w * t[i];
    };
    for (label i = cell_offsets_[c]; i < cell_offsets_[c + 1]; ++i)
      add(g.cell_centres[stencil_cells_[i]], phi[stencil_cells_[i]]);
    for (label i = face_offsets_[c]; i < face_offsets_[c + 1]; ++i)
      add(g.face_centres[stencil_faces_[i]], face_values[stencil_faces_[i] - n_internal]);
    Terms u{};
    for (int i = 0; i < n_terms; ++i)
      for (int j = 0; j < n_terms; ++j) u[i] += inverses_[c][packed(std::min(i, j), std::max(i, j))] * rhs[j];
    // --- back from units of scale
    gradient[c] = Vec3{u[0], u[1], u[2]} / scale;
    const double s2 = scale * scale;
    hessian[c].rows = {Vec3{u[3], u[6], u[7]} / s2, Vec3{u[6], u[4], u[8]} / s2, Vec3{u[7], u[8], u[5]} / s2};
  }
}

}  // namespace fvmmini
