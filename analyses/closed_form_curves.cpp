#include "analyses/closed_form_curves.hpp"

#include <optional>
#include <stdexcept>
#include <string>

#include "analyses/chourasia_2021.hpp"
#include "models/privacy_model.hpp"
#include "numerics/outward_rounding.hpp"

namespace rdpdyn {

struct ClosedFormRows::State {
  std::vector<double> orders;
  std::vector<ClosedFormLabel> labels;
  std::vector<C21Form> forms;  ///< the applicable C21 forms, in label order
  std::vector<std::vector<double>> rows;
  std::int64_t last_step = 0;

  // sum_k S_g,k^2 eta_k / sigma_k^2 over the completed steps (C21 Thm 1, App. E), added one
  // step at a time in run order. Per phase only (steps, rate) is kept: a schedule given per step
  // has a phase per step.
  struct PhaseRate {
    std::int64_t steps;
    double rate;  ///< S_g^2 eta / sigma^2 of one step
  };
  std::vector<PhaseRate> phases;
  std::size_t phase = 0;
  std::int64_t in_phase = 0, summed_steps = 0;
  double rate_sum = 0.0;

  double rate_sum_through(std::int64_t step) {
    while (summed_steps < step && phase < phases.size()) {
      const PhaseRate& p = phases[phase];
      if (in_phase >= p.steps) {
        ++phase;
        in_phase = 0;
        continue;
      }
      rate_sum += p.rate;
      ++in_phase;
      ++summed_steps;
    }
    return rate_sum;
  }

  // Quadratic losses: the iterates are Gaussian; exact divergences, worst case over the pairs
  // allowed by S_g and, if given, the configured pair (models/quadratic_exact.hpp). The laws are
  // walked from record to record; the problem is validated at the first record.
  bool quadratic = false;
  quadratic::QuadraticProblem problem;
  std::optional<Eigen::VectorXd> pair_delta;           ///< x - x' of the configured pair
  Eigen::VectorXd pair_gradient;                       ///< v = H (x - x')
  std::optional<quadratic::StepLawWalk> walk;          ///< the laws, for the configured pair
  std::optional<quadratic::IsotropicWorstCase> worst;  ///< the worst pair, without cancellation
};

ClosedFormRows::ClosedFormRows(const RunSpec& spec) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.orders = spec.orders;
  s.phases.reserve(spec.algorithm.phases.size());
  for (const Phase& p : spec.algorithm.phases) {
    const double Sk = p.sensitivity.value_or(spec.algorithm.sensitivity);
    s.phases.push_back({p.steps, Sk * Sk * p.eta / (p.sigma * p.sigma)});
  }
  for (auto& form : c21_closed_forms(spec, thm2_gamma(spec))) {
    if (!form.refusal.empty()) continue;
    s.labels.push_back({form.name, form.citation, form.role});
    s.forms.push_back(std::move(form));
  }
  s.quadratic = quadratic_exact_applies(spec);
  if (s.quadratic) {
    s.problem = quadratic_problem_of(spec);
    s.labels.push_back({"quadratic-exact",
                        "exact Renyi divergence of the Gaussian iterates, worst pair (|H (x-x')| <= S_g)", "exact"});
    if (spec.quadratic->pair) {
      s.pair_delta = Eigen::Map<const Eigen::VectorXd>(spec.quadratic->pair->data(),
                                                       static_cast<Eigen::Index>(spec.quadratic->pair->size()));
      s.labels.push_back(
          {"quadratic-exact-pair", "exact Renyi divergence of the Gaussian iterates, the configured pair", "exact"});
    }
  }
  s.rows.assign(s.labels.size(), std::vector<double>(s.orders.size()));
}

ClosedFormRows::~ClosedFormRows() = default;

const std::vector<ClosedFormLabel>& ClosedFormRows::labels() const { return state_->labels; }
const std::vector<std::vector<double>>& ClosedFormRows::rows() const { return state_->rows; }

const std::vector<std::vector<double>>& ClosedFormRows::evaluate(std::int64_t step, double t) {
  State& s = *state_;
  if (step < s.last_step)
    throw std::invalid_argument("closed forms: record at step " + std::to_string(step) + " after step " +
                                std::to_string(s.last_step) + " (records come in step order)");
  s.last_step = step;
  const C21Point at{static_cast<double>(step), t, s.rate_sum_through(step)};
  std::size_t i = 0;
  // Upper bounds (and the composition baseline, also an upper bound) are raised and lower bounds
  // lowered by the margin of a value computed through `step` steps (numerics/outward_rounding.hpp),
  // so that no rounding puts a reported bound on the wrong side of the exact divergence.
  const double margin = outward::recursion_margin(step);
  for (const C21Form& form : s.forms) {
    std::vector<double>& row = s.rows[i++];
    for (std::size_t j = 0; j < s.orders.size(); ++j) {
      const double value = form.value(s.orders[j], at);
      row[j] = form.role == "lower-bound" ? outward::round_down(value, margin)
               : form.role == "exact"     ? value
                                          : outward::round_up(value, margin);
    }
  }
  if (!s.quadratic) return s.rows;
  if (!s.walk) {
    s.walk.emplace(s.problem);
    s.worst.emplace(s.problem);
    if (s.pair_delta) {
      if (s.pair_delta->size() != s.problem.dimension())
        throw std::invalid_argument("quadratic model: pair must have dimension " +
                                    std::to_string(s.problem.dimension()));
      s.pair_gradient = s.problem.hessian * *s.pair_delta;
    }
  }
  auto fill = [&](double slope) {  // R_alpha = alpha w: every quadratic divergence is linear in alpha
    std::vector<double>& row = s.rows[i++];
    for (std::size_t j = 0; j < s.orders.size(); ++j) row[j] = s.orders[j] * slope;
  };
  fill(s.worst->rdp_slope(step));
  if (s.pair_delta) fill(quadratic::rdp_slope(s.walk->at(step), s.pair_gradient));
  return s.rows;
}

}  // namespace rdpdyn
