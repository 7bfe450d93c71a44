#pragma once
// Wall-clock time per named phase of a run (mesh, geometry, assembly, solve,
// output, ...), printed at the end as a table with each phase's share.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "comm/communicator.hpp"

namespace fvmmini {

class PhaseTimer {
 public:
  using Clock = std::chrono::steady_clock;

  /// Times one phase from construction to destruction (or stop()). Phases must not nest.
  class Scope {
   public:
    Scope(PhaseTimer& timer, std::string phase);
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();
    /// End the phase now rather than at the end of the scope.
    void stop();

   private:
    PhaseTimer* timer_;
    std::string phase_;
    Clock::time_point start_;
  };

  /// The run's wall clock starts here.
  PhaseTimer();

  /// Time a phase for the rest of the scope: `auto timing = timer.measure("solve");`
  [[nodiscard]] Scope measure(std::string phase) { return Scope(*this, std::move(phase)); }
  /// Add time to a phase (created on first use; phases keep their first-use order).
  void add(const std::string& phase, double seconds);
  /// Seconds spent in a phase so far (0 for a phase never timed).
  double seconds(const std::string& phase) const;
  /// Seconds since construction.
  double wall_seconds() const;
  /// Phases in first-use order with their seconds.
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  /// Add time to a part of a phase (a set-up's steps): listed under the phase, inside its time.
  void add_part(const std::string& phase, const std::string& part, double seconds);
  /// A phase's parts in first-use order with their seconds (none for most phases).
  std::vector<std::pair<std::string, double>> parts(const std::string& phase) const;

  /// The table: one row per phase (its parts indented under it), then "other" (wall time no
  /// phase covers) and "total", with seconds and share of the wall time.
  std::string format_table() const;

 private:
  Clock::time_point start_;
  std::vector<std::pair<std::string, double>> phases_;
  struct Part {
    std::string phase, name;
    double seconds = 0.0;
  };
  std::vector<Part> parts_;
};

/// Each phase's seconds on every rank of a run on several ranks (where the time went, and which
/// rank the others waited for).
struct RankPhases {
  std::vector<std::string> names;            ///< the root's phases in its order, then those only other ranks timed
  std::vector<std::vector<double>> seconds;  ///< per name: per rank (0 where a rank did not time it)
  std::vector<double> wall;                  ///< per rank

  /// One row per phase and one for the wall time: min, mean and max over the ranks, and the rank
  /// of the max.
  std::string format_table() const;
};

/// Every rank's phases (collective: every rank of comm calls it).
RankPhases gather_phases(const PhaseTimer& timer, const Communicator& comm);

}  // namespace fvmmini
