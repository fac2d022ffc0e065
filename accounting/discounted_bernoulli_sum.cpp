#include "accounting/discounted_bernoulli_sum.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "numerics/format_number.hpp"

namespace rdpdyn {

DominatingDiscreteLaw discounted_bernoulli_sum_upper(double q, double c, std::int64_t terms, std::size_t points) {
  if (!(q >= 0.0 && q <= 1.0))
    throw std::invalid_argument("discounted Bernoulli sum: q = " + format_number(q) + " must lie in [0, 1]");
  if (!(c >= 0.0 && c < 1.0))
    throw std::invalid_argument("discounted Bernoulli sum: c = " + format_number(c) + " must lie in [0, 1)");
  if (terms < 0)
    throw std::invalid_argument("discounted Bernoulli sum: terms = " + std::to_string(terms) + " must be >= 0");
  if (points < 16)
    throw std::invalid_argument("discounted Bernoulli sum: points = " + std::to_string(points) + " must be >= 16");
  constexpr double u = 0x1p-53;
  DominatingDiscreteLaw law;
  // The grid reaches the mean plus 40 standard deviations plus 40 (a compound of few unit terms when
  // q is small has a tail heavier than Gaussian; beyond that the mass is far below any delta), or the
  // largest possible value.
  const double cn = std::pow(c, static_cast<double>(terms));
  const double largest = (1.0 - cn) / (1.0 - c) * (1.0 + 8.0 * u);
  const double mean = q * largest;
  const double sd = std::sqrt(q * (1.0 - q) * (1.0 - cn * cn) / (1.0 - c * c));
  const double reach = std::max(std::min(largest, mean + 40.0 * sd + 40.0), 1.0);
  law.spacing = reach / static_cast<double>(points - 2);
  const double h = law.spacing;
  // J: the first j with c^j / (1 - c) <= h, at most `terms`
  std::int64_t J = terms;
  if (c > 0.0) {
    const double j = std::ceil(std::log(h * (1.0 - c)) / std::log(c));
    if (j >= 0.0 && j < static_cast<double>(terms)) J = static_cast<std::int64_t>(j);
    // the logarithms' round-off must not leave the block's bound above one spacing
    while (J < terms && std::pow(c, static_cast<double>(J)) / (1.0 - c) * (1.0 + 1e-12) > h) ++J;
  } else {
    J = std::min<std::int64_t>(terms, 1);
  }
  law.exact_terms = J;
  std::vector<double> w(points, 0.0);
  double beyond = 0.0;
  w[0] = 1.0;
  std::size_t top = 0;  // highest index with mass
  std::vector<double> previous;
  for (std::int64_t j = 0; j < J; ++j) {
    const double term = std::pow(c, static_cast<double>(j)) * (1.0 + 16.0 * u);
    const double steps = std::ceil(term / h);
    const std::size_t a =
        steps >= static_cast<double>(points) ? points : std::max<std::size_t>(1, static_cast<std::size_t>(steps));
    // w'[j] = (1 - q) w[j] + q w[j - a]; mass moved past the grid goes to `beyond` (summed from the
    // top down). Two passes over a copy, so the inner loop vectorises: the same operations on the
    // same values as one descending pass in place.
    const std::size_t split = points > a ? points - a : 0;  // i < split: i + a stays on the grid
    for (std::size_t i = top + 1; i-- > split;) beyond += q * w[i];
    const std::size_t reach = std::min(points - 1, top + a);
    previous.assign(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(top + 1));
    const double keep = 1.0 - q;
    for (std::size_t j = 0; j <= top; ++j) w[j] = previous[j] * keep;
    for (std::size_t j = a; j <= reach; ++j) w[j] += q * previous[j - a];
    top = reach;
  }
  if (J < terms) {  // the remaining terms: at most c^J (1 - c^(terms - J)) / (1 - c) <= h, one index up
    beyond += w[points - 1];
    for (std::size_t i = points; i-- > 1;) w[i] = w[i - 1];
    w[0] = 0.0;
  }
  // Round-off: raise every weight by the relative bound and take the excess back from the bottom.
  const double r = 4.0 * (static_cast<double>(J) + 2.0) * u;
  double total = beyond * (1.0 + r + (static_cast<double>(J) * static_cast<double>(points) + 2.0) * u);
  for (double& x : w) {
    x *= 1.0 + r;
    total += x;
  }
  // beyond is a sum of up to J x points positive terms: u each
  law.beyond = beyond * (1.0 + r + (static_cast<double>(J) * static_cast<double>(points) + 2.0) * u);
  double excess = total - 1.0;
  for (std::size_t i = 0; i < points && excess > 0.0; ++i) {
    const double take = std::min(w[i], excess);
    w[i] -= take;
    excess -= take;
  }
  if (excess < 0.0) law.beyond -= excess;  // a deficit goes to +infinity: still an upward move
  law.weight = std::move(w);
  return law;
}

}  // namespace rdpdyn
