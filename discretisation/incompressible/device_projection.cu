// The projection step on the device. Faces are looped over by face kernels, cells gather from
// their faces (CellFaces lists: no atomics, so sums are deterministic), and the few reductions
// (continuity errors, Courant number, velocity change) go through fixed-shape block partials.
// Each formula is ProjectionSolver::advance's; the comments name the step they implement.

#include "discretisation/incompressible/device_projection.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_memory.cuh"
#include "solvers/cuda/device_solver.hpp"
#include "kernels/cuda/reduction.cuh"

namespace fvmmini {

namespace {

using cuda::DeviceBuffer;
using cuda::Sums;

constexpr int wall = static_cast<int>(FlowPatchType::wall);
constexpr int velocity_inlet = static_cast<int>(FlowPatchType::velocity_inlet);
constexpr int pressure_outlet = static_cast<int>(FlowPatchType::pressure_outlet);
constexpr int empty_patch = static_cast<int>(FlowPatchType::empty);

/// A field's device solver; settings that do not fit its matrix name the field.
cuda::DeviceSolver field_solver(const LduMatrix& matrix, const SolverSettings& settings, const char* field) {
  try {
    return cuda::DeviceSolver(matrix, settings);
  } catch (const std::invalid_argument& e) {
    throw SolverSetupError(field, e.what());
  }
}

/// Constant face data (device pointers); boundary arrays are indexed f - n_internal.
struct Faces {
  int n_internal, n_faces;
  const int* owner;
  const int* neighbour;
  const double* weight;       ///< linear interpolation weight (owner side), internal faces
  const double* coeff;        ///< |S|^2 / (S.d), internal faces
  const double* bcoeff;       ///< |S| / (n.d), boundary faces
  const Vec3* area;           ///< S_f
  const Vec3* centre;         ///< face centres (linearUpwind)
  const Vec3* correction;     ///< |S| k (non-orthogonal meshes)
  const int* kind;            ///< FlowPatchType per boundary face
  const Vec3* bvelocity;
  const double* bpressure;
};

/// Constant cell data: volumes, centres, and the gather lists.
struct Cells {
  int n;
  const double* volume;
  const Vec3* centre;
  const int* offsets;
  const int* faces;
  const double* signs;
};

/// Velocity components as three device arrays.
struct Components {
  double* c[3];
};

struct Solved {
  bool c[3];
};

/// The statistics one step reads back: sums then maxima, reduced over the blocks.
constexpr int n_sums = 5;    // |div phiH|, |div phi|, div phi, sum_c sum_f |phi|, non-finite p count
constexpr int n_maxima = 3;  // max|dU|, max|U|, max sum_f |phi| / V
struct StepStats {
  double sums[n_sums];
  double maxima[n_maxima];
};

#define FVMMINI_GRID_STRIDE(i, n) \
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/// Value of velocity component i on face f: linear inside; boundary: the owner's on outlets,
/// 0 on empty faces, the prescribed value elsewhere (velocity_face_values).
__device__ inline double face_velocity(const Faces& F, const double* u, int i, int f) {
  if (f < F.n_internal) {
    const double w = F.weight[f];
    return w * u[F.owner[f]] + (1.0 - w) * u[F.neighbour[f]];
  }
  const int b = f - F.n_internal;
  const int kind = F.kind[b];
  return kind == pressure_outlet ? u[F.owner[f]] : (kind == empty_patch ? 0.0 : F.bvelocity[b][i]);
}

/// face_values[i][f] for the solved components (input of the velocity gradients).
__global__ void velocity_face_values_kernel(Faces F, Components u, Solved solved, Components face_values) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) face_values.c[i][f] = face_velocity(F, u.c[i], i, f);
  }
}

/// grad[i][c] = (1/V) sum_f sign face_values[i][f] S_f (Gauss gradient).
__global__ void gauss_gradients_kernel(Faces F, Cells C, Solved solved, Components face_values, Vec3* g0, Vec3* g1,
                                       Vec3* g2) {
  Vec3* grad[3] = {g0, g1, g2};
  FVMMINI_GRID_STRIDE(c, C.n) {
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      Vec3 sum;
      for (int k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
        const int f = C.faces[k];
        sum += (C.signs[k] * face_values.c[i][f]) * F.area[f];
      }
      grad[i][c] = sum / C.volume[c];
    }
  }
}

