#pragma once
// Shared set-up for the discretisation tests: a manufactured Poisson solve on a mesh.

#include "discretisation/scalar_problem.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini::testing {

/// Every patch fixedValue with the exact solution (empty patches stay empty).
inline ScalarBoundary exact_boundary(const Mesh& mesh, std::vector<bool>& exact) {
  ScalarBoundary b;
  exact.clear();
  for (const Patch& p : mesh.patches) {
    const bool empty = p.type == "empty";
    b.patches.push_back({empty ? BoundaryType::empty : BoundaryType::fixed_value, {}});
    exact.push_back(!empty);
  }
  return b;
}

struct ManufacturedResult {
  ErrorNorms error;
  NonOrthogonalCorrection correction;
};

/// Solve the steady manufactured problem, each solve to a tight tolerance, with the default
/// non-orthogonal correction loop (ScalarProblemSettings) unless `settings` says otherwise.
inline ManufacturedResult manufactured_poisson(const Mesh& mesh, ScalarProblemSettings s = {}) {
  const MeshGeometry geometry = compute_geometry(mesh);
  std::vector<bool> exact;
  ScalarBoundary boundary = exact_boundary(mesh, exact);
  s.manufactured = true;
  ScalarProblem problem(mesh, geometry, boundary, exact, s);
  SolverSettings solver_settings;
  solver_settings.tolerance = 1e-12;
  solver_settings.max_iter = 10000;
  solver_settings.preconditioner = "diagonal";
  auto solver = make_linear_solver(problem.matrix(), solver_settings);
  const ScalarStep step = problem.advance(*solver, 0.0);
  return {*problem.error(0.0), step.correction};
}

/// The L2 and max errors with the default correction loop.
inline ErrorNorms manufactured_poisson_error(const Mesh& mesh) { return manufactured_poisson(mesh).error; }

/// q(x) = 0.5 + b . x + x^T A x / 2 with A symmetric: the fields that the quadratic least-squares
/// fit and the corrected face fluxes are exact for.
struct Quadratic {
  Vec3 b{1.0, -2.0, 0.5};
  Hessian a{{Vec3{2.0, 0.7, -1.1}, Vec3{0.7, -3.0, 0.4}, Vec3{-1.1, 0.4, 1.5}}};

  double value(const Vec3& x) const { return 0.5 + dot(b, x) + 0.5 * dot(x, a * x); }
  Vec3 gradient(const Vec3& x) const { return b + a * x; }
  /// The same without z, for 2-D meshes.
  Quadratic without_z() const {
    Quadratic q = *this;
    q.b.z = 0.0;
    for (int i = 0; i < 3; ++i) q.a.rows[i].z = q.a.rows[2][i] = 0.0;
    return q;
  }
};

/// Every non-empty patch fixedValue with q at the face centres.
inline ScalarBoundary quadratic_boundary(const Mesh& mesh, const MeshGeometry& g, const Quadratic& q) {
  std::vector<bool> unused;
  ScalarBoundary b = exact_boundary(mesh, unused);
  for (size_t p = 0; p < mesh.patches.size(); ++p)
    if (b.patches[p].type == BoundaryType::fixed_value)
      for (label f = mesh.patches[p].start; f < mesh.patches[p].start + mesh.patches[p].size; ++f)
        b.patches[p].values.push_back(q.value(g.face_centres[f]));
  return b;
}

inline Mesh unit_box(label n, label nz = -1) {
  BoxSpec spec;
  spec.cells = {n, n, nz < 0 ? n : nz};
  if (nz == 1) spec.patches = {{"frontAndBack", "empty", {BoxSide::zmin, BoxSide::zmax}}};
  return generate_box(spec);
}

}  // namespace fvmmini::testing
