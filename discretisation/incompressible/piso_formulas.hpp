#pragma once
// Every per-face and per-cell formula of icoFoam's PISO step (piso_step.hpp states the
// algorithm), written once as inline functions over the views of flow_formulas.hpp, as OpenFOAM
// v1912 discretises them (a_f below is the snGrad's implicit coefficient; corrected adds
// non_orthogonal_flux):
//
//   UEqn = fvm::ddt(U) + fvm::div(phi, U) - fvm::laplacian(nu, U)    (Euler, Gauss <scheme>)
//     internal face f, owner P, neighbour N, lambda_f the scheme's weight of P:
//       lower_f = -lambda_f phi_f - nu a_f     (row N, column P)
//       upper_f = (1 - lambda_f) phi_f - nu a_f  (row P, column N)
//       diag_P -= lower_f, diag_N -= upper_f   (OpenFOAM's negSumDiag), diag += V / dt
//     fixed-velocity face: diag += nu a_b, source += (nu a_b - phi_b) U_b; zeroGradient (outlet):
//       diag += phi_b; source += V / dt U^n; linearUpwind: source -= sum_f sign phi_f (C_f - C_up).grad U_up
//   rAU = V / diag, HbyA = rAU (source - sum_nb a_nb U_nb) / V
//   phiHbyA_f = S_f . HbyA_f + rAU_f ddtCorr_f,  ddtCorr_f = c_f (phi^n_f - S_f . U^n_f) / dt,
//     c_f = 1 - min(|phi^n_f - S_f . U^n_f| / (|phi^n_f| + SMALL), 1) (0 on fixed-velocity faces)
//   pEqn: laplacian(rAU, p) = div(phiHbyA), held here negated (positive definite): the same iterates.
//
// a_f = |S| / (n.d), x_f linear inside (weight w of P); on fixed-velocity faces U_b, on outlets
// the owner's values.

#include <cmath>

#include "discretisation/incompressible/flow_formulas.hpp"

