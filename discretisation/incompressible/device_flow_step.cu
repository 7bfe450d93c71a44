// The projection step with every field resident on the GPU (make_device_flow_step). Faces are
// looped over by face kernels, cells gather from their faces (CellFaces lists: no atomics, so sums
// are deterministic), and the few reductions (continuity errors, Courant number, velocity change)
// go through fixed-shape block partials. Every formula is flow_formulas.hpp's, shared with
// HostFlowStep. Per step the host only launches work and reads back one small block of statistics
// (and each solve's status), so no field crosses the bus until state() asks for it. On a rank's
// part of a decomposed mesh the ghost cells (flow_operators.hpp) are filled on the device
// (DeviceGhosts, over the pressure solver's transport) where the host step fills them, the solves
// run across the ranks, and the statistics read back are summed over the ranks on the host.

#include "discretisation/incompressible/flow_step_factory.hpp"

#include "discretisation/incompressible/device_flow_state.cuh"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "kernels/cuda/reduction.cuh"
#include "linalg/timing.hpp"
#include "solvers/cuda/device_solver.hpp"
#include "solvers/distributed/cuda/device_ghosts.hpp"
#include "solvers/distributed/cuda/device_ranks.hpp"

namespace fvmmini {

namespace {

using cuda::DeviceBuffer;
using cuda::Sums;

using flow::Cells;
using flow::Faces;
using flow::Solved;
using Components = flow::Components<double>;
using ConstComponents = flow::Components<const double>;

/// A field's device solver (across the ranks of comm where there are several); settings that do
/// not fit its matrix name the field. `same_pattern`: a solver whose host format it may share.
/// The solver's set-up is marked on `timer` as "<field> solver".
cuda::DeviceSolver field_solver(const DistributedLdu& system, const SolverSettings& settings, const Communicator& comm,
                                const char* field, PartTimer& timer, const cuda::DeviceSolver* same_pattern = nullptr) {
  struct MarkOnReturn {  // after the returned solver is made
    PartTimer& timer;
    const char* field;
    ~MarkOnReturn() { timer.mark(std::string(field) + " solver"); }
  } mark{timer, field};
  try {
    return comm.distributed() ? cuda::DeviceSolver(system, settings, comm, same_pattern)
                              : cuda::DeviceSolver(system.local, settings, same_pattern);
  } catch (const std::invalid_argument& e) {
    throw SolverSetupError(field, e.what());
  }
}

/// The processor faces' exchange of the ghost cells over `transport` (resolved), or null on one rank.
std::unique_ptr<cuda::DeviceGhosts> device_ghosts(const FlowOperators& ops, Transport transport) {
  if (!ops.comm.distributed()) return nullptr;
  std::vector<int> neighbours, cells;
  std::vector<std::size_t> faces;
  for (const Patch& patch : ops.mesh.patches)
    if (patch.neighbour_rank >= 0) {
      neighbours.push_back(patch.neighbour_rank);
      faces.push_back(static_cast<std::size_t>(patch.size));
      for (label f = patch.start; f < patch.start + patch.size; ++f) cells.push_back(ops.mesh.owner[f]);
    }
  return std::make_unique<cuda::DeviceGhosts>(ops.comm, transport, neighbours, faces, cells, ops.mesh.n_cells);
}

ConstComponents as_const(Components u) { return {{u.c[0], u.c[1], u.c[2]}}; }

/// The statistics one step reads back: sums then maxima, reduced over the blocks.
constexpr int n_sums = 5;    // |div phiH|, |div phi|, div phi, sum_c sum_f |phi|, non-finite p count
constexpr int n_maxima = 3;  // max|dU|, max|U|, max sum_f |phi| / V
struct StepStats {
  double sums[n_sums];
  double maxima[n_maxima];
};

#define FVMMINI_GRID_STRIDE(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/// The least-squares gradients of the solved velocity components.
__global__ void velocity_gradients_kernel(Faces F, Cells C, ConstComponents u, Solved solved, Vec3* g0, Vec3* g1,
                                          Vec3* g2) {
  Vec3* grad[3] = {g0, g1, g2};
  FVMMINI_GRID_STRIDE(c, C.n) {
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) grad[i][c] = flow::cell_velocity_gradient(C, F, u.c[i], i, c);
  }
}

/// Momentum face terms: the convective flux and, on non-orthogonal meshes, the deferred diffusion.
__global__ void momentum_faces_kernel(Faces F, ConstComponents u, Solved solved, const double* __restrict__ phi,
                                      bool upwind, double nu, const Vec3* cc, const Vec3* g0, const Vec3* g1,
                                      const Vec3* g2, Components convection, Components diffusion) {
  const Vec3* grad[3] = {g0, g1, g2};
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      convection.c[i][f] = flow::convective_flux(F, cc, u.c[i], grad[i], phi, upwind, i, f);
      if (F.correction) diffusion.c[i][f] = flow::deferred_diffusion(F, grad[i], nu, f);
    }
  }
}

