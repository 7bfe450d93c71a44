// icoFoam's PISO step with every field resident on the GPU (make_device_piso_step): PisoStep's
// algorithm (piso_step.hpp) and its formulas (piso_formulas.hpp), loop for loop, as face and cell
// kernels. Cells gather from their faces (CellFaces lists), so sums are deterministic; the
// momentum and pressure matrices are assembled on the device as LDU coefficients and set into
// their solvers there (DeviceSolver::set_coefficients: the format's values, the diagonal, the
// preconditioner's factor or hierarchy). Per step the host launches work, waits for each solve's
// status, and reads back one small block of statistics at the end. One rank.

#include "discretisation/incompressible/flow_step_factory.hpp"

#include "discretisation/incompressible/device_flow_state.cuh"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "discretisation/incompressible/piso_formulas.hpp"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/timing.hpp"
#include "solvers/cuda/device_solver.hpp"

namespace fvmmini {

namespace {

using cuda::DeviceBuffer;
using cuda::Sums;

using flow::Cells;
using flow::Faces;
using flow::Solved;
using Components = flow::Components<double>;
using ConstComponents = flow::Components<const double>;

#define FVMMINI_GRID_STRIDE(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/// face_values[f] = U_i on face f (flow::face_velocity), the Gauss gradient's input.
__global__ void face_velocity_kernel(Faces F, const double* __restrict__ u, int i, double* __restrict__ face_values) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) { face_values[f] = flow::face_velocity(F, u, i, f); }
}

/// face_values[f] = p on face f (flow::face_pressure, unshifted).
__global__ void face_pressure_kernel(Faces F, const double* __restrict__ p, double* __restrict__ face_values) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) { face_values[f] = flow::face_pressure(F, p, 0.0, f); }
}

/// grad[c] = the Gauss gradient of the face values.
__global__ void gauss_gradient_kernel(Cells C, const Vec3* __restrict__ area, const double* __restrict__ face_values,
                                      Vec3* __restrict__ grad) {
  FVMMINI_GRID_STRIDE(c, C.n) { grad[c] = flow::cell_gauss_gradient(C, area, face_values, c); }
}

/// UEqn's two coefficients of each internal face.
__global__ void momentum_faces_kernel(Faces F, const double* __restrict__ phi, double nu, bool upwind_weights,
                                      double* __restrict__ lower, double* __restrict__ upper) {
  FVMMINI_GRID_STRIDE(f, F.n_internal) {
    const double lambda = piso::convection_weight(upwind_weights, F.weight[f], phi[f]);
    const piso::FaceCoefficients a = piso::momentum_face(lambda, phi[f], nu * F.coeff[f]);
    lower[f] = a.lower;
    upper[f] = a.upper;
  }
}

/// UEqn's diagonal (negSumDiag, V / dt, the boundary's part) and source of each cell, as
/// PisoStep::assemble_momentum gathers them.
__global__ void momentum_cells_kernel(Faces F, Cells C, const double* __restrict__ phi, double nu, double dt,
                                      ConstComponents u_old, Solved solved, const double* __restrict__ lower,
                                      const double* __restrict__ upper, bool linear_upwind, bool corrected,
                                      const Vec3* __restrict__ cell_centre, const Vec3* g0, const Vec3* g1,
                                      const Vec3* g2, double* __restrict__ diag, Components source) {
  const Vec3* grad_u[3] = {g0, g1, g2};
  FVMMINI_GRID_STRIDE(c, C.n) {
    double d = C.volume[c] / dt;
    Vec3 s = (C.volume[c] / dt) * Vec3{u_old.c[0][c], u_old.c[1][c], u_old.c[2][c]};
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      if (f < F.n_internal) {
        d -= C.signs[k] > 0 ? lower[f] : upper[f];
        for (int i = 0; i < 3; ++i) {
          if (!solved.c[i]) continue;
          if (linear_upwind) s[i] -= C.signs[k] * piso::linear_upwind_correction(F, cell_centre, grad_u[i], phi, f);
          if (corrected) s[i] += C.signs[k] * nu * piso::non_orthogonal_flux(F, grad_u[i], f);
        }
        continue;
      }
      d += piso::momentum_boundary_diagonal(F, nu, phi, f);
      for (int i = 0; i < 3; ++i) s[i] += piso::momentum_boundary_source(F, nu, phi, i, f);
    }
    diag[c] = d;
    for (int i = 0; i < 3; ++i) source.c[i][c] = s[i];
  }
}

/// The predictor's right-hand side of component i: source - V grad p.
__global__ void predictor_rhs_kernel(Cells C, const double* __restrict__ source, const Vec3* __restrict__ grad_p,
                                     int i, double* __restrict__ rhs) {
  FVMMINI_GRID_STRIDE(c, C.n) { rhs[c] = source[c] - C.volume[c] * grad_p[c][i]; }
}

