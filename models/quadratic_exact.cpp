#include "models/quadratic_exact.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "models/known_constants.hpp"

namespace rdpdyn::quadratic {
namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& field, const std::string& rule) {
  throw std::invalid_argument("quadratic model: " + field + " " + rule);
}

std::string str(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

/// Symmetric part: keeps rounding from making covariances slightly asymmetric.
MatrixXd symmetrised(const MatrixXd& S) { return 0.5 * (S + S.transpose()); }

double symmetric_max_eigenvalue(const MatrixXd& S) {
  if (S.size() == 0) return 0.0;
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(S, Eigen::EigenvaluesOnly);
  return eig.eigenvalues().maxCoeff();
}

/// W with m^T S^+ m = |W m|^2 for m in range(S), and a projector onto range(S)^perp (empty when S
/// is positive definite). Cholesky when S is well inside the cone; else an eigendecomposition that
/// drops the eigenvalues below d * 1e-15 * lambda_max (pseudo-inverse). Only s = 0 of a step can
/// be singular (T not invertible, or a point start): otherwise S >= 2 s sigma^2 I.
struct Whitening {
  MatrixXd W;
  MatrixXd null_projector;
};

Whitening whitening(const MatrixXd& S) {
  const Eigen::Index d = S.rows();
  const double scale = S.size() ? S.diagonal().maxCoeff() : 0.0;  // within a factor d of lambda_max
  Eigen::LLT<MatrixXd> llt(S);
  if (llt.info() == Eigen::Success &&
      llt.matrixLLT().diagonal().array().square().minCoeff() > static_cast<double>(d) * 1e-15 * scale) {
    // S = L L^T: m^T S^{-1} m = |L^{-1} m|^2.
    return {llt.matrixL().solve(MatrixXd::Identity(d, d)), MatrixXd()};
  }
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(S);
  const VectorXd& lam = eig.eigenvalues();
  const double cut = static_cast<double>(d) * 1e-15 * std::max(0.0, lam.maxCoeff());
  MatrixXd W = MatrixXd::Zero(d, d), P = MatrixXd::Zero(d, d);
  for (Eigen::Index i = 0; i < d; ++i) {
    const VectorXd u = eig.eigenvectors().col(i);
    if (lam(i) > cut)
      W.row(i) = u.transpose() / std::sqrt(lam(i));
    else
      P += u * u.transpose();
  }
  return {W, P};
}

void check_time_in_step(const QuadraticProblem& p, double s) {
  if (!(s >= 0.0 && s <= p.eta)) fail("s = " + str(s), "must lie in [0, eta = " + str(p.eta) + "]");
}

void check_steps(std::int64_t steps) {
  if (steps < 0) fail("steps = " + std::to_string(steps), "must be >= 0");
}

/// C21 eq. (5) for this loss: T#law_k * N(0, 2 s sigma^2 I), the runs drifting apart by s v / n.
/// At s = eta this is the step recursion of the C21 Thm 3 proof with (1 - eta) -> (I - eta H).
GaussianPair advance(const QuadraticProblem& p, const MatrixXd& G, const GaussianPair& start, double s) {
  const MatrixXd I = MatrixXd::Identity(G.rows(), G.cols());
  return {G * start.mean_map + (s / p.n) * I,
          symmetrised(G * start.covariance * G.transpose()) + 2.0 * s * p.sigma * p.sigma * I};
}

MatrixXd gradient_map_linear_part(const QuadraticProblem& p) {
  return MatrixXd::Identity(p.dimension(), p.dimension()) - p.eta * p.hessian;
}

}  // namespace

