#include "analyses/ye_shokri_2022/published_entries.hpp"

#include <cstdint>
#include <string>
#include <utility>

#include "analyses/ye_shokri_2022/assumptions.hpp"
#include "analyses/ye_shokri_2022/detail.hpp"
#include "analyses/ye_shokri_2022/theorems.hpp"
#include "analyses/ye_shokri_2022/units_and_lsi.hpp"

namespace rdpdyn::ye_shokri {

using detail::fmt;
using detail::refuse;

namespace {

double step_cost(const TrainingRun& run, double batch) {
  return gaussian_step_cost(run.eta, run.sigma, run.sensitivity, batch);
}

}  // namespace

AnalysisResult thm3_3(const TrainingRun& run) {
  const bool sc = run.lambda > 0.0;
  AnalysisResult r;
  r.name = "ye-shokri-thm3.3";
  r.citation = sc ? "Ye & Shokri 2022 (arXiv:2203.05363) Thm 3.3, eq. (91), worst batch j0 = n/b - 1; eps_0^j of "
                    "eq. (99) with Lemma D.3, eq. (76)"
                  : "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.4, eq. (80) (convex, lambda = 0), worst batch "
                    "j0 = n/b - 1; Lemma D.2, eq. (71)";
  if (auto v = fixed_partition_setting_violation(run)) return refuse(r, *v);
  if (auto v = whole_epochs_violation(run, sc ? "Thm 3.3" : "Thm D.4", "ye-shokri-thm3.3-shifted"))
    return refuse(r, *v);

  const std::int64_t N = run.batches_per_epoch();
  const std::int64_t K = run.steps / N;
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double w = step_cost(run, static_cast<double>(run.batch_size));
  // eps_0^j of YS22 eq. (99) decreases in j, so YS22 eq. (91) and eq. (80) are largest for the record
  // in the last batch.
  const double units = sc ? thm33_units(N, K, N - 1, q) : thmD4_units(N, K, N - 1);
  for (double a : run.orders) r.R.push_back(a * w * units);
  r.applies = true;
  r.reason = "K = " + std::to_string(K) + " epoch(s) of n/b = " + std::to_string(N) + " batches; " +
             (sc ? "Thm 3.3 (91)" : "Thm D.4 (80)") + " at the worst batch j0 = " + std::to_string(N - 1) +
             ": R/alpha = " + fmt(w * units);
  return r;
}

AnalysisResult thm4_2(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-thm4.2";
  r.citation = "Ye & Shokri 2022 (arXiv:2203.05363) Thm 4.2, eq. (135), eps_0^j of eq. (136)";
  if (auto v = random_partition_setting_violation(run)) return refuse(r, *v);
  if (!(run.lambda > 0.0))
    return refuse(r, "needs lambda > 0 (Thm 4.2 is stated for lambda-strongly convex losses, Lemma D.3); lambda = " +
                         fmt(run.lambda) + "; see ye-shokri-thm4.2-mixture");
  const std::int64_t N = run.batches_per_epoch();
  const std::int64_t K = run.steps / N;
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double w = step_cost(run, static_cast<double>(run.batch_size));
  for (double a : run.orders) r.R.push_back(thm42(a, N, K, q, w));
  r.applies = true;
  r.reason = "K = " + std::to_string(K) + " epoch(s) of n/b = " + std::to_string(N) + " batches; eq. (135)";
  return r;
}

AnalysisResult thm4_3(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-thm4.3";
  r.citation = "Ye & Shokri 2022 (arXiv:2203.05363) Thm 4.3, eqs. (147)-(150)";
  if (auto v = common_violation(run)) return refuse(r, *v);
  if (run.sampling != BatchSampling::PerStep)
    return refuse(r,
                  "needs sampling = per-step (b records drawn afresh each step, P(i0 in B) = b/n, Thm 4.3); "
                  "the run uses " +
                      std::string(batch_sampling_name(run.sampling)));
  if (auto v = gradient_step_size_violation(run.eta, run.lambda, run.beta)) return refuse(r, *v);
  const double q = squared_lipschitz(run.eta, run.lambda);
  const double p = static_cast<double>(run.batch_size) / run.n;
  const double w = step_cost(run, static_cast<double>(run.batch_size));
  for (double a : run.orders) r.R.push_back(thm43(a, run.steps, p, q, w));
  r.applies = true;
  r.amplified_by_sampling = p < 1.0;
  r.reason = "exponentiated recursion over " + std::to_string(run.steps) + " steps, sampling rate b/n = " + fmt(p) +
             ", exponent (1 - eta lambda)^2 = " + fmt(q);
  return r;
}

namespace {

/// YS22 Thm D.5 at the first (j0 = 0) or the last (j0 = n/b - 1) batch.
AnalysisResult d5(const TrainingRun& run, bool last) {
  AnalysisResult r;
  r.name = last ? "ye-shokri-d5-last-batch" : "ye-shokri-d5-first-batch";
  r.citation = std::string(
                   "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.5, eq. (111) (their ref. [5], Balle, "
                   "Barthe, Gaboardi & Geumlek 2019, Thm 5), composed over epochs (App. D.6), ") +
               (last ? "last batch j0 = n/b - 1" : "first batch j0 = 0");
  if (auto v = common_violation(run)) return refuse(r, *v);
  if (run.sampling != BatchSampling::Partition && run.sampling != BatchSampling::ShuffleOnce)
    return refuse(r, std::string("needs sampling = partition or shuffle-once (Thm D.5 conditions on a fixed sequence "
                                 "of partitioned mini-batches); the run uses ") +
                         batch_sampling_name(run.sampling));
  if (auto v = partition_violation(run, "Thm D.5")) return refuse(r, *v);
  if (auto v = whole_epochs_violation(run, "Thm D.5", "")) return refuse(r, *v);
  if (!(run.lambda > 0.0))
    return refuse(
        r, "needs lambda > 0 (Thm D.5 is stated for lambda-strongly convex losses); lambda = " + fmt(run.lambda));
  if (!(run.eta <= 2.0 / (run.beta + run.lambda)))
    return refuse(r, "needs eta <= 2/(beta + lambda) = " + fmt(2.0 / (run.beta + run.lambda)) +
                         " (Thm D.5); eta = " + fmt(run.eta));
  const std::int64_t N = run.batches_per_epoch();
  const std::int64_t K = run.steps / N;
  const double p = balle_contraction(run.eta, run.beta, run.lambda);
  const double w = step_cost(run, static_cast<double>(run.batch_size));
  const double units = last ? d5_last_batch_units(N, K, p) : d5_first_batch_units(N, K, p);
  for (double a : run.orders) r.R.push_back(a * w * units);
  r.applies = true;
  r.reason = "K = " + std::to_string(K) + " epoch(s) of n/b = " + std::to_string(N) + " batches, p = " + fmt(p) +
             ": R/alpha = " + fmt(w * units) + (last ? "" : "; holds only for the records of the first batch");
  return r;
}

}  // namespace

AnalysisResult d5_last_batch(const TrainingRun& run) { return d5(run, true); }
AnalysisResult d5_first_batch(const TrainingRun& run) { return d5(run, false); }

AnalysisResult d6(const TrainingRun& run) {
  AnalysisResult r;
  r.name = "ye-shokri-d6";
  r.citation = "Ye & Shokri 2022 (arXiv:2203.05363) Thm D.6, eq. (112)";
  if (auto v = full_batch_setting_violation(run)) return refuse(r, *v);
  if (!(run.lambda > 0.0))
    return refuse(r, "needs lambda > 0 (Thm D.6 is stated for lambda-strongly convex losses); lambda = " +
                         fmt(run.lambda) + "; see ye-shokri-d6-optimal-split");
  // YS22 Thm D.6, eq. (112): alpha eta S_g^2 / (2 sigma^2 n^2) sum_{k=1}^K (1 - eta lambda/2)^k
  // = alpha w_n d6_units(K, eta lambda, 1/2), w_n the step cost at b = n.
  const double w = step_cost(run, run.n);
  const double units = d6_units(run.steps, run.eta * run.lambda, 0.5);
  for (double a : run.orders) r.R.push_back(a * w * units);
  r.applies = true;
  r.reason = "K = " + std::to_string(run.steps) +
             " full-batch steps, noise split in half (114)-(115): R/alpha = " + fmt(w * units);
  return r;
}

}  // namespace rdpdyn::ye_shokri
