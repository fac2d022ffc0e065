#include "accounting/pld/antipodal_mixture_pair.hpp"

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
using normal::density, normal::upper_tail;

/// log(1 + e^s) without overflow or cancellation.
double softplus(double s) { return s > 0.0 ? s + std::log1p(std::exp(-s)) : std::log1p(std::exp(s)); }
/// 1 / (1 + e^{-s}).
double logistic(double s) { return s >= 0.0 ? 1.0 / (1.0 + std::exp(-s)) : std::exp(s) / (1.0 + std::exp(s)); }

/// A - B of two nonnegative terms, each with relative error at most rel u, and the bound on the result's error.
struct Difference {
  double value, error;
};
Difference difference(double a, double b, double rel) { return {a - b, (a + b) * rel * u}; }

}  // namespace

AntipodalMixturePair::AntipodalMixturePair(double q, double c) : q_(q), c_(c) {
  if (!(q > 0.0 && q < 1.0))
    throw std::invalid_argument("antipodal pair: q = " + format_number(q) + " must lie in (0, 1)");
  if (!(c > 0.0) || !std::isfinite(c))
    throw std::invalid_argument("antipodal pair: c = " + format_number(c) + " must be positive and finite");
  log_k_ = std::log(q) - std::log1p(-q) - 0.5 * c * c;
}

// L(x) = log(1-q) + softplus(c x + log k) - [log(1-q) + softplus(-c x + log k)].
Approx AntipodalMixturePair::loss(double x) const {
  const double cx = c_ * x;
  const double value = softplus(cx + log_k_) - softplus(-cx + log_k_);
  // each softplus is within a few u of its value at the rounded argument, whose error is u (|c x| + |log k|)
  return {value, 16.0 * u * (2.0 + std::fabs(cx) + std::fabs(log_k_) + std::fabs(value))};
}

double AntipodalMixturePair::threshold_below(double epsilon) const {
  if (epsilon == 0.0) return 0.0;  // L is odd: L(0) = 0 exactly
  // e^eps = a (1 + k a) / (a + k) with a = e^{c t}: k a^2 + (1 - e^eps) a - k e^eps = 0, whose positive
  // root is a = e^eps w / (2 k) with w = (1 - e^{-eps}) + sqrt((1 - e^{-eps})^2 + 4 k^2 e^{-eps}) (no cancellation)
  const double m = -std::expm1(-epsilon);
  const double w = m + std::sqrt(m * m + std::exp(2.0 * log_k_ + 2.0 * std::numbers::ln2 - epsilon));
  double t = (epsilon + std::log(w) - std::numbers::ln2 - log_k_) / c_;
  if (!std::isfinite(t)) return std::isnan(t) ? 0.0 : t;
  // Step down until the loss, with its error bound, is at most epsilon; the first step is what the error
  // bound needs at the slope L'(t) = c [sigma(c t + log k) + sigma(-c t + log k)].
  const double slope = c_ * (logistic(c_ * t + log_k_) + logistic(-c_ * t + log_k_));
  double step = std::max(4.0 * u * std::max(1.0, t), slope > 0.0 ? 2.0 * loss(t).error / slope : 0.0);
  for (int i = 0; i < 200 && t > 0.0; ++i) {
    const Approx l = loss(t);
    if (l.value + l.error <= epsilon) return t;
    t -= step;
    step *= 2.0;
  }
  return 0.0;  // exact loss 0 <= epsilon
}

