#pragma once
// The noise split of YS22 (arXiv:2203.05363) Thm D.6's proof ((114)-(115): half of each step's
// noise for the gradient, half for the contraction), chosen by minimising the bound over the
// fraction gamma in (0, 1]. Any gamma gives a valid bound (docs/analyses.md,
// "ye-shokri-d6-optimal-split"), so the optimiser needs no guarantee of finding the minimum.
#include <functional>

namespace rdpdyn::ye_shokri {

struct SplitOptimum {
  double gamma;  ///< the split found, in (0, 1]
  double value;  ///< f(gamma), evaluated at exactly this gamma
};

/// Minimises f over gamma in (0, 1]: first f at the 64 nodes i/64 (unimodality of f is not
/// proven, so the grid picks the basin), then Boost.Math's Brent minimiser
/// (boost::math::tools::brent_find_minima) between the neighbours of the best node. Returns the
/// better of the best node and Brent's point, with f evaluated there, so a bound stays a bound.
SplitOptimum optimise_split(const std::function<double(double)>& f);

}  // namespace rdpdyn::ye_shokri
