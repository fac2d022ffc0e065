// Exact divergences of noisy GD on quadratic losses, and how the PDI compares with them.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include <Eigen/Dense>

#include "models/quadratic_exact.hpp"
#include "solver/characteristics_engine.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"

using namespace rdpdyn;
using namespace rdpdyn::quadratic;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

constexpr double n = 100.0, Sg = 2.0, sigma = 0.5;

QuadraticProblem problem(const MatrixXd& H, double eta, MatrixXd initial_covariance = {}) {
  QuadraticProblem p;
  p.hessian = H;
  p.n = n;
  p.eta = eta;
  p.sigma = sigma;
  p.sensitivity = Sg;
  p.initial_covariance = std::move(initial_covariance);
  return p;
}

MatrixXd diagonal(std::initializer_list<double> h) {
  VectorXd v(static_cast<Eigen::Index>(h.size()));
  Eigen::Index i = 0;
  for (double x : h) v(i++) = x;
  return v.asDiagonal();
}

/// A fixed rotation (Q of a QR factorisation) so that Q D Q^T is dense.
MatrixXd rotation() {
  MatrixXd A(3, 3);
  A << 1, 2, 0.5, -0.3, 1, 0.7, 0.2, -0.4, 1.5;
  return Eigen::HouseholderQR<MatrixXd>(A).householderQ();
}

MatrixXd rotated(const MatrixXd& D) { return rotation() * D * rotation().transpose(); }

/// The diag(0.3, 1, 2.5) of the brief, and that Hessian rotated.
const MatrixXd kDiag = diagonal({0.3, 1.0, 2.5});

/// R / alpha of the PDI solution at every step, by the characteristics engine.
std::vector<double> pdi_slopes(const PrivacyProgram& program, const std::vector<double>& orders,
                               std::vector<std::vector<double>>* per_order = nullptr) {
  const Solution s = solve_by_characteristics(program, ZeroCurve{}, orders);
  std::vector<double> w;
  for (std::size_t r = 0; r < s.record_count(); ++r) {
    w.push_back(s.row(r)[0] / orders[0]);
    if (per_order) {
      std::vector<double> row;
      for (std::size_t j = 0; j < orders.size(); ++j) row.push_back(s.row(r)[j] / orders[j]);
      per_order->push_back(row);
    }
  }
  return w;
}

/// 1-D C21 Thm 3 computation with (1 - eta) -> q = 1 - eta h (the proof's last equality, before
/// relaxing, for the loss h |theta - x|^2 / 2 and |h (x - x')| = |v|):
/// R/alpha = v^2 (2 - eta h)(1 - q^K) / (4 sigma^2 n^2 h (1 + q^K)).
double one_dimensional_slope(double h, double eta, double v, double K) {
  const double q = 1.0 - eta * h;
  const double qK = std::pow(q, K);
  return v * v * (2.0 - eta * h) * (1.0 - qK) / (4.0 * sigma * sigma * n * n * h * (1.0 + qK));
}

}  // namespace

TEST_CASE("H = I reproduces C21 Thm 3's exact divergence", "[quadratic]") {
  for (double eta : {0.02, 0.3, 0.9})
    for (Eigen::Index d : {1, 3}) {
      const QuadraticProblem p = problem(MatrixXd::Identity(d, d), eta);
      const auto worst = worst_case_rdp_slopes(p, 300);
      VectorXd delta = VectorXd::Zero(d);
      delta(0) = Sg;  // |H delta| = S_g: C21 Thm 3's pair at distance S_g
      const auto pair = exact_rdp_slopes(p, delta, 300);
      CHECK(worst[0] == 0.0);
      for (double K : {1.0, 2.0, 17.0, 300.0}) {
        const double exact = closed_forms::thm3_exact(7.0, Sg, n, sigma, eta, K) / 7.0;
        CHECK(worst[static_cast<std::size_t>(K)] == Approx(exact).epsilon(1e-12));
        CHECK(pair[static_cast<std::size_t>(K)] == Approx(exact).epsilon(1e-12));
      }
    }
}

TEST_CASE("Diagonal H: each eigendirection is the 1-D problem with 1 - eta -> 1 - eta h", "[quadratic]") {
  const double eta = 0.2;
  const QuadraticProblem p = problem(kDiag, eta);
  for (Eigen::Index i = 0; i < 3; ++i) {
    const double h = kDiag(i, i);
    VectorXd delta = VectorXd::Zero(3);
    delta(i) = Sg / h;  // v = H delta = S_g e_i
    const auto w = exact_rdp_slopes(p, delta, 100);
    for (double K : {1.0, 5.0, 100.0})
      CHECK(w[static_cast<std::size_t>(K)] == Approx(one_dimensional_slope(h, eta, Sg, K)).epsilon(1e-12));
  }
}

