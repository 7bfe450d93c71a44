// fvmmini: the command line. Reads and validates a case (a case file, or an OpenFOAM case
// directory mapped to one: --foam-case), then either checks it
// (--dry-run: mesh check, sizes and the resolved case, nothing solved or written) or runs it,
// alone or as one of the ranks of mpirun -np N (each rank reads the case; rank 0 reports).
// Exit status: 0 success, 1 run-time failure (I/O, mesh, solver, device), 2 usage or case error.

#include <cstdio>
#include <exception>
#include <new>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/case_error.hpp"
#include "app/case_loader.hpp"
#include "app/case_mesh.hpp"
#include "app/foam_case.hpp"
#include "app/format_reference.hpp"
#include "app/progress.hpp"
#include "app/rank_failure.hpp"
#include "app/run_case.hpp"
#include "app/run_context.hpp"
#include "app/vtk_writer.hpp"
#include "base/printable.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/mesh_size.hpp"
#include "solvers/make_linear_solver.hpp"

#ifndef FVMMINI_VERSION
#error "FVMMINI_VERSION must be defined by the build"
#endif

namespace {

constexpr int exit_failure = 1;
constexpr int exit_usage = 2;

/// A message may quote input (a token, a file name): no byte of it reaches the terminal raw.
void print_error(const std::string& message) {
  std::cerr << "fvmmini: error: " << fvmmini::printable_message(message) << '\n';
}

/// What a run that the system refused memory is told: the limit, and what lowers the need.
std::string out_of_memory_message() {
  const fvmmini::MemoryLimit limit = fvmmini::memory_limit();
  return fmt::format("out of memory: the system refused an allocation (memory limit {}: {}); the estimate "
                     "--dry-run prints was below it, so this run needs more than it says: try a smaller mesh, "
                     "fewer samples or another format, or more memory",
                     fvmmini::format_bytes(limit.bytes), fvmmini::describe_limit_source(limit));
}

/// What a run whose GPU ran out of memory is told after the failed call.
constexpr const char* device_memory_advice =
    "; the GPU's memory ran out: this run needs more than the device has free. A smaller mesh, more ranks (a GPU "
    "each) or leaner solver settings need less (for U, GAMG's levels and the components' block buffers take more "
    "than jacobi); --dry-run's estimate is the host's memory only";

/// Every problem on its own line; a count when there are several.
int report_case_error(const fvmmini::CaseError& error) {
  for (const auto& problem : error.problems()) print_error(problem.str());
  if (error.problems().size() > 1)
    std::cerr << "fvmmini: " << error.problems().size() << " problems; nothing was run\n";
  return exit_usage;
}

/// --dry-run: check the mesh (a box is only sized) and the case against it, print both; solve and write nothing.
int dry_run(const fvmmini::ResolvedCase& resolved, bool quiet) {
  const fvmmini::MeshDryRun mesh = fvmmini::dry_run_mesh(resolved);
  if (!quiet) {
    std::cout << mesh.report;
    std::cout << "# Resolved case " << resolved.case_file().string() << " (defaults filled in)\n"
              << resolved.to_yaml() << "# Dry run: nothing was solved or written.\n";
  }
  if (!mesh.failures.empty()) {
    print_error("the mesh failed " + std::to_string(mesh.failures.size()) + " check(s): " + mesh.failures.front());
    return exit_failure;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  fvmmini::CommSession ranks_session(argc, argv);  // MPI, when mpirun started this process
  const fvmmini::Communicator& ranks = fvmmini::Communicator::world();
  CLI::App app{"fvmmini: an unstructured finite-volume miniapp (pressure-type solves on CPU or GPU).\n"
               "mpirun -np N fvmmini CASE runs it on N ranks, each on its part of the mesh (every physics; see the "
               "case key decomposition); on the cuda backend each rank takes one of its host's GPUs (solver key "
               "transport: nccl, ipc or mpi)",
               "fvmmini"};
  std::string case_file, foam_case;
  std::vector<std::string> overrides;
  bool dry = false;
  bool quiet = false;
  bool list_formats = false;
  auto* case_option = app.add_option("case", case_file, "the case file (YAML; see docs/cases.md)");
  app.add_option("--foam-case", foam_case,
                 "run an OpenFOAM icoFoam case directory as it is: its dictionaries, 0/U, 0/p and polyMesh (where it "
                 "has none, system/blockMeshDict's one block, as a box) mapped to an fvmmini case (algorithm PISO; "
                 "--dry-run prints it), output in out/<its name>")
      ->type_name("DIR")
      ->excludes(case_option);
  app.add_flag("--list-formats", list_formats,
               "print the storage formats, their backends and their case keys (Markdown, as in docs/cases.md)");
  app.footer(fvmmini::format_help_text() + fvmmini::solver_help_text() +
             "\nEnvironment:\n"
             "  OMP_NUM_THREADS       the host's threads (set-up, the host step, the reference backend)\n"
             "  " + std::string(fvmmini::memory_limit_variable) +
             "  the memory a run may need before it is refused, e.g. 8G (default: the machine's, the cgroup's or\n"
             "                        ulimit -v's, the lowest)\n"
             "  FVMMINI_DEVICE_LOOP   on (default) or off: the cuda solves loop on the device, or in batches the host\n"
             "                        queues (the same kernels; for compute-sanitizer, which cannot follow the loop)\n");
  app.add_option("--set", overrides, "override a case key, e.g. --set solvers.T.tolerance=1e-8 (repeatable)")
      ->type_name("KEY=VALUE")
      ->allow_extra_args(false);
  app.add_flag("--dry-run", dry,
               "validate the case, check the mesh (a box is only sized) and the memory it needs, print the resolved case; "
               "solve and write nothing");
  app.add_flag("-q,--quiet", quiet, "print nothing but errors");
  app.set_version_flag("--version", std::string("fvmmini ") + FVMMINI_VERSION);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return ranks.is_root() ? app.exit(e) : 0;  // --help, --version
  } catch (const CLI::ParseError& e) {
    if (ranks.is_root()) print_error(std::string(e.what()) + " (see fvmmini --help)");
    return exit_usage;
  }
  const bool no_case = case_file.empty() && foam_case.empty();
  if (!ranks.is_root() && (list_formats || dry || no_case)) return list_formats || dry ? 0 : exit_usage;

  if (list_formats) {
    std::cout << fvmmini::format_reference_markdown();
    return 0;
  }
  if (no_case) {
    print_error("a case file or --foam-case DIR is required (see fvmmini --help)");
    return exit_usage;
  }

  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  try {
    std::string mapped;  // --foam-case: the case it maps to
    const fvmmini::ResolvedCase resolved = foam_case.empty() ? fvmmini::load_case(case_file, overrides)
                                                             : fvmmini::load_foam_case(foam_case, overrides, &mapped);
    if (resolved.get_bool("output.vtk") && !fvmmini::vtk_output_available())
      throw fvmmini::CaseError(resolved.where("output.vtk"),
                               "output.vtk is true, but this build of fvmmini has no VTK output (built with "
                               "FVMMINI_WITH_VTK=OFF); set output.vtk: false or rebuild with VTK");
    if (dry && !quiet && !mapped.empty()) std::cout << mapped << '\n';
    if (dry) return dry_run(resolved, quiet);

    fvmmini::RunContext context;
    context.output_directory = fvmmini::output_directory(resolved);
    context.quiet = quiet;
    context.tty = fvmmini::stdout_is_terminal();
    context.version = FVMMINI_VERSION;
    context.command_line = command_line;
    context.ranks = &ranks;
    return fvmmini::run_case(resolved, context);
  } catch (const fvmmini::CollectiveFailure& e) {  // every rank has it: the root says it
    if (ranks.is_root()) print_error(e.what());
    return e.status();
  } catch (const fvmmini::CaseError& e) {  // the case and the root's mesh: every rank or the root alone
    if (ranks.is_root()) return report_case_error(e);
    return exit_usage;
  } catch (const fvmmini::MeshError& e) {
    if (ranks.is_root()) print_error(std::string("mesh: ") + e.what());
  } catch (const fvmmini::SolverError& e) {  // the solvers' checks are collective
    const auto* device = dynamic_cast<const fvmmini::DeviceError*>(&e);
    if (ranks.is_root())
      print_error(std::string("solver: ") + e.what() + (device && device->out_of_memory() ? device_memory_advice : ""));
  } catch (const std::bad_alloc&) {
    print_error(ranks.distributed() ? fmt::format("rank {}: {}", ranks.rank(), out_of_memory_message())
                                    : out_of_memory_message());
    if (ranks.distributed()) ranks.abort(exit_failure);
    return exit_failure;
  } catch (const std::exception& e) {
    if (!ranks.distributed()) {
      print_error(e.what());
      return exit_failure;
    }
    // --- one rank's own failure (a file it could not write): the others may wait for it
    print_error(fmt::format("rank {}: {}", ranks.rank(), e.what()));
    ranks.abort(exit_failure);
  }
  return exit_failure;
}
