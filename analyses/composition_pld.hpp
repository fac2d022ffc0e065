#pragma once
// "composition-pld": the tight composition of a run's mechanisms by the certified privacy-loss-
// distribution accountant (accounting/pld/; docs/pld.md). Every iterate is released, as for the
// other composition entries; the difference is the accounting: the exact privacy profile of the
// composed dominating pairs, bounded from above with the grid's, truncation's and FFT's errors,
// instead of an RDP bound converted to (epsilon, delta).
//
// The pairs, per step of a phase with effective noise multiplier z (models/noise_units.hpp):
//  - full batch: N(1/z, 1) against N(0, 1); the composition is then a Gaussian and the entry reports
//    its exact Gaussian-DP profile, mu^2 = sum of the steps' and released events' mu^2 (Dong, Roth &
//    Su 2022, arXiv:1905.02383, Cor 3.3);
//  - Poisson sampling, add/remove adjacency: the remove pair (1-q) N(0,1) + q N(1/z,1) against
//    N(0,1) and the add pair (the reverse), composed separately, delta the larger (Mironov, Talwar &
//    Zhang 2019, arXiv:1908.10530, Sec. 3; Zhu, Dong & Wang 2022, arXiv:2106.08567, Sec. 5);
//  - Poisson sampling, replace adjacency, S_g bounding the difference of the two records' gradients:
//    (1-q) A + q N(1/z,1) against (1-q) A + q N(0,1), A apart (shared_component_pair.hpp: derived
//    here, no norm bound needed);
//  - released Gaussian events: N(mu_e, 1) against N(0, 1).
// R at the orders is the Rényi divergence of the same composed pairs (so the column is a valid RDP
// bound, the one composition-sgm gives for add/remove); epsilon comes from the profile (conversion
// "pld") and delta at [report] epsilon likewise.
#include "analyses/analysis.hpp"

namespace rdpdyn {

AnalysisResult composition_pld(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
