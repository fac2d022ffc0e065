#include "accounting/pld/discrete_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = outward::kUnitRoundoff;
// A narrow outcome's loss, within its probabilities' error bounds, lies within kNarrowLoss of the
// computed L_i; kSlack covers the rounding of L_i and of e^eps (2 u (1 + |eps|) < 1e-7 below
// kLargestFastEpsilon), so a narrow outcome with L_i > eps + kSlack has p > e^eps q for certain.
constexpr double kNarrowLoss = 1e-5;
constexpr double kSlack = 1e-6;
constexpr double kLargestFastEpsilon = 1e8;

// The terms (p_i - e^eps q_i)_+ summed one by one, compensated (Neumaier): the error is about 2 u |sum|
// plus each term's own 2 u (p + w q), not n u times the sum (the profile is evaluated at every grid
// point; errors add up there). Each term moves by at most p_error + e^eps q_error when the
// probabilities move within their bounds; a term that stays negative at the bounds' worst end is 0.
struct TermSum {
  double w = 0.0, w_error = 0.0;  ///< e^eps and its rounding
  double sum = 0.0, compensation = 0.0, error = 0.0, magnitude = 0.0;

  void add(const DiscreteOutcome& o) {
    const double worst = (o.p + o.p_error) - (w - w_error) * std::max(0.0, o.q - o.q_error);
    if (!(worst > 0.0)) {
      // Exactly 0 unless the rounding of `worst` itself hid a positive term: charge that rounding.
      if (worst > -8.0 * kU * (o.p + w * o.q)) error += 8.0 * kU * (o.p + w * o.q);
      return;
    }
    const double term = std::max(0.0, o.p - w * o.q);
    const double next = sum + term;
    compensation += std::fabs(sum) >= term ? (sum - next) + term : (term - next) + sum;
    sum = next;
    error += o.p_error + w * o.q_error + w_error * (o.q + o.q_error);
    magnitude += o.p + w * o.q;
  }
};

// Neumaier's compensated sums from the end: out[k] = sum_{i >= k} value(i).
template <class Value>
std::vector<double> suffix_sums(std::size_t n, Value value) {
  std::vector<double> out(n + 1, 0.0);
  double sum = 0.0, compensation = 0.0;
  for (std::size_t k = n; k-- > 0;) {
    const double term = value(k);
    const double next = sum + term;
    compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
    sum = next;
    out[k] = sum + compensation;
  }
  return out;
}

bool valid(const DiscreteOutcome& o) {
  auto probability = [](double x) { return std::isfinite(x) && x >= 0.0 && x <= 1.0; };
  return probability(o.p) && probability(o.q) && std::isfinite(o.p_error) && o.p_error >= 0.0 &&
         std::isfinite(o.q_error) && o.q_error >= 0.0;
}

}  // namespace

DiscretePair::DiscretePair(std::vector<DiscreteOutcome> outcomes, std::string label) : label_(std::move(label)) {
  bool some_mass = false;
  for (const auto& o : outcomes) {
    if (!valid(o)) throw std::invalid_argument("discrete pair: a probability or error bound is out of range");
    some_mass = some_mass || o.p > 0.0;
  }
  if (!some_mass) throw std::invalid_argument("discrete pair: P has no mass");
  auto loss = [](const DiscreteOutcome& o) {
    if (o.q == 0.0) return kInf;
    return o.p == 0.0 ? -kInf : std::log(o.p) - std::log(o.q);
  };
  std::sort(outcomes.begin(), outcomes.end(),
            [&](const DiscreteOutcome& a, const DiscreteOutcome& b) { return loss(a) < loss(b); });
  outcomes_ = std::move(outcomes);
  for (const auto& o : outcomes_) {
    losses_.push_back(loss(o));
    if (o.q == 0.0) infinite_mass_ += o.p;
  }
  const std::size_t n = outcomes_.size();
  wide_.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& o = outcomes_[i];
    const double q_low = o.q - o.q_error;
    // log((p + p_error) / q_low) - L_i, the most the loss can exceed its computed value
    // (p = 0 exactly with q bounded away from 0 never contributes: its loss -inf sorts first, below
    // every window)
    const bool never = o.p == 0.0 && o.p_error == 0.0 && q_low >= 16.0 * kU * o.q;
    const bool narrow = never || (o.p > 0.0 && q_low > 0.0 && std::isfinite(losses_[i]) &&
                                  std::log1p(o.p_error / o.p) - std::log1p(-o.q_error / o.q) <= kNarrowLoss - kSlack);
    if (!narrow) wide_[i] = true, wide_indices_.push_back(i);
  }
  auto narrow_only = [&](auto field) {
    return [&, field](std::size_t k) { return wide_[k] ? 0.0 : field(outcomes_[k]); };
  };
  suffix_p_ = suffix_sums(n, narrow_only([](const DiscreteOutcome& o) { return o.p; }));
  suffix_q_ = suffix_sums(n, narrow_only([](const DiscreteOutcome& o) { return o.q; }));
  suffix_p_error_ = suffix_sums(n, narrow_only([](const DiscreteOutcome& o) { return o.p_error; }));
  suffix_q_error_ = suffix_sums(n, narrow_only([](const DiscreteOutcome& o) { return o.q_error; }));
}

