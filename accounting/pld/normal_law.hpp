#pragma once
// The standard normal density, upper tail and upper quantile, as the Gaussian pairs evaluate them.
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <numbers>

namespace rdpdyn::pld::normal {

/// phi(x) = e^{-x^2/2} / sqrt(2 pi); relative error about (x^2/2 + 2) u.
inline double density(double x) { return (1.0 / std::sqrt(2.0 * std::numbers::pi)) * std::exp(-0.5 * x * x); }
/// Phi(-x), the upper tail; erfc is accurate to a few ulps relative over its range.
inline double upper_tail(double x) { return 0.5 * std::erfc(x / std::numbers::sqrt2); }
/// z with Phi(-z) = tail, tail in (0, 1).
inline double upper_quantile(double tail) { return std::numbers::sqrt2 * boost::math::erfc_inv(2.0 * tail); }

}  // namespace rdpdyn::pld::normal
