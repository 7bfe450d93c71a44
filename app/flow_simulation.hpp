#pragma once
// physics.type incompressible as a Simulation of the one driver: the projection step (on the host
// or, when both systems resolve to cuda, on the GPU), logged per step as OpenFOAM's icoFoam does,
// steady-state detection over a window of steps, VTK and the centreline samples.

#include <memory>
#include <span>

#include "app/simulation.hpp"

namespace fvmmini {

/// The flow operators (timed as "operators") and step (both linear solvers built once: "solver setup").
/// @throws SolverSetupError (naming the field) for solver settings that do not fit a matrix
std::unique_ptr<Simulation> make_flow_simulation(const ResolvedCase& resolved, const RunContext& context,
                                                 const Mesh& mesh, MeshGeometry& geometry,
                                                 std::span<const label> global_cell, const CellFaceLists* cells,
                                                 PhaseTimer& timer);

}  // namespace fvmmini
