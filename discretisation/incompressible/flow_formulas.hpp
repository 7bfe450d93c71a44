#pragma once
// Every per-face and per-cell formula of the projection step (flow_step.hpp states the scheme),
// written once as inline functions over plain views of the constant mesh data and the fields. The host step's OpenMP loops and the device step's CUDA kernels call the same
// functions; only the loops, and which of them are fused, differ.

#include <cmath>
#include <cstdint>

#include "discretisation/incompressible/flow_boundary.hpp"
#include "mesh/mesh.hpp"
#include "mesh/vec3.hpp"

#if defined(__CUDACC__)
#define FVMMINI_FLOW_HD __host__ __device__
#else
#define FVMMINI_FLOW_HD
#endif

namespace fvmmini::flow {

/// Constant face data. Boundary arrays are indexed f - n_internal.
struct Faces {
  label n_internal = 0, n_faces = 0;
  const label* owner = nullptr;
  const label* neighbour = nullptr;
  const double* weight = nullptr;          ///< linear interpolation weight (owner side), internal faces
  const double* coeff = nullptr;           ///< |S| / (n.d), internal faces (the Laplacian's)
  const double* bcoeff = nullptr;          ///< |S| / (n.d), boundary faces
  const Vec3* area = nullptr;              ///< S_f
  const Vec3* centre = nullptr;            ///< face centres (linearUpwind)
  const Vec3* correction = nullptr;        ///< |S| k, every face; null on an orthogonal mesh
  const double* rhie_chow_time = nullptr;  ///< D_f = V_f / (nu L)_f, every face (rhie_chow_times)
  const int* kind = nullptr;               ///< FlowPatchType per boundary face
  const Vec3* bvelocity = nullptr;         ///< walls and inlets
  const double* bpressure = nullptr;       ///< outlets
};

/// Constant cell data: volumes and the gather lists of CellFaces.
struct Cells {
  label n = 0;
  const double* volume = nullptr;
  const label* offsets = nullptr;
  const label* faces = nullptr;
  const std::int8_t* signs = nullptr;  ///< +1 where the cell owns the face, -1 where it neighbours it
  const Vec3* lsq = nullptr;  ///< least-squares weight of each entry (LinearLeastSquares::weight); null
                              ///< where no step needs the velocity's gradients
};

/// A vector field as three component arrays (Ux, Uy, Uz).
template <class T>
struct Components {
  T* c[3];
};

/// The components the predictor solves (solved_directions).
struct Solved {
  bool c[3];
};

FVMMINI_FLOW_HD inline FlowPatchType boundary_kind(const Faces& F, label f) {
  return static_cast<FlowPatchType>(F.kind[f - F.n_internal]);
}

/// w x_P + (1 - w) x_N on internal face f.
template <class T>
FVMMINI_FLOW_HD inline T interpolate(const Faces& F, const T* x, label f) {
  const double w = F.weight[f];
  return w * x[F.owner[f]] + (1.0 - w) * x[F.neighbour[f]];
}

/// The implicit part Delta = S - |S| k of a face's area vector.
FVMMINI_FLOW_HD inline Vec3 orthogonal_area(const Faces& F, label f) {
  return F.correction ? F.area[f] - F.correction[f] : F.area[f];
}

// ---------------------------------------------------------------- gathers over a cell's faces

/// sum_f sign x_f: the net outflow of a face flux field.
FVMMINI_FLOW_HD inline double cell_divergence(const Cells& C, const double* face_values, label c) {
  double sum = 0.0;
  for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) sum += C.signs[k] * face_values[C.faces[k]];
  return sum;
}

/// (1/V) sum_f sign x_f S_f: the Gauss gradient from face values.
FVMMINI_FLOW_HD inline Vec3 cell_gauss_gradient(const Cells& C, const Vec3* area, const double* face_values, label c) {
  Vec3 sum;
  for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
    const label f = C.faces[k];
    sum += (C.signs[k] * face_values[f]) * area[f];
  }
  return sum / C.volume[c];
}

