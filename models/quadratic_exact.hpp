#pragma once
// Exact Rényi divergences of noisy GD on a quadratic loss in d dimensions, and the exact LSI
// schedule of its iterates, in C21 units (docs/math.md section 1).
//
// Loss l(theta; x) = (theta - x)^T H (theta - x) / 2, H symmetric positive definite; full-batch
// noisy GD theta_{k+1} = theta_k - (eta/n) sum_i H (theta_k - x_i) + sqrt(2 eta) sigma N(0, I), no
// projection, from a point or a shared Gaussian law. Both runs stay Gaussian with the SAME
// covariance (C21 Thm 3 proof, generalised from H = I):
//   m_{k+1}     = (I - eta H) m_k + (eta/n) v,                     v = H (x - x'),
//   Sigma_{k+1} = (I - eta H) Sigma_k (I - eta H)^T + 2 eta sigma^2 I,
// m the mean difference. S_g bounds the gradient difference |grad l(theta;x) - grad l(theta;x')| =
// |H (x' - x)| = |v|, so m is linear in v, m_k = M_k v, and
//   R_alpha = alpha m^T Sigma^{-1} m / 2                (Gaussians with equal covariance),
//   sup_{|v| <= S_g} R_alpha = alpha S_g^2 lambda_max(M^T Sigma^{-1} M) / 2.
// Everything is linear in alpha, so the functions below return the slope w = R_alpha / alpha.
//
// Within step k, at time s in [0, eta], C21's tracing diffusion (C21 eq. (5)) is
// theta(s) = T(theta_k) -+ s U_2 + sqrt(2 s) sigma Z with T(theta) = theta - eta U_1(theta); for this loss
// U_2 = H (xbar' - xbar)/2 is constant, so the law is T#law_k * N(0, 2 s sigma^2 I) with
// covariance A_k + 2 s sigma^2 I, A_k = (I - eta H) Sigma_k (I - eta H)^T, and mean difference
// (I - eta H) m_k + (s/n) v. A Gaussian N(mu, S) is 1/lambda_max(S)-LSI (N(0, I) is 1-LSI, C21
// Lemma 9, pushed forward by S^{1/2}, Lipschitz sqrt(lambda_max(S)), C21 Lemma 8), so the exact
// LSI constant is c_k(s) = 1 / (lambda_max(A_k) + 2 s sigma^2).
//
// Tightness of the PDI (tests/models/test_quadratic_exact.cpp, "[property]"). Along a pair, the exact
// rate is d(R/alpha)/dt = v.z - sigma^2 |z|^2 with z = S^{-1} m; the PDI bounds it by Young's
// inequality (equality at the optimal gamma only in its regime gamma* < 1, i.e.
// 2 sigma^2 |m| >= lambda_max(S) |v|) and by the LSI |z|^2 >= m^T S^{-1} m / lambda_max(S)
// (equality iff m lies in the top eigenspace of S). Hence, with the exact schedule and
// gamma = "optimal", the characteristics engine:
//  - EQUALS the worst-case exact divergence at every step for a point start (Sigma_0 = 0) when
//    eta (h_min + h_max) <= 2: all matrices are functions of H, the worst direction is the
//    softest eigenvector (the 1-D divergence grows with 1 - eta h; one step does not see H), the
//    top eigenvector of the covariance is the softest one too (|1 - eta h| is largest there),
//    and the regime holds by induction. Checked to 1e-12 (closed-form flows) for
//    diag(0.3, 1, 2.5) and a rotation of it, eta in {0.05, 0.2, 0.7}.
//  - can be strictly above it otherwise (never below: the PDI is sound), e.g.
//      eta = 0.75, diag(0.3, 1, 2.5) (eta (h_min + h_max) = 2.1): the largest variance sits at
//        h = 2.5 (q = -0.875) while the worst pair is at h = 0.3; PDI / exact = 1 at step 1,
//        1.0116 at 2, 1.2975 at 10, 1.9014 at 200;
//      Sigma_0 = 0.1 I, eta = 0.2: the first steps are in the regime gamma* = 1 (w = 0 at the
//        start); PDI / exact = 1.25 at step 1, 1.0597 at 10, 1.0024 at 50. Here the worst
//        direction is not even the softest early on (h = 2.5 at step 1, h = 1 at step 3).
// What stays exact for a point start and the worst pair along an eigenvector u of H with
// 0 <= 1 - eta h_u (checked at eta = 0.75 above): the PDI of the 1-D marginal along u (LSI
// 1/(u^T S u), same S_v) with optimal gamma, because the orthogonal components of the two runs
// are identical and independent of the u component (a 1-D C21 Thm 3 problem).
#include <Eigen/Dense>
#include <cstdint>
#include <limits>
#include <vector>