TEST_CASE("Point start: one step does not see H; afterwards the worst direction is the softest", "[quadratic]") {
  // The remark of models/quadratic_exact.hpp (docs/analyses.md section 5) that the worst direction
  // is the softest curvature, checked rather than assumed.
  const double eta = 0.2;
  for (const MatrixXd& Q : {MatrixXd(MatrixXd::Identity(3, 3)), rotation()}) {
    const QuadraticProblem p = problem(Q * kDiag * Q.transpose(), eta);
    const auto laws = step_laws(p, 60);
    // K = 1: m = eta v / n, S = 2 eta sigma^2 I whatever H is: R/alpha = eta S_g^2 / (4 sigma^2 n^2).
    CHECK(worst_case_rdp_slope(laws[1], Sg) == Approx(eta * Sg * Sg / (4 * sigma * sigma * n * n)).epsilon(1e-13));
    for (std::size_t K : {2u, 3u, 10u, 60u}) {
      const VectorXd u = worst_case_direction(laws[K]);
      CHECK(std::abs(u.dot(Q.col(0))) == Approx(1.0).epsilon(1e-10));  // eigenvector of h = 0.3
      CHECK(worst_case_rdp_slope(laws[K], Sg) ==
            Approx(one_dimensional_slope(0.3, eta, Sg, static_cast<double>(K))).epsilon(1e-12));
    }
  }
}

TEST_CASE("Gaussian start: the worst direction is not always the softest", "[quadratic]") {
  // Sigma_0 = 0.1 I, H = diag(0.3, 1, 2.5), eta = 0.2: the stiff direction contracts the shared
  // initial spread fastest, so early on it has the smallest variance and the largest divergence.
  const QuadraticProblem p = problem(kDiag, 0.2, 0.1 * MatrixXd::Identity(3, 3));
  const auto laws = step_laws(p, 10);
  auto argmax = [](const VectorXd& u) {
    Eigen::Index i = 0;
    u.cwiseAbs().maxCoeff(&i);
    return i;
  };
  CHECK(argmax(worst_case_direction(laws[1])) == 2);  // h = 2.5
  CHECK(argmax(worst_case_direction(laws[3])) == 1);  // h = 1
  CHECK(argmax(worst_case_direction(laws[8])) == 0);  // h = 0.3
  // Step 1 by hand: m = eta v / n, variance q^2 0.1 + 2 eta sigma^2 with q = 1 - 0.2 * 2.5 = 0.5.
  CHECK(worst_case_rdp_slope(laws[1], Sg) ==
        Approx(0.2 * 0.2 * Sg * Sg / (n * n) / (2 * (0.25 * 0.1 + 0.1))).epsilon(1e-13));
}

TEST_CASE("The worst case dominates every pair and is attained", "[quadratic]") {
  MatrixXd S0(3, 3);  // a start not commuting with H
  S0 << 0.2, 0.05, 0.0, 0.05, 0.1, 0.03, 0.0, 0.03, 0.3;
  const QuadraticProblem p = problem(rotated(kDiag), 0.3, S0);
  const auto laws = step_laws(p, 40);
  std::mt19937 rng(7);
  std::normal_distribution<double> N;
  for (std::size_t K : {1u, 4u, 40u}) {
    const double worst = worst_case_rdp_slope(laws[K], Sg);
    for (int trial = 0; trial < 50; ++trial) {
      VectorXd v(3);
      for (int i = 0; i < 3; ++i) v(i) = N(rng);
      v *= Sg / v.norm();
      CHECK(rdp_slope(laws[K], v) <= worst * (1 + 1e-12));
    }
    CHECK(rdp_slope(laws[K], Sg * worst_case_direction(laws[K])) == Approx(worst).epsilon(1e-12));
    // exact_rdp_slopes takes the record difference delta = S_g H^{-1} u.
    const VectorXd delta = p.hessian.llt().solve(Sg * worst_case_direction(laws[K]));
    CHECK(exact_rdp_slopes(p, delta, static_cast<std::int64_t>(K))[K] == Approx(worst).epsilon(1e-12));
  }
}

