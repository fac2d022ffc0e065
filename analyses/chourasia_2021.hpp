#pragma once
// The closed-form analyses of C21 as `compare` entries, with their assumptions checked against a
// configured run.
#include "models/run_spec.hpp"
#include "analyses/analysis.hpp"

namespace rdpdyn {

/// "chourasia-thm2": C21 Thm 2 (constant LSI constant c; gamma = 1/2, the stated theorem).
AnalysisResult chourasia_thm2(const RunSpec& spec, const TrainingRun& run);
/// "chourasia-cor1": C21 Cor 1 (lambda-strongly convex, beta-smooth, eta < 1/beta, Gaussian init).
AnalysisResult chourasia_cor1(const RunSpec& spec, const TrainingRun& run);
/// "chourasia-cor2": C21 Cor 2 (squared loss on R^d from theta_0 = 0).
AnalysisResult chourasia_cor2(const RunSpec& spec, const TrainingRun& run);

/// Why the C21 closed forms do not apply to a run, or "" when they may: they are stated for full
/// batch with one step size and one noise level, from identical initial laws, without events.
std::string chourasia_common_failure(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