/// rAU = V / A.
__global__ void rau_kernel(Cells C, const double* __restrict__ diag, double* __restrict__ rau) {
  FVMMINI_GRID_STRIDE(c, C.n) { rau[c] = C.volume[c] / diag[c]; }
}

/// ddtCorr of every face and the negated pEqn's off-diagonal of the internal ones.
__global__ void pressure_faces_kernel(Faces F, ConstComponents u_old, const double* __restrict__ phi_old, double dt,
                                      const double* __restrict__ rau, double* __restrict__ ddt_corr,
                                      double* __restrict__ pressure_upper) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    ddt_corr[f] = piso::ddt_correction(F, u_old, phi_old[f], dt, f);
    if (f < F.n_internal) pressure_upper[f] = -piso::pressure_coupling(F, rau, f);
  }
}

/// The negated pEqn's diagonal from its off-diagonal (the couplings' sum; outlets' from rAU), the
/// reference cell's doubled (setReference).
__global__ void pressure_diagonal_kernel(Faces F, Cells C, const double* __restrict__ rau,
                                         const double* __restrict__ pressure_upper, label reference_cell,
                                         double* __restrict__ diag) {
  FVMMINI_GRID_STRIDE(c, C.n) {
    double d = 0.0;
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      d += f < F.n_internal ? -pressure_upper[f] : piso::pressure_coupling(F, rau, f);
    }
    diag[c] = c == reference_cell ? 2.0 * d : d;
  }
}

/// HbyA = rAU (source - sum_nb a_nb U_nb) / V of the solved components, in one walk of the cell's
/// faces.
__global__ void hbya_kernel(Faces F, Cells C, ConstComponents source, ConstComponents u, Solved solved,
                            const double* __restrict__ lower, const double* __restrict__ upper,
                            const double* __restrict__ rau, Components hbya) {
  FVMMINI_GRID_STRIDE(c, C.n) {
    double h[3] = {source.c[0][c], source.c[1][c], source.c[2][c]};
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      if (f >= F.n_internal) continue;
      const bool owns = C.signs[k] > 0;
      const double a = owns ? upper[f] : lower[f];
      const label other = owns ? F.neighbour[f] : F.owner[f];
      for (int i = 0; i < 3; ++i) h[i] -= a * u.c[i][other];
    }
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) hbya.c[i][c] = rau[c] * (h[i] / C.volume[c]);
  }
}

/// phiHbyA of every face.
__global__ void predicted_flux_kernel(Faces F, ConstComponents hbya, const double* __restrict__ rau,
                                      const double* __restrict__ ddt_corr, double* __restrict__ predicted) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) { predicted[f] = piso::predicted_flux(F, hbya, rau, ddt_corr[f], f); }
}

/// b = -div(phiHbyA) + the outlets' rAU a_b p_b (+ the reference's half diagonal times its value),
/// and the partial sums of |div phiHbyA|.
__global__ void __launch_bounds__(cuda::reduce_block)
    pressure_source_kernel(Faces F, Cells C, const double* __restrict__ predicted, const double* __restrict__ rau,
                           const double* __restrict__ pressure_diag, label reference_cell, double reference_value,
                           double* __restrict__ source, double* __restrict__ partials) {
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    const double div = flow::cell_divergence(C, predicted, c);
    double b = -div;
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const label f = C.faces[k];
      if (f >= F.n_internal && flow::boundary_kind(F, f) == FlowPatchType::pressure_outlet)
        b += piso::pressure_coupling(F, rau, f) * F.bpressure[f - F.n_internal];
    }
    if (c == reference_cell) b += 0.5 * pressure_diag[c] * reference_value;
    source[c] = b;
    s.v[0] += fabs(div);
  }
  cuda::write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// rAU_f |S| k . (grad p)_f on every internal face.
__global__ void pressure_flux_correction_kernel(Faces F, const double* __restrict__ rau,
                                                const Vec3* __restrict__ grad_p, double* __restrict__ flux_correction) {
  FVMMINI_GRID_STRIDE(f, F.n_internal) {
    flux_correction[f] = flow::interpolate(F, rau, f) * piso::non_orthogonal_flux(F, grad_p, f);
  }
}

/// rhs += the net outflow of the explicit non-orthogonal flux.
__global__ void add_flux_correction_kernel(Faces F, Cells C, const double* __restrict__ flux_correction,
                                           double* __restrict__ rhs) {
  FVMMINI_GRID_STRIDE(c, C.n) {
    for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k)
      if (C.faces[k] < F.n_internal) rhs[c] += C.signs[k] * flux_correction[C.faces[k]];
  }
}