TEST_CASE("Within a step the laws interpolate between the step laws", "[quadratic]") {
  const QuadraticProblem p = problem(rotated(kDiag), 0.3);
  const auto laws = step_laws(p, 5);
  const GaussianPair end = law_within_step(p, laws[3], p.eta);
  CHECK((end.mean_map - laws[4].mean_map).norm() <= 1e-14);
  CHECK((end.covariance - laws[4].covariance).norm() <= 1e-14);
  // s = 0: an invertible shared map T changes nothing (data processing both ways).
  CHECK(worst_case_rdp_slope(law_within_step(p, laws[3], 0.0), Sg) ==
        Approx(worst_case_rdp_slope(laws[3], Sg)).epsilon(1e-10));
  // The divergence grows inside the step.
  double prev = 0.0;
  for (double s : {0.0, 0.1, 0.2, 0.3}) {
    const double w = worst_case_rdp_slope(law_within_step(p, laws[3], s), Sg);
    CHECK(w >= prev);
    prev = w;
  }
  CHECK_THROWS_AS(law_within_step(p, laws[3], 0.31), std::invalid_argument);
}

TEST_CASE("A singular gradient map: the pseudo-inverse path and data processing", "[quadratic]") {
  // eta h = 1 in the first direction: T collapses it, and the divergence there drops to 0 at s = 0.
  const double eta = 0.5;
  const QuadraticProblem p = problem(diagonal({2.0, 1.0}), eta);
  const auto laws = step_laws(p, 3);
  const GaussianPair at0 = law_within_step(p, laws[2], 0.0);
  VectorXd v(2);
  v << Sg, 0.0;
  CHECK(rdp_slope(laws[2], v) > 0.0);
  CHECK(rdp_slope(at0, v) == 0.0);
  v << 0.0, Sg;
  CHECK(rdp_slope(at0, v) == Approx(rdp_slope(laws[2], v)).epsilon(1e-12));
  CHECK(worst_case_rdp_slope(at0, Sg) <= worst_case_rdp_slope(laws[2], Sg) * (1 + 1e-12));
  // Point start, s = 0 of the first step: both laws are the same point mass.
  CHECK(worst_case_rdp_slope(law_within_step(p, laws[0], 0.0), Sg) == 0.0);
}

TEST_CASE("The exact LSI schedule is 1 / lambda_max of the within-step covariance", "[quadratic][lsi]") {
  for (const MatrixXd& S0 : {MatrixXd(), MatrixXd(0.4 * MatrixXd::Identity(3, 3))}) {
    const QuadraticProblem p = problem(rotated(kDiag), 0.3, S0);
    const auto laws = step_laws(p, 20);
    const ExactLsiSchedule c = exact_lsi_schedule(p, 20);
    REQUIRE(c.pushed_inverse.size() == 20);
    for (std::int64_t k : {0, 1, 7, 19})
      for (double s : {0.0, 0.05, 0.3}) {
        const MatrixXd S = law_within_step(p, laws[static_cast<std::size_t>(k)], s).covariance;
        const double lam = Eigen::SelfAdjointEigenSolver<MatrixXd>(S).eigenvalues().maxCoeff();
        if (lam == 0.0)
          CHECK(std::isinf(c.c(k, s)));
        else
          CHECK(c.c(k, s) == Approx(1.0 / lam).epsilon(1e-12));
      }
    // End of step k = the law of step k + 1 (C21 Lemma 9 closes the recursion).
    const double lam20 = Eigen::SelfAdjointEigenSolver<MatrixXd>(laws[20].covariance).eigenvalues().maxCoeff();
    CHECK(c.inverse(19, p.eta) == Approx(lam20).epsilon(1e-12));
  }
  CHECK(std::isinf(exact_lsi_schedule(problem(kDiag, 0.3), 1).c(0, 0.0)));  // point start
}

TEST_CASE("Program: S_v = S_g / n, duration eta, restart at the exact constant", "[quadratic][program]") {
  const QuadraticProblem p = problem(kDiag, 0.2);
  const PrivacyProgram prog = exact_lsi_program(p, 4, GammaChoice::optimal());
  REQUIRE(prog.step_count() == 4);
  CHECK(prog.initial_inverse_lsi == 0.0);
  CHECK(prog.step(1).diffusion.sensitivity == Approx(Sg / n));
  CHECK(prog.step(1).diffusion.duration == 0.2);
  CHECK(std::holds_alternative<GaussianConvolutionLsi>(prog.step(1).diffusion.lsi));
  // lambda_max(A_1) = (1 - 0.2 * 0.3)^2 2 eta sigma^2 (softest direction).
  CHECK(1.0 / std::get<LsiRestart>(prog.step(1).before[0]).c == Approx(0.94 * 0.94 * 0.1).epsilon(1e-13));
  const PrivacyProgram f = exact_lsi_program(p, 4, GammaChoice::optimal(), LsiEncoding::Function);
  CHECK(std::holds_alternative<GaussianConvolutionLsi>(f.step(0).diffusion.lsi));  // point mass at s = 0
  CHECK(std::holds_alternative<FunctionLsi>(f.step(1).diffusion.lsi));
  CHECK(std::get<FunctionLsi>(f.step(1).diffusion.lsi).c(0.1, 0.3, 2.0) ==
        Approx(1.0 / (0.94 * 0.94 * 0.1 + 2 * 0.1 * sigma * sigma)).epsilon(1e-13));
}

