// The Gaussian-DP entries of the registry: bok-su-altschuler-full-batch (shifted interpolation,
// arXiv:2403.00278), gdp-composition (arXiv:1905.02383 Cor 3.3) and exact (the two Gaussian laws of
// a quadratic loss), their unit conversion, and how compare ranks them.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <iomanip>
#include <random>

#include "accounting/gaussian_dp.hpp"
#include "analyses/analysis.hpp"
#include "analyses/bok_su_altschuler_2024.hpp"
#include "analyses/quadratic_exact_profile.hpp"
#include "commands/compare.hpp"
#include "models/noise_units.hpp"
#include "models/privacy_model.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {

EngineRegistry characteristics_only() {
  EngineRegistry r;
  r.add(make_characteristics_engine());
  return r;
}

const ComparisonEntry& entry(const Comparison& c, const std::string& name) {
  for (const auto& e : c.entries)
    if (e.result.name == name) return e;
  FAIL("no entry " << name);
  throw;
}

/// Full-batch noisy GD on a quadratic loss with Hessian diag(h) rotated, lambda = h_min, beta = h_max
/// declared, the exact LSI schedule, a point start.
RunConfig quadratic_run(const Eigen::MatrixXd& H, double eta, double sigma, double n, double Sg, std::int64_t steps) {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.loss = LossKind::Quadratic;
  s.algorithm.phases = {Phase::of(steps, eta, sigma)};
  s.algorithm.n = n;
  s.algorithm.sensitivity = Sg;
  QuadraticLoss loss;
  for (Eigen::Index i = 0; i < H.rows(); ++i) {
    loss.hessian.emplace_back();
    for (Eigen::Index j = 0; j < H.cols(); ++j) loss.hessian.back().push_back(H(i, j));
  }
  s.quadratic = loss;
  const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues();
  s.lsi = LsiSpec::recursion(eig.minCoeff() * (1.0 - 1e-12), eig.maxCoeff() * (1.0 + 1e-12));
  s.gamma = GammaChoice::optimal();
  s.orders = {1.5, 2.0, 8.0, 32.0};
  s.report_delta = 1e-5;
  return c;
}

}  // namespace

TEST_CASE("GDP units: one step's mu in C21, A&T and DP-SGD units", "[gdp][units]") {
  const double sigma = 0.7, eta = 0.3, Sg = 2.5, b = 40.0;
  const double mu1 = noise_units::one_step_gdp_mu(sigma, eta, Sg, b);
  // Shift over noise std, by hand: (eta S_g / b) / (sqrt(2 eta) sigma).
  CHECK(mu1 == Approx((eta * Sg / b) / (std::sqrt(2.0 * eta) * sigma)).epsilon(1e-15));
  CHECK(mu1 == Approx(1.0 / noise_units::effective_noise_multiplier(sigma, eta, Sg, b)).epsilon(1e-15));
  // Bok, Su & Altschuler / A&T units: noise eta sigma_AT, gradient difference 2L = S_g: 2L/(b sigma_AT).
  const double L = Sg / 2.0, sigma_at = noise_units::at_sigma_from_c21(sigma, eta);
  CHECK(mu1 == Approx(2.0 * L / (b * sigma_at)).epsilon(1e-15));
  // The statement for full batch: sqrt(eta/2) S_g / (n sigma).
  CHECK(noise_units::one_step_gdp_mu(sigma, eta, Sg, 1000.0) == Approx(std::sqrt(eta / 2) * Sg / (1000.0 * sigma)));
}

