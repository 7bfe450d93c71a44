#include "app/incompressible_keys.hpp"

#include <limits>

#include "app/case_keys.hpp"
#include "app/settings_keys.hpp"
#include "app/time_schedule.hpp"
#include "discretisation/incompressible/flow_diagnostics.hpp"
#include "discretisation/incompressible/flow_operators.hpp"

namespace fvmmini {

void add_incompressible_physics_keys(CaseSchema& schema) {
  const std::vector<std::string> flow{"incompressible"};

  // --- physics: the fluid and the schemes
  add_settings_keys<IncompressibleSettings>(schema.at("physics"));

  // --- upwind is implicit only: PISO's
  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (!c.has("physics.algorithm") || !c.has("physics.convection")) return;
    if (c.get_string("physics.algorithm") == "projection" && c.get_string("physics.convection") == "upwind")
      problems.push_back({c.where("physics.convection"),
                          "physics.convection: upwind is PISO's (implicit); the projection's convection is explicit "
                          "and second order: linear or linearUpwind"});
  });

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
  add_time_section(schema, flow, TimeStep::adjustable, "the time span and step of the flow run");

  // --- steadyState: residual- and velocity-change-based detection
  KeySpec& steady = schema.root()
                        .add("steadyState", KeyType::map, "when the flow counts as steady, and whether to stop there")
                        .when_root("physics.type", flow);
  add_settings_keys<SteadyStateSettings>(steady);

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
      .max(std::numeric_limits<int>::max());
}

}  // namespace fvmmini
