#include "commands/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "accounting/bound_epsilon.hpp"
#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "accounting/gaussian_dp.hpp"
#include "accounting/zcdp.hpp"
#include "models/configured_solve.hpp"
#include "models/privacy_model.hpp"
#include "models/quadratic_exact.hpp"
#include "numerics/format_number.hpp"
#include "numerics/numerical_failure.hpp"

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
    } catch (const NumericalFailure&) {  // e.g. a series that does not converge at that order (a bug propagates)
    }
    return std::vector<double>(orders.size(), kNaN);
  };
}

}  // namespace

bool eligible_for_best(AnalysisStatus status, bool include_disputed) {
  // The exact profile is the floor the analyses are measured against, not one of them; a lower
  // bound or a bound for some records only is not an upper bound on the run at all.
  if (status == AnalysisStatus::Exact || !bounds_the_run(status)) return false;
  return status != AnalysisStatus::Disputed || include_disputed;
}

void assign_epsilon(ComparisonEntry& e, const Analysis& analysis, const AnalysisInput& input,
                    std::span<const double> orders, double delta, RdpConversion conversion) {
  // A disputed entry that cannot be best here is read at the configured orders only: a valid, coarser
  // minimum, where the continuum of orders would cost most of the run's time (A&T (B.2) evaluates a
  // split bound of some 250 sampled-Gaussian series per order; docs/analyses.md section 4).
  const bool continuum =
      !(analysis.status_of(e.result) == AnalysisStatus::Disputed && !input.config.spec.include_disputed);
  const RdpAtOrders any_order = e.result.mu || !continuum ? RdpAtOrders{} : rdp_at_any_order(analysis, e.result, input);
  const BoundEpsilon b = epsilon_of_bound(
      {orders, e.result.R, any_order, e.result.slope, e.result.mu, e.result.fdp_epsilon, e.result.fdp_route}, delta,
      conversion);
  e.epsilon = b.best.epsilon;
  e.best_order = b.best.order;
  e.conversion = b.conversion;
  e.epsilon_recorded_orders = b.recorded.epsilon;
  e.best_recorded_order = b.recorded.order;
  e.conversion_recorded_orders = b.recorded_conversion;
  if (analysis.status_of(e.result) == AnalysisStatus::ReleasedLowerBound) {
    // A lower bound: its own lower estimate of epsilon (0 without one), never an RDP conversion of its
    // R (a conversion bounds epsilon from above, which says nothing for a lower curve).
    e.epsilon = e.result.fdp_epsilon ? e.result.fdp_epsilon(delta) : 0.0;
    e.best_order = kNaN;
    e.conversion = e.result.fdp_epsilon ? e.result.fdp_route : "none";
    e.epsilon_recorded_orders = e.best_recorded_order = kNaN;
    e.conversion_recorded_orders.clear();
  }
  e.epsilon_orders = b.orders_searched;
}

void assign_delta_at_epsilon(ComparisonEntry& e, std::span<const double> orders, double epsilon) {
  double delta = std::numeric_limits<double>::infinity();
  if (e.result.mu) {
    delta = gdp_delta_upper(*e.result.mu, epsilon);  // exact profile: no conversion loses anything
  } else {
    // Every order certifies its own delta; an order where R is not known (NaN) certifies none.
    std::vector<double> known_orders, known_R;
    for (std::size_t j = 0; j < e.result.R.size() && j < orders.size(); ++j)
      if (!std::isnan(e.result.R[j])) known_orders.push_back(orders[j]), known_R.push_back(e.result.R[j]);
    if (!known_R.empty()) delta = best_delta(known_orders, known_R, epsilon, RdpConversion::Best).delta;
  }
  if (e.result.fdp_delta) {
    try {
      delta = std::min(delta, e.result.fdp_delta(epsilon));
    } catch (const std::length_error&) {  // the PLD grid does not fit: the other routes still answer
    }
  }
  e.delta_at_epsilon = std::isfinite(delta) ? std::min(delta, 1.0) : std::numeric_limits<double>::quiet_NaN();
}

std::string unamplified_sampling_warning(const TrainingRun& run, bool amplified) {
  const bool poisson = run.sampling == BatchSampling::Poisson && run.sampling_rate < 1.0;
  const bool per_step = run.sampling == BatchSampling::PerStep && static_cast<double>(run.batch_size) < run.n;
  if (amplified || !(poisson || per_step)) return "";
  std::string out = std::string("WARNING: epsilon is UNAMPLIFIED: the run samples a fresh batch at every step (") +
                    batch_sampling_name(run.sampling) + ", q = " +
                    format_number(poisson ? run.sampling_rate : static_cast<double>(run.batch_size) / run.n) +
                    ") but no analysis that applies uses amplification by sampling, so every bound counts the "
                    "record in every step.";
  // The keys that let composition-sgm (or composition-pld) apply, as their reasons say.
  if (run.adjacency == Adjacency::Replace && !run.gradients_norm_bounded) {
    out +=
        " Amplification needs per-record gradient norms <= S_g/2: declare domain.lipschitz_loss = true "
        "(an L-Lipschitz loss, S_g = 2L)";
    if (poisson)
      out +=
          ", or count neighbours as DP-SGD libraries do, domain.adjacency = \"add-remove\" (the clipping "
          "norm then bounds the record's gradient itself)";
    out += ".";
  } else if (run.adjacency == Adjacency::AddRemove && per_step) {
    out +=
        " With fixed-size batches amplification is evaluated under replace adjacency: "
        "domain.adjacency = \"replace\" with domain.lipschitz_loss = true.";
  } else if (run.adjacency == Adjacency::Replace) {
    out +=
        " With lipschitz_loss composition-sgm's value for this sampling rests on a numerical search, not a "
        "proof (status disputed): report.include_disputed = true lets it count. See the reasons of "
        "composition-sgm and composition-pld.";
  } else {
    out += " See the reasons of composition-sgm and composition-pld.";
  }
  return out;
}

