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

double shifted_interpolation_cyclic_factor(double one_minus_c, std::int64_t batches, std::int64_t epochs) {
  if (epochs <= 0 || batches <= 0) return 0.0;
  if (epochs == 1) return 1.0;  // one use of the record, at the last step: mu_1
  const double l = static_cast<double>(batches);
  const double k = l * static_cast<double>(epochs - 1);     // l (E - 1)
  if (one_minus_c >= 1.0) return batches == 1 ? 2.0 : 1.0;  // c = 0: c^(2l-2) is 1 only for l = 1
  const double log_c = std::log1p(-one_minus_c);
  const double c_2l_2 = std::exp((2.0 * l - 2.0) * log_c);                    // c^(2l-2)
  const double one_minus_c2 = one_minus_c * (2.0 - one_minus_c);              // 1 - c^2
  const double one_minus_cl = -std::expm1(l * log_c);                         // 1 - c^l
  const double ratio = -std::expm1(k * log_c) / (1.0 + std::exp(k * log_c));  // (1 - c^k)/(1 + c^k)
  return 1.0 + c_2l_2 * one_minus_c2 / (one_minus_cl * one_minus_cl) * ratio;
}

double shifted_interpolation_cyclic_mu(double mu_1, double one_minus_c, std::int64_t batches, std::int64_t epochs) {
  return mu_1 * std::sqrt(shifted_interpolation_cyclic_factor(one_minus_c, batches, epochs));
}

AnalysisResult bok_su_altschuler_full_batch(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "bok-su-altschuler-full-batch";
  r.citation =
      "Bok, Su & Altschuler 2024 (arXiv:2403.00278) Sec. 4, NoisyGD, strongly convex: "
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
  if (auto why = convexity_refusal(run, "the contraction of shifted interpolation")) return refuse(*why);
  if (!(run.lambda > 0.0))
    return refuse("needs an m-strongly convex loss (lambda > 0); lambda = " + format_number(run.lambda));
  if (!(run.beta >= run.lambda))
    return refuse("needs the smoothness beta >= lambda; beta = " + format_number(run.beta));
  const double one_minus_c = gradient_map_one_minus_contraction(run.eta, run.lambda, run.beta);
  if (!(one_minus_c > 0.0))
    return refuse("needs a contractive gradient map, eta < 2/beta; eta beta = " + format_number(run.eta * run.beta));
  const double mu_1 = noise_units::one_step_gdp_mu(run.sigma, run.eta, run.sensitivity, run.n);
  const double mu = shifted_interpolation_full_batch_mu(mu_1, one_minus_c, run.steps);
  r.applies = true;
  r.reason = "c = " + format_number(1.0 - one_minus_c) + ", mu_1 = " + format_number(mu_1);
  if (run.adjacency == Adjacency::AddRemove)  // the convention of composition-gaussian
    r.reason +=
        "; add-remove with full batch: assumes the update divides the gradient sum by the same n on "
        "both datasets (a mean over each dataset's own size moves by up to 2 eta S_g / n: describe "
        "that with replace adjacency and S_g doubled; docs/analyses.md section 2)";
  r.mu = mu;
  for (double a : run.orders) r.R.push_back(gdp_rdp(mu, a));
  return r;
}

AnalysisResult bok_su_altschuler_cyclic(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "bok-su-altschuler-cyclic";
  r.citation =
      "Bok, Su & Altschuler 2024 (arXiv:2403.00278) Sec. 4, NoisyCGD, strongly convex (Thm 4.5 in the "
      "numbering cited by third parties; formula of the authors' scripts): mu_1 sqrt(1 + c^(2l-2) "
      "(1-c^2)/(1-c^l)^2 (1-c^(l(E-1)))/(1+c^(l(E-1))))";
  auto refuse = [&](std::string why) {
    r.reason = std::move(why);
    return r;
  };
  switch (run.sampling) {
    case BatchSampling::Partition:
    case BatchSampling::ShuffleOnce:
    case BatchSampling::Shuffle:
      break;  // shuffle: one epoch only, checked below
    case BatchSampling::FullBatch:
      return refuse(
          "stated for cyclic mini-batches (NoisyCGD); the run is full batch: see bok-su-altschuler-full-batch");
    case BatchSampling::PerStep:
    case BatchSampling::Poisson:
      return refuse(std::string("stated for batches taken in a fixed cyclic order (NoisyCGD); the run samples a "
                                "fresh batch each step (") +
                    batch_sampling_name(run.sampling) +
                    "): that is the paper's NoisySGD theorem, not implemented here (docs/analyses.md section 3.6); "
                    "noisysgd-window bounds such runs");
  }
  if (auto why = training_run_problem(run)) return refuse(*why);
  const std::int64_t l = run.batches_per_epoch();
  if (static_cast<double>(l) * static_cast<double>(run.batch_size) != run.n)
    return refuse("needs b | n (l = n/b disjoint batches of size b); n = " + format_number(run.n) +
                  ", b = " + std::to_string(run.batch_size));
  if (run.steps % l != 0)
    return refuse("needs whole epochs (the theorem counts E epochs of l = n/b steps): steps = " +
                  std::to_string(run.steps) + " is not a multiple of l = " + std::to_string(l));
  const std::int64_t E = run.steps / l;
  if (run.sampling == BatchSampling::Shuffle && E > 1)
    return refuse(
        "needs one order of the batches for the whole run (partition or shuffle-once); the run's shuffle "
        "draws a fresh partition in each of its E = " +
        std::to_string(E) + " epochs, moving the record between positions");
  if (run.adjacency == Adjacency::AddRemove)
    return refuse(
        "adjacency = add-remove with fixed-size batches: the removed record's batch slot is refilled by "
        "another record, so a step moves by up to 2 eta S_g / b, not eta S_g / b; describe the run with "
        "replace adjacency (the paper's) and S_g doubled");
  if (auto why = convexity_refusal(run, "the contraction of shifted interpolation")) return refuse(*why);
  if (!(run.lambda > 0.0))
    return refuse("needs an m-strongly convex loss (lambda > 0); lambda = " + format_number(run.lambda));
  if (!(run.beta >= run.lambda))
    return refuse("needs the smoothness beta >= lambda; beta = " + format_number(run.beta));
  const double one_minus_c = gradient_map_one_minus_contraction(run.eta, run.lambda, run.beta);
  if (!(one_minus_c > 0.0))
    return refuse("needs a contractive gradient map, eta < 2/beta; eta beta = " + format_number(run.eta * run.beta));
  const double b = static_cast<double>(run.batch_size);
  const double mu_1 = noise_units::one_step_gdp_mu(run.sigma, run.eta, run.sensitivity, b);
  const double mu = shifted_interpolation_cyclic_mu(mu_1, one_minus_c, l, E);
  r.applies = true;
  r.reason = "E = " + std::to_string(E) + " epoch(s) of l = " + std::to_string(l) +
             " batches, c = " + format_number(1.0 - one_minus_c) + ", mu_1 = " + format_number(mu_1) +
             " (batch of b = " + std::to_string(run.batch_size) + "); worst position (the record in the last batch)";
  if (run.sampling == BatchSampling::ShuffleOnce || run.sampling == BatchSampling::Shuffle)
    r.reason += "; the partition drawn at random: the bound holds for every draw, hence for the mixture";
  r.mu = mu;
  for (double a : run.orders) r.R.push_back(gdp_rdp(mu, a));
  return r;
}

}  // namespace rdpdyn
