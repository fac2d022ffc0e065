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
  // The floor, independent of this code: a quadratic loss of curvature 0.5 (the declared lambda) with
  // every iterate released is 500 Gaussian mechanisms of shift eta S_g / n over the noise sqrt(2 eta)
  // sigma, exactly G(mu) with mu = sqrt(eta/2) S_g sqrt(500) / (n sigma) = 0.025; its epsilon at 1e-5
  // is 0.0749416871978 (mpmath, 40 digits, rounded down; tests/soundness/floors/values.py,
  // "gdp_composition_full_batch"). The entry is tight here: within 1e-9.
  const Comparison cmp = run_comparison(c, engines);
  CHECK(*r.mu >= 0.025 * (1.0 - 1e-15));
  CHECK(*r.mu == Approx(0.025).epsilon(1e-12));
  CHECK(entry(cmp, "gdp-composition").epsilon >= 0.0749416871978);
  CHECK(entry(cmp, "gdp-composition").epsilon <= 0.0749416871978 * (1.0 + 1e-9));
  // Consistency checks (two routes of this code, not floors): the same composed Rényi curve as
  // composition-gaussian, a smaller epsilon by the exact conversion.
  CHECK(entry(cmp, "gdp-composition").result.R[0] ==
        Approx(entry(cmp, "composition-gaussian").result.R[0]).epsilon(1e-12));
  CHECK(entry(cmp, "gdp-composition").epsilon < entry(cmp, "composition-gaussian").epsilon);
  RunConfig with_r0 = c;
  with_r0.spec.initial = LinearCurve{0.01};
  const AnalysisResult refused =
      find_analysis("gdp-composition")->assess({with_r0, training_run_of(with_r0.spec), engines}, s.orders);
  CHECK(!refused.applies);
  CHECK(refused.reason.find("R_0") != std::string::npos);
}

// ---- bok-su-altschuler-cyclic: shifted interpolation for NoisyCGD (cyclic batches) ----

namespace {

/// Noisy SGD with fixed-size batches: n records, batch b, `steps` steps, a strongly convex and
/// smooth loss declared through [lsi] (lambda, beta), replace adjacency.
RunConfig cyclic_run(BatchSampling sampling, double n, std::int64_t b, std::int64_t steps, double eta, double sigma,
                     double Sg, double lambda, double beta) {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = AlgorithmKind::NoisySgd;
  s.algorithm.sampling = sampling;
  s.algorithm.batch_size = b;
  s.algorithm.phases = {Phase::of(steps, eta, sigma)};
  s.algorithm.n = n;
  s.algorithm.sensitivity = Sg;
  s.lsi = LsiSpec::recursion(lambda, beta);
  s.gamma = GammaChoice::optimal();
  s.orders = {2.0, 8.0};
  s.report_delta = 1e-5;
  return c;
}

/// The exact GDP parameter of the last iterates of a one-dimensional linear run theta -> q theta -
/// (eta/b) (gradient term) + N(0, s^2), the differing record shifting its batch's update by Delta:
/// both laws are Gaussian with the same variance, so mu = |mean gap| / std (Dong, Roth & Su 2022,
/// arXiv:1905.02383, the Gaussian mechanism). The record is in batch `position` (1..l) of l, the
/// batches cycled in order; computed step by step, independently of any closed form.
double cyclic_exact_mu(double q, double Delta, double s, std::int64_t l, std::int64_t position, std::int64_t steps) {
  double gap = 0.0, var = 0.0;
  for (std::int64_t t = 0; t < steps; ++t) {
    gap = q * gap + ((t % l) + 1 == position ? Delta : 0.0);
    var = q * q * var + s * s;
  }
  return std::fabs(gap) / std::sqrt(var);
}

}  // namespace