#include "dynamics/gamma_choice.hpp"
#include "dynamics/privacy_program.hpp"

namespace rdpdyn::quadratic {

struct QuadraticProblem {
  Eigen::MatrixXd hessian;   ///< H, symmetric positive definite, d x d
  double n = 0.0;            ///< dataset size
  double eta = 0.0;          ///< step size
  double sigma = 0.0;        ///< C21 noise: each step adds N(0, 2 eta sigma^2 I)
  double sensitivity = 0.0;  ///< S_g >= |H (x - x')| over neighbouring records
  /// Sigma_0 of the shared initial law N(m_0, Sigma_0), symmetric positive semi-definite; empty
  /// (0 x 0) means a point start. The shared mean m_0 cancels in every divergence.
  Eigen::MatrixXd initial_covariance;

  Eigen::Index dimension() const { return hessian.rows(); }
};

/// Throws std::invalid_argument naming the offending field: H not square, not symmetric, not
/// positive definite; n, eta, sigma not > 0; S_g < 0; Sigma_0 of the wrong size, not symmetric or
/// with a negative eigenvalue.
void validate(const QuadraticProblem& problem);

/// The two Gaussian laws at one instant: theta ~ N(mu + M v, S), theta' ~ N(mu, S), where
/// v = H (x - x') is the gradient difference of the differing record.
struct GaussianPair {
  Eigen::MatrixXd mean_map;    ///< M: v -> mean difference
  Eigen::MatrixXd covariance;  ///< S, common to both laws
};

/// The laws after k = 0, 1, ..., steps steps (k = 0: the initial law, M = 0).
std::vector<GaussianPair> step_laws(const QuadraticProblem& problem, std::int64_t steps);

/// The same laws one step at a time, keeping only the current one (O(d^2) memory for any number
/// of steps): what `solve` evaluates at each record of a long run.
class StepLawWalk {
 public:
  /// At step 0. Throws std::invalid_argument as validate().
  explicit StepLawWalk(const QuadraticProblem& problem);
  /// The laws after `step` steps, advancing from the current step; throws std::invalid_argument
  /// when `step` is below it.
  const GaussianPair& at(std::int64_t step);

