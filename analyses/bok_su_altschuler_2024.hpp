#pragma once
// Shifted interpolation (Bok, Su & Altschuler, "Shifted Interpolation for Differential Privacy",
// ICML 2024, arXiv:2403.00278): Gaussian-DP bounds on the last iterate of noisy GD by privacy
// amplification by iteration in the f-DP framework (docs/analyses.md, "Gaussian-DP entries").
//
// NoisyGD, full batch, m-strongly convex and M-smooth losses, eta < 2/M (Sec. 4, NoisyGD, strongly
// convex case): the gradient map is c-contractive with c = max(|1 - eta m|, |1 - eta M|) < 1, and T
// steps from a shared start are mu-GDP with
//   mu(T) = mu_1 sqrt((1 + c)/(1 - c) * (1 - c^T)/(1 + c^T)),
// mu_1 the GDP parameter of one step: the update's shift over the noise std. The paper states it
// for L-Lipschitz losses, noise eta N(0, sigma^2 I), replace adjacency: mu_1 = 2L/(n sigma). Its
// proof uses L only through the bound 2L on a record's gradient difference, which is S_g here; in
// C21 units mu_1 = sqrt(eta/2) S_g / (n sigma) (models/noise_units.hpp, one_step_gdp_mu).
//
// On the squared loss with eta m <= 1 and eta (m + M) <= 2 this is the exact GDP parameter of the
// two Gaussian iterate laws (tests/analyses/test_gaussian_dp_entries.cpp): with q = 1 - eta h,
// mean gap (eta S_g/n)(1 - q^T)/(1 - q) and variance 2 eta sigma^2 (1 - q^(2T))/(1 - q^2) give mu^2 =
// mu_1^2 (1 + q)(1 - q^T)/((1 - q)(1 + q^T)), increasing in q, largest at h = m.
//
// NoisyCGD (Sec. 4, cyclic batches, strongly convex; Thm 4.5 as cited by third parties, see
// docs/analyses.md): l = n/b disjoint batches of size b taken in a fixed cyclic order for E epochs
// (T = E l steps), same c and step condition:
//   mu(E) = mu_1 sqrt(1 + c^(2l-2) (1 - c^2)/(1 - c^l)^2 * (1 - c^(l(E-1)))/(1 + c^(l(E-1)))),
// mu_1 the one-step parameter of a batch of size b. The "1" is the record's last use, worst when the
// record sits in the last batch (no contraction after it); the second term is the shifted-away gap
// of its E - 1 earlier uses. A DP bound holds for every neighbouring pair, so for every position.
// Read from the authors' reproduction scripts (github.com/jinhobok/shifted_interpolation_dp,
// plot_table_ncgd_fdp.py, table_privacy_lr.py); the paper's text could not be read here.
#include <cstdint>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// (1 + c)/(1 - c) * (1 - c^T)/(1 + c^T) for c in [0, 1), computed from one_minus_c = 1 - c (so that
/// c close to 1 loses nothing); T >= 0. Tends to T as c -> 1 (GDP composition).
double shifted_interpolation_factor(double one_minus_c, std::int64_t steps);

/// mu(T) of the full-batch bound above.
double shifted_interpolation_full_batch_mu(double mu_1, double one_minus_c, std::int64_t steps);

/// 1 - c, c = max(|1 - eta m|, |1 - eta M|) for 0 < m <= M: min(eta m, 2 - eta M) (<= 0: no
/// contraction), rounded down: mu falls as 1 - c grows, and 2 - eta M cancels near eta M = 2.
double gradient_map_one_minus_contraction(double eta, double m, double M);

/// 1 + c^(2l-2) (1 - c^2)/(1 - c^l)^2 (1 - c^(l(E-1)))/(1 + c^(l(E-1))): mu(E)^2 / mu_1^2 of the
/// cyclic bound, from one_minus_c = 1 - c in (0, 1] (c^k by expm1/log1p, no cancellation near c = 1);
/// l >= 1 batches, E >= 0 epochs (0 for E = 0: no step). Tends to 1 + (E-1)/l as c -> 1; E = 1
/// gives 1 (one use, at the last step); l = 1 gives 1 + (full-batch factor of E - 1 steps).
double shifted_interpolation_cyclic_factor(double one_minus_c, std::int64_t batches, std::int64_t epochs);

/// mu(E) of the cyclic bound above.
double shifted_interpolation_cyclic_mu(double mu_1, double one_minus_c, std::int64_t batches, std::int64_t epochs);

/// "bok-su-altschuler-full-batch": refuses runs outside the theorem (not full batch, lambda = 0,
/// eta >= 2/beta, constants undeclared); sets mu and R = alpha mu^2/2 at the orders.
AnalysisResult bok_su_altschuler_full_batch(const TrainingRun& run);

/// "bok-su-altschuler-cyclic": sampling = partition (a fixed partition cycled in order) or
/// shuffle-once (a partition drawn once and cycled: given the draw a fixed partition; f-DP is kept
/// under mixtures, so the bound holds for the random draw too), or shuffle for a single epoch (then
/// one random partition); b | n; whole epochs; refuses shuffle over several epochs (the record
/// changes position), per-step and poisson (the paper's NoisySGD, not implemented; see noisysgd-window), full batch,
/// lambda = 0, eta >= 2/beta, add-remove adjacency (a fixed-size batch refills the removed record's
/// slot); sets mu and R = alpha mu^2/2.
AnalysisResult bok_su_altschuler_cyclic(const TrainingRun& run);

}  // namespace rdpdyn
