#include "accounting/gaussian_dp.hpp"

#include <boost/math/special_functions/erf.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kLogSqrtTwoPi = 0.91893853320467274178032973640561764;  // ln sqrt(2 pi)
/// Below it the Mills ratio comes from erfc (exp(x^2/2) <= e^4.5 keeps its relative error ~1e-15);
/// above it from the continued fraction, which converges to 1e-24 in 100 terms there (checked
/// against mpmath while writing this).
constexpr double kMillsSwitch = 3.0;
constexpr int kMillsTerms = 100;

/// ln Phi(-x), for any real x.
double log_normal_tail(double x) {
  if (x < kMillsSwitch) return std::log(0.5 * boost::math::erfc(x / std::numbers::sqrt2));
  return -0.5 * x * x - kLogSqrtTwoPi + std::log(normal_mills_ratio(x));
}

/// ln delta(epsilon) and a bound on its absolute error (the relative error of delta): the
/// difference of two positive terms loses (sum / difference) times the terms' own error.
struct LogDelta {
  double value;
  double error;
};

LogDelta log_delta_with_error(double mu, double epsilon) {
  const double a = epsilon / mu - 0.5 * mu, b = a + mu;
  constexpr double kTermUlps = 64.0;  // erfc, exp, log and the CF: a few ulps each, with room
  if (a < 1.0) {
    // Phi(-a) >= Phi(-1) = 0.159: no underflow; e^epsilon Phi(-b) in log space (epsilon may be large).
    const double first = 0.5 * boost::math::erfc(a / std::numbers::sqrt2);
    const double second = std::exp(epsilon + log_normal_tail(b));
    const double diff = first - second;
    const double error = kTermUlps * outward::kUnitRoundoff * (first + second) / diff * (1.0 + std::fabs(epsilon));
    return {std::log(diff), error};
  }
  // a >= 1: delta = phi(a) (m(a) - m(b)), phi(a) = exp(-a^2/2) / sqrt(2 pi) in log space.
  const double ma = normal_mills_ratio(a), mb = normal_mills_ratio(b);
  // a = epsilon/mu - mu/2 itself carries an absolute error ~ u (epsilon/mu + mu/2), which enters
  // -a^2/2 times a (large when mu is large and a cancels).
  const double error =
      kTermUlps * outward::kUnitRoundoff * ((ma + mb) / (ma - mb) + a * a + a * (epsilon / mu + 0.5 * mu));
  return {-0.5 * a * a - kLogSqrtTwoPi + std::log(ma - mb), error};
}

void check_mu(double mu, const char* who) {
  if (!(mu >= 0.0)) throw std::invalid_argument(std::string(who) + ": mu = " + std::to_string(mu) + " must be >= 0");
}

}  // namespace

namespace {

// On [kMillsSwitch, kMillsTableEnd) the Mills ratio comes from a Taylor table: the backward
// continued fraction needs 16 + 800/x^2 dependent divisions (105 at x = 3, 0.23 us), the table
// 8 multiply-adds (10 ns). Nodes x_j = 3 + j/64; at each, c_k = M^(k)(x_j)/k! for k = 0..7 from
// M' = x M - 1, i.e. c_1 = x_j c_0 - 1 and (k + 1) c_{k+1} = x_j c_k + c_{k-1} (long double), with
// c_0 from the continued fraction in long double (30 + 1500/x^2 terms: the same long double as 4000
// terms at every node). Certificate: M(x) = int_0^inf e^{-x t - t^2/2} dt, so |M^(k)(x)| <= k!/x^{k+1}
// and the remainder after degree 7 at |x - x_j| <= 1/128 is at most 128^-8 / 3^9 < 2e-21 (absolute,
// against M >= 1/13 there); c_0 is kept as a double-double, so the result carries the rounding of
// its last addition (u/2 relative) and of the small correction d (c_1 + d (...)) (below u/100):
// within 1.0 u of a 700-term long double fraction on 10^6 points of [3, 12] (tests/accounting).
constexpr double kMillsTableEnd = 12.0;
constexpr double kMillsNodesPerUnit = 64.0;
constexpr int kMillsDegree = 7;
constexpr int kMillsNodes = static_cast<int>((kMillsTableEnd - kMillsSwitch) * kMillsNodesPerUnit) + 1;

struct MillsNode {
  double head = 0.0, tail = 0.0;         ///< c_0 = head + tail
  std::array<double, kMillsDegree> c{};  ///< c_1 .. c_7
};

std::vector<MillsNode> build_mills_table() {
  std::vector<MillsNode> table(kMillsNodes);
  for (int j = 0; j < kMillsNodes; ++j) {
    const long double x0 = static_cast<long double>(kMillsSwitch) + j / static_cast<long double>(kMillsNodesPerUnit);
    const int terms = static_cast<int>(std::ceil(30.0 + 1500.0 / static_cast<double>(x0 * x0)));
    long double t = x0;
    for (int k = terms; k >= 1; --k) t = x0 + k / t;
    std::array<long double, kMillsDegree + 1> c{};
    c[0] = 1.0L / t;
    c[1] = x0 * c[0] - 1.0L;
    for (int k = 1; k < kMillsDegree; ++k) c[k + 1] = (x0 * c[k] + c[k - 1]) / (k + 1);
    MillsNode& node = table[static_cast<std::size_t>(j)];
    node.head = static_cast<double>(c[0]);
    node.tail = static_cast<double>(c[0] - node.head);
    for (int k = 1; k <= kMillsDegree; ++k) node.c[static_cast<std::size_t>(k - 1)] = static_cast<double>(c[k]);
  }
  return table;
}

double mills_from_table(double x) {
  static const std::vector<MillsNode> table = build_mills_table();
  const auto j = static_cast<std::size_t>(std::lround((x - kMillsSwitch) * kMillsNodesPerUnit));
  const double d = x - (kMillsSwitch + static_cast<double>(j) / kMillsNodesPerUnit);  // exact: |d| <= 1/128
  const MillsNode& node = table[j];
  double p = node.c[kMillsDegree - 1];
  for (int k = kMillsDegree - 2; k >= 0; --k) p = p * d + node.c[static_cast<std::size_t>(k)];
  return node.head + (node.tail + d * p);
}

}  // namespace