/// phi = phiHbyA - pEqn.flux() (with the explicit part where corrected), and the face pressures
/// of the Gauss gradient.
__global__ void corrected_flux_kernel(Faces F, const double* __restrict__ rau, const double* __restrict__ p,
                                      const double* __restrict__ predicted, const double* __restrict__ flux_correction,
                                      double* __restrict__ phi, double* __restrict__ face_pressure) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    double flux = piso::corrected_flux(F, rau, p, predicted[f], f);
    if (flux_correction && f < F.n_internal) flux -= flux_correction[f];
    phi[f] = flux;
    face_pressure[f] = flow::face_pressure(F, p, 0.0, f);
  }
}

/// The statistics a correction reads back (sums, then maxima), reduced over the blocks.
constexpr int n_sums = 4;    // |div phi|, div phi, sum_c sum_f |phi|, non-finite p count
constexpr int n_maxima = 3;  // max|dU|, max|U|, max sum_f |phi| / V

/// grad p, U = HbyA - rAU grad p, and the correction's partial statistics (the order above; the
/// velocity change against U^n).
__global__ void __launch_bounds__(cuda::reduce_block)
    velocity_correction_kernel(Cells C, const Vec3* __restrict__ area, const double* __restrict__ face_pressure,
                               const double* __restrict__ phi, const double* __restrict__ p,
                               ConstComponents hbya, const double* __restrict__ rau, ConstComponents u_old,
                               Solved solved, Components u, Vec3* __restrict__ grad_p,
                               double* __restrict__ sum_partials, double* __restrict__ max_partials) {
  Sums<n_sums> s{};
  Sums<n_maxima> m{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    const Vec3 grad = flow::cell_gauss_gradient(C, area, face_pressure, c);
    grad_p[c] = grad;
    Vec3 du, un;
    for (int i = 0; i < 3; ++i) {
      un[i] = u.c[i][c];
      if (!solved.c[i]) continue;
      un[i] = hbya.c[i][c] - rau[c] * grad[i];
      u.c[i][c] = un[i];
      du[i] = un[i] - u_old.c[i][c];
    }
    const double div = flow::cell_divergence(C, phi, c);
    const double flux_sum = flow::cell_absolute_flux(C, phi, c);
    s.v[0] += fabs(div);
    s.v[1] += div;
    s.v[2] += flux_sum;
    s.v[3] += isfinite(p[c]) ? 0.0 : 1.0;
    m.v[0] = fmax(m.v[0], sqrt(dot(du, du)));
    m.v[1] = fmax(m.v[1], sqrt(dot(un, un)));
    m.v[2] = fmax(m.v[2], flux_sum / C.volume[c]);
  }
  cuda::write_block_partials<n_sums>(s, sum_partials, gridDim.x, blockIdx.x);
  __syncthreads();  // block_sum's shared memory is reused below
  cuda::write_block_partials<n_maxima, cuda::MaxOp>(m, max_partials, gridDim.x, blockIdx.x);
}

/// One slot of statistics: the |div phiHbyA| of the first correction, then each correction's
/// sums and maxima.
struct CorrectionStats {
  double sums[n_sums];
  double maxima[n_maxima];
};

/// The block partials of one correction into its slot (one block, fixed order).
__global__ void __launch_bounds__(1024)
    statistics_kernel(const double* __restrict__ sum_partials, const double* __restrict__ max_partials, int count,
                      CorrectionStats* __restrict__ out) {
  const Sums<n_sums> s = cuda::reduce_partials<n_sums>(sum_partials, count);
  __syncthreads();
  const Sums<n_maxima> m = cuda::reduce_partials<n_maxima, cuda::MaxOp>(max_partials, count);
  if (threadIdx.x != 0) return;
  for (int k = 0; k < n_sums; ++k) out->sums[k] = s.v[k];
  for (int k = 0; k < n_maxima; ++k) out->maxima[k] = m.v[k];
}

/// *out = the sum of the block partials of |div phiHbyA|.
__global__ void __launch_bounds__(1024) sum_kernel(const double* __restrict__ partials, int count, double* out) {
  const Sums<1> s = cuda::reduce_partials<1>(partials, count);
  if (threadIdx.x == 0) *out = s.v[0];
}

#undef FVMMINI_GRID_STRIDE

template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  return DeviceBuffer<T>(host);
}

/// A field's device solver; settings that do not fit its matrix name the field.
cuda::DeviceSolver field_solver(const LduMatrix& matrix, const SolverSettings& settings, const char* field,
                                const cuda::DeviceSolver* same_pattern = nullptr) {
  try {
    check_symmetry(matrix, settings, false);
    return cuda::DeviceSolver(matrix, settings, same_pattern);
  } catch (const std::invalid_argument& e) {
    throw SolverSetupError(field, e.what());
  }
}

