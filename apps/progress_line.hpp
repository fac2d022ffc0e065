#pragma once
// One updating line of progress on stderr ("points 1200/10000 (12%), 850/s, 10 s left"), for a
// person watching a terminal: silent unless stderr is a terminal, never with --quiet, only on
// rank 0 under mpirun, and shown only once the work has run for `delay_seconds`.
#include <chrono>
#include <cstddef>
#include <string>

#include "numerics/recent_rate.hpp"

namespace rdpdyn {

class ProgressLine {
 public:
  /// `unit`: what is counted ("points", "steps"); `enabled`: see progress_wanted.
  ProgressLine(std::string label, std::string unit, bool enabled, double delay_seconds = 0.0);
  ~ProgressLine();  ///< clears the line if one was shown
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// Redraws the line at most ten times a second.
  void update(std::size_t done, std::size_t total);
  /// A line of its own words for work of no known size ("12 evaluations, sigma = 0.41"), drawn as
  /// `update` is.
  void note(const std::string& words);
  /// Clears the line (before the results are printed); later updates draw nothing.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_, unit_;
  bool enabled_;
  double delay_;
  Clock::time_point start_, last_draw_;
  bool shown_ = false;
  /// The rate, hence the time left, of the last ten seconds of draws.
  RecentRate recent_{10.0};
};

/// Progress is drawn when stderr is a terminal, --quiet was not given and this is rank 0.
bool progress_wanted(bool quiet, int rank);

}  // namespace rdpdyn