void validate(const QuadraticProblem& p) {
  const MatrixXd& H = p.hessian;
  if (H.rows() == 0 || H.rows() != H.cols()) fail("hessian", "must be a non-empty square matrix");
  if (!H.allFinite()) fail("hessian", "must be finite");
  const double scale = H.cwiseAbs().maxCoeff();
  if ((H - H.transpose()).cwiseAbs().maxCoeff() > 1e-12 * scale) fail("hessian", "must be symmetric");
  Eigen::SelfAdjointEigenSolver<MatrixXd> eig(symmetrised(H), Eigen::EigenvaluesOnly);
  if (!(eig.eigenvalues().minCoeff() > 0.0))
    fail("hessian", "must be positive definite (smallest eigenvalue " + str(eig.eigenvalues().minCoeff()) + ")");
  if (!(p.n > 0.0) || std::isinf(p.n)) fail("n = " + str(p.n), "must be finite and > 0");
  if (!(p.eta > 0.0) || std::isinf(p.eta)) fail("eta = " + str(p.eta), "must be finite and > 0");
  if (!(p.sigma > 0.0) || std::isinf(p.sigma)) fail("sigma = " + str(p.sigma), "must be finite and > 0");
  if (!(p.sensitivity >= 0.0) || std::isinf(p.sensitivity))
    fail("sensitivity = " + str(p.sensitivity), "must be finite and >= 0");
  const MatrixXd& S0 = p.initial_covariance;
  if (S0.size() == 0) return;
  if (S0.rows() != H.rows() || S0.cols() != H.cols())
    fail("initial_covariance", "must be " + std::to_string(H.rows()) + " x " + std::to_string(H.rows()));
  if (!S0.allFinite()) fail("initial_covariance", "must be finite");
  const double s0 = S0.cwiseAbs().maxCoeff();
  if ((S0 - S0.transpose()).cwiseAbs().maxCoeff() > 1e-12 * s0) fail("initial_covariance", "must be symmetric");
  Eigen::SelfAdjointEigenSolver<MatrixXd> e0(symmetrised(S0), Eigen::EigenvaluesOnly);
  if (e0.eigenvalues().minCoeff() < -1e-12 * s0)
    fail("initial_covariance",
         "must be positive semi-definite (smallest eigenvalue " + str(e0.eigenvalues().minCoeff()) + ")");
}

StepLawWalk::StepLawWalk(const QuadraticProblem& p) : problem_(p) {
  validate(p);
  const Eigen::Index d = p.dimension();
  gradient_map_ = gradient_map_linear_part(p);
  laws_ = {MatrixXd::Zero(d, d),
           p.initial_covariance.size() ? symmetrised(p.initial_covariance) : MatrixXd::Zero(d, d)};
}

const GaussianPair& StepLawWalk::at(std::int64_t step) {
  if (step < step_)
    fail("step = " + std::to_string(step), "must not be below the current step " + std::to_string(step_));
  for (; step_ < step; ++step_) laws_ = advance(problem_, gradient_map_, laws_, problem_.eta);
  return laws_;
}

std::vector<GaussianPair> step_laws(const QuadraticProblem& p, std::int64_t steps) {
  StepLawWalk walk(p);
  check_steps(steps);
  std::vector<GaussianPair> out;
  out.reserve(static_cast<std::size_t>(steps) + 1);
  for (std::int64_t k = 0; k <= steps; ++k) out.push_back(walk.at(k));
  return out;
}

GaussianPair law_within_step(const QuadraticProblem& p, const GaussianPair& start, double s) {
  validate(p);
  check_time_in_step(p, s);
  if (start.mean_map.rows() != p.dimension() || start.covariance.rows() != p.dimension())
    fail("at_step_start", "must have dimension " + std::to_string(p.dimension()));
  return advance(p, gradient_map_linear_part(p), start, s);
}

double rdp_slope(const GaussianPair& laws, const VectorXd& v) {
  if (v.size() != laws.mean_map.cols()) fail("gradient difference", "has the wrong dimension");
  const VectorXd m = laws.mean_map * v;
  if (m.isZero(0.0)) return 0.0;
  const Whitening wh = whitening(laws.covariance);
  // m outside range(S): the laws are mutually singular.
  if (wh.null_projector.size() && (wh.null_projector * m).norm() > 1e-12 * m.norm()) return kInf;
  // Rényi divergence of N(mu1, S) and N(mu2, S): alpha m^T S^{-1} m / 2 (C21 Thm 3 proof).
  return 0.5 * (wh.W * m).squaredNorm();
}

