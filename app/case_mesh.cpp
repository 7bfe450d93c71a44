#include "app/case_mesh.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/case_schema.hpp"
#include "app/case_solver_settings.hpp"
#include "app/key_path.hpp"
#include "base/printable.hpp"
#include "discretisation/incompressible/centreline_sampler.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/geometry.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/polymesh_reader.hpp"
#include "registry/format_registry.hpp"
#include "solvers/preconditioners/preconditioner_table.hpp"

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

/// "the mesh has no patch 'inlet.lfet' (its patches: ...) (did you mean 'inlet.left'?)"
std::string no_such_patch(const std::string& name, const std::vector<Patch>& patches) {
  std::vector<std::string> names;
  for (const auto& patch : patches) names.push_back(patch.name);
  const std::string match = closest_match(name, names);
  return "the mesh has no patch '" + printable(name) + "' (its patches: " + patch_list(patches) + ")" +
         (match.empty() ? "" : " (did you mean '" + printable(match) + "'?)");
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
    const std::string key = key_path("mesh.patches", name);
    patch.type = resolved.get_string(key + ".type");
    for (const auto& side : resolved.get_list(key + ".sides")) patch.sides.push_back(side_named(side));
    spec.patches.push_back(std::move(patch));
  }
  return spec;
}

/// a + b, held at the largest value instead of wrapping
std::uint64_t saturating_sum(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max() : a + b;
}

/// The bytes `format` built with `parameters` holds past a CSR matrix's (estimated_run_bytes has
/// those) for n rows of nnz entries, on the mesh's level and on every level the preconditioner
/// builds in the same format (GAMG's coarse levels: PreconditionerUnit::levels); 0 where the keys
/// do not fit the matrix (set-up says why).
std::uint64_t format_padding(const std::string& format, const FormatParameters& parameters, const SolverSettings& s,
                             label n, std::int64_t nnz) {
  const auto level = [&](label rows, std::int64_t entries) -> std::uint64_t {
    try {
      const std::uint64_t bytes = estimated_format_bytes(format, parameters, rows, entries);
      const std::uint64_t csr = csr_storage_bytes(rows, entries);
      return bytes > csr ? bytes - csr : 0;
    } catch (const std::invalid_argument&) {
      return 0;
    }
  };
  std::uint64_t total = level(n, nnz);
  const PreconditionerUnit& preconditioner = find_preconditioner(s.preconditioner);
  if (!preconditioner.levels) return total;
  for (const LevelSize& coarse : preconditioner.levels(s, n, nnz))
    total = saturating_sum(total, level(coarse.rows, coarse.nnz));
  return total;
}

/// The formats a solver may build: its format, or under auto what auto means on the backends it
/// may run on.
std::vector<std::string> formats_of(const SolverSettings& s) {
  if (s.format != "auto") return {s.format};
  std::vector<std::string> formats;
  for (const Backend backend : {Backend::reference, Backend::cuda})
    if (s.backend == Backend::automatic || s.backend == backend) try {
        formats.push_back(auto_format(name(backend)));
      } catch (const std::invalid_argument&) {
      }
  return formats;
}

/// "    memory: about 1.20 GiB for the mesh and a run (limit ...)\n", and what the keys add
std::string memory_line(const ResolvedCase& resolved, const MeshCounts& counts) {
  std::string text = "    memory: " + describe_memory(counts) + "\n";
  const auto keys = key_memory(resolved, counts);
  if (keys.empty()) return text;
  std::uint64_t total = estimated_run_bytes(counts);
  std::vector<std::string> items;
  for (const KeyMemory& k : keys) {
    total = saturating_sum(total, k.bytes);
    items.push_back(fmt::format("{}: {} for {}{}", k.key, format_bytes(k.bytes), k.what,
                                k.note.empty() ? "" : " (" + k.note + ")"));
  }
  return text + fmt::format("    memory of keys: {}; about {} in all\n", fmt::join(items, "; "), format_bytes(total));
}

}  // namespace

Mesh build_case_mesh(const ResolvedCase& resolved) {
  const std::string type = resolved.get_string("mesh.type");
  if (type == "box") return generate_box(box_spec(resolved));

  const std::filesystem::path file = resolved.resolve_path(resolved.get_string("mesh.file"));
  Mesh mesh = type == "polyMesh" ? read_polymesh(file) : read_gmsh(file);

  // --- Patch types from the case win over the file's.
  std::vector<CaseProblem> problems;
  for (const auto& name : resolved.entry_names("mesh.patchTypes")) {
    const std::string key = key_path("mesh.patchTypes", name);
    auto found = std::find_if(mesh.patches.begin(), mesh.patches.end(), [&](const Patch& p) { return p.name == name; });
    if (found == mesh.patches.end()) {
      problems.push_back({resolved.where(key), "mesh.patchTypes: " + no_such_patch(name, mesh.patches)});
      continue;
    }
    found->type = resolved.get_string(key);
  }
  if (!problems.empty()) throw CaseError(std::move(problems));
  return mesh;
}

