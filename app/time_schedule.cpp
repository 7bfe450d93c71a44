#include "app/time_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace fvmmini {

namespace {
/// Steps of `wanted` to cover `span`, a part of a step of round-off not counted as a step.
double parts(double span, double wanted) { return std::max(1.0, std::ceil(span / wanted - 1e-6)); }
}  // namespace

double adjust_delta_t(double delta_t, double courant_max, const TimeControls& t) {
  if (t.max_co <= 0.0) return delta_t;
  const double factor = t.max_co / (courant_max + 1e-300);
  const double scale = std::min(std::min(factor, 1.0 + 0.1 * factor), 1.2);
  double next = scale * delta_t;
  if (t.max_delta_t > 0.0) next = std::min(next, t.max_delta_t);
  return next;
}

TimeSchedule::TimeSchedule(double start, double end, double write_interval)
    : start_(start), end_(end), interval_(write_interval), time_(start) {
  if (!(start < end)) throw std::invalid_argument(fmt::format("endTime {:g} must be after startTime {:g}", end, start));
}

double TimeSchedule::next_write() const {
  if (!(interval_ > 0.0)) return end_;
  const double next = start_ + static_cast<double>(writes_ + 1) * interval_;
  // a write time within round-off of endTime is endTime
  return next >= end_ - 1e-9 * (end_ - start_) ? end_ : next;
}

double TimeSchedule::target() const { return std::min(next_write(), end_); }

double TimeSchedule::next_delta_t(double wanted) const {
  if (!(wanted > 0.0)) throw std::invalid_argument(fmt::format("time step {:g} is not positive", wanted));
  const double left = target() - time_;
  return left / parts(left, wanted);
}

double TimeSchedule::advance(double wanted) {
  if (finished()) throw std::logic_error("TimeSchedule: endTime already reached");
  const double delta_t = next_delta_t(wanted);
  const double goal = target();
  ++step_;
  at_write_time_ = parts(goal - time_, wanted) == 1.0;
  if (!at_write_time_) {
    time_ += delta_t;
    return delta_t;
  }
  if (goal == next_write() && goal != end_) ++writes_;
  time_ = goal;
  return delta_t;
}

bool TimeSchedule::divided_by(double delta_t) const {
  const auto whole = [&](double span) {
    const double n = span / delta_t;
    return std::abs(n - std::round(n)) <= 1e-9 * std::max(1.0, n);
  };
  return whole(end_ - start_) && (!(interval_ > 0.0) || whole(interval_));
}

}  // namespace fvmmini