 private:
  QuadraticProblem problem_;
  Eigen::MatrixXd gradient_map_;  ///< I - eta H
  GaussianPair laws_;
  std::int64_t step_ = 0;
};

/// The laws at time s in [0, eta] of the step that starts from `at_step_start` (C21 eq. (5)):
/// M = (I - eta H) M_k + (s/n) I, S = (I - eta H) Sigma_k (I - eta H)^T + 2 s sigma^2 I.
GaussianPair law_within_step(const QuadraticProblem& problem, const GaussianPair& at_step_start, double s);

/// R_alpha / alpha = m^T S^{-1} m / 2 for the gradient difference v (m = M v). S may be singular
/// when m lies in its range (the iterates of this dynamics always do); +infinity otherwise.
double rdp_slope(const GaussianPair& laws, const Eigen::VectorXd& gradient_difference);

/// sup_{|v| <= S_g} R_alpha / alpha = S_g^2 lambda_max(M^T S^{-1} M) / 2 (generalised Rayleigh
/// quotient, by Cholesky whitening and an SVD).
double worst_case_rdp_slope(const GaussianPair& laws, double sensitivity);

/// worst_case_rdp_slope after `steps` steps for a point start or an isotropic one (Sigma_0 = s^2 I, the
/// configuration's quadratic.initial_std), without forming Sigma: M and Sigma are then polynomials in
/// H, so in its eigenbasis sup |v| <= S_g of m^T Sigma^{-1} m / 2 is S_g^2 max_h q(h)^2 / (2 V(h)) with
///   q = (1 - a^K) / (n h),   V = a^{2K} s^2 + 2 eta sigma^2 (1 - a^{2K}) / (eta h (2 - eta h)),  a = 1 - eta h,
/// each a sum of terms of one sign (1 - a^K by expm1). The matrix recursion's Sigma loses its small
/// eigenvalues to cancellation when the start is wide and H not diagonal (relative errors of
/// 1e-10, either sign); here every eigenvalue h of H is taken at its computed value and at the ends of
/// its residual enclosure (known_constants.hpp), the largest kept. Throws std::invalid_argument for
/// another initial covariance.
double isotropic_worst_case_rdp_slope(const QuadraticProblem& problem, std::int64_t steps);

/// The same at many step counts: H's spectrum enclosed once (solve's rows, compare's floor).
class IsotropicWorstCase {
 public:
  /// Throws std::invalid_argument as validate(), or for an initial covariance other than s^2 I.
  explicit IsotropicWorstCase(const QuadraticProblem& problem);
  double rdp_slope(std::int64_t steps) const;

 private:
  QuadraticProblem problem_;
  double start_variance_ = 0.0;
  std::vector<double> eigenvalues_, radius_;
};

/// A unit gradient difference v attaining worst_case_rdp_slope (the record difference is
/// x - x' = S_g H^{-1} v).
Eigen::VectorXd worst_case_direction(const GaussianPair& laws);

/// R_alpha / alpha after k = 0..steps steps for the record difference delta = x - x'
/// (v = H delta; |H delta| <= S_g is the caller's business).
std::vector<double> exact_rdp_slopes(const QuadraticProblem& problem, const Eigen::VectorXd& delta, std::int64_t steps);

/// Worst case over |H (x - x')| <= S_g of R_alpha / alpha after k = 0..steps steps.
std::vector<double> worst_case_rdp_slopes(const QuadraticProblem& problem, std::int64_t steps);

/// The exact LSI schedule c_k(s) = 1 / (lambda_max(A_k) + 2 s sigma^2) of the iterate law at
/// time s in [0, eta] of step k (k = 0..steps-1); both runs share it.
struct ExactLsiSchedule {
  std::vector<double> pushed_inverse;  ///< lambda_max(A_k), A_k = (I - eta H) Sigma_k (I - eta H)^T
  double sigma = 0.0;

  double inverse(std::int64_t k, double s) const {
    return pushed_inverse[static_cast<std::size_t>(k)] + 2.0 * s * sigma * sigma;
  }
  /// +infinity for a point mass (point start, k = 0, s = 0).
  double c(std::int64_t k, double s) const {
    const double a = inverse(k, s);
    return a > 0.0 ? 1.0 / a : std::numeric_limits<double>::infinity();
  }
};

ExactLsiSchedule exact_lsi_schedule(const QuadraticProblem& problem, std::int64_t steps);

/// How exact_lsi_program hands the schedule to the engines.
enum class LsiEncoding {
  /// LsiRestart{1/lambda_max(A_k)} before each step + GaussianConvolutionLsi: closed-form flows,
  /// c(s) = 1/(lambda_max(A_k) + 2 s sigma^2) exactly.
  Restart,
  /// FunctionLsi{c_k(s)} on each step (adaptive integration); a step starting from a point mass
  /// (c = +infinity at s = 0, which FunctionLsi may not return) falls back to Restart.
  Function,
};

/// The privacy program of `steps` steps of noisy GD on this loss with the exact LSI schedule:
/// duration eta, noise sigma, S_v = S_g / n (C21 Lemma 4), the given gamma on every step.
PrivacyProgram exact_lsi_program(const QuadraticProblem& problem, std::int64_t steps, const GammaChoice& gamma,
                                 LsiEncoding encoding = LsiEncoding::Restart);

}  // namespace rdpdyn::quadratic
