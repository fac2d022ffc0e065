#include "accounting/pld/gaussian_mixture_pair.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

#include "accounting/gaussian_dp.hpp"
#include "accounting/pld/normal_law.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn::pld {
namespace {

constexpr double u = 0x1p-53;
constexpr double kInf = std::numeric_limits<double>::infinity();
// What a term loses where a density underflows (denormals, or 0): far below any delta reported.
constexpr double kUnderflow = 1e-300;
const double kInvSqrt2Pi = 1.0 / std::sqrt(2.0 * std::numbers::pi);
using normal::density, normal::upper_tail, normal::upper_quantile;
double phi(double x) { return density(x); }

}  // namespace

GaussianMixturePair::GaussianMixturePair(std::vector<MixtureComponent> components, Direction direction,
                                         std::string label)
    : components_(std::move(components)), direction_(direction), label_(std::move(label)) {
  if (components_.empty()) throw std::invalid_argument("a Gaussian mixture pair needs a component");
  double total = 0.0;
  max_mean_ = 0.0;
  min_mean_ = kInf;
  for (const auto& c : components_) {
    if (!(c.weight > 0.0) || !(c.mean >= 0.0) || !std::isfinite(c.mean))
      throw std::invalid_argument("mixture component (weight " + format_number(c.weight) + ", mean " +
                                  format_number(c.mean) + ") needs a weight > 0 and a finite mean >= 0");
    total += c.weight;
    if (c.mean == 0.0) zero_weight_ += c.weight;
    max_mean_ = std::max(max_mean_, c.mean);
    min_mean_ = std::min(min_mean_, c.mean);
  }
  if (std::fabs(total - 1.0) > 1e-12)
    throw std::invalid_argument("mixture weights sum to " + format_number(total) + ", not 1");
  if (!(max_mean_ > 0.0)) throw std::invalid_argument("a Gaussian mixture pair needs a mean > 0");
  for (const auto& c : components_) log_weights_.push_back(std::log(c.weight));
  log_zero_weight_ = std::log(zero_weight_);
}

Approx GaussianMixturePair::forward_loss(double x) const {
  double top = -kInf, scale = 0.0;
  for (std::size_t k = 0; k < components_.size(); ++k) {
    const auto& c = components_[k];
    const double l = c.mean * x - 0.5 * c.mean * c.mean + log_weights_[k];
    top = std::max(top, l);
    scale = std::max(scale, std::fabs(c.mean * x) + c.mean * c.mean + std::fabs(log_weights_[k]));
  }
  double sum = 0.0;
  for (std::size_t k = 0; k < components_.size(); ++k) {
    const auto& c = components_[k];
    sum += std::exp(c.mean * x - 0.5 * c.mean * c.mean + log_weights_[k] - top);
  }
  const double value = top + std::log(sum);
  const double j = static_cast<double>(components_.size());
  return {value, 8.0 * (j + 8.0) * u * (1.0 + std::fabs(value) + scale)};
}

// L'(x): the mean of the means under the softmax weights w_j e^{m_j x - m_j^2/2}.
double GaussianMixturePair::forward_slope(double x) const {
  double top = -kInf;
  for (std::size_t k = 0; k < components_.size(); ++k)
    top = std::max(top, components_[k].mean * x - 0.5 * components_[k].mean * components_[k].mean + log_weights_[k]);
  double num = 0.0, den = 0.0;
  for (std::size_t k = 0; k < components_.size(); ++k) {
    const auto& c = components_[k];
    const double e = std::exp(c.mean * x - 0.5 * c.mean * c.mean + log_weights_[k] - top);
    num += c.mean * e;
    den += e;
  }
  return num / den;
}

// A threshold t whose exact forward loss is >= target (above) or <= target (below), near the root.
GaussianMixturePair::Threshold GaussianMixturePair::threshold_for(double target, bool above) const {
  // One or two components (a Gaussian, a Poisson-subsampled Gaussian): the root in closed form,
  // x = (log((e^target - w_0) / w_1) + m^2/2) / m; then only the step away from it below.
  double x = 0.0;
  bool closed = false;
  if (components_.size() == 1) {
    const double m = components_[0].mean;
    x = (target + 0.5 * m * m) / m;
    closed = true;
  } else if (components_.size() == 2 && components_[0].mean == 0.0 && target > log_zero_weight_) {
    const double log_w0 = log_weights_[0], log_w1 = log_weights_[1], m = components_[1].mean;
    // e^target - w0 = w0 (e^{target - log w0} - 1), computed without cancellation
    const double excess = log_w0 + std::log(std::expm1(target - log_w0));
    x = (excess - log_w1 + 0.5 * m * m) / m;
    closed = std::isfinite(x);
  }
  if (!closed) x = newton_root(target);
  // Step away from the root until the loss, with its error, is on the requested side; the first
  // step is what the loss's error bound needs at the slope L'(x) (the softmax mean of the means).
  auto on_side = [&](const Approx& l) { return above ? l.value - l.error >= target : l.value + l.error <= target; };
  Approx l = forward_loss(x);
  if (on_side(l)) return {x, l};
  double step = 4.0 * u * std::max(1.0, std::fabs(x));
  if (std::isfinite(x)) {
    const double slope = forward_slope(x);
    if (slope > 0.0) step = std::max(step, 2.0 * l.error / slope);
  }
  for (int i = 1; i < 200; ++i) {
    x += above ? step : -step;
    step *= 2.0;
    l = forward_loss(x);
    if (on_side(l)) return {x, l};
  }
  return {above ? kInf : -kInf, l};
}

