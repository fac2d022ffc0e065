#include "accounting/epsilon_delta.hpp"

#include <algorithm>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string str(double x) {
  std::ostringstream s;
  s.precision(12);
  s << x;
  return s.str();
}

void check_order(double alpha, double rdp) {
  if (!(alpha > 1.0) || std::isinf(alpha))
    throw std::invalid_argument("RDP conversion: order alpha = " + str(alpha) + " must be finite and > 1");
  if (!(rdp >= 0.0))
    throw std::invalid_argument("RDP conversion: R = " + str(rdp) + " at order " + str(alpha) +
                                " must be >= 0 (+infinity allowed)");
}

void check_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("RDP conversion: delta = " + str(delta) + " must lie in (0, 1)");
}

void check_epsilon(double epsilon) {
  if (!(epsilon >= 0.0) || std::isinf(epsilon))
    throw std::invalid_argument("RDP conversion: epsilon = " + str(epsilon) + " must be finite and >= 0");
}

void check_grid(std::span<const double> orders, std::span<const double> rdp) {
  if (orders.empty()) throw std::invalid_argument("RDP conversion: the order grid is empty");
  if (orders.size() != rdp.size())
    throw std::invalid_argument("RDP conversion: " + std::to_string(orders.size()) + " orders but " +
                                std::to_string(rdp.size()) + " RDP values");
}

// Outward rounding of the conversions (docs/math.md section 6). Each is a sum of a few terms,
// every term a handful of correctly rounded operations or 1-ulp library calls (log, log1p), so
// its rounding error is at most a few u times the sum of the terms' magnitudes, plus the
// conditioning of log1p(-1/alpha) near alpha = 1 (an error u in -1/alpha moves the log by
// u / (1 - 1/alpha) = u alpha / (alpha - 1)). The result is raised by kConversionUlps u times that
// magnitude (about twice the first-order bound) and one double: the reported epsilon or delta is
// never below the exact conversion of the given R.
constexpr double kConversionUlps = 8.0;

/// Magnitude of log(1 - 1/alpha) with its conditioning.
double log_ratio_magnitude(double alpha, double log_ratio) { return std::fabs(log_ratio) + alpha / (alpha - 1.0); }

double log_delta_improved(double alpha, double rdp, double epsilon) {
  // Balle et al. 2020 Thm 21 solved for log delta; log1p keeps log(1 - 1/alpha) accurate.
  const double log_ratio = std::log1p(-1.0 / alpha);
  const double value = (alpha - 1.0) * (rdp - epsilon + log_ratio) - std::log(alpha);
  const double magnitude =
      (alpha - 1.0) * (std::fabs(rdp) + std::fabs(epsilon) + log_ratio_magnitude(alpha, log_ratio)) + std::log(alpha);
  return outward::round_up_sum(value, magnitude, kConversionUlps);
}

/// exp of an outward-rounded log delta, raised by one double for exp's own (< 1 ulp) error.
double delta_from_log(double log_delta) {
  if (log_delta >= 0.0) return 1.0;
  if (std::isinf(log_delta)) return 0.0;
  return std::min(1.0, std::nextafter(std::exp(log_delta), kInf));
}

/// ln(e^t - 1) for t > 0 without overflow: ln(expm1 t) below t = 1, t + log1p(-e^{-t}) above.
/// Error a few u (|ln(e^t - 1)| + t + 1) (expm1, exp, log, log1p within 1 ulp; the argument t
/// carries a relative error u, which moves ln(e^t - 1) by t e^t/(e^t - 1) u <= (t + 1) u).
double log_expm1(double t) { return t <= 1.0 ? std::log(std::expm1(t)) : t + std::log1p(-std::exp(-t)); }

/// Asoodeh et al. 2021 as ln of its delta: ln(e^t - 1) - ln alpha - ln(e^s - 1), t = (alpha-1) R,
/// s = (alpha-1) epsilon, both > 0; rounded up by the terms' magnitudes (above).
double log_delta_asoodeh(double alpha, double rdp, double epsilon) {
  const double t = (alpha - 1.0) * rdp, s = (alpha - 1.0) * epsilon;
  const double a = log_expm1(t), b = std::log(alpha), c = log_expm1(s);
  const double magnitude = std::fabs(a) + t + 1.0 + b + std::fabs(c) + s + 1.0;
  return outward::round_up_sum(a - b - c, magnitude, kConversionUlps);
}

}  // namespace

