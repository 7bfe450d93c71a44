#include "app/simulation.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>

#include <sys/resource.h>

#include <fmt/format.h>

#include "app/case_error.hpp"
#include "app/case_mesh.hpp"
#include "app/case_solver_settings.hpp"
#include "app/output_folder.hpp"
#include "app/progress.hpp"
#include "app/rank_failure.hpp"
#include "app/settings_keys.hpp"
#include "base/printable.hpp"
#include "discretisation/device_mesh_check.hpp"
#include "discretisation/gamg_groups.hpp"
#include "linalg/timing.hpp"
#include "mesh/cell_face_lists.hpp"
#include "mesh/decomposition.hpp"
#include "mesh/mesh_check.hpp"
#include "mesh/mesh_error.hpp"
#include "mesh/mesh_size.hpp"
#include "mesh/polymesh_reader.hpp"
#include "solvers/make_linear_solver.hpp"

namespace fvmmini {

namespace {

/// The case's mesh, checked against the case and by the mesh check (printed unless quiet); its
/// face lists, geometry and the check's passes on the GPU where the case's solvers run there and
/// the GPU has the memory for them.
/// @return the mesh's cell_face_lists, made for the geometry and the check
CellFaceLists build_checked_mesh(const ResolvedCase& c, PhaseTimer& timer, bool verbose, Mesh& mesh,
                                 MeshGeometry& geometry) {
  {
    auto timing = timer.measure("mesh");
    mesh = build_case_mesh(c);
    check_case_against_mesh(c, mesh.patches, mesh_counts(mesh));
  }
  auto timing = timer.measure("geometry");
  PartTimer parts;
  CellFaceLists cells;  // listed once for the geometry, the check and the physics
  MeshFigures figures;
  if (resolves_to_device(case_solver_settings(c)) && DeviceMeshGeometry::fits(mesh)) {
    const DeviceMeshGeometry on_device(mesh);
    parts.mark("mesh to the GPU, face lists and geometry there");
    cells = on_device.download_lists();
    geometry = on_device.download_geometry();  // the host's to the bit
    parts.mark("face lists and geometry to the host");
    figures = on_device.figures(figure_rules(mesh, geometry));
  } else {
    cells = cell_face_lists(mesh);
    parts.mark("cell face lists");
    geometry = compute_geometry(mesh, cells);
    parts.mark("faces and cells");
    figures = mesh_figures(mesh, geometry, cells);
  }
  const MeshCheckReport check = check_mesh(mesh, geometry, cells, figures);
  parts.mark("mesh check");
  for (const auto& [part, seconds] : parts.parts()) timer.add_part("geometry", part, seconds);
  if (verbose) std::fputs((format_mesh_check(check) + "\n").c_str(), stdout);
  if (!check.ok())
    throw MeshError(c.case_file().string(), 0,
                    "the mesh failed " + std::to_string(check.failures.size()) + " check(s): " + check.failures.front());
  check_case_regions(c, mesh, check.regions);  // a steady equation's level fixed in every region, before it is solved
  return cells;
}

TimeControls time_controls(const ResolvedCase& c) {
  // a fixed step's case has no maxCo or maxDeltaT: they keep their defaults (0: off)
  return read_settings<TimeControls>(c, "time", TimeStep::adjustable);
}

/// The driver's state over one run.
class Run {
 public:
  Run(const ResolvedCase& c, const RunContext& context) : c_(c), context_(context), summary_(c, context) {}

  int operator()(const SimulationFactory& make) {
    // --- the GPU's start-up beside the mesh's; the root builds and checks the whole mesh, and on
    //     several ranks sends each its part
    const std::jthread device_start = start_device_early(case_solver_settings(c_), ranks().node_rank());
    Mesh mesh;
    MeshGeometry geometry;
    on_root_for_all(
        ranks(), [&] { cell_lists_ = build_checked_mesh(c_, timer_, verbose(), mesh, geometry); },
        [](const std::exception& e) { return dynamic_cast<const CaseError*>(&e) ? 2 : 1; });
    const std::string mesh_line =
        fmt::format("Mesh: {} ({} cells, {} faces)\n", mesh.description, mesh.n_cells, mesh.n_faces());
    if (ranks().is_root()) summary_.set_mesh(mesh);
    if (ranks().distributed()) {
      cell_lists_.reset();  // the whole mesh's: each rank's part has its own
      decompose(mesh, geometry);
    }
    set_up(make, mesh, geometry, global_cell_);
    cell_lists_.reset();
    mesh.drop_vertices();  // read by now; the first step's solver work takes their memory
    say(mesh_line);
    say(decomposition_lines_);
    say(simulation_->describe());
    try {
      if (simulation_->transient())
        march();
      else
        solve_once();
    } catch (const std::exception& e) {
      fail(e);
    }
    finish();
    return 0;
  }