/// Momentum right-hand sides from the gathered face terms; C_i kept for the next step; U^n saved;
/// the Helmholtz diagonal.
__global__ void momentum_rhs_kernel(Cells C, Components u, Components u_old, Solved solved, double dt,
                                    flow::ConvectionWeights ab, ConstComponents convection_faces,
                                    ConstComponents diffusion_faces, bool non_orthogonal, Components conv,
                                    ConstComponents conv_old, ConstComponents source, const Vec3* __restrict__ grad_p,
                                    Components rhs, const double* __restrict__ base_diag, double* __restrict__ diag) {
  FVMMINI_GRID_STRIDE(c, C.n) {
    const double v = C.volume[c];
    diag[c] = flow::helmholtz_diagonal(base_diag[c], v, dt);
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      const double div_conv = flow::cell_divergence(C, convection_faces.c[i], c);
      const double div_diff = non_orthogonal ? flow::cell_divergence(C, diffusion_faces.c[i], c) : 0.0;
      const double ui = u.c[i][c];
      u_old.c[i][c] = ui;
      conv.c[i][c] = div_conv;
      rhs.c[i][c] =
          flow::momentum_rhs(v, dt, ui, ab, div_conv, conv_old.c[i][c], grad_p[c][i], source.c[i][c], div_diff);
    }
  }
}

/// phiH from U*, U^n, p^n, grad p^n and phi^n (in place: each face reads its own phi^n first).
__global__ void predicted_flux_kernel(Faces F, ConstComponents u, ConstComponents u_old, Solved solved,
                                      const Vec3* __restrict__ grad_p, const double* __restrict__ p, double dt,
                                      double* __restrict__ phi) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) { phi[f] = flow::predicted_flux(F, solved, u, u_old, grad_p, p, phi[f], dt, f); }
}

/// U <- HbyA; the pressure right-hand side; partial sums of |div phiH|.
__global__ void __launch_bounds__(cuda::reduce_block)
    pressure_rhs_kernel(Cells C, Components u, Solved solved, const Vec3* __restrict__ grad_p, double dt,
                        const double* __restrict__ phi, const double* __restrict__ source, double* __restrict__ rhs,
                        double* __restrict__ partials) {
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    for (int i = 0; i < 3; ++i) u.c[i][c] = flow::hbya(u.c[i][c], grad_p[c][i], dt, solved.c[i]);
    const double div = flow::cell_divergence(C, phi, c);
    rhs[c] = flow::pressure_rhs(div, dt, source[c]);
    s.v[0] += fabs(div);
  }
  cuda::write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// *shift_out = the shift that puts p at its reference level (one rank).
__global__ void level_shift_kernel(const double* __restrict__ p, label reference_cell, double reference_value,
                                   double* __restrict__ shift_out) {
  *shift_out = flow::level_shift(p, reference_cell, reference_value);
}

/// The corrected fluxes and the face pressures of the Gauss gradient, p shifted by *level_shift
/// (the cell kernel moves p itself).
__global__ void corrected_flux_kernel(Faces F, const double* __restrict__ p, const double* __restrict__ level_shift,
                                      double dt, double* __restrict__ phi, double* __restrict__ face_pressure) {
  const double shift = *level_shift;
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    phi[f] = flow::corrected_flux(F, p, shift, dt, phi[f], f);
    face_pressure[f] = flow::face_pressure(F, p, shift, f);
  }
}