/// Momentum face terms: convection F_f,i = phi_f U_f,i (linear or linearUpwind; phi_b U_b on
/// inlets, phi_b U_P on outlets, 0 on walls) and, on non-orthogonal meshes, the deferred
/// diffusion nu |S| k . (grad U_i)_f (the owner's gradient on fixed-velocity faces).
__global__ void momentum_faces_kernel(Faces F, Components u, Solved solved, const double* __restrict__ phi,
                                      bool upwind, bool non_orthogonal, double nu, const Vec3* cc, const Vec3* g0,
                                      const Vec3* g1, const Vec3* g2, Components convection, Components diffusion) {
  const Vec3* grad[3] = {g0, g1, g2};
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    const int o = F.owner[f];
    const bool internal = f < F.n_internal;
    const int n = internal ? F.neighbour[f] : o;
    const int kind = internal ? -1 : F.kind[f - F.n_internal];
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      const double* ui = u.c[i];
      double flux;
      if (internal) {
        double uf;
        if (!upwind)
          uf = F.weight[f] * ui[o] + (1.0 - F.weight[f]) * ui[n];
        else if (phi[f] >= 0.0)
          uf = ui[o] + dot(F.centre[f] - cc[o], grad[i][o]);
        else
          uf = ui[n] + dot(F.centre[f] - cc[n], grad[i][n]);
        flux = phi[f] * uf;
      } else {
        const int b = f - F.n_internal;
        flux = kind == pressure_outlet  ? phi[f] * ui[o]
               : kind == velocity_inlet ? phi[f] * F.bvelocity[b][i]
                                        : 0.0;
      }
      convection.c[i][f] = flux;
      if (non_orthogonal) {
        double d;
        if (internal)
          d = nu * dot(F.correction[f], F.weight[f] * grad[i][o] + (1.0 - F.weight[f]) * grad[i][n]);
        else
          d = (kind == wall || kind == velocity_inlet) ? nu * dot(F.correction[f], grad[i][o]) : 0.0;
        diffusion.c[i][f] = d;
      }
    }
  }
}

/// Momentum right-hand sides b_i = V/dt U_i - (c_new C_i + c_old C_i^old) - V (grad p)_i + nu a_b U_b,i
/// (+ the deferred diffusion); C_i = sum_f sign F_f,i is kept for the next step; U^n saved; the
/// Helmholtz diagonal nu L + V/dt.
__global__ void momentum_rhs_kernel(Faces F, Cells C, Components u, Components u_old, Solved solved, double dt,
                                    double c_new, double c_old, Components convection_faces,
                                    Components diffusion_faces, bool non_orthogonal, Components conv,
                                    Components conv_old, Components source, const Vec3* __restrict__ grad_p,
                                    Components rhs, const double* __restrict__ base_diag, double* __restrict__ diag) {
  FVMMINI_GRID_STRIDE(c, C.n) {
    const double v = C.volume[c];
    diag[c] = base_diag[c] + v / dt;
    for (int i = 0; i < 3; ++i) {
      if (!solved.c[i]) continue;
      double div_conv = 0.0, div_diff = 0.0;
      for (int k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
        const int f = C.faces[k];
        div_conv += C.signs[k] * convection_faces.c[i][f];
        if (non_orthogonal) div_diff += C.signs[k] * diffusion_faces.c[i][f];
      }
      const double ui = u.c[i][c];
      u_old.c[i][c] = ui;
      conv.c[i][c] = div_conv;
      rhs.c[i][c] = v / dt * ui - (c_new * div_conv + c_old * conv_old.c[i][c]) - v * grad_p[c][i] +
                    source.c[i][c] + div_diff;
    }
  }
}

/// HbyA = U* + dt grad p^n at cell c (unsolved components stay).
__device__ inline Vec3 hbya(const Components& u, Solved solved, const Vec3* grad_p, double dt, int c) {
  Vec3 h;
  for (int i = 0; i < 3; ++i) h[i] = u.c[i][c] + (solved.c[i] ? dt * grad_p[c][i] : 0.0);
  return h;
}

