#include "app/phase_timer.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace fvmmini {

PhaseTimer::Scope::Scope(PhaseTimer& timer, std::string phase)
    : timer_(&timer), phase_(std::move(phase)), start_(Clock::now()) {}

PhaseTimer::Scope::~Scope() { stop(); }

void PhaseTimer::Scope::stop() {
  if (timer_ == nullptr) return;
  timer_->add(phase_, std::chrono::duration<double>(Clock::now() - start_).count());
  timer_ = nullptr;
}

PhaseTimer::PhaseTimer() : start_(Clock::now()) {}

void PhaseTimer::add(const std::string& phase, double seconds) {
  for (auto& [name, total] : phases_)
    if (name == phase) {
      total += seconds;
      return;
    }
  phases_.emplace_back(phase, seconds);
}

double PhaseTimer::seconds(const std::string& phase) const {
  for (const auto& [name, total] : phases_)
    if (name == phase) return total;
  return 0.0;
}

double PhaseTimer::wall_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::string PhaseTimer::format_table() const {
  const double wall = wall_seconds();
  double timed = 0.0;
  std::size_t width = 5;
  for (const auto& [name, total] : phases_) {
    timed += total;
    width = std::max(width, name.size());
  }
  const auto row = [&](const std::string& name, double seconds) {
    const double share = wall > 0.0 ? 100.0 * seconds / wall : 0.0;
    return fmt::format("{:<{}}  {:>10.4f}  {:>6.1f}%\n", name, width, seconds, share);
  };
  std::string table = fmt::format("{:<{}}  {:>10}  {:>7}\n", "Phase", width, "Seconds", "Share");
  for (const auto& [name, total] : phases_) table += row(name, total);
  table += row("other", std::max(0.0, wall - timed));
  table += row("total", wall);
  return table;
}

}  // namespace fvmmini