namespace {

/// The SVD of the whitened mean map B = W M: sigma_max(B)^2 = lambda_max(M^T S^{-1} M).
Eigen::JacobiSVD<MatrixXd> whitened_svd(const GaussianPair& laws, bool& singular) {
  const Whitening wh = whitening(laws.covariance);
  singular = wh.null_projector.size() && (wh.null_projector * laws.mean_map).norm() > 1e-12 * laws.mean_map.norm();
  return Eigen::JacobiSVD<MatrixXd>(wh.W * laws.mean_map, Eigen::ComputeFullV);
}

}  // namespace

double worst_case_rdp_slope(const GaussianPair& laws, double sensitivity) {
  if (sensitivity == 0.0 || laws.mean_map.isZero(0.0)) return 0.0;
  bool singular = false;
  const auto svd = whitened_svd(laws, singular);
  if (singular) return kInf;
  // sup_{|v| <= S_g} |B v|^2 / 2 = S_g^2 sigma_max(B)^2 / 2.
  const double top = svd.singularValues()(0);
  return 0.5 * sensitivity * sensitivity * top * top;
}

VectorXd worst_case_direction(const GaussianPair& laws) {
  bool singular = false;
  const auto svd = whitened_svd(laws, singular);
  if (singular) fail("covariance", "is singular on the mean difference: the divergence is infinite");
  return svd.matrixV().col(0);
}

namespace {

/// 1 - a^k for a = 1 - x, x > 0 (x = eta h; or x = 1 - a^2 < 1 of either sign), k >= 0, without
/// cancellation.
double one_minus_power(double x, std::int64_t k) {
  if (k == 0) return 0.0;
  const double kd = static_cast<double>(k);
  if (x < 1.0) return -std::expm1(kd * std::log1p(-x));  // 0 < a < 1
  if (x == 1.0) return 1.0;                              // a = 0
  const double log_abs = std::log1p(x - 2.0);            // ln |a|, a in [-1, 0)
  return k % 2 == 1 ? 1.0 + std::exp(kd * log_abs) : -std::expm1(kd * log_abs);
}

/// q(h)^2 / V(h) of the doc comment of isotropic_worst_case_rdp_slope.
double mean_gap_over_variance(double h, double eta, double n, double noise_variance, double start_variance,
                              std::int64_t k) {
  if (!(h > 0.0)) return 0.0;
  const double x = eta * h;
  const double q = one_minus_power(x, k) / (n * h);
  const double one_minus_a2 = x * (2.0 - x);                                           // 1 - a^2, in [0, 1]
  const double power2 = std::exp(static_cast<double>(k) * std::log1p(-one_minus_a2));  // a^{2K}
  // (1 - a^{2K}) / (1 - a^2) > 0 for |a| != 1 on either side of 1 (eta h > 2 expands).
  const double noise = one_minus_a2 != 0.0 ? noise_variance * one_minus_power(one_minus_a2, k) / one_minus_a2
                                           : noise_variance * static_cast<double>(k);  // |a| = 1
  const double V = power2 * start_variance + noise;
  return V > 0.0 ? q * q / V : std::numeric_limits<double>::infinity();
}

}  // namespace

IsotropicWorstCase::IsotropicWorstCase(const QuadraticProblem& p) : problem_(p) {
  validate(p);
  const Eigen::Index d = p.dimension();
  if (p.initial_covariance.size() != 0) {
    start_variance_ = p.initial_covariance(0, 0);
    if (!p.initial_covariance.isApprox(start_variance_ * MatrixXd::Identity(d, d), 0.0))
      throw std::invalid_argument("isotropic_worst_case_rdp_slope: the initial covariance is not s^2 I");
  }
  const SpectrumEnclosure spectrum = enclose_symmetric_spectrum(symmetrised(p.hessian));
  eigenvalues_ = spectrum.eigenvalues;
  radius_ = spectrum.radius;
}