// The root of L(x) = target by bracketing and safeguarded Newton (any number of components).
double GaussianMixturePair::newton_root(double target) const {
  // Bracket the root: L is increasing; expand from 0 by doubling.
  double a = -1.0, b = 1.0;
  for (int i = 0; i < 64 && forward_loss(a).value >= target; ++i) a *= 2.0;
  for (int i = 0; i < 64 && forward_loss(b).value <= target; ++i) b *= 2.0;
  // Safeguarded Newton; L'(x) is the softmax-weighted mean of the means.
  double x = 0.5 * (a + b);
  for (int it = 0; it < 200; ++it) {
    const Approx l = forward_loss(x);
    if (l.value < target)
      a = x;
    else
      b = x;
    if (std::fabs(l.value - target) <= l.error || b - a <= 4.0 * u * std::max(1.0, std::fabs(x))) break;
    const double slope = forward_slope(x);
    double next = slope > 0.0 ? x - (l.value - target) / slope : 0.5 * (a + b);
    if (!(next > a && next < b)) next = 0.5 * (a + b);
    x = next;
  }
  return x;
}

// delta(L(t)) of the forward pair and its error bound.
double GaussianMixturePair::forward_value(double t, double& error, double& p_tail) const {
  p_tail = 0.0;
  if (t == kInf) {
    error = 0.0;
    return 0.0;
  }
  double value = 0.0;
  error = 0.0;
  const double mt = t >= 0.0 ? normal_mills_ratio(t) : 0.0;
  const double tail_t = t >= 0.0 ? 0.0 : upper_tail(t);
  for (const auto& c : components_) {
    const double s = t - c.mean;
    double term, scale, rel;
    if (t >= 0.0 && s >= 0.0) {  // Mills form: phi(s) [M(s) - M(t)], both terms >= 0
      const double ps = phi(s);
      const double ms = c.mean == 0.0 ? mt : normal_mills_ratio(s);  // s = t: the same ratio
      term = ps * (ms - mt);
      scale = ps * (ms + mt);
      rel = 24.0 + 0.5 * s * s;
      p_tail += c.weight * ps * ms;
    } else if (t >= 0.0) {
      // s < 0: Phi(-s) - phi(s) M(t), with Phi(-s) >= 1/2 (no cancellation to fear). The Mills form
      // would take phi(s) M(s) = Phi(-s) as 0 * inf once phi(s) underflows (s below about -38.6,
      // a component far above the threshold), dropping a component worth its whole weight (issue 34).
      const double ts = upper_tail(s);
      const double ps = phi(s);  // an underflow here only drops a term below 1e-300, subtracted: value up
      term = ts - ps * mt;
      scale = ts + ps * mt;
      rel = 24.0 + 0.5 * s * s;
      p_tail += c.weight * ts;
    } else {  // direct form: Phi(-s) - e^{m t - m^2/2} Phi(-t), no underflow for t < 0
      const double e = std::exp(c.mean * t - 0.5 * c.mean * c.mean);
      const double ts = upper_tail(s);
      term = ts - e * tail_t;
      scale = ts + e * tail_t;
      rel = 24.0 + std::fabs(c.mean * t) + c.mean * c.mean;
      p_tail += c.weight * ts;
    }
    value += c.weight * term;
    error += c.weight * (scale * rel * u + kUnderflow);
  }
  error += 4.0 * static_cast<double>(components_.size()) * u * std::fabs(value);
  return std::max(value, 0.0);
}

// delta(-L(t)) of the reverse pair and its error bound.
double GaussianMixturePair::reverse_value(double t, const Approx& l, double& error, double& p_tail) const {
  p_tail = 0.0;
  if (t == -kInf) {
    error = 0.0;
    return 0.0;
  }
  p_tail = upper_tail(-t);  // P = N(0, 1) on {x < t}
  double value = 0.0;
  error = 0.0;
  if (t <= 0.0) {  // Mills form: e^{-L} sum_j w_j phi(t - m_j) [M(-t) - M(m_j - t)]
    const double mt = normal_mills_ratio(-t);
    for (const auto& c : components_) {
      const double s = c.mean - t;
      const double p = kInvSqrt2Pi * std::exp(-0.5 * s * s - l.value);
      const double ms = c.mean == 0.0 ? mt : normal_mills_ratio(s);  // s = -t: the same ratio
      value += c.weight * p * (mt - ms);
      error += c.weight * p * (mt + ms) * (24.0 + 0.5 * s * s + std::fabs(l.value) + l.error / u) * u;
    }
  } else {  // direct form: Phi(t) - e^{-L} sum_j w_j Phi(t - m_j)
    const double el = std::exp(-l.value);
    double sum = 0.0;
    const double head = p_tail;  // Phi(t)
    for (const auto& c : components_) sum += c.weight * (c.mean == 0.0 ? head : upper_tail(c.mean - t));
    value = head - el * sum;
    error = (head + el * sum) * (24.0 + std::fabs(l.value) + l.error / u) * u + kUnderflow;
  }
  error += 4.0 * static_cast<double>(components_.size()) * u * std::fabs(value);
  return std::max(value, 0.0);
}

