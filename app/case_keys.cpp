#include "app/case_keys.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/incompressible_keys.hpp"
#include "app/key_path.hpp"
#include "app/output_folder.hpp"
#include "app/scalar_text.hpp"
#include "app/settings_keys.hpp"
#include "app/time_schedule.hpp"
#include "base/checked.hpp"
#include "discretisation/scalar_problem.hpp"
#include "linalg/ordering/orderings.hpp"
#include "linalg/solver_settings.hpp"
#include "registry/format_registry.hpp"
#include "solvers/krylov/krylov_table.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

namespace fvmmini {

namespace {

const std::vector<std::string> box_sides{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
const std::vector<std::string> patch_types{"patch", "wall", "empty"};

/// A physics module: its physics.type names, the fields it solves (each gets solvers.<field>), and a
/// function adding its own keys. Adding a physics is one entry in physics_modules() and one such function;
/// its keys are conditioned on physics.type: when("type", ...) inside physics:, when_root("physics.type", ...)
/// elsewhere.
struct PhysicsModule {
  std::vector<std::string> types;
  std::vector<std::string> fields;
  void (*add_keys)(CaseSchema& schema);
};

void add_mesh_keys(CaseSchema& schema) {
  KeySpec& mesh = schema.root().add("mesh", KeyType::map, "where the mesh comes from").required();
  mesh.add("type", KeyType::enumeration, "box (generated), polyMesh (OpenFOAM) or gmsh (MSH 2.2/4.1)")
      .required()
      .values({"box", "polyMesh", "gmsh"});
  mesh.add("cells", KeyType::int3, "cells along x, y, z").required().min(1).when("type", {"box"});
  mesh.add("min", KeyType::real3, "lower corner").default_value("[0, 0, 0]").when("type", {"box"});
  mesh.add("max", KeyType::real3, "upper corner").default_value("[1, 1, 1]").when("type", {"box"});
  KeySpec& patches = mesh.add("patches", KeyType::named_map,
                              "patch name -> sides and type; a side no patch names becomes a patch of its own")
                         .when("type", {"box"});
  KeySpec& patch = patches.entry(KeyType::map, "one patch of the box");
  patch.add("sides", KeyType::enum_list, "the box sides this patch covers").required().values(box_sides);
  patch.add("type", KeyType::enumeration, "the patch type").default_value("patch").values(patch_types);
  mesh.add("file", KeyType::string,
           "polyMesh: a case folder or its constant/polyMesh folder; gmsh: a .msh file; relative to the case file")
      .required()
      .when("type", {"polyMesh", "gmsh"})
      .rule([](const YAML::Node& value) { return value.Scalar().empty() ? "must not be empty" : ""; });
  mesh.add("patchTypes", KeyType::named_map, "patch name -> type, overriding the type the mesh file gives")
      .when("type", {"polyMesh", "gmsh"})
      .entry(KeyType::enumeration, "the patch type")
      .values(patch_types);
}

/// "staircase on the cuda backend, csr on reference": what format auto means, from the units.
std::string auto_format_text() {
  std::string text;
  for (const char* backend : {"cuda", "reference"})
    text += fmt::format("{}{} on {}", text.empty() ? "" : ", ", auto_format(backend), backend);
  return text;
}

/// "name (summary), name (summary), ..." of a unit table.
template <class Units>
std::string units_text(const Units& units) {
  std::string text;
  for (const auto& unit : units) text += fmt::format("{}{} ({})", text.empty() ? "" : ", ", unit.name, unit.summary);
  return text;
}

/// A format parameter as a case key: its type, range and doc from the format unit's spec.
void add_format_parameter_key(KeySpec& field, const ParameterSpec& spec, const std::vector<std::string>& readers) {
  const std::string doc = fmt::format("{}: {}", fmt::join(readers, ", "), spec.doc);
  KeySpec* key = nullptr;
  switch (spec.type) {
    case ParameterSpec::Type::integer:
      key = &field.add(spec.key, spec.words.empty() ? KeyType::integer : KeyType::integer_or_word, doc);
      if (!spec.words.empty()) key->values(spec.words);
      break;
    case ParameterSpec::Type::real:
      key = &field.add(spec.key, spec.words.empty() ? KeyType::real : KeyType::real_or_word, doc);
      if (!spec.words.empty()) key->values(spec.words);
      break;
    case ParameterSpec::Type::word:
      key = &field.add(spec.key, KeyType::enumeration, doc).values(spec.words);
      break;
  }
  key->default_value(spec.default_value);
  if (spec.min) key->min(*spec.min, spec.min_inclusive);
  if (spec.max) key->max(*spec.max, spec.max_inclusive);
  if (spec.multiple_of > 0)
    key->rule([m = spec.multiple_of](const YAML::Node& value) {
      const auto number = parse_integer(value.Scalar());  // none: one of the words
      return !number || *number % m == 0 ? "" : "must be a multiple of " + std::to_string(m);
    });
}

void add_solver_keys(KeySpec& field) {
  const SolverSettings defaults;
  // --- The Krylov method and the preconditioner first, as the units name them; each preconditioner
  //     unit's keys apply only under it.
  field.add("solver", KeyType::enumeration, "the Krylov method: " + units_text(krylov_table()))
      .default_value(defaults.solver)
      .values(krylov_names());
  field.add("preconditioner", KeyType::enumeration, "the preconditioner: " + units_text(preconditioner_table()))
      .default_value(defaults.preconditioner)
      .values(preconditioner_words());
  add_settings_keys<SolverSettings>(field);
  for (const auto& [key, readers] : preconditioner_keys())
    for (KeySpec* spec : field.children_named(key))
      if (spec->conditions().empty()) spec->when("preconditioner", readers);  // (smoother: smoothSolver's has its own)
  // --- Formats and orderings: the names the linear-algebra tables know.
  std::vector<std::string> formats = format_names();
  formats.push_back("auto");
  field.add("format", KeyType::enumeration,
            "the sparse storage format of the matrix; auto: " + auto_format_text())
      .default_value(defaults.format)
      .values(formats);
  field.add("ordering", KeyType::enumeration,
            "the row ordering applied before the format is built: " + units_text(ordering_table()))
      .default_value(defaults.ordering)
      .values(ordering_names());
  for (const auto& key : format_parameter_keys()) add_format_parameter_key(field, *key.spec, key.formats);
}

// --- Physics: poisson (steady) and diffusion (transient) of one scalar field T.

void add_scalar_physics_keys(CaseSchema& schema) {
  const std::vector<std::string> scalar{"poisson", "diffusion"};
  ScalarProblemSettings defaults;
  SchemaKeys physics(schema.at("physics"));
  declare_physics_keys(physics, defaults);

  KeySpec& boundary = schema.root()
                          .add("boundaryField", KeyType::named_map, "patch name -> the condition of T on it")
                          .required()
                          .when_root("physics.type", scalar);
  KeySpec& condition = boundary.entry(KeyType::map, "the condition on one patch");
  condition.add("type", KeyType::enumeration, "the condition")
      .required()
      .values({"fixedValue", "zeroGradient", "empty"});
  condition.add("value", KeyType::real_or_word, "the fixed value, or exact (the manufactured solution)")
      .required()
      .values({"exact"})
      .when("type", {"fixedValue"});

  add_time_section(schema, {"diffusion"}, TimeStep::fixed, "the time span of a transient run");

  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (c.get_string("physics.manufactured") != "none") return;
    for (const auto& patch : c.entry_names("boundaryField")) {
      const std::string key = key_path("boundaryField", patch) + ".value";
      if (c.has(key) && c.get_string(key) == "exact")
        problems.push_back({c.where(key), key + ": 'exact' needs a manufactured solution (physics.manufactured: sine)"});
    }
  });
  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (c.get_string("physics.type") != "diffusion" || !c.has("time.endTime")) return;
    const TimeControls t = read_settings<TimeControls>(c, "time", TimeStep::fixed);
    if (schedule_problem(t, TimeStep::fixed)) return;  // said by the time section's own rule
    // implicit Euler keeps one matrix, built for deltaT: every step must be deltaT long
    const double start = t.start, end = t.end, delta_t = t.delta_t, write_interval = t.write_interval;
    if (!TimeSchedule(start, end, write_interval).divided_by(delta_t))
      problems.push_back({c.where("time.writeInterval"),
                          fmt::format("time.writeInterval ({:g}) and endTime - startTime ({:g}) must be whole "
                                      "multiples of time.deltaT ({:g}): the diffusion matrix is built for one deltaT",
                                      write_interval, end - start, delta_t)});
  });
}

