#pragma once
// Ye & Shokri 2022, "Differentially Private Learning Needs Hidden State (Or Much Faster
// Convergence)", NeurIPS 2022, arXiv:2203.05363, appendix; its typo fixes ([FIX]) are listed in
// docs/analyses.md section 3.2. Rényi bounds on the last iterate of noisy mini-batch gradient
// descent (their Algorithm 1):
//   theta <- theta - (eta/b) sum_{i in B} grad l(theta; x_i) + sqrt(2 eta sigma^2) N(0, I_d),
// from a point initialisation (App. D.2, "Reduce analysis to point initialization"). Equation
// numbers are the appendix's.
//
// Units. Ye & Shokri add noise of variance 2 eta sigma^2 per step (App. D.6) and S_g bounds one
// record's gradient difference (Appendix A): exactly TrainingRun's C21 units, so nothing
// is converted. The only conversion in the paper, DP-SGD's noise multiplier (App. F.1), is the
// named function noise_units::c21_sigma_from_dpsgd_multiplier.
//
// Every bound with point initialisation is alpha times an order-free number ("units" below: R/alpha
// in multiples of the Lemma 3.2 step cost w = eta S_g^2 / (4 sigma^2 b^2)); Thms 4.2 and 4.3 are
// not, their log-mean-exp makes them non-linear in alpha.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analyses/analysis.hpp"

