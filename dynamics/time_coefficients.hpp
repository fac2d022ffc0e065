#pragma once
// Time-dependent noise sigma(t) and vector-field sensitivity S_v(t) of a diffusion interval: the
// coefficients of the PDI (C21 eq. (13)) given as functions of the global time t, for the
// coefficient-level runs (algorithm.kind = "pdi"). An empty function means the interval's
// constant holds. The engines evaluate them exactly at every time they integrate at (never a
// sampled bound), so the PDI they solve is the one the user wrote down.
#include <cmath>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace rdpdyn {

struct TimeFunction {
  std::function<double(double t)> f;
  std::string description;  ///< the expression text, for messages
  std::string key;          ///< the configuration key it came from, for messages
};

struct TimeCoefficients {
  TimeFunction sigma;        ///< sigma(t) > 0 (C21 convention: dt adds N(0, 2 sigma(t)^2 dt I))
  TimeFunction sensitivity;  ///< S_v(t) >= 0 (C21 App. B Def. B.9, eq. (37))
  bool varies() const { return static_cast<bool>(sigma.f) || static_cast<bool>(sensitivity.f); }
};

/// The coefficient at time t, or `constant` when it does not vary. Throws std::domain_error (exit 2,
/// naming the key, the expression and the rule) when it leaves its domain: sigma must be finite
/// and > 0 (a2 = S_v^2 / (4 gamma sigma^2) is infinite at sigma = 0), S_v finite and >= 0.
inline double coefficient_at(const TimeFunction& g, double constant, double t, bool strictly_positive) {
  if (!g.f) return constant;
  const double v = g.f(t);
  if (std::isfinite(v) && (strictly_positive ? v > 0.0 : v >= 0.0)) return v;
  std::ostringstream msg;
  msg.precision(17);
  msg << "'" << g.key << "' = \"" << g.description << "\": gave " << v << " at t = " << t << ": it must be finite and "
      << (strictly_positive ? "> 0" : ">= 0") << " at every t in [0, algorithm.time]";
  throw std::domain_error(msg.str());
}

}  // namespace rdpdyn
