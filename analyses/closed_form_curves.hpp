#pragma once
// The closed forms that apply to a configured run (the C21 catalogue of analyses/chourasia_2021.hpp and
// the exact divergences of quadratic losses), evaluated on the run's solution grid for `solve`.
#include <string>
#include <vector>

#include "models/run_spec.hpp"
#include "dynamics/solution.hpp"

namespace rdpdyn {

/// A closed form evaluated on the solution grid (same shape as Solution::R).
struct ClosedFormCurves {
  std::string name;       ///< stable identifier, e.g. "cor1", "thm3-exact"
  std::string citation;   ///< paper and equation, e.g. "C21 Cor 1"
  std::string role;       ///< "upper-bound", "exact", "lower-bound" or "baseline"
  std::vector<double> R;  ///< row-major, records x orders
};

/// The closed forms whose assumptions hold for `spec` (all of them assume R_0 = 0 and no
/// boundary events; the constant-parameter ones assume a single phase), evaluated at the
/// solution's orders and recorded steps:
///  thm1 (always), composition (noisy GD), thm2 (constant LSI: constant, strongly-convex,
///  squared-loss; gamma = the configured fixed gamma if in (0,1), else 1/2), cor1
///  (strongly-convex), cor2, thm3-exact, thm3-lower (squared loss with a point initialisation).
std::vector<ClosedFormCurves> applicable_closed_forms(const RunSpec& spec, const Solution& solution);

}  // namespace rdpdyn
