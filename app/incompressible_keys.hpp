#pragma once
// The case keys of physics.type: incompressible (the projection solver for the lid-driven
// cavity and the channel), registered as one physics module in case_keys.cpp.

#include "app/case_schema.hpp"

namespace fvmmini {

/// Add physics.nu, physics.convection, physics.initialVelocity, boundaryField (wall, velocityInlet,
/// pressureOutlet, empty), time (with maxCo and logInterval), steadyState and sampling, all applying
/// only when physics.type is incompressible.
void add_incompressible_physics_keys(CaseSchema& schema);

}  // namespace fvmmini