const char* conversion_name(RdpConversion conversion) {
  switch (conversion) {
    case RdpConversion::Mironov:
      return "mironov";
    case RdpConversion::Improved:
      return "improved";
    case RdpConversion::Asoodeh:
      return "asoodeh";
    case RdpConversion::Zcdp:
      return "zcdp";
    case RdpConversion::Best:
      return "best";
  }
  return "unknown";
}

double epsilon_mironov(double alpha, double rdp, double delta) {
  check_order(alpha, rdp);
  check_delta(delta);
  // Mironov 2017 (Rényi Differential Privacy, CSF; arXiv:1702.07476), Prop. 3, rounded outward.
  const double log_term = -std::log(delta) / (alpha - 1.0);
  return outward::round_up_sum(rdp + log_term, std::fabs(rdp) + std::fabs(log_term), kConversionUlps);
}

double epsilon_improved(double alpha, double rdp, double delta) {
  check_order(alpha, rdp);
  check_delta(delta);
  // Balle, Barthe, Gaboardi, Hsu & Sato 2020 (AISTATS; arXiv:1905.09982), Thm 21; equivalently
  // Canonne, Kamath & Steinke 2020 (arXiv:2004.00010 v4), Prop. 12. Rounded outward; can be
  // negative for tiny R: clamp (monotone in eps).
  const double log_ratio = std::log1p(-1.0 / alpha);
  const double log_delta = std::log(delta), log_alpha = std::log(alpha);
  const double eps = rdp + log_ratio - (log_delta + log_alpha) / (alpha - 1.0);
  const double magnitude =
      std::fabs(rdp) + log_ratio_magnitude(alpha, log_ratio) + (std::fabs(log_delta) + log_alpha) / (alpha - 1.0);
  return std::max(0.0, outward::round_up_sum(eps, magnitude, kConversionUlps));
}

double epsilon_asoodeh(double alpha, double rdp, double delta) {
  check_order(alpha, rdp);
  check_delta(delta);
  // Asoodeh, Liao, Calmon, Kosut & Sankar 2021 (arXiv:2001.05990), as the `alc` conversion of the
  // shifted-interpolation scripts (Bok, Su & Altschuler 2024, plot_intro.py):
  //   epsilon = ln(1 + (e^t - 1)/(alpha delta)) / (alpha - 1),  t = (alpha - 1) R.
  // Valid at a single order (docs/math.md section 4.2: (x - g)_+ <= (x^alpha - 1 - alpha (x - 1)) /
  // (alpha (g^{alpha-1} - 1)) for x >= 0, g = e^epsilon, integrated against the reference law).
  if (std::isinf(rdp)) return kInf;
  if (rdp == 0.0) return 0.0;  // identical laws: delta = 0 at epsilon = 0
  const double t = (alpha - 1.0) * rdp;
  const double log_ad = std::log(alpha) + std::log(delta);  // ln(alpha delta), may be > 0
  // ln(1 + q), q = (e^t - 1)/(alpha delta): log1p(q) while q is finite and t small; otherwise
  // ln q + log1p(1/q) with ln q = ln(e^t - 1) - ln(alpha delta) (no overflow).
  double value, magnitude;
  const double q = t <= 1.0 ? std::expm1(t) / (alpha * delta) : kInf;
  if (std::isfinite(q)) {
    // Relative error of q: (t + 1) u from t, 1 ulp expm1, 2 roundings of alpha delta and the
    // quotient; log1p then adds at most that relative error times q/(1+q) <= log1p(q) (absolute),
    // plus its own ulp: about 7 u log1p(q) in all.
    value = std::log1p(q);
    magnitude = 2.0 * value;
  } else {
    const double log_q = log_expm1(t) - log_ad;
    const double tail = std::log1p(std::exp(-log_q));
    value = log_q + tail;
    magnitude =
        std::fabs(log_expm1(t)) + t + 1.0 + std::fabs(std::log(alpha)) + std::fabs(std::log(delta)) + tail + 1.0;
  }
  const double eps = value / (alpha - 1.0);
  // The division by alpha - 1 (itself rounded once) adds 2 u relative.
  return std::max(0.0, outward::round_up_sum(eps, magnitude / (alpha - 1.0) + std::fabs(eps), kConversionUlps));
}

