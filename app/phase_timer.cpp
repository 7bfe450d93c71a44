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

void PhaseTimer::add_part(const std::string& phase, const std::string& part, double seconds) {
  for (Part& p : parts_)
    if (p.phase == phase && p.name == part) {
      p.seconds += seconds;
      return;
    }
  parts_.push_back({phase, part, seconds});
}

std::vector<std::pair<std::string, double>> PhaseTimer::parts(const std::string& phase) const {
  std::vector<std::pair<std::string, double>> of_phase;
  for (const Part& p : parts_)
    if (p.phase == phase) of_phase.emplace_back(p.name, p.seconds);
  return of_phase;
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
  constexpr std::size_t indent = 2;
  for (const auto& [name, total] : phases_) {
    timed += total;
    width = std::max(width, name.size());
  }
  for (const Part& p : parts_) width = std::max(width, indent + p.name.size());
  const auto row = [&](const std::string& name, double seconds) {
    const double share = wall > 0.0 ? 100.0 * seconds / wall : 0.0;
    return fmt::format("{:<{}}  {:>10.4f}  {:>6.1f}%\n", name, width, seconds, share);
  };
  std::string table = fmt::format("{:<{}}  {:>10}  {:>7}\n", "Phase", width, "Seconds", "Share");
  for (const auto& [name, total] : phases_) {
    table += row(name, total);
    for (const auto& [part, seconds] : parts(name)) table += row(std::string(indent, ' ') + part, seconds);
  }
  table += row("other", std::max(0.0, wall - timed));
  table += row("total", wall);
  return table;
}

RankPhases gather_phases(const PhaseTimer& timer, const Communicator& comm) {
  RankPhases r;
  // --- the phase names of every rank, one rank's list at a time (the root's first)
  for (int rank = 0; rank < comm.size(); ++rank) {
    std::string names;
    if (rank == comm.rank())
      for (const auto& [name, seconds] : timer.phases()) names += name + '\n';
    comm.broadcast(names, rank);
    for (std::size_t at = 0, end; (end = names.find('\n', at)) != std::string::npos; at = end + 1) {
      std::string name = names.substr(at, end - at);
      if (std::find(r.names.begin(), r.names.end(), name) == r.names.end()) r.names.push_back(std::move(name));
    }
  }
  for (const std::string& name : r.names) r.seconds.push_back(comm.gather(timer.seconds(name)));
  r.wall = comm.gather(timer.wall_seconds());
  return r;
}

std::string RankPhases::format_table() const {
  const std::string title = fmt::format("Phase on {} ranks", wall.size());
  std::size_t width = title.size();
  for (const auto& name : names) width = std::max(width, name.size());
  const auto row = [&](const std::string& name, const std::vector<double>& values) {
    const auto [least, most] = std::minmax_element(values.begin(), values.end());
    double sum = 0.0;
    for (double v : values) sum += v;
    return fmt::format("{:<{}}  {:>10.4f}  {:>10.4f}  {:>10.4f}  {:>6}\n", name, width, *least,
                       sum / static_cast<double>(values.size()), *most, most - values.begin());
  };
  std::string table =
      fmt::format("{:<{}}  {:>10}  {:>10}  {:>10}  {:>6}\n", title, width, "Min (s)", "Mean (s)", "Max (s)", "Rank");
  for (std::size_t k = 0; k < names.size(); ++k) table += row(names[k], seconds[k]);
  table += row("total", wall);
  return table;
}

}  // namespace fvmmini
