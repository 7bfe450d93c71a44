#pragma once
// What the flow step needs from the mesh and the case, built once: the Laplacian and its face
// data, the boundary values per face, the Helmholtz and pressure matrices with their boundary
// sources, the Rhie-Chow time scales and the reference cell. Built once per mesh; both step
// implementations (host and device) hold them by const reference. The flow state itself (U, p, phi) is FlowState.
//
// On a rank's part of a decomposed mesh the formulas see a processor face as an internal face
// whose neighbour is a ghost cell: processor face k (mesh face n_internal + k) couples its cell
// with ghost n_cells + k, which holds the value of the cell across (ProcessorFaces::fill_ghosts).
// Cell arrays of the state therefore have n_cells + n_ghosts entries; on one rank n_ghosts is 0.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "discretisation/incompressible/cell_faces.hpp"
#include "discretisation/incompressible/flow_boundary.hpp"
#include "discretisation/incompressible/flow_diagnostics.hpp"
#include "discretisation/incompressible/flow_formulas.hpp"
#include "discretisation/laplacian.hpp"
#include "discretisation/linear_least_squares.hpp"
#include "discretisation/processor_faces.hpp"
#include "discretisation/reference_cell_keys.hpp"
#include "linalg/distributed_ldu.hpp"
#include "linalg/timing.hpp"

namespace fvmmini {

/// The reference cell's extra pressure diagonal, as a fraction of its diagonal (the weak pin).
inline constexpr double pressure_reference_pin = 1e-4;

/// The convection scheme: explicit and second order in the projection (linear, linearUpwind),
/// implicit in PISO (OpenFOAM's Gauss upwind, linear and linearUpwind; upwind is PISO's only).
enum class ConvectionScheme { linear, linear_upwind, upwind };

/// The scheme names in enum order, as case files and logs write them: linear, linearUpwind, upwind.
const std::vector<std::string>& convection_scheme_names();
const std::string& name(ConvectionScheme scheme);
/// @throws std::invalid_argument on an unknown name, listing the known ones
ConvectionScheme parse_convection_scheme(const std::string& name);

/// How a step couples velocity and pressure: fvmmini's projection (flow_step.hpp) or icoFoam's
/// PISO (piso_step.hpp).
enum class FlowAlgorithm { projection, piso };
const std::vector<std::string>& flow_algorithm_names();  ///< projection, PISO
const std::string& name(FlowAlgorithm algorithm);
/// @throws std::invalid_argument on an unknown name, listing the known ones
FlowAlgorithm parse_flow_algorithm(const std::string& name);

/// The surface-normal gradient of PISO's Laplacians (OpenFOAM's Gauss linear <snGrad>): corrected
/// (the implicit part |S| / max(n.d, 0.05|d|) and the explicit non-orthogonal part
/// |S| k . (grad x)_f) or orthogonal (|S| / |d|, nothing explicit). The same on orthogonal meshes.
enum class SnGrad { corrected, orthogonal };
const std::vector<std::string>& sn_grad_names();  ///< corrected, orthogonal
const std::string& name(SnGrad scheme);
/// @throws std::invalid_argument on an unknown name, listing the known ones
SnGrad parse_sn_grad(const std::string& name);

/// icoFoam's PISO controls, under OpenFOAM's names.
struct PisoSettings {
  int n_correctors = 2;                 ///< pressure corrections a step
  int n_non_orthogonal_correctors = 0;  ///< extra pressure solves a correction, each with p's newest correction
  bool momentum_predictor = true;       ///< solve the momentum equation before the corrections
  SnGrad sn_grad = SnGrad::corrected;
};

struct IncompressibleSettings {
  double viscosity = 0.01;  ///< kinematic, nu = U L / Re
  FlowAlgorithm algorithm = FlowAlgorithm::projection;
  PisoSettings piso;
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
  keys.enumeration("algorithm", s.algorithm,
                   "projection (fvmmini's fractional step, explicit convection) or PISO (icoFoam's, implicit "
                   "convection; on the GPU where U, p and pFinal take the cuda backend, else on the host; one rank)",
                   flow_algorithm_names(), parse_flow_algorithm, name)
      .when("type", flow);
  keys.enumeration("convection", s.convection,
                   "the convection scheme: linear (central) or linearUpwind, explicit in the projection; with PISO "
                   "implicit, and upwind too (OpenFOAM's Gauss schemes)",
                   convection_scheme_names(), parse_convection_scheme, name)
      .when("type", flow);
  const std::vector<std::string> piso{"PISO"};
  keys.add("nCorrectors", s.piso.n_correctors, "PISO: pressure corrections a step").min(1).max(100).when("type", flow)
      .when("algorithm", piso);
  keys.add("nNonOrthogonalCorrectors", s.piso.n_non_orthogonal_correctors,
           "PISO: extra pressure solves in each correction (OpenFOAM's non-orthogonal loop)")
      .min(0)
      .max(100)
      .when("type", flow)
      .when("algorithm", piso);
  keys.add("momentumPredictor", s.piso.momentum_predictor, "PISO: solve the momentum equation before the corrections")
      .when("type", flow)
      .when("algorithm", piso);
  keys.enumeration("snGrad", s.piso.sn_grad,
                   "PISO: the Laplacians' surface-normal gradient, corrected (with the explicit non-orthogonal "
                   "part) or "
                   "orthogonal (OpenFOAM's Gauss linear corrected / orthogonal; the same on orthogonal meshes)",
                   sn_grad_names(), parse_sn_grad, name)
      .when("type", flow)
      .when("algorithm", piso);
  keys.add("initialVelocity", s.initial_velocity, "the uniform initial velocity").when("type", flow);
}

/// Each physical boundary face's condition (index f - n_coupled: processor faces, coupled, left
/// out): its FlowPatchType, and its patch's velocity and pressure as the case gives them.
struct BoundaryFaceConditions {
  std::vector<int> kind;
  std::vector<Vec3> velocity;
  std::vector<double> pressure;
};
BoundaryFaceConditions boundary_face_conditions(const Mesh& mesh, const FlowBoundary& boundary, label n_coupled);

/// The flow at one time: what output reads and what a step advances. Cell arrays hold the
/// rank's cells, then its ghost cells (FlowOperators::n_ghosts; none on one rank).
struct FlowState {
  std::array<std::vector<double>, 3> velocity;  ///< per cell; unsolved components stay at their initial value
  std::vector<double> pressure;                 ///< kinematic, per cell
  std::vector<double> flux;                     ///< U.S per face (m^3/s); zero on empty faces
  std::vector<Vec3> pressure_gradient;          ///< the Gauss gradient of pressure
};

struct FlowOperators {
  /// Build everything from the mesh, its boundary conditions and the settings. mesh, geometry and
  /// comm must outlive the operators. On a rank's part of a decomposed mesh (its processor patches
  /// with condition processor), comm is the run's ranks, every rank builds its operators together,
  /// and settings.reference_cell is the cell's local number on the rank that has it, -1 on the
  /// others; global_cell, each cell's number in the whole mesh, goes to the systems
  /// (DistributedLdu::global_rows). @throws std::invalid_argument for a boundary that does not
  /// match the mesh, a non-positive viscosity or a reference cell out of range (on no rank, or on several)
  FlowOperators(const Mesh& mesh, const MeshGeometry& geometry, FlowBoundary boundary,
                IncompressibleSettings settings, const Communicator& comm = Communicator::serial(),
                std::span<const label> global_cell = {});
  /// The same from the mesh's cell_face_lists, made by the caller (for the gather lists, the
  /// least-squares fit and the assembly).
  FlowOperators(const Mesh& mesh, const MeshGeometry& geometry, FlowBoundary boundary, IncompressibleSettings settings,
                const Communicator& comm, std::span<const label> global_cell, const CellFaceLists& lists);
  FlowOperators(const FlowOperators&) = delete;  // its views point into its own members

