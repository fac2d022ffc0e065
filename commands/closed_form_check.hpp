#pragma once
// `rdpdyn validate CONFIG`: the solved R against every closed form that applies at the user's
// settings (analyses/closed_form_curves.hpp), for a researcher checking a theorem numerically.
#include <cstdint>
#include <string>
#include <vector>

#include "commands/run_report.hpp"

namespace rdpdyn {

/// The largest relative gap (R - closed form) / closed form over the records and orders where the
/// closed form is positive, with its sign and where it occurs, and whether it contradicts the
/// closed form's role beyond `tolerance`: R (an upper bound of the divergence) may not lie below an
/// "exact" or a "lower-bound" form; above an exact form it is not tight (another gamma or LSI
/// constant than the theorem's), which is reported, not a contradiction. An "upper-bound" or
/// "baseline" form may lie on either side of R (another proof, another gamma): its gap is reported only.
struct ClosedFormGap {
  std::string name, role, citation;
  double relative_gap = 0.0;  ///< signed, largest in magnitude
  std::int64_t step = 0;      ///< where it occurs
  double order = 0.0;
  bool contradicts = false;
  bool above_exact = false;  ///< an exact form below R beyond the tolerance: R is not tight here
};

std::vector<ClosedFormGap> closed_form_gaps(const RunReport& report, double tolerance);

}  // namespace rdpdyn
