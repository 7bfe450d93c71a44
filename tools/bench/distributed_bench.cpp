// fvmmini-dist-bench: the pressure-type solve across MPI ranks, run under mpirun -np N, on the
// reference backend or on the cuda backend (a GPU a rank by node rank; --transport nccl, ipc or mpi). Rank 0 builds the N^3 box (FVM Laplacian, fixedValue walls) and sends each
// rank its part, as fvmmini does; each assembles its matrix and interfaces. It times the CG to
// the tolerance (iterations, time per iteration; LinearSolver::time_solves: on cuda the vectors
// stay on the device, as in the flow step) and, apart, what one iteration is made of: the
// local SpMV, the halo exchange alone (the distributed SpMV overlaps it with the local rows),
// one sum over the ranks (a CG iteration makes two, three with an applied preconditioner) and
// one application of the preconditioner on the rank's block; each the slowest rank's median.
// The rest of an iteration (vector passes, the couplings, waiting) is what those leave. The solver
// times the parts on its own backend (LinearSolver::time_iteration_parts; on cuda each part
// replayed from a CUDA graph as the CG runs it, where the transport can be captured, else
// launched and synchronised with the device).
// With one rank it also times the serial path (make_linear_solver) on the same matrix.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "comm/communicator.hpp"
#include "discretisation/gamg_groups.hpp"
#include "discretisation/laplacian.hpp"
#include "discretisation/processor_faces.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/decomposition.hpp"
#include "solvers/make_linear_solver.hpp"
#include "tools/bench/preconditioner_method.hpp"

