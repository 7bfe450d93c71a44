#pragma once
// The time loop of physics.type: incompressible: build the mesh and the projection
// solver, march to endTime (or to steady state), log each step as OpenFOAM's icoFoam
// does, write VTK, the centreline samples, the timing table and the JSON summary.

#include "app/resolved_case.hpp"
#include "app/run_context.hpp"

namespace fvmmini {

/// Run an incompressible case. Returns the exit status (0 success). Throws CaseError for a case
/// that does not fit its mesh, MeshError, SolverError (breakdown, NaN) and std::runtime_error
/// (I/O); the summary, when asked for and the output folder exists, records the failure first.
int run_incompressible_case(const ResolvedCase& resolved, const RunContext& context);

}  // namespace fvmmini
