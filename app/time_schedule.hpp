#pragma once
// The run's clock, for every time-marching physics: steps from startTime to endTime that land
// exactly on each write time and on endTime. As OpenFOAM's adjustableRunTime does, the time left
// to the next of those is cut into equal steps no longer than the one asked for, so a fixed deltaT
// that divides the write interval gives exactly (endTime - startTime) / deltaT steps and every
// write time is start + k * writeInterval to the last bit.

namespace fvmmini {

/// The time keys of a case.
struct TimeControls {
  double start = 0.0, end = 0.0, delta_t = 0.0, max_co = 0.0, max_delta_t = 0.0, write_interval = 0.0;
  long long log_interval = 1;
};

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
  bool finished() const { return time_ == end_; }
  /// The step advance(wanted) would take: the time left to the next write time (or endTime) in
  /// equal parts, none longer than `wanted`.
  double next_delta_t(double wanted) const;
  /// Take that step and return its length; the last part lands exactly on its target.
  double advance(double wanted);
  /// Whether the step just taken landed on a write time or on endTime.
  bool at_write_time() const { return at_write_time_; }
  /// Whether steps of exactly delta_t land on every write time and on endTime (to 1e-9 of a step).
  bool divided_by(double delta_t) const;

 private:
  double next_write() const;  ///< the next write time, endTime when none comes before it
  double target() const;
  double start_, end_, interval_;
  long long writes_ = 0;  ///< write times passed
  double time_;
  long long step_ = 0;
  bool at_write_time_ = false;
};

}  // namespace fvmmini
