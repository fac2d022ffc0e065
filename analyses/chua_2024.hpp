#pragma once
// Shuffled batches seen from both sides (docs/analyses.md, "chua-shuffle-lower, poisson-as-if").
//
// "chua-shuffle-lower": the lower bound of Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang,
// "How Private are DP-SGD Implementations?" (ICML 2024, arXiv:2403.17673) for shuffled batches with
// every iterate released, under the run's replace-one relation. A pair of neighbouring datasets of
// linear losses (gradients constant along one direction u): every other record has gradient g_f, the
// differing one g against g'. An epoch's batch sums, noise-normalised, are then t Gaussians, one of
// them (the record's batch, at a uniformly random position) shifted by a = |g - g_f| eta / (b s)
// against c = |g' - g_f| eta / (b s). The largest sum of each epoch (binned:
// accounting/pld/shuffled_batch_max_pair.hpp) is a post-processing, so its pair's profile is below
// the run's on these datasets, hence below the run's privacy:
//  - per-record gradient norms <= S_g/2 (domain.lipschitz_loss, or a DP-SGD noise_multiplier: clipped
//    gradients, C = S_g/2): g_f = -S_g/2 u, g = S_g/2 u, so a =
//    1/z; g' = 0 gives c = a/2 (the paper's pair: the record against a null record), g' = g_f gives
//    c = 0; the larger of the two is reported;
//  - replace without a norm bound: S_g bounds the difference of every two records' gradients (a pair
//    of datasets with other records farther apart would break S_g), so in one dimension the records
//    fit in an interval of length S_g: the same pairs as above up to a data-independent shift of
//    every batch sum (b times the interval's centre). (Until issue 34 this case took the limit of
//    unconstrained other records, the Gaussian composition itself, which no allowed pair reaches.)
//  - zero-out (S_g = C bounds each gradient, the neighbour is the null record): others at -C give
//    a = 2/z against c = 1/z (the paper's pair), others at 0 give 1/z against 0; the larger is
//    reported; with lipschitz_loss (norms <= S_g/2) the shifts are halved.
// Epochs: `shuffle` draws a new order each epoch, so the E whole epochs' pairs compose (Chua et al.
// 2024b, arXiv:2411.04205, dynamic shuffling); `shuffle-once` keeps the order, and the sums of each
// position over the E epochs are sufficient: one epoch with shifts sqrt(E) a and sqrt(E) c
// (persistent shuffling). A partial last epoch is left out (a post-processing again).
// epsilon and delta are the PLD accountant's certified LOWER estimates of the composed pairs; R is the
// pairs' Rényi divergence, rounded down.
//
// "poisson-as-if": the same run accounted as if its batches were Poisson-sampled with q = b/n (what
// opacus and dp_accounting report for it): composition-pld of that run. Not a bound for shuffled or
// fixed-size batches (a heuristic): compare shows it beside the two above.
#include "analyses/analysis.hpp"

namespace rdpdyn {

AnalysisResult chua_shuffle_lower(const RunSpec& spec, const TrainingRun& run);
AnalysisResult poisson_as_if(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