/// phiH_f = (w HbyA_P + (1-w) HbyA_N) . S_f; walls 0, inlets U_b.S, outlets HbyA_P.S; and the
/// deferred non-orthogonal flux |S| k . (grad p^n)_f (owner's on outlets, 0 elsewhere).
__global__ void predicted_flux_kernel(Faces F, Components u, Solved solved, const Vec3* __restrict__ grad_p, double dt,
                                      bool non_orthogonal, double* __restrict__ phi,
                                      double* __restrict__ non_orthogonal_flux) {
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    const int o = F.owner[f];
    if (f < F.n_internal) {
      const int n = F.neighbour[f];
      const double w = F.weight[f];
      phi[f] = dot(w * hbya(u, solved, grad_p, dt, o) + (1.0 - w) * hbya(u, solved, grad_p, dt, n), F.area[f]);
      if (non_orthogonal) non_orthogonal_flux[f] = dot(F.correction[f], w * grad_p[o] + (1.0 - w) * grad_p[n]);
    } else {
      const int b = f - F.n_internal;
      const int kind = F.kind[b];
      phi[f] = kind == velocity_inlet    ? dot(F.bvelocity[b], F.area[f])
               : kind == pressure_outlet ? dot(hbya(u, solved, grad_p, dt, o), F.area[f])
                                         : 0.0;
      if (non_orthogonal)
        non_orthogonal_flux[f] = kind == pressure_outlet ? dot(F.correction[f], grad_p[o]) : 0.0;
    }
  }
}

/// U <- HbyA; b = -div(phiH) / dt + a_b p_b + reference term (+ sum_f sign |S| k . grad p^n);
/// partial sums of |div phiH|.
__global__ void __launch_bounds__(cuda::reduce_block)
    pressure_rhs_kernel(Cells C, Components u, Solved solved, const Vec3* __restrict__ grad_p, double dt,
                        const double* __restrict__ phi, const double* __restrict__ non_orthogonal_flux,
                        bool non_orthogonal, const double* __restrict__ source, double* __restrict__ rhs,
                        double* __restrict__ partials) {
  Sums<1> s{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    for (int i = 0; i < 3; ++i)
      if (solved.c[i]) u.c[i][c] += dt * grad_p[c][i];
    double div = 0.0, div_non_orthogonal = 0.0;
    for (int k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const int f = C.faces[k];
      div += C.signs[k] * phi[f];
      if (non_orthogonal) div_non_orthogonal += C.signs[k] * non_orthogonal_flux[f];
    }
    rhs[c] = -div / dt + source[c] + div_non_orthogonal;
    s.v[0] += fabs(div);
  }
  cuda::write_block_partials<1>(s, partials, gridDim.x, blockIdx.x);
}

/// The pressure level's shift (reference value - p_ref, 0 without a reference cell).
__device__ inline double level_shift(const double* p, int reference_cell, double reference_value) {
  return reference_cell >= 0 ? reference_value - p[reference_cell] : 0.0;
}

/// phi = phiH - dt (a_f (p_N - p_P) + |S| k . grad p^n) (outlets: a_b (p_b - p_P)); and the
/// face pressures of the Gauss gradient (linear; fixed on outlets, the owner's elsewhere), all
/// with p shifted to its reference level.
/// The shift goes to *level_shift_out for the cell kernel, which moves p itself.
__global__ void corrected_flux_kernel(Faces F, const double* __restrict__ p, int reference_cell, double reference_value,
                                      double dt, const double* __restrict__ non_orthogonal_flux, bool non_orthogonal,
                                      double* __restrict__ phi, double* __restrict__ face_pressure,
                                      double* __restrict__ level_shift_out) {
  const double shift = level_shift(p, reference_cell, reference_value);
  if (blockIdx.x == 0 && threadIdx.x == 0) *level_shift_out = shift;
  FVMMINI_GRID_STRIDE(f, F.n_faces) {
    const int o = F.owner[f];
    const double po = p[o] + shift;
    const double extra = non_orthogonal ? non_orthogonal_flux[f] : 0.0;
    if (f < F.n_internal) {
      const double pn = p[F.neighbour[f]] + shift;
      phi[f] -= dt * (F.coeff[f] * (pn - po) + extra);
      face_pressure[f] = F.weight[f] * po + (1.0 - F.weight[f]) * pn;
    } else {
      const int b = f - F.n_internal;
      if (F.kind[b] == pressure_outlet) {
        phi[f] -= dt * (F.bcoeff[b] * (F.bpressure[b] - po) + extra);
        face_pressure[f] = F.bpressure[b];
      } else {
        face_pressure[f] = po;
      }
    }
  }
}