/// sum_f |phi_f|: twice the cell's Courant number times V / dt.
FVMMINI_FLOW_HD inline double cell_absolute_flux(const Cells& C, const double* phi, label c) {
  double sum = 0.0;
  for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) sum += fabs(phi[C.faces[k]]);
  return sum;
}

// ---------------------------------------------------------------- face values

/// Velocity component i on face f: linear inside; the owner's on outlets, 0 on empty faces, the
/// prescribed value on walls and inlets.
FVMMINI_FLOW_HD inline double face_velocity(const Faces& F, const double* u, int i, label f) {
  if (f < F.n_internal) return interpolate(F, u, f);
  const FlowPatchType kind = boundary_kind(F, f);
  return kind == FlowPatchType::pressure_outlet ? u[F.owner[f]]
         : kind == FlowPatchType::empty         ? 0.0
                                                : F.bvelocity[f - F.n_internal][i];
}

/// The initial flux through face f: the face velocity of U (components u) through S_f; none
/// through walls and empty faces.
FVMMINI_FLOW_HD inline double initial_flux(const Faces& F, Components<const double> u, label f) {
  if (f >= F.n_internal) {
    const FlowPatchType kind = boundary_kind(F, f);
    if (kind == FlowPatchType::wall || kind == FlowPatchType::empty) return 0.0;
  }
  Vec3 uf;
  for (int i = 0; i < 3; ++i) uf[i] = face_velocity(F, u.c[i], i, f);
  return dot(uf, F.area[f]);
}

/// Pressure on face f for its Gauss gradient, p shifted by `shift`: linear inside, the fixed value
/// on outlets, the owner's elsewhere (zeroGradient).
FVMMINI_FLOW_HD inline double face_pressure(const Faces& F, const double* p, double shift, label f) {
  if (f < F.n_internal) return interpolate(F, p, f) + shift;
  return boundary_kind(F, f) == FlowPatchType::pressure_outlet ? F.bpressure[f - F.n_internal] : p[F.owner[f]] + shift;
}

/// The least-squares gradient of velocity component i (OpenFOAM's leastSquares, exact for a
/// linear field on any mesh, so consistent on skewed cells where the Gauss gradient is not):
/// sum_f L_f (u_other - u_c), u_other the neighbour's value inside and face_velocity on the
/// boundary; `weights` the cell's L_f, one per entry of its gather list.
FVMMINI_FLOW_HD inline Vec3 cell_velocity_gradient(const Cells& C, const Faces& F, const double* u, int i, label c,
                                                   const Vec3* weights) {
  Vec3 sum;
  const double uc = u[c];
  for (label k = C.offsets[c]; k < C.offsets[c + 1]; ++k) {
    const label f = C.faces[k];
    const double other =
        f < F.n_internal ? u[F.owner[f] == c ? F.neighbour[f] : F.owner[f]] : face_velocity(F, u, i, f);
    sum += (other - uc) * weights[k - C.offsets[c]];
  }
  return sum;
}

/// The same with the weights of C.lsq.
FVMMINI_FLOW_HD inline Vec3 cell_velocity_gradient(const Cells& C, const Faces& F, const double* u, int i, label c) {
  return cell_velocity_gradient(C, F, u, i, c, C.lsq + C.offsets[c]);
}

// ---------------------------------------------------------------- momentum predictor

/// Convective flux F_f,i = phi_f U_f,i of component i: linear U_f = w U_P + (1-w) U_N, or
/// linearUpwind U_f = U_up + (C_f - C_up).grad U_up; boundary phi_b U_b on inlets, phi_b U_P on
/// outlets, 0 on walls and empty faces.
FVMMINI_FLOW_HD inline double convective_flux(const Faces& F, const Vec3* cell_centre, const double* u,
                                              const Vec3* grad_u, const double* phi, bool upwind, int i, label f) {
  if (f < F.n_internal) {
    if (!upwind) return phi[f] * interpolate(F, u, f);
    const label up = phi[f] >= 0.0 ? F.owner[f] : F.neighbour[f];
    return phi[f] * (u[up] + dot(F.centre[f] - cell_centre[up], grad_u[up]));
  }
  const FlowPatchType kind = boundary_kind(F, f);
  return kind == FlowPatchType::pressure_outlet  ? phi[f] * u[F.owner[f]]
         : kind == FlowPatchType::velocity_inlet ? phi[f] * F.bvelocity[f - F.n_internal][i]
                                                 : 0.0;
}

