#pragma once
// "ganesh-group-pld": users of several records under Poisson sampling, the tight way (docs/analyses.md,
// "Users: group privacy"). Ganesh, "Tight Group-Level DP Guarantees for DP-SGD with Sampling via
// Mixture of Gaussians Mechanisms" (arXiv:2401.10294): when each of a user's k records is in a step's
// batch independently with probability q, the step is dominated, per direction, by the mixture
//   remove:  sum_{j=0..k} Bin(j; k, q) N(j/z, 1)  against  N(0, 1),   add: the reverse,
// (the user's sampled records' clipped gradients aligned: j of them move the sum by j clips). The
// paper's statement could not be read here (the stored copies end after the abstract); the pair is the
// one tensorflow/privacy's user-level statement (compute_dp_sgd_privacy_lib.py, commit 99c25e3) builds
// with dp_accounting's MixtureOfGaussiansDpEvent, and reduces to composition-pld's pair at k = 1.
// Composed phase by phase (each with its q and z) with released Gaussian events at k times their
// sensitivity, by the certified PLD accountant (accounting/pld/). R at the orders is composition-sgm's
// made user-level (Mironov 2017 Prop. 2, analyses/group_privacy.hpp): an upper bound, not the pair's.
#include "analyses/analysis.hpp"

namespace rdpdyn {

AnalysisResult ganesh_group_pld(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