/// grad p^{n+1}; U^{n+1} = HbyA - dt grad p^{n+1}; p += its level shift; block partials of the
/// step's statistics (StepStats order).
__global__ void __launch_bounds__(cuda::reduce_block)
    correction_kernel(Faces F, Cells C, Components u, Components u_old, Solved solved, double dt,
                      const double* __restrict__ face_pressure, const double* __restrict__ phi, double* __restrict__ p,
                      const double* __restrict__ level_shift_in, Vec3* __restrict__ grad_p,
                      double* __restrict__ sum_partials, double* __restrict__ max_partials) {
  const double shift = *level_shift_in;
  Sums<n_sums> s{};
  Sums<n_maxima> m{};
  FVMMINI_GRID_STRIDE(c, C.n) {
    Vec3 grad;
    double div = 0.0, flux_sum = 0.0;
    for (int k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
      const int f = C.faces[k];
      grad += (C.signs[k] * face_pressure[f]) * F.area[f];
      div += C.signs[k] * phi[f];
      flux_sum += fabs(phi[f]);
    }
    const double v = C.volume[c];
    grad = grad / v;
    grad_p[c] = grad;
    Vec3 du, un;
    for (int i = 0; i < 3; ++i) {
      double ui = u.c[i][c];
      if (solved.c[i]) {
        ui -= dt * grad[i];
        u.c[i][c] = ui;
        du[i] = ui - u_old.c[i][c];
      }
      un[i] = ui;
    }
    s.v[1] += fabs(div);
    s.v[2] += div;
    s.v[3] += flux_sum;
    const double pc = p[c] + shift;
    p[c] = pc;
    s.v[4] += isfinite(pc) ? 0.0 : 1.0;
    m.v[0] = fmax(m.v[0], sqrt(dot(du, du)));
    m.v[1] = fmax(m.v[1], sqrt(dot(un, un)));
    m.v[2] = fmax(m.v[2], flux_sum / v);
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

const char* component_name(int i) { return i == 0 ? "Ux" : (i == 1 ? "Uy" : "Uz"); }

}  // namespace

struct DeviceProjection::Impl {
  Impl(const ProjectionSolver& h, const SolverSettings& velocity_settings, const SolverSettings& pressure_settings)
      : host(h),
        velocity_solver(field_solver(h.helmholtz_matrix(), velocity_settings, "U")),
        pressure_solver(field_solver(h.pressure_matrix(), pressure_settings, "p")),
        events{cuda::Event(), cuda::Event(), cuda::Event(), cuda::Event(), cuda::Event()},
        stats(1),
        stats_host(1) {
    const Mesh& mesh = h.mesh();
    const MeshGeometry& g = h.geometry();
    const Laplacian& laplacian = h.laplacian();
    const label n = mesh.n_cells;
    const label n_faces = mesh.n_faces();
    const auto& settings = h.settings();
    upwind = settings.convection == ConvectionScheme::linear_upwind;
    non_orthogonal = !h.orthogonal();
    nu = settings.viscosity;
    reference_cell = h.reference_cell();
    reference_value = settings.reference_value;
    for (int i = 0; i < 3; ++i) solved.c[i] = h.solved_components()[i];
    total_volume = std::accumulate(g.cell_volumes.begin(), g.cell_volumes.end(), 0.0);
    grid_cells = cuda::vector_grid(n);
    grid_faces = cuda::vector_grid(n_faces);

    // --- constant data
    owner = upload<label>(mesh.owner);
    neighbour = upload<label>(mesh.neighbour);
    weight = upload<double>(laplacian.weights());
    coeff = upload<double>(laplacian.face_coefficients());
    bcoeff = upload<double>(laplacian.boundary_coefficients());
    area = upload<Vec3>(g.face_areas);
    kind = upload<int>(h.boundary_kinds());
    bvelocity = upload<Vec3>(h.boundary_velocities());
    bpressure = upload<double>(h.boundary_pressures());
    if (upwind) {
      face_centre = upload<Vec3>(g.face_centres);
      cell_centre = upload<Vec3>(g.cell_centres);
    }
    if (non_orthogonal) correction = upload<Vec3>(h.non_orthogonal_corrections());
    volume = upload<double>(g.cell_volumes);
    offsets = upload<label>(h.cell_faces().offsets());
    cell_face = upload<label>(h.cell_faces().faces());
    signs = upload<double>(h.cell_faces().signs());
    base_diag = upload<double>(h.helmholtz_base_diagonal());
    pressure_source = upload<double>(h.pressure_source());

    // --- state and work arrays
    for (int i = 0; i < 3; ++i) {
      momentum_source[i] = upload<double>(h.momentum_boundary_source(i));
      velocity[i] = upload<double>(h.velocity(i));
      velocity_old[i] = DeviceBuffer<double>(n);
      conv[i] = DeviceBuffer<double>(n);
      conv_old[i] = DeviceBuffer<double>(n);
      rhs[i] = DeviceBuffer<double>(n);
      face_a[i] = DeviceBuffer<double>(n_faces);
      if (upwind || non_orthogonal) grad_u[i] = DeviceBuffer<Vec3>(n);
      if (non_orthogonal) face_b[i] = DeviceBuffer<double>(n_faces);
    }
    pressure = upload<double>(h.pressure());
    grad_p = upload<Vec3>(h.pressure_gradient());
    flux = upload<double>(h.face_flux());
    pressure_rhs = DeviceBuffer<double>(n);
    face_pressure = DeviceBuffer<double>(n_faces);
    non_orthogonal_flux = DeviceBuffer<double>(non_orthogonal ? n_faces : 0);
    helmholtz_diag = DeviceBuffer<double>(n);
    shift = DeviceBuffer<double>(1);
    before_partials = DeviceBuffer<double>(grid_cells);
    sum_partials = DeviceBuffer<double>(n_sums * grid_cells);
    max_partials = DeviceBuffer<double>(n_maxima * grid_cells);
    courant_unit = h.courant_number(1.0);
    FVMMINI_CUDA_CHECK(cudaDeviceSynchronize());
  }

  Faces faces() const {
    return {static_cast<int>(weight.size()), static_cast<int>(owner.size()), owner.data(), neighbour.data(),
            weight.data(), coeff.data(), bcoeff.data(), area.data(), face_centre.data(), correction.data(),
            kind.data(), bvelocity.data(), bpressure.data()};
  }
  Cells cells() const {
    return {static_cast<int>(volume.size()), volume.data(), cell_centre.data(), offsets.data(), cell_face.data(),
            signs.data()};
  }
  static Components components(std::array<DeviceBuffer<double>, 3>& a) { return {{a[0].data(), a[1].data(), a[2].data()}}; }

  StepReport advance(double dt);

  const ProjectionSolver& host;
  cuda::DeviceSolver velocity_solver, pressure_solver;
  bool upwind = false, non_orthogonal = false;
  double nu = 0.0;
  label reference_cell = -1;
  double reference_value = 0.0;
  Solved solved{};
  double total_volume = 0.0;
  int grid_cells = 1, grid_faces = 1;

  DeviceBuffer<label> owner, neighbour, offsets, cell_face;
  DeviceBuffer<int> kind;
  DeviceBuffer<double> weight, coeff, bcoeff, bpressure, volume, signs, base_diag, pressure_source;
  DeviceBuffer<Vec3> area, face_centre, cell_centre, correction, bvelocity;
  std::array<DeviceBuffer<double>, 3> momentum_source, velocity, velocity_old, conv, conv_old, rhs, face_a, face_b;
  std::array<DeviceBuffer<Vec3>, 3> grad_u;
  DeviceBuffer<double> pressure, flux, pressure_rhs, face_pressure, non_orthogonal_flux, helmholtz_diag, shift;
  DeviceBuffer<Vec3> grad_p;
  DeviceBuffer<double> before_partials, sum_partials, max_partials;

  cuda::Stream stream;
  cuda::Event events[5];  ///< phase boundaries of the step
  DeviceBuffer<StepStats> stats;
  cuda::PinnedBuffer<StepStats> stats_host;
  CourantNumber courant_unit;  ///< the Courant number of the current fluxes for dt = 1
  double matrix_delta_t = 0.0;
  double old_delta_t = 0.0;
  bool have_old_convection = false;
  double cumulative_continuity = 0.0;
};

StepReport DeviceProjection::Impl::advance(double dt) {
  StepReport report;
  report.delta_t = dt;
  cudaStream_t s = stream.get();
  const Faces F = faces();
  const Cells C = cells();
  Components u = components(velocity);
  const int block = cuda::reduce_block;

  // ================= momentum predictor
  events[0].record(s);
  if (upwind || non_orthogonal) {
    Components fa = components(face_a);
    velocity_face_values_kernel<<<grid_faces, block, 0, s>>>(F, u, solved, fa);
    FVMMINI_CUDA_CHECK_LAUNCH(velocity_face_values_kernel);
    gauss_gradients_kernel<<<grid_cells, block, 0, s>>>(F, C, solved, fa, grad_u[0].data(), grad_u[1].data(),
                                                        grad_u[2].data());
    FVMMINI_CUDA_CHECK_LAUNCH(gauss_gradients_kernel);
  }
  momentum_faces_kernel<<<grid_faces, block, 0, s>>>(F, u, solved, flux.data(), upwind, non_orthogonal, nu,
                                                     cell_centre.data(), grad_u[0].data(), grad_u[1].data(),
                                                     grad_u[2].data(), components(face_a), components(face_b));
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_faces_kernel);
  // --- AB2: C* = (1 + r/2) C^n - (r/2) C^{n-1}, r = dt / dt_old (Euler on the first step)
  const double ratio = have_old_convection ? dt / old_delta_t : 0.0;
  momentum_rhs_kernel<<<grid_cells, block, 0, s>>>(
      F, C, u, components(velocity_old), solved, dt, 1.0 + 0.5 * ratio, -0.5 * ratio, components(face_a),
      components(face_b), non_orthogonal, components(conv), components(conv_old), components(momentum_source),
      grad_p.data(), components(rhs), base_diag.data(), helmholtz_diag.data());
  FVMMINI_CUDA_CHECK_LAUNCH(momentum_rhs_kernel);
  if (dt != matrix_delta_t) {
    velocity_solver.set_diagonal(helmholtz_diag.data(), s);
    matrix_delta_t = dt;
  }
  for (int i = 0; i < 3; ++i) {
    if (!solved.c[i]) continue;
    const SolverPerformance perf = velocity_solver.solve(velocity[i].data(), rhs[i].data(), component_name(i), s);
    report.momentum_residual = std::max(report.momentum_residual, perf.initial_residual);
    report.solves.push_back(perf);
  }
  std::swap(conv, conv_old);
  have_old_convection = true;

  // ================= pressure equation
  events[1].record(s);
  predicted_flux_kernel<<<grid_faces, block, 0, s>>>(F, u, solved, grad_p.data(), dt, non_orthogonal, flux.data(),
                                                     non_orthogonal_flux.data());
  FVMMINI_CUDA_CHECK_LAUNCH(predicted_flux_kernel);
  pressure_rhs_kernel<<<grid_cells, block, 0, s>>>(C, u, solved, grad_p.data(), dt, flux.data(),
                                                   non_orthogonal_flux.data(), non_orthogonal,
                                                   pressure_source.data(), pressure_rhs.data(), before_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(pressure_rhs_kernel);

  // ================= pressure solve, from p^n
  events[2].record(s);
  report.solves.push_back(pressure_solver.solve(pressure.data(), pressure_rhs.data(), "p", s));
  old_delta_t = dt;

  // ================= correction
  events[3].record(s);
  corrected_flux_kernel<<<grid_faces, block, 0, s>>>(F, pressure.data(), reference_cell, reference_value, dt,
                                                     non_orthogonal_flux.data(), non_orthogonal, flux.data(),
                                                     face_pressure.data(), shift.data());
  FVMMINI_CUDA_CHECK_LAUNCH(corrected_flux_kernel);
  correction_kernel<<<grid_cells, block, 0, s>>>(F, C, u, components(velocity_old), solved, dt, face_pressure.data(),
                                                 flux.data(), pressure.data(), shift.data(), grad_p.data(),
                                                 sum_partials.data(), max_partials.data());
  FVMMINI_CUDA_CHECK_LAUNCH(correction_kernel);
  statistics_kernel<<<1, 1024, 0, s>>>(before_partials.data(), sum_partials.data(), max_partials.data(), grid_cells,
                                       stats.data());
  FVMMINI_CUDA_CHECK_LAUNCH(statistics_kernel);
  FVMMINI_CUDA_CHECK(cudaMemcpyAsync(stats_host.data(), stats.data(), sizeof(StepStats), cudaMemcpyDeviceToHost, s));
  events[4].record(s);
  events[4].synchronize();

  // --- the report from the statistics
  const StepStats& st = stats_host[0];
  if (st.sums[4] > 0.0) throw SolverError("the pressure contains NaN or Inf (time step too large?)");
  report.divergence_before = st.sums[0];
  report.divergence_after = st.sums[1];
  report.continuity.sum_local = dt * st.sums[1] / total_volume;
  report.continuity.global = dt * st.sums[2] / total_volume;
  report.continuity.cumulative = cumulative_continuity + report.continuity.global;
  cumulative_continuity = report.continuity.cumulative;
  report.velocity_change = st.maxima[0] / (dt * std::max(st.maxima[1], 1e-300));
  courant_unit = {0.5 * st.sums[3] / total_volume, 0.5 * st.maxima[2]};
  report.times.momentum = 1e-3 * events[1].elapsed_since(events[0]);
  report.times.pressure_assembly = 1e-3 * events[2].elapsed_since(events[1]);
  report.times.pressure_solve = 1e-3 * events[3].elapsed_since(events[2]);
  report.times.correction = 1e-3 * events[4].elapsed_since(events[3]);
  return report;
}

DeviceProjection::DeviceProjection(const ProjectionSolver& host, const SolverSettings& velocity_solver,
                                   const SolverSettings& pressure_solver)
    : impl_(std::make_unique<Impl>(host, velocity_solver, pressure_solver)) {}

DeviceProjection::~DeviceProjection() = default;

CourantNumber DeviceProjection::courant_number(double dt) const {
  return {dt * impl_->courant_unit.mean, dt * impl_->courant_unit.max};
}

StepReport DeviceProjection::advance(double dt) {
  if (!(dt > 0.0)) throw std::invalid_argument("time step must be positive");
  return impl_->advance(dt);
}

void DeviceProjection::copy_state_to(ProjectionSolver& host) const {
  const Impl& m = *impl_;
  const label n = m.host.mesh().n_cells;
  std::array<std::vector<double>, 3> u;
  for (int i = 0; i < 3; ++i) {
    u[i].resize(n);
    m.velocity[i].download(u[i]);
  }
  std::vector<double> p(n), phi(m.flux.size());
  m.pressure.download(p);
  m.flux.download(phi);
  host.set_state({u[0], u[1], u[2]}, p, phi, m.old_delta_t, m.cumulative_continuity);
}

std::string DeviceProjection::describe_velocity_solver() const { return impl_->velocity_solver.describe(); }

std::string DeviceProjection::describe_pressure_solver() const { return impl_->pressure_solver.describe(); }

PreconditionerInfo DeviceProjection::velocity_preconditioner() const {
  return impl_->velocity_solver.preconditioner_info();
}

PreconditionerInfo DeviceProjection::pressure_preconditioner() const {
  return impl_->pressure_solver.preconditioner_info();
}

}  // namespace fvmmini