/// grad p^{n+1}, U^{n+1} = HbyA - dt grad p^{n+1}, p shifted (its ghosts too: every rank shifts
/// by the same), and the step's partial statistics (StepStats order).
__global__ void __launch_bounds__(cuda::reduce_block)
    correction_kernel(Faces F, Cells C, Components u, ConstComponents u_old, Solved solved, double dt,
                      const double* __restrict__ face_pressure, const double* __restrict__ phi, double* __restrict__ p,
                      label n_ghosts, const double* __restrict__ level_shift_in, Vec3* __restrict__ grad_p,
                      double* __restrict__ sum_partials, double* __restrict__ max_partials) {
  const double shift = *level_shift_in;
  FVMMINI_GRID_STRIDE(k, n_ghosts) { p[C.n + k] += shift; }
  Sums<n_sums> s{};
  Sums<n_maxima> m{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    const Vec3 grad = flow::cell_gauss_gradient(C, F.area, face_pressure, c);
    const double div = flow::cell_divergence(C, phi, c);
    const double flux_sum = flow::cell_absolute_flux(C, phi, c);
    grad_p[c] = grad;
    Vec3 du, un;
    for (int i = 0; i < 3; ++i) {
      un[i] = flow::corrected_velocity(u.c[i][c], grad[i], dt, solved.c[i]);
      if (!solved.c[i]) continue;
      u.c[i][c] = un[i];
      du[i] = un[i] - u_old.c[i][c];
    }
    s.v[1] += fabs(div);
    s.v[2] += div;
    s.v[3] += flux_sum;
    const double pc = p[c] + shift;
    p[c] = pc;
    s.v[4] += isfinite(pc) ? 0.0 : 1.0;
    m.v[0] = fmax(m.v[0], sqrt(dot(du, du)));
    m.v[1] = fmax(m.v[1], sqrt(dot(un, un)));
    m.v[2] = fmax(m.v[2], flux_sum / C.volume[c]);
  }
  cuda::write_block_partials<n_sums>(s, sum_partials, gridDim.x, blockIdx.x);
  __syncthreads();  // block_sum's shared memory is reused below
  cuda::write_block_partials<n_maxima, cuda::MaxOp>(m, max_partials, gridDim.x, blockIdx.x);
}

/// The step's statistics from the block partials (one block, fixed order).
__global__ void __launch_bounds__(1024)
    statistics_kernel(const double* __restrict__ before_partials, const double* __restrict__ sum_partials,
                      const double* __restrict__ max_partials, int count, StepStats* __restrict__ stats) {
  const Sums<1> before = cuda::reduce_partials<1>(before_partials, count);
  __syncthreads();
  const Sums<n_sums> s = cuda::reduce_partials<n_sums>(sum_partials, count);
  __syncthreads();
  const Sums<n_maxima> m = cuda::reduce_partials<n_maxima, cuda::MaxOp>(max_partials, count);
  if (threadIdx.x != 0) return;
  for (int k = 0; k < n_sums; ++k) stats->sums[k] = s.v[k];
  stats->sums[0] = before.v[0];
  for (int k = 0; k < n_maxima; ++k) stats->maxima[k] = m.v[k];
}

#undef FVMMINI_GRID_STRIDE

template <class T>
DeviceBuffer<T> upload(std::span<const T> host) {
  return DeviceBuffer<T>(host);
}