const std::vector<PhysicsModule>& physics_modules() {
  static const std::vector<PhysicsModule> modules{
      {{"poisson", "diffusion"}, {"T"}, add_scalar_physics_keys},
      {{"incompressible"}, {"U", "p", "pFinal"}, add_incompressible_physics_keys},
  };
  return modules;
}

void add_physics(CaseSchema& schema) {
  KeySpec& physics = schema.root().add("physics", KeyType::map, "the equations solved").required();
  KeySpec& type = physics.add("type", KeyType::enumeration, "which physics (each adds its own keys)").required();
  for (const auto& physics_module : physics_modules())
    for (const auto& name : physics_module.types) type.add_value(name);
  for (const auto& physics_module : physics_modules()) physics_module.add_keys(schema);

  // --- solvers.<field> for every field some physics solves, used by those physics only.
  std::map<std::string, std::vector<std::string>> users;
  std::vector<std::string> fields;
  for (const auto& physics_module : physics_modules())
    for (const auto& field : physics_module.fields) {
      if (users[field].empty()) fields.push_back(field);
      users[field].insert(users[field].end(), physics_module.types.begin(), physics_module.types.end());
    }
  KeySpec& solvers = schema.root().add("solvers", KeyType::map, "the linear solver of each field");
  for (const auto& field : fields)
    add_solver_keys(solvers.add(field, KeyType::map, "the linear solver of " + field).when_root("physics.type", users[field]));
  // --- pFinal: PISO's last pressure solve of a step (keys not given are p's: final_solver_settings)
  for (KeySpec* spec : solvers.children_named("pFinal")) spec->when_root("physics.algorithm", {"PISO"});
  // --- CG needs a symmetric V-cycle
  schema.add_check([fields](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    for (const auto& field : fields) {
      const std::string base = "solvers." + field + ".";
      if (!c.has(base + "nPreSweeps") || !c.has(base + "nPostSweeps")) continue;
      const auto pre = c.get_int(base + "nPreSweeps"), post = c.get_int(base + "nPostSweeps");
      if (pre != post)
        problems.push_back({c.where(base + "nPostSweeps"),
                            fmt::format("{}nPostSweeps: {} differs from nPreSweeps {}: GAMG preconditions CG, which "
                                        "needs a symmetric V-cycle (equal sweeps before and after)",
                                        base, post, pre)});
    }
  });
}

