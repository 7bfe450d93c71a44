#pragma once
// Whether Cuthill–McKee's wide breadth-first levels are expanded on every thread (orderings.cpp).

#include <cstddef>

namespace fvmmini {

/// A breadth-first level this wide or wider may be expanded on every thread; a narrower one runs
/// on one (a parallel region costs more than the level).
inline constexpr std::size_t min_parallel_frontier = 4096;

/// Wide levels go on every thread (where several run) until two of them have each cost more than
/// twice a node what the one-thread levels before them did: on a host whose threads do not all run
/// at once (busy or throttled), every level's barriers wait for a descheduled thread. On one
/// four-GPU host's 64 threads the 200^3 box's ordering took 28.6 s so, against 0.45 s on another
/// host's 32 threads and about 2 s on one thread.
class LevelThreading {
 public:
  explicit LevelThreading(bool threads) : threads_(threads) {}

  bool parallel(std::size_t width) const { return threads_ && width >= min_parallel_frontier; }

  /// A level of `width` nodes took `seconds`, on every thread where parallel(width) said so.
  void record(std::size_t width, bool on_threads, double seconds) {
    if (!on_threads) {
      if (width >= min_rate_width) {
        serial_seconds_ += seconds;
        serial_nodes_ += static_cast<double>(width);
      }
      return;
    }
    if (serial_nodes_ > 0 && seconds > 2.0 * static_cast<double>(width) * serial_seconds_ / serial_nodes_ &&
        ++slow_levels_ >= 2)
      threads_ = false;
  }

 private:
  static constexpr std::size_t min_rate_width = 256;  ///< narrower levels: the clock's own cost shows
  bool threads_;
  double serial_seconds_ = 0.0, serial_nodes_ = 0.0;
  int slow_levels_ = 0;
};

}  // namespace fvmmini
