#include "analyses/ganesh_2024.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/pld/pld_accountant.hpp"
#include "analyses/composition.hpp"
#include "analyses/group_privacy.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const char* kName = "ganesh-group-pld";
const char* kCitation =
    "Ganesh 2024 (arXiv:2401.10294), the mixture-of-Gaussians dominating pair of a user's k Poisson-sampled records, "
    "composed by the certified PLD accountant (docs/pld.md)";

AnalysisResult refused(std::string why) {
  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  r.reason = std::move(why);
  return r;
}

// Bin(j; k, q), j = 0..k, from lgamma (each weight to about 1e-13 relative; their sum is checked
// by the pair to 1e-12).
std::vector<pld::MixtureComponent> binomial_components(std::int64_t k, double q, double mu) {
  std::vector<pld::MixtureComponent> out;
  const double kd = static_cast<double>(k);
  for (std::int64_t j = 0; j <= k; ++j) {
    const double jd = static_cast<double>(j);
    const double log_w = std::lgamma(kd + 1.0) - std::lgamma(jd + 1.0) - std::lgamma(kd - jd + 1.0) + jd * std::log(q) +
                         (kd - jd) * std::log1p(-q);
    out.push_back({std::exp(log_w), jd * mu});
  }
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
    return refused("stated for add/remove neighbours (a user's records added or removed, or zeroed out); the run is "
                   "replace-one");
  auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) return refused(*why);
  const CompositionPlan& plan = std::get<CompositionPlan>(planned);
  if (plan.initial) return refused("the run declares an initial divergence R_0 as a Rényi curve; a PLD needs a profile");

  std::vector<pld::Direction> directions(2);
  for (const auto& s : plan.stretches) {
    if (s.steps <= 0 || std::isinf(s.z)) continue;
    auto components = binomial_components(k, s.q, 1.0 / s.z);
    for (const auto& c : components)
      if (!(c.weight > 1e-300))
        return refused("records_per_user = " + std::to_string(k) + " at q = " + format_number(s.q) +
                       ": the binomial weights underflow (the other entries are made user-level by group privacy)");
    using Dir = pld::GaussianMixturePair::Direction;
    const std::string label = "a user's " + std::to_string(k) + " records, q = " + format_number(s.q) +
                              ", z = " + format_number(s.z);
    directions[0].push_back({std::make_shared<pld::GaussianMixturePair>(components, Dir::Forward, label + " (remove)"),
                             s.steps});
    directions[1].push_back({std::make_shared<pld::GaussianMixturePair>(components, Dir::Reverse, label + " (add)"),
                             s.steps});
  }
  for (double m : plan.event_mus)  // a released Gaussian: the user's k records move it k times as far
    for (auto& d : directions)
      d.push_back({std::make_shared<pld::GaussianMixturePair>(pld::gaussian_pair(static_cast<double>(k) * m)), 1});

  // R: composition-sgm's, made user-level (an upper bound; the pair's own Rényi divergence is not computed).
  TrainingRun stretched_run = run;
  stretched_run.orders = stretched_orders(k, run.orders);
  const AnalysisResult sgm_stretched = composition_sgm(spec, stretched_run);
  AnalysisResult sgm = user_level(composition_sgm(spec, run), k, run.orders,
                                  sgm_stretched.applies ? &sgm_stretched.R : nullptr);
  if (!sgm.applies) return refused(sgm.reason);
  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  r.applies = true;
  r.amplified_by_sampling = true;
  r.R = sgm.R;
  r.reason = "Poisson, add/remove, users of at most " + std::to_string(k) + " records: per step Bin(j; " +
             std::to_string(k) + ", q) N(j/z, 1) against N(0, 1) and the reverse; " +
             std::to_string(total_steps(plan)) + " steps" +
             (plan.stretches.size() > 1 ? ", " + std::to_string(plan.stretches.size()) + " phases" : std::string()) +
             (plan.events > 0 ? ", " + std::to_string(plan.events) + " released Gaussian event(s) at k mu" : std::string()) +
             "; R: composition-sgm's, group privacy (Mironov 2017 Prop. 2)";
  if (directions[0].empty()) return r;
  pld::AccountantOptions options;
  options.accuracy = spec.pld.accuracy;
  options.grid = spec.pld.grid.value_or(0.0);
  auto accountant = std::make_shared<pld::PldAccountant>(std::move(directions), options);
  const double reference = spec.report_delta.value_or(1e-5);
  r.fdp_route = "pld";
  r.fdp_epsilon = [accountant](double delta) {
    try {
      return accountant->epsilon(delta).upper;
    } catch (const std::length_error&) {
      return kInf;
    }
  };
  r.fdp_grid = [accountant](double delta) { return accountant->grid(delta); };
  r.fdp_delta = [accountant, reference](double epsilon) { return accountant->delta(epsilon, reference).upper; };
  r.fdp_curves = [accountant, reference]() { return accountant->curves(reference, std::min(reference, 1e-10) * 1e-2); };
  return r;
}

}  // namespace rdpdyn