void add_discretisation_keys(CaseSchema& schema) {
  KeySpec& discretisation = schema.root().add("discretisation", KeyType::map, "discretisation controls");
  SchemaKeys keys(discretisation);
  ScalarProblemSettings defaults;
  declare_discretisation_keys(keys, defaults);
}

void add_output_keys(CaseSchema& schema) {
  KeySpec& output = schema.root().add("output", KeyType::map, "what the run writes");
  output.add("directory", KeyType::string,
             "the output folder, relative to the current folder; empty: out/<case file stem>")
      .default_value("\"\"");
  output.add("vtk", KeyType::boolean, "write a .vtu per written time and a .pvd collection").default_value("true");
  output.add("summary", KeyType::string, "the JSON summary file in the output folder; empty: none")
      .default_value("summary.json")
      .rule([](const YAML::Node& value) { return summary_name_problem(value.Scalar()); });
}

void add_decomposition_keys(CaseSchema& schema) {
  KeySpec& d = schema.root().add("decomposition", KeyType::map,
                                 "how the mesh is split over the ranks of mpirun -np N (one part per rank)");
  d.add("method", KeyType::enumeration,
        "metis: METIS k-way on the cell graph; simple: cuts along x, then y, then z (OpenFOAM's simple)")
      .default_value("metis")
      .values({"metis", "simple"});
  d.add("weights", KeyType::enumeration,
        "metis: what the parts balance, cells (none) or their matrix rows' entries (rowEntries: a cell weighs 1 + "
        "its faces to other cells, for meshes of mixed cell shapes)")
      .default_value("none")
      .values({"none", "rowEntries"})
      .when("method", {"metis"});
  d.add("gamgGroups", KeyType::boolean,
        "metis: partition the groups that GAMG's pairwise agglomeration makes of the whole mesh on its first levels "
        "(mergeLevels 2, as one rank pairs them) instead of single cells, so that a rank boundary cuts none of them "
        "and GAMG across the ranks takes about one rank's iterations (false: METIS on the cells)")
      .default_value("true")
      .when("method", {"metis"});
  d.add("n", KeyType::int3, "simple: parts along x, y and z; their product is the number of ranks")
      .required()
      .min(1)
      .when("method", {"simple"})
      .rule([](const YAML::Node& value) -> std::string {
        // --- the product in checked arithmetic: a wrapped one could match the ranks and split past the last part
        try {
          const std::string what = "the product of the parts";
          int parts = 1;
          for (const auto& item : value)
            parts = checked_product(parts, checked_cast<int>(item.as<long long>(), what), what);
          return "";
        } catch (const CountOverflow& e) {
          return std::string(e.what()) + ": one part per rank";
        }
      });
}

