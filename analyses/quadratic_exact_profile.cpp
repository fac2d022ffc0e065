#include "analyses/quadratic_exact_profile.hpp"

#include <cmath>

#include "accounting/gaussian_dp.hpp"
#include "models/privacy_model.hpp"
#include "models/quadratic_exact.hpp"

namespace rdpdyn {
namespace {

/// The squared loss |theta - x|^2 / 2 is the quadratic loss with H = I, and one dimension carries
/// the whole divergence (the other coordinates of the two runs are equal in law and independent):
/// H = [[1]] from theta_0 = 0 (C21 Thm 3).
RunSpec as_quadratic(const RunSpec& spec) {
  if (spec.algorithm.loss != LossKind::Squared || spec.quadratic) return spec;
  RunSpec q = spec;
  q.algorithm.loss = LossKind::Quadratic;
  q.quadratic = QuadraticLoss{{{1.0}}, std::nullopt, std::nullopt};
  return q;
}

}  // namespace

std::string quadratic_exact_problem(const RunSpec& given) {
  const RunSpec spec = as_quadratic(given);
  if (!spec.quadratic)
    return "needs a quadratic or the squared loss (algorithm.loss): only there are the two laws known";
  if (spec.diameter) return "needs an unconstrained run: the projection onto the domain makes the laws non-Gaussian";
  if (!quadratic_exact_applies(spec))
    return "needs full-batch noisy GD with one phase, identical initial laws, no events and a stated initial law";
  return "";
}

double quadratic_exact_mu(const RunSpec& spec, std::int64_t steps) {
  // w = sup R_alpha / alpha = mu^2 / 2, per eigenvalue of H (the start is a point or s^2 I): the
  // matrix recursion's covariance loses its small eigenvalues to cancellation on wide starts.
  const quadratic::QuadraticProblem problem = quadratic_problem_of(as_quadratic(spec));
  return std::sqrt(2.0 * quadratic::isotropic_worst_case_rdp_slope(problem, steps));
}

AnalysisResult quadratic_exact_profile(const RunSpec& spec, const TrainingRun& run) {
  AnalysisResult r;
  r.name = "exact";
  r.citation =
      "this tool: the two Gaussian last-iterate laws (C21 arXiv:2102.05855 Thm 3 proof, any H), "
      "trade-off G_mu exactly (Dong, Roth & Su 2022, arXiv:1905.02383, Cor 2.13)";
  if (auto why = quadratic_exact_problem(spec); !why.empty()) {
    r.reason = why;
    return r;
  }
  const double mu = quadratic_exact_mu(spec, run.steps);
  r.applies = true;
  r.reason = "worst pair allowed by S_g; mu = Mahalanobis mean gap";
  r.mu = mu;
  for (double a : run.orders) r.R.push_back(gdp_rdp(mu, a));
  return r;
}

}  // namespace rdpdyn
