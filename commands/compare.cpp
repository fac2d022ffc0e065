#include "commands/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/epsilon_delta.hpp"
#include "models/privacy_model.hpp"
#include "models/quadratic_exact.hpp"

namespace rdpdyn {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

bool eligible_for_best(AnalysisStatus status, bool include_disputed) {
  return status != AnalysisStatus::Disputed || include_disputed;
}

Comparison run_comparison(const RunConfig& config, const EngineRegistry& engines) {
  const RunSpec& spec = config.spec;
  const TrainingRun run = training_run_of(spec);
  const AnalysisInput input{config, run, engines};
  Comparison c;
  c.orders = spec.orders;
  c.delta = spec.report_delta;
  c.include_disputed = spec.include_disputed;
  c.constants = constant_provenance(spec);
  for (const Analysis& analysis : analysis_registry()) {
    ComparisonEntry e;
    e.result = analysis.assess(input, spec.orders);
    e.result.name = analysis.name;
    if (e.result.citation.empty()) e.result.citation = analysis.citation;
    if (!e.result.applies) e.result.R.clear();
    e.status = analysis.status_of(e.result);
    e.status_note = e.result.status_here ? e.result.status_note_here : analysis.status_note;
    e.epsilon = kNaN;
    e.best_order = kNaN;
    c.entries.push_back(std::move(e));
  }

  c.best_R.assign(c.orders.size(), std::numeric_limits<double>::infinity());
  double best_key = std::numeric_limits<double>::infinity();
  for (auto& e : c.entries) {
    if (!e.result.applies) continue;
    if (c.delta) {
      const EpsilonAtOrder eo = best_epsilon(c.orders, e.result.R, *c.delta);
      e.epsilon = eo.epsilon;
      e.best_order = eo.order;
    }
    if (!eligible_for_best(e.status, c.include_disputed)) continue;
    for (std::size_t j = 0; j < c.orders.size(); ++j) c.best_R[j] = std::min(c.best_R[j], e.result.R[j]);
    const double key = c.delta ? e.epsilon : e.result.R.back();
    if (key < best_key) {
      best_key = key;
      c.best_name = e.result.name;
      c.best_status = e.status;
    }
  }
  if (spec.quadratic && spec.algorithm.kind == AlgorithmKind::NoisyGd && spec.algorithm.phases.size() == 1) {
    const std::vector<double> slopes = quadratic::worst_case_rdp_slopes(quadratic_problem_of(spec), run.steps);
    for (double alpha : c.orders) c.exact_R.push_back(alpha * slopes.back());
  }
  c.best_epsilon = kNaN;
  c.best_order = kNaN;
  if (c.delta && !c.best_name.empty()) {
    const EpsilonAtOrder eo = best_epsilon(c.orders, c.best_R, *c.delta);
    c.best_epsilon = eo.epsilon;
    c.best_order = eo.order;
  }
  return c;
}

}  // namespace rdpdyn