TEST_CASE("Shifted interpolation, cyclic: the authors' formula at their numbers and its limits",
          "[gdp][bok-su-altschuler]") {
  // Reference values: the formula mu sqrt(1 + c^(2l-2)(1-c^2)/(1-c^l)^2 (1-c^(l(E-1)))/(1+c^(l(E-1))))
  // of the authors' scripts evaluated with mpmath at 50 digits (/usr/bin/python3, by hand, not by
  // this code). plot_table_ncgd_fdp.py (Tables 9-12 of the paper): mu = 0.2, (c, l, E).
  CHECK(shifted_interpolation_cyclic_mu(0.2, 0.01, 20, 5) == Approx(0.21506723990209907).epsilon(1e-13));
  CHECK(shifted_interpolation_cyclic_mu(0.2, 0.01, 20, 50) == Approx(0.23745298463487464).epsilon(1e-13));
  CHECK(shifted_interpolation_cyclic_mu(0.2, 0.01, 20, 500) == Approx(0.23745662672327209).epsilon(1e-13));
  CHECK(shifted_interpolation_cyclic_mu(0.2, 0.02, 10, 50) == Approx(0.27000399691783318).epsilon(1e-13));
  CHECK(shifted_interpolation_cyclic_mu(0.2, 0.005, 40, 500) == Approx(0.21949111840609087).epsilon(1e-13));
  // table_privacy_lr.py (the paper's Table 1, regularised logistic regression on MNIST): mu = 2/3,
  // l = 40, c = 0.9999 (lambda = 0.002) and 0.9998 (lambda = 0.004), E = 50, 100, 200.
  CHECK(shifted_interpolation_cyclic_mu(2.0 / 3, 1e-4, 40, 50) == Approx(0.99249139689823049).epsilon(1e-11));
  CHECK(shifted_interpolation_cyclic_mu(2.0 / 3, 1e-4, 40, 100) == Approx(1.2353387985082623).epsilon(1e-11));
  CHECK(shifted_interpolation_cyclic_mu(2.0 / 3, 1e-4, 40, 200) == Approx(1.5929736509892345).epsilon(1e-11));
  CHECK(shifted_interpolation_cyclic_mu(2.0 / 3, 2e-4, 40, 200) == Approx(1.5061239791336927).epsilon(1e-11));
  // Hand value: c = 1/2, l = 2, E = 2: 1 + (1/4)(3/4)/(3/4)^2 (3/4)/(5/4) = 1 + (1/3)(3/5) = 1.2.
  CHECK(shifted_interpolation_cyclic_factor(0.5, 2, 2) == Approx(1.2).epsilon(1e-15));
  // E = 1: one use, at the last step: mu_1 (no amplification); E = 0: no step.
  CHECK(shifted_interpolation_cyclic_factor(0.3, 7, 1) == 1.0);
  CHECK(shifted_interpolation_cyclic_factor(0.3, 7, 0) == 0.0);
  // c = 0 (eta m = eta M = 1): the earlier uses are forgotten at once; l = 1 keeps one more step.
  CHECK(shifted_interpolation_cyclic_factor(1.0, 5, 9) == 1.0);
  CHECK(shifted_interpolation_cyclic_factor(1.0, 1, 9) == 2.0);
  // l = 1 (b = n): 1 + the full-batch factor of E - 1 steps, never below the full-batch bound of E
  // steps (the cyclic theorem pays the last step in full; equal at E = 1).
  for (std::int64_t E = 1; E < 40; ++E) {
    CHECK(shifted_interpolation_cyclic_factor(0.3, 1, E) ==
          Approx(1.0 + shifted_interpolation_factor(0.3, E - 1)).epsilon(1e-14));
    CHECK(shifted_interpolation_cyclic_factor(0.3, 1, E) >= shifted_interpolation_factor(0.3, E) * (1 - 1e-15));
  }
  // c -> 1: 1 + (E - 1)/l (each earlier epoch costs 1/l of a use), below the GDP composition E.
  CHECK(shifted_interpolation_cyclic_factor(1e-12, 20, 101) == Approx(1.0 + 100.0 / 20).epsilon(1e-6));
  // Non-decreasing in c (so rounding 1 - c down is outward) and in E.
  for (std::int64_t l : {1, 2, 5, 29}) {
    for (std::int64_t E = 1; E < 60; ++E) {
      CHECK(shifted_interpolation_cyclic_factor(0.05, l, E + 1) >= shifted_interpolation_factor(0.0, 0));
      CHECK(shifted_interpolation_cyclic_factor(0.05, l, E + 1) >= shifted_interpolation_cyclic_factor(0.05, l, E));
      CHECK(shifted_interpolation_cyclic_factor(0.04, l, E) >= shifted_interpolation_cyclic_factor(0.05, l, E));
      CHECK(shifted_interpolation_cyclic_factor(0.05, l, E) <= static_cast<double>(E) * (1 + 1e-15));
    }
  }
}

