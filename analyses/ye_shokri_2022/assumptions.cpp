#include "analyses/ye_shokri_2022/assumptions.hpp"

#include <cmath>
#include <cstdint>

#include "analyses/ye_shokri_2022/detail.hpp"

namespace rdpdyn::ye_shokri {

using detail::fmt;

std::optional<std::string> common_violation(const TrainingRun& run) {
  if (run.orders.empty()) return std::string("needs at least one Renyi order; the run lists none");
  for (double a : run.orders)
    if (!(a > 1.0) || !std::isfinite(a))
      return "needs finite Renyi orders alpha > 1 (Def. B.2, eq. (15)); the run lists alpha = " + fmt(a);
  if (run.adjacency != Adjacency::Replace)
    return std::string(
               "needs adjacency = replace (neighbouring datasets of the same size, as in YS22); "
               "the run uses ") +
           adjacency_name(run.adjacency);
  if (!(run.n >= 1.0) || run.n != std::floor(run.n) || run.n > 9.0e15)
    return "needs an integer dataset size n >= 1; n = " + fmt(run.n);
  if (run.batch_size < 1 || static_cast<double>(run.batch_size) > run.n)
    return "needs 1 <= b <= n; b = " + std::to_string(run.batch_size) + ", n = " + fmt(run.n);
  if (run.steps < 1) return "needs steps >= 1 (K >= 1); steps = " + std::to_string(run.steps);
  if (auto m = undeclared(run, {RunConstant::StepSize, RunConstant::Sensitivity, RunConstant::Smoothness})) return m;
  if (!(run.eta > 0.0) || !std::isfinite(run.eta)) return "needs a step size eta > 0; eta = " + fmt(run.eta);
  if (!(run.sigma > 0.0) || !std::isfinite(run.sigma)) return "needs noise sigma > 0; sigma = " + fmt(run.sigma);
  if (!(run.sensitivity >= 0.0) || !std::isfinite(run.sensitivity))
    return "needs a finite gradient sensitivity S_g >= 0; S_g = " + fmt(run.sensitivity);
  if (!(run.beta > 0.0) || !std::isfinite(run.beta))
    return "needs the smoothness beta > 0 (every step-size condition of Lemmas D.2/D.3 uses it); beta = " +
           fmt(run.beta) + (run.beta == 0.0 ? " (unknown)" : "");
  if (auto why = convexity_refusal(run, "YS22's contraction, Lemmas D.2/D.3")) return why;
  if (!(run.lambda >= 0.0)) return "needs strong convexity lambda >= 0; lambda = " + fmt(run.lambda);
  if (run.lambda > run.beta)
    return "needs lambda <= beta (a lambda-strongly convex loss is at best lambda-smooth); lambda = " +
           fmt(run.lambda) + ", beta = " + fmt(run.beta);
  return std::nullopt;
}

std::optional<std::string> partition_violation(const TrainingRun& run, const char* theorem) {
  const auto n = static_cast<std::int64_t>(run.n);
  if (n % run.batch_size != 0)
    return "needs b dividing n (n/b batches per epoch, Algorithm 1); n = " + fmt(run.n) +
           ", b = " + std::to_string(run.batch_size);
  if (n / run.batch_size < 2)
    return std::string("needs n/b >= 2 (") + theorem + "); n/b = 1 (full batch: see ye-shokri-d6)";
  return std::nullopt;
}

std::optional<std::string> whole_epochs_violation(const TrainingRun& run, const char* theorem,
                                                  const char* alternative) {
  const std::int64_t N = run.batches_per_epoch();
  if (run.steps % N == 0) return std::nullopt;
  std::string why = std::string("needs whole epochs (") + theorem + ", K >= 1): steps = " + std::to_string(run.steps) +
                    " is not a multiple of n/b = " + std::to_string(N);
  if (*alternative != '\0') why += std::string("; see ") + alternative;
  return why;
}

std::optional<std::string> gradient_step_size_violation(double eta, double lambda, double beta) {
  const double bound = 2.0 / (lambda + beta);
  if (eta < bound) return std::nullopt;
  if (lambda > 0.0)
    return "needs eta < 2/(lambda+beta) = " + fmt(bound) +
           " (Lemma D.3; Thm 4.2's printed lambda+eta read as lambda+beta); eta = " + fmt(eta);
  return "needs eta < 2/beta = " + fmt(bound) + " (Lemma D.2, convex); eta = " + fmt(eta);
}

std::optional<std::string> full_batch_step_size_violation(double eta, double beta) {
  const double bound = 1.0 / beta;
  if (eta < bound) return std::nullopt;
  return "needs eta < 1/beta = " + fmt(bound) + " (Thm D.6); eta = " + fmt(eta);
}

std::optional<std::string> fixed_partition_setting_violation(const TrainingRun& run) {
  if (auto v = common_violation(run)) return v;
  if (run.sampling != BatchSampling::Partition && run.sampling != BatchSampling::ShuffleOnce)
    return std::string(
               "needs sampling = partition or shuffle-once (Thm 3.3/D.4 condition on a fixed partition); "
               "the run uses ") +
           batch_sampling_name(run.sampling);
  if (auto v = partition_violation(run, run.lambda > 0.0 ? "Thm 3.3" : "Thm D.4")) return v;
  return gradient_step_size_violation(run.eta, run.lambda, run.beta);
}

std::optional<std::string> random_partition_setting_violation(const TrainingRun& run) {
  if (auto v = common_violation(run)) return v;
  if (run.sampling != BatchSampling::ShuffleOnce && run.sampling != BatchSampling::Shuffle)
    return std::string(
               "needs sampling = shuffle-once (a random partition drawn once, Thm 4.2; or shuffle for a "
               "single epoch); the run uses ") +
           batch_sampling_name(run.sampling);
  if (auto v = partition_violation(run, "Thm 4.2")) return v;
  if (auto v = gradient_step_size_violation(run.eta, run.lambda, run.beta)) return v;
  if (auto v = whole_epochs_violation(run, "Thm 4.2", "")) return v;
  const std::int64_t K = run.steps / run.batches_per_epoch();
  if (K > 1 && run.sampling == BatchSampling::Shuffle)
    return "needs one random partition for the whole run (Thm 4.2 averages over the partition drawn once in "
           "Algorithm 1 line 3, proof (137)-(140)); the run's shuffle draws a fresh partition in each of its K = " +
           std::to_string(K) + " epochs";
  return std::nullopt;
}

std::optional<std::string> full_batch_setting_violation(const TrainingRun& run) {
  if (auto v = common_violation(run)) return v;
  if (static_cast<double>(run.batch_size) != run.n)
    return "needs full batch b = n (Thm D.6); b = " + std::to_string(run.batch_size) + ", n = " + fmt(run.n);
  return full_batch_step_size_violation(run.eta, run.beta);
}

}  // namespace rdpdyn::ye_shokri