/// The momentum matrix before the first step assembles it: asymmetric (so that a method or
/// preconditioner that takes symmetric matrices only is refused at once), unit diagonal.
LduMatrix initial_momentum_matrix(const FlowOperators& ops) {
  LduMatrix m = make_ldu_matrix(ops.laplacian.addressing());
  std::fill(m.diag.begin(), m.diag.end(), 1.0);
  m.lower.assign(m.upper.size(), 0.0);
  return m;
}

class DevicePisoStep final : public FlowStep {
 public:
  DevicePisoStep(const FlowOperators& ops, const SolverSettings& velocity_settings,
                 const SolverSettings& pressure_settings, const SolverSettings& final_settings)
      : FlowStep(ops),
        pressure_rules(pressure_settings),
        final_rules(final_settings),
        before(1),
        stats(ops.settings.piso.n_correctors),
        stats_host(ops.settings.piso.n_correctors),
        before_host(1) {
    if (ops.comm.distributed())
      throw std::invalid_argument("algorithm PISO runs on one rank (the projection runs on several)");
    const Mesh& mesh = ops.mesh;
    const MeshGeometry& g = ops.geometry;
    const auto& settings = ops.settings;
    const PisoSettings& piso = settings.piso;
    const label n = mesh.n_cells;
    const label n_faces = mesh.n_faces();
    const label n_internal = mesh.n_internal_faces();
    nu = settings.viscosity;
    upwind_weights = settings.convection != ConvectionScheme::linear;
    linear_upwind = settings.convection == ConvectionScheme::linear_upwind;
    corrected = piso.sn_grad == SnGrad::corrected && !ops.orthogonal;
    reference_cell = ops.reference_cell;
    reference_value = settings.reference_value;
    for (int i = 0; i < 3; ++i) solved.c[i] = ops.solved[i];
    total_volume = std::accumulate(g.cell_volumes.begin(), g.cell_volumes.end(), 0.0);
    grid_cells = cuda::vector_grid(n);
    grid_faces = cuda::vector_grid(n_faces);

    // --- the solvers: U's on an asymmetric matrix, where U is solved (without momentumPredictor
    //     icoFoam never solves it, and its matrix and factor would only take memory); p's on the
    //     Laplacian's values until the first step (GAMG agglomerates on them); pFinal on p's solver
    //     where only the stopping rules differ; each with the face slot maps that every step sets
    //     its matrix through
    if (piso.momentum_predictor) {
      velocity_solver.emplace(field_solver(initial_momentum_matrix(ops), velocity_settings, "U"));
      velocity_solver->upload_face_slots();
      setup_timer.mark("U solver");
    }
    pressure_solver.emplace(field_solver(ops.pressure_system.local, pressure_settings, "p",
                                         velocity_solver ? &*velocity_solver : nullptr));
    pressure_solver->upload_face_slots();
    if (!same_but_stopping_rules(pressure_settings, final_settings)) {
      final_pressure_solver.emplace(
          field_solver(ops.pressure_system.local, final_settings, "pFinal", &*pressure_solver));
      final_pressure_solver->upload_face_slots();
    }
    setup_timer.mark("p solvers");

    // --- constant data: the operators' faces (the Laplacian's coefficients |S| / |d| under snGrad
    //     orthogonal on a non-orthogonal mesh) and cells
    const flow::Faces host = ops.faces();
    owner = upload<label>(mesh.owner);
    neighbour = upload<label>(ops.coupled_neighbour);
    weight = upload<double>(ops.coupled_weight);
    if (piso.sn_grad == SnGrad::orthogonal && !ops.orthogonal) {
      std::vector<double> orthogonal(n_internal);
      for (label f = 0; f < n_internal; ++f)
        orthogonal[f] = mag(g.face_areas[f]) / mag(g.cell_centres[host.neighbour[f]] - g.cell_centres[host.owner[f]]);
      coeff = upload<double>(orthogonal);
    } else {
      coeff = upload<double>(ops.coupled_coeff);
    }
    bcoeff = upload<double>(ops.boundary_coeff);
    area = upload<Vec3>(g.face_areas);
    kind = upload<int>(ops.boundary_kind);
    bvelocity = upload<Vec3>(ops.boundary_velocity);
    bpressure = upload<double>(ops.boundary_pressure);
    if (linear_upwind) {
      face_centre = upload<Vec3>(g.face_centres);
      cell_centre = upload<Vec3>(ops.cell_centres);
    }
    if (corrected) correction = upload<Vec3>(ops.laplacian.non_orthogonal_corrections());
    volume = upload<double>(g.cell_volumes);
    offsets = upload<label>(ops.cells.offsets());
    cell_face = upload<label>(ops.cells.faces());
    signs = upload<std::int8_t>(ops.cells.signs());
    setup_timer.mark("face and cell data to the device");

    // --- state and work arrays
    for (int i = 0; i < 3; ++i) {
      velocity_old[i] = DeviceBuffer<double>(n);
      source[i] = DeviceBuffer<double>(n);
      hbya[i] = DeviceBuffer<double>(n);
      FVMMINI_CUDA_CHECK(cudaMemset(hbya[i].data(), 0, hbya[i].bytes()));  // an unsolved component's stays 0
      if (solved.c[i] && piso.momentum_predictor) rhs[i] = DeviceBuffer<double>(n);
      if (solved.c[i] && (linear_upwind || corrected)) grad_u[i] = DeviceBuffer<Vec3>(n);
    }
    courant_unit = make_initial_flow_state(ops, faces(), cells(), total_volume, velocity, pressure, grad_p, flux);
    for (auto* faces : {&flux_old, &ddt_corr, &predicted_flux, &face_work}) *faces = DeviceBuffer<double>(n_faces);
    for (auto* faces : {&momentum_lower, &momentum_upper, &pressure_upper}) *faces = DeviceBuffer<double>(n_internal);
    if (corrected) flux_correction = DeviceBuffer<double>(n_internal);
    for (auto* cells : {&momentum_diag, &rau, &pressure_diag, &pressure_source, &pressure_rhs})
      *cells = DeviceBuffer<double>(n);
    before_partials = DeviceBuffer<double>(grid_cells);
    sum_partials = DeviceBuffer<double>(n_sums * grid_cells);
    max_partials = DeviceBuffer<double>(n_maxima * grid_cells);
    // one event a phase boundary: the start, momentum, corrections' set-up, and per correction its
    // assembly, each solve and the correction
    const int events = 3 + piso.n_correctors * (piso.n_non_orthogonal_correctors + 3);
    for (int k = 0; k < events; ++k) phase_events.emplace_back();
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
    setup_timer.mark("fields and work buffers");
    setup_parts_ = setup_timer.parts();
  }