MeshCounts mesh_counts(const Mesh& mesh) {
  return {.points = mesh.n_points(), .faces = mesh.n_faces(), .internal_faces = mesh.n_internal_faces(),
          .cells = mesh.n_cells, .face_vertices = static_cast<std::int64_t>(mesh.face_vertices.size())};
}

std::vector<KeyMemory> key_memory(const ResolvedCase& c, const MeshCounts& counts) {
  std::vector<KeyMemory> found;
  if (c.get_string("physics.type") == "incompressible") {
    // --- estimated_run_bytes is a scalar run's; the flow's peak RSS against it, OMP_NUM_THREADS=1:
    //     the 3-D cavity at 48^3, 64^3, 80^3 2.33, 2.23, 2.18 times (213, 481, 921 MB). 2.4 keeps
    //     FVMMINI_MEMORY_LIMIT a limit for the flow too (it was passed 1.8-fold).
    constexpr double flow_over_scalar = 2.4;
    const double scalar_run = static_cast<double>(estimated_run_bytes(counts));
    found.push_back({"physics.type = incompressible",
                     "the flow's fields, fluxes and momentum matrix past a scalar run's",
                     static_cast<std::uint64_t>((flow_over_scalar - 1.0) * scalar_run), ""});
  }
  const label n = static_cast<label>(std::clamp<std::int64_t>(counts.cells, 0, std::numeric_limits<label>::max()));
  const std::int64_t nnz = counts.cells + 2 * counts.internal_faces;
  if (c.has("solvers") && n > 0)
    for (const auto& field : c.entry_names("solvers")) {
      const std::string base = "solvers." + field + ".";
      const SolverSettings s = solver_settings(c, field);
      for (const std::string& format : formats_of(s)) {
        const std::uint64_t padding = format_padding(format, s.format_parameters, s, n, nnz);
        if (padding == 0) continue;
        // --- blame the given key whose default would save the most, else the format
        std::string key = base + "format";
        std::uint64_t saved = 0;
        for (const auto& spec : find_format(format).parameters) {
          if (!s.format_parameters.has(spec.key)) continue;
          FormatParameters without = s.format_parameters;
          without.set(spec.key, default_format_parameters().values().at(spec.key));
          const std::uint64_t rest = format_padding(format, without, s, n, nnz);
          if (rest < padding && padding - rest > saved) {
            saved = padding - rest;
            key = base + spec.key + " = " + s.format_parameters.text(spec.key);
          }
        }
        found.push_back({key,
                         fmt::format("the {} format's padding past CSR on {} rows{}", format, n,
                                     find_preconditioner(s.preconditioner).levels
                                         ? " and " + s.preconditioner + "'s levels"
                                         : ""),
                         padding, ""});
      }
    }
  if (c.has("sampling.centrelines") && c.get_bool("sampling.centrelines")) {
    const std::int64_t points = 2 * c.get_int("sampling.points");  // cavity_centrelines: two lines
    found.push_back({"sampling.points = " + std::to_string(c.get_int("sampling.points")),
                     fmt::format("{} centreline points", points), sampler_bytes(points),
                     "centrelines.csv about " + format_bytes(sampler_csv_bytes(points)) + " a write"});
  }
  return found;
}

