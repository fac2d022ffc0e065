#include "dynamics/privacy_program.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace rdpdyn {

double PrivacyProgram::total_time() const {
  double t = 0.0;
  for_each_step([&](std::int64_t, const ProgramStep& s) { t += s.diffusion.duration; });
  return t;
}

void PrivacyProgram::append(ProgramStep step, std::int64_t count) {
  if (count <= 0) return;
  phases_.push_back({std::move(step), count});
  ends_.push_back(step_count() + count);
}

std::size_t PrivacyProgram::phase_index(std::int64_t k) const {
  if (k < 0 || k >= step_count())
    throw std::out_of_range("step " + std::to_string(k) + " of a program of " + std::to_string(step_count()) +
                            " steps");
  return static_cast<std::size_t>(std::upper_bound(ends_.begin(), ends_.end(), k) - ends_.begin());
}

const ProgramStep& PrivacyProgram::step(std::int64_t k) const { return phases_[phase_index(k)].step; }

ProgramStep& PrivacyProgram::isolate(std::int64_t k) {
  std::size_t i = phase_index(k);
  const std::int64_t begin = phase_begin(i), end = ends_[i];
  const auto at = [](std::size_t j) { return static_cast<std::ptrdiff_t>(j); };
  if (k + 1 < end) {  // the steps after k
    phases_.insert(phases_.begin() + at(i) + 1, {phases_[i].step, end - k - 1});
    ends_.insert(ends_.begin() + at(i) + 1, end);
  }
  if (k > begin) {  // the steps before k
    phases_.insert(phases_.begin() + at(i), {phases_[i].step, k - begin});
    ends_.insert(ends_.begin() + at(i), k);
    ++i;
  }
  phases_[i].count = 1;
  ends_[i] = k + 1;
  return phases_[i].step;
}

PrivacyProgram PrivacyProgram::slice(std::int64_t begin, std::int64_t end) const {
  if (begin < 0 || begin > end || end > step_count())
    throw std::out_of_range("steps [" + std::to_string(begin) + ", " + std::to_string(end) + ") of a program of " +
                            std::to_string(step_count()) + " steps");
  PrivacyProgram out;
  out.initial_inverse_lsi = initial_inverse_lsi;
  for (std::size_t i = 0; i < phases_.size(); ++i) {
    const std::int64_t from = std::max(begin, phase_begin(i)), to = std::min(end, ends_[i]);
    out.append(phases_[i].step, to - from);
  }
  return out;
}

}  // namespace rdpdyn