  CourantNumber courant_number(double dt) const override { return {dt * courant_unit.mean, dt * courant_unit.max}; }
  StepReport advance(double dt) override;
  const FlowState& state() override;
  std::string describe() const override {
    const PisoSettings& piso = operators().settings.piso;
    // (strings joined, not fmt::format: nvcc's front end rejects fmt's compile-time format check)
    return "U solver: " +
           (velocity_solver ? velocity_solver->describe() : no_velocity_solver) +
           "\np solver: " + pressure_solver->describe() +
           "\npFinal solver: " +
           (final_pressure_solver ? final_pressure_solver->describe() : "p's, its own stopping rules") +
           "\nStep: PISO on the GPU, every field resident (copied back for output), nCorrectors " +
           std::to_string(piso.n_correctors) + ", nNonOrthogonalCorrectors " +
           std::to_string(piso.n_non_orthogonal_correctors) + ", momentumPredictor " +
           (piso.momentum_predictor ? "on" : "off") + ", snGrad " + name(piso.sn_grad) +
           (operators().orthogonal ? " (an orthogonal mesh: nothing to correct)" : "") + "\n";
  }
  PreconditionerInfo velocity_preconditioner() const override {
    return velocity_solver ? velocity_solver->preconditioner_info() : PreconditionerInfo{};
  }
  PreconditionerInfo pressure_preconditioner() const override { return pressure_solver->preconditioner_info(); }
  FormatInfo velocity_format() const override {
    return velocity_solver ? velocity_solver->format_info() : FormatInfo{};
  }
  FormatInfo pressure_format() const override { return pressure_solver->format_info(); }

 private:
  Faces faces() const {
    Faces f;
    f.n_internal = static_cast<label>(weight.size());
    f.n_faces = static_cast<label>(owner.size());
    f.owner = owner.data();
    f.neighbour = neighbour.data();
    f.weight = weight.data();
    f.coeff = coeff.data();
    f.bcoeff = bcoeff.data();
    f.area = area.data();
    f.centre = face_centre.data();
    f.correction = correction.data();  // null unless corrected
    f.kind = kind.data();
    f.bvelocity = bvelocity.data();
    f.bpressure = bpressure.data();
    return f;
  }
  Cells cells() const {
    return {static_cast<label>(volume.size()), volume.data(), offsets.data(), cell_face.data(), signs.data(), nullptr};
  }
  static Components components(std::array<DeviceBuffer<double>, 3>& a) {
    return {{a[0].data(), a[1].data(), a[2].data()}};
  }
  static ConstComponents components(const std::array<DeviceBuffer<double>, 3>& a) {
    return {{a[0].data(), a[1].data(), a[2].data()}};
  }

