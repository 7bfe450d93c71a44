#pragma once
// What the flow step needs from the mesh and the case, built once: the Laplacian and its face
// data, the boundary values per face, the Helmholtz and pressure matrices with their boundary
// sources, the Rhie-Chow time scales and the reference cell. Built once per mesh; both step
// implementations (host and device) hold them by const reference. The flow state itself (U, p, phi) is FlowState.

#include <array>
#include <span>
#include <string>
#include <vector>

#include "discretisation/incompressible/cell_faces.hpp"
#include "discretisation/incompressible/flow_boundary.hpp"
#include "discretisation/incompressible/flow_diagnostics.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "discretisation/laplacian.hpp"
#include "discretisation/linear_least_squares.hpp"
#include "discretisation/reference_cell_keys.hpp"

namespace fvmmini {

/// The reference cell's extra pressure diagonal, as a fraction of its diagonal (the weak pin).
inline constexpr double pressure_reference_pin = 1e-4;

enum class ConvectionScheme { linear, linear_upwind };

/// The scheme names in enum order, as case files and logs write them: linear, linearUpwind.
const std::vector<std::string>& convection_scheme_names();
const std::string& name(ConvectionScheme scheme);
/// @throws std::invalid_argument on an unknown name, listing the known ones
ConvectionScheme parse_convection_scheme(const std::string& name);

struct IncompressibleSettings {
  double viscosity = 0.01;  ///< kinematic, nu = U L / Re
  ConvectionScheme convection = ConvectionScheme::linear;
  label reference_cell = 0;      ///< where p is pinned when no patch fixes it
  double reference_value = 0.0;
  Vec3 initial_velocity;
  double initial_pressure = 0.0;
};

/// physics.* of incompressible (app/settings_keys.hpp); the reference cell keys are discretisation's
/// (declare_reference_cell_keys).
template <class Keys>
void declare_keys(Keys& keys, IncompressibleSettings& s) {
  const std::vector<std::string> flow{"incompressible"};
  keys.add("nu", s.viscosity, "the kinematic viscosity (Re = U L / nu)").required().min(0, false).when("type", flow);
  keys.enumeration("convection", s.convection,
                   "the convection scheme (explicit, second order): linear (central) or linearUpwind",
                   convection_scheme_names(), parse_convection_scheme, name)
      .when("type", flow);
  keys.add("initialVelocity", s.initial_velocity, "the uniform initial velocity").when("type", flow);
}

/// The flow at one time: what output reads and what a step advances.
struct FlowState {
  std::array<std::vector<double>, 3> velocity;  ///< per cell; unsolved components stay at their initial value
  std::vector<double> pressure;                 ///< kinematic, per cell
  std::vector<double> flux;                     ///< U.S per face (m^3/s); zero on empty faces
  std::vector<Vec3> pressure_gradient;          ///< the Gauss gradient of pressure
};

struct FlowOperators {
  /// Build everything from the mesh, its boundary conditions and the settings. mesh and geometry
  /// must outlive the operators. @throws std::invalid_argument for a boundary that does not match
  /// the mesh, a non-positive viscosity or a reference cell out of range
  FlowOperators(const Mesh& mesh, const MeshGeometry& geometry, FlowBoundary boundary,
                IncompressibleSettings settings);

  /// The face data as the formulas of flow_formulas.hpp take it.
  flow::Faces faces() const;
  flow::Cells cell_view() const;

  /// Uniform U and p from the settings, fluxes of the interpolated velocity.
  FlowState initial_state() const;

  /// The Courant number of fluxes phi over a step dt.
  CourantNumber courant_number(std::span<const double> phi, double dt) const;
  /// The least-squares gradients of the solved velocity components (zero for the others): the
  /// gradient of linearUpwind, of the non-orthogonal diffusion terms and of the output.
  void velocity_gradients(const FlowState& state, std::array<std::vector<Vec3>, 3>& gradients) const;
  /// The Gauss gradient of p from its face values. @param[out] face_work one per face
  void pressure_gradient(std::span<const double> p, std::span<double> face_work, std::span<Vec3> gradient) const;

  const Mesh& mesh;
  const MeshGeometry& geometry;
  FlowBoundary boundary;
  IncompressibleSettings settings;
  CellFaces cells;
  Laplacian laplacian;
  std::array<bool, 3> solved;  ///< the components the predictor solves (solved_directions)
  bool orthogonal;
  label reference_cell = -1;  ///< the cell whose pressure is pinned, or -1 when a patch fixes p

  // --- per boundary face (index f - n_internal)
  std::vector<Vec3> boundary_velocity;
  std::vector<int> boundary_kind;  ///< FlowPatchType
  std::vector<double> boundary_pressure;

  std::vector<Vec3> least_squares_weights;  ///< per entry of the cells' gather lists
  std::vector<double> rhie_chow_time;  ///< D_f = V_f / (nu L)_f per face: the steady Rhie-Chow time scale
  /// nu L + V on the diagonal (a step sets V/dt itself) and the diagonal of nu L alone.
  LduMatrix helmholtz_matrix;
  std::vector<double> helmholtz_base_diagonal;
  std::array<std::vector<double>, 3> momentum_boundary_source;  ///< nu a_b U_b,i per cell
  /// A = -div grad, with the weak pin of the reference cell; a_b p_b on fixed faces + the pin's term.
  LduMatrix pressure_matrix;
  std::vector<double> pressure_source;
};

}  // namespace fvmmini
