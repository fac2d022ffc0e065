// `rdpdyn validate CONFIG` (commands/closed_form_check.hpp): R, an upper bound, contradicts an exact
// or lower-bound closed form only by lying below it; above an exact form it is "not tight".
#include <catch2/catch.hpp>

#include "commands/closed_form_check.hpp"

using namespace rdpdyn;

namespace {

/// One record at step 1, one order, R = r, and one closed form of `role` with value `form`.
RunReport report_of(double r, const std::string& role, double form) {
  RunReport report;
  report.solution.orders = {2.0};
  report.solution.times = {1.0};
  report.solution.steps = {1};
  report.solution.R = {r};
  report.closed_forms.push_back({"form", "a citation", role, {form}});
  return report;
}

}  // namespace

TEST_CASE("validate: below an exact or lower-bound form contradicts, above an exact one is not tight",
          "[validate][commands]") {
  const double tol = 1e-9;
  auto gap = [&](double r, const std::string& role) { return closed_form_gaps(report_of(r, role, 1.0), tol).front(); };
  CHECK(gap(1.0 - 1e-6, "exact").contradicts);  // R below the exact divergence: unsound
  CHECK_FALSE(gap(1.0 - 1e-6, "exact").above_exact);
  CHECK_FALSE(gap(1.0 + 1e-6, "exact").contradicts);  // a looser upper bound: no contradiction
  CHECK(gap(1.0 + 1e-6, "exact").above_exact);
  CHECK_FALSE(gap(1.0 + 1e-12, "exact").above_exact);  // within the tolerance: equal
  CHECK(gap(1.0 - 1e-6, "lower-bound").contradicts);
  CHECK_FALSE(gap(2.0, "lower-bound").contradicts);
  CHECK_FALSE(gap(0.5, "upper-bound").contradicts);  // another proof may be either side
  CHECK(gap(1.5, "exact").relative_gap == Approx(0.5));
}