/// The deferred non-orthogonal diffusion nu |S| k . (grad U_i)_f: linear inside, the owner's
/// gradient on fixed-velocity faces (skewed boundary cells), 0 on outlets and empty faces.
FVMMINI_FLOW_HD inline double deferred_diffusion(const Faces& F, const Vec3* grad_u, double nu, label f) {
  if (f < F.n_internal) return nu * dot(F.correction[f], interpolate(F, grad_u, f));
  const FlowPatchType kind = boundary_kind(F, f);
  const bool fixed = kind == FlowPatchType::wall || kind == FlowPatchType::velocity_inlet;
  return fixed ? nu * dot(F.correction[f], grad_u[F.owner[f]]) : 0.0;
}

/// Adams-Bashforth 2 with a variable step: C* = (1 + r/2) C^n - (r/2) C^{n-1}, r = dt / dt_old;
/// Euler (r = 0) without a previous step.
struct ConvectionWeights {
  double current = 1.0, previous = 0.0;
};
FVMMINI_FLOW_HD inline ConvectionWeights adams_bashforth(bool have_previous, double dt, double dt_old) {
  const double r = have_previous ? dt / dt_old : 0.0;
  return {1.0 + 0.5 * r, -0.5 * r};
}

/// D_f = V_f / K_f of a coupled face between owner o and neighbour n (owner weight w), K the
/// momentum diagonal without V/dt (nu L), V and K interpolated linearly: the time scale the
/// momentum equation's own 1/A would give in a steady state (OpenFOAM's rAU without the ddt part).
FVMMINI_FLOW_HD inline double rhie_chow_time(label o, label n, double w, const double* volume,
                                             const double* base_diagonal) {
  return (w * volume[o] + (1.0 - w) * volume[n]) / (w * base_diagonal[o] + (1.0 - w) * base_diagonal[n]);
}
/// The same on a boundary face of owner o: V and K the owner's.
FVMMINI_FLOW_HD inline double rhie_chow_time(label o, const double* volume, const double* base_diagonal) {
  return volume[o] / base_diagonal[o];
}

/// A wall's velocity at a face of area vector S: the wall's own without its normal part (the
/// wall carries no flux).
FVMMINI_FLOW_HD inline Vec3 wall_velocity(Vec3 u, const Vec3& area) {
  const Vec3 n = area / sqrt(dot(area, area));
  u -= dot(u, n) * n;
  return u;
}

/// The Helmholtz diagonal nu L + V/dt of a cell.
FVMMINI_FLOW_HD inline double helmholtz_diagonal(double base_diagonal, double volume, double dt) {
  return base_diagonal + volume / dt;
}

/// Momentum right-hand side of component i in a cell:
/// b = V/dt U^n - C* - V (grad p^n)_i + nu a_b U_b,i + sum_f sign nu |S| k . (grad U_i)_f.
FVMMINI_FLOW_HD inline double momentum_rhs(double volume, double dt, double u, ConvectionWeights ab,
                                           double convection, double old_convection, double grad_p_i,
                                           double boundary_source, double deferred_diffusion_sum) {
  return volume / dt * u - (ab.current * convection + ab.previous * old_convection) - volume * grad_p_i +
         boundary_source + deferred_diffusion_sum;
}

// ---------------------------------------------------------------- pressure equation

/// The compact face-normal pressure flux a_f (p_N - p_P) (outlets a_b (p_b - p_P)), the implicit
/// part of (grad p)_f . S_f; p shifted by `shift`; 0 on other boundary faces.
FVMMINI_FLOW_HD inline double compact_pressure_flux(const Faces& F, const double* p, double shift, label f) {
  if (f < F.n_internal) return F.coeff[f] * (p[F.neighbour[f]] - p[F.owner[f]]);
  const label b = f - F.n_internal;
  return boundary_kind(F, f) == FlowPatchType::pressure_outlet ? F.bcoeff[b] * (F.bpressure[b] - p[F.owner[f]] - shift)
                                                              : 0.0;
}

