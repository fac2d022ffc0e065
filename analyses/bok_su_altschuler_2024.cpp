#include "analyses/bok_su_altschuler_2024.hpp"

#include <algorithm>
#include <cmath>

#include "accounting/gaussian_dp.hpp"
#include "analyses/composition.hpp"
#include "models/noise_units.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {

double shifted_interpolation_factor(double one_minus_c, std::int64_t steps) {
  if (steps <= 0) return 0.0;
  const double T = static_cast<double>(steps);
  if (one_minus_c >= 1.0) return 1.0;  // c = 0: one step's worth, whatever T
  // c^T = exp(T log1p(-(1 - c))); 1 - c^T by expm1: no cancellation for c near 1.
  const double log_c = std::log1p(-one_minus_c);
  const double one_minus_cT = -std::expm1(T * log_c);
  const double one_plus_cT = 1.0 + std::exp(T * log_c);
  return (2.0 - one_minus_c) / one_minus_c * one_minus_cT / one_plus_cT;
}

double shifted_interpolation_full_batch_mu(double mu_1, double one_minus_c, std::int64_t steps) {
  return mu_1 * std::sqrt(shifted_interpolation_factor(one_minus_c, steps));
}

double gradient_map_one_minus_contraction(double eta, double m, double M) {
  // Each candidate rounded to nearest once (fma: 2 - eta M with one rounding, no cancellation
  // error), then one ulp down, so the result never exceeds the exact 1 - c.
  const double strong = std::nextafter(eta * m, 0.0);
  const double smooth = std::nextafter(std::fma(-eta, M, 2.0), 0.0);
  return std::min(strong, smooth);
}

AnalysisResult bok_su_altschuler_full_batch(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "bok-su-altschuler-full-batch";
  r.citation = "Bok, Su & Altschuler 2024 (arXiv:2403.00278) Sec. 4, NoisyGD, strongly convex: "
               "mu_1 sqrt((1+c)/(1-c) (1-c^T)/(1+c^T))";
  auto refuse = [&](std::string why) {
    r.reason = std::move(why);
    return r;
  };
  if (run.sampling != BatchSampling::FullBatch)
    return refuse(std::string("stated for full-batch noisy GD; the run samples batches (") +
                  batch_sampling_name(run.sampling) + ")");
  if (auto why = training_run_problem(run)) return refuse(*why);
  if (auto why = undeclared(run, {RunConstant::Smoothness})) return refuse(*why);
  if (!(run.lambda > 0.0)) return refuse("needs an m-strongly convex loss (lambda > 0); lambda = " + format_number(run.lambda));
  if (!(run.beta >= run.lambda)) return refuse("needs the smoothness beta >= lambda; beta = " + format_number(run.beta));
  const double one_minus_c = gradient_map_one_minus_contraction(run.eta, run.lambda, run.beta);
  if (!(one_minus_c > 0.0))
    return refuse("needs a contractive gradient map, eta < 2/beta; eta beta = " + format_number(run.eta * run.beta));
  const double mu_1 = noise_units::one_step_gdp_mu(run.sigma, run.eta, run.sensitivity, run.n);
  const double mu = shifted_interpolation_full_batch_mu(mu_1, one_minus_c, run.steps);
  r.applies = true;
  r.reason = "c = " + format_number(1.0 - one_minus_c) + ", mu_1 = " + format_number(mu_1);
  if (run.adjacency == Adjacency::AddRemove)  // the convention of composition-gaussian
    r.reason += "; add-remove with full batch: assumes the update divides the gradient sum by the same n on "
                "both datasets (a mean over each dataset's own size moves by up to 2 eta S_g / n: describe "
                "that with replace adjacency and S_g doubled; docs/analyses.md section 2)";
  r.mu = mu;
  for (double a : run.orders) r.R.push_back(gdp_rdp(mu, a));
  return r;
}

}  // namespace rdpdyn
