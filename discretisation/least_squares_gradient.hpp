#pragma once
// Cell gradients and Hessians by a weighted least-squares quadratic fit over rings of face
// neighbours and their boundary faces. Exact for quadratic fields on any mesh: the gradient
// is second-order accurate on skewed cells, where the linear least-squares and Gauss
// gradients are first order, and the Hessian moves it to a face centre to second order.
// The Laplacian's non-orthogonal and skewness corrections need both for second-order fluxes.

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "discretisation/boundary_conditions.hpp"
#include "discretisation/processor_faces.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// A symmetric 3 x 3 matrix of second derivatives, by rows.
struct Hessian {
  std::array<Vec3, 3> rows{};
};
inline Vec3 operator*(const Hessian& h, const Vec3& v) {
  return {dot(h.rows[0], v), dot(h.rows[1], v), dot(h.rows[2], v)};
}

/// The most points (cells and boundary faces) a least-squares stencil keeps: where its rings hold
/// more, the nearer rings whole and the first ring that does not fit sampled evenly. Ordinary
/// meshes stay far below it (a hexahedron's stencil 24 points inside the mesh, a tetrahedron's and
/// a polyhedron's at most about 100 on the test meshes); one cell with thousands of face
/// neighbours would otherwise put them all in every neighbour's stencil, O(N^2) in memory and time.
inline constexpr std::size_t stencil_cap_points = 256;
/// The most cells a stencil's rings take in, and the most boundary faces (a cell's neighbours and
/// faces visited with a stride where it has more): what one stencil costs to find, whatever the mesh.
inline constexpr std::size_t stencil_scan_points = 4 * stencil_cap_points;

class LeastSquaresGradient {
 public:
  /// Per cell: the stencil (rings of face neighbours until there are at least twice as many points
  /// as the fit's 9 unknowns, and the boundary faces of those cells but on empty patches) and the
  /// inverse of the fit's normal matrix. On a rank's part of a decomposed mesh, `processor` (its
  /// processor faces over the run's ranks) lets the rings run on into other ranks' cells as they
  /// run on the whole mesh: the centres, neighbours and boundary faces of the cells they reach are
  /// asked of the ranks that have them, ring by ring, so every stencil is the whole mesh's.
  /// Collective on a part.
  LeastSquaresGradient(const Mesh& mesh, const MeshGeometry& geometry, ProcessorFaces* processor = nullptr);

  /// phi_P + d . g + d^T H d / 2 fitted to the stencil's values at d = x - x_P, weight 1/|d|^2;
  /// boundary values from the conditions (zeroGradient: the owner's value). On a part the values
  /// of other ranks' stencil cells and faces travel first (collective).
  /// @param[out] gradient g, one per cell
  /// @param[out] hessian H, one per cell
  void compute(const ScalarBoundary& boundary, std::span<const double> phi, std::span<Vec3> gradient,
               std::span<Hessian> hessian) const;

  /// The cells (over every rank) whose rings held more than stencil_cap_points points, their
  /// stencils cut to that many; 0 on ordinary meshes.
  label capped_cells() const { return capped_cells_; }
  /// The most points of any of this rank's stencils.
  std::size_t largest_stencil() const;

 private:
  /// Another rank's cell or boundary face that some stencil here reaches.
  struct RemotePoint {
    int rank = 0;
    label index = 0;  ///< the cell's or face's number on its rank
    Vec3 centre;
  };
  /// The graph the stencils' rings run over while the constructor builds them (the .cpp's).
  struct RingSearch;

  // --- the constructor's steps, in order (the distributed ones collective)
  /// The graph's cells of this rank: each one's face neighbours and its boundary faces.
  void link_cells(RingSearch& search, ProcessorFaces* processor);
  /// Ring by ring, the other ranks' cells that stencils reach, until every stencil is decided.
  void learn_remote_cells(RingSearch& search);
  /// One round of learn_remote_cells: ask the ranks that have the `missing` cells, answer theirs.
  void fetch_remote_cells(RingSearch& search, std::span<const label> missing);
  /// The answers to the other ranks' requests (their cells' numbers here), per rank.
  std::vector<std::vector<double>> describe_cells(const RingSearch& search,
                                                  const std::vector<std::vector<double>>& requests) const;
  /// `in`, `rank`'s describe_cells of the cells it was `asked` for, into the graph.
  void read_descriptions(RingSearch& search, int rank, std::span<const label> asked, std::span<const double> in);
  /// The graph's number of cell `index` of `rank`: the cell's own here, n_cells + j for other ranks'.
  label graph_cell(RingSearch& search, int rank, label index);
  /// Per cell: the stencil, its scale and its normal matrix's inverse.
  void fit_stencils(const RingSearch& search);
  /// Which values each rank sends to which in compute(), and where those it receives go.
  void plan_value_exchanges();

  const Mesh& mesh_;
  const MeshGeometry& geometry_;
  const Communicator& comm_;
  // --- per cell P, CSR: the stencil's cells (n_cells + j: remote cell j) and boundary faces
  //     (n_faces + j: remote face j)
  std::vector<label> cell_offsets_{0}, stencil_cells_;
  std::vector<label> face_offsets_{0}, stencil_faces_;
  std::vector<double> scales_;                   ///< the farthest stencil point: d is fitted as d / scale
  std::vector<std::array<double, 45>> inverses_;  ///< the normal matrix's inverse, upper triangle by rows
  std::vector<RemotePoint> remote_cells_, remote_faces_;
  label capped_cells_ = 0;
  /// per rank: the cells and boundary faces of mine whose values it needs, in the order it listed
  /// them; and the remote cells and faces (their j) whose values come from it, in that order
  std::vector<std::vector<label>> send_cells_, send_faces_, recv_cells_, recv_faces_;
};

}  // namespace fvmmini