  // --- the parts of advance(), in PisoStep's order
  void assemble_momentum(double dt);
  void predict_velocity(StepReport& report);
  void prepare_corrections(double dt);
  void correct(int corrector, StepReport& report);
  void add_pressure_flux_correction();
  /// Marks the end of a phase on the stream: the time since the last mark is `part`'s.
  void mark(double StepPhaseTimes::*part) {
    phase_events[marks].record(stream.get());
    phase_parts.push_back(part);
    ++marks;
  }

  PartTimer setup_timer;  ///< the constructor's parts (declared before what it times)
  std::optional<cuda::DeviceSolver> velocity_solver, pressure_solver, final_pressure_solver;
  /// p's and pFinal's settings: pFinal's are its own solver's, or the stopping rules p's solver takes for it
  SolverSettings pressure_rules, final_rules;
  double nu = 0.0;
  bool upwind_weights = false, linear_upwind = false, corrected = false;
  label reference_cell = -1;
  double reference_value = 0.0;
  Solved solved{};
  double total_volume = 0.0;
  int grid_cells = 1, grid_faces = 1;

  DeviceBuffer<label> owner, neighbour, offsets, cell_face;
  DeviceBuffer<int> kind;
  DeviceBuffer<double> weight, coeff, bcoeff, bpressure, volume;
  DeviceBuffer<std::int8_t> signs;
  DeviceBuffer<Vec3> area, face_centre, cell_centre, correction, bvelocity;

  std::array<DeviceBuffer<double>, 3> velocity, velocity_old, source, rhs, hbya;
  std::array<DeviceBuffer<Vec3>, 3> grad_u;  ///< Gauss gradients of U^n (linearUpwind, corrected)
  DeviceBuffer<double> pressure, flux;
  DeviceBuffer<Vec3> grad_p;
  DeviceBuffer<double> flux_old, ddt_corr, predicted_flux, face_work, flux_correction;
  DeviceBuffer<double> momentum_lower, momentum_upper, momentum_diag;
  DeviceBuffer<double> rau, pressure_upper, pressure_diag, pressure_source, pressure_rhs;
  DeviceBuffer<double> before_partials, sum_partials, max_partials;
  DeviceBuffer<double> before;  ///< |div phiHbyA| of the step's first correction
  DeviceBuffer<CorrectionStats> stats;
  cuda::PinnedBuffer<CorrectionStats> stats_host;
  cuda::PinnedBuffer<double> before_host;

  cuda::Stream stream;
  std::vector<cuda::Event> phase_events;
  std::vector<double StepPhaseTimes::*> phase_parts;  ///< this step's: the part ending at each event after the first
  int marks = 0;
  CourantNumber courant_unit;  ///< the Courant number of the current fluxes for dt = 1
  double cumulative_continuity = 0.0;
  FlowState host_state;  ///< the fields as state() last copied them
  bool host_state_stale = true;
};

StepReport DevicePisoStep::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  const FlowOperators& ops = operators();
  const PisoSettings& piso = ops.settings.piso;
  host_state_stale = true;
  StepReport report;
  report.delta_t = dt;
  cudaStream_t s = stream.get();
  marks = 0;
  phase_parts.clear();
  phase_events[marks++].record(s);
  assemble_momentum(dt);
  if (piso.momentum_predictor) predict_velocity(report);
  mark(&StepPhaseTimes::momentum);
  prepare_corrections(dt);
  mark(&StepPhaseTimes::pressure_assembly);
  for (int k = 1; k <= piso.n_correctors; ++k) correct(k, report);

  // --- the statistics of every correction, read back once
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(stats_host.data(), stats.data(), sizeof(CorrectionStats) * piso.n_correctors,
                                     cudaMemcpyDeviceToHost, s));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(before_host.data(), before.data(), sizeof(double), cudaMemcpyDeviceToHost, s));
  FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
  report.divergence_before = before_host[0];
  for (int k = 0; k < piso.n_correctors; ++k) {
    const CorrectionStats& st = stats_host[k];
    report.continuity = continuity_from_sums(st.sums[0], st.sums[1], total_volume, dt, cumulative_continuity);
    cumulative_continuity = report.continuity.cumulative;
    report.corrections[k].continuity = report.continuity;
  }
  const CorrectionStats& last = stats_host[piso.n_correctors - 1];
  if (last.sums[3] > 0.0) throw non_finite_pressure_error();
  report.divergence_after = last.sums[0];
  report.velocity_change = flow::relative_velocity_change(last.maxima[0], last.maxima[1], dt);
  courant_unit = courant_from_sums(last.sums[2], last.maxima[2], total_volume, 1.0);
  for (int k = 1; k < marks; ++k)
    report.times.*phase_parts[k - 1] += 1e-3 * phase_events[k].elapsed_since(phase_events[k - 1]);
  return report;
}

