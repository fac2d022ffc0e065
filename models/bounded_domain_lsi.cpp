#include "models/bounded_domain_lsi.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "numerics/outward_rounding.hpp"

namespace rdpdyn::bounded_domain {

double mixture_inverse_lsi(double support_diameter, double noise_variance) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  if (!(noise_variance > 0.0)) return kInf;
  const double r = support_diameter * support_diameter / noise_variance;  // D^2 / s^2
  const double chi2 = std::expm1(r);                                      // sup chi^2 of two kernels
  if (!std::isfinite(chi2)) return kInf;
  const double value = noise_variance * (2.0 + (1.0 + chi2 / 4.0) * (1.0 + r / 2.0));
  // About ten operations and expm1 within a few ulps (64 u, outward_rounding.hpp), and r = D^2/s^2
  // itself a few ulps off, which e^r turns into a relative r u each: 4 r u more.
  return outward::round_up(value, outward::recursion_margin(0) + 4.0 * r * outward::kUnitRoundoff);
}

double mapped_diameter(double diameter, double lipschitz, double eta, std::optional<double> gradient_norm_bound) {
  double d = lipschitz * diameter;
  if (gradient_norm_bound) d = std::min(d, diameter + 2.0 * eta * *gradient_norm_bound);
  return outward::round_up(d, outward::recursion_margin(0));
}

}  // namespace rdpdyn::bounded_domain