ConvertedEpsilon epsilon_best_conversion(double alpha, double rdp, double delta) {
  // Every conversion is valid at this order, so the smallest is a certificate.
  ConvertedEpsilon best{epsilon_improved(alpha, rdp, delta), RdpConversion::Improved};
  const double a = epsilon_asoodeh(alpha, rdp, delta);
  if (a < best.epsilon) best = {a, RdpConversion::Asoodeh};
  const double m = epsilon_mironov(alpha, rdp, delta);
  if (m < best.epsilon) best = {m, RdpConversion::Mironov};
  return best;
}

double rdp_to_epsilon(RdpConversion conversion, double alpha, double rdp, double delta) {
  switch (conversion) {
    case RdpConversion::Mironov:
      return epsilon_mironov(alpha, rdp, delta);
    case RdpConversion::Improved:
      return epsilon_improved(alpha, rdp, delta);
    case RdpConversion::Asoodeh:
      return epsilon_asoodeh(alpha, rdp, delta);
    case RdpConversion::Best:
      return epsilon_best_conversion(alpha, rdp, delta).epsilon;
    case RdpConversion::Zcdp:
      break;
  }
  throw std::invalid_argument("rdp_to_epsilon: the zCDP route is not a conversion of one order (accounting/zcdp.hpp)");
}

double delta_mironov(double alpha, double rdp, double epsilon) {
  check_order(alpha, rdp);
  check_epsilon(epsilon);
  // Mironov 2017 Prop. 3 solved for delta, rounded outward.
  if (std::isinf(rdp)) return 1.0;
  const double log_delta = (alpha - 1.0) * (rdp - epsilon);
  return delta_from_log(
      outward::round_up_sum(log_delta, (alpha - 1.0) * (std::fabs(rdp) + std::fabs(epsilon)), kConversionUlps));
}

double delta_improved(double alpha, double rdp, double epsilon) {
  check_order(alpha, rdp);
  check_epsilon(epsilon);
  // CKS 2020 Prop. 12 in its delta form: delta = exp((alpha-1)(R-eps)) (1-1/alpha)^alpha / (alpha-1).
  if (std::isinf(rdp)) return 1.0;
  return delta_from_log(log_delta_improved(alpha, rdp, epsilon));
}

double delta_asoodeh(double alpha, double rdp, double epsilon) {
  check_order(alpha, rdp);
  check_epsilon(epsilon);
  // Asoodeh et al. 2021 in its delta form (epsilon_asoodeh above), rounded outward.
  if (std::isinf(rdp)) return 1.0;
  if (rdp == 0.0) return 0.0;
  if (epsilon == 0.0) return 1.0;
  return delta_from_log(log_delta_asoodeh(alpha, rdp, epsilon));
}

double rdp_to_delta(RdpConversion conversion, double alpha, double rdp, double epsilon) {
  switch (conversion) {
    case RdpConversion::Mironov:
      return delta_mironov(alpha, rdp, epsilon);
    case RdpConversion::Improved:
      return delta_improved(alpha, rdp, epsilon);
    case RdpConversion::Asoodeh:
      return delta_asoodeh(alpha, rdp, epsilon);
    case RdpConversion::Best:
      return std::min({delta_improved(alpha, rdp, epsilon), delta_asoodeh(alpha, rdp, epsilon),
                       delta_mironov(alpha, rdp, epsilon)});
    case RdpConversion::Zcdp:
      break;
  }
  throw std::invalid_argument("rdp_to_delta: the zCDP route is not a conversion of one order (accounting/zcdp.hpp)");
}

EpsilonAtOrder best_epsilon(std::span<const double> orders, std::span<const double> rdp, double delta,
                            RdpConversion conversion) {
  check_grid(orders, rdp);
  EpsilonAtOrder best{kInf, kNaN, conversion};
  for (std::size_t j = 0; j < orders.size(); ++j) {
    // Every order certifies its own epsilon; the smallest is the best (docs/math.md section 4).
    const ConvertedEpsilon eps =
        conversion == RdpConversion::Best
            ? epsilon_best_conversion(orders[j], rdp[j], delta)
            : ConvertedEpsilon{rdp_to_epsilon(conversion, orders[j], rdp[j], delta), conversion};
    if (eps.epsilon < best.epsilon) best = {eps.epsilon, orders[j], eps.conversion};
  }
  best.epsilon = std::max(0.0, best.epsilon);
  return best;
}

DeltaAtOrder best_delta(std::span<const double> orders, std::span<const double> rdp, double epsilon,
                        RdpConversion conversion) {
  check_grid(orders, rdp);
  DeltaAtOrder best{kInf, kNaN};
  for (std::size_t j = 0; j < orders.size(); ++j) {
    const double d = rdp_to_delta(conversion, orders[j], rdp[j], epsilon);
    if (d < best.delta) best = {d, orders[j]};
  }
  return best;
}

