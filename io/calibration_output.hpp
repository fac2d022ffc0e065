#pragma once
// The formats of `rdpdyn calibrate`: one JSON object, or one line for people.
#include <string>

#include "commands/calibrate.hpp"

namespace rdpdyn {

/// {"target": "sigma"|"steps"|"noise_multiplier", "epsilon_target", "delta", "analysis", "tightest", "sigma",
/// "sigma_at", "noise_multiplier", "steps", "epsilon", "best_order", "evaluations", "amplification_warning"}
/// (null when absent).
std::string calibration_to_json(const CalibrationOutcome& outcome);

/// One line for people, e.g. "sigma = 0.0123 (sigma_at = 0.17) meets epsilon = 0.99997 <= 1 at
/// delta = 1e-05 (order 20, analysis chourasia-cor1, 34 evaluations)"; then the line of
/// CalibrationOutcome::amplification_warning when there is one.
std::string calibration_summary(const CalibrationOutcome& outcome);

}  // namespace rdpdyn
