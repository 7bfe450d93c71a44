#pragma once
// physics.type poisson (steady) and diffusion (transient, implicit Euler) of the scalar T, as a
// Simulation of the one driver.

#include <memory>
#include <span>

#include "app/simulation.hpp"

namespace fvmmini {

/// The scalar problem and its T solver (ordering and format built once), timing "assembly" and
/// "solver setup". @throws SolverSetupError("T") for solver settings that do not fit the matrix
std::unique_ptr<Simulation> make_scalar_simulation(const ResolvedCase& resolved, const RunContext& context,
                                                   const Mesh& mesh, MeshGeometry& geometry,
                                                   std::span<const label> global_cell, const CellFaceLists* cells,
                                                   PhaseTimer& timer);

}  // namespace fvmmini