// ---- calibration -------------------------------------------------------------------------------

namespace {

void check_target(const PrivacyTarget& t) {
  check_epsilon(t.epsilon);
  check_delta(t.delta);
}

std::string describe(const PrivacyTarget& t) {
  return "epsilon <= " + str(t.epsilon) + " at delta = " + str(t.delta) + " (" +
         (t.conversion == RdpConversion::Best ? std::string("smallest of the conversions")
                                              : std::string(conversion_name(t.conversion)) + " conversion") +
         ")";
}

std::string describe(const EpsilonAtOrder& e) { return "epsilon = " + str(e.epsilon) + " at order " + str(e.order); }

EpsilonAtOrder evaluate(const std::vector<double>& rdp, std::span<const double> orders, const PrivacyTarget& target,
                        const std::string& where) {
  for (double r : rdp)
    if (std::isnan(r)) throw std::invalid_argument("calibration: the RDP curve at " + where + " contains NaN");
  try {
    return best_epsilon(orders, rdp, target.delta, target.conversion);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("calibration: the RDP curve at " + where + ": " + e.what());
  }
}

/// Bisection on [lo, hi] for the boundary between feasible and infeasible parameters.
/// `feasible_high`: the target is met at the high end (noise) or at the low end (time).
CalibrationResult bisect(const EpsilonOf& eps_at, const PrivacyTarget& target, double lo, double hi,
                         const CalibrationOptions& opt, bool feasible_high, const char* name) {
  check_target(target);
  if (!eps_at) throw std::invalid_argument(std::string(name) + ": no epsilon curve given");
  if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw std::invalid_argument(std::string(name) + ": the bracket [" + str(lo) + ", " + str(hi) +
                                "] must be finite with lo < hi");
  if (!(opt.relative_tolerance >= 0.0) || !(opt.absolute_tolerance >= 0.0) || opt.max_iterations < 1)
    throw std::invalid_argument(std::string(name) + ": tolerances must be >= 0 and max_iterations >= 1");

  const EpsilonAtOrder at_lo = eps_at(lo), at_hi = eps_at(hi);
  const bool ok_lo = at_lo.epsilon <= target.epsilon, ok_hi = at_hi.epsilon <= target.epsilon;
  const double good_end = feasible_high ? hi : lo, bad_end = feasible_high ? lo : hi;
  if (!(feasible_high ? ok_hi : ok_lo))
    throw std::domain_error(std::string(name) + ": the target " + describe(target) + " is not met at " +
                            (feasible_high ? "the upper" : "the lower") + " end parameter = " + str(good_end) + " (" +
                            describe(feasible_high ? at_hi : at_lo) +
                            "): " + (feasible_high ? "raise the upper end" : "lower the lower end"));
  if (feasible_high ? ok_lo : ok_hi)
    throw std::domain_error(std::string(name) + ": the target " + describe(target) + " is already met at " +
                            (feasible_high ? "the lower" : "the upper") + " end parameter = " + str(bad_end) + " (" +
                            describe(feasible_high ? at_lo : at_hi) +
                            "): " + (feasible_high ? "lower the lower end" : "raise the upper end"));

  // TOMS 748 (Alefeld, Potra, Shi 1995; Boost.Math toms748_solve) on f = epsilon - target: far
  // fewer evaluations than bisection on a continuous epsilon, and it keeps a bracket throughout.
  // Every evaluation is remembered, so the result is an evaluated parameter that meets the target
  // (never interpolated): the target is never overshot.
  double good = good_end, bad = bad_end;
  EpsilonAtOrder good_eps = feasible_high ? at_hi : at_lo;
  int evaluations = 2;
  if (good_eps.epsilon == target.epsilon) return {good, bad, good_eps, evaluations, true};
  auto f = [&](double x) {
    const EpsilonAtOrder e = eps_at(x);
    ++evaluations;
    const bool met = e.epsilon <= target.epsilon;
    if (met && std::abs(x - bad) < std::abs(good - bad)) good = x, good_eps = e;
    if (!met && std::abs(x - good) < std::abs(good - bad)) bad = x;
    // Finite stand-ins for an infinite epsilon keep the solver's arithmetic defined.
    const double d = e.epsilon - target.epsilon;
    return std::isfinite(d) ? d : std::numeric_limits<double>::max() / 4;
  };
  auto close_enough = [&](double a, double b) {
    return std::abs(b - a) <= opt.relative_tolerance * std::max(std::abs(a), std::abs(b)) + opt.absolute_tolerance;
  };
  const double f_lo = at_lo.epsilon - target.epsilon, f_hi = at_hi.epsilon - target.epsilon;
  auto finite = [](double d) { return std::isfinite(d) ? d : std::numeric_limits<double>::max() / 4; };
  std::uintmax_t iterations = static_cast<std::uintmax_t>(opt.max_iterations);
  try {
    boost::math::tools::toms748_solve(f, lo, hi, finite(f_lo), finite(f_hi), close_enough, iterations);
  } catch (const boost::math::evaluation_error&) {
    // The bracket collapsed onto adjacent doubles: the remembered ends are final.
  }
  const bool converged =
      close_enough(good, bad) || std::nextafter(good, bad) == bad || static_cast<int>(iterations) < opt.max_iterations;
  return {good, bad, good_eps, evaluations, converged};
}

}  // namespace

