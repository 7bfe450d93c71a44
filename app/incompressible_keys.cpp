#include "app/incompressible_keys.hpp"

namespace fvmmini {

void add_incompressible_physics_keys(CaseSchema& schema) {
  const std::vector<std::string> flow{"incompressible"};
  constexpr double max_int32 = 2147483647.0;

  // --- physics: the fluid and the schemes
  KeySpec& physics = schema.at("physics");
  physics.add("nu", KeyType::real, "the kinematic viscosity (Re = U L / nu)").required().min(0, false).when("type", flow);
  physics.add("convection", KeyType::enumeration,
              "the convection scheme (explicit, second order): linear (central) or linearUpwind")
      .default_value("linear")
      .values({"linear", "linearUpwind"})
      .when("type", flow);
  physics.add("initialVelocity", KeyType::real3, "the uniform initial velocity").default_value("[0, 0, 0]").when("type", flow);

  // --- boundaryField: one flow condition per patch (U and p follow from it)
  KeySpec& boundary = schema.root()
                          .add("boundaryField", KeyType::named_map, "patch name -> the flow condition on it")
                          .required()
                          .when_root("physics.type", flow);
  KeySpec& condition = boundary.entry(KeyType::map, "the condition on one patch");
  condition.add("type", KeyType::enumeration,
                "wall (no-slip; velocity moves it), velocityInlet (fixed U), pressureOutlet (fixed p, "
                "zeroGradient U) or empty (2-D)")
      .required()
      .values({"wall", "velocityInlet", "pressureOutlet", "empty"});
  condition.add("velocity", KeyType::real3, "the wall's velocity (its normal part is dropped): [1, 0, 0] for a lid")
      .default_value("[0, 0, 0]")
      .when("type", {"wall"});
  condition.add("velocity", KeyType::real3, "the uniform inflow velocity").required().when("type", {"velocityInlet"});
  condition.add("pressure", KeyType::real, "the fixed kinematic pressure p/rho").default_value("0").when("type", {"pressureOutlet"});

  // --- time: fixed deltaT or adjusted to maxCo
  KeySpec& time = schema.root()
                      .add("time", KeyType::map, "the time span and step of the flow run")
                      .required()
                      .when_root("physics.type", flow);
  time.add("startTime", KeyType::real, "the initial time").default_value("0");
  time.add("endTime", KeyType::real, "the final time, > startTime").required();
  time.add("deltaT", KeyType::real, "the time step (the first one when maxCo > 0)").required().min(0, false);
  time.add("maxCo", KeyType::real, "adjust the step to this maximum Courant number (0: deltaT stays fixed)")
      .default_value("0")
      .min(0);
  time.add("maxDeltaT", KeyType::real, "the largest step maxCo may choose (0: no limit)").default_value("0").min(0);
  time.add("writeInterval", KeyType::real, "simulated time between written results").required().min(0, false);
  time.add("logInterval", KeyType::integer, "print the per-step log every this many steps (first and last always)")
      .default_value("1")
      .min(1)
      .max(max_int32);

  // --- steadyState: residual- and velocity-change-based detection
  KeySpec& steady = schema.root()
                        .add("steadyState", KeyType::map, "when the flow counts as steady, and whether to stop there")
                        .when_root("physics.type", flow);
  steady.add("stop", KeyType::boolean, "end the run (and write) once the flow is steady").default_value("false");
  steady.add("residualTolerance", KeyType::real, "every momentum solve's initial residual below this")
      .default_value("1e-6")
      .min(0, false);
  steady.add("velocityTolerance", KeyType::real, "max|U_new - U_old| / (deltaT max|U|) below this (1/s)")
      .default_value("1e-5")
      .min(0, false);
  steady.add("consecutiveSteps", KeyType::integer, "both tolerances met on this many steps in a row")
      .default_value("10")
      .min(1)
      .max(max_int32);

  // --- sampling: the centreline file for validation
  KeySpec& sampling = schema.root()
                          .add("sampling", KeyType::map, "line samples written at every write time")
                          .when_root("physics.type", flow);
  sampling.add("centrelines", KeyType::boolean,
               "write centrelines.csv: U and p along the vertical and horizontal centrelines of the bounding box")
      .default_value("true");
  sampling.add("points", KeyType::integer, "points per centreline, both ends included (129: Ghia's grid)")
      .default_value("129")
      .min(2)
      .max(max_int32);
}

}  // namespace fvmmini