TEST_CASE("Shifted interpolation, cyclic: never below the exact GDP parameter of a linear run, at any position",
          "[gdp][bok-su-altschuler][soundness]") {
  // A quadratic per-record loss with curvature h in [m, M] contracts by q = 1 - eta h; its two last
  // iterates are Gaussian. The bound uses c = max |1 - eta h| over [m, M] and must hold for every
  // batch position of the record and every such h.
  std::mt19937_64 rng(4545);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (int i = 0; i < 300; ++i) {
    const double m = 0.05 + 2.0 * U(rng), M = m * (1.0 + 4.0 * U(rng));
    const double eta = (0.01 + 1.98 * U(rng)) / M;
    const double sigma = 0.1 + U(rng), Sg = 0.5 + 3.0 * U(rng);
    const auto b = static_cast<std::int64_t>(1 + 50 * U(rng));
    const auto l = static_cast<std::int64_t>(1 + 12 * U(rng));
    const auto E = static_cast<std::int64_t>(1 + 40 * U(rng));
    const double one_minus_c = gradient_map_one_minus_contraction(eta, m, M);
    REQUIRE(one_minus_c > 0.0);
    const double mu_1 = noise_units::one_step_gdp_mu(sigma, eta, Sg, static_cast<double>(b));
    const double bound = shifted_interpolation_cyclic_mu(mu_1, one_minus_c, l, E);
    const double Delta = noise_units::step_sensitivity(Sg, eta, static_cast<double>(b));
    const double s = noise_units::c21_step_noise_std(sigma, eta);
    for (double h : {m, M, m + (M - m) * U(rng)})
      for (std::int64_t j = 1; j <= l; ++j) {
        INFO("m = " << m << ", M = " << M << ", eta = " << eta << ", h = " << h << ", l = " << l << ", E = " << E
                    << ", position " << j);
        CHECK(bound >= cyclic_exact_mu(1.0 - eta * h, Delta, s, l, j, E * l) * (1 - 1e-12));
      }
  }
  // Tight where the theorem's slack vanishes: l = 2, the record in the last batch, q = c, many
  // epochs. A bound that were too small (a lost factor) fails the check above; one that were too
  // large (a doubled mu_1, a missing contraction) fails this one.
  for (double one_minus_c : {0.4, 0.1, 0.02}) {
    const double q = 1.0 - one_minus_c;
    const double exact = cyclic_exact_mu(q, 1.0, 1.0, 2, 2, 2 * 4000);
    CHECK(shifted_interpolation_cyclic_mu(1.0, one_minus_c, 2, 4000) == Approx(exact).epsilon(1e-9));
  }
  // With l > 2 it is strictly above (the last use is paid in full, the earlier gaps spread).
  CHECK(shifted_interpolation_cyclic_mu(1.0, 0.1, 10, 50) > 1.05 * cyclic_exact_mu(0.9, 1.0, 1.0, 10, 10, 500));
}

