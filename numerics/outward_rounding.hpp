#pragma once
// Outward rounding of certified upper bounds (docs/math.md section 6; docs/analyses.md,
// "Outward rounding").
//
// Why: every bound rdpdyn reports is the value of an exact formula or recursion evaluated in IEEE
// double precision, and round-to-nearest lands below the exact value about half the time (on the
// squared loss of C21 Thm 3, arXiv:2102.05855, a third of the PDI values were a few ulps below
// the exact divergence). A certified upper bound must not be below the truth, so each reported
// value is raised by a relative margin that covers the rounding error of its computation and then
// moved one more double towards +infinity.
//
// The margin of a value computed by a recursion of `steps` steps is
//   margin(steps) = kMarginPerStep * (steps + kMarginBaseSteps) * u,    u = 2^-53,
// i.e. 4 u per step plus 64 u for the closed-form evaluation around the recursion. Measured on
// the characteristics engine against 50-digit references (C21 Thm 1, 2, Cor 1, 2, Thm 3 exact,
// composition, the transport solution; hundreds of random runs of 10^3 steps, some of 10^5 and
// 10^6; tests/numerics/test_outward_rounding.cpp keeps a sample): the raw relative error never exceeded
// 0.7 (steps + 16) u, so the margin is 5.7 times the largest error found. The error stops growing
// once the recursion has contracted, so the margin's linear growth is a wide bound for long runs.
// The paper analyses' recursions and closed forms (powers (1 - eta)^K, exp(-x K), sums over K
// steps) have first-order error bounds of about K u, which the same rule covers 4 times over.
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

namespace rdpdyn::outward {

/// Unit roundoff of IEEE double precision (half the machine epsilon).
inline constexpr double kUnitRoundoff = 0x1p-53;
/// Relative margin per recursion step, in units of u (4 times the worst measured 0.75 per step).
inline constexpr double kMarginPerStep = 4.0;
/// Steps' worth of margin for the evaluation around the recursion (final products, closed forms).
inline constexpr double kMarginBaseSteps = 16.0;

/// The relative margin for a value computed through `steps` steps (steps >= 0).
inline double recursion_margin(std::int64_t steps) {
  const double k = steps > 0 ? static_cast<double>(steps) : 0.0;
  return kMarginPerStep * (k + kMarginBaseSteps) * kUnitRoundoff;
}

/// x raised by `relative_margin` |x| and then to the next double towards +infinity. Exact zeros
/// stay zero (a computed zero comes from zero data: no source has acted yet), as do infinities
/// and NaN.
inline double round_up(double x, double relative_margin) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  return std::nextafter(x + relative_margin * std::fabs(x), std::numeric_limits<double>::infinity());
}

/// Every element of xs raised by round_up.
inline void round_up(std::span<double> xs, double relative_margin) {
  for (double& x : xs) x = round_up(x, relative_margin);
}

/// x lowered by `relative_margin` |x| and then to the next double towards -infinity (zeros,
/// infinities and NaN unchanged). For quantities whose smaller value gives the larger bound, e.g.
/// the transport of a characteristic (less transport, less decay).
inline double round_down(double x, double relative_margin) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  return std::nextafter(x - relative_margin * std::fabs(x), -std::numeric_limits<double>::infinity());
}

/// A value computed as a short sum of terms (a few correctly rounded or 1-ulp operations each),
/// raised by `ulps` u times `magnitude`, the sum of the terms' absolute values (the scale of the
/// rounding error when terms cancel), then one double towards +infinity. Used by the RDP ->
/// (epsilon, delta) conversions (accounting/epsilon_delta.cpp).
inline double round_up_sum(double value, double magnitude, double ulps) {
  if (!std::isfinite(value)) return value;
  return std::nextafter(value + ulps * kUnitRoundoff * std::fabs(magnitude), std::numeric_limits<double>::infinity());
}

}  // namespace rdpdyn::outward