namespace rdpdyn::ye_shokri {

// ---------------------------------------------------------------------------------------------
// Units
// ---------------------------------------------------------------------------------------------

/// w = eta S_g^2 / (4 sigma^2 b^2): R/alpha added by one step whose batch holds the differing
/// record. Ye & Shokri 2022, Lemma 3.2, eq. (70) [FIX: its middle expression drops alpha]: the
/// Gaussian mechanism alpha Delta^2 / (2 s^2) with Delta = eta S_g / b and s^2 = 2 eta sigma^2.
double gaussian_step_cost(double eta, double sigma, double sensitivity, double batch_size);

/// (DP-SGD noise multipliers: noise_units::c21_sigma_from_dpsgd_multiplier, App. F.1.)

// ---------------------------------------------------------------------------------------------
// LSI sequences (Lemmas D.2, D.3) and per-step contraction factors
// ---------------------------------------------------------------------------------------------

/// q = (1 - eta lambda)^2, the squared Lipschitz constant of the gradient step of a
/// lambda-strongly convex, beta-smooth loss when eta < 2/(lambda + beta) (proof of Lemma D.3).
/// lambda = 0 gives the convex case, q = 1 (Lemma D.2).
double squared_lipschitz(double eta, double lambda);

/// S_m = sum_{s=0}^{m-1} q^s (S_0 = 0); q = 1 gives m. Lemma D.3, eq. (76).
double geometric_sum(std::int64_t m, double q);

/// Lemma D.2, eq. (71): c_m = 1 / (2 eta sigma^2 m) at global step m = k n/b + j (convex,
/// beta-smooth, eta < 2/beta); c_0 = +infinity (point initialisation).
double lsi_constant_convex(std::int64_t m, double eta, double sigma);

/// Lemma D.3, eq. (76): c_m = 1 / (2 eta sigma^2 S_m), q = (1 - eta lambda)^2 (lambda-strongly
/// convex, beta-smooth, eta < 2/(lambda + beta) [FIX for Thm 4.2's printed lambda + eta]);
/// c_0 = +infinity.
double lsi_constant_strongly_convex(std::int64_t m, double eta, double sigma, double lambda);

/// Lemma 3.2, eq. (56): rho = (1 + 2 c eta sigma^2 / L^2)^{-1} for laws that are c-LSI and an
/// L-Lipschitz step map; rho = 0 for c = +infinity.
double lemma32_contraction(double lsi_c, double eta, double sigma, double lipschitz);

/// rho_m = Lemma 3.2's factor with the LSI constant of Lemma D.2/D.3 at step m:
/// q S_m / S_{m+1} ([DERIVED], docs/analyses.md section 3.2; equals (95)'s factor [FIX]); q = 1
/// gives m/(m+1) (Thm D.4, eq. (86)). sigma cancels. rho_0 = 0.
double contraction_factor(std::int64_t m, double q);

/// Step-size conditions: nullopt when they hold, else the reason naming both values.
/// Lemma D.2 (eta < 2/beta) for lambda = 0, Lemma D.3 (eta < 2/(lambda + beta)) for lambda > 0.
std::optional<std::string> gradient_step_size_violation(double eta, double lambda, double beta);
/// Thm D.6: eta < 1/beta.
std::optional<std::string> full_batch_step_size_violation(double eta, double beta);

// ---------------------------------------------------------------------------------------------
// Lemma 3.2 on an alpha grid (a real transport step)
// ---------------------------------------------------------------------------------------------

/// Internal grid: the orders alpha with alpha - 1 log-spaced, kGridPointsPerDecade per decade, from
/// kGridMinExcess up to the largest user order, merged with the user's orders. Why: a contraction
/// step reads R at alpha' = 1 + (alpha - 1) rho < alpha, which leaves the user's orders; a node
/// ratio r = 10^(1/256) in alpha - 1 keeps the chord interpolation within (r - 1)^2/4 ~ 2e-5 of
/// alpha-linear data per step, and the smallest node 1 + 1e-6 makes the flat closure below it
/// (R non-decreasing) cost at most a factor 1 + 1e-6 on alpha-linear data.
inline constexpr double kGridMinExcess = 1e-6;
inline constexpr int kGridPointsPerDecade = 256;
std::vector<double> transport_grid(std::span<const double> orders);

/// One step of Lemma 3.2 on a bound: first the Gaussian mechanism of a step whose batch holds the
/// differing record, R += alpha * gaussian_cost (eq. (56) second case / (70)), then the
/// contraction of a data-independent heat flow, R(alpha) <- alpha rho R(alpha') / alpha' with
/// alpha' = 1 + (alpha - 1) rho (eq. (56) first case, (66)-(68)). A plain data-independent step
/// is {0, rho}; a data-dependent step is {w, 1}; Thm D.6's split step is {w/gamma, rho}.
struct Lemma32Step {
  double gaussian_cost = 0.0;  ///< R/alpha added before the contraction
  double rho = 1.0;            ///< contraction factor in [0, 1]
};

/// One step on a caller-given grid: R bounds at the increasing orders `grid` (> 1) in, bounds at
/// the same orders out. R(alpha') is read with rdp_upper_interpolation (sound: an upper bound)
/// from the suffix minima of R (also upper bounds, since R_alpha is non-decreasing); below the
/// smallest grid order it is the smallest such value.
std::vector<double> lemma32_step_on_grid(std::span<const double> grid, std::span<const double> R,
                                         const Lemma32Step& step);

/// Iterates lemma32_step_on_grid over `steps` on transport_grid(orders), from R0 known at `orders`
/// (any order, each > 1; extended to the grid by rdp_upper_interpolation). Returns the bound at
/// `orders`, in the caller's order.
std::vector<double> lemma32_recursion_from_values(std::span<const double> orders,
                                                  std::span<const double> R0,
                                                  std::span<const Lemma32Step> steps);
/// The same with R0 a function of alpha, evaluated at every grid order (tighter at low alpha).
std::vector<double> lemma32_recursion_from_curve(std::span<const double> orders,
                                                 const std::function<double(double)>& R0,
                                                 std::span<const Lemma32Step> steps);

// ---------------------------------------------------------------------------------------------
// Theorem forms (pure). N = n/b batches per epoch, K epochs, j0 the differing record's batch.
// ---------------------------------------------------------------------------------------------

/// eps_0^j / (alpha w) = q^{j-1} / S_j, j >= 1: j steps from a point initialisation, the record in
/// the first. Thm 3.3, eq. (99) (= (136)); q = 1 gives 1/j, Thm D.4 eq. (90).
double epoch_start_units(std::int64_t j, double q);

/// Thm 3.3, eq. (91), divided by alpha w (fixed partition, strongly convex, N >= 2, K >= 1):
/// eps_0^{floor(N/2)} (1 - Q^{K-1}) / (1 - Q) + eps_0^{N - j0}, Q = q^{N - floor(N/2)}.
double thm33_units(std::int64_t N, std::int64_t K, std::int64_t j0, double q);

/// Thm D.4, eq. (80), divided by alpha w (fixed partition, convex): (K-1)/N + 1/(N - j0).
double thmD4_units(std::int64_t N, std::int64_t K, std::int64_t j0);

/// Lemma 3.2 (56) iterated over the actual step sequence of a fixed partition, divided by alpha w:
/// from R = 0, the steps m = 0..steps-1 with m mod N = j0 add 1, the others multiply by rho_m
/// (contraction_factor). Any number of steps (whole epochs not needed).
double plain_recursion_units(std::int64_t N, std::int64_t steps, std::int64_t j0, double q);

/// The same recursion started at the first use of each batch, for every j0: element j0 is
/// plain_recursion_units(N, steps - j0, 0, q) (0 when steps <= j0). Valid because steps before the
/// first use are data-independent, so the point-initialisation reduction (App. D.2) restarts the LSI
/// sequence there (the shift argument of Thm D.4/3.3, eqs. (82), (92)); it is never larger than
/// plain_recursion_units(N, steps, j0, q), whose rho_m are larger.
std::vector<double> shifted_recursion_units(std::int64_t N, std::int64_t steps, double q);

/// Thm 4.2, eq. (135) (random partition drawn once, strongly convex, N >= 2, K >= 1), at one order:
/// first term of (91) + (1/(alpha-1)) log Avg_{j0} exp((alpha-1) eps_0^{N-j0}(alpha)).
/// w is the step cost (gaussian_step_cost).
double thm42(double alpha, std::int64_t N, std::int64_t K, double q, double w);

/// Lemma 4.1, eq. (133), over a uniformly random batch index: (1/(alpha-1)) log Avg_j0
/// exp((alpha-1) alpha w units[j0]), for any per-batch bounds `units` (R/(alpha w)).
double mixture_over_batches(double alpha, std::span<const double> units, double w);

/// Thm 4.3, eqs. (147)-(150) (b records sampled afresh each step, rate p = b/n): S_0 = 1,
/// S <- p e^{(alpha-1) alpha w} S + (1-p) S^q per step, R = log(S_T) / (alpha - 1). Iterated in
/// log space; q = 1 is summed exactly, and once the iteration settles (at its fixed point, or into
/// its asymptotic growth when p e^{(alpha-1) alpha w} > 1) the rest is replaced by an upper bound
/// on it (relative excess ~1e-13), so long runs cost little.
double thm43(double alpha, std::int64_t steps, double sampling_rate, double q, double w);

/// Thm D.6, eq. (112) (full batch b = n, eta < 1/beta), divided by alpha w with w the step cost at
/// b = n, generalised from the half split (114)-(115) to a fraction gamma in (0, 1] of the noise
/// spent on the gradient [DERIVED]: (1/gamma) sum_{k=1}^K (1 - (1-gamma) eta lambda)^k.
/// gamma = 1/2 is the stated theorem.
double d6_units(std::int64_t K, double eta_lambda, double gamma);

/// The unrelaxed recursion (121)-(122) with split gamma, divided by alpha w [DERIVED for
/// gamma != 1/2]: u <- (u + 1/gamma) (q S_k + gamma) / S_{k+1}, k = 0..K-1, u_0 = 0. gamma = 1/2
/// gives (122)'s factor 1 - 1/(2 S_{k+1}); gamma = 1 gives plain composition, K.
double d6_recursion_units(std::int64_t K, double q, double gamma);

/// Minimises f over gamma in (0, 1]: a grid of 64, then golden-section search around the best
/// node. Returns the minimiser and f there (the value is f evaluated, so a bound stays a bound).
struct SplitOptimum {
  double gamma;
  double value;
};
SplitOptimum optimise_split(const std::function<double(double)>& f);

// ---------------------------------------------------------------------------------------------
// Analyses of a TrainingRun. Every one checks its assumptions and, if one fails, returns
// applies = false and the failing assumption with the run's values in `reason`.
// Common to all: orders > 1, adjacency = replace (same-size neighbours, Def. B.1), integer n,
// 1 <= b <= n, steps >= 1, eta, sigma > 0, S_g >= 0, beta > 0 known, 0 <= lambda <= beta.
// A diameter is ignored: projecting onto a convex set is 1-Lipschitz post-processing, which keeps
// both the LSI constant and the bound (C21 Lemma 8; docs/math.md section 5.4).
// ---------------------------------------------------------------------------------------------

/// "ye-shokri-thm3.3": sampling = partition, b | n, n/b >= 2, eta < 2/(lambda + beta). For every
/// batch j0 the smallest of Thm 3.3 (91) (lambda > 0, whole epochs), Thm D.4 (80) (whole epochs)
/// and shifted_recursion_units; then the worst batch. `citation` names Thm 3.3 (lambda > 0) or
/// Thm D.4 (lambda = 0); `reason` the bound reported.
AnalysisResult thm3_3(const TrainingRun& run);

/// "ye-shokri-thm4.2": sampling = shuffle, b | n, n/b >= 2, whole epochs, eta < 2/(lambda+beta).
/// Thm 4.2 averages over ONE random partition cycled every epoch (Algorithm 1 line 3; proof
/// (137)-(140)), while TrainingRun's shuffle draws a fresh partition every epoch: the two agree
/// only for one epoch, so more epochs are refused. Reports the smaller per order of (135) and
/// Lemma 4.1 over the per-batch bounds of thm3_3.
AnalysisResult thm4_2(const TrainingRun& run);

/// "ye-shokri-thm4.3": sampling = per-step, eta < 2/(lambda + beta); Thm 4.3 (147)-(150).
AnalysisResult thm4_3(const TrainingRun& run);

/// "ye-shokri-d6": b = n, eta < 1/beta; the recursion (122) with the noise split optimised by
/// optimise_split (its value is alpha times an order-free number, so the optimum is the same at
/// every order and is computed once).
AnalysisResult d6(const TrainingRun& run);

}  // namespace rdpdyn::ye_shokri