class DeviceFlowStep final : public FlowStep {
 public:
  DeviceFlowStep(const FlowOperators& ops, const SolverSettings& velocity_settings,
                 const SolverSettings& pressure_settings)
      : FlowStep(ops),
        velocity_solver(field_solver(ops.helmholtz_system, velocity_settings, ops.comm, "U", setup_timer)),
        pressure_solver(
            field_solver(ops.pressure_system, pressure_settings, ops.comm, "p", setup_timer, &velocity_solver)),
        ghosts_transport(ops.comm.distributed() ? cuda::resolve_transport(pressure_settings.transport, ops.comm)
                                                : Transport::mpi),
        ghosts(device_ghosts(ops, ghosts_transport)),
        events{cuda::Event(), cuda::Event(), cuda::Event(), cuda::Event(), cuda::Event()},
        stats(1),
        stats_host(1),
        shift_host(1) {
    const Mesh& mesh = ops.mesh;
    const MeshGeometry& g = ops.geometry;
    const Laplacian& laplacian = ops.laplacian;
    const label n = mesh.n_cells;
    const label n_faces = mesh.n_faces();
    const auto& settings = ops.settings;
    upwind = settings.convection == ConvectionScheme::linear_upwind;
    non_orthogonal = !ops.orthogonal;
    gradients = ops.needs_velocity_gradients();
    nu = settings.viscosity;
    reference_cell = ops.reference_cell;
    reference_value = settings.reference_value;
    for (int i = 0; i < 3; ++i) solved.c[i] = ops.solved[i];
    total_volume = ops.comm.sum(std::accumulate(g.cell_volumes.begin(), g.cell_volumes.end(), 0.0));
    n_ghosts = ops.n_ghosts;
    const label n_all = ops.cells_with_ghosts();
    grid_cells = cuda::vector_grid(n);
    grid_faces = cuda::vector_grid(n_faces);

    // --- constant data
    owner = upload<label>(mesh.owner);
    neighbour = upload<label>(ops.coupled_neighbour);
    weight = upload<double>(ops.coupled_weight);
    coeff = upload<double>(ops.coupled_coeff);
    bcoeff = upload<double>(ops.boundary_coeff);
    area = upload<Vec3>(g.face_areas);
    kind = upload<int>(ops.boundary_kind);
    bvelocity = upload<Vec3>(ops.boundary_velocity);
    bpressure = upload<double>(ops.boundary_pressure);
    rhie_chow_time = upload<double>(ops.rhie_chow_time);
    if (upwind) {
      face_centre = upload<Vec3>(g.face_centres);
      cell_centre = upload<Vec3>(ops.cell_centres);
    }
    if (gradients) least_squares_weight = upload<Vec3>(ops.least_squares_weights);
    if (non_orthogonal) correction = upload<Vec3>(laplacian.non_orthogonal_corrections());
    volume = upload<double>(g.cell_volumes);
    offsets = upload<label>(ops.cells.offsets());
    cell_face = upload<label>(ops.cells.faces());
    signs = upload<std::int8_t>(ops.cells.signs());
    base_diag = upload<double>(ops.helmholtz_base_diagonal);
    pressure_source = upload<double>(ops.pressure_source);
    setup_timer.mark("face and cell data to the device");

    // --- state and work arrays
    for (int i = 0; i < 3; ++i) {
      momentum_source[i] = upload<double>(ops.momentum_boundary_source[i]);
      velocity_old[i] = DeviceBuffer<double>(n_all);
      conv[i] = DeviceBuffer<double>(n);
      conv_old[i] = DeviceBuffer<double>(n);
      rhs[i] = DeviceBuffer<double>(n);
      face_a[i] = DeviceBuffer<double>(n_faces);
      if (gradients) grad_u[i] = DeviceBuffer<Vec3>(n_all);
      if (non_orthogonal) face_b[i] = DeviceBuffer<double>(n_faces);
    }
    courant_unit = make_initial_flow_state(ops, faces(), cells(), total_volume, velocity, pressure, grad_p, flux);
    pressure_rhs = DeviceBuffer<double>(n);
    face_pressure = DeviceBuffer<double>(n_faces);
    helmholtz_diag = DeviceBuffer<double>(n);
    shift = DeviceBuffer<double>(1);
    before_partials = DeviceBuffer<double>(grid_cells);
    sum_partials = DeviceBuffer<double>(n_sums * grid_cells);
    max_partials = DeviceBuffer<double>(n_maxima * grid_cells);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
    setup_timer.mark("fields and work buffers");
    setup_parts_ = setup_timer.parts();
  }

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
    f.correction = correction.data();  // null on an orthogonal mesh
    f.rhie_chow_time = rhie_chow_time.data();
    f.kind = kind.data();
    f.bvelocity = bvelocity.data();
    f.bpressure = bpressure.data();
    return f;
  }
  Cells cells() const {
    return {static_cast<label>(volume.size()), volume.data(), offsets.data(), cell_face.data(), signs.data(),
            least_squares_weight.data()};
  }
  static Components components(std::array<DeviceBuffer<double>, 3>& a) { return {{a[0].data(), a[1].data(), a[2].data()}}; }
  static ConstComponents components(const std::array<DeviceBuffer<double>, 3>& a) {
    return {{a[0].data(), a[1].data(), a[2].data()}};
  }

  CourantNumber courant_number(double dt) const override { return {dt * courant_unit.mean, dt * courant_unit.max}; }
  StepReport advance(double dt) override;
  const FlowState& state() override;
  std::string describe() const override {
    return "U solver: " + velocity_solver.describe() + "\np solver: " + pressure_solver.describe() +
           "\nStep: on the GPU, every field resident (copied back for output)" +
           (ghosts ? ", ghost cells over " + name(ghosts_transport) : std::string()) + "\n";
  }
  PreconditionerInfo velocity_preconditioner() const override { return velocity_solver.preconditioner_info(); }
  PreconditionerInfo pressure_preconditioner() const override { return pressure_solver.preconditioner_info(); }
  FormatInfo velocity_format() const override { return velocity_solver.format_info(); }
  FormatInfo pressure_format() const override { return pressure_solver.format_info(); }

 private:
  // --- the phases of advance(), in order
  void predict_velocity(double dt, StepReport& report);
  void assemble_pressure(double dt);
  void correct(double dt);
  void report_statistics(double dt, StepReport& report);

  /// The ghosts of a field (across ranks; nothing on one rank), on the step's stream.
  void fill_ghosts(DeviceBuffer<double>& field) {
    if (ghosts) ghosts->fill(field.data(), 1, stream.get());
  }
  void fill_ghosts(DeviceBuffer<Vec3>& field) {
    if (ghosts) ghosts->fill(reinterpret_cast<double*>(field.data()), 3, stream.get());
  }
  void fill_velocity_ghosts() {
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) fill_ghosts(velocity[i]);
  }
  /// shift = the level shift of p from the reference cell's rank (every rank the same).
  void compute_level_shift();

  PartTimer setup_timer;  ///< the constructor's parts (declared before what it times)
  cuda::DeviceSolver velocity_solver, pressure_solver;
  Transport ghosts_transport;                  ///< nccl, mpi or ipc (the pressure solver's transport key)
  std::unique_ptr<cuda::DeviceGhosts> ghosts;  ///< null on one rank; made after the solvers chose the GPU
  label n_ghosts = 0;
  bool upwind = false, non_orthogonal = false;
  bool gradients = false;  ///< a step takes the velocity's cell gradients (FlowOperators::needs_velocity_gradients)
  double nu = 0.0;
  label reference_cell = -1;
  double reference_value = 0.0;
  Solved solved{};
  double total_volume = 0.0;
  int grid_cells = 1, grid_faces = 1;

  DeviceBuffer<label> owner, neighbour, offsets, cell_face;
  DeviceBuffer<int> kind;
  DeviceBuffer<double> weight, coeff, bcoeff, bpressure, rhie_chow_time, volume, base_diag, pressure_source;
  DeviceBuffer<std::int8_t> signs;
  DeviceBuffer<Vec3> area, face_centre, cell_centre, correction, bvelocity, least_squares_weight;
  std::array<DeviceBuffer<double>, 3> momentum_source, velocity, velocity_old, conv, conv_old, rhs, face_a, face_b;
  std::array<DeviceBuffer<Vec3>, 3> grad_u;
  DeviceBuffer<double> pressure, flux, pressure_rhs, face_pressure, helmholtz_diag, shift;
  DeviceBuffer<Vec3> grad_p;
  DeviceBuffer<double> before_partials, sum_partials, max_partials;

  cuda::Stream stream;
  cuda::Event events[5];  ///< phase boundaries of the step
  DeviceBuffer<StepStats> stats;
  cuda::PinnedBuffer<StepStats> stats_host;
  cuda::PinnedBuffer<double> shift_host;  ///< the level shift's way through the host across ranks
  CourantNumber courant_unit;  ///< the Courant number of the current fluxes for dt = 1
  double matrix_delta_t = 0.0;
  double old_delta_t = 0.0;
  bool have_old_convection = false;
  double cumulative_continuity = 0.0;
  FlowState host_state;       ///< the fields as state() last copied them
  bool host_state_stale = true;
};

