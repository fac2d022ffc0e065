#pragma once
// This project's improvements of the YS22 (arXiv:2203.05363) bounds, each its own registry entry
// with status "derived" (derivations: docs/analyses.md, section 3.2). Each is a valid bound
// wherever it applies, never above the published entry it improves where both apply, and
// applies to at least the same runs. compare's `best` sees them beside the published ones.
#include "analyses/analysis.hpp"
#include "models/training_run.hpp"

namespace rdpdyn::ye_shokri {

/// "ye-shokri-thm3.3-shifted": the setting of ye-shokri-thm3.3, any number of steps. For every
/// batch j0 the smallest of YS22 Thm 3.3 (91) (lambda > 0, whole epochs), Thm D.4 (80) (whole
/// epochs) and shifted_recursion_units (Lemma 3.2 (56) restarted at the batch's first use); then
/// the worst batch. `reason` names the worst batch and each bound there.
AnalysisResult thm3_3_shifted(const TrainingRun& run);

/// "ye-shokri-thm4.2-mixture": the setting of ye-shokri-thm4.2, lambda >= 0. Per order, YS22
/// Lemma 4.1 (133) over the per-batch bounds of ye-shokri-thm3.3-shifted, where it is below
/// (135) by more than rounding (1e-12 relative); elsewhere (135) (lambda > 0).
AnalysisResult thm4_2_mixture(const TrainingRun& run);

/// "ye-shokri-d6-optimal-split": the setting of ye-shokri-d6, lambda >= 0. YS22 Thm D.6's
/// unrelaxed recursion (122) with the noise split gamma optimised by optimise_split (R/alpha is
/// free of alpha, so the optimum is the same at every order and is computed once), and never
/// above (122) at gamma = 1/2 or (112).
AnalysisResult d6_optimal_split(const TrainingRun& run);

}  // namespace rdpdyn::ye_shokri