 private:
  bool verbose() const { return !context_.quiet && context_.speaks(); }
  const Communicator& ranks() const { return *context_.ranks; }

  /// The whole mesh (the root's) becomes this rank's part: decomposition.* of the case, one part
  /// per rank; the log and the summary get the partition's figures.
  void decompose(Mesh& mesh, MeshGeometry& geometry) {
    auto timing = timer_.measure("decomposition");
    DecompositionSettings settings;
    settings.method = c_.get_string("decomposition.method") == "simple" ? DecompositionMethod::simple
                                                                        : DecompositionMethod::metis;
    if (settings.method == DecompositionMethod::metis && c_.get_string("decomposition.weights") == "rowEntries")
      settings.weights = DecompositionWeights::row_entries;
    if (settings.method == DecompositionMethod::metis && c_.get_bool("decomposition.gamgGroups") &&
        ranks().is_root())
      settings.groups = gamg_groups(mesh, geometry, ranks().size());
    if (settings.method == DecompositionMethod::simple) {
      const auto n = c_.get_int3("decomposition.n");
      for (int i = 0; i < 3; ++i) settings.simple_parts[i] = static_cast<int>(std::min<std::int64_t>(n[i], 1 << 30));
    }
    DistributedMesh part;
    try {
      part = distribute_mesh(ranks().is_root() ? &mesh : nullptr, ranks().is_root() ? &geometry : nullptr, settings,
                             ranks());
    } catch (const std::invalid_argument& e) {  // the same on every rank: the root's decomposition failed
      throw CollectiveFailure(std::string(e.what()) + " (decomposition." +
                                  (settings.method == DecompositionMethod::simple ? "n" : "method") + ", mpirun -np " +
                                  std::to_string(ranks().size()) + ")",
                              2);
    }
    mesh = std::move(part.local.mesh);
    global_cell_ = std::move(part.local.global_cell);
    geometry = compute_geometry(mesh);
    const DecompositionFigures& d = part.figures;
    const auto [fewest, most] = std::minmax_element(d.cells.begin(), d.cells.end());
    const auto [least_shared, most_shared] = std::minmax_element(d.processor_faces.begin(), d.processor_faces.end());
    const label groups = settings.groups.empty() ? 0 : *std::max_element(settings.groups.begin(), settings.groups.end()) + 1;
    decomposition_lines_ = fmt::format(
        "Decomposition: {} into {} ranks{}: {} to {} cells a rank (imbalance {:.1f} %, {:.1f} % in matrix entries), {} "
        "to {} processor faces a rank, {} to {} neighbours\n",
        c_.get_string("decomposition.method"), ranks().size(),
        groups > 0 ? fmt::format(" (METIS on {} of GAMG's groups, decomposition.gamgGroups)", groups) : "", *fewest,
        *most, 100.0 * d.imbalance,
        100.0 * d.entry_imbalance, *least_shared,
        *most_shared, *std::min_element(d.neighbours.begin(), d.neighbours.end()),
        *std::max_element(d.neighbours.begin(), d.neighbours.end()));
    summary_.results()["decomposition"] = {{"method", c_.get_string("decomposition.method")},
                                           {"ranks", ranks().size()},
                                           {"cells", d.cells},
                                           {"processorFaces", d.processor_faces},
                                           {"neighbours", d.neighbours},
                                           {"imbalance", d.imbalance},
                                           {"entries", d.entries},
                                           {"entryImbalance", d.entry_imbalance}};
  }
  void say(const std::string& text) const {
    if (!verbose()) return;
    std::fputs(printable_message(text).c_str(), stdout);  // a hostile mesh's patch name, say, prints no control byte
    std::fflush(stdout);  // a log piped to a file or tee shows each block as it happens
  }

