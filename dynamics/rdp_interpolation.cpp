#include "dynamics/rdp_interpolation.hpp"

#include <algorithm>
#include <limits>

namespace rdpdyn {

double rdp_upper_interpolation(std::span<const double> a, std::span<const double> v, double order) {
  const auto hi = static_cast<std::size_t>(std::lower_bound(a.begin(), a.end(), order) - a.begin());
  if (hi == a.size()) return std::numeric_limits<double>::infinity();
  // (a) monotonicity: the smallest bound at any order >= alpha.
  const double monotone = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(hi), v.end());
  if (hi == 0 || a[hi] == order) return std::min(monotone, v[hi]);
  // (b) chord of the convex function f(alpha) = (alpha - 1) R_alpha through the two nodes.
  const std::size_t lo = hi - 1;
  const double theta = (order - a[lo]) / (a[hi] - a[lo]);
  const double chord = ((1.0 - theta) * (a[lo] - 1.0) * v[lo] + theta * (a[hi] - 1.0) * v[hi]) / (order - 1.0);
  return std::min(chord, monotone);
}

}  // namespace rdpdyn
