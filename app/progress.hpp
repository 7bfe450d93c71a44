#pragma once
// A one-line progress display, redrawn in place; drawn only when enabled (standard
// output is a terminal and the run is not quiet), so logs and pipes stay clean.

#include <chrono>
#include <cstdio>
#include <string>

namespace fvmmini {

/// True when standard output is a terminal.
bool stdout_is_terminal();

class ProgressLine {
 public:
  /// @param[in] enabled draw at all (RunContext: tty && !quiet); @param[in] stream where to draw
  explicit ProgressLine(bool enabled, std::FILE* stream = stdout);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine();

  /// Redraw as "[#########           ]  45%  text"; at most ten times a second, except at 100%.
  /// @param[in] fraction done, clamped to [0, 1]
  void update(double fraction, const std::string& text);
  /// Erase the line (call before printing a log line, so the two do not mix).
  void clear();
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  std::FILE* stream_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace fvmmini