  /// The face data as the formulas of flow_formulas.hpp take it: internal and processor faces
  /// are its internal faces (n_coupled), the other boundary faces its boundary faces.
  flow::Faces faces() const;
  flow::Cells cell_view() const;
  /// n_cells + n_ghosts: the length of a cell array of the state.
  label cells_with_ghosts() const { return mesh.n_cells + n_ghosts; }

  /// Uniform U and p from the settings (ghosts too), fluxes of the interpolated velocity.
  FlowState initial_state() const;

  /// The Courant number of fluxes phi over a step dt, over all ranks.
  CourantNumber courant_number(std::span<const double> phi, double dt) const;
  /// The continuity errors of net outflows div (one per cell of the rank) over a step dt, over all
  /// ranks. @param[in] cumulative the previous steps' cumulative error
  ContinuityErrors continuity_errors(std::span<const double> div, double dt, double cumulative) const;
  /// The least-squares gradients of the solved velocity components (zero for the others): the
  /// gradient of linearUpwind, of the non-orthogonal diffusion terms and of the output. Reads the
  /// velocity's ghosts; fills the rank's cells of gradients (sized cells_with_ghosts(); the ghosts
  /// are the caller's to fill).
  void velocity_gradients(const FlowState& state, std::array<std::vector<Vec3>, 3>& gradients) const;
  /// velocity_gradients' value for component i at the rank's cell c alone (the output's samples),
  /// the cell fitted now where no weights are kept.
  Vec3 velocity_gradient(const FlowState& state, int i, label c) const;
  /// Whether a step takes the velocity's least-squares cell gradients (the projection's
  /// linearUpwind face values and deferred non-orthogonal diffusion), and so every cell's
  /// least-squares weights are kept (PISO's linearUpwind takes Gauss gradients, as OpenFOAM's).
  bool needs_velocity_gradients() const {
    return settings.algorithm == FlowAlgorithm::projection &&
           (settings.convection == ConvectionScheme::linear_upwind || !orthogonal);
  }
  /// Whether a step reads the geometry's face centres (linearUpwind's face values); the set-up
  /// has read them otherwise (the Laplacian, the fits, the device's copies), the output never.
  bool reads_face_centres() const { return settings.convection == ConvectionScheme::linear_upwind; }
  /// The Gauss gradient of p from its face values, on the rank's cells (p with its ghosts).
  /// @param[out] face_work one per face
  void pressure_gradient(std::span<const double> p, std::span<double> face_work, std::span<Vec3> gradient) const;