StepReport DeviceFlowStep::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  host_state_stale = true;
  StepReport report;
  report.delta_t = dt;
  cudaStream_t s = stream.get();
  events[0].record(s);
  predict_velocity(dt, report);
  events[1].record(s);
  assemble_pressure(dt);
  events[2].record(s);
  report.solves.push_back(pressure_solver.solve(pressure.data(), pressure_rhs.data(), "p", s));  // from p^n
  fill_ghosts(pressure);
  old_delta_t = dt;
  events[3].record(s);
  correct(dt);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(stats_host.data(), stats.data(), sizeof(StepStats), cudaMemcpyDeviceToHost, s));
  events[4].record(s);
  events[4].synchronize();
  report_statistics(dt, report);
  return report;
}

/// The velocity gradients, the momentum face terms and right-hand sides, the Helmholtz diagonal
/// when dt changed, and the momentum solves.
void DeviceFlowStep::predict_velocity(double dt, StepReport& report) {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  Components u = components(velocity);
  const int block = cuda::reduce_block;
  if (gradients) {
    velocity_gradients_kernel<<<grid_cells, block, 0, s>>>(F, C, as_const(u), solved, grad_u[0].data(),
                                                           grad_u[1].data(), grad_u[2].data());
    FVMMINI_CUDA_CHECK_LAUNCH(velocity_gradients_kernel);
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) fill_ghosts(grad_u[i]);
  }
  momentum_faces_kernel<<<grid_faces, block, 0, s>>>(F, as_const(u), solved, flux.data(), upwind, nu,
                                                     cell_centre.data(), grad_u[0].data(), grad_u[1].data(),
                                                     grad_u[2].data(), components(face_a), components(face_b));
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_faces_kernel);
  momentum_rhs_kernel<<<grid_cells, block, 0, s>>>(
      C, u, components(velocity_old), solved, dt, flow::adams_bashforth(have_old_convection, dt, old_delta_t),
      components(std::as_const(face_a)), components(std::as_const(face_b)), non_orthogonal, components(conv),
      components(std::as_const(conv_old)), components(std::as_const(momentum_source)), grad_p.data(),
      components(rhs), base_diag.data(), helmholtz_diag.data());
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_rhs_kernel);
  for (int i = 0; i < 3 && n_ghosts > 0; ++i)  // the ghosts of U^n (the kernel saved the rank's cells)
    if (solved.c[i])
      FVMMINI_CUDA_CHECK(cudaMemcpyAsync(velocity_old[i].data() + C.n, velocity[i].data() + C.n,
                                         sizeof(double) * n_ghosts, cudaMemcpyDeviceToDevice, s));
  if (dt != matrix_delta_t) {
    velocity_solver.set_diagonal(helmholtz_diag.data(), s);
    matrix_delta_t = dt;
  }
  // --- the solved components together: one matrix, one SpMV of all of them where the solver can
  std::vector<double*> x;
  std::vector<const double*> b;
  std::vector<std::string> fields;
  for (int i = 0; i < 3; ++i)
    if (solved.c[i]) {
      x.push_back(velocity[i].data());
      b.push_back(rhs[i].data());
      fields.push_back(velocity_component_name(i));
    }
  for (const SolverPerformance& perf : velocity_solver.solve_block(x, b, fields, s)) {
    report.momentum_residual = std::max(report.momentum_residual, perf.initial_residual);
    report.solves.push_back(perf);
  }
  fill_velocity_ghosts();  // U* across the processor faces, for the predicted fluxes
  std::swap(conv, conv_old);
  have_old_convection = true;
}