void check_case_against_mesh(const ResolvedCase& resolved, const std::vector<Patch>& patches,
                             const MeshCounts& counts) {
  const auto n_cells = counts.cells;
  auto find_patch = [&](const std::string& name) {
    return std::find_if(patches.begin(), patches.end(), [&](const Patch& p) { return p.name == name; }) != patches.end();
  };
  std::vector<CaseProblem> problems;
  if (n_cells == 0) {
    // --- said once, of the mesh: no referenceCell (nor anything else) can be right on it
    const std::string key = resolved.get_string("mesh.type") == "box" ? "mesh.cells" : "mesh.file";
    problems.push_back({resolved.where(key), key + ": the mesh " +
                                                 (key == "mesh.file" ? printable(resolved.get_string(key)) + " " : "") +
                                                 "has no cells"});
    throw CaseError(std::move(problems));
  }
  if (resolved.has("boundaryField")) {
    const auto named = resolved.entry_names("boundaryField");
    for (const auto& patch : patches) {
      const std::string key = key_path("boundaryField", patch.name);
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
        problems.push_back({resolved.where(key_path("boundaryField", name)),
                            "boundaryField: " + no_such_patch(name, patches)});
  }
  if (resolved.has("discretisation.referenceCell") &&
      resolved.get_int("discretisation.referenceCell") >= n_cells)
    problems.push_back({resolved.where("discretisation.referenceCell"),
                        "discretisation.referenceCell = " + std::to_string(resolved.get_int("discretisation.referenceCell")) +
                            " is not a cell of the mesh (it has " + std::to_string(n_cells) + " cells)"});
  // --- what the keys size, before any of it is allocated: the run with each key's memory
  for (const KeyMemory& k : key_memory(resolved, counts)) {
    const std::string path = k.key.substr(0, k.key.find(' '));
    const std::string problem = memory_problem(saturating_sum(estimated_run_bytes(counts), k.bytes),
                                               "the run with " + k.what + " (about " + format_bytes(k.bytes) + ")");
    if (!problem.empty()) problems.push_back({resolved.where(path), k.key + ": " + problem});
  }
  if (!problems.empty()) throw CaseError(std::move(problems));
}

void check_case_regions(const ResolvedCase& resolved, const Mesh& mesh, const MeshRegions& regions) {
  // --- the patch type that fixes the level of the steady equation, and that equation
  const std::string physics = resolved.get_string("physics.type");
  std::string fixing, equation;
  if (physics == "poisson") {
    fixing = "fixedValue";
    equation = "the steady equation of T";
  } else if (physics == "incompressible") {
    fixing = "pressureOutlet";
    equation = "the pressure equation";
  } else {
    return;  // diffusion: the time term V / dt on the diagonal
  }
  if (!resolved.has("boundaryField") || mesh.n_cells == 0) return;
  std::vector<std::size_t> fixed;
  for (std::size_t p = 0; p < mesh.patches.size(); ++p) {
    const std::string key = key_path("boundaryField", mesh.patches[p].name) + ".type";
    if (resolved.has(key) && resolved.get_string(key) == fixing) fixed.push_back(p);
  }
  std::vector<bool> held = regions.touched_by(mesh, fixed);
  const std::int64_t reference = resolved.has("discretisation.referenceCell")
                                     ? resolved.get_int("discretisation.referenceCell") : 0;
  if (fixed.empty() && reference < mesh.n_cells) held[regions.of_cell[reference]] = true;  // the pinned cell's region
  const auto free = std::find(held.begin(), held.end(), false);
  if (free == held.end()) return;
  const auto k = static_cast<std::size_t>(free - held.begin());
  const auto n_free = std::count(held.begin(), held.end(), false);
  std::string problem;
  if (regions.count == 1) {
    problem = fmt::format("boundaryField: no face of the mesh is on a {} patch (those named have no faces), so {} is "
                          "singular: make a patch with faces {}",
                          fixing, equation, fixing);
  } else {
    problem = fmt::format(
        "boundaryField: the mesh has {} regions (cells that no internal face connects) and {} of them {} no face on a "
        "{} patch{}, so {} is singular there: the region of {} cells whose lowest cell is {}{}. Make a patch of "
        "that region {}, or use a mesh of one region",
        regions.count, n_free, n_free == 1 ? "has" : "have", fixing,
        fixed.empty() ? fmt::format(" (no patch is {}: discretisation.referenceCell {} holds the level of its own "
                                    "region only)",
                                    fixing, reference)
                      : "",
        equation, regions.cells[k], regions.first_cell[k], n_free > 1 ? " (the first of them)" : "", fixing);
  }
  throw CaseError(resolved.where("boundaryField"), problem);
}

MeshDryRun dry_run_mesh(const ResolvedCase& resolved) {
  MeshDryRun result;
  if (resolved.get_string("mesh.type") == "box") {
    const BoxLayout box = box_layout(box_spec(resolved));
    check_case_against_mesh(resolved, box.patches, box.counts);
    std::string patches;
    for (const auto& patch : box.patches) patches += fmt::format(" {} ({}, {} faces)", patch.name, patch.type, patch.size);
    result.report = fmt::format(
        "# Mesh: {} (sized, not built: a generated box needs no check)\n"
        "    points: {}\n    faces: {}\n    internal faces: {}\n    cells: {}\n    patches:{}\n{}\n",
        box.description, box.counts.points, box.counts.faces, box.counts.internal_faces, box.counts.cells, patches,
        memory_line(resolved, box.counts));
    return result;
  }
  const Mesh mesh = build_case_mesh(resolved);
  const MeshCheckReport check = check_mesh(mesh, compute_geometry(mesh));
  const MeshCounts counts = mesh_counts(mesh);
  check_case_against_mesh(resolved, mesh.patches, counts);
  if (check.ok()) check_case_regions(resolved, mesh, check.regions);
  result.report =
      fmt::format("# Mesh: {}\n{}\n{}\n", mesh.description, format_mesh_check(check), memory_line(resolved, counts));
  result.failures = check.failures;
  return result;
}

}  // namespace fvmmini
