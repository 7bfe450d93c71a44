// The centreline sampler's nearest cell: the least distance from a point to a cell centre, the
// lowest cell number among centres equally near up to rounding, against a search of every centre,
// on tetrahedra, on a box whose points fall on faces (ties) and on a 2-D mesh, lines outside the
// mesh included.

#include <gtest/gtest.h>

#include <limits>

#include "discretisation/incompressible/centreline_sampler.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"

namespace fvmmini {
namespace {

/// Per point, the cell the sampler takes: U_x = the cell's number, no gradient.
std::vector<label> sampled_cells(const MeshGeometry& g, const std::vector<SampleLine>& lines) {
  const CentrelineSampler sampler(g, lines);
  const auto n = g.cell_centres.size();
  std::vector<double> number(n), zero(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) number[c] = static_cast<double>(c);
  const auto no_gradients = [](int, label) { return Vec3{}; };
  std::vector<label> cells;
  for (const LineSample& s : sampler.sample({number, zero, zero}, no_gradients, zero, std::vector<Vec3>(n)))
    cells.push_back(static_cast<label>(s.velocity.x));
  return cells;
}

/// The same by looking at every centre.
std::vector<label> every_centre(const MeshGeometry& g, const std::vector<SampleLine>& lines) {
  std::vector<label> cells;
  for (const SampleLine& line : lines) {
    const Vec3 span = line.end - line.start;
    const double tie = 1e-12 * dot(span, span);
    for (int k = 0; k < line.points; ++k) {
      const Vec3 p = line.start + (static_cast<double>(k) / (line.points - 1)) * span;
      double least = std::numeric_limits<double>::max();
      for (const Vec3& c : g.cell_centres) least = std::min(least, dot(c - p, c - p));
      label best = -1;
      for (label c = 0; c < static_cast<label>(g.cell_centres.size()) && best < 0; ++c)
        if (dot(g.cell_centres[c] - p, g.cell_centres[c] - p) <= least + tie) best = c;
      cells.push_back(best);
    }
  }
  return cells;
}

TEST(CentrelineSampler, TakesTheNearestCentreAndTheLowestNumberAmongEquals) {
  BoxSpec box;
  box.cells = {6, 5, 4};
  BoxSpec flat;
  flat.cells = {12, 9, 1};
  for (const Mesh& mesh : {read_gmsh(std::string(FVMMINI_FIXTURES_DIR) + "/gmsh/cube_tet_h8.msh"), generate_box(box),
                           generate_box(flat)}) {
    const MeshGeometry g = compute_geometry(mesh);
    std::vector<SampleLine> lines = cavity_centrelines(mesh, 129);
    lines.push_back({"across", {-0.5, 0.3, 0.2}, {1.5, 0.7, 0.9}, 41, 0});  // starts and ends outside
    lines.push_back({"edge", {0.0, 0.0, 0.0}, {1.0, 0.0, 0.0}, 25, 0});     // on the mesh's edge
    EXPECT_EQ(sampled_cells(g, lines), every_centre(g, lines)) << mesh.description;
  }
}

}  // namespace
}  // namespace fvmmini
