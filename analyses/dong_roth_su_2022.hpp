#pragma once
// Gaussian-DP composition (Dong, Roth & Su 2022, "Gaussian Differential Privacy", JRSS B,
// arXiv:1905.02383): the baseline of the f-DP analyses, as composition-gaussian is that of the Rényi
// ones. Every released iterate is a Gaussian mechanism of parameter mu_k = Delta_k / s_k (shift of
// the update over the noise std; DRS Thm 2.7), and the release of all of them is
// sqrt(sum_k mu_k^2)-GDP (DRS Cor 3.3); the last iterate is a post-processing (DRS Prop. 2.8).
// For full batch mu = mu_1 sqrt(T) (Bok, Su & Altschuler 2024, arXiv:2403.00278, their "GDP
// composition" baseline).
//
// The uses of the record that are counted, the phases and the released Gaussian events are those
// of composition-gaussian (analyses/composition.hpp): its R is alpha sum_k mu_k^2 / 2 exactly, so
// mu = sqrt(2 R_alpha / alpha). Runs with an initial divergence R_0 are refused: R_0 is a Rényi
// curve, not a trade-off function.
#include "analyses/analysis.hpp"

namespace rdpdyn {

/// "gdp-composition" for the configured run: mu and R = alpha mu^2 / 2 at the orders.
AnalysisResult gdp_composition(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
