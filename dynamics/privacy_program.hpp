#pragma once
// A privacy program: the run described as data. A sequence of steps, each a diffusion interval
// of the PDI (C21 eq. (13)) framed by boundary events. Engines fold over it.
#include <vector>

#include "dynamics/gamma_choice.hpp"
#include "dynamics/lsi_schedule.hpp"
#include "dynamics/step_event.hpp"

namespace rdpdyn {

/// One interval on which the PDI holds with noise sigma (C21 convention: the interval of length
/// `duration` adds N(0, 2 * duration * sigma^2 I)), vector-field sensitivity S_v and schedule c(s).
struct DiffusionInterval {
  double duration;     ///< eta for a step of noisy GD (C21 time units)
  double sigma;        ///< C21 noise parameter
  double sensitivity;  ///< S_v, l2 bound on the difference of the two vector fields
  LsiSchedule lsi;
};

struct ProgramStep {
  std::vector<StepEvent> before;  ///< applied at the start of the step, in order
  DiffusionInterval diffusion;
  std::vector<StepEvent> after;   ///< applied at the end of the step, in order
  GammaChoice gamma;
};

struct PrivacyProgram {
  /// Inverse LSI constant of the (common) initial law; 0 for a point initialisation.
  double initial_inverse_lsi = kPointMassInverseLsi;
  std::vector<ProgramStep> steps;

  double total_time() const {
    double t = 0.0;
    for (const auto& s : steps) t += s.diffusion.duration;
    return t;
  }
};

}  // namespace rdpdyn
