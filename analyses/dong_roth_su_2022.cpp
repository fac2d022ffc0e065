#include "analyses/dong_roth_su_2022.hpp"

#include <cmath>
#include <variant>

#include "accounting/gaussian_dp.hpp"
#include "analyses/composition.hpp"

namespace rdpdyn {

AnalysisResult gdp_composition(const RunSpec& spec, const TrainingRun& run) {
  AnalysisResult r;
  r.name = "gdp-composition";
  r.citation = "Dong, Roth & Su 2022 (arXiv:1905.02383) Thm 2.7 and Cor 3.3: sqrt(sum_k mu_k^2) over the uses";
  if (!std::holds_alternative<ZeroCurve>(spec.initial)) {
    r.reason = "needs identical initial laws: an initial divergence R_0 is a Rényi curve, not a GDP trade-off";
    return r;
  }
  // composition-gaussian at order 2: R_2 = sum_k mu_k^2 (its uses, phases and events).
  TrainingRun at_two = run;
  at_two.orders = {2.0};
  const AnalysisResult composed = composition_gaussian(spec, at_two);
  if (!composed.applies) {
    r.reason = composed.reason;
    return r;
  }
  const double mu = std::sqrt(composed.R.front());
  r.applies = true;
  r.reason = composed.reason;
  r.mu = mu;
  for (double a : run.orders) r.R.push_back(gdp_rdp(mu, a));
  return r;
}

}  // namespace rdpdyn