Approx GaussianMixturePair::hockey_stick(double epsilon) const {
  if (std::isnan(epsilon)) throw std::invalid_argument("hockey_stick: epsilon is NaN");
  if (epsilon == kInf) return {0.0, 0.0};
  if (epsilon == -kInf) return {1.0, 0.0};
  // One threshold t whose exact loss eps_t is <= epsilon: delta(eps_t) >= delta(epsilon) is the
  // upper value, and since |d delta / d eps| = e^eps Q(L > eps) <= P(L > eps), delta(epsilon) >=
  // delta(eps_t) - P(L > eps_t) (epsilon - eps_t) the lower one.
  double value = 0.0, error = 0.0, p_tail = 0.0, slack = 0.0;
  if (direction_ == Direction::Forward) {
    if (zero_weight_ > 0.0 && epsilon <= log_zero_weight_) {
      const double v = -std::expm1(epsilon);  // the optimal set is everything
      return {v, 4.0 * u * v};
    }
    const auto [t, l] = threshold_for(epsilon, /*above=*/false);
    if (t == -kInf) return {0.5 * (1.0 - zero_weight_), 0.5 * (1.0 - zero_weight_) + 4.0 * u};  // [0, 1 - w_0]
    value = forward_value(t, error, p_tail);
    slack = epsilon - (l.value - l.error);
  } else {
    if (zero_weight_ > 0.0 && epsilon >= -log_zero_weight_) return {0.0, 0.0};
    const auto [t, l] = threshold_for(-epsilon, /*above=*/true);  // -L(t) <= epsilon
    if (t == kInf) return {0.5, 0.5 + 4.0 * u};                   // [0, 1]
    value = reverse_value(t, l, error, p_tail);
    slack = epsilon + l.value + l.error;
  }
  const double hi = value + error;
  const double lo = std::max(0.0, value - error - p_tail * std::max(0.0, slack) * (1.0 + 4.0 * u));
  return {0.5 * (hi + lo), 0.5 * (hi - lo) * (1.0 + 4.0 * u) + 4.0 * u * hi};
}

void GaussianMixturePair::loss_range(double tail, double& lo, double& hi) const {
  if (!(tail > 0.0 && tail < 0.5)) throw std::invalid_argument("loss_range: tail must lie in (0, 1/2)");
  const double z = upper_quantile(tail);
  if (direction_ == Direction::Forward) {
    const Approx a = forward_loss(min_mean_ - z), b = forward_loss(max_mean_ + z);
    lo = a.value - a.error;
    if (zero_weight_ > 0.0) lo = std::max(lo, log_zero_weight_ - 4.0 * u);
    hi = b.value + b.error;
  } else {
    const Approx a = forward_loss(z), b = forward_loss(-z);
    lo = -a.value - a.error;
    hi = -b.value + b.error;
    if (zero_weight_ > 0.0) hi = std::min(hi, -log_zero_weight_ + 4.0 * u * (1.0 - log_zero_weight_));
  }
}

GaussianMixturePair gaussian_pair(double mu) {
  if (!(mu > 0.0) || !std::isfinite(mu))
    throw std::invalid_argument("Gaussian pair: mu = " + format_number(mu) + " must be positive");
  return GaussianMixturePair({{1.0, mu}}, GaussianMixturePair::Direction::Forward,
                             "Gaussian, mu = " + format_number(mu));
}

GaussianMixturePair subsampled_gaussian_pair(double q, double mu, GaussianMixturePair::Direction direction) {
  if (!(q > 0.0 && q <= 1.0))
    throw std::invalid_argument("subsampled Gaussian: q = " + format_number(q) + " must lie in (0, 1]");
  if (q == 1.0) return GaussianMixturePair({{1.0, mu}}, direction, "Gaussian, mu = " + format_number(mu));
  const char* name = direction == GaussianMixturePair::Direction::Forward ? "remove" : "add";
  return GaussianMixturePair({{1.0 - q, 0.0}, {q, mu}}, direction,
                             std::string("Poisson-subsampled Gaussian (") + name + "), q = " + format_number(q) +
                                 ", mu = " + format_number(mu));
}

}  // namespace rdpdyn::pld