CalibrationResult calibrate_smallest(const RdpCurveOf& rdp_of, std::span<const double> orders,
                                     const PrivacyTarget& target, double lo, double hi,
                                     const CalibrationOptions& options) {
  if (!rdp_of) throw std::invalid_argument("calibrate_smallest: no RDP curve given");
  return bisect([&](double x) { return evaluate(rdp_of(x), orders, target, "parameter = " + str(x)); }, target, lo, hi,
                options, true, "calibrate_smallest");
}

CalibrationResult calibrate_largest(const RdpCurveOf& rdp_of, std::span<const double> orders,
                                    const PrivacyTarget& target, double lo, double hi,
                                    const CalibrationOptions& options) {
  if (!rdp_of) throw std::invalid_argument("calibrate_largest: no RDP curve given");
  return bisect([&](double x) { return evaluate(rdp_of(x), orders, target, "parameter = " + str(x)); }, target, lo, hi,
                options, false, "calibrate_largest");
}

CalibrationResult calibrate_smallest_epsilon(const EpsilonOf& epsilon_of, const PrivacyTarget& target, double lo,
                                             double hi, const CalibrationOptions& options) {
  return bisect(epsilon_of, target, lo, hi, options, true, "calibrate_smallest");
}

CountCalibrationResult calibrate_largest_count(const RdpCurveOfCount& rdp_of, std::span<const double> orders,
                                               const PrivacyTarget& target, std::int64_t lo, std::int64_t hi) {
  if (!rdp_of) throw std::invalid_argument("calibrate_largest_count: no RDP curve given");
  return calibrate_largest_count_epsilon(
      [&](std::int64_t k) { return evaluate(rdp_of(k), orders, target, "count = " + std::to_string(k)); }, target, lo,
      hi);
}

CountCalibrationResult calibrate_largest_count_epsilon(const EpsilonOfCount& eps_at, const PrivacyTarget& target,
                                                       std::int64_t lo, std::int64_t hi) {
  constexpr const char* name = "calibrate_largest_count";
  check_target(target);
  if (!eps_at) throw std::invalid_argument(std::string(name) + ": no epsilon curve given");
  if (!(lo < hi))
    throw std::invalid_argument(std::string(name) + ": the bracket [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "] must have lo < hi");
  const EpsilonAtOrder at_lo = eps_at(lo), at_hi = eps_at(hi);
  if (!(at_lo.epsilon <= target.epsilon))
    throw std::domain_error(std::string(name) + ": the target " + describe(target) +
                            " is not met at the lower end count = " + std::to_string(lo) + " (" + describe(at_lo) +
                            "): lower the lower end");
  if (at_hi.epsilon <= target.epsilon)
    throw std::domain_error(std::string(name) + ": the target " + describe(target) +
                            " is already met at the upper end count = " + std::to_string(hi) + " (" + describe(at_hi) +
                            "): raise the upper end");
  // Invariant: good meets the target, bad does not; stops when they are adjacent.
  std::int64_t good = lo, bad = hi;
  EpsilonAtOrder good_eps = at_lo;
  int evaluations = 2;
  while (bad - good > 1) {
    const std::int64_t mid = good + (bad - good) / 2;
    const EpsilonAtOrder e = eps_at(mid);
    ++evaluations;
    if (e.epsilon <= target.epsilon)
      good = mid, good_eps = e;
    else
      bad = mid;
  }
  return {good, good_eps, evaluations};
}

}  // namespace rdpdyn
