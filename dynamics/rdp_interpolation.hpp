#pragma once
// Sound upper interpolation of Rényi divergence values known (as upper bounds) at a few orders.
#include <span>

namespace rdpdyn {

/// An upper bound on R_alpha given upper bounds values_i >= R_{alpha_i} at strictly increasing
/// orders alpha_i > 1 of a true Rényi divergence curve. It is the smaller of
///  (a) min over alpha_i >= alpha of values_i: R_alpha is non-decreasing in alpha (van Erven &
///      Harremoes 2014, Thm 3);
///  (b) between two nodes, the chord of (alpha - 1) R_alpha, which is convex in alpha (van Erven &
///      Harremoes 2014, Cor. 2: a log-moment-generating function).
/// Below the first node the bound is (a); above the last node there is none: +infinity.
double rdp_upper_interpolation(std::span<const double> alpha, std::span<const double> values, double order);

}  // namespace rdpdyn