double normal_mills_ratio(double x) {
  if (x < kMillsSwitch) {
    const double tail = 0.5 * boost::math::erfc(x / std::numbers::sqrt2);
    return tail * std::exp(0.5 * x * x + kLogSqrtTwoPi);
  }
  if (x < kMillsTableEnd) return mills_from_table(x);
  // Laplace's continued fraction m(x) = 1/(x + 1/(x + 2/(x + 3/(x + ...)))), evaluated backwards.
  // It converges faster for larger x: 16 + 800 / x^2 terms (at most kMillsTerms) give the same
  // double as kMillsTerms terms at every x of a dense scan of [3, 200) (10^7 points, 2026-11-27),
  // so the truncation stays below the rounding the callers already budget for.
  const int terms = std::min(kMillsTerms, static_cast<int>(std::ceil(16.0 + 800.0 / (x * x))));
  double t = x;
  for (int k = terms; k >= 1; --k) t = x + k / t;
  return 1.0 / t;
}

double gdp_log_delta(double mu, double epsilon) {
  check_mu(mu, "gdp_log_delta");
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw std::invalid_argument("gdp_log_delta: epsilon = " + std::to_string(epsilon) + " must be finite and >= 0");
  if (mu == 0.0) return -kInf;
  if (std::isinf(mu)) return 0.0;
  return log_delta_with_error(mu, epsilon).value;
}

double gdp_delta(double mu, double epsilon) { return std::exp(gdp_log_delta(mu, epsilon)); }

double gdp_delta_upper(double mu, double epsilon) {
  check_mu(mu, "gdp_delta_upper");
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon))
    throw std::invalid_argument("gdp_delta_upper: epsilon = " + std::to_string(epsilon) + " must be finite and >= 0");
  if (mu == 0.0) return 0.0;
  if (std::isinf(mu)) return 1.0;
  // delta(epsilon) <= delta(0) = P(|N(0, 1)| <= mu/2) <= mu / sqrt(2 pi) (as in gdp_epsilon).
  const double cap = std::min(
      1.0, std::nextafter(mu * (std::numbers::inv_sqrtpi / std::numbers::sqrt2) * (1.0 + 4.0 * outward::kUnitRoundoff),
                          kInf));
  const LogDelta d = log_delta_with_error(mu, epsilon);
  if (!std::isfinite(d.value + d.error)) return cap;  // cancelled beyond evaluation: the cap is certified
  // exp has an error below one ulp: one double up covers it.
  return std::min(cap, std::nextafter(std::exp(d.value + d.error), kInf));
}

