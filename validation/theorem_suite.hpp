#pragma once
// The built-in theorem suite of `rdpdyn validate`: the engine against every closed form of C21
// (docs/math.md section 3.1) and against the analytic characteristic solution for nonlinear data.
#include <string>
#include <vector>

namespace rdpdyn {

struct CheckResult {
  std::string name;
  std::string description;    ///< what is compared, with the citation
  double max_relative_error;  ///< max over records and orders of |engine - reference| / |reference|
  double tolerance;
  bool passed;
};

/// Runs every check; never throws for a failed comparison (it is reported as passed = false).
std::vector<CheckResult> run_theorem_suite();

}  // namespace rdpdyn
