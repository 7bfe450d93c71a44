#include "discretisation/manufactured_solution.hpp"

#include <cmath>
#include <numbers>

namespace fvmmini {

ManufacturedSolution::ManufacturedSolution(std::array<bool, 3> active, double gamma, bool transient)
    : active_(active), gamma_(gamma), transient_(transient) {}

ManufacturedSolution ManufacturedSolution::for_mesh(const Mesh& mesh, const MeshGeometry& g, double gamma,
                                                    bool transient) {
  return ManufacturedSolution(solved_directions(mesh, g), gamma, transient);
}

int ManufacturedSolution::active_directions() const { return int(active_[0]) + int(active_[1]) + int(active_[2]); }

double ManufacturedSolution::value(const Vec3& x, double time) const {
  constexpr double pi = std::numbers::pi;
  double mode = transient_ ? std::exp(-active_directions() * pi * pi * gamma_ * time) : 1.0;
  double linear = 0.0;
  for (int d = 0; d < 3; ++d)
    if (active_[d]) {
      mode *= std::sin(pi * x[d]);
      linear += (d + 1) * x[d];
    }
  return mode + linear;
}

double ManufacturedSolution::source(const Vec3& x) const {
  if (transient_) return 0.0;
  constexpr double pi = std::numbers::pi;
  double s = active_directions() * pi * pi * gamma_;
  for (int d = 0; d < 3; ++d)
    if (active_[d]) s *= std::sin(pi * x[d]);
  return s;
}

}  // namespace fvmmini