TEST_CASE("Shifted interpolation: the paper's factor (1+c)/(1-c) (1-c^T)/(1+c^T)", "[gdp][bok-su-altschuler]") {
  // Hand values. T = 1: one step, factor 1 for every c. T = 2, c = 1/2: (3)(0.75/1.25) = 1.8, which
  // is also (1 + c)^2/(1 + c^2), the exact two-step value of the squared loss (gap (1 + c), variance
  // 1 + c^2 in units of one step). T -> infinity: (1 + c)/(1 - c) = 3.
  CHECK(shifted_interpolation_factor(0.5, 1) == Approx(1.0).epsilon(1e-15));
  CHECK(shifted_interpolation_factor(0.9, 1) == Approx(1.0).epsilon(1e-15));
  CHECK(shifted_interpolation_factor(0.5, 2) == Approx(1.8).epsilon(1e-15));
  CHECK(shifted_interpolation_factor(0.5, 200) == Approx(3.0).epsilon(1e-15));
  CHECK(shifted_interpolation_factor(0.5, 0) == 0.0);
  // c -> 1: the GDP composition mu_1 sqrt(T) (no contraction), without cancellation.
  CHECK(shifted_interpolation_factor(1e-13, 1000) == Approx(1000.0).epsilon(1e-9));
  // Non-decreasing in T and in c.
  for (std::int64_t T = 1; T < 50; ++T) {
    CHECK(shifted_interpolation_factor(0.3, T + 1) >= shifted_interpolation_factor(0.3, T));
    CHECK(shifted_interpolation_factor(0.2, T) >= shifted_interpolation_factor(0.3, T));
  }
  CHECK(gradient_map_one_minus_contraction(0.5, 0.4, 3.0) == Approx(0.2));   // c = 1 - eta m = 0.8
  CHECK(gradient_map_one_minus_contraction(0.5, 1.0, 3.5) == Approx(0.25));  // c = eta M - 1 = 0.75
  // Rounded down, never above the exact 1 - c (mu falls as 1 - c grows): near eta M = 2 the
  // subtraction cancels; eta = 1, M = 2 - 2^-40 gives exactly 2^-40, reported at most that.
  const double tiny = std::ldexp(1.0, -40);
  const double near_limit = gradient_map_one_minus_contraction(1.0, 1.0, 2.0 - tiny);
  CHECK(near_limit <= tiny);
  CHECK(near_limit >= tiny * (1.0 - 1e-15));
  CHECK(gradient_map_one_minus_contraction(0.1, 3.0, 4.0) <= 0.1 * 3.0);
}

TEST_CASE("Squared loss: shifted interpolation = exact mu; best = the exact (epsilon, delta)", "[gdp][soundness]") {
  const EngineRegistry engines = characteristics_only();
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int i = 0; i < 30; ++i) {
    RunConfig c;
    RunSpec& s = c.spec;
    s.algorithm.loss = LossKind::Squared;
    const double eta = 0.01 + 0.9 * U(rng), sigma = 0.05 + 2.0 * U(rng), n = std::floor(10 + 5000 * U(rng));
    const double Sg = 0.5 + 4 * U(rng);
    const auto steps = static_cast<std::int64_t>(1 + 2000 * U(rng));
    s.algorithm.phases = {Phase::of(steps, eta, sigma)};
    s.algorithm.n = n;
    s.algorithm.sensitivity = Sg;
    s.lsi = LsiSpec::recursion(1.0, 1.0);
    s.gamma = GammaChoice::optimal();
    s.orders = {2.0, 8.0};
    s.report_delta = std::vector<double>{1e-5, 1e-8, 1e-3}[i % 3];
    INFO("eta = " << eta << ", sigma = " << sigma << ", n = " << n << ", S_g = " << Sg << ", steps = " << steps);
    // C21 Thm 3: R_alpha / alpha = S_g^2/(4 sigma^2 n^2) (2 - eta)(1 - q^T)/(1 + q^T), q = 1 - eta.
    const double q = std::pow(1.0 - eta, static_cast<double>(steps));
    const double thm3_mu = std::sqrt(2.0 * Sg * Sg / (4 * sigma * sigma * n * n) * (2 - eta) * (1 - q) / (1 + q));
    const Comparison cmp = run_comparison(c, engines);
    const auto& bsa = entry(cmp, "bok-su-altschuler-full-batch");
    const auto& ex = entry(cmp, "exact");
    REQUIRE(bsa.result.applies);
    REQUIRE(ex.result.applies);
    CHECK(*bsa.result.mu == Approx(thm3_mu).epsilon(1e-12));
    CHECK(*ex.result.mu == Approx(thm3_mu).epsilon(1e-12));
    CHECK(*bsa.result.mu >= quadratic_exact_mu(s, steps));  // rounded outward
    const double exact_eps = gdp_epsilon(quadratic_exact_mu(s, steps), *s.report_delta);
    CHECK(std::fabs(cmp.best_epsilon - exact_eps) <= 1e-6 * exact_eps);
    // Not below the exact epsilon: the exact profile at best's epsilon is within delta (to the
    // profile's own evaluation error). exact_eps is itself a certified value, an upper bound with
    // its own few-ulp slack, so best may sit those ulps below it without being below the truth.
    CHECK(gdp_delta(quadratic_exact_mu(s, steps), cmp.best_epsilon) <= *s.report_delta * (1 + 1e-12));
    INFO("best " << std::setprecision(17) << cmp.best_epsilon << " exact " << exact_eps);
    CHECK(cmp.best_epsilon >= exact_eps * (1 - 1e-9));
    CHECK(cmp.best_epsilon <= bsa.epsilon);  // best is it, or ties with it (epsilon 0 at a large delta)
    if (cmp.best_epsilon > 0.0) CHECK(cmp.best_mu.has_value());
    CHECK(bsa.epsilon_orders == "gdp");
  }
}

