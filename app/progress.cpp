#include "app/progress.hpp"

#include <unistd.h>

#include <algorithm>

namespace fvmmini {

bool stdout_is_terminal() { return ::isatty(STDOUT_FILENO) == 1; }

ProgressLine::ProgressLine(bool enabled, std::FILE* stream) : enabled_(enabled), stream_(stream) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(double fraction, const std::string& text) {
  if (!enabled_) return;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && fraction < 1.0 && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;

  // --- "\r" returns to the line start, ESC[K erases what a longer previous line left.
  constexpr int bar_width = 20;
  const int filled = static_cast<int>(fraction * bar_width + 0.5);
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(bar_width, ' ');
  std::fprintf(stream_, "\r[%s] %3d%%  %s\033[K", bar.c_str(), static_cast<int>(fraction * 100.0), text.c_str());
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!enabled_ || !drawn_) return;
  std::fprintf(stream_, "\r\033[K");
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace fvmmini
