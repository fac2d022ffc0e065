#pragma once
// Ye & Shokri 2022 ("YS22"), "Differentially Private Learning Needs Hidden State (Or Much Faster
// Convergence)", NeurIPS 2022, arXiv:2203.05363: units, LSI sequences and contraction factors.
// Equation numbers are the paper's appendix; [FIX] marks a typo-corrected reading listed in
// docs/analyses.md, section 3.2.
//
// The algorithm (YS22 Algorithm 1): from a point initialisation, each step is
//   theta <- theta - (eta/b) sum_{i in B} grad l(theta; x_i) + sqrt(2 eta sigma^2) N(0, I_d).
// Units: YS22 adds noise of variance 2 eta sigma^2 per step and S_g bounds one record's gradient
// difference (App. A), exactly TrainingRun's C21 units, so nothing is converted here. The only
// conversion in the paper, DP-SGD's noise multiplier (App. F), is the named function
// noise_units::c21_sigma_from_dpsgd_multiplier.
//
// Every bound from a point initialisation is alpha times an order-free number ("units": R/alpha in
// multiples of the Lemma 3.2 step cost w = eta S_g^2 / (4 sigma^2 b^2)).
#include <cstdint>

namespace rdpdyn::ye_shokri {

/// w = eta S_g^2 / (4 sigma^2 b^2): R/alpha added by one step whose batch holds the differing
/// record. YS22 Lemma 3.2, eq. (70) ([FIX] reading of eq. (70), see docs/analyses.md: the factor
/// alpha): the Gaussian mechanism alpha Delta^2 / (2 s^2) with Delta = eta S_g / b, s^2 = 2 eta sigma^2.
double gaussian_step_cost(double eta, double sigma, double sensitivity, double batch_size);

/// q = (1 - eta lambda)^2, the squared Lipschitz constant of the gradient step of a
/// lambda-strongly convex, beta-smooth loss when eta < 2/(lambda + beta) (YS22 Lemma D.3).
/// lambda = 0 gives the convex case, q = 1 (YS22 Lemma D.2).
double squared_lipschitz(double eta, double lambda);

/// S_m = sum_{s=0}^{m-1} q^s (S_0 = 0); q = 1 gives m. YS22 Lemma D.3, eq. (76).
double geometric_sum(std::int64_t m, double q);

/// YS22 Lemma D.2, eq. (71): c_m = 1 / (2 eta sigma^2 m) at global step m (convex, beta-smooth,
/// eta < 2/beta); c_0 = +infinity (point initialisation).
double lsi_constant_convex(std::int64_t m, double eta, double sigma);

/// YS22 Lemma D.3, eq. (76): c_m = 1 / (2 eta sigma^2 S_m), q = (1 - eta lambda)^2 (lambda-strongly
/// convex, beta-smooth, eta < 2/(lambda + beta)); c_0 = +infinity.
double lsi_constant_strongly_convex(std::int64_t m, double eta, double sigma, double lambda);

/// YS22 Lemma 3.2, eq. (56): rho = (1 + 2 c eta sigma^2 / L^2)^{-1} for laws that are c-LSI and an
/// L-Lipschitz step map; rho = 0 for c = +infinity.
double lemma32_contraction(double lsi_c, double eta, double sigma, double lipschitz);

/// rho_m = Lemma 3.2's factor (56) at the LSI constant of Lemma D.2/D.3 at step m:
/// q S_m / S_{m+1} ([FIX] reading of eqs. (95)-(96), see docs/analyses.md); q = 1 gives m/(m+1)
/// (YS22 Thm D.4, eq. (86)). sigma cancels. rho_0 = 0.
double contraction_factor(std::int64_t m, double q);

}  // namespace rdpdyn::ye_shokri
