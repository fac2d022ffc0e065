#pragma once
// The closed forms of YS22 (arXiv:2203.05363) as printed, as pure functions. N = n/b batches per
// epoch, K epochs, j0 the batch (0-based position in the epoch) that holds the differing record,
// q = (1 - eta lambda)^2 (squared_lipschitz), w the Lemma 3.2 step cost (gaussian_step_cost).
// "units" = R / (alpha w).
#include <cstdint>
#include <span>

namespace rdpdyn::ye_shokri {

/// eps_0^j / (alpha w) = q^{j-1} / S_j, j >= 1: j steps from a point initialisation, the record in
/// the first. YS22 Thm 3.3, eq. (99) (= (136)); q = 1 gives 1/j, YS22 Thm D.4, eq. (90).
double epoch_start_units(std::int64_t j, double q);

/// YS22 Thm 3.3, eq. (91), divided by alpha w (fixed partition, strongly convex, N >= 2, K >= 1):
/// eps_0^{h} (1 - Q^{K-1}) / (1 - Q) + eps_0^{N - j0}, h = floor(N/2), Q = q^{N - h}.
/// Largest at j0 = N - 1 (eps_0^j decreases in j), where the second term is 1.
double thm33_units(std::int64_t N, std::int64_t K, std::int64_t j0, double q);

/// YS22 Thm D.4, eq. (80), divided by alpha w (fixed partition, convex): (K-1)/N + 1/(N - j0).
double thmD4_units(std::int64_t N, std::int64_t K, std::int64_t j0);

/// p = 1 - 2 eta beta lambda / (beta + lambda): the factor of Balle et al. 2019 Thm 5 as YS22
/// Thm D.5, eq. (111) prints it (eta <= 2/(beta + lambda), so 0 <= p <= 1).
double balle_contraction(double eta, double beta, double lambda);

/// YS22 Thm D.5, eq. (111), divided by alpha w: one epoch, the record in batch j0 of N.
/// 1 for j0 = N - 1; p^{(N - j0)/2} / (N - j0 - 1) for j0 = 0, ..., N - 2.
double d5_epoch_units(std::int64_t N, std::int64_t j0, double p);

/// YS22 App. D.6, the text after eq. (111), divided by alpha w: (111) composed over K epochs.
/// First batch (j0 = 0): K p^{N/2} / (N - 1). Last batch (j0 = N - 1): (K - 1) p^{N/2} / (N - 1) + 1.
double d5_first_batch_units(std::int64_t N, std::int64_t K, double p);
double d5_last_batch_units(std::int64_t N, std::int64_t K, double p);

/// YS22 Lemma 4.1, eq. (133), over a uniformly random batch index (probability b/n each,
/// (139)-(140)): (1/(alpha-1)) log Avg_j0 exp((alpha-1) alpha w units[j0]), for any per-batch
/// bounds `units` (R/(alpha w)).
double mixture_over_batches(double alpha, std::span<const double> units, double w);

/// YS22 Thm 4.2, eq. (135) (a random partition drawn once, strongly convex, N >= 2, K >= 1), at one
/// order: the first term of (91) + (1/(alpha-1)) log Avg_{j0} exp((alpha-1) eps_0^{N-j0}(alpha)),
/// eps_0^j of eq. (136). Computed with expm1/log1p, so it stays accurate for alpha near 1.
/// (q = 1 evaluates the lambda -> 0 limit, which is not printed; the entries do not use it.)
double thm42(double alpha, std::int64_t N, std::int64_t K, double q, double w);

/// YS22 Thm 4.3, eqs. (147)-(150) (b records sampled afresh each step, rate p = b/n): S_0 = 1,
/// S <- p e^{(alpha-1) alpha w} S + (1-p) S^q per step, R = log(S_T) / (alpha - 1). Iterated in
/// log space; q = 1 is summed exactly, and once the iteration settles (at its fixed point, or into
/// its asymptotic growth when p e^{(alpha-1) alpha w} > 1) the rest is replaced by an upper bound
/// on it (relative excess ~1e-13), so long runs cost little.
double thm43(double alpha, std::int64_t steps, double sampling_rate, double q, double w);

/// YS22 Thm D.6, eq. (112) (full batch b = n, eta < 1/beta), divided by alpha w with w the step
/// cost at b = n: (1/gamma) sum_{k=1}^K (1 - (1-gamma) eta lambda)^k. gamma = 1/2 is the printed
/// theorem (the half split (114)-(115)); other gamma are this project's generalisation (a fraction
/// gamma of the noise spent on the gradient; docs/analyses.md, "ye-shokri-d6-optimal-split").
double d6_units(std::int64_t K, double eta_lambda, double gamma);

}  // namespace rdpdyn::ye_shokri