TEST_CASE(
    "THE PROPERTY: optimal gamma + exact LSI = worst-case exact divergence (point start, "
    "eta (h_min + h_max) <= 2)",
    "[quadratic][property]") {
  // Why it holds: along the worst pair the PDI's two inequalities (Young's inequality at the
  // optimal gamma and the LSI) are equalities iff the mean difference is a top eigenvector of the
  // covariance and 2 sigma^2 |m| >= lambda_max |v|. For a point start every matrix is a function
  // of H, the worst direction is the softest (test above), and so is the top eigenvector of the
  // covariance as long as |1 - eta h_max| <= 1 - eta h_min.
  const std::vector<double> orders{1.5, 2.0, 8.0, 64.0};
  for (double eta : {0.05, 0.2, 0.7})  // eta (0.3 + 2.5) = 0.14, 0.56, 1.96
    for (const MatrixXd& H : {kDiag, rotated(kDiag)})
      for (LsiEncoding enc : {LsiEncoding::Restart, LsiEncoding::Function}) {
        const QuadraticProblem p = problem(H, eta);
        const auto exact = worst_case_rdp_slopes(p, 200);
        std::vector<std::vector<double>> pdi;
        pdi_slopes(exact_lsi_program(p, 200, GammaChoice::optimal(), enc), orders, &pdi);
        // Restart: closed-form flows (agreement to rounding); Function: adaptive, biased upward.
        const double tol = enc == LsiEncoding::Restart ? 1e-12 : 1e-6;
        for (std::size_t k = 1; k <= 200; ++k)
          for (std::size_t j = 0; j < orders.size(); ++j) REQUIRE(pdi[k][j] == Approx(exact[k]).epsilon(tol));
      }
}

TEST_CASE("Where the property fails: eta (h_min + h_max) > 2, or a Gaussian start", "[quadratic][property]") {
  const std::vector<double> orders{2.0};
  SECTION("eta = 0.75 on diag(0.3, 1, 2.5): the stiffest direction has the largest variance") {
    // q = 1 - eta h = 0.775, 0.25, -0.875: lambda_max(Sigma) sits at h = 2.5 while the worst pair
    // is at h = 0.3, so the LSI constant is smaller than the worst direction's.
    const QuadraticProblem p = problem(kDiag, 0.75);
    const auto exact = worst_case_rdp_slopes(p, 200);
    const auto pdi = pdi_slopes(exact_lsi_program(p, 200, GammaChoice::optimal()), orders);
    CHECK(pdi[1] == Approx(exact[1]).epsilon(1e-12));  // one step ties (H not yet seen)
    CHECK(pdi[2] / exact[2] == Approx(1.0116).epsilon(1e-4));
    CHECK(pdi[10] / exact[10] == Approx(1.2975).epsilon(1e-4));
    CHECK(pdi[200] / exact[200] == Approx(1.9014).epsilon(1e-4));
    // Exact 1-D limit (2 - eta h) S_v^2 / (4 sigma^2 h) at h = 0.3.
    CHECK(exact[200] == Approx((2 - 0.225) * 0.0004 / 0.3).epsilon(1e-9));

    // The true statement: the PDI of the 1-D marginal along the worst direction e_0 (LSI
    // 1/Var(e_0), same S_v) is exact, because the orthogonal components of the two runs are
    // identical and independent of it (point start, e_0 an eigenvector of H).
    const auto laws = step_laws(p, 200);
    const MatrixXd G = MatrixXd::Identity(3, 3) - p.eta * p.hessian;
    PrivacyProgram marginal;
    for (std::size_t k = 0; k < 200; ++k) {
      const double a = (G * laws[k].covariance * G.transpose())(0, 0);
      marginal.append({{LsiRestart{a > 0 ? 1 / a : std::numeric_limits<double>::infinity()}},
                       {p.eta, sigma, Sg / n, GaussianConvolutionLsi{}},
                       {},
                       GammaChoice::optimal()});
    }
    const auto pdi_marginal = pdi_slopes(marginal, orders);
    for (std::size_t k = 1; k <= 200; ++k) REQUIRE(pdi_marginal[k] == Approx(exact[k]).epsilon(1e-12));
  }
  SECTION("Gaussian start Sigma_0 = 0.1 I, eta = 0.2: the first steps have gamma* = 1") {
    // w_0 = 0 puts the PDI in the regime Q w <= P, where its rate P = S_v^2/(4 sigma^2) exceeds the
    // exact rate; the gap closes as the initial spread is forgotten.
    const QuadraticProblem p = problem(kDiag, 0.2, 0.1 * MatrixXd::Identity(3, 3));
    const auto exact = worst_case_rdp_slopes(p, 200);
    const auto pdi = pdi_slopes(exact_lsi_program(p, 200, GammaChoice::optimal()), orders);
    // Step 1 by hand: PDI = P eta, exact = eta^2 S_v^2 / (2 V) with V = 0.5^2 0.1 + 2 eta sigma^2.
    CHECK(pdi[1] / exact[1] == Approx((0.25 * 0.1 + 0.1) / 0.1).epsilon(1e-12));
    CHECK(pdi[10] / exact[10] == Approx(1.0597).epsilon(1e-4));
    CHECK(pdi[50] / exact[50] == Approx(1.0024).epsilon(1e-4));
    for (std::size_t k = 1; k <= 200; ++k) REQUIRE(pdi[k] > exact[k]);
  }
}

