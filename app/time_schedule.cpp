#include "app/time_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace fvmmini {

namespace {
/// Steps of `wanted` to cover `span`, a millionth of a step of round-off not counted as a step.
double parts(double span, double wanted) { return std::max(1.0, std::ceil(span / wanted - 1e-6)); }
}  // namespace

std::optional<TimeProblem> schedule_problem(const TimeControls& t, TimeStep step) {
  const double span = t.end - t.start;
  if (!(t.end > t.start)) return TimeProblem{"endTime", "time.endTime must be greater than time.startTime"};
  const auto too_many = [&](const char* key, double each, const char* what, double most) -> std::optional<TimeProblem> {
    const double count = span / each;
    if (!(each > 0.0) || count <= most) return std::nullopt;  // not given, or out of range: said elsewhere
    return TimeProblem{key, fmt::format("time.{} = {:g} cannot advance time: it makes {:.3g} {} in endTime - startTime "
                                        "= {:g} (at most {:.8g})",
                                        key, each, count, what, span, most)};
  };
  if (auto problem = too_many("writeInterval", t.write_interval, "write times", max_write_times)) return problem;
  if (step == TimeStep::fixed || t.max_co == 0.0) return too_many("deltaT", t.delta_t, "steps", max_fixed_steps);
  return std::nullopt;
}

double adjust_delta_t(double delta_t, double courant_max, const TimeControls& t) {
  if (t.max_co <= 0.0) return delta_t;
  const double factor = t.max_co / (courant_max + 1e-300);
  const double scale = std::min(std::min(factor, 1.0 + 0.1 * factor), 1.2);
  double next = scale * delta_t;
  if (t.max_delta_t > 0.0) next = std::min(next, t.max_delta_t);
  return next;
}

TimeSchedule::TimeSchedule(double start, double end, double write_interval)
    : start_(start), end_(end), interval_(write_interval), span_(end - start), time_(start) {
  if (!(start < end)) throw std::invalid_argument(fmt::format("endTime {:g} must be after startTime {:g}", end, start));
}

double TimeSchedule::offset() const {
  if (stretch_.parts == 0) return static_cast<double>(writes_) * interval_;  // on a write time
  return stretch_.from + (stretch_.to - stretch_.from) * static_cast<double>(stretch_.taken) /
                             static_cast<double>(stretch_.parts);
}

TimeSchedule::Stretch TimeSchedule::plan(double wanted) const {
  if (!(wanted > 0.0)) throw std::invalid_argument(fmt::format("time step {:g} is not positive", wanted));
  const double from = offset();
  double to = span_;
  if (interval_ > 0.0) {
    const double next = static_cast<double>(writes_ + 1) * interval_;
    if (next < span_ - 1e-6 * wanted) to = next;
  }
  const double steps = parts(to - from, wanted);
  if (!(steps <= max_fixed_steps))
    throw std::runtime_error(fmt::format("time step {:g} cannot advance time: {:.3g} steps to time {:g}", wanted,
                                         steps, start_ + to));
  return Stretch{from, to, wanted, static_cast<long long>(steps), 0};
}

double TimeSchedule::next_delta_t(double wanted) const {
  const Stretch s = stretch_.parts > 0 && stretch_.wanted == wanted ? stretch_ : plan(wanted);
  return (s.to - s.from) / static_cast<double>(s.parts);
}

double TimeSchedule::advance(double wanted) {
  if (finished()) throw std::logic_error("TimeSchedule: endTime already reached");
  // a new stretch at each target, and whenever the step asked for changes (maxCo)
  if (stretch_.parts == 0 || stretch_.wanted != wanted) stretch_ = plan(wanted);
  const double delta_t = (stretch_.to - stretch_.from) / static_cast<double>(stretch_.parts);
  ++step_;
  ++stretch_.taken;
  at_write_time_ = stretch_.taken == stretch_.parts;
  if (!at_write_time_) {
    time_ = start_ + offset();
    return delta_t;
  }
  if (stretch_.to == span_) {
    finished_ = true;
    time_ = end_;
  } else {
    ++writes_;
    time_ = start_ + static_cast<double>(writes_) * interval_;
  }
  stretch_ = Stretch{};
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
