#pragma once
// One run of a validated case: the physics of physics.type under the one driver (simulation.hpp).

#include "app/resolved_case.hpp"
#include "app/run_context.hpp"

namespace fvmmini {

/// Run the case: build the mesh, solve, write the outputs, print the log.
/// @return the process exit status (0 on success); throws MeshError, SolverError, CaseError or
///         std::runtime_error on failure (main maps them to exit statuses)
int run_case(const ResolvedCase& resolved, const RunContext& context);

}  // namespace fvmmini
