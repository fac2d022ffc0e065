#include "analyses/closed_form_curves.hpp"

#include "analyses/chourasia_2021.hpp"
#include "models/privacy_model.hpp"

namespace rdpdyn {
namespace {

/// sum_k S_g,k^2 eta_k / sigma_k^2 over the steps completed at each record (C21 Thm 1, App. E).
std::vector<double> rate_sums(const AlgorithmSpec& a, const Solution& sol) {
  std::vector<double> out(sol.record_count());
  std::size_t r = 0;
  double acc = 0.0;
  std::int64_t k = 0;
  for (const auto& p : a.phases)
    for (std::int64_t i = 0; i < p.steps; ++i) {
      while (r < sol.record_count() && sol.steps[r] == k) out[r++] = acc;
      const double Sk = p.sensitivity.value_or(a.sensitivity);
      acc += Sk * Sk * p.eta / (p.sigma * p.sigma);
      ++k;
    }
  while (r < sol.record_count()) out[r++] = acc;
  return out;
}

}  // namespace

std::vector<ClosedFormCurves> applicable_closed_forms(const RunSpec& spec, const Solution& sol) {
  std::vector<ClosedFormCurves> out;
  const std::vector<double> sums = rate_sums(spec.algorithm, sol);
  for (const auto& form : c21_closed_forms(spec, thm2_gamma(spec))) {
    if (!form.refusal.empty()) continue;
    ClosedFormCurves curves{form.name, form.citation, form.role, {}};
    curves.R.reserve(sol.record_count() * sol.orders.size());
    for (std::size_t r = 0; r < sol.record_count(); ++r) {
      const C21Point at{static_cast<double>(sol.steps[r]), sol.times[r], sums[r]};
      for (double alpha : sol.orders) curves.R.push_back(form.value(alpha, at));
    }
    out.push_back(std::move(curves));
  }

  if (quadratic_exact_applies(spec)) {
    // The iterates are Gaussian: exact divergences, worst case over pairs allowed by S_g and, if
    // given, the configured pair (models/quadratic_exact.hpp).
    const auto problem = quadratic_problem_of(spec);
    const std::int64_t K = sol.steps.empty() ? 0 : sol.steps.back();
    auto on_grid = [&](const std::vector<double>& slopes) {
      std::vector<double> R;
      for (std::size_t r = 0; r < sol.record_count(); ++r)
        for (double alpha : sol.orders) R.push_back(alpha * slopes[static_cast<std::size_t>(sol.steps[r])]);
      return R;
    };
    out.push_back({"quadratic-exact", "exact Renyi divergence of the Gaussian iterates, worst pair (|H (x-x')| <= S_g)",
                   "exact", on_grid(quadratic::worst_case_rdp_slopes(problem, K))});
    if (spec.quadratic->pair) {
      const Eigen::VectorXd delta = Eigen::Map<const Eigen::VectorXd>(
          spec.quadratic->pair->data(), static_cast<Eigen::Index>(spec.quadratic->pair->size()));
      out.push_back({"quadratic-exact-pair", "exact Renyi divergence of the Gaussian iterates, the configured pair",
                     "exact", on_grid(quadratic::exact_rdp_slopes(problem, delta, K))});
    }
  }
  return out;
}

}  // namespace rdpdyn
