#include "apps/progress_line.hpp"

#include <unistd.h>

#include <cstdio>

namespace rdpdyn {

ProgressLine::ProgressLine(std::string label, std::string unit, bool enabled, double delay_seconds)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      enabled_(enabled),
      delay_(delay_seconds),
      start_(Clock::now()),
      last_draw_(start_) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::finish() {
  if (shown_) std::fputs("\r\033[K", stderr);  // leave the terminal as it was
  shown_ = false;
  enabled_ = false;
}

void ProgressLine::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_) return;
  if (shown_ && done < total && std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
  last_draw_ = now;
  shown_ = true;
  const double rate = recent_.add(elapsed, done);
  const double left = RecentRate::seconds_left(done, total, rate);
  std::fprintf(stderr, "\r\033[K%s: %zu/%zu %s (%.0f%%), %.3g %s/s, %.0f s left", label_.c_str(), done, total,
               unit_.c_str(), 100.0 * static_cast<double>(done) / static_cast<double>(total), rate, unit_.c_str(),
               left);
  std::fflush(stderr);
}

void ProgressLine::note(const std::string& words) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - start_).count() < delay_) return;
  if (shown_ && std::chrono::duration<double>(now - last_draw_).count() < 0.1) return;
  last_draw_ = now;
  shown_ = true;
  std::fprintf(stderr, "\r\033[K%s: %s", label_.c_str(), words.c_str());
  std::fflush(stderr);
}

bool progress_wanted(bool quiet, int rank) { return !quiet && rank == 0 && isatty(STDERR_FILENO) == 1; }

}  // namespace rdpdyn