std::vector<ConversionEpsilon> epsilon_by_conversion(const ComparisonEntry& e, const Analysis& analysis,
                                                     const AnalysisInput& input, std::span<const double> orders,
                                                     double delta) {
  std::vector<ConversionEpsilon> out;
  if (!e.result.applies || e.result.mu) return out;
  const RdpAtOrders R = rdp_at_any_order(analysis, e.result, input);
  for (RdpConversion c : {RdpConversion::Mironov, RdpConversion::Improved, RdpConversion::Asoodeh}) {
    EpsilonAtOrder eo = minimise_epsilon_on_grid(orders, e.result.R, delta, c);
    if (R) {
      const EpsilonAtOrder continuous = minimise_epsilon_batched(R, delta, kDefaultMaxOrder, c);
      if (continuous.epsilon < eo.epsilon) eo = continuous;
    }
    out.push_back({c, eo});
  }
  if (e.result.slope) {
    out.push_back({RdpConversion::Zcdp, epsilon_zcdp(*e.result.slope, delta)});
    out.push_back({RdpConversion::Zcdp, {epsilon_zcdp_bun_steinke(*e.result.slope, delta), kNaN, RdpConversion::Zcdp}});
  }
  return out;
}

ComparisonEntry compare_entry(const Analysis& analysis, const AnalysisInput& input, std::span<const double> orders,
                              std::optional<double> delta, std::optional<double> epsilon, bool curves) {
  ComparisonEntry e;
  e.result = analysis.assess(input, orders);
  e.result.name = analysis.name;
  if (e.result.citation.empty()) e.result.citation = analysis.citation;
  if (!e.result.applies)
    e.result.R.clear(), e.result.slope.reset(), e.result.mu.reset(),
        e.result.at_order = nullptr, e.result.fdp_epsilon = nullptr, e.result.fdp_delta = nullptr,
        e.result.fdp_curves = nullptr, e.result.amplified_by_sampling = false, e.result.fft_round_off_assumed = false;
  e.status = analysis.status_of(e.result);
  e.status_note = status_note_of(analysis, e.result);
  e.epsilon = e.best_order = e.epsilon_recorded_orders = e.best_recorded_order = kNaN;
  if (delta && e.result.applies) assign_epsilon(e, analysis, input, orders, *delta);
  // A lower bound or a bound for some records only certifies no delta for the run.
  if (epsilon && e.result.applies && bounds_the_run(e.status)) assign_delta_at_epsilon(e, orders, *epsilon);
  if (curves && e.result.applies && e.result.fdp_curves) {
    try {
      e.curves = e.result.fdp_curves();
    } catch (const std::length_error&) {  // the PLD grid does not fit: no curves, the bounds stand
    }
  }
  return e;
}

Comparison run_comparison(const RunConfig& config, const EngineRegistry& engines, const ComparisonProgress& progress,
                          bool curves) {
  const RunSpec& spec = config.spec;
  const TrainingRun run = training_run_of(spec);
  const AnalysisInput input{config, run, engines};
  Comparison c;
  c.orders = spec.orders;
  c.delta = spec.report_delta;
  c.epsilon = spec.report_epsilon;
  c.include_disputed = spec.include_disputed;
  c.constants = constant_provenance(spec);
  c.terms = run_terms(spec);
  for (const Analysis& analysis : analysis_registry()) {
    c.entries.push_back(compare_entry(analysis, input, c.orders, c.delta, c.epsilon, curves));
    if (progress) progress(c.entries.size(), analysis_registry().size());
  }

  // best: the eligible entry with the smallest epsilon (its own certificate, at its own order),
  // or without a delta the smallest R at the largest recorded order; best_R stays on the grid.
  c.best_R.assign(c.orders.size(), std::numeric_limits<double>::infinity());
  double best_key = std::numeric_limits<double>::infinity();
  c.best_epsilon = kNaN;
  c.best_order = kNaN;
  bool amplified = false;
  for (auto& e : c.entries) {
    if (!e.result.applies || !eligible_for_best(e.status, c.include_disputed)) continue;
    amplified = amplified || e.result.amplified_by_sampling;
    // delta at epsilon: its own minimum, possibly of another entry than the epsilon's.
    if (e.delta_at_epsilon < c.best_delta || (std::isnan(c.best_delta) && !std::isnan(e.delta_at_epsilon)))
      c.best_delta = e.delta_at_epsilon, c.best_delta_name = e.result.name;
    for (std::size_t j = 0; j < c.orders.size(); ++j) c.best_R[j] = std::min(c.best_R[j], e.result.R[j]);
    const double key = c.delta ? e.epsilon : e.result.R.back();
    if (key < best_key) {
      best_key = key;
      c.best_name = e.result.name;
      c.best_status = e.status;
      c.best_mu = e.result.mu;
      if (c.delta) c.best_epsilon = e.epsilon, c.best_order = e.best_order, c.best_conversion = e.conversion;
    }
  }
  if (!c.best_name.empty()) c.amplification_warning = unamplified_sampling_warning(run, amplified);
  if (quadratic_exact_applies(spec) && spec.records_per_user == 1) {  // the record-level floor
    const double slope = quadratic::isotropic_worst_case_rdp_slope(quadratic_problem_of(spec), run.steps);
    for (double alpha : c.orders) c.exact_R.push_back(alpha * slope);
  }
  return c;
}

}  // namespace rdpdyn
