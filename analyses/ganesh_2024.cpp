#include "analyses/ganesh_2024.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/pld_accountant.hpp"
#include "analyses/composition.hpp"
#include "analyses/group_privacy.hpp"
#include "numerics/format_number.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const char* kName = "ganesh-group-pld";
const char* kCitation =
    "Ganesh 2024 (arXiv:2401.10294), the mixture-of-Gaussians dominating pair of a user's k Poisson-sampled records, "
    "composed by the certified PLD accountant (docs/pld.md)";

AnalysisResult refused(std::string why) { return refusal(kName, kCitation, std::move(why)); }

// Bin(j; k, q), j = 0..k, from lgamma, normalised to sum 1, and a bound rho on the relative error of
// every weight: each log-weight is a sum of five terms, each with a relative error of a few ulps
// (lgamma, log, log1p; 8 u generously), so a weight is off by at most that sum times its size;
// normalising at most doubles it.
struct Weights {
  std::vector<pld::MixtureComponent> components;
  double relative_error = 0.0;
};
Weights binomial_components(std::int64_t k, double q, double mu) {
  Weights out;
  const double kd = static_cast<double>(k);
  double sum = 0.0, worst = 0.0;
  for (std::int64_t j = 0; j <= k; ++j) {
    const double jd = static_cast<double>(j);
    const double terms[] = {std::lgamma(kd + 1.0), -std::lgamma(jd + 1.0), -std::lgamma(kd - jd + 1.0),
                            jd * std::log(q), (kd - jd) * std::log1p(-q)};
    double log_w = 0.0, size = 0.0;
    for (double t : terms) log_w += t, size += std::fabs(t);
    const double w = std::exp(log_w);
    out.components.push_back({w, jd * mu});
    sum += w;
    worst = std::max(worst, std::expm1(8.0 * outward::kUnitRoundoff * (size + 1.0)));
  }
  for (auto& c : out.components) c.weight /= sum;
  out.relative_error = 2.0 * worst + 8.0 * outward::kUnitRoundoff * (kd + 1.0);
  return out;
}

}  // namespace

AnalysisResult ganesh_group_pld(const RunSpec& spec, const TrainingRun& run) {
  const std::int64_t k = run.records_per_user;
  if (k <= 1) return refused("records_per_user = 1: a user is one record (composition-pld is this pair at k = 1)");
  if (auto problem = accountant_input_problem(run)) return refused(*problem);
  if (run.sampling != BatchSampling::Poisson)
    return refused("stated for Poisson sampling; the run samples " + batch_sampling_name(run.sampling) +
                   " (the other entries are made user-level by group privacy)");
  if (run.adjacency == Adjacency::Replace)
    return refused(
        "stated for add/remove neighbours (a user's records added or removed, or zeroed out); the run is "
        "replace-one");
  auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) return refused(*why);
  const CompositionPlan& plan = std::get<CompositionPlan>(planned);
  if (plan.initial)
    return refused("the run declares an initial divergence R_0 as a Rényi curve; a PLD needs a profile");

  std::vector<pld::Direction> directions(2);
  double rho = 0.0;             // the largest relative error of a computed mixture weight
  double weighted_steps = 0.0;  // the steps whose pairs carry it
  for (const auto& s : plan.stretches) {
    if (s.steps <= 0 || std::isinf(s.z)) continue;
    const Weights weights = binomial_components(k, s.q, 1.0 / s.z);
    const auto& components = weights.components;
    for (const auto& c : components)
      if (!(c.weight > 1e-300))
        return refused("records_per_user = " + std::to_string(k) + " at q = " + format_number(s.q) +
                       ": the binomial weights underflow (the other entries are made user-level by group privacy)");
    using Dir = pld::GaussianMixturePair::Direction;
    const std::string label =
        "a user's " + std::to_string(k) + " records, q = " + format_number(s.q) + ", z = " + format_number(s.z);
    rho = std::max(rho, weights.relative_error);
    weighted_steps += static_cast<double>(s.steps);
    directions[0].push_back(
        {std::make_shared<pld::GaussianMixturePair>(components, Dir::Forward, label + " (remove)"), s.steps});
    directions[1].push_back(
        {std::make_shared<pld::GaussianMixturePair>(components, Dir::Reverse, label + " (add)"), s.steps});
  }
  for (double m : plan.event_mus)  // a released Gaussian: the user's k records move it k times as far
    for (auto& d : directions)
      d.push_back({std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(static_cast<double>(k) * m)), 1});

  // R: composition-sgm's, made user-level (an upper bound; the pair's own Rényi divergence is not computed).
  TrainingRun stretched_run = run;
  stretched_run.orders = stretched_orders(k, run.orders);
  const AnalysisResult sgm_stretched = composition_sgm(spec, stretched_run);
  AnalysisResult sgm =
      user_level(composition_sgm(spec, run), k, run.orders, sgm_stretched.applies ? &sgm_stretched.R : nullptr);
  if (!sgm.applies) return refused(sgm.reason);
  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  r.applies = true;
  r.amplified_by_sampling = true;
  r.R = sgm.R;
  r.reason =
      "Poisson, add/remove, users of at most " + std::to_string(k) + " records: per step Bin(j; " + std::to_string(k) +
      ", q) N(j/z, 1) against N(0, 1) and the reverse; " + std::to_string(total_steps(plan)) + " steps" +
      (plan.stretches.size() > 1 ? ", " + std::to_string(plan.stretches.size()) + " phases" : std::string()) +
      (plan.events > 0 ? ", " + std::to_string(plan.events) + " released Gaussian event(s) at k mu" : std::string()) +
      "; R: composition-sgm's, group privacy (Mironov 2017 Prop. 2)";
  if (directions[0].empty()) return r;
  pld::AccountantOptions options;
  options.accuracy = spec.pld.accuracy;
  options.grid = spec.pld.grid.value_or(0.0);
  auto accountant = std::make_shared<pld::PldAccountant>(std::move(directions), options);
  const double reference = spec.report_delta.value_or(1e-5);
  // The weights' error: the exact mixture's density is within (1 -+ rho) of the computed one, so over T
  // steps the exact composed P is at most (1 + rho)^T times the computed one and the exact Q at least
  // (1 - rho)^T times it: delta_exact(eps) <= (1 + rho)^T delta(eps - T log((1 + rho)/(1 - rho))).
  const double factor = outward::round_up(std::exp(weighted_steps * std::log1p(rho)), 8.0 * outward::kUnitRoundoff);
  const double shift =
      outward::round_up(weighted_steps * (std::log1p(rho) - std::log1p(-rho)), 8.0 * outward::kUnitRoundoff);
  r.fdp_route = "pld";
  r.fdp_epsilon = [accountant, factor, shift](double delta) {
    try {
      const double e = accountant->epsilon(delta / factor).upper;
      return std::isfinite(e) ? outward::round_up(e + shift, 4.0 * outward::kUnitRoundoff) : kInf;
    } catch (const std::length_error&) {
      return kInf;
    }
  };
  r.fdp_grid = [accountant](double delta) { return accountant->grid(delta); };
  r.fdp_delta = [accountant, reference, factor, shift](double epsilon) {
    return std::min(1.0, outward::round_up(factor * accountant->delta(std::max(0.0, epsilon - shift), reference).upper,
                                           4.0 * outward::kUnitRoundoff));
  };
  return r;
}

}  // namespace rdpdyn