Approx DiscretePair::hockey_stick(double epsilon) const {
  const double w = std::exp(epsilon);
  if (!std::isfinite(w) || !(std::fabs(epsilon) <= kLargestFastEpsilon)) return hockey_stick_term_by_term(epsilon);
  const double w_error = 2.0 * kU * w * (1.0 + std::fabs(epsilon));
  // Term by term: the narrow outcomes whose loss is near epsilon, and every wide one.
  const auto first_clear =
      static_cast<std::size_t>(std::upper_bound(losses_.begin(), losses_.end(), epsilon + kSlack) - losses_.begin());
  const auto first_near = static_cast<std::size_t>(
      std::lower_bound(losses_.begin(), losses_.end(), epsilon - kNarrowLoss - kSlack) - losses_.begin());
  TermSum near{w, w_error};
  for (std::size_t i = first_near; i < first_clear; ++i)
    if (!wide_[i]) near.add(outcomes_[i]);
  for (std::size_t i : wide_indices_) near.add(outcomes_[i]);
  // The narrow outcomes clearly above epsilon: sum (p - w q), each term positive.
  const double p_sum = suffix_p_[first_clear], q_sum = suffix_q_[first_clear];
  const double clear = p_sum - w * q_sum;
  const double value = clear + (near.sum + near.compensation);
  const double clear_magnitude = p_sum + w * q_sum;
  double error = near.error + suffix_p_error_[first_clear] + w * suffix_q_error_[first_clear] +
                 w_error * (q_sum + suffix_q_error_[first_clear]);
  const double n = static_cast<double>(outcomes_.size());
  // the suffix sums' compensated rounding (2 u each), the product and the difference (2 u), the
  // terms' own (3 u, as term by term), and the sums' second-order terms
  error += 4.0 * kU * clear_magnitude + 3.0 * kU * (near.magnitude + clear_magnitude) + 4.0 * kU * std::fabs(value) +
           n * n * kU * kU * (near.magnitude + clear_magnitude);
  return {std::max(value, 0.0), error};
}

Approx DiscretePair::hockey_stick_term_by_term(double epsilon) const {
  const double w = std::exp(epsilon);
  if (!std::isfinite(w)) {
    // e^eps overflows: only outcomes whose q may be 0 can still count, each at most its p.
    double value = 0.0, error = 0.0;
    for (const auto& o : outcomes_) {
      if (o.q == 0.0)
        value += o.p, error += o.p_error;
      else if (o.q <= o.q_error)
        error += o.p + o.p_error;
    }
    return {value, error + 4.0 * kU * value};
  }
  TermSum all{w, 2.0 * kU * w * (1.0 + std::fabs(epsilon))};  // exp's rounding, relative
  for (const auto& o : outcomes_) all.add(o);
  const double value = all.sum + all.compensation;
  const double n = static_cast<double>(outcomes_.size());
  return {value, all.error + 3.0 * kU * all.magnitude + 4.0 * kU * std::fabs(value) + n * n * kU * kU * all.magnitude};
}

void DiscretePair::loss_range(double tail, double& lo, double& hi) const {
  // The finite losses, trimmed by at most `tail` of P's mass (at its upper error bound) at each end.
  std::size_t first = 0;
  std::size_t last = outcomes_.size();
  while (last > 0 && std::isinf(losses_[last - 1]) && losses_[last - 1] > 0.0) --last;
  double mass = 0.0;
  while (first < last && (std::isinf(losses_[first]) || mass + outcomes_[first].p + outcomes_[first].p_error <= tail))
    mass += outcomes_[first].p + outcomes_[first].p_error, ++first;
  mass = 0.0;
  while (last > first + 1 && mass + outcomes_[last - 1].p + outcomes_[last - 1].p_error <= tail)
    mass += outcomes_[last - 1].p + outcomes_[last - 1].p_error, --last;
  if (first >= last) {
    lo = hi = 0.0;
    return;
  }
  lo = losses_[first];
  hi = losses_[last - 1];
  if (hi <= lo) hi = lo + 1e-9 * (1.0 + std::fabs(lo));
}

double DiscretePair::renyi_lower(double alpha) const {
  // log sum_i exp(alpha log p_lo + (1 - alpha) log q_hi), by a shifted sum; rounded down.
  std::vector<double> logs;
  double magnitude = 0.0;  // the largest |alpha log p| + |(1 - alpha) log q|: the scale of the exponents' error
  for (const auto& o : outcomes_) {
    const double p_lo = o.p - o.p_error;
    if (!(p_lo > 0.0)) continue;
    const double q_hi = std::min(1.0, o.q + o.q_error);
    if (q_hi == 0.0) return kInf;
    const double lp = std::log(p_lo);
    const double lq = std::log(q_hi);
    logs.push_back(alpha * lp + (1.0 - alpha) * lq);
    magnitude = std::max(magnitude, alpha * std::fabs(lp) + (alpha - 1.0) * std::fabs(lq));
  }
  if (logs.empty()) return 0.0;
  const double top = *std::max_element(logs.begin(), logs.end());
  double sum = 0.0;
  for (double l : logs) sum += std::exp(l - top);
  const double log_sum = top + std::log(sum);
  // Each exponent carries about magnitude u of error (p - p_error rounded too); the sum and the log a
  // few u more: a margin of 8 u (magnitude + n), then divided by alpha - 1.
  const double slack = 8.0 * kU * (magnitude + static_cast<double>(logs.size()) + 1.0);
  const double value = (log_sum - slack) / (alpha - 1.0);
  return std::max(0.0, outward::round_down(value, 4.0 * kU));
}

}  // namespace rdpdyn::pld