TEST_CASE("Random quadratic runs: no entry's epsilon below the exact one", "[gdp][soundness]") {
  const EngineRegistry engines = characteristics_only();
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::normal_distribution<double> N(0.0, 1.0);
  int bsa_applied = 0, bsa_tight = 0;
  for (int i = 0; i < 40; ++i) {
    const auto d = static_cast<Eigen::Index>(1 + i % 3);
    Eigen::VectorXd h(d);
    for (Eigen::Index k = 0; k < d; ++k) h(k) = 0.2 + 2.8 * U(rng);
    Eigen::MatrixXd G(d, d);
    for (Eigen::Index a = 0; a < d; ++a)
      for (Eigen::Index b = 0; b < d; ++b) G(a, b) = N(rng);
    const Eigen::MatrixXd Q = Eigen::HouseholderQR<Eigen::MatrixXd>(G).householderQ();
    Eigen::MatrixXd H = Q * h.asDiagonal() * Q.transpose();
    H = ((H + H.transpose()) / 2.0).eval();
    const double eta = (0.02 + 1.9 * U(rng)) / h.maxCoeff();
    const RunConfig c = quadratic_run(H, eta, 0.05 + U(rng), std::floor(10 + 2000 * U(rng)), 0.5 + 3 * U(rng),
                                      static_cast<std::int64_t>(1 + 500 * U(rng)));
    const Comparison cmp = run_comparison(c, engines);
    const auto& ex = entry(cmp, "exact");
    REQUIRE(ex.result.applies);
    const double exact_mu = quadratic_exact_mu(c.spec, c.spec.total_steps());
    const double exact_eps = gdp_epsilon(exact_mu, 1e-5);
    INFO("run " << i << ": eta = " << eta << ", exact mu = " << exact_mu << ", epsilon " << exact_eps);
    for (const auto& e : cmp.entries) {
      if (!e.result.applies) continue;
      INFO(e.result.name);
      CHECK(e.epsilon >= exact_eps * (1 - 1e-12));
      if (e.result.mu) CHECK(*e.result.mu >= exact_mu);
    }
    const auto& bsa = entry(cmp, "bok-su-altschuler-full-batch");
    if (bsa.result.applies) {
      ++bsa_applied;
      // Tight when the softest direction is the worst and contracts: eta (h_min + h_max) <= 2.
      if (eta * (h.minCoeff() + h.maxCoeff()) <= 2.0 * (1 - 1e-9)) {
        CHECK(*bsa.result.mu == Approx(exact_mu).epsilon(1e-9));
        ++bsa_tight;
      }
    }
  }
  CHECK(bsa_applied >= 30);
  CHECK(bsa_tight >= 10);
}

TEST_CASE("gdp-composition is mu_1 sqrt(T) on full batch; refuses R_0", "[gdp]") {
  const EngineRegistry engines = characteristics_only();
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.phases = {Phase::of(500, 0.1, 0.4)};
  s.algorithm.n = 1000;
  s.algorithm.sensitivity = 2.0;
  s.lsi = LsiSpec::recursion(0.5, 2.0);
  s.orders = {2.0, 4.0};
  s.report_delta = 1e-5;
  const TrainingRun run = training_run_of(s);
  const AnalysisResult r = find_analysis("gdp-composition")->assess({c, run, engines}, s.orders);
  REQUIRE(r.applies);
  const double mu = noise_units::one_step_gdp_mu(0.4, 0.1, 2.0, 1000.0) * std::sqrt(500.0);
  CHECK(*r.mu == Approx(mu).epsilon(1e-12));
  CHECK(*r.mu >= mu);
  CHECK(r.R[1] == Approx(4.0 * mu * mu / 2).epsilon(1e-12));
  // Same composed Rényi curve as composition-gaussian, smaller epsilon by the exact conversion.
  const Comparison cmp = run_comparison(c, engines);
  CHECK(entry(cmp, "gdp-composition").result.R[0] == Approx(entry(cmp, "composition-gaussian").result.R[0]).epsilon(1e-12));
  CHECK(entry(cmp, "gdp-composition").epsilon < entry(cmp, "composition-gaussian").epsilon);
  RunConfig with_r0 = c;
  with_r0.spec.initial = LinearCurve{0.01};
  const AnalysisResult refused =
      find_analysis("gdp-composition")->assess({with_r0, training_run_of(with_r0.spec), engines}, s.orders);
  CHECK(!refused.applies);
  CHECK(refused.reason.find("R_0") != std::string::npos);
}