/// The predicted face flux phiH (before the pressure correction), with U* the predicted velocity,
/// U^n, p^n, grad p^n and phi^n the previous step's:
///   phiH = U*_f . S + tau (grad p^n)_f . Delta + (dt - tau) a_f (p^n_N - p^n_P)
///          + (1 - tau / D_f) (phi^n - U^n_f . S),
/// tau = min(dt, D_f), x_f linear inside and the owner's on outlets. With phi = phiH - dt a_f
/// (p_N - p_P) the steady flux is U_f . S + D_f ((grad p)_f . S - (grad p . S)_f): the Rhie-Chow
/// smoothing with the time scale D_f, whatever dt (flow_step.hpp). Inlets U_b . S; walls
/// and empty faces 0.
FVMMINI_FLOW_HD inline double predicted_flux(const Faces& F, Solved solved, Components<const double> u,
                                             Components<const double> u_old, const Vec3* grad_p, const double* p,
                                             double phi_old, double dt, label f) {
  Vec3 u_new, u_prev, g;
  if (f < F.n_internal) {
    for (int i = 0; i < 3; ++i) {
      u_new[i] = interpolate(F, u.c[i], f);
      u_prev[i] = solved.c[i] ? interpolate(F, u_old.c[i], f) : u_new[i];
    }
    g = interpolate(F, grad_p, f);
  } else {
    const label b = f - F.n_internal;
    const FlowPatchType kind = boundary_kind(F, f);
    if (kind == FlowPatchType::velocity_inlet) return dot(F.bvelocity[b], F.area[f]);
    if (kind != FlowPatchType::pressure_outlet) return 0.0;
    const label o = F.owner[f];
    for (int i = 0; i < 3; ++i) {
      u_new[i] = u.c[i][o];
      u_prev[i] = solved.c[i] ? u_old.c[i][o] : u_new[i];
    }
    g = grad_p[o];
  }
  const double d = F.rhie_chow_time[f];
  const double tau = fmin(dt, d);
  return dot(u_new, F.area[f]) + tau * dot(g, orthogonal_area(F, f)) + (dt - tau) * compact_pressure_flux(F, p, 0.0, f) +
         (1.0 - tau / d) * (phi_old - dot(u_prev, F.area[f]));
}

/// HbyA_i = U*_i + dt (grad p^n)_i of a solved component (unsolved ones stay).
FVMMINI_FLOW_HD inline double hbya(double u, double grad_p_i, double dt, bool solved) {
  return solved ? u + dt * grad_p_i : u;
}

/// The pressure equation's right-hand side b = -div(phiH) / dt + a_b p_b (+ the reference term).
FVMMINI_FLOW_HD inline double pressure_rhs(double divergence, double dt, double source) {
  return -divergence / dt + source;
}

/// The shift that puts p at its reference value in the reference cell (0 without one).
FVMMINI_FLOW_HD inline double level_shift(const double* p, label reference_cell, double reference_value) {
  return reference_cell >= 0 ? reference_value - p[reference_cell] : 0.0;
}

// ---------------------------------------------------------------- correction

/// phi = phiH - dt a_f (p_N - p_P) (outlets a_b (p_b - p_P)), p shifted by `shift`.
FVMMINI_FLOW_HD inline double corrected_flux(const Faces& F, const double* p, double shift, double dt,
                                             double predicted, label f) {
  return predicted - dt * compact_pressure_flux(F, p, shift, f);
}

/// U^{n+1}_i = HbyA_i - dt (grad p^{n+1})_i of a solved component.
FVMMINI_FLOW_HD inline double corrected_velocity(double hbya_i, double grad_p_i, double dt, bool solved) {
  return solved ? hbya_i - dt * grad_p_i : hbya_i;
}

// ---------------------------------------------------------------- step statistics from sums

/// max|U^{n+1} - U^n| / (dt max|U^{n+1}|) (1/s).
FVMMINI_FLOW_HD inline double relative_velocity_change(double max_change, double max_magnitude, double dt) {
  return max_change / (dt * fmax(max_magnitude, 1e-300));
}

}  // namespace fvmmini::flow