// delta(L(t)) = (T1 + T2 + T3) / D for t >= 0 (the density of Q at t divided out as phi(t) D):
//   T1 = (1-q) q phi(t+c) [M(t) - M(t+c)]
//   T2 = q (1-q) phi(t-c) [M(t-c) - M(t)]        = q (1-q) [Phi(c-t) - phi(t-c) M(t)]
//   T3 = q^2 e^{-c^2} phi(t) [M(t-c) - M(t+c)]   (e^{-c^2} phi(t) M(t-c) = Phi(c-t) e^{-c^2/2 - c t})
//   D  = (1-q) + q e^{-c t - c^2/2}
// each bracket >= 0 (M decreasing); the Phi(c-t) forms where t - c < 0 keep M's argument >= 0.
double AntipodalMixturePair::value_at(double t, double& error, double& p_tail) const {
  const double c = c_, q = q_, s = t - c, r = t + c;
  const double mt = normal_mills_ratio(t), mr = normal_mills_ratio(r);
  const double pr = density(r);
  const double rel_r = 32.0 + r * r, rel_s = 32.0 + s * s + c * c + std::fabs(c * t);
  const Difference t1 = difference(pr * mt, pr * mr, rel_r);
  Difference t2{}, t3{};
  const double e3 = std::exp(-c * c) * density(t);
  if (s >= 0.0) {
    const double ps = density(s), ms = normal_mills_ratio(s);
    t2 = difference(ps * ms, ps * mt, rel_s);
    t3 = difference(e3 * ms, e3 * mr, rel_s + c * c);
  } else {
    const double tail = upper_tail(s);
    t2 = difference(tail, density(s) * mt, rel_s);
    t3 = difference(tail * std::exp(-0.5 * c * c - c * t), e3 * mr, rel_s + c * c);
  }
  const double d = (1.0 - q) + q * std::exp(-c * t - 0.5 * c * c);
  const double numerator = q * (1.0 - q) * (t1.value + t2.value) + q * q * t3.value;
  const double value = numerator / d;
  // the terms' errors, the weights' and the sums' rounding, D's relative error (32 + c t + c^2) u;
  // 1e-300 for what underflows
  error = (q * (1.0 - q) * (t1.error + t2.error) + q * q * t3.error) / d +
          (16.0 + 32.0 + c * t + c * c) * u * std::fabs(value) + 1e-300;
  p_tail = (1.0 - q) * upper_tail(t) + q * upper_tail(s);
  return std::max(value, 0.0);
}

Approx AntipodalMixturePair::profile_nonnegative(double epsilon) const {
  const double t = threshold_below(epsilon);
  if (t == kInf) return {0.5e-300, 0.5e-300};  // beyond every double's threshold: below phi's underflow
  double error = 0.0, p_tail = 0.0;
  const double value = value_at(t, error, p_tail);
  // delta(L(t)) >= delta(epsilon) since L(t) <= epsilon; and |d delta / d eps| <= P(L > eps)
  const Approx l = t == 0.0 ? Approx{0.0, 0.0} : loss(t);
  const double slack = epsilon - (l.value - l.error);
  const double hi = value + error;
  const double lo = std::max(0.0, value - error - p_tail * std::max(0.0, slack) * (1.0 + 4.0 * u));
  return {0.5 * (hi + lo), 0.5 * (hi - lo) * (1.0 + 4.0 * u) + 4.0 * u * hi};
}

Approx AntipodalMixturePair::hockey_stick(double epsilon) const {
  if (std::isnan(epsilon)) throw std::invalid_argument("hockey_stick: epsilon is NaN");
  if (epsilon == kInf) return {0.0, 0.0};
  if (epsilon == -kInf) return {1.0, 0.0};
  if (epsilon >= 0.0) return profile_nonnegative(epsilon);
  // the reflection swaps P and Q: H_a(P || Q) = 1 - a + a H_{1/a}(Q || P) = 1 - a + a H_{1/a}(P || Q)
  const Approx d = profile_nonnegative(-epsilon);
  const double a = std::exp(epsilon), base = -std::expm1(epsilon);
  const double value = base + a * d.value;
  return {value, a * d.error * (1.0 + 4.0 * u) + 8.0 * u * (base + a * std::fabs(d.value))};
}

void AntipodalMixturePair::loss_range(double tail, double& lo, double& hi) const {
  if (!(tail > 0.0 && tail < 0.5)) throw std::invalid_argument("loss_range: tail must lie in (0, 1/2)");
  // under P, x < -z has mass (1-q) Phi(-z) + q Phi(-z-c) <= tail, x > c + z likewise; L is increasing
  const double z = normal::upper_quantile(tail);
  lo = loss(-z).lower();
  hi = loss(c_ + z).upper();
}

std::string AntipodalMixturePair::describe() const {
  return "Poisson-subsampled Gaussian under replace-one, antipodal records (norm-bounded gradients), q = " +
         format_number(q_) + ", c = " + format_number(c_);
}

}  // namespace rdpdyn::pld
