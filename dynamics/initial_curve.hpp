#pragma once
// Initial data R_0(alpha) of the PDI: an upper bound on the Rényi divergence of the two laws at
// t = 0. Every kind returns an upper bound of what it represents; `Table` interpolates soundly.
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace rdpdyn {

/// Identical initial laws: R_0 = 0.
struct ZeroCurve {};

/// R_0 = slope * alpha, e.g. a released Gaussian mechanism alpha Delta^2 / (2 s^2).
struct LinearCurve {
  double slope;
};

/// R_0 = scale * alpha^exponent (exponent 2 is the transport test of docs/math.md section 2.3).
struct PowerCurve {
  double scale;
  double exponent;
};

/// Tabulated upper bounds R_0(alpha_i) <= values_i at strictly increasing orders alpha_i > 1,
/// with non-decreasing values. Between nodes the curve is the smaller of
///  (a) the next node's value (R_alpha is non-decreasing in alpha: van Erven & Harremoes 2014,
///      Thm 3), and
///  (b) the chord of (alpha - 1) R_alpha, which is convex in alpha (van Erven & Harremoes 2014,
///      Cor. 2: it is a log-moment-generating function),
/// both of which are upper bounds of the true divergence given upper bounds at the nodes. Below
/// the first node the closure is the first value (monotonicity; the chord through (1, 0) gives
/// the same). Above the last node no sound extrapolation exists: the value is +infinity.
struct TableCurve {
  std::vector<double> alpha;
  std::vector<double> values;
};

/// A user-supplied function R_0(alpha); the user certifies it is an upper bound.
struct FunctionCurve {
  std::function<double(double alpha)> rdp;
  std::string description;
};

using InitialCurve = std::variant<ZeroCurve, LinearCurve, PowerCurve, TableCurve, FunctionCurve>;

/// R_0(alpha), an upper bound (see the kinds above). alpha > 1.
double initial_rdp(const InitialCurve& curve, double alpha);

/// True when R_0 is exactly linear in alpha (w_0 = R_0 / alpha constant): the PDI solution then
/// stays linear and the pointwise-optimal gamma is a function of time only.
bool is_linear_in_alpha(const InitialCurve& curve);

/// w_0 = R_0 / alpha for a curve that is linear in alpha. Precondition: is_linear_in_alpha.
double linear_initial_slope(const InitialCurve& curve);

/// The curve kind as written in configs and output metadata ("zero", "linear", ...).
std::string initial_curve_kind(const InitialCurve& curve);

}  // namespace rdpdyn