namespace fvmmini::piso {

/// OpenFOAM's SMALL (double), in ddtCorr's denominator.
inline constexpr double small = 1e-15;

/// The weight of the owner's value in the implicit convection of face f: linear w; upwind and
/// linearUpwind 1 where phi >= 0 (OpenFOAM's pos0), else 0.
FVMMINI_FLOW_HD inline double convection_weight(bool upwind_weights, double weight, double phi) {
  return upwind_weights ? (phi >= 0.0 ? 1.0 : 0.0) : weight;
}

/// The momentum matrix's two coefficients of an internal face.
struct FaceCoefficients {
  double lower, upper;
};
FVMMINI_FLOW_HD inline FaceCoefficients momentum_face(double lambda, double phi, double nu_a) {
  const double lower = -lambda * phi;
  return {lower - nu_a, lower + phi - nu_a};
}

/// Whether the velocity is fixed on boundary face f (walls and inlets; OpenFOAM's fixesValue).
FVMMINI_FLOW_HD inline bool fixes_velocity(const flow::Faces& F, label f) {
  const FlowPatchType kind = flow::boundary_kind(F, f);
  return kind == FlowPatchType::wall || kind == FlowPatchType::velocity_inlet;
}

/// A boundary face's part of its owner's momentum diagonal: nu a_b on fixed-velocity faces (the
/// diffusion; the convection's is 0 there), phi_b on outlets (zeroGradient: the convection's).
FVMMINI_FLOW_HD inline double momentum_boundary_diagonal(const flow::Faces& F, double nu, const double* phi, label f) {
  if (fixes_velocity(F, f)) return nu * F.bcoeff[f - F.n_internal];
  return flow::boundary_kind(F, f) == FlowPatchType::pressure_outlet ? phi[f] : 0.0;
}

/// A boundary face's part of its owner's momentum source, component i: (nu a_b - phi_b) U_b,i
/// on fixed-velocity faces, 0 elsewhere.
FVMMINI_FLOW_HD inline double momentum_boundary_source(const flow::Faces& F, double nu, const double* phi, int i,
                                                       label f) {
  if (!fixes_velocity(F, f)) return 0.0;
  const label b = f - F.n_internal;
  return (nu * F.bcoeff[b] - phi[f]) * F.bvelocity[b][i];
}

/// linearUpwind's explicit part of the convective flux of component i on internal face f:
/// phi_f (C_f - C_up) . grad U_i,up, up the owner where phi > 0 (OpenFOAM's test here), else the
/// neighbour.
FVMMINI_FLOW_HD inline double linear_upwind_correction(const flow::Faces& F, const Vec3* cell_centre,
                                                       const Vec3* grad_u, const double* phi, label f) {
  const label up = phi[f] > 0.0 ? F.owner[f] : F.neighbour[f];
  return phi[f] * dot(F.centre[f] - cell_centre[up], grad_u[up]);
}

/// The explicit non-orthogonal part of a Laplacian's face flux per unit gamma, |S| k . (grad x)_f
/// with the cell gradients interpolated linearly (OpenFOAM's corrected snGrad; internal faces only).
FVMMINI_FLOW_HD inline double non_orthogonal_flux(const flow::Faces& F, const Vec3* grad, label f) {
  return dot(F.correction[f], flow::interpolate(F, grad, f));
}

/// U^n_f . S_f as ddtCorr takes it: linear inside, the owner's on outlets; 0 on other faces
/// (their coupling coefficient is 0).
FVMMINI_FLOW_HD inline double old_velocity_flux(const flow::Faces& F, flow::Components<const double> u, label f) {
  Vec3 uf;
  if (f < F.n_internal) {
    for (int i = 0; i < 3; ++i) uf[i] = flow::interpolate(F, u.c[i], f);
  } else {
    if (flow::boundary_kind(F, f) != FlowPatchType::pressure_outlet) return 0.0;
    for (int i = 0; i < 3; ++i) uf[i] = u.c[i][F.owner[f]];
  }
  return dot(uf, F.area[f]);
}

/// ddtCorr_f = c_f (phi^n_f - U^n_f . S_f) / dt with OpenFOAM's coupling coefficient
/// c_f = 1 - min(|phi^n_f - U^n_f . S_f| / (|phi^n_f| + SMALL), 1); 0 on fixed-velocity and
/// empty faces.
FVMMINI_FLOW_HD inline double ddt_correction(const flow::Faces& F, flow::Components<const double> u_old,
                                             double phi_old, double dt, label f) {
  if (f >= F.n_internal && flow::boundary_kind(F, f) != FlowPatchType::pressure_outlet) return 0.0;
  const double correction = phi_old - old_velocity_flux(F, u_old, f);
  const double coupling = 1.0 - fmin(fabs(correction) / (fabs(phi_old) + small), 1.0);
  return coupling * correction / dt;
}

/// phiHbyA_f = S_f . HbyA_f + rAU_f ddtCorr_f: HbyA and rAU linear inside, the owner's on outlets;
/// U_b . S_f on fixed-velocity faces (constrainHbyA); 0 on empty faces.
FVMMINI_FLOW_HD inline double predicted_flux(const flow::Faces& F, flow::Components<const double> hbya,
                                             const double* rau, double ddt_corr, label f) {
  Vec3 h;
  double r;
  if (f < F.n_internal) {
    for (int i = 0; i < 3; ++i) h[i] = flow::interpolate(F, hbya.c[i], f);
    r = flow::interpolate(F, rau, f);
  } else {
    const FlowPatchType kind = flow::boundary_kind(F, f);
    if (kind == FlowPatchType::empty) return 0.0;
    if (kind != FlowPatchType::pressure_outlet) return dot(F.bvelocity[f - F.n_internal], F.area[f]);
    const label o = F.owner[f];
    for (int i = 0; i < 3; ++i) h[i] = hbya.c[i][o];
    r = rau[o];
  }
  return dot(h, F.area[f]) + r * ddt_corr;
}

/// The pressure matrix's coupling of face f, rAU_f a_f (the owner's rAU on outlets, 0 on other
/// boundary faces): the negated pEqn's off-diagonal is its negative, its diagonal the sum.
FVMMINI_FLOW_HD inline double pressure_coupling(const flow::Faces& F, const double* rau, label f) {
  if (f < F.n_internal) return flow::interpolate(F, rau, f) * F.coeff[f];
  return flow::boundary_kind(F, f) == FlowPatchType::pressure_outlet ? rau[F.owner[f]] * F.bcoeff[f - F.n_internal]
                                                                     : 0.0;
}

/// phi = phiHbyA - pEqn.flux(): phiHbyA_f - rAU_f a_f (p_N - p_P), outlets rAU_P a_b (p_b - p_P).
FVMMINI_FLOW_HD inline double corrected_flux(const flow::Faces& F, const double* rau, const double* p,
                                             double predicted, label f) {
  if (f < F.n_internal) return predicted - pressure_coupling(F, rau, f) * (p[F.neighbour[f]] - p[F.owner[f]]);
  if (flow::boundary_kind(F, f) != FlowPatchType::pressure_outlet) return predicted;
  return predicted - pressure_coupling(F, rau, f) * (F.bpressure[f - F.n_internal] - p[F.owner[f]]);
}

}  // namespace fvmmini::piso
