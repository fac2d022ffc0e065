#pragma once
// The rate of a piece of work over its recent past (the last `window` seconds), for a progress
// line's "time left": work that slows down as it goes (later finite-difference steps take longer)
// is not foretold by the average since the start, which said "7 s left" at 43% with 27 s to go.
#include <cstddef>
#include <deque>
#include <utility>

namespace rdpdyn {

class RecentRate {
 public:
  explicit RecentRate(double window_seconds = 10.0) : window_(window_seconds) {}

  /// Records that `done` units were finished `seconds` after the start (non-decreasing in both)
  /// and returns the units per second from the oldest sample of the window (or the start) to now;
  /// 0 before any progress.
  double add(double seconds, std::size_t done) {
    samples_.emplace_back(seconds, done);
    while (samples_.size() > 2 && seconds - samples_[1].first >= window_) samples_.pop_front();
    const auto [t0, d0] = samples_.size() > 1 ? samples_.front() : std::pair<double, std::size_t>{0.0, 0};
    const double span = seconds - t0;
    if (span > 0.0 && done > d0) return static_cast<double>(done - d0) / span;
    return seconds > 0.0 ? static_cast<double>(done) / seconds : 0.0;
  }

  /// Seconds left for `total` units at `rate` (0 when the rate is unknown).
  static double seconds_left(std::size_t done, std::size_t total, double rate) {
    return rate > 0.0 && total > done ? static_cast<double>(total - done) / rate : 0.0;
  }

 private:
  double window_;
  std::deque<std::pair<double, std::size_t>> samples_;  ///< (seconds since start, done)
};

}  // namespace rdpdyn
