#include "commands/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "accounting/gaussian_dp.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "models/quadratic_exact.hpp"

namespace rdpdyn {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// R of a valid entry at any orders, when known there; an empty function otherwise. An order at
/// which the analysis refuses or fails gives NaN (no certificate there).
RdpAtOrders rdp_at_any_order(const Analysis& analysis, const AnalysisResult& result, const AnalysisInput& input) {
  if (result.slope) {
    const double slope = *result.slope;
    return [slope](std::span<const double> orders) {
      std::vector<double> R;
      for (double a : orders) R.push_back(linear_rdp_at(a, slope));
      return R;
    };
  }
  if (result.at_order) {
    return [at = result.at_order](std::span<const double> orders) {
      std::vector<double> R;
      for (double a : orders) R.push_back(at(a));
      return R;
    };
  }
  if (!analysis.any_order) return {};
  return [&analysis, &input](std::span<const double> orders) {
    try {
      AnalysisResult r = analysis.assess(input, orders);
      if (r.applies && r.R.size() == orders.size()) return r.R;
    } catch (const std::exception&) {  // e.g. a series that does not converge at that order
    }
    return std::vector<double>(orders.size(), kNaN);
  };
}

}  // namespace

bool eligible_for_best(AnalysisStatus status, bool include_disputed) {
  // The exact profile is the floor the analyses are measured against, not one of them.
  if (status == AnalysisStatus::Exact) return false;
  return status != AnalysisStatus::Disputed || include_disputed;
}

void assign_epsilon(ComparisonEntry& e, const Analysis& analysis, const AnalysisInput& input,
                    std::span<const double> orders, double delta) {
  if (e.result.mu) {
    // A Gaussian-DP bound: its exact profile inverted, no order involved (accounting/gaussian_dp.hpp).
    e.epsilon = e.epsilon_recorded_orders = gdp_epsilon(*e.result.mu, delta);
    e.best_order = e.best_recorded_order = kNaN;
    e.epsilon_orders = "gdp";
    return;
  }
  EpsilonAtOrder eo = minimise_epsilon_on_grid(orders, e.result.R, delta);
  e.epsilon_recorded_orders = eo.epsilon;
  e.best_recorded_order = eo.order;
  e.epsilon_orders = "recorded";
  if (const RdpAtOrders R = rdp_at_any_order(analysis, e.result, input)) {
    const EpsilonAtOrder continuous = minimise_epsilon_batched(R, delta);
    if (continuous.epsilon < eo.epsilon) eo = continuous;
    e.epsilon_orders = "continuous";
  }
  e.epsilon = eo.epsilon;
  e.best_order = eo.order;
}

ComparisonEntry compare_entry(const Analysis& analysis, const AnalysisInput& input, std::span<const double> orders,
                              std::optional<double> delta) {
  ComparisonEntry e;
  e.result = analysis.assess(input, orders);
  e.result.name = analysis.name;
  if (e.result.citation.empty()) e.result.citation = analysis.citation;
  if (!e.result.applies) e.result.R.clear(), e.result.slope.reset(), e.result.mu.reset(), e.result.at_order = nullptr;
  e.status = analysis.status_of(e.result);
  e.status_note = e.result.status_here ? e.result.status_note_here : analysis.status_note;
  e.epsilon = e.best_order = e.epsilon_recorded_orders = e.best_recorded_order = kNaN;
  if (delta && e.result.applies) assign_epsilon(e, analysis, input, orders, *delta);
  return e;
}

Comparison run_comparison(const RunConfig& config, const EngineRegistry& engines, const ComparisonProgress& progress) {
  const RunSpec& spec = config.spec;
  const TrainingRun run = training_run_of(spec);
  const AnalysisInput input{config, run, engines};
  Comparison c;
  c.orders = spec.orders;
  c.delta = spec.report_delta;
  c.include_disputed = spec.include_disputed;
  c.constants = constant_provenance(spec);
  for (const Analysis& analysis : analysis_registry()) {
    c.entries.push_back(compare_entry(analysis, input, c.orders, c.delta));
    if (progress) progress(c.entries.size(), analysis_registry().size());
  }

  // best: the eligible entry with the smallest epsilon (its own certificate, at its own order),
  // or without a delta the smallest R at the largest recorded order; best_R stays on the grid.
  c.best_R.assign(c.orders.size(), std::numeric_limits<double>::infinity());
  double best_key = std::numeric_limits<double>::infinity();
  c.best_epsilon = kNaN;
  c.best_order = kNaN;
  for (auto& e : c.entries) {
    if (!e.result.applies || !eligible_for_best(e.status, c.include_disputed)) continue;
    for (std::size_t j = 0; j < c.orders.size(); ++j) c.best_R[j] = std::min(c.best_R[j], e.result.R[j]);
    const double key = c.delta ? e.epsilon : e.result.R.back();
    if (key < best_key) {
      best_key = key;
      c.best_name = e.result.name;
      c.best_status = e.status;
      c.best_mu = e.result.mu;
      if (c.delta) c.best_epsilon = e.epsilon, c.best_order = e.best_order;
    }
  }
  if (quadratic_exact_applies(spec)) {
    const std::vector<double> slopes = quadratic::worst_case_rdp_slopes(quadratic_problem_of(spec), run.steps);
    for (double alpha : c.orders) c.exact_R.push_back(alpha * slopes.back());
  }
  return c;
}

}  // namespace rdpdyn