/// UEqn's matrix and source (without grad p) from U^n and phi^n, set into U's solver.
void DevicePisoStep::assemble_momentum(double dt) {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  const int block = cuda::reduce_block;
  const label n = C.n;
  // --- U^n and phi^n, the old values of ddt and ddtCorr
  for (int i = 0; i < 3; ++i)
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(velocity_old[i].data(), velocity[i].data(), sizeof(double) * n,
                                       cudaMemcpyDeviceToDevice, s));
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(flux_old.data(), flux.data(), flux.bytes(), cudaMemcpyDeviceToDevice, s));
  // --- the faces' coefficients, the Gauss gradients of U^n, then each cell's diagonal and source
  momentum_faces_kernel<<<grid_faces, block, 0, s>>>(F, flux.data(), nu, upwind_weights, momentum_lower.data(),
                                                     momentum_upper.data());
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_faces_kernel);
  if (linear_upwind || corrected) {
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      face_velocity_kernel<<<grid_faces, block, 0, s>>>(F, velocity_old[i].data(), i, face_work.data());
      FVMMINI_CUDA_CHECK_LAUNCH(face_velocity_kernel);
      gauss_gradient_kernel<<<grid_cells, block, 0, s>>>(C, F.area, face_work.data(), grad_u[i].data());
      FVMMINI_CUDA_CHECK_LAUNCH(gauss_gradient_kernel);
    }
  }
  momentum_cells_kernel<<<grid_cells, block, 0, s>>>(
      F, C, flux.data(), nu, dt, components(std::as_const(velocity_old)), solved, momentum_lower.data(),
      momentum_upper.data(), linear_upwind, corrected, cell_centre.data(), grad_u[0].data(), grad_u[1].data(),
      grad_u[2].data(), momentum_diag.data(), components(source));
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_cells_kernel);
  if (velocity_solver)
    velocity_solver->set_coefficients(momentum_diag.data(), momentum_upper.data(), momentum_lower.data(), s);
}

/// UEqn == -grad p: each solved component with U's solver, from U^n.
void DevicePisoStep::predict_velocity(StepReport& report) {
  cudaStream_t s = stream.get();
  const Cells C = cells();
  for (int i = 0; i < 3; ++i) {
    if (!solved.c[i]) continue;
    predictor_rhs_kernel<<<grid_cells, cuda::reduce_block, 0, s>>>(C, source[i].data(), grad_p.data(), i,
                                                                   rhs[i].data());
    FVMMINI_CUDA_CHECK_LAUNCH(predictor_rhs_kernel);
    const SolverPerformance perf =
        velocity_solver->solve(velocity[i].data(), rhs[i].data(), velocity_component_name(i), s);
    report.solves.push_back(perf);
    report.momentum_residual = std::max(report.momentum_residual, perf.initial_residual);
  }
}

/// rAU, ddtCorr and the negated pEqn's matrix, set into the pressure solvers.
void DevicePisoStep::prepare_corrections(double dt) {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  const int block = cuda::reduce_block;
  rau_kernel<<<grid_cells, block, 0, s>>>(C, momentum_diag.data(), rau.data());
  FVMMINI_CUDA_CHECK_LAUNCH(rau_kernel);
  pressure_faces_kernel<<<grid_faces, block, 0, s>>>(F, components(std::as_const(velocity_old)), flux_old.data(), dt,
                                                     rau.data(), ddt_corr.data(), pressure_upper.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_faces_kernel);
  pressure_diagonal_kernel<<<grid_cells, block, 0, s>>>(F, C, rau.data(), pressure_upper.data(), reference_cell,
                                                        pressure_diag.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_diagonal_kernel);
  pressure_solver->set_coefficients(pressure_diag.data(), pressure_upper.data(), nullptr, s);
  if (final_pressure_solver)
    final_pressure_solver->set_coefficients(pressure_diag.data(), pressure_upper.data(), nullptr, s);
}

