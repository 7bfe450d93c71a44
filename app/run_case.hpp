#pragma once
// One run of a validated case: dispatch on physics.type to the physics' time loop.

#include "app/phase_timer.hpp"
#include "app/resolved_case.hpp"
#include "app/run_context.hpp"
#include "mesh/geometry.hpp"

namespace fvmmini {

/// Run the case: build the mesh, solve, write the outputs, print the log.
/// @return the process exit status (0 on success); throws MeshError, SolverError, CaseError or
///         std::runtime_error on failure (main maps them to exit statuses)
int run_case(const ResolvedCase& resolved, const RunContext& context);

/// Build the case's mesh, check the case against it, compute the geometry and run the mesh
/// check (printed unless quiet), timing phases "mesh" and "geometry".
/// @throws CaseError (case against mesh), MeshError (unreadable mesh, failed mesh check)
void build_checked_mesh(const ResolvedCase& resolved, PhaseTimer& timer, bool verbose, Mesh& mesh,
                        MeshGeometry& geometry);

/// physics.type poisson (steady) and diffusion (transient) of the scalar T.
int run_scalar_case(const ResolvedCase& resolved, const RunContext& context);

}  // namespace fvmmini