double IsotropicWorstCase::rdp_slope(std::int64_t steps) const {
  if (steps == 0) return 0.0;
  const QuadraticProblem& p = problem_;
  const double noise_variance = 2.0 * p.eta * p.sigma * p.sigma;
  double worst = 0.0;
  for (std::size_t i = 0; i < eigenvalues_.size(); ++i)
    for (double h : {eigenvalues_[i] - radius_[i], eigenvalues_[i], eigenvalues_[i] + radius_[i]})
      worst = std::max(worst, mean_gap_over_variance(h, p.eta, p.n, noise_variance, start_variance_, steps));
  return p.sensitivity * p.sensitivity * worst / 2.0;
}

double isotropic_worst_case_rdp_slope(const QuadraticProblem& p, std::int64_t steps) {
  return IsotropicWorstCase(p).rdp_slope(steps);
}

std::vector<double> exact_rdp_slopes(const QuadraticProblem& p, const VectorXd& delta, std::int64_t steps) {
  validate(p);
  if (delta.size() != p.dimension()) fail("delta", "must have dimension " + std::to_string(p.dimension()));
  const VectorXd v = p.hessian * delta;  // gradient difference of the differing record
  std::vector<double> out;
  for (const auto& laws : step_laws(p, steps)) out.push_back(rdp_slope(laws, v));
  return out;
}

std::vector<double> worst_case_rdp_slopes(const QuadraticProblem& p, std::int64_t steps) {
  std::vector<double> out;
  for (const auto& laws : step_laws(p, steps)) out.push_back(worst_case_rdp_slope(laws, p.sensitivity));
  return out;
}

ExactLsiSchedule exact_lsi_schedule(const QuadraticProblem& p, std::int64_t steps) {
  const auto laws = step_laws(p, steps);
  const MatrixXd G = gradient_map_linear_part(p);
  ExactLsiSchedule out;
  out.sigma = p.sigma;
  out.pushed_inverse.reserve(static_cast<std::size_t>(steps));
  for (std::int64_t k = 0; k < steps; ++k)
    // lambda_max(A_k + 2 s sigma^2 I) = lambda_max(A_k) + 2 s sigma^2: the schedule in closed form.
    out.pushed_inverse.push_back(
        std::max(0.0, symmetric_max_eigenvalue(advance(p, G, laws[static_cast<std::size_t>(k)], 0.0).covariance)));
  return out;
}

PrivacyProgram exact_lsi_program(const QuadraticProblem& p, std::int64_t steps, const GammaChoice& gamma,
                                 LsiEncoding encoding) {
  const ExactLsiSchedule schedule = exact_lsi_schedule(p, steps);
  PrivacyProgram program;
  program.initial_inverse_lsi = p.initial_covariance.size()
                                    ? std::max(0.0, symmetric_max_eigenvalue(symmetrised(p.initial_covariance)))
                                    : kPointMassInverseLsi;
  const double Sv = p.sensitivity / p.n;  // C21 Lemma 4: S_v = S_g / n
  for (std::int64_t k = 0; k < steps; ++k) {
    const double a = schedule.pushed_inverse[static_cast<std::size_t>(k)];
    ProgramStep step{{}, {p.eta, p.sigma, Sv, GaussianConvolutionLsi{}}, {}, gamma};
    if (encoding == LsiEncoding::Function && a > 0.0) {
      const double two_s2 = 2.0 * p.sigma * p.sigma;
      std::ostringstream text;
      text.precision(17);
      text << "1 / (" << a << " + " << two_s2 << " s)  (exact, quadratic loss, step " << k << ")";
      step.diffusion.lsi =
          FunctionLsi{[a, two_s2](double s, double, double) { return 1.0 / (a + two_s2 * s); }, text.str(), false};
    } else {
      // The law after the shared map T is N(., A_k): restart at its exact constant, then C21
      // Lemma 9 in closed form gives 1/(lambda_max(A_k) + 2 s sigma^2).
      step.before.push_back(LsiRestart{schedule.c(k, 0.0)});
    }
    program.append(std::move(step));  // each step has its own constant
  }
  return program;
}

}  // namespace rdpdyn::quadratic