/// The explicit non-orthogonal pressure flux of the current p, its net outflow added to the
/// pressure right-hand side.
void DevicePisoStep::add_pressure_flux_correction() {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  const int block = cuda::reduce_block;
  face_pressure_kernel<<<grid_faces, block, 0, s>>>(F, pressure.data(), face_work.data());
  FVMMINI_CUDA_CHECK_LAUNCH(face_pressure_kernel);
  gauss_gradient_kernel<<<grid_cells, block, 0, s>>>(C, F.area, face_work.data(), grad_p.data());
  FVMMINI_CUDA_CHECK_LAUNCH(gauss_gradient_kernel);
  pressure_flux_correction_kernel<<<grid_faces, block, 0, s>>>(F, rau.data(), grad_p.data(), flux_correction.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_flux_correction_kernel);
  add_flux_correction_kernel<<<grid_cells, block, 0, s>>>(F, C, flux_correction.data(), pressure_rhs.data());
  FVMMINI_CUDA_CHECK_LAUNCH(add_flux_correction_kernel);
}

/// PISO correction `corrector` (1 .. nCorrectors): HbyA, phiHbyA, the pressure solves, phi, U.
void DevicePisoStep::correct(int corrector, StepReport& report) {
  const PisoSettings& piso = operators().settings.piso;
  const bool last = corrector == piso.n_correctors;
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  const int block = cuda::reduce_block;

  // --- HbyA, phiHbyA and the pressure right-hand side but its explicit non-orthogonal part
  hbya_kernel<<<grid_cells, block, 0, s>>>(F, C, components(std::as_const(source)), components(std::as_const(velocity)),
                                           solved, momentum_lower.data(), momentum_upper.data(), rau.data(),
                                           components(hbya));
  FVMMINI_CUDA_CHECK_LAUNCH(hbya_kernel);
  predicted_flux_kernel<<<grid_faces, block, 0, s>>>(F, components(std::as_const(hbya)), rau.data(), ddt_corr.data(),
                                                     predicted_flux.data());
  FVMMINI_CUDA_CHECK_LAUNCH(predicted_flux_kernel);
  pressure_source_kernel<<<grid_cells, block, 0, s>>>(F, C, predicted_flux.data(), rau.data(), pressure_diag.data(),
                                                      reference_cell, reference_value, pressure_source.data(),
                                                      before_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_source_kernel);
  if (corrector == 1) {
    sum_kernel<<<1, 1024, 0, s>>>(before_partials.data(), grid_cells, before.data());
    FVMMINI_CUDA_CHECK_LAUNCH(sum_kernel);
  }
  mark(&StepPhaseTimes::pressure_assembly);

  // --- the pressure solves (OpenFOAM's non-orthogonal loop), pFinal last
  for (int k = 0; k <= piso.n_non_orthogonal_correctors; ++k) {
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(pressure_rhs.data(), pressure_source.data(), pressure_source.bytes(),
                                       cudaMemcpyDeviceToDevice, s));
    if (corrected) add_pressure_flux_correction();
    const bool final_solve = last && k == piso.n_non_orthogonal_correctors;
    if (final_solve && final_pressure_solver)
      report.solves.push_back(final_pressure_solver->solve(pressure.data(), pressure_rhs.data(), "p", s));
    else
      report.solves.push_back(pressure_solver->solve(pressure.data(), pressure_rhs.data(), "p", s,
                                                     final_solve ? final_rules : pressure_rules));
    mark(&StepPhaseTimes::pressure_solve);
  }

  // --- phi, grad p, U, and this correction's statistics
  corrected_flux_kernel<<<grid_faces, block, 0, s>>>(F, rau.data(), pressure.data(), predicted_flux.data(),
                                                     corrected ? flux_correction.data() : nullptr, flux.data(),
                                                     face_work.data());
  FVMMINI_CUDA_CHECK_LAUNCH(corrected_flux_kernel);
  velocity_correction_kernel<<<grid_cells, block, 0, s>>>(
      C, F.area, face_work.data(), flux.data(), pressure.data(), components(std::as_const(hbya)), rau.data(),
      components(std::as_const(velocity_old)), solved, components(velocity), grad_p.data(), sum_partials.data(),
      max_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(velocity_correction_kernel);
  statistics_kernel<<<1, 1024, 0, s>>>(sum_partials.data(), max_partials.data(), grid_cells,
                                       stats.data() + (corrector - 1));
  FVMMINI_CUDA_CHECK_LAUNCH(statistics_kernel);
  report.corrections.push_back({report.solves.size() - 1, {}});  // its continuity once read back
  mark(&StepPhaseTimes::correction);
}

const FlowState& DevicePisoStep::state() {
  if (!host_state_stale) return host_state;
  download_flow_state(velocity, pressure, grad_p, flux, stream.get(), host_state);
  host_state_stale = false;
  return host_state;
}

}  // namespace

std::unique_ptr<FlowStep> make_device_piso_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                                const SolverSettings& pressure_solver,
                                                const SolverSettings& final_pressure_solver) {
  return std::make_unique<DevicePisoStep>(operators, velocity_solver, pressure_solver, final_pressure_solver);
}

}  // namespace fvmmini