double gdp_epsilon(double mu, double delta) {
  check_mu(mu, "gdp_epsilon");
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("gdp_epsilon: delta = " + std::to_string(delta) + " must lie in (0, 1)");
  if (mu == 0.0) return 0.0;
  if (std::isinf(mu)) return kInf;
  // delta(epsilon) <= delta(0) = P(|N(0, 1)| <= mu/2) <= mu / sqrt(2 pi) (the density is at most
  // 1/sqrt(2 pi)): a mu that small needs no epsilon, and its profile would only be evaluated
  // through the cancellation of two nearly equal terms (mu = 1e-300 never certified: a hang).
  if (mu * (std::numbers::inv_sqrtpi / std::numbers::sqrt2) * (1.0 + 4.0 * outward::kUnitRoundoff) <= delta) return 0.0;
  const double log_target = std::log(delta);
  // Feasible with the evaluation's error counted against it: a certified delta(epsilon) <= delta.
  auto certified = [&](double eps) {
    const LogDelta d = log_delta_with_error(mu, eps);
    return d.value + d.error <= log_target;
  };
  if (certified(0.0)) return 0.0;  // delta(0) = 2 Phi(mu/2) - 1 is already small enough
  // delta(epsilon) < Phi(-a): at a = z with Phi(-z) = delta/2 the target is met with room.
  const double z = std::numbers::sqrt2 * boost::math::erfc_inv(delta);
  double hi = mu * (z + 0.5 * mu);
  for (int doubling = 0; !certified(hi); ++doubling) {  // once or twice in practice
    // No certified epsilon below the overflow (mu near sqrt of the largest double): the empty
    // bound +inf, which is valid, rather than doubling forever.
    if (!std::isfinite(hi) || doubling == 64) return kInf;
    hi *= 2.0;
  }
  // Root of ln delta(epsilon) = target, the target lowered by the evaluation's error bound at the
  // previous root (a few 1e-11 at most where m(a) - m(b) cancels), until the root is certified.
  double lo = 0.0, target = log_target, eps = hi;
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto f = [&](double x) { return log_delta_with_error(mu, x).value - target; };
    const double f_lo = f(lo), f_hi = f(hi);
    if (!(f_lo > 0.0) || !(f_hi <= 0.0)) break;
    boost::math::tools::eps_tolerance<double> tolerance(50);
    std::uintmax_t iterations = 200;
    const auto bracket = boost::math::tools::toms748_solve(f, lo, hi, f_lo, f_hi, tolerance, iterations);
    const double root = bracket.second;  // the end with f <= 0
    if (certified(root)) {
      eps = root;
      break;
    }
    target = log_target - 2.0 * log_delta_with_error(mu, root).error * static_cast<double>(1 << attempt);
  }
  return std::nextafter(eps, kInf);  // eps = hi if no root was certified: hi is
}

double gdp_mixture_epsilon(std::span<const double> mus, double delta) {
  if (mus.empty()) return 0.0;
  double worst = 0.0;
  for (double mu : mus) {
    check_mu(mu, "gdp_mixture_epsilon");
    worst = std::max(worst, mu);
  }
  const double hi_start = gdp_epsilon(worst, delta);  // certified for every term, hence for the average
  if (!std::isfinite(hi_start) || hi_start == 0.0) return hi_start;
  const double n = static_cast<double>(mus.size());
  const double log_target = std::log(delta);
  // ln of the average's upper bound: each term raised by its error bound, the log-sum-exp's own
  // rounding (n terms, a few ulps each) as a relative margin.
  auto certified = [&](double eps) {
    double top = -kInf;
    std::vector<double> logs;
    logs.reserve(mus.size());
    for (double mu : mus) {
      if (mu == 0.0) continue;  // delta = 0
      const LogDelta d = log_delta_with_error(mu, eps);
      if (std::isnan(d.value + d.error)) return false;  // not evaluable here: not certified
      logs.push_back(d.value + d.error);
      top = std::max(top, logs.back());
    }
    if (top == -kInf) return true;
    double sum = 0.0;
    for (double l : logs) sum += std::exp(l - top);
    const double log_avg = top + std::log(sum) - std::log(n) + 8.0 * (n + 4.0) * outward::kUnitRoundoff;
    return log_avg <= log_target;
  };
  double lo = 0.0, hi = hi_start;
  if (certified(lo)) return 0.0;
  for (int i = 0; i < 80 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (certified(mid) ? hi : lo) = mid;
  }
  return std::nextafter(hi, kInf);
}

double gdp_rdp(double mu, double alpha) { return 0.5 * alpha * mu * mu; }

double gdp_compose(double mu_a, double mu_b) { return std::hypot(mu_a, mu_b); }

}  // namespace rdpdyn