TEST_CASE("Soundness: with the exact LSI schedule every fixed gamma bounds the exact divergence",
          "[quadratic][soundness]") {
  MatrixXd S0(3, 3);
  S0 << 0.2, 0.05, 0.0, 0.05, 0.1, 0.03, 0.0, 0.03, 0.3;
  const std::vector<double> orders{2.0, 32.0};
  const std::vector<QuadraticProblem> problems{problem(kDiag, 0.2), problem(rotated(kDiag), 0.2), problem(kDiag, 0.75),
                                               problem(rotated(kDiag), 0.5, S0),
                                               problem(diagonal({0.3, 1.0, 2.5}), 0.2, 0.1 * MatrixXd::Identity(3, 3))};
  for (const auto& p : problems) {
    const auto exact = worst_case_rdp_slopes(p, 120);
    const auto best = pdi_slopes(exact_lsi_program(p, 120, GammaChoice::optimal()), orders);
    for (double g : {0.05, 0.3, 0.5, 0.8, 1.0}) {
      std::vector<std::vector<double>> pdi;
      pdi_slopes(exact_lsi_program(p, 120, GammaChoice::fixed(g)), orders, &pdi);
      for (std::size_t k = 1; k <= 120; ++k) {
        for (std::size_t j = 0; j < orders.size(); ++j) REQUIRE(pdi[k][j] >= exact[k] * (1 - 1e-12));
        REQUIRE(best[k] <= pdi[k][0] * (1 + 1e-12));
      }
    }
    for (std::size_t k = 1; k <= 120; ++k) REQUIRE(best[k] >= exact[k] * (1 - 1e-12));
  }
}

TEST_CASE("Invalid quadratic problems are rejected with the field named", "[quadratic]") {
  CHECK_THROWS_WITH(validate(problem(diagonal({1.0, -0.1}), 0.1)), Catch::Contains("positive definite"));
  MatrixXd A(2, 2);
  A << 1, 0.5, 0.1, 1;
  CHECK_THROWS_WITH(validate(problem(A, 0.1)), Catch::Contains("symmetric"));
  CHECK_THROWS_WITH(validate(problem(kDiag, 0.1, MatrixXd::Identity(2, 2))), Catch::Contains("initial_covariance"));
  CHECK_THROWS_WITH(validate(problem(kDiag, 0.1, -MatrixXd::Identity(3, 3))), Catch::Contains("semi-definite"));
  CHECK_THROWS_WITH(validate(problem(kDiag, 0.0)), Catch::Contains("eta"));
  CHECK_THROWS_AS(step_laws(problem(kDiag, 0.1), -1), std::invalid_argument);
  CHECK_THROWS_AS(exact_rdp_slopes(problem(kDiag, 0.1), VectorXd::Zero(2), 3), std::invalid_argument);
}