  const Mesh& mesh;
  const MeshGeometry& geometry;
  const Communicator& comm;
  FlowBoundary boundary;
  IncompressibleSettings settings;
  /// The constructor's parts, timed (the run's "operators" phase; declared before what it times).
  PartTimer setup;
  CellFaces cells;
  ProcessorFaces processor;  ///< the set-up's exchanges (a step makes its own for the fields)
  Laplacian laplacian;
  std::array<bool, 3> solved;  ///< the components the predictor solves (solved_directions, over all ranks)
  bool orthogonal;             ///< on every rank
  /// The velocity's fit where no weights are kept, no cell fitted ahead (velocity_gradient's)
  std::optional<LinearLeastSquares> least_squares;
  label reference_cell = -1;  ///< the cell whose pressure is pinned, or -1 when a patch fixes p (or on other ranks)

  // --- the faces coupling two cells: internal, then processor faces (neighbour: a ghost)
  label n_ghosts = 0;   ///< processor faces: ghost n_cells + k is the cell across processor face k
  label n_coupled = 0;  ///< internal + processor faces
  // (views of the mesh's, the Laplacian's and the geometry's own arrays where there are no ghosts)
  std::span<const label> coupled_neighbour;
  std::span<const double> coupled_weight;  ///< linear interpolation weight (owner side)
  std::span<const double> coupled_coeff;   ///< |S| / (n.d), d to the neighbour's (or ghost's) centre
  std::span<const Vec3> cell_centres;      ///< the rank's cells, then the ghosts' (linearUpwind)

  // --- per other boundary face (index f - n_coupled)
  std::vector<double> boundary_coeff;  ///< |S| / (n.d)
  std::vector<Vec3> boundary_velocity;
  std::vector<int> boundary_kind;  ///< FlowPatchType
  std::vector<double> boundary_pressure;

  /// Per entry of the cells' gather lists, where needs_velocity_gradients (else empty: 144 bytes a
  /// hexahedron that no step reads).
  std::vector<Vec3> least_squares_weights;
  UnfilledVector<double> rhie_chow_time;  ///< D_f = V_f / (nu L)_f per face: the steady Rhie-Chow time scale
  /// nu L + V on the diagonal (a step sets V/dt itself), with its processor interfaces, and the
  /// diagonal of nu L alone.
  DistributedLdu helmholtz_system;
  UnfilledVector<double> helmholtz_base_diagonal;
  std::array<UnfilledVector<double>, 3> momentum_boundary_source;  ///< nu a_b U_b,i per cell
  /// A = -div grad, with the weak pin of the reference cell, and its processor interfaces; a_b p_b
  /// on fixed faces + the pin's term.
  DistributedLdu pressure_system;
  UnfilledVector<double> pressure_source;

 private:
  /// With ghosts, the coupled faces' and the cells' arrays with the ghosts' appended.
  std::vector<label> ghosted_neighbour_;
  std::vector<double> ghosted_weight_, ghosted_coeff_;
  std::vector<Vec3> ghosted_centres_;
  // --- the constructor's steps, in order
  /// The coupled faces' neighbour, weight and coefficient and the cell centres, the ghosts' appended.
  void set_coupled_faces(std::span<const Vec3> ghost_centres);
  /// boundary_coeff, boundary_velocity, boundary_kind and boundary_pressure.
  void set_boundary_face_data();
  /// helmholtz_system (V for dt = 1 until a step sets its own), its base diagonal and boundary sources.
  void assemble_helmholtz(std::span<const label> global_cell, const CellFaceLists& lists);
  /// least_squares_weights, the cells across the processor faces at ghost_centres.
  void set_least_squares_weights(std::span<const Vec3> ghost_centres, const CellFaceLists& lists);
  /// pressure_system and pressure_source, assembled once.
  void assemble_pressure(const CellFaceLists& lists);
  /// The weak pin of settings.reference_cell, where no patch fixes p. Collective.
  void pin_reference_cell();
};

}  // namespace fvmmini
