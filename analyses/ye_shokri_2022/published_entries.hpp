#pragma once
// The published YS22 (arXiv:2203.05363) registry entries: each reports its theorem's formula as
// printed (with the typo-corrected readings of docs/analyses.md, section 3.2), nothing else.
// Every one checks the theorem's assumptions and, if one fails, returns applies = false with the
// failing assumption and the run's values in `reason`. Their improvements are separate entries
// (derived_entries.hpp).
#include "analyses/analysis.hpp"
#include "models/training_run.hpp"

namespace rdpdyn::ye_shokri {

/// "ye-shokri-thm3.3": a fixed partition (or one drawn once), whole epochs, b | n, n/b >= 2,
/// eta < 2/(lambda + beta). The worst batch j0 = n/b - 1 of YS22 Thm 3.3, eq. (91) for lambda > 0,
/// of YS22 Thm D.4, eq. (80) for lambda = 0.
AnalysisResult thm3_3(const TrainingRun& run);

/// "ye-shokri-thm4.2": YS22 Thm 4.2, eq. (135): a random partition drawn once (shuffle-once; or
/// shuffle for one epoch), whole epochs, b | n, n/b >= 2, eta < 2/(lambda + beta), lambda > 0.
/// Equals the authors' accountant (shuffle_guarantee of privacytrustlab/dp_dynamics) without its
/// batch-normalisation term.
AnalysisResult thm4_2(const TrainingRun& run);

/// "ye-shokri-thm4.3": YS22 Thm 4.3, eqs. (147)-(150): sampling = per-step, eta < 2/(lambda + beta).
AnalysisResult thm4_3(const TrainingRun& run);

/// "ye-shokri-d5-last-batch" and "ye-shokri-d5-first-batch": Balle et al. 2019 Thm 5 as YS22
/// translates it (Thm D.5, eq. (111), composed over epochs in App. D.6, the Balle curves of YS22
/// Figure 1): a fixed partition (or one drawn once), whole epochs, b | n, n/b >= 2, lambda > 0,
/// eta < 2/(lambda + beta). The last batch is the worst position (eq. (111) is largest at j0 = n/b - 1),
/// so its value bounds every record; the first-batch value holds only for the records of the first batch.
AnalysisResult d5_last_batch(const TrainingRun& run);
AnalysisResult d5_first_batch(const TrainingRun& run);

/// "ye-shokri-d6": YS22 Thm D.6, eq. (112): full batch b = n, eta < 1/beta, lambda > 0.
AnalysisResult d6(const TrainingRun& run);

}  // namespace rdpdyn::ye_shokri
