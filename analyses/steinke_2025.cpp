#include "analyses/steinke_2025.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "accounting/pld/gaussian_mixture_pair.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "analyses/composition.hpp"
#include "numerics/format_number.hpp"
#include "numerics/numerical_failure.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Dir = pld::GaussianMixturePair::Direction;

const char* kName = "steinke-last-iterate";
const char* kCitation =
    "Steinke et al. 2025 (arXiv:2410.06186), the last-iterate heuristic: Binomial(T, q) mixture of Gaussians "
    "against a Gaussian, exact for linear losses";

// The binomial mixture sum_j Bin(j; T, q) N(j m, 1), m = 1/(z sqrt T), kept within 40 standard
// deviations (+ 40) of the mean: the weight beyond is below 1e-300 and is folded in by the
// normalisation. `relative_error` bounds every weight's relative error (long double lgamma: about
// |log T!| 2^-64 each, then the rounding to double and the normalisation).
struct Mixture {
  std::vector<pld::MixtureComponent> components;
  double relative_error = 0.0;
};
Mixture binomial_mixture(std::int64_t steps, double q, double z) {
  const double T = static_cast<double>(steps);
  const double m = 1.0 / (z * std::sqrt(T));
  const double mean = T * q, sd = std::sqrt(T * q * (1.0 - q));
  const auto lo = static_cast<std::int64_t>(std::max(0.0, std::floor(mean - 40.0 * sd - 40.0)));
  const auto hi = static_cast<std::int64_t>(std::min(T, std::ceil(mean + 40.0 * sd + 40.0)));
  Mixture out;
  const long double LT = static_cast<long double>(T);
  const long double lq = std::log(static_cast<long double>(q)), l1q = std::log1p(-static_cast<long double>(q));
  const long double lg = std::lgamma(LT + 1.0L);
  double kept = 0.0;
  for (std::int64_t j = lo; j <= hi; ++j) {
    const long double J = static_cast<long double>(j);
    double w;
    if (q == 1.0) {
      w = j == steps ? 1.0 : 0.0;
    } else {
      const long double lw = lg - std::lgamma(J + 1.0L) - std::lgamma(LT - J + 1.0L) + J * lq + (LT - J) * l1q;
      w = static_cast<double>(std::exp(lw));
    }
    if (w <= 0.0) continue;
    out.components.push_back({w, static_cast<double>(J) * m});
    kept += w;
  }
  if (out.components.empty()) throw NumericalFailure("binomial mixture has no mass");
  for (auto& x : out.components) x.weight /= kept;
  const double n = static_cast<double>(out.components.size());
  out.relative_error = 64.0 * 0x1p-64 * (static_cast<double>(lg) + 4.0 * T) + (n + 8.0) * 0x1p-53 + 1e-300;
  return out;
}

struct Pairs {
  std::unique_ptr<pld::GaussianMixturePair> remove, add;
  double weight_error = 0.0;  // absolute error of any delta from the weights' relative error
};

// A relative error e of the weights moves H_t by at most e P(S) <= e (forward) or e t Q(S) <= e
// (reverse, t Q(S) <= P(S) at the optimal set): an absolute error e either way.
Pairs pairs_of(std::int64_t steps, double q, double z) {
  Mixture mix = binomial_mixture(steps, q, z);
  const bool all_zero =
      std::all_of(mix.components.begin(), mix.components.end(), [](const auto& x) { return x.mean == 0.0; });
  if (all_zero) return {};
  Pairs p;
  p.remove = std::make_unique<pld::GaussianMixturePair>(mix.components, Dir::Forward, "binomial mixture (remove)");
  p.add = std::make_unique<pld::GaussianMixturePair>(mix.components, Dir::Reverse, "binomial mixture (add)");
  p.weight_error = mix.relative_error;
  return p;
}

}  // namespace

LastIterateProfile linear_last_iterate_delta(std::int64_t steps, double q, double z, double epsilon) {
  const Pairs p = pairs_of(steps, q, z);
  if (!p.remove) return {0.0, 0.0};
  LastIterateProfile out;
  for (const auto* pair : {p.remove.get(), p.add.get()}) {
    const pld::Approx d = pair->hockey_stick(epsilon);
    out.upper = std::max(out.upper, std::min(1.0, d.upper() + p.weight_error));
    out.lower = std::max(out.lower, std::max(0.0, d.lower() - p.weight_error));
  }
  return out;
}

