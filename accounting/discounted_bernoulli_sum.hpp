#pragma once
// A discrete law that stochastically dominates Y = sum_{j=0}^{terms-1} c^j xi_j, xi_j i.i.d.
// Bernoulli(q), 0 <= c < 1: the weighted count of a record's past uses, each discounted by the
// contraction of the steps since (docs/derivations/noisysgd_window.md, Step 1). Whatever is
// increasing in Y (a privacy profile of a shift proportional to Y) has a larger mean under the
// dominating law, so averaging over it gives an upper bound.
//
// How it dominates: each term c^j is rounded UP to a multiple of the grid spacing, so the rounded
// sum is exact integer arithmetic on grid indices (no rounding accumulates: the excess is at most one
// spacing per included term); the terms with j >= J, where c^J / (1 - c) <= spacing, are replaced by
// their largest possible sum; mass beyond the grid goes to an atom at +infinity; the floating-point
// round-off of the weights (relative, at most 4 (J + 2) u) is absorbed by raising every weight by
// that factor and taking the excess back from the lowest values.
#include <cstdint>
#include <vector>

namespace rdpdyn {

struct DominatingDiscreteLaw {
  double spacing = 0.0;          ///< weight[i] sits at the value i * spacing
  std::vector<double> weight;    ///< sums with `beyond` to 1 (up to round-off below 1e-15)
  double beyond = 0.0;           ///< mass at +infinity (beyond the grid)
  std::int64_t exact_terms = 0;  ///< J: the terms accounted individually
};

/// q in [0, 1], c in [0, 1), terms >= 0, points >= 16 (the grid's size; the spacing is chosen so
/// that the grid reaches far into Y's tail). Throws std::invalid_argument on bad input.
DominatingDiscreteLaw discounted_bernoulli_sum_upper(double q, double c, std::int64_t terms, std::size_t points = 8192);

}  // namespace rdpdyn