/// phiH, HbyA and the pressure right-hand side.
void DeviceFlowStep::assemble_pressure(double dt) {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  Components u = components(velocity);
  const int block = cuda::reduce_block;
  predicted_flux_kernel<<<grid_faces, block, 0, s>>>(F, as_const(u), components(std::as_const(velocity_old)), solved,
                                                     grad_p.data(), pressure.data(), dt, flux.data());
  FVMMINI_CUDA_CHECK_LAUNCH(predicted_flux_kernel);
  pressure_rhs_kernel<<<grid_cells, block, 0, s>>>(C, u, solved, grad_p.data(), dt, flux.data(), pressure_source.data(),
                                                   pressure_rhs.data(), before_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_rhs_kernel);
}

/// The corrected fluxes, grad p, U and p at their new values, and the step's statistics.
void DeviceFlowStep::correct(double dt) {
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  Components u = components(velocity);
  const int block = cuda::reduce_block;
  compute_level_shift();
  corrected_flux_kernel<<<grid_faces, block, 0, s>>>(F, pressure.data(), shift.data(), dt, flux.data(),
                                                     face_pressure.data());
  FVMMINI_CUDA_CHECK_LAUNCH(corrected_flux_kernel);
  correction_kernel<<<grid_cells, block, 0, s>>>(F, C, u, components(std::as_const(velocity_old)), solved, dt,
                                                 face_pressure.data(), flux.data(), pressure.data(), n_ghosts,
                                                 shift.data(), grad_p.data(), sum_partials.data(), max_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(correction_kernel);
  fill_ghosts(grad_p);
  fill_velocity_ghosts();
  statistics_kernel<<<1, 1024, 0, s>>>(before_partials.data(), sum_partials.data(), max_partials.data(), grid_cells,
                                       stats.data());
  FVMMINI_CUDA_CHECK_LAUNCH(statistics_kernel);
}

void DeviceFlowStep::compute_level_shift() {
  cudaStream_t s = stream.get();
  if (!ghosts) {
    level_shift_kernel<<<1, 1, 0, s>>>(pressure.data(), reference_cell, reference_value, shift.data());
    FVMMINI_CUDA_CHECK_LAUNCH(level_shift_kernel);
    return;
  }
  // --- across ranks: the reference cell's rank reads it, the sum over the ranks gives every rank its shift
  double local = 0.0;
  if (reference_cell >= 0) {
    FVMMINI_CUDA_CHECK(cudaMemcpyAsync(shift_host.data(), pressure.data() + reference_cell, sizeof(double),
                                       cudaMemcpyDeviceToHost, s));
    FVMMINI_CUDA_CHECK(cudaStreamSynchronize(s));
    local = flow::level_shift(shift_host.data(), 0, reference_value);
  }
  shift_host[0] = operators().comm.sum(local);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(shift.data(), shift_host.data(), sizeof(double), cudaMemcpyHostToDevice, s));
}

