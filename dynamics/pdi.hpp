#pragma once
// Coefficients of the Rényi-divergence PDI of C21 (Lemma 2 + Lemma 3, eq. (13)) in the
// characteristic variables y = ln(alpha - 1), w = R / alpha (docs/math.md section 2.2):
//
//   w_t + a1 w_y <= a2 - a1 w,   a1 = 2 (1 - gamma) sigma^2 c,   a2 = S_v^2 / (4 gamma sigma^2).
#include <algorithm>
#include <cmath>
#include <limits>

namespace rdpdyn::pdi {

/// a1: transport speed in y and decay rate of w (C21 eq. (13)).
inline double transport_speed(double gamma, double sigma, double lsi_c) {
  return 2.0 * (1.0 - gamma) * sigma * sigma * lsi_c;
}

/// a2: source rate of w (C21 eq. (13)).
inline double source_rate(double gamma, double sigma, double sensitivity) {
  return sensitivity * sensitivity / (4.0 * gamma * sigma * sigma);
}

/// P = S_v^2 / (4 sigma^2): the source rate at gamma = 1 (docs/math.md sections 2.2, 3.4).
inline double source_scale(double sigma, double sensitivity) {
  return sensitivity * sensitivity / (4.0 * sigma * sigma);
}

/// Q = 2 sigma^2 c: the decay rate at gamma = 0 (docs/math.md sections 2.2, 3.4).
inline double decay_scale(double sigma, double lsi_c) { return 2.0 * sigma * sigma * lsi_c; }

/// The gamma in (0, 1] minimising a2 - a1 w for data linear in alpha (w_y = 0):
/// d/dgamma [P/gamma - (1 - gamma) Q w] = 0 gives gamma* = min(1, sqrt(P / (Q w)))
/// (docs/math.md section 3.4).
/// With P = 0 the infimum is at gamma -> 0; the smallest positive double stands for it (a2 = 0).
inline double optimal_gamma(double P, double Q, double w) {
  if (Q * w <= P) return 1.0;
  return std::max(std::sqrt(P / (Q * w)), std::numeric_limits<double>::min());
}

/// The minimised right-hand side at gamma*: P if Q w <= P, else 2 sqrt(P Q w) - Q w
/// (docs/math.md section 3.4).
/// Continuous and C^1 in w across the switch Q w = P.
inline double optimal_rate(double P, double Q, double w) {
  if (Q * w <= P) return P;
  return 2.0 * std::sqrt(P * Q * w) - Q * w;
}

}  // namespace rdpdyn::pdi