TEST_CASE("bok-su-altschuler-cyclic: the registry entry, its samplings and refusals", "[gdp][bok-su-altschuler]") {
  const EngineRegistry engines = characteristics_only();
  // n = 1000, b = 50: l = 20 batches; 10 epochs; eta = 0.2, lambda = 0.5, beta = 4: c = max(0.9, 0.2).
  const double n = 1000, eta = 0.2, sigma = 0.3, Sg = 2.0, lambda = 0.5, beta = 4.0;
  const std::int64_t b = 50, steps = 200;
  auto assess = [&](const RunConfig& c) {
    return find_analysis("bok-su-altschuler-cyclic")->assess({c, training_run_of(c.spec), engines}, c.spec.orders);
  };
  const RunConfig part = cyclic_run(BatchSampling::Partition, n, b, steps, eta, sigma, Sg, lambda, beta);
  const AnalysisResult r = assess(part);
  INFO(r.reason);
  REQUIRE(r.applies);
  // mu_1 = (eta S_g / b)/(sqrt(2 eta) sigma) = 0.008 / (0.6324555... x 0.3) = 0.042163702135578...;
  // factor at c = 0.9, l = 20, E = 10 (mpmath, 50 digits): 1.0044932565496990.
  const double mu_1 = (eta * Sg / b) / (std::sqrt(2 * eta) * sigma);
  CHECK(mu_1 == Approx(0.042163702135578393).epsilon(1e-14));
  CHECK(shifted_interpolation_cyclic_factor(0.1, 20, 10) == Approx(1.0044932565496990).epsilon(1e-13));
  const double mu = mu_1 * std::sqrt(shifted_interpolation_cyclic_factor(0.1, 20, 10));
  CHECK(*r.mu == Approx(mu).epsilon(1e-12));
  CHECK(*r.mu >= mu);  // rounded outward
  CHECK(r.R[1] == Approx(8.0 * mu * mu / 2).epsilon(1e-12));
  CHECK(r.reason.find("E = 10") != std::string::npos);
  // Below the GDP composition of the 10 uses, mu_1 sqrt(10).
  const Comparison cmp = run_comparison(part, engines);
  CHECK(*entry(cmp, "bok-su-altschuler-cyclic").result.mu < *entry(cmp, "gdp-composition").result.mu);
  CHECK(entry(cmp, "bok-su-altschuler-cyclic").epsilon_orders == "gdp");

  // A partition drawn once: the same bound (it holds for every draw).
  const AnalysisResult once = assess(cyclic_run(BatchSampling::ShuffleOnce, n, b, steps, eta, sigma, Sg, lambda, beta));
  REQUIRE(once.applies);
  CHECK(*once.mu == *r.mu);
  // shuffle: one epoch only (then it is one random partition); more epochs move the record.
  CHECK(assess(cyclic_run(BatchSampling::Shuffle, n, b, 20, eta, sigma, Sg, lambda, beta)).applies);
  const AnalysisResult reshuffled =
      assess(cyclic_run(BatchSampling::Shuffle, n, b, steps, eta, sigma, Sg, lambda, beta));
  CHECK(!reshuffled.applies);
  CHECK(reshuffled.reason.find("fresh partition") != std::string::npos);
  for (BatchSampling fresh : {BatchSampling::PerStep, BatchSampling::Poisson}) {
    RunConfig c = cyclic_run(fresh, n, b, steps, eta, sigma, Sg, lambda, beta);
    if (fresh == BatchSampling::Poisson) c.spec.algorithm.sampling_rate = 0.05;
    const AnalysisResult x = assess(c);
    CHECK(!x.applies);
    CHECK(x.reason.find("NoisySGD") != std::string::npos);
  }
  // Whole epochs only.
  const AnalysisResult partial = assess(cyclic_run(BatchSampling::Partition, n, b, 210, eta, sigma, Sg, lambda, beta));
  CHECK(!partial.applies);
  CHECK(partial.reason.find("whole epochs") != std::string::npos);
  // Strong convexity and eta < 2/beta.
  CHECK(!assess(cyclic_run(BatchSampling::Partition, n, b, steps, eta, sigma, Sg, 0.0, beta)).applies);
  CHECK(!assess(cyclic_run(BatchSampling::Partition, n, b, steps, 0.5, sigma, Sg, lambda, beta)).applies);
  // Add-remove with fixed-size batches: refused (a refilled slot doubles the step's shift).
  RunConfig ar = part;
  ar.spec.adjacency = Adjacency::AddRemove;
  const AnalysisResult addrem = assess(ar);
  CHECK(!addrem.applies);
  CHECK(addrem.reason.find("add-remove") != std::string::npos);
  // Full batch: the full-batch entry's business.
  RunConfig full = part;
  full.spec.algorithm.kind = AlgorithmKind::NoisyGd;
  full.spec.algorithm.sampling = BatchSampling::FullBatch;
  CHECK(!assess(full).applies);
}
