#pragma once
// The machine-readable record of a run (output.summary, JSON): what was run,
// on which mesh, how the linear solves went, where the time went, and the
// physics' own results. Written atomically; rewrite it as often as useful.

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "app/phase_timer.hpp"
#include "app/resolved_case.hpp"
#include "app/run_context.hpp"
#include "linalg/solver_settings.hpp"
#include "mesh/mesh.hpp"

namespace fvmmini {

class RunSummary {
 public:
  /// Records the version, command line, case file, start time, and the resolved case; status "running".
  RunSummary(const ResolvedCase& resolved, const RunContext& context);

  /// Mesh counts and patches (name, type, faces).
  void set_mesh(const Mesh& mesh);
  /// Fold one solve into the per-field totals (solves, iterations, last residuals, all converged).
  void add_solve(const SolverPerformance& performance);
  /// A field's preconditioner under solves.<field>.preconditioner: its name, set-up seconds, the
  /// last refresh's when one was timed (the GPU step refreshes asynchronously, untimed), colours,
  /// levels (the smallest, mean and largest, and their sizes' histogram by powers of two) and the
  /// modelled cost of one application in SpMVs.
  void set_preconditioner(const std::string& field, const PreconditionerInfo& info);
  /// solves.<field>.format: name, ordering, keys, set-up, and the tuning's grid when keys were auto.
  void set_format(const std::string& field, const FormatInfo& info);
  /// Seconds per phase and the wall time so far.
  void set_phases(const PhaseTimer& timer);
  /// "memory": the largest rank's peak resident bytes, all ranks' together and those over the
  /// mesh's cells (set_mesh first).
  void set_memory(std::uint64_t largest_rank, std::uint64_t all_ranks);
  /// "memory": the same of the device buffers' peak (device_memory_peak), where a device was used.
  void set_device_memory(std::uint64_t largest_rank, std::uint64_t all_ranks);
  /// On several ranks: every rank's seconds per phase and wall time (phasesByRank, wallSecondsByRank).
  void set_rank_phases(const RankPhases& phases);
  /// "completed" or "failed" (with the error message), and the finish time.
  void set_status(const std::string& status, const std::string& message = {});
  /// The physics' own section ("results": error norms, final time, ...), free-form.
  nlohmann::json& results() { return json_["results"]; }

  const nlohmann::json& json() const { return json_; }
  /// The end of a run: the phase times and the status ("completed", or "failed" with its message),
  /// then write the summary to `file` unless `file` names no file (output.summary empty).
  void finish(const PhaseTimer& timer, const std::string& status, const std::string& message,
              const std::filesystem::path& file);
  /// Write the summary (pretty-printed) through a temporary file.
  void write(const std::filesystem::path& file) const;

 private:
  nlohmann::json json_;
};

/// The resolved case as JSON: numbers and bools typed, everything else a string.
nlohmann::json case_to_json(const ResolvedCase& resolved);

}  // namespace fvmmini