LastIterateEpsilon linear_last_iterate_epsilon(std::int64_t steps, double q, double z, double delta) {
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("delta = " + format_number(delta) + " must lie in (0, 1)");
  const Pairs p = pairs_of(steps, q, z);
  if (!p.remove) return {0.0, 0.0};
  auto upper_at = [&](double e) {
    double d = 0.0;
    for (const auto* pair : {p.remove.get(), p.add.get()}) d = std::max(d, pair->hockey_stick(e).upper());
    return std::min(1.0, d + p.weight_error);
  };
  auto lower_at = [&](double e) {
    double d = 0.0;
    for (const auto* pair : {p.remove.get(), p.add.get()}) d = std::max(d, pair->hockey_stick(e).lower());
    return std::max(0.0, d - p.weight_error);
  };
  LastIterateEpsilon out;
  if (p.weight_error >= delta) return {kInf, 0.0};
  // upper: the smallest eps with upper_at(eps) <= delta (the bisection keeps hi feasible)
  if (upper_at(0.0) <= delta) {
    out.upper = 0.0;
  } else {
    double lo = 0.0, hi = 1.0;
    while (upper_at(hi) > delta) {
      lo = hi;
      hi *= 2.0;
      if (hi > 1e6) return {kInf, 0.0};
    }
    for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, hi); ++i) {
      const double mid = 0.5 * (lo + hi);
      (upper_at(mid) <= delta ? hi : lo) = mid;
    }
    out.upper = hi;
  }
  // lower: the largest eps with lower_at(eps) > delta (the exact epsilon(delta) exceeds it)
  if (lower_at(0.0) <= delta) {
    out.lower = 0.0;
  } else {
    double lo = 0.0, hi = std::max(out.upper, 1e-300);
    for (int i = 0; i < 200 && hi - lo > 1e-13 * std::max(1.0, hi); ++i) {
      const double mid = 0.5 * (lo + hi);
      (lower_at(mid) > delta ? lo : hi) = mid;
    }
    out.lower = lo;
  }
  return out;
}

AnalysisResult steinke_last_iterate(const RunSpec& spec, const TrainingRun& run) {
  AnalysisResult r;
  r.name = kName;
  r.citation = kCitation;
  auto refuse = [&](std::string why) {
    r.applies = false;
    r.reason = std::move(why);
    return r;
  };
  if (auto problem = accountant_input_problem(run)) return refuse(*problem);
  if (run.sampling != BatchSampling::Poisson && run.sampling != BatchSampling::FullBatch)
    return refuse(std::string("stated for Poisson sampling (DP-SGD); the run uses sampling = ") +
                  batch_sampling_name(run.sampling));
  if (run.adjacency != Adjacency::AddRemove)
    return refuse(
        "stated for add/remove neighbours (the record joins K ~ Binomial(T, q) batches on one dataset only); "
        "the run uses adjacency = replace");
  auto planned = composition_plan(spec, run);
  if (const auto* why = std::get_if<std::string>(&planned)) return refuse(*why);
  const CompositionPlan& plan = std::get<CompositionPlan>(planned);
  if (plan.stretches.size() != 1 || plan.events > 0 || plan.initial)
    return refuse(
        "needs one phase (one step size, noise and rate), no released events and identical initial laws: the "
        "heuristic's pair is a binomial mixture only for a constant step size");
  const std::int64_t steps = plan.stretches.front().steps;
  const double z = plan.stretches.front().z;
  const double q = run.sampling == BatchSampling::Poisson ? run.sampling_rate : 1.0;
  r.applies = true;
  const bool linear = spec.algorithm.loss == LossKind::Linear;
  if (linear) {
    r.status_here = AnalysisStatus::Exact;
    r.status_note_here =
        "algorithm.loss = \"linear\": the pair is the exact worst case of the last iterate (a floor for every "
        "valid analysis)";
  }
  r.reason =
      "Binomial(T = " + std::to_string(steps) + ", q = " + format_number(q) + ") mixture, z = " + format_number(z) +
      (linear ? "; exact for the declared linear loss" : "; a heuristic for this loss (exact only for linear losses)");
  // R: the composition's RDP, an upper bound of this pair's Rényi divergence (the last iterate is a
  // post-processing of the released iterates).
  try {
    for (double alpha : run.orders)
      r.R.push_back(steps > 0 && !std::isinf(z) ? static_cast<double>(steps) * sampled_gaussian_rdp_upper(q, z, alpha)
                                                : 0.0);
  } catch (const NumericalFailure& e) {  // an order beyond the expansions' reach (alpha > 1e6)
    return refuse(std::string("numerical evaluation failed: ") + e.what());
  }
  if (steps == 0 || std::isinf(z)) return r;
  r.fdp_route = "last-iterate-pair";
  r.fdp_epsilon = [steps, q, z](double delta) { return linear_last_iterate_epsilon(steps, q, z, delta).upper; };
  r.fdp_delta = [steps, q, z](double epsilon) { return linear_last_iterate_delta(steps, q, z, epsilon).upper; };
  return r;
}

}  // namespace rdpdyn
