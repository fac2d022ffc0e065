#pragma once
// "exact": the exact privacy of a run whose two last-iterate laws this tool knows. For noisy GD on a
// quadratic loss (models/quadratic_exact.hpp) they are Gaussians with equal covariance S and mean
// gap m; whitening by S^{-1/2} and a rotation turn the pair into N(mu e_1, I) and N(0, I), so the
// trade-off function of the pair is exactly G_mu with mu = sqrt(m^T S^{-1} m), the Mahalanobis gap
// (Dong, Roth & Su 2022, arXiv:1905.02383, Def. 2.6 of G_mu). The worst pair allowed by S_g gives
// mu = S_g sqrt(lambda_max(M^T S^{-1} M)) = sqrt(2 w), w the worst Rényi slope R_alpha / alpha, and
// since delta(epsilon) of G_mu grows with mu (DRS Cor 2.13) its profile is the run's exact
// (epsilon, delta) curve: the smallest epsilon any valid analysis may report, and its R = alpha w
// the smallest R (docs/analyses.md, "Gaussian-DP entries").
#include <cstdint>
#include <string>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// Why the exact laws are not known for this run ("" when they are): a quadratic loss (or the
/// squared loss, H = I in one dimension, from theta_0 = 0), full-batch
/// noisy GD, one phase, identical initial laws, no events, no projection (models/privacy_model.hpp,
/// quadratic_exact_applies).
std::string quadratic_exact_problem(const RunSpec& spec);

/// The exact GDP parameter of the worst pair after the run's steps, unrounded (for tests and the
/// entry below).
double quadratic_exact_mu(const RunSpec& spec, std::int64_t steps);

/// "exact": mu and R = alpha mu^2 / 2 (the exact worst-pair divergence) at the orders.
AnalysisResult quadratic_exact_profile(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
