#include "app/case_mesh.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/polymesh_reader.hpp"

namespace fvmmini {

namespace {

BoxSide side_named(const std::string& name) {
  for (BoxSide side : {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax, BoxSide::zmin, BoxSide::zmax})
    if (name == to_string(side)) return side;
  throw std::logic_error("unknown box side '" + name + "'");
}

std::string patch_list(const Mesh& mesh) {
  std::string names;
  for (const auto& patch : mesh.patches) names += (names.empty() ? "" : ", ") + patch.name;
  return names;
}

}  // namespace

Mesh build_case_mesh(const ResolvedCase& resolved) {
  const std::string type = resolved.get_string("mesh.type");
  if (type == "box") {
    BoxSpec spec;
    const auto cells = resolved.get_int3("mesh.cells");
    for (int i = 0; i < 3; ++i) {
      if (cells[i] > std::numeric_limits<label>::max())
        throw CaseError(resolved.where("mesh.cells"), "mesh.cells: too many cells for 32-bit indices");
      spec.cells[i] = static_cast<label>(cells[i]);
    }
    if (static_cast<double>(cells[0]) * static_cast<double>(cells[1]) * static_cast<double>(cells[2]) * 3.0 >
        std::numeric_limits<label>::max())
      throw CaseError(resolved.where("mesh.cells"), "mesh.cells: too many cells for 32-bit face indices");
    spec.min = resolved.get_real3("mesh.min");
    spec.max = resolved.get_real3("mesh.max");
    for (const auto& name : resolved.entry_names("mesh.patches")) {
      BoxPatch patch;
      patch.name = name;
      patch.type = resolved.get_string("mesh.patches." + name + ".type");
      for (const auto& side : resolved.get_list("mesh.patches." + name + ".sides")) patch.sides.push_back(side_named(side));
      spec.patches.push_back(std::move(patch));
    }
    return generate_box(spec);
  }

  const std::filesystem::path file = resolved.resolve_path(resolved.get_string("mesh.file"));
  Mesh mesh = type == "polyMesh" ? read_polymesh(file) : read_gmsh(file);

  // --- Patch types from the case win over the file's.
  std::vector<CaseProblem> problems;
  for (const auto& name : resolved.entry_names("mesh.patchTypes")) {
    auto found = std::find_if(mesh.patches.begin(), mesh.patches.end(), [&](const Patch& p) { return p.name == name; });
    if (found == mesh.patches.end()) {
      problems.push_back({resolved.where("mesh.patchTypes." + name),
                          "mesh.patchTypes: the mesh has no patch '" + name + "' (its patches: " + patch_list(mesh) + ")"});
      continue;
    }
    found->type = resolved.get_string("mesh.patchTypes." + name);
  }
  if (!problems.empty()) throw CaseError(std::move(problems));
  return mesh;
}

void check_case_against_mesh(const ResolvedCase& resolved, const Mesh& mesh) {
  std::vector<CaseProblem> problems;
  if (resolved.has("boundaryField")) {
    const auto named = resolved.entry_names("boundaryField");
    for (const auto& patch : mesh.patches) {
      const std::string key = "boundaryField." + patch.name;
      if (std::find(named.begin(), named.end(), patch.name) == named.end()) {
        problems.push_back({resolved.where("boundaryField"),
                            "boundaryField: no condition for mesh patch '" + patch.name + "' (type " + patch.type + ")"});
        continue;
      }
      const bool empty_condition = resolved.get_string(key + ".type") == "empty";
      if (empty_condition != (patch.type == "empty"))
        problems.push_back({resolved.where(key), empty_condition
                                                     ? key + ": type empty on a patch of type " + patch.type +
                                                           " (only patches of type empty take it)"
                                                     : key + ": patch '" + patch.name +
                                                           "' is of type empty and needs type: empty"});
    }
    for (const auto& name : named)
      if (mesh.find_patch(name) == nullptr)
        problems.push_back({resolved.where("boundaryField." + name),
                            "boundaryField: the mesh has no patch '" + name + "' (its patches: " + patch_list(mesh) + ")"});
  }
  if (resolved.has("discretisation.referenceCell") &&
      resolved.get_int("discretisation.referenceCell") >= mesh.n_cells)
    problems.push_back({resolved.where("discretisation.referenceCell"),
                        "discretisation.referenceCell = " + std::to_string(resolved.get_int("discretisation.referenceCell")) +
                            " is not a cell of the mesh (it has " + std::to_string(mesh.n_cells) + " cells)"});
  if (!problems.empty()) throw CaseError(std::move(problems));
}

}  // namespace fvmmini
