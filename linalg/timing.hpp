#pragma once
// Wall time for the set-up and phase figures in the logs and summaries.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace fvmmini {

/// Seconds of steady-clock time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// A set-up timed in named parts, each from the end of the one before (or the start).
class PartTimer {
 public:
  void mark(std::string part) {
    const auto now = std::chrono::steady_clock::now();
    parts_.emplace_back(std::move(part), std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  double total() const { return seconds_since(start_); }
  const std::vector<std::pair<std::string, double>>& parts() const { return parts_; }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
  std::vector<std::pair<std::string, double>> parts_;
};

}  // namespace fvmmini
