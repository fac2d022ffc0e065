#pragma once
// The one catalogue of the closed forms of Chourasia, Ye & Shokri 2021 ("C21", arXiv:2102.05855;
// docs/math.md section 3), each with the check of its assumptions against a configured run.
// `rdpdyn solve` evaluates the forms that apply at every recorded step (analyses/
// closed_form_curves.hpp); `rdpdyn compare` registers thm2, cor1, cor2, thm3-exact and thm3-lower as analyses.
#include <functional>
#include <string>
#include <vector>

#include "analyses/analysis.hpp"
#include "models/run_spec.hpp"

namespace rdpdyn {

/// Where along the run a closed form is evaluated.
struct C21Point {
  double steps = 0.0;     ///< completed steps K
  double time = 0.0;      ///< C21 time (eta K for one phase; the Langevin duration)
  double rate_sum = 0.0;  ///< sum over the completed steps of S_g,k^2 eta_k / sigma_k^2 (Thm 1, App. E)
};

struct C21Form {
  std::string name;      ///< "thm1", "thm2", "cor1", "cor2", "thm3-exact", "thm3-lower", "composition"
  std::string citation;  ///< C21 theorem and equation
  std::string role;      ///< "upper-bound", "exact", "lower-bound" or "baseline"
  std::string refusal;   ///< "" when the run meets the assumptions, else the one that fails
  std::function<double(double alpha, const C21Point& at)> value;  ///< R_alpha (nats); set when refusal is ""
};

/// Every C21 closed form for `spec`, applicable or not (then with its reason), in a stable order.
/// thm2 is evaluated at `thm2_gamma` (1/2 is the stated theorem; C21 eq. (68) holds for any gamma).
std::vector<C21Form> c21_closed_forms(const RunSpec& spec, double thm2_gamma);

/// The gamma at which `solve` evaluates thm2: the configured fixed gamma if in (0, 1), else 1/2.
double thm2_gamma(const RunSpec& spec);

/// "chourasia-thm2" (gamma = 1/2, the stated theorem), "chourasia-cor1", "chourasia-cor2": the
/// catalogue's form at the run's last step, as registry analyses.
AnalysisResult chourasia_thm2(const RunSpec& spec, const TrainingRun& run);
AnalysisResult chourasia_cor1(const RunSpec& spec, const TrainingRun& run);
AnalysisResult chourasia_cor2(const RunSpec& spec, const TrainingRun& run);
/// "chourasia-thm3-exact" and "chourasia-thm3-lower": C21 Thm 3 for the squared loss, its exact
/// divergence (the last equality of its proof) and its stated lower bound, at the run's last step.
AnalysisResult chourasia_thm3_exact(const RunSpec& spec, const TrainingRun& run);
AnalysisResult chourasia_thm3_lower(const RunSpec& spec, const TrainingRun& run);

}  // namespace rdpdyn
