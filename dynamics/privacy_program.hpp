#pragma once
// A privacy program: the run described as data. A sequence of steps, each a diffusion interval
// of the PDI (C21 eq. (13)) framed by boundary events. Engines fold over it.
//
// Steps are stored by phases of identical steps (a step and a repeat count), so memory follows
// what differs along the run, not its length: 10^6 steps of one schedule are one record.
#include <cstdint>
#include <memory>
#include <vector>

#include "dynamics/gamma_choice.hpp"
#include "dynamics/lsi_schedule.hpp"
#include "dynamics/step_event.hpp"
#include "dynamics/time_coefficients.hpp"

namespace rdpdyn {

/// One interval on which the PDI holds with noise sigma (C21 convention: the interval of length
/// `duration` adds N(0, 2 * duration * sigma^2 I)), vector-field sensitivity S_v and schedule c(s).
struct DiffusionInterval {
  double duration;     ///< eta for a step of noisy GD (C21 time units)
  double sigma;        ///< C21 noise parameter
  double sensitivity;  ///< S_v, l2 bound on the difference of the two vector fields
  LsiSchedule lsi;
  /// sigma(t), S_v(t) replacing the two constants above where given (algorithm.kind = "pdi");
  /// null otherwise. Shared: every step of a program carries its interval, and a schedule given per
  /// step has a phase per step.
  std::shared_ptr<const TimeCoefficients> varying{};
  bool varies() const { return varying && varying->varies(); }
};

/// sigma of the interval at global time t (the constant unless it varies; checked > 0 if it does).
inline double sigma_at(const DiffusionInterval& iv, double t) {
  return iv.varying ? coefficient_at(iv.varying->sigma, iv.sigma, t, true) : iv.sigma;
}
/// S_v of the interval at global time t (the constant unless it varies; checked >= 0 if it does).
inline double sensitivity_at(const DiffusionInterval& iv, double t) {
  return iv.varying ? coefficient_at(iv.varying->sensitivity, iv.sensitivity, t, false) : iv.sensitivity;
}

struct ProgramStep {
  std::vector<StepEvent> before;  ///< applied at the start of the step, in order
  DiffusionInterval diffusion;
  std::vector<StepEvent> after;  ///< applied at the end of the step, in order
  GammaChoice gamma;
};

/// `count` consecutive copies of `step` (count >= 1).
struct ProgramPhase {
  ProgramStep step;
  std::int64_t count;
};

class PrivacyProgram {
 public:
  /// Inverse LSI constant of the (common) initial law; 0 for a point initialisation.
  double initial_inverse_lsi = kPointMassInverseLsi;

  const std::vector<ProgramPhase>& phases() const { return phases_; }
  std::int64_t step_count() const { return ends_.empty() ? 0 : ends_.back(); }
  /// Index of the first step of phase i.
  std::int64_t phase_begin(std::size_t i) const { return i == 0 ? 0 : ends_[i - 1]; }

  /// The sum of the step durations, added step by step in order.
  double total_time() const;

  /// Room for `phases` phases: a schedule with a value per step appends one phase per step, and
  /// growing by doubling would hold two copies at once.
  void reserve(std::size_t phases) {
    phases_.reserve(phases);
    ends_.reserve(phases);
  }

  /// Appends `count` copies of `step` as one phase (nothing when count <= 0).
  void append(ProgramStep step, std::int64_t count = 1);

  /// Step k (0-based; binary search over the phases). Throws std::out_of_range.
  const ProgramStep& step(std::int64_t k) const;

  /// Splits the phase holding step k so that step k is a phase of its own, and returns it: an
  /// event attached to it concerns that step alone. Throws std::out_of_range.
  ProgramStep& isolate(std::int64_t k);

  /// Steps [begin, end) as a program with the same initial law (callers set another).
  /// Throws std::out_of_range unless 0 <= begin <= end <= step_count().
  PrivacyProgram slice(std::int64_t begin, std::int64_t end) const;

  /// Calls f(k, step) for every step k = 0 .. step_count() - 1, in order.
  template <typename F>
  void for_each_step(F&& f) const {
    std::int64_t k = 0;
    for (const ProgramPhase& phase : phases_)
      for (std::int64_t i = 0; i < phase.count; ++i, ++k) f(k, phase.step);
  }

 private:
  std::size_t phase_index(std::int64_t k) const;

  std::vector<ProgramPhase> phases_;
  std::vector<std::int64_t> ends_;  ///< ends_[i]: one past the last step of phase i
};

}  // namespace rdpdyn
