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

/// "bok-su-altschuler-full-batch": refuses runs outside the theorem (not full batch, lambda = 0,
/// eta >= 2/beta, constants undeclared); sets mu and R = alpha mu^2/2 at the orders.
AnalysisResult bok_su_altschuler_full_batch(const TrainingRun& run);

}  // namespace rdpdyn