void add_mesh_checks(CaseSchema& schema) {
  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (c.get_string("mesh.type") != "box") return;
    const Vec3 lo = c.get_real3("mesh.min");
    const Vec3 hi = c.get_real3("mesh.max");
    for (int i = 0; i < 3; ++i)
      if (!(lo[i] < hi[i]))
        problems.push_back({c.where("mesh.max"), "mesh.max must exceed mesh.min in every component (component " +
                                                     std::to_string(i) + ": " + format_real(lo[i]) +
                                                     " >= " + format_real(hi[i]) + ")"});
  });
  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (c.get_string("mesh.type") != "box") return;
    std::map<std::string, std::string> owner_of;
    for (const auto& patch : c.entry_names("mesh.patches"))
      for (const auto& side : c.get_list(key_path("mesh.patches", patch) + ".sides")) {
        const auto [it, fresh] = owner_of.emplace(side, patch);
        if (!fresh)
          problems.push_back({c.where(key_path("mesh.patches", patch)),
                              "mesh.patches: side '" + side + "' is in both '" + it->second + "' and '" + patch +
                                  "'"});
      }
  });
  schema.add_check([](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    const std::string type = c.get_string("mesh.type");
    if (type == "box") return;
    const std::filesystem::path file = c.resolve_path(c.get_string("mesh.file"));
    std::error_code ec;
    const bool found = type == "polyMesh" ? std::filesystem::is_directory(file, ec)
                                          : std::filesystem::is_regular_file(file, ec);
    if (found) return;
    const bool folder = type == "polyMesh";
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
      // --- a link loop, a folder without search permission: the system's reason, not "no file"
      problems.push_back({c.where("mesh.file"), "mesh.file: cannot reach " + file.string() + ": " + ec.message()});
      return;
    }
    problems.push_back({c.where("mesh.file"),
                        "mesh.file: " + (std::filesystem::exists(file, ec)
                                             ? file.string() + (folder ? " is not a folder" : " is not a regular file")
                                             : (folder ? "no folder " : "no file ") + file.string())});
  });
}

CaseSchema build_schema() {
  CaseSchema schema;
  add_mesh_keys(schema);
  add_physics(schema);
  add_discretisation_keys(schema);
  add_output_keys(schema);
  add_decomposition_keys(schema);
  add_mesh_checks(schema);
  return schema;
}

}  // namespace

KeySpec& add_time_section(CaseSchema& schema, const std::vector<std::string>& types, TimeStep step,
                          const std::string& doc) {
  KeySpec& time = schema.root().add("time", KeyType::map, doc).required().when_root("physics.type", types);
  add_settings_keys<TimeControls>(time, step);
  schema.add_check([types, step](const ResolvedCase& c, std::vector<CaseProblem>& problems) {
    if (std::find(types.begin(), types.end(), c.get_string("physics.type")) == types.end()) return;
    if (!c.has("time.endTime")) return;  // missing or wrong: said already
    if (const auto problem = schedule_problem(read_settings<TimeControls>(c, "time", step), step))
      problems.push_back({c.where("time." + problem->key), problem->message});
  });
  return time;
}

const CaseSchema& case_schema() {
  static const CaseSchema schema = build_schema();
  return schema;
}

}  // namespace fvmmini