/// The report's continuity errors, velocity change, Courant number and phase times from the
/// statistics read back (summed over the ranks).
void DeviceFlowStep::report_statistics(double dt, StepReport& report) {
  StepStats st = stats_host[0];
  const Communicator& comm = operators().comm;
  comm.sum(st.sums);
  for (double& m : st.maxima) m = comm.max(m);
  if (st.sums[4] > 0.0) throw non_finite_pressure_error();
  report.divergence_before = st.sums[0];
  report.divergence_after = st.sums[1];
  report.continuity = continuity_from_sums(st.sums[1], st.sums[2], total_volume, dt, cumulative_continuity);
  cumulative_continuity = report.continuity.cumulative;
  report.velocity_change = flow::relative_velocity_change(st.maxima[0], st.maxima[1], dt);
  courant_unit = courant_from_sums(st.sums[3], st.maxima[2], total_volume, 1.0);
  report.times.momentum = 1e-3 * events[1].elapsed_since(events[0]);
  report.times.pressure_assembly = 1e-3 * events[2].elapsed_since(events[1]);
  report.times.pressure_solve = 1e-3 * events[3].elapsed_since(events[2]);
  report.times.correction = 1e-3 * events[4].elapsed_since(events[3]);
}

const FlowState& DeviceFlowStep::state() {
  if (!host_state_stale) return host_state;
  download_flow_state(velocity, pressure, grad_p, flux, stream.get(), host_state);  // ghosts included
  host_state_stale = false;
  return host_state;
}

}  // namespace

std::unique_ptr<FlowStep> make_device_flow_step(const FlowOperators& operators, const SolverSettings& velocity_solver,
                                                const SolverSettings& pressure_solver) {
  return std::make_unique<DeviceFlowStep>(operators, velocity_solver, pressure_solver);
}

}  // namespace fvmmini