  /// The physics, then the output folder: a set-up that fails leaves nothing behind.
  void set_up(const SimulationFactory& make, const Mesh& mesh, MeshGeometry& geometry,
              std::span<const label> global_cell) {
    try {
      simulation_ = make(c_, context_, mesh, geometry, global_cell, cell_lists_ ? &*cell_lists_ : nullptr, timer_);
    } catch (const SolverSetupError& e) {
      // settings that do not fit this mesh's matrix (dia on a renumbered mesh, Staircase alpha): a case error
      const std::string key = "solvers." + e.field();
      throw CaseError(c_.where(key), key + ": " + e.what());
    }
    // --- the root holds the folder; the other ranks write their pieces into it once it is ready
    const std::string name = c_.get_string("output.summary");
    std::vector<std::filesystem::path> inputs{c_.case_file()};
    if (c_.get_string("mesh.type") == "gmsh") inputs.push_back(c_.resolve_path(c_.get_string("mesh.file")));
    if (c_.get_string("mesh.type") == "polyMesh")
      for (const auto& file : polymesh_files(c_.resolve_path(c_.get_string("mesh.file")))) inputs.push_back(file);
    for (auto& input : inputs) input = std::filesystem::absolute(input);
    on_root_for_all(
        ranks(), [&] { output_.emplace(context_.output_directory, name, inputs); },
        [](const std::exception&) { return 1; });
    if (output_ && output_->removed() > 0)
      say(fmt::format("Output folder {}: removed {} file(s) of an earlier run\n", output_->path().string(),
                      output_->removed()));
    if (!name.empty() && ranks().is_root()) summary_path_ = context_.output_directory / name;
  }

  void write(double time, double dt) {
    auto timing = timer_.measure("output");
    simulation_->write(time, dt);
  }

  void solve_once() {
    say("\n");
    const StepOutcome outcome = simulation_->advance(0.0, 0.0);
    for (const auto& perf : outcome.solves) summary_.add_solve(perf);
    say(outcome.log + "\n");
    write(0.0, 0.0);
  }

  /// startTime to endTime: the step from maxCo, cut by the clock to land on write times.
  void march() {
    const TimeControls tc = time_controls(c_);
    say("\nStarting time loop\n\n");
    TimeSchedule clock(tc.start, tc.end, tc.write_interval);
    ProgressLine progress(context_.tty && verbose());  // the root's only
    time_ = tc.start;
    write(time_, 0.0);
    double wanted = tc.delta_t;
    while (!clock.finished()) {
      wanted = simulation_->wanted_delta_t(wanted, tc);
      dt_ = clock.advance(wanted);
      time_ = clock.time();
      step_ = clock.step();
      const StepOutcome outcome = simulation_->advance(time_, dt_);
      for (const auto& perf : outcome.solves) summary_.add_solve(perf);
      const bool last = outcome.stop || clock.finished();
      if (verbose() && (step_ == 1 || last || step_ % tc.log_interval == 0)) {
        progress.clear();
        say(fmt::format("Time = {:g}\n{}\n", time_, outcome.log));
      }
      progress.update((time_ - tc.start) / (tc.end - tc.start), fmt::format("t = {:.5g}{}", time_, outcome.progress));
      if (last || clock.at_write_time()) write(time_, dt_);
      if (outcome.stop) break;
    }
    progress.clear();
  }

  /// A failure mid-run: the summary says where, then the error goes on to main. A solver failure
  /// gains the time and step (and, when the numbers failed, not the device, the physics' likely cause).
  [[noreturn]] void fail(const std::exception& e) {
    const bool solver_failure = dynamic_cast<const SolverError*>(&e) != nullptr;
    const auto* device_failure = dynamic_cast<const DeviceError*>(&e);
    std::string message = e.what();
    if (solver_failure && simulation_->transient())
      message += fmt::format(" (at Time = {:g}, step {}, deltaT = {:g}{})", time_, step_, dt_,
                             device_failure ? "" : simulation_->failure_hint());
    summary_.results()["stoppedAt"] = {{"time", time_}, {"step", step_}};
    simulation_->finish(summary_, true);
    try {
      if (ranks().is_root()) summary_.finish(timer_, "failed", message, summary_path_);
    } catch (const std::exception& also) {
      // the first error is the one to report; this one follows from it (an unwritable folder)
      std::fputs(fmt::format("fvmmini: warning: {}\n", printable_message(also.what())).c_str(), stderr);
    }
    if (device_failure) throw DeviceError(message, device_failure->out_of_memory());
    if (solver_failure) throw SolverError(message);
    throw;
  }

