#include "accounting/zcdp.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "accounting/epsilon_over_orders.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
/// As the single-order conversions (accounting/epsilon_delta.cpp): 8 u times the terms' magnitudes.
constexpr double kUlps = 8.0;

void check(double rho, double delta) {
  if (!(rho >= 0.0)) throw std::invalid_argument("zCDP conversion: rho = " + std::to_string(rho) + " must be >= 0");
  if (!(delta > 0.0 && delta < 1.0))
    throw std::invalid_argument("zCDP conversion: delta = " + std::to_string(delta) + " must lie in (0, 1)");
}

/// alpha rho rounded up: R = rho alpha bounded from above at a double order.
double linear_at(double alpha, double rho) {
  const double r = alpha * rho;
  return r == 0.0 || !std::isfinite(r) ? r : std::nextafter(r, kInf);
}

}  // namespace

double epsilon_zcdp_bun_steinke(double rho, double delta) {
  check(rho, delta);
  if (std::isinf(rho)) return kInf;
  if (rho == 0.0) return 0.0;  // identical laws
  // Bun & Steinke 2016 (arXiv:1605.02065) Prop. 1.3: rho-zCDP implies
  // (rho + 2 sqrt(rho log(1/delta)), delta)-DP. Terms: log (1 ulp), product, sqrt, sum.
  const double root = 2.0 * std::sqrt(rho * -std::log(delta));
  return outward::round_up_sum(rho + root, rho + root, kUlps);
}

EpsilonAtOrder epsilon_zcdp(double rho, double delta) {
  check(rho, delta);
  if (rho == 0.0) return {0.0, kNaN, RdpConversion::Zcdp};
  if (std::isinf(rho)) return {kInf, kNaN, RdpConversion::Zcdp};
  const double log_inv_delta = -std::log(delta);
  // The Bun & Steinke order: the minimiser of Mironov's rho alpha + ln(1/delta)/(alpha - 1); the
  // improved conversion's minimiser lies within a factor of a few of it, so a range 10^3 times
  // wider contains it (CKS 2020 Cor. 13 minimised over alpha > 1, up to the grid's resolution).
  const double bs_order = 1.0 + std::sqrt(log_inv_delta / rho);
  const double alpha_max = std::min(1e300 / std::max(rho, 1.0), std::max(kDefaultMaxOrder, 1e3 * bs_order));
  EpsilonAtOrder best =
      minimise_epsilon([rho](double alpha) { return linear_at(alpha, rho); }, delta, alpha_max, RdpConversion::Best);
  const double bs = epsilon_zcdp_bun_steinke(rho, delta);
  if (bs < best.epsilon) best = {bs, bs_order, RdpConversion::Zcdp};
  best.conversion = RdpConversion::Zcdp;
  return best;
}

}  // namespace rdpdyn