namespace fvmmini {
namespace {

using json = nlohmann::json;

struct Options {
  int box = 64;
  std::string method = "metis";
  std::string format = "csr";
  std::string ordering = "none";
  std::string preconditioner = "diagonal";
  std::string backend = "reference";
  std::string transport = "auto";
  std::string overlap = "on";
  std::string gamg_groups = "on";  ///< metis: GAMG's groups kept whole (decomposition.gamgGroups)
  long long gather = -1;  ///< GAMG's nCellsToGather
  double tolerance = 1e-6;
  int repeats = 20;
  int solves = 3;
  std::string json_path, csv_path;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(const Options& o) {
  const Communicator& comm = Communicator::world();
  // --- the whole box on rank 0, each rank's part from it
  BoxSpec spec;
  spec.cells = {o.box, o.box, o.box};
  Mesh whole;
  MeshGeometry whole_geometry;
  if (comm.is_root()) {
    whole = generate_box(spec);
    whole_geometry = compute_geometry(whole);
  }
  DecompositionSettings d;
  d.method = o.method == "simple" ? DecompositionMethod::simple : DecompositionMethod::metis;
  d.simple_parts = {comm.size(), 1, 1};
  if (d.method == DecompositionMethod::metis && o.gamg_groups == "on" && comm.is_root())
    d.groups = gamg_groups(whole, whole_geometry, comm.size());
  const auto set_up_start = std::chrono::steady_clock::now();
  DistributedMesh part = distribute_mesh(comm.is_root() ? &whole : nullptr, comm.is_root() ? &whole_geometry : nullptr,
                                         d, comm);
  whole = Mesh{};
  const Mesh& mesh = part.local.mesh;
  const MeshGeometry geometry = compute_geometry(mesh);
  ProcessorFaces processor(mesh, comm);
  const Laplacian laplacian(mesh, geometry, &processor);
  ScalarBoundary boundary;
  for (const Patch& p : mesh.patches)
    boundary.patches.push_back({p.neighbour_rank >= 0 ? BoundaryType::processor : BoundaryType::fixed_value,
                                std::vector<double>(p.neighbour_rank >= 0 ? 0 : p.size, 0.0)});
  DistributedLdu system;
  laplacian.assemble(1.0, boundary, system.local);
  system.interfaces = processor.interfaces(laplacian.processor_couplings(1.0));
  system.global_rows = part.local.global_cell;
  const double set_up_seconds = comm.max(seconds_since(set_up_start));

  SolverSettings s;
  bench::set_preconditioner(o.preconditioner, s);
  s.tolerance = o.tolerance;
  s.max_iter = 100000;
  s.format = o.format;
  s.ordering = o.ordering;
  s.backend = parse_backend(o.backend);
  s.transport = parse_transport(o.transport);
  s.halo_overlap = o.overlap == "on";
  s.gamg.n_cells_to_gather = static_cast<label>(o.gather);
  const label n = mesh.n_cells;
  std::vector<double> b(static_cast<std::size_t>(n));
  for (label c = 0; c < n; ++c) b[c] = geometry.cell_volumes[c];  // a unit source

  // --- the solve to the tolerance, `solves` times (the fastest kept)
  auto solver = make_distributed_linear_solver(system, s, comm);
  const SolveTiming timed = solver->time_solves(b, o.solves, comm);
  const SolverPerformance& perf = timed.performance;
  const double solve_seconds = timed.seconds;
  const double per_iteration = perf.iterations > 0 ? solve_seconds / perf.iterations : 0.0;

  // --- one iteration's parts, apart, timed by the solver on its backend
  const IterationParts parts = solver->time_iteration_parts(o.repeats);
  const double local_spmv = parts.local_spmv, halo = parts.halo, preconditioner = parts.preconditioner;
  const int sums = parts.sums_per_iteration;
  const double reduction = parts.sum;
  const double other = per_iteration - local_spmv - halo - sums * reduction - preconditioner;

  // --- the serial path on one rank: the same matrix through make_linear_solver
  double serial_per_iteration = 0.0;
  if (!comm.distributed()) {
    auto serial = make_linear_solver(system.local, s);
    const SolveTiming t = serial->time_solves(b, o.solves, comm);
    serial_per_iteration = t.performance.iterations > 0 ? t.seconds / t.performance.iterations : 0.0;
  }

  long long shared = 0;
  for (const auto& i : system.interfaces) shared += static_cast<long long>(i.face_cells.size());
  const long long interface_faces = comm.sum(shared);
  if (!comm.is_root()) return 0;
  const auto& f = part.figures;
  const char* env_revision = std::getenv("FVMMINI_GIT_REVISION");  // as fvmmini-bench: set at run time, it wins
  json result = {{"benchmark", "fvmmini-dist-bench"},
                 {"git_revision", env_revision && *env_revision ? env_revision : FVMMINI_GIT_REVISION},
                 {"matrix", fmt::format("box {}^3 FVM Laplacian, fixedValue walls", o.box)},
                 {"rows", static_cast<long long>(o.box) * o.box * o.box},
                 {"ranks", comm.size()},
                 {"decomposition", {{"method", o.method}, {"gamg_groups", d.method == DecompositionMethod::metis && o.gamg_groups == "on"}, {"cells", f.cells}, {"processor_faces", f.processor_faces},
                                    {"imbalance", f.imbalance}}},
                 {"solver", {{"backend", o.backend}, {"transport", o.transport}, {"halo_overlap", o.overlap == "on"}, {"n_cells_to_gather", o.gather},
                             {"format", o.format},
                             {"ordering", o.ordering}, {"preconditioner", o.preconditioner},
                             {"tolerance", o.tolerance}, {"describe", solver->describe()}}},
                 {"set_up_seconds", set_up_seconds},
                 {"iterations", perf.iterations},
                 {"converged", perf.converged},
                 {"final_residual", perf.final_residual},
                 {"solve_seconds", solve_seconds},
                 {"seconds_per_iteration", per_iteration},
                 {"split_seconds_per_iteration",
                  {{"local_spmv", local_spmv}, {"halo", halo}, {"reductions", sums * reduction},
                   {"preconditioner", preconditioner}, {"vector_passes_and_rest", other}}},
                 {"parts_timed", parts.from_graphs ? "replayed from CUDA graphs" : "launched one by one"},
                 {"vcycle_seconds_from_level", parts.preconditioner_from_level},
                 {"interface_faces", interface_faces}};
  if (serial_per_iteration > 0)
    result["serial_path"] = {{"seconds_per_iteration", serial_per_iteration},
                             {"ratio", per_iteration / serial_per_iteration}};

  std::printf("ranks %d, box %d^3, %s %s, %s: %d iterations to %g, %.4g s (%.4g ms an iteration)\n", comm.size(), o.box,
              o.format.c_str(), o.ordering.c_str(), o.preconditioner.c_str(), perf.iterations, o.tolerance,
              solve_seconds, 1e3 * per_iteration);
  std::printf("  %s\n", solver->describe().c_str());
  std::printf("  per iteration: local SpMV %.4g ms, halo %.4g ms, %d sums %.4g ms, preconditioner %.4g ms, vector "
              "passes and the rest %.4g ms (parts %s)\n",
              1e3 * local_spmv, 1e3 * halo, sums, 1e3 * sums * reduction, 1e3 * preconditioner, 1e3 * other,
              parts.from_graphs ? "replayed from CUDA graphs" : "launched one by one");
  if (!parts.preconditioner_from_level.empty()) {
    // --- each level's own share of a V-cycle: the cycle from it down less the one from the next down
    const auto& from = parts.preconditioner_from_level;
    std::string shares;
    for (std::size_t l = 0; l < from.size(); ++l)
      shares += fmt::format("{}L{} {:.4g}", l ? ", " : "", l, 1e3 * (from[l] - (l + 1 < from.size() ? from[l + 1] : 0.0)));
    std::printf("  V-cycle by level (ms, the last the coarsest solve): %s\n", shares.c_str());
  }
  std::printf("  cells a rank %d to %d (imbalance %.1f %%), %lld processor faces in all\n",
              *std::min_element(f.cells.begin(), f.cells.end()), *std::max_element(f.cells.begin(), f.cells.end()),
              100.0 * f.imbalance, interface_faces / 2);
  if (serial_per_iteration > 0)
    std::printf("  serial path (make_linear_solver): %.4g ms an iteration; distributed path / serial %.3f\n",
                1e3 * serial_per_iteration, per_iteration / serial_per_iteration);
  if (!o.json_path.empty()) std::ofstream(o.json_path) << result.dump(2) << '\n';
  if (!o.csv_path.empty()) {
    std::ofstream csv(o.csv_path);
    csv << "ranks,rows,iterations,seconds_per_iteration,local_spmv,halo,reductions,preconditioner,rest\n"
        << fmt::format("{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g}\n", comm.size(), result["rows"].get<long long>(),
                       perf.iterations, per_iteration, local_spmv, halo, sums * reduction, preconditioner, other);
  }
  return 0;
}

}  // namespace
}  // namespace fvmmini

int main(int argc, char** argv) {
  fvmmini::CommSession session(argc, argv);
  CLI::App app{"fvmmini-dist-bench: the CG across MPI ranks and what an iteration is made of; run under mpirun -np N"};
  fvmmini::Options o;
  app.add_option("--box", o.box, "the N^3 box")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--method", o.method, "decomposition: metis or simple (slabs along x)")
      ->capture_default_str()
      ->check(CLI::IsMember({"metis", "simple"}));
  app.add_option("--gamg-groups", o.gamg_groups,
                 "metis: partition GAMG's first levels' groups (on) or single cells (off); decomposition.gamgGroups")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--format", o.format, "the local block's format (reference kernel)")->capture_default_str();
  app.add_option("--ordering", o.ordering, "the local block's ordering")->capture_default_str();
  app.add_option("--preconditioner", o.preconditioner,
                 std::string(fvmmini::bench::preconditioner_method_syntax) +
                     " (GAMG's levels coupled across the ranks, the others on each rank's block)")
      ->capture_default_str()
      ->check(CLI::Validator(fvmmini::bench::preconditioner_method_error, "PRECONDITIONER"));
  app.add_option("--backend", o.backend, "reference (CPU) or cuda (a GPU a rank, by node rank)")
      ->capture_default_str()
      ->check(CLI::IsMember({"reference", "cuda"}));
  app.add_option("--transport", o.transport, "cuda: auto, nccl, mpi (host staging) or ipc (CUDA IPC, one host)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "nccl", "mpi", "ipc"}));
  app.add_option("--gather", o.gather, "GAMG: nCellsToGather (-1: the backend's; 0: none)")
      ->capture_default_str()
      ->check(CLI::Range(-1LL, 1LL << 40));
  app.add_option("--overlap", o.overlap, "the local product while the halo travels (on) or after it (off)")
      ->capture_default_str()
      ->check(CLI::IsMember({"on", "off"}));
  app.add_option("--tolerance", o.tolerance, "CG tolerance on the normalised residual")->capture_default_str();
  app.add_option("--repeats", o.repeats, "timed runs of each part (median)")->capture_default_str();
  app.add_option("--solves", o.solves, "timed solves (fastest kept)")->capture_default_str();
  app.add_option("--json", o.json_path, "write the results as JSON (rank 0)");
  app.add_option("--csv", o.csv_path, "write one CSV row (rank 0)");
  CLI11_PARSE(app, argc, argv);
  try {
    return fvmmini::run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fvmmini-dist-bench: error: %s\n", e.what());
    fvmmini::Communicator::world().abort(1);
  }
}
