#pragma once
// R(alpha, t) recorded at chosen steps of a privacy program: rows are records, columns orders.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace rdpdyn {

struct Solution {
  std::vector<double> orders;        ///< alpha values, strictly increasing, > 1
  std::vector<double> times;         ///< t of each record (C21 time: sum of step durations)
  std::vector<std::int64_t> steps;   ///< number of completed steps at each record (0 = initial)
  std::vector<double> lsi_constant;  ///< LSI constant of the iterate law at each record (inf: point mass)
  std::vector<double> R;             ///< row-major, records x orders; upper bounds of R_alpha

  std::size_t record_count() const { return times.size(); }
  std::span<const double> row(std::size_t record) const { return {R.data() + record * orders.size(), orders.size()}; }
  std::span<const double> final_row() const { return row(record_count() - 1); }
};

/// Which step boundaries to record: step 0 (the initial data), every `every`-th step (0: none),
/// the listed `steps` (sorted), and always the last step.
struct RecordPlan {
  std::int64_t every = 1;
  std::vector<std::int64_t> steps;
  bool records(std::int64_t step, std::int64_t total_steps) const {
    return step == 0 || step == total_steps || (every > 0 && step % every == 0) ||
           std::binary_search(steps.begin(), steps.end(), step);
  }
};

}  // namespace rdpdyn
