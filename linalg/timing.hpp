#pragma once
// Wall time for the set-up and phase figures in the logs and summaries.

#include <chrono>

namespace fvmmini {

/// Seconds of steady-clock time since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace fvmmini
