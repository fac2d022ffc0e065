#include "analyses/chourasia_2021.hpp"

#include <functional>

#include "models/spec_error.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"

namespace rdpdyn {
namespace {

AnalysisResult refused(std::string name, std::string citation, std::string reason) {
  return {std::move(name), std::move(citation), false, std::move(reason), {}};
}

AnalysisResult per_order(std::string name, std::string citation, const TrainingRun& run,
                         const std::function<double(double)>& f, std::string note = "") {
  AnalysisResult r{std::move(name), std::move(citation), true, std::move(note), {}};
  for (double alpha : run.orders) r.R.push_back(f(alpha));
  return r;
}

}  // namespace

std::string chourasia_common_failure(const RunSpec& spec, const TrainingRun& run) {
  if (run.sampling != BatchSampling::FullBatch)
    return "needs full-batch noisy GD (b = n); the run uses batch_size = " + std::to_string(run.batch_size);
  if (spec.algorithm.phases.size() != 1)
    return "needs one step size and one noise level; the run has " + std::to_string(spec.algorithm.phases.size()) +
           " schedule phases";
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) return "needs identical initial laws (R_0 = 0)";
  if (!spec.events.empty()) return "needs a run without boundary events";
  return "";
}

AnalysisResult chourasia_thm2(const RunSpec& spec, const TrainingRun& run) {
  const char* cite = "C21 Thm 2 (gamma = 1/2)";
  if (auto why = chourasia_common_failure(spec, run); !why.empty()) return refused("chourasia-thm2", cite, why);
  double c = 0.0;
  switch (spec.lsi.kind) {
    case LsiKind::Constant: c = spec.lsi.c; break;
    case LsiKind::StronglyConvex: c = spec.lsi.lambda / (2.0 * run.sigma * run.sigma); break;  // C21 Lemma 5
    case LsiKind::SquaredLoss: c = (2.0 - run.eta) / (2.0 * run.sigma * run.sigma); break;     // C21 Cor 2 proof
    default:
      return refused("chourasia-thm2", cite,
                     "needs a constant LSI constant throughout (lsi.kind constant, strongly-convex or "
                     "squared-loss); lsi.kind gives a varying schedule");
  }
  return per_order("chourasia-thm2", cite, run, [&](double a) {
    return closed_forms::thm2(a, run.sensitivity, run.n, run.sigma, c, 0.5, run.eta * static_cast<double>(run.steps));
  }, "c = " + format_number(c));
}

AnalysisResult chourasia_cor1(const RunSpec& spec, const TrainingRun& run) {
  const char* cite = "C21 Cor 1";
  if (auto why = chourasia_common_failure(spec, run); !why.empty()) return refused("chourasia-cor1", cite, why);
  if (!(run.lambda > 0.0)) return refused("chourasia-cor1", cite, "needs a strongly convex loss (lambda > 0); lambda = " + format_number(run.lambda));
  if (!(run.beta > 0.0 && run.eta < 1.0 / run.beta))
    return refused("chourasia-cor1", cite, "needs beta-smoothness with eta < 1/beta (C21 Lemma 5); eta = " +
                                               format_number(run.eta) + ", beta = " + format_number(run.beta));
  if (spec.lsi.kind != LsiKind::StronglyConvex)
    return refused("chourasia-cor1", cite,
                   "needs the initialisation Pi(N(0, 2 sigma^2/lambda)) of C21 Lemma 5 (lsi.kind = "
                   "\"strongly-convex\"); the run declares another initial law");
  return per_order("chourasia-cor1", cite, run, [&](double a) {
    return closed_forms::cor1(a, run.sensitivity, run.n, run.sigma, run.lambda, run.eta, static_cast<double>(run.steps));
  });
}

AnalysisResult chourasia_cor2(const RunSpec& spec, const TrainingRun& run) {
  const char* cite = "C21 Cor 2";
  if (auto why = chourasia_common_failure(spec, run); !why.empty()) return refused("chourasia-cor2", cite, why);
  if (spec.algorithm.loss != LossKind::Squared)
    return refused("chourasia-cor2", cite, "needs the squared loss |theta - x|^2/2 (algorithm.loss = \"squared\")");
  return per_order("chourasia-cor2", cite, run, [&](double a) {
    return closed_forms::cor2(a, run.sensitivity, run.n, run.sigma, run.eta, static_cast<double>(run.steps));
  });
}

}  // namespace rdpdyn