  void finish() {
    summary_.results()["finalTime"] = time_;
    summary_.results()["steps"] = step_;
    say(simulation_->finish(summary_, false));
    if (simulation_->transient())
      say(fmt::format("End: Time = {:g} after {} steps, {:.3f} s wall\n\n", time_, step_, timer_.wall_seconds()));
    else
      say(fmt::format("End: {:.3f} s wall\n\n", timer_.wall_seconds()));
    say(timer_.format_table());
    if (ranks().distributed()) {  // every rank's phases: where the time went, which rank was slowest
      const RankPhases by_rank = gather_phases(timer_, ranks());
      say("\n");
      say(by_rank.format_table());
      summary_.set_rank_phases(by_rank);
    }
    say_memory();
    if (ranks().is_root()) summary_.finish(timer_, "completed", {}, summary_path_);
  }

  /// The peak resident memory, the largest rank's and all ranks' over the whole mesh's cells, in
  /// the log and the summary; the device buffers' too where a GPU was used. Collective.
  void say_memory() {
    rusage usage{};
    const long long mine = getrusage(RUSAGE_SELF, &usage) == 0 ? 1024LL * usage.ru_maxrss : 0;  // KiB on Linux
    const long long largest = ranks().max(mine), all = ranks().sum(mine);
    const label cells = ranks().is_root() ? summary_.json()["mesh"].value("cells", label{0}) : 0;
    const std::string per_cell =
        cells > 0 ? fmt::format(", {:.0f} bytes a cell", static_cast<double>(all) / static_cast<double>(cells)) : "";
    if (ranks().distributed())
      say(fmt::format("Peak resident memory: {} on {} ranks, the largest rank's {}{}\n", format_bytes(all),
                      ranks().size(), format_bytes(largest), per_cell));
    else
      say(fmt::format("Peak resident memory: {}{}\n", format_bytes(all), per_cell));
    if (ranks().is_root()) summary_.set_memory(largest, all);
    // --- the device buffers' peak, where a rank used a GPU
    const auto device = static_cast<long long>(device_memory_peak());
    const long long device_largest = ranks().max(device), device_all = ranks().sum(device);
    if (device_all == 0) return;
    const std::string device_per_cell =
        cells > 0 ? fmt::format(", {:.0f} bytes a cell", static_cast<double>(device_all) / static_cast<double>(cells))
                  : "";
    if (ranks().distributed())
      say(fmt::format("Peak device memory: {} on {} ranks, the largest rank's {}{} (fvmmini's buffers)\n",
                      format_bytes(device_all), ranks().size(), format_bytes(device_largest), device_per_cell));
    else
      say(fmt::format("Peak device memory: {}{} (fvmmini's buffers)\n", format_bytes(device_all), device_per_cell));
    if (ranks().is_root()) summary_.set_device_memory(device_largest, device_all);
  }

  const ResolvedCase& c_;
  const RunContext& context_;
  PhaseTimer timer_;
  RunSummary summary_;
  std::filesystem::path summary_path_;
  std::unique_ptr<Simulation> simulation_;
  std::optional<OutputFolder> output_;  ///< held (locked) by the root from set-up to the end of the run
  std::string decomposition_lines_;     ///< the log's partition figures (several ranks)
  std::vector<label> global_cell_;      ///< several ranks: this rank's cells' numbers in the whole mesh
  std::optional<CellFaceLists> cell_lists_;  ///< one rank: the mesh check's, for the set-up (freed after it)
  double time_ = 0.0;
  double dt_ = 0.0;
  long long step_ = 0;
};

}  // namespace

int run_simulation(const ResolvedCase& resolved, const RunContext& context, const SimulationFactory& make) {
  return Run(resolved, context)(make);
}

}  // namespace fvmmini
