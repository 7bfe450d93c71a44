#include "app/case_mesh.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/polymesh_reader.hpp"

namespace fvmmini {

namespace {

BoxSide side_named(const std::string& name) {
  for (BoxSide side : {BoxSide::xmin, BoxSide::xmax, BoxSide::ymin, BoxSide::ymax, BoxSide::zmin, BoxSide::zmax})
    if (name == to_string(side)) return side;
  throw std::logic_error("unknown box side '" + name + "'");
}

std::string patch_list(const std::vector<Patch>& patches) {
  std::string names;
  for (const auto& patch : patches) names += (names.empty() ? "" : ", ") + patch.name;
  return names;
}

/// The box of mesh.type box; a CaseError at mesh.cells when it cannot be built here (past
/// 32-bit indices or this machine's memory), before anything is allocated.
BoxSpec box_spec(const ResolvedCase& resolved) {
  BoxSpec spec;
  const auto cells = resolved.get_int3("mesh.cells");
  for (int i = 0; i < 3; ++i) {
    if (cells[i] > std::numeric_limits<label>::max())
      throw CaseError(resolved.where("mesh.cells"), "mesh.cells: " + std::to_string(cells[i]) +
                                                        " cells along one side are past the 32-bit index range");
    spec.cells[i] = static_cast<label>(cells[i]);
  }
  if (const std::string problem = box_size_problem(spec); !problem.empty())
    throw CaseError(resolved.where("mesh.cells"), "mesh.cells: " + problem);
  spec.min = resolved.get_real3("mesh.min");
  spec.max = resolved.get_real3("mesh.max");
  for (const auto& name : resolved.entry_names("mesh.patches")) {
    BoxPatch patch;
    patch.name = name;
    patch.type = resolved.get_string("mesh.patches." + name + ".type");
    for (const auto& side : resolved.get_list("mesh.patches." + name + ".sides")) patch.sides.push_back(side_named(side));
    spec.patches.push_back(std::move(patch));
  }
  return spec;
}

/// "    memory  about 1.20 GiB for the mesh and a run (limit ...)\n"
std::string memory_line(const MeshCounts& counts) { return "    memory: " + describe_memory(counts) + "\n"; }

}  // namespace

Mesh build_case_mesh(const ResolvedCase& resolved) {
  const std::string type = resolved.get_string("mesh.type");
  if (type == "box") return generate_box(box_spec(resolved));

  const std::filesystem::path file = resolved.resolve_path(resolved.get_string("mesh.file"));
  Mesh mesh = type == "polyMesh" ? read_polymesh(file) : read_gmsh(file);

  // --- Patch types from the case win over the file's.
  std::vector<CaseProblem> problems;
  for (const auto& name : resolved.entry_names("mesh.patchTypes")) {
    auto found = std::find_if(mesh.patches.begin(), mesh.patches.end(), [&](const Patch& p) { return p.name == name; });
    if (found == mesh.patches.end()) {
      problems.push_back({resolved.where("mesh.patchTypes." + name),
                          "mesh.patchTypes: the mesh has no patch '" + name + "' (its patches: " + patch_list(mesh.patches) + ")"});
      continue;
    }
    found->type = resolved.get_string("mesh.patchTypes." + name);
  }
  if (!problems.empty()) throw CaseError(std::move(problems));
  return mesh;
}

void check_case_against_mesh(const ResolvedCase& resolved, const std::vector<Patch>& patches, label n_cells) {
  auto find_patch = [&](const std::string& name) {
    return std::find_if(patches.begin(), patches.end(), [&](const Patch& p) { return p.name == name; }) != patches.end();
  };
  std::vector<CaseProblem> problems;
  if (resolved.has("boundaryField")) {
    const auto named = resolved.entry_names("boundaryField");
    for (const auto& patch : patches) {
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
      if (!find_patch(name))
        problems.push_back({resolved.where("boundaryField." + name),
                            "boundaryField: the mesh has no patch '" + name + "' (its patches: " + patch_list(patches) + ")"});
  }
  if (resolved.has("discretisation.referenceCell") &&
      resolved.get_int("discretisation.referenceCell") >= n_cells)
    problems.push_back({resolved.where("discretisation.referenceCell"),
                        "discretisation.referenceCell = " + std::to_string(resolved.get_int("discretisation.referenceCell")) +
                            " is not a cell of the mesh (it has " + std::to_string(n_cells) + " cells)"});
  if (!problems.empty()) throw CaseError(std::move(problems));
}

MeshDryRun dry_run_mesh(const ResolvedCase& resolved) {
  MeshDryRun result;
  if (resolved.get_string("mesh.type") == "box") {
    const BoxLayout box = box_layout(box_spec(resolved));
    check_case_against_mesh(resolved, box.patches, static_cast<label>(box.counts.cells));
    std::string patches;
    for (const auto& patch : box.patches) patches += fmt::format(" {} ({}, {} faces)", patch.name, patch.type, patch.size);
    result.report = fmt::format(
        "# Mesh: {} (sized, not built: a generated box needs no check)\n"
        "    points: {}\n    faces: {}\n    internal faces: {}\n    cells: {}\n    patches:{}\n{}\n",
        box.description, box.counts.points, box.counts.faces, box.counts.internal_faces, box.counts.cells, patches,
        memory_line(box.counts));
    return result;
  }
  const Mesh mesh = build_case_mesh(resolved);
  const MeshCheckReport check = check_mesh(mesh, compute_geometry(mesh));
  check_case_against_mesh(resolved, mesh.patches, mesh.n_cells);
  const MeshCounts counts{.points = mesh.n_points(), .faces = mesh.n_faces(), .internal_faces = mesh.n_internal_faces(),
                          .cells = mesh.n_cells, .face_vertices = static_cast<std::int64_t>(mesh.face_vertices.size())};
  result.report = fmt::format("# Mesh: {}\n{}\n{}\n", mesh.description, format_mesh_check(check), memory_line(counts));
  result.failures = check.failures;
  return result;
}

}  // namespace fvmmini
