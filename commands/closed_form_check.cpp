#include "commands/closed_form_check.hpp"

#include <cmath>

namespace rdpdyn {

std::vector<ClosedFormGap> closed_form_gaps(const RunReport& report, double tolerance) {
  const Solution& s = report.solution;
  const std::size_t orders = s.orders.size();
  std::vector<ClosedFormGap> out;
  for (const ClosedFormCurves& cf : report.closed_forms) {
    ClosedFormGap g{cf.name, cf.role, cf.citation};
    for (std::size_t r = 0; r < s.record_count(); ++r)
      for (std::size_t j = 0; j < orders; ++j) {
        const double form = cf.R[r * orders + j];
        if (!(form > 0.0) || !std::isfinite(form)) continue;  // R_0 = 0 at the start: no relative gap
        const double gap = (s.row(r)[j] - form) / form;
        if (std::abs(gap) > std::abs(g.relative_gap)) {
          g.relative_gap = gap;
          g.step = s.steps[r];
          g.order = s.orders[j];
        }
        // R is an upper bound: below an exact value or a lower bound it contradicts the theorem (or
        // the solver is unsound); above an exact value it is only not tight (a gamma or an LSI
        // constant that is not the theorem's).
        if ((cf.role == "exact" || cf.role == "lower-bound") && gap < -tolerance) g.contradicts = true;
        if (cf.role == "exact" && gap > tolerance) g.above_exact = true;
      }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace rdpdyn
