#include "discretisation/laplacian.hpp"

#include <algorithm>
#include <stdexcept>

#include "discretisation/face_interpolation.hpp"
#include "discretisation/laplacian_formulas.hpp"
#include "mesh/cell_face_lists.hpp"

namespace fvmmini {

std::shared_ptr<const LduAddressing> make_addressing(const Mesh& mesh) {
  auto a = std::make_shared<LduAddressing>();
  a->n_rows = mesh.n_cells;
  a->lower.assign(mesh.owner.begin(), mesh.owner.begin() + mesh.n_internal_faces());
  a->upper.assign(mesh.neighbour.begin(), mesh.neighbour.end());
  return a;
}

using laplacian_formulas::face_terms;
using laplacian_formulas::FaceTerms;

Laplacian::Laplacian(const Mesh& mesh, const MeshGeometry& g, ProcessorFaces* processor)
    : mesh_(mesh), geometry_(g), addressing_(make_addressing(mesh)), weights_(linear_weights(mesh, g)) {
  const label n_internal = mesh.n_internal_faces();
  face_coeffs_.resize(n_internal);
  bool orthogonal = true;
#pragma omp parallel for schedule(static) reduction(&& : orthogonal)
  for (label f = 0; f < n_internal; ++f) {
    const FaceTerms t = face_terms(g.face_areas[f], far_end(f) - g.cell_centres[mesh.owner[f]]);
    face_coeffs_[f] = t.coeff;
    orthogonal = orthogonal && t.orthogonal();
  }
  // --- boundary faces: d from the owner's centre to the face centre, or on a processor face to
  //     the centre of the cell across
  if (processor && !processor->empty()) {
    processor_faces_.assign(processor->faces().begin(), processor->faces().end());
    processor_far_end_ = processor->across(g.cell_centres);
  }
  boundary_far_end_.assign(g.face_centres.begin() + n_internal, g.face_centres.end());
  for (std::size_t k = 0; k < processor_faces_.size(); ++k)
    boundary_far_end_[processor_faces_[k] - n_internal] = processor_far_end_[k];
  boundary_coeffs_.resize(mesh.n_faces() - n_internal);
#pragma omp parallel for schedule(static) reduction(&& : orthogonal)
  for (label f = n_internal; f < mesh.n_faces(); ++f) {
    const FaceTerms t = face_terms(g.face_areas[f], far_end(f) - g.cell_centres[mesh.owner[f]]);
    boundary_coeffs_[f - n_internal] = t.coeff;
    orthogonal = orthogonal && t.orthogonal();
  }
  orthogonal_ = orthogonal;
  if (!orthogonal_) keep_corrections(true);
}

Vec3 Laplacian::far_end(label f) const {
  const label n_internal = mesh_.n_internal_faces();
  return f < n_internal ? geometry_.cell_centres[mesh_.neighbour[f]] : boundary_far_end_[f - n_internal];
}

void Laplacian::keep_corrections(bool wanted) {
  if (!wanted) {
    decltype(corrections_)().swap(corrections_);
    return;
  }
  if (corrections_.size() == static_cast<std::size_t>(mesh_.n_faces())) return;
  corrections_.resize(mesh_.n_faces());
#pragma omp parallel for schedule(static)
  for (label f = 0; f < mesh_.n_faces(); ++f)
    corrections_[f] = face_terms(geometry_.face_areas[f], far_end(f) - geometry_.cell_centres[mesh_.owner[f]]).correction;
}

void Laplacian::assemble(double gamma, const ScalarBoundary& boundary, LduMatrix& a) const {
  assemble(gamma, boundary, a, cell_face_lists(mesh_));
}

void Laplacian::assemble(double gamma, const ScalarBoundary& boundary, LduMatrix& a, const CellFaceLists& cells) const {
  if (a.addressing != addressing_) a = make_unfilled_ldu_matrix(addressing_);  // every entry written below
  const label n_internal = mesh_.n_internal_faces();
  // --- internal faces: a_f (phi_P - phi_N) on both sides; fixedValue faces a_b (phi_P - phi_b), so
  //     a_b on the diagonal: each cell's in face order (the sums a pass over the faces makes, to the bit)
  std::vector<std::uint8_t> fixed(mesh_.n_faces() - n_internal, 0);
  for_each_fixed_value_face(boundary, [&](label f, double, double) { fixed[f - n_internal] = 1; });
  const mesh_formulas::CellListView lists = mesh_formulas::cell_list_view(cells);
#pragma omp parallel for schedule(static)
  for (label f = 0; f < n_internal; ++f) a.upper[f] = -gamma * face_coeffs_[f];
#pragma omp parallel for schedule(static)
  for (label c = 0; c < mesh_.n_cells; ++c)
    a.diag[c] = laplacian_formulas::cell_diagonal(lists, c, n_internal, gamma, face_coeffs_.data(),
                                                  boundary_coeffs_.data(), fixed.data());
  // --- processor faces: a_f (phi_P - phi_N)
  for (label f : processor_faces_) a.diag[mesh_.owner[f]] += gamma * boundary_coeffs_[f - n_internal];
}

std::vector<double> Laplacian::processor_couplings(double gamma) const {
  std::vector<double> couplings;
  for (label f : processor_faces_) couplings.push_back(-gamma * boundary_coeffs_[f - mesh_.n_internal_faces()]);
  return couplings;
}

void Laplacian::add_boundary_source(double gamma, const ScalarBoundary& boundary, std::span<double> b) const {
  // --- fixedValue faces: a_b phi_b in the source
  for_each_fixed_value_face(boundary,
                            [&](label f, double coeff, double value) { b[mesh_.owner[f]] += gamma * coeff * value; });
}

template <class F>
void Laplacian::for_each_fixed_value_face(const ScalarBoundary& boundary, F&& visit) const {
  const label n_internal = mesh_.n_internal_faces();
  for (size_t p = 0; p < mesh_.patches.size(); ++p) {
    const PatchCondition& bc = boundary.patches[p];
    if (bc.type != BoundaryType::fixed_value) continue;
    const Patch& patch = mesh_.patches[p];
    for (label i = 0; i < patch.size; ++i)
      visit(patch.start + i, boundary_coeffs_[patch.start + i - n_internal], bc.values[i]);
  }
}

void Laplacian::add_non_orthogonal_correction(double gamma, const ScalarBoundary& boundary,
                                              std::span<const Vec3> gradient, std::span<const Hessian> hessian,
                                              std::span<double> b, std::span<const Vec3> across_gradient,
                                              std::span<const Hessian> across_hessian) const {
  if (corrections_.size() != static_cast<std::size_t>(mesh_.n_faces()))
    throw std::logic_error("add_non_orthogonal_correction: no correction vectors kept (an orthogonal mesh)");
  const auto& g = geometry_;
  // --- internal faces: coeff (phi_N - phi_P) is Delta . grad phi at the middle m of PN; with r = x_f - m,
  //     the skewness term Delta . (grad phi(x_f) - grad phi(m)) = coeff d . H r = coeff r . (grad_N - grad_P)
  //     (the gradients' difference along d: the fitted Hessian there is only first order and left the
  //     max-norm error spiky), and k . grad phi(x_f) = k . (mean gradient + mean Hessian r)
  auto flux = [&](label f, double coeff, label o, const Vec3& centre_n, const Vec3& grad_n, const Hessian& hess_n) {
    const Vec3 r = g.face_centres[f] - 0.5 * (g.cell_centres[o] + centre_n);
    const Vec3 grad_f = 0.5 * (gradient[o] + grad_n + hessian[o] * r + hess_n * r);
    return gamma * (dot(corrections_[f], grad_f) + coeff * dot(grad_n - gradient[o], r));
  };
  for (label f = 0; f < mesh_.n_internal_faces(); ++f) {
    const label o = mesh_.owner[f], n = mesh_.neighbour[f];
    const double outflow = flux(f, face_coeffs_[f], o, g.cell_centres[n], gradient[n], hessian[n]);
    b[o] += outflow;
    b[n] -= outflow;
  }
  // --- processor faces: the same with the neighbour's centre, gradient and Hessian from across
  const label n_internal = mesh_.n_internal_faces();
  for (std::size_t k = 0; k < processor_faces_.size(); ++k) {
    const label f = processor_faces_[k];
    b[mesh_.owner[f]] += flux(f, boundary_coeffs_[f - n_internal], mesh_.owner[f], processor_far_end_[k],
                              across_gradient[k], across_hessian[k]);
  }
  // --- fixedValue faces: (phi_b - phi_P) / (n.d) misses grad(phi_P) . k_b where the owner's centre
  //     is off the face normal (skewed boundary cells); without it the boundary flux is inconsistent
  for_each_fixed_value_face(boundary, [&](label f, double, double) {
    b[mesh_.owner[f]] += gamma * dot(corrections_[f], gradient[mesh_.owner[f]]);
  });
}

}  // namespace fvmmini
