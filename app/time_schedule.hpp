#pragma once
// The run's clock, for every time-marching physics: steps from startTime to endTime that land
// exactly on each write time and on endTime. As OpenFOAM's adjustableRunTime does, the time left
// to the next of those is cut into equal steps no longer than the one asked for, so a fixed deltaT
// that divides the write interval gives exactly (endTime - startTime) / deltaT steps and every
// write time is start + k * writeInterval to the last bit. The clock counts time from startTime
// and counts the steps to each target in integers, so a step far below the spacing of doubles at
// startTime (1 s at startTime 1e17) still runs its steps.

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fvmmini {

/// The time keys of a case.
struct TimeControls {
  double start = 0.0, end = 0.0, delta_t = 0.0, max_co = 0.0, max_delta_t = 0.0, write_interval = 0.0;
  long long log_interval = 1;
};

/// Whether a physics' step follows maxCo (the flow) or is fixed (diffusion: one matrix for one deltaT).
enum class TimeStep { fixed, adjustable };

/// time.* (app/settings_keys.hpp); maxCo and maxDeltaT exist only for an adjustable step.
template <class Keys>
void declare_keys(Keys& keys, TimeControls& t, TimeStep step) {
  const bool adjustable = step == TimeStep::adjustable;
  keys.add("startTime", t.start, "the initial time");
  keys.add("endTime", t.end, "the final time, > startTime").required();
  keys.add("deltaT", t.delta_t, adjustable ? "the time step (the first one when maxCo > 0)" : "the time step")
      .required()
      .min(0, false);
  if (adjustable) {
    keys.add("maxCo", t.max_co, "adjust the step to this maximum Courant number (0: deltaT stays fixed)").min(0);
    keys.add("maxDeltaT", t.max_delta_t, "the largest step maxCo may choose (0: no limit)").min(0);
  }
  keys.add("writeInterval", t.write_interval, "simulated time between written results").required().min(0, false);
  keys.add("logInterval", t.log_interval, "print the per-step log every this many steps (first and last always)")
      .min(1)
      .max(std::numeric_limits<int>::max());
}

/// The most write times a run may have, and the most steps a fixed deltaT may take (2^53: counted
/// exactly in a double): a schedule past them cannot advance time in any run that ends.
inline constexpr double max_write_times = 1e6;
inline constexpr double max_fixed_steps = 9007199254740992.0;

/// A schedule the clock cannot run: the time key at fault ("writeInterval") and why.
struct TimeProblem {
  std::string key, message;
};

/// What stops these controls from making a schedule that ends, nullopt when nothing does: endTime
/// not after startTime, more than max_write_times write times, or (with a fixed step: diffusion,
/// or maxCo 0) more than max_fixed_steps steps. A deltaT or writeInterval of 0 is not counted.
std::optional<TimeProblem> schedule_problem(const TimeControls& t, TimeStep step);

/// OpenFOAM's setDeltaT: scale delta_t toward maxCo, growing at most 20 % (and damped) per step,
/// capped by maxDeltaT; delta_t itself when maxCo is 0.
double adjust_delta_t(double delta_t, double courant_max, const TimeControls& t);

class TimeSchedule {
 public:
  /// @param write_interval 0 or less: write at endTime only
  /// @throws std::invalid_argument unless start < end
  TimeSchedule(double start, double end, double write_interval);

  double time() const { return time_; }
  long long step() const { return step_; }
  bool finished() const { return finished_; }
  /// The step advance(wanted) would take: the time left to the next write time (or endTime) in
  /// equal parts, none longer than `wanted`.
  /// @throws std::invalid_argument unless wanted > 0, std::runtime_error when it would take more
  ///         than max_fixed_steps steps (a step that cannot advance time)
  double next_delta_t(double wanted) const;
  /// Take that step and return its length; the last part lands exactly on its target.
  double advance(double wanted);
  /// Whether the step just taken landed on a write time or on endTime.
  bool at_write_time() const { return at_write_time_; }
  /// Whether steps of exactly delta_t land on every write time and on endTime (to 1e-9 of a step).
  bool divided_by(double delta_t) const;

 private:
  /// The stretch to the next target, cut into `parts` equal steps of about `wanted`.
  struct Stretch {
    double from = 0.0, to = 0.0, wanted = 0.0;  ///< offsets from startTime
    long long parts = 0, taken = 0;
  };
  /// The stretch from here to the next write time (endTime when none comes within
  /// a millionth of a step before it) in steps of `wanted`.
  Stretch plan(double wanted) const;
  double offset() const;  ///< the time since startTime: where the stretch has got to
  double start_, end_, interval_, span_;
  long long writes_ = 0;  ///< write times passed
  Stretch stretch_;       ///< parts 0: none planned
  double time_;
  long long step_ = 0;
  bool at_write_time_ = false;
  bool finished_ = false;
};

}  // namespace fvmmini
