// Altschuler & Talwar 2022 bounds (B.1)-(B.3), the strongly convex full-batch PABI bound, the
// composition accountants and the unit conversions. Expected values are recomputed here from the
// paper's formulas (arXiv:2205.13710; typo fixes in docs/analyses.md section 3.3) by brute force
// over the free parameters, or taken from reference values computed independently of this code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "analyses/altschuler_talwar_2022.hpp"
#include "analyses/composition.hpp"
#include "models/noise_units.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"

using namespace rdpdyn;
namespace at = rdpdyn::altschuler_talwar;
namespace nu = rdpdyn::noise_units;

namespace {

// A&T setting from A&T-unit parameters (alpha, sigma, eta, L, D, n, b, T);
// replace adjacency: shift 2L (Remark B.2).
at::Setting setting(double sigma, double eta, double L, double D, double n, double b, std::int64_t T) {
  at::Setting st;
  st.sigma = sigma;
  st.eta = eta;
  st.shift = 2.0 * L;
  st.diameter = D;
  st.n = n;
  st.batch = b;
  st.steps = T;
  return st;
}

// The same run described in C21 units, as `compare` would hand it over.
TrainingRun run_of(double sigma_at, double eta, double L, std::optional<double> D, double n, std::int64_t b,
                   std::int64_t T, BatchSampling sampling, std::vector<double> orders) {
  TrainingRun r;
  r.n = n;
  r.batch_size = b;
  r.sampling = sampling;
  r.steps = T;
  r.eta = eta;
  r.sigma = nu::c21_sigma_from_at(sigma_at, eta);
  r.sensitivity = 2.0 * L;
  r.lambda = 0.0;
  r.beta = 1.0 / eta;  // eta = 1/beta <= 2/beta: the convex step-size condition holds
  r.diameter = D;
  r.gradients_norm_bounded = true;  // A&T's setting: L-Lipschitz losses, S_g = 2L
  r.orders = std::move(orders);
  return r;
}

// (B.1) by brute force over every window k = 1..T (App. B.1), A&T units.
double b1_brute(double alpha, double sigma, double eta, double L, double D, double n, std::int64_t T) {
  const double s = 2.0 * eta * L / n, Dt = D + s;
  double best = static_cast<double>(T) * s * s;
  for (std::int64_t k = 1; k <= T; ++k) {
    const double kd = static_cast<double>(k);
    best = std::min(best, kd * (Dt / kd + s) * (Dt / kd + s));
  }
  return alpha / (2.0 * eta * eta * sigma * sigma) * best;
}

// (B.2) (c = 1) or (B.3) (c < 1) by brute force: sigma1 on a 400-point grid, every window
// k = T~ = 1..T-1 (App. B.2, B.3, footnote 11), and the T S_alpha(b/n, b sigma/(2L)) branch.
double split_brute(double alpha, double sigma, double eta, double L, double D, double n, double b, std::int64_t T,
                   double c) {
  const double q = b / n;
  double best = static_cast<double>(T) * sampled_gaussian_rdp(q, b * sigma / (2 * L), alpha);
  for (int i = 1; i <= 400; ++i) {
    const double s1 = sigma * i / 401.0, s2 = std::sqrt(sigma * sigma - s1 * s1);
    const double Q = sampled_gaussian_rdp(q, b * s2 / (2 * L), alpha);
    const double A = alpha * D * D / (2 * eta * eta * s1 * s1);
    for (std::int64_t k = 1; k <= T - 1; ++k) {
      const double kd = static_cast<double>(k);
      const double pabi = c == 1.0 ? A / kd : A * (1 - c * c) / (std::pow(c, -2.0 * kd) - 1.0);
      best = std::min(best, Q + kd * Q + pabi);
    }
  }
  return best;
}

}  // namespace

// ----------------------------------------------------------------------------------------------
// Units (docs/math.md sections 1.2, 1.4)

TEST_CASE("Noise conversions round-trip and equate the per-step noise", "[units]") {
  for (double eta : {1e-3, 0.02, 0.5, 1.7})
    for (double sigma : {1e-4, 0.02, 3.0}) {
      CHECK(nu::c21_sigma_from_at(nu::at_sigma_from_c21(sigma, eta), eta) == Approx(sigma).epsilon(1e-15));
      CHECK(nu::at_sigma_from_c21(nu::c21_sigma_from_at(sigma, eta), eta) == Approx(sigma).epsilon(1e-15));
      // sqrt(2 eta) sigma_C = eta sigma_AT (C21 Alg. 1 vs A&T footnote 3).
      CHECK(nu::at_step_noise_std(nu::at_sigma_from_c21(sigma, eta), eta) ==
            Approx(nu::c21_step_noise_std(sigma, eta)).epsilon(1e-15));
      for (double b : {1.0, 64.0, 5000.0}) {
        const double m = nu::dpsgd_multiplier_from_c21_sigma(sigma, eta, 4.0, b);
        CHECK(nu::c21_sigma_from_dpsgd_multiplier(m, eta, 4.0, b) == Approx(sigma).epsilon(1e-15));
        // Effective multiplier = b sigma_AT / S_g (A&T (3.5): b sigma/(2L), 2L = S_g), and the DP-SGD
        // multiplier (relative to the clip norm C = S_g/2) is twice it.
        const double z = nu::effective_noise_multiplier(sigma, eta, 4.0, b);
        CHECK(z == Approx(b * nu::at_sigma_from_c21(sigma, eta) / 4.0).epsilon(1e-15));
        CHECK(m == Approx(2.0 * z).epsilon(1e-15));
      }
    }
  // C21 Figure 1 has sigma_C = 0.02 at eta = 0.02, i.e. sigma_AT = 0.2.
  CHECK(nu::at_sigma_from_c21(0.02, 0.02) == Approx(0.2).epsilon(1e-15));
  CHECK(nu::step_sensitivity(4.0, 0.02, 5000.0) == Approx(1.6e-5).epsilon(1e-15));
}

TEST_CASE("Unit relations: C21 Cor 1 and the composition baseline in A&T units", "[units]") {
  // C21 Cor 1 reads 8 alpha L^2/(m eta sigma_AT^2 n^2) (1 - e^{-m eta K/2}) in A&T
  // units, with S_g = 2L and sigma_C = sigma_AT sqrt(eta/2).
  const double alpha = 10, L = 2, n = 5000, eta = 0.02, sigma_at = 0.2, m = 1.0, K = 500;
  const double at_units = 8 * alpha * L * L / (m * eta * sigma_at * sigma_at * n * n) * -std::expm1(-m * eta * K / 2);
  CHECK(closed_forms::cor1(alpha, 2 * L, n, nu::c21_sigma_from_at(sigma_at, eta), m, eta, K) ==
        Approx(at_units).epsilon(1e-13));
  // The first term of (B.1), alpha/(2 eta^2 sigma_AT^2) K (2 eta L/n)^2, is C21's
  // composition baseline alpha S_g^2 eta K / (4 n^2 sigma_C^2).
  const double b1_first = alpha / (2 * eta * eta * sigma_at * sigma_at) * K * std::pow(2 * eta * L / n, 2);
  CHECK(closed_forms::composition(alpha, 2 * L, n, nu::c21_sigma_from_at(sigma_at, eta), eta, K) ==
        Approx(b1_first).epsilon(1e-13));
  CHECK(b1_first == Approx(0.04).epsilon(1e-13));  // C21 Figure 1, alpha = 10, K = 500
}

// ----------------------------------------------------------------------------------------------
// Composition accountants

TEST_CASE("composition-gaussian is C21's composition baseline for full batch", "[composition]") {
  // Per step: Delta = eta S_g / n, s = sqrt(2 eta) sigma; K alpha Delta^2/(2 s^2) =
  // alpha S_g^2 eta K / (4 n^2 sigma^2) (C21 App. E).
  TrainingRun run = run_of(0.2, 0.02, 2.0, std::nullopt, 5000, 5000, 500, BatchSampling::FullBatch, {2, 10, 33.5});
  const auto r = composition_gaussian(run);
  REQUIRE(r.applies);
  CHECK(r.name == "composition-gaussian");
  REQUIRE(r.R.size() == 3);
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(r.R[i] == Approx(closed_forms::composition(run.orders[i], run.sensitivity, run.n, run.sigma, run.eta,
                                                     static_cast<double>(run.steps)))
                        .epsilon(1e-13));
  CHECK(r.R[1] == Approx(0.04).epsilon(1e-12));  // the same value
  // Remove adjacency with full batch (public normaliser n): the same formula with the run's S_g.
  run.adjacency = Adjacency::Remove;
  CHECK(composition_gaussian(run).R == r.R);
}

TEST_CASE("composition-gaussian for mini-batches uses eta S_g / b", "[composition]") {
  // Per-step batches may hold the record at every step (2000 uses); partition and shuffle batches
  // once per epoch (2000 steps / (n/b = 10) = 200 uses).
  for (auto sampling :
       {BatchSampling::Partition, BatchSampling::ShuffleOnce, BatchSampling::Shuffle, BatchSampling::PerStep}) {
    TrainingRun run = run_of(4.0, 0.05, 1.0, 0.1, 1000, 100, 2000, sampling, {2, 8});
    const auto r = composition_gaussian(run);
    REQUIRE(r.applies);
    const double uses = sampling == BatchSampling::PerStep ? 2000 : 200;
    for (std::size_t i = 0; i < 2; ++i) {
      const double Delta = run.eta * run.sensitivity / 100.0, s2 = 2 * run.eta * run.sigma * run.sigma;
      CHECK(r.R[i] == Approx(uses * run.orders[i] * Delta * Delta / (2 * s2)).epsilon(1e-13));
      CHECK(r.R[i] == Approx(uses * run.orders[i] * run.eta * 4.0 / (4 * 1e4 * run.sigma * run.sigma)).epsilon(1e-13));
    }
  }
}

TEST_CASE("composition-sgm composes S_alpha(b/n, z) over the steps", "[composition]") {
  TrainingRun run = run_of(4.0, 0.05, 1.0, 0.1, 1000, 100, 2000, BatchSampling::PerStep, {1.5, 2, 8, 64});
  const auto r = composition_sgm(run);
  REQUIRE(r.applies);
  CHECK(r.name == "composition-sgm");
  CHECK_THAT(r.reason, Catch::Contains("S_g/2"));
  const auto g = composition_gaussian(run);
  for (std::size_t i = 0; i < run.orders.size(); ++i) {
    // z = sqrt(2 eta) sigma / (eta S_g / b) = b sigma_AT / (2L) = 100 * 4 / 2 = 200.
    CHECK(r.R[i] == Approx(2000 * sampled_gaussian_rdp(0.1, 200.0, run.orders[i])).epsilon(1e-12));
    CHECK(r.R[i] < g.R[i]);  // amplification by sampling, q = 0.1 < 1
  }
  // b = n: no amplification, the Gaussian composition.
  TrainingRun whole = run_of(4.0, 0.05, 1.0, 0.1, 1000, 1000, 20, BatchSampling::PerStep, {2, 8});
  const auto rw = composition_sgm(whole), gw = composition_gaussian(whole);
  REQUIRE(rw.applies);
  for (std::size_t i = 0; i < 2; ++i) CHECK(rw.R[i] == Approx(gw.R[i]).epsilon(1e-13));
}

TEST_CASE("Composition accountants refuse with the failing assumption", "[composition][refusal]") {
  TrainingRun run = run_of(4.0, 0.05, 1.0, 0.1, 1000, 100, 2000, BatchSampling::PerStep, {2});
  for (auto s :
       {BatchSampling::FullBatch, BatchSampling::Partition, BatchSampling::ShuffleOnce, BatchSampling::Shuffle}) {
    TrainingRun r2 = run;
    r2.sampling = s;
    const auto r = composition_sgm(r2);
    CHECK_FALSE(r.applies);
    CHECK(r.R.empty());
    CHECK_THAT(r.reason, Catch::Contains("sampling = "));
  }
  run.adjacency = Adjacency::Remove;
  CHECK_THAT(composition_sgm(run).reason, Catch::Contains("adjacency = add-remove"));
  CHECK_FALSE(composition_gaussian(run).applies);
  CHECK_THAT(composition_gaussian(run).reason, Catch::Contains("2 eta S_g / b"));
  run.adjacency = Adjacency::Replace;
  run.sigma = 0.0;
  CHECK_THAT(composition_gaussian(run).reason, Catch::Contains("noise sigma = 0"));
  run.sigma = 0.1;
  run.orders = {2, 1.0};
  CHECK_THAT(composition_sgm(run).reason, Catch::Contains("order alpha = 1"));
  run.orders = {2};
  run.batch_size = 2000;
  CHECK_THAT(composition_gaussian(run).reason, Catch::Contains("batch size b = 2000"));
  run.batch_size = 100;
  run.n = 999.5;
  CHECK_THAT(composition_gaussian(run).reason, Catch::Contains("n = 999.5"));
  run.n = 1000;
  run.steps = -3;
  CHECK_THAT(composition_gaussian(run).reason, Catch::Contains("steps = -3"));
  run.steps = 10;
  run.eta = 0.0;
  CHECK_THAT(composition_sgm(run).reason, Catch::Contains("step size eta = 0"));
}

TEST_CASE("Zero steps: every analysis applies and bounds R by 0", "[composition][at]") {
  auto run = run_of(4, 0.05, 1, 0.1, 1000, 100, 0, BatchSampling::PerStep, {2, 7.5});
  run.lambda = 1.0;
  run.beta = 2.0;
  for (const auto& r :
       {composition_gaussian(run), composition_sgm(run), altschuler_talwar_b2(run), altschuler_talwar_b3(run)}) {
    REQUIRE(r.applies);
    CHECK(r.R == std::vector<double>{0.0, 0.0});
  }
  run.sampling = BatchSampling::FullBatch;
  for (const auto& r : {altschuler_talwar_b1(run), pabi_strongly_convex(run)}) {
    REQUIRE(r.applies);
    CHECK(r.R == std::vector<double>{0.0, 0.0});
  }
}

// ----------------------------------------------------------------------------------------------
// (B.1) full batch

TEST_CASE("(B.1) equals its brute-force minimum and reference values", "[at][b1]") {
  // Reference values computed independently of this code, (alpha, sigma, eta, L, D, n, T).
  struct Case {
    double alpha, sigma, eta, L, D, n;
    std::int64_t T;
    double expected;
  };
  const Case cases[] = {{2, 1, 0.1, 1, 1, 100, 50, 0.02},
                        {2, 1, 0.1, 1, 1, 100, 5000, 0.8016},
                        {8, 1, 0.05, 1, 0.1, 1000, 20000, 0.064064},
                        {10, 0.5, 0.05, 1, 2, 1000, 30000, 2.4}};
  for (const auto& c : cases) {
    const auto st = setting(c.sigma, c.eta, c.L, c.D, c.n, c.n, c.T);
    const double v = at::bound_b1(st, c.alpha);
    CHECK(v == Approx(c.expected).epsilon(1e-12));
    CHECK(v == Approx(b1_brute(c.alpha, c.sigma, c.eta, c.L, c.D, c.n, c.T)).epsilon(1e-13));
    // The same through a C21-unit run (sigma_C = sigma sqrt(eta/2), S_g = 2L).
    const auto r = altschuler_talwar_b1(run_of(c.sigma, c.eta, c.L, c.D, c.n, static_cast<std::int64_t>(c.n), c.T,
                                               BatchSampling::FullBatch, {c.alpha}));
    REQUIRE(r.applies);
    CHECK(r.R[0] == Approx(c.expected).epsilon(1e-12));
  }
  // [DERIVED] k (Dt/k + s)^2 >= 4 Dt s, equality at k = Dt/s: the plateau 4 alpha L Dt/(n eta sigma^2)
  // when Dt n/(2 eta L) is an integer.
  CHECK(at::bound_b1(setting(1, 0.1, 1, 1, 100, 100, 5000), 2) ==
        Approx(4 * 2 * 1 * (1 + 0.002) / (100 * 0.1 * 1)).epsilon(1e-12));
}

TEST_CASE("(B.1) grows linearly, then stops growing with the number of steps", "[at][b1][plateau]") {
  // s = 2 eta L/n = 1e-4, Dt = D + s: the plateau starts at k = Dt/s = 1001 (App. B.1).
  double prev = 0.0, plateau = -1.0;
  for (std::int64_t T : {1, 2, 10, 100, 500, 1000, 1001, 1002, 2000, 5000, 20000, 1000000, 100000000}) {
    const double v = at::bound_b1(setting(1, 0.05, 1, 0.1, 1000, 1000, T), 8);
    CHECK(v >= prev);
    if (T <= 100) CHECK(v == Approx(8.0 / (2 * 0.0025) * static_cast<double>(T) * 1e-8).epsilon(1e-12));
    if (T >= 4004) {  // past the crossover T s^2 = 4 Dt s: the plateau, exactly constant
      if (plateau < 0) plateau = v;
      CHECK(v == plateau);
    }
    prev = v;
  }
  CHECK(plateau == Approx(0.064064).epsilon(1e-12));
}

TEST_CASE("(B.1) is the composition bound until the plateau and never above it", "[at][b1]") {
  for (std::int64_t T : {1, 50, 500, 5000, 50000}) {
    const auto run = run_of(1, 0.05, 1, 0.1, 1000, 1000, T, BatchSampling::FullBatch, {1.5, 2, 8, 100});
    const auto b1 = altschuler_talwar_b1(run), g = composition_gaussian(run);
    REQUIRE(b1.applies);
    for (std::size_t i = 0; i < run.orders.size(); ++i) {
      CHECK(b1.R[i] <= g.R[i] * (1 + 1e-14));
      if (T <= 500) CHECK(b1.R[i] == Approx(g.R[i]).epsilon(1e-13));
      if (T == 50000) CHECK(b1.R[i] < 0.25 * g.R[i]);
      if (i > 0) CHECK(b1.R[i] > b1.R[i - 1]);  // increasing in alpha
    }
  }
}

TEST_CASE("(B.1) refusals name the failing assumption", "[at][b1][refusal]") {
  const auto base = run_of(1, 0.05, 1, 0.1, 1000, 1000, 100, BatchSampling::FullBatch, {2});
  auto r = base;
  r.diameter.reset();
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("no diameter D"));
  r = base;
  r.diameter = -1.0;
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("diameter D = -1"));
  r = base;
  r.sampling = BatchSampling::PerStep;
  r.batch_size = 100;
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("sampling = per-step"));
  r = base;
  r.beta = 0.0;
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("smoothness beta unknown"));
  r = base;
  r.beta = 50.0;  // 2/beta = 0.04 < eta = 0.05
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("eta = 0.05 > 2/beta = 0.04"));
  r = base;
  r.lambda = -0.5;
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("lambda = -0.5 < 0"));
  r = base;
  r.sensitivity = 0.0;
  CHECK_THAT(altschuler_talwar_b1(r).reason, Catch::Contains("sensitivity S_g = 0"));
  for (const auto& bad : {altschuler_talwar_b1(r)}) {
    CHECK_FALSE(bad.applies);
    CHECK(bad.R.empty());
    CHECK(bad.name == "altschuler-talwar-b1");
  }
  // eta = 2/beta exactly is allowed (Lemma 2.1: eta <= 2/M); remove adjacency is (Remark B.2).
  r = base;
  r.beta = 40.0;
  r.adjacency = Adjacency::Remove;
  CHECK(altschuler_talwar_b1(r).applies);
}

// ----------------------------------------------------------------------------------------------
// (B.2) and (B.3)

TEST_CASE("(B.2) matches reference values and a brute-force search", "[at][b2]") {
  struct Case {
    double alpha, sigma, eta, L, D, n, b;
    std::int64_t T;
    double expected;
  };
  const Case cases[] = {{8, 4, 0.05, 1, 0.1, 1000, 100, 20000, 0.0040021}, {4, 2, 0.5, 1, 1, 500, 50, 3000, 0.0160204}};
  for (const auto& c : cases) {
    const auto st = setting(c.sigma, c.eta, c.L, c.D, c.n, c.b, c.T);
    const auto v = at::bound_b2(st, c.alpha);
    const double brute = split_brute(c.alpha, c.sigma, c.eta, c.L, c.D, c.n, c.b, c.T, 1.0);
    INFO("brute = " << brute << ", value = " << v.value);
    CHECK(v.value == Approx(c.expected).epsilon(2e-5));
    // The golden refinement may only improve on the 400-point grid, and not by much.
    CHECK(v.value <= brute * (1 + 1e-12));
    CHECK(v.value >= brute * (1 - 1e-4));
    CHECK_FALSE(v.linear);
    // The reported split and window reproduce the value: Q + k Q + A/k (App. B.2).
    const double s2 = std::sqrt(c.sigma * c.sigma - v.sigma1 * v.sigma1);
    const double Q = sampled_gaussian_rdp(c.b / c.n, c.b * s2 / (2 * c.L), c.alpha);
    const double A = c.alpha * c.D * c.D / (2 * c.eta * c.eta * v.sigma1 * v.sigma1);
    const double k = static_cast<double>(v.window);
    CHECK(v.value == Approx(Q + k * Q + A / k).epsilon(1e-12));
    CHECK(v.window >= 1);
    CHECK(v.window <= c.T - 1);
    // Through the C21-unit run.
    const auto r = altschuler_talwar_b2(
        run_of(c.sigma, c.eta, c.L, c.D, c.n, static_cast<std::int64_t>(c.b), c.T, BatchSampling::PerStep, {c.alpha}));
    REQUIRE(r.applies);
    CHECK(r.R[0] == Approx(v.value).epsilon(1e-12));
  }
  // Check: (B.2) with b = n nearly reproduces (B.1): 0.064032 vs 0.064064.
  const auto full = at::bound_b2(setting(1, 0.05, 1, 0.1, 1000, 1000, 20000), 8);
  CHECK(full.value == Approx(0.064032).epsilon(2e-5));
  CHECK(full.value < at::bound_b1(setting(1, 0.05, 1, 0.1, 1000, 1000, 20000), 8));
}

TEST_CASE("(B.2) is the composition-sgm value at first, then plateaus", "[at][b2][plateau]") {
  const std::vector<double> orders = {1.5, 2, 3, 4.5, 8, 16};
  double prev_plateau = -1.0;
  for (std::int64_t T : {1, 2, 20, 20000, 200000, 2000000}) {
    const auto run = run_of(4, 0.05, 1, 0.1, 1000, 100, T, BatchSampling::PerStep, orders);
    const auto b2 = altschuler_talwar_b2(run), sgm = composition_sgm(run);
    REQUIRE(b2.applies);
    REQUIRE(sgm.applies);
    for (std::size_t i = 0; i < orders.size(); ++i) {
      CHECK(b2.R[i] <= sgm.R[i] * (1 + 1e-13));  // the T S_alpha branch of (B.2)
      if (T <= 20) CHECK(b2.R[i] == Approx(sgm.R[i]).epsilon(1e-13));
      if (i > 0) CHECK(b2.R[i] >= b2.R[i - 1] * (1 - 1e-9));  // non-decreasing in alpha
    }
    if (T >= 20000) {
      // Past the optimal window (~ a few thousand steps) the value does not depend on T.
      const auto v = at::bound_b2(at::setting_of(run), 8);
      CHECK(v.window < T - 1);
      if (prev_plateau >= 0) CHECK(v.value == Approx(prev_plateau).epsilon(1e-12));
      prev_plateau = v.value;
      CHECK(b2.R[4] < 0.25 * sgm.R[4]);
    }
  }
}

TEST_CASE("(B.3) matches reference values and a brute-force search", "[at][b3]") {
  struct Case {
    double alpha, sigma, eta, L, D, n, b;
    std::int64_t T;
    double c, expected;
  };
  const Case cases[] = {{8, 4, 0.05, 1, 0.1, 1000, 100, 20000, 0.9, 7.3465e-5},
                        {4, 2, 0.5, 1, 3, 500, 50, 3000, 0.5, 1.21728e-4}};
  for (const auto& c : cases) {
    const auto st = setting(c.sigma, c.eta, c.L, c.D, c.n, c.b, c.T);
    const auto v = at::bound_b3(st, c.alpha, c.c);
    const double brute = split_brute(c.alpha, c.sigma, c.eta, c.L, c.D, c.n, c.b, c.T, c.c);
    INFO("brute = " << brute << ", value = " << v.value);
    CHECK(v.value == Approx(c.expected).epsilon(2e-5));
    CHECK(v.value <= brute * (1 + 1e-12));
    CHECK(v.value >= brute * (1 - 1e-4));
    CHECK(v.value <= at::bound_b2(st, c.alpha).value * (1 + 1e-9));  // (1-c^2)/(c^{-2k}-1) <= 1/k
    // Through the run: c = max(|1 - eta lambda|, |1 - eta beta|) with lambda = beta = (1 - c)/eta.
    auto run =
        run_of(c.sigma, c.eta, c.L, c.D, c.n, static_cast<std::int64_t>(c.b), c.T, BatchSampling::PerStep, {c.alpha});
    run.lambda = run.beta = (1 - c.c) / c.eta;
    const auto r = altschuler_talwar_b3(run);
    REQUIRE(r.applies);
    CHECK(r.R[0] == Approx(v.value).epsilon(1e-9));
  }
}

TEST_CASE("(B.3) window: first-order condition with (1 - c^2), not (1 - c)^2", "[at][b3]") {
  // [FIX] (1 - c^2) in App. B.3's window (docs/analyses.md 3.3): (Q, A, c) = (1e-3, 50, 0.9) has
  // its minimum at T~ = 36.08.
  const double Q = 1e-3, A = 50, c = 0.9;
  const double k_star = at::sc_window(Q, A, c);
  CHECK(k_star == Approx(36.08).margin(0.005));
  auto objective = [&](double k) { return k * Q + A * (1 - c * c) / (std::pow(c, -2 * k) - 1); };
  double best = std::numeric_limits<double>::infinity();
  double best_k = 0;
  for (int k = 1; k <= 5000; ++k)
    if (objective(k) < best) {
      best = objective(k);
      best_k = k;
    }
  CHECK((best_k == std::floor(k_star) || best_k == std::ceil(k_star)));
  // The printed formula with (1 - c)^2 lands at 22.19, a clearly worse window.
  const double beta_printed = (1 - c) * (1 - c) * 2 * A * std::log(c) / Q;
  const double k_printed =
      -std::log((2 - beta_printed + std::sqrt((2 - beta_printed) * (2 - beta_printed) - 4)) / 2) / (2 * std::log(c));
  CHECK(k_printed == Approx(22.19).margin(0.005));
  CHECK(std::min(objective(std::floor(k_printed)), objective(std::ceil(k_printed))) > 1.05 * best);
  // Real minimiser: derivative zero there.
  const double h = 1e-4;
  CHECK(std::fabs(objective(k_star + h) - objective(k_star - h)) / (2 * h) < 1e-7);
}

TEST_CASE("Contraction factor: (kappa-1)/(kappa+1) at eta = 2/(M+m) (A&T Lemma 5.3)", "[at]") {
  for (double m : {0.1, 1.0, 3.0})
    for (double kappa : {1.0, 2.0, 10.0, 1000.0}) {
      const double M = kappa * m;
      CHECK(at::contraction_factor(2 / (M + m), m, M) == Approx((kappa - 1) / (kappa + 1)).margin(1e-15));
      CHECK(at::contraction_factor(1 / M, m, M) == Approx(1 - m / M).epsilon(1e-15));
    }
  CHECK(at::contraction_factor(0.19, 1.0, 10.0) == Approx(0.9).epsilon(1e-14));  // eta M - 1
}

TEST_CASE("(B.2)/(B.3) at C21 Figure 1 (full batch, q = 1)", "[at][b3]") {
  // S_g = 4 (L = 2), n = 5000, eta = 0.02, sigma_C = 0.02 (sigma_AT = 0.2), alpha = 10, K = 500,
  // D = 1, c = 1 - eta lambda: (B.3) gives 0.04, 0.0217, 0.0114 for lambda = 1, 2, 4; (B.1) 0.04.
  auto run = run_of(0.2, 0.02, 2.0, 1.0, 5000, 5000, 500, BatchSampling::FullBatch, {10});
  CHECK(altschuler_talwar_b1(run).R[0] == Approx(0.04).epsilon(1e-12));
  const std::pair<double, double> expected[] = {{1.0, 0.04}, {2.0, 0.0217}, {4.0, 0.0114}};
  for (const auto& [lambda, value] : expected) {
    run.lambda = run.beta = lambda;
    const auto r = altschuler_talwar_b3(run);
    REQUIRE(r.applies);
    CHECK(r.R[0] == Approx(value).margin(5e-5));
  }
}

TEST_CASE("(B.2)/(B.3) refusals name the failing assumption", "[at][b2][b3][refusal]") {
  auto base = run_of(4, 0.05, 1, 0.1, 1000, 100, 2000, BatchSampling::PerStep, {2});
  base.lambda = 1.0;
  base.beta = 2.0;
  REQUIRE(altschuler_talwar_b2(base).applies);
  REQUIRE(altschuler_talwar_b3(base).applies);
  for (auto s : {BatchSampling::Partition, BatchSampling::ShuffleOnce, BatchSampling::Shuffle}) {
    auto r = base;
    r.sampling = s;
    CHECK_THAT(altschuler_talwar_b2(r).reason, Catch::Contains("drawn afresh at every step"));
    CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("sampling = "));
  }
  auto r = base;
  r.adjacency = Adjacency::Remove;
  CHECK_THAT(altschuler_talwar_b2(r).reason, Catch::Contains("adjacency = add-remove"));
  r.sampling = BatchSampling::FullBatch;  // no subsampling: Remark B.2 applies
  CHECK(altschuler_talwar_b2(r).applies);
  r = base;
  r.diameter.reset();
  CHECK_THAT(altschuler_talwar_b2(r).reason, Catch::Contains("no diameter D: (B.2)"));
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("no diameter D: (B.3)"));
  r = base;
  r.beta = 100.0;
  CHECK_THAT(altschuler_talwar_b2(r).reason, Catch::Contains("eta = 0.05 > 2/beta = 0.02"));
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("contraction factor"));
  r = base;
  r.lambda = 0.0;
  CHECK(altschuler_talwar_b2(r).applies);
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("lambda = 0: (B.3) needs an m-strongly convex loss"));
  r = base;
  r.lambda = 3.0;
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("lambda = 3 > beta = 2"));
  r = base;
  r.beta = 0.0;
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("smoothness beta unknown"));
  CHECK_FALSE(altschuler_talwar_b3(r).applies);
  CHECK(altschuler_talwar_b3(r).R.empty());
  r = base;
  r.diameter = std::numeric_limits<double>::infinity();
  CHECK_THAT(altschuler_talwar_b3(r).reason, Catch::Contains("diameter D = inf"));
}

TEST_CASE("(B.3) is non-decreasing in alpha and stops growing with the steps", "[at][b3][plateau]") {
  const std::vector<double> orders = {1.25, 2, 3.5, 8, 20};
  std::vector<double> previous;
  for (std::int64_t T : {1, 50, 400, 4000, 40000, 4000000}) {
    auto run = run_of(2, 0.5, 1, 3, 500, 50, T, BatchSampling::PerStep, orders);
    run.lambda = run.beta = 1.0;  // c = 0.5
    const auto r = altschuler_talwar_b3(run);
    REQUIRE(r.applies);
    for (std::size_t i = 1; i < orders.size(); ++i) CHECK(r.R[i] >= r.R[i - 1] * (1 - 1e-9));
    if (T >= 4000) {  // the optimal window is ~ a few steps at c = 0.5: constant in T
      if (!previous.empty())
        for (std::size_t i = 0; i < orders.size(); ++i) CHECK(r.R[i] == Approx(previous[i]).epsilon(1e-12));
      previous = r.R;
    }
  }
}

// ----------------------------------------------------------------------------------------------
// Strongly convex full-batch PABI (derived: docs/analyses.md, "pabi-strongly-convex")

TEST_CASE("pabi-strongly-convex equals Prop. 5.4 with the optimal shifts, solved here", "[at][pabi]") {
  // Prop. 5.4 with tau = 0, z_0 = 0, s_t = s: minimise sum a_t^2 subject to
  // z_t = c z_{t-1} + s - a_t >= 0 and z_T = 0; a_t proportional to c^{T-t} (Cauchy-Schwarz on the
  // constraint sum_t c^{T-t} a_t = s sum_t c^{T-t}). Built and checked step by step here.
  const double alpha = 3.5, sigma = 0.7, eta = 0.1, L = 1.5, n = 200;
  // The floor, independent of this code and of Prop. 5.4: the quadratic run whose gradient map
  // contracts by c (curvature (1 - c)/eta), the record moving each update by 2 eta L / n over the noise
  // eta sigma: both last iterates Gaussian, R = alpha m^2 / (2 V) (mpmath, 40 digits, rounded down;
  // tests/soundness/floors/values.py, "pabi_sc_prop54"; rows c, columns T). PABI's optimum is
  // attained there (Cauchy-Schwarz with equality): equal to 1e-9.
  const double exact[4][5] = {
      {0.00080357142857142, 0.00080357142857142, 0.00080357142857142, 0.00080357142857142, 0.00080357142857142},
      {0.00080357142857142, 0.0012459043250327, 0.0014916943289502, 0.0014923469387755, 0.0014923469387755},
      {0.00080357142857142, 0.0016027032359905, 0.0053881520023384, 0.015213082580223, 0.015267857142857},
      {0.00080357142857142, 0.0016071424549551, 0.0056249774775902, 0.048199816187356, 1.4541929036718}};
  int row = 0;
  for (double c : {0.0, 0.3, 0.9, 0.999}) {
    int col = 0;
    for (std::int64_t T : {1, 2, 7, 60, 3000}) {
      const double s = 2 * eta * L / n;
      std::vector<double> w(static_cast<std::size_t>(T));
      double sum_w = 0, sum_w2 = 0;
      for (std::int64_t t = 1; t <= T; ++t) {
        w[static_cast<std::size_t>(t - 1)] = std::pow(c, static_cast<double>(T - t));
        sum_w += w[static_cast<std::size_t>(t - 1)];
        sum_w2 += w[static_cast<std::size_t>(t - 1)] * w[static_cast<std::size_t>(t - 1)];
      }
      const double kappa = s * sum_w / sum_w2;
      double z = 0, sum_a2 = 0;
      for (std::int64_t t = 1; t <= T; ++t) {
        const double a = kappa * w[static_cast<std::size_t>(t - 1)];
        z = c * z + s - a;
        CHECK(z >= -1e-12 * s * sum_w);  // rounding relative to the scale of z
        sum_a2 += a * a;
      }
      CHECK(std::fabs(z) <= 1e-9 * s);
      const double expected = alpha / (2 * eta * eta * sigma * sigma) * sum_a2;
      INFO("c = " << c << ", T = " << T << ", exact " << exact[row][col]);
      const double value = at::pabi_sc_full_batch(setting(sigma, eta, L, 0, n, n, T), alpha, c);
      CHECK(value >= exact[row][col] * (1 - 1e-12));
      CHECK(value == Approx(exact[row][col]).epsilon(1e-9));
      // Consistency check (the same optimisation solved here, not a floor).
      CHECK(value == Approx(expected).epsilon(1e-10));
      ++col;
    }
    ++row;
  }
}

TEST_CASE("pabi-strongly-convex: one step is a Gaussian, then it plateaus below composition", "[at][pabi][plateau]") {
  // C21 Figure 1, lambda = beta = 1: c = 1 - eta = 0.98; limit (1+c)/(1-c) = 99 one-step Gaussians.
  auto run = run_of(0.2, 0.02, 2.0, std::nullopt, 5000, 5000, 1, BatchSampling::FullBatch, {2, 10, 40.5});
  run.lambda = run.beta = 1.0;
  // The floor, independent of this code: the quadratic run of curvature 1 (c = 0.98) from a point
  // start, the record moving each update by eta S_g / n = 1.6e-5 over the noise eta sigma_AT = 0.004;
  // its last iterates' exact R at orders 2, 10, 40.5 after K steps (mpmath, rounded down;
  // tests/soundness/floors/values.py, "pabi_sc_plateau"; the K = 10^5 row serves 10^8, c^K being
  // below 1e-800 at both). PABI's optimum is attained there: equal to 1e-9. (1 - 1e-12: the floors are
  // exact for the decimal parameters, the run's are their doubles.)
  const double exact[7][3] = {{1.6e-05, 8e-05, 0.00032399999999999},
                              {0.00015946343635313, 0.00079731718176567, 0.0032291345861509},
                              {0.0012130557134671, 0.0060652785673355, 0.024564378197708},
                              {0.0015838700413464, 0.0079193502067324, 0.032073368337266},
                              {0.0015839999999999, 0.0079199999999999, 0.032075999999999},
                              {0.0015839999999999, 0.0079199999999999, 0.032075999999999},
                              {0.0015839999999999, 0.0079199999999999, 0.032075999999999}};
  const auto one = pabi_strongly_convex(run);
  REQUIRE(one.applies);
  const auto g1 = composition_gaussian(run);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(one.R[i] >= exact[0][i] * (1 - 1e-12));
    CHECK(one.R[i] == Approx(exact[0][i]).epsilon(1e-12));
    CHECK(one.R[i] == Approx(g1.R[i]).epsilon(1e-13));  // consistency check: one step is the Gaussian mechanism
  }
  double prev = 0.0;
  int row = 0;
  for (std::int64_t K : {1, 10, 100, 500, 5000, 100000, 100000000}) {
    run.steps = K;
    const auto r = pabi_strongly_convex(run);
    const auto g = composition_gaussian(run);
    for (std::size_t i = 0; i < 3; ++i) {
      INFO("K = " << K << ", order " << run.orders[i] << ": exact " << exact[row][i]);
      CHECK(r.R[i] >= exact[row][i] * (1 - 1e-12));
      CHECK(r.R[i] == Approx(exact[row][i]).epsilon(1e-9));
    }
    ++row;
    CHECK(r.R[1] >= prev);
    CHECK(r.R[1] <= g.R[1] * (1 + 1e-13));
    CHECK(r.R[1] <= 0.00792 * (1 + 1e-12));  // the T -> infinity limit 0.00792
    CHECK(r.R[0] < r.R[1]);
    prev = r.R[1];
  }
  CHECK(prev == Approx(0.00792).epsilon(1e-12));
  // About half of C21 Cor 1 (0.01589 at K = 500).
  run.steps = 500;
  const double cor1 = closed_forms::cor1(10, 4.0, 5000, run.sigma, 1.0, 0.02, 500);
  CHECK(cor1 == Approx(0.01589).margin(1e-5));
  CHECK(pabi_strongly_convex(run).R[1] / cor1 == Approx(0.4984).margin(5e-4));
}

TEST_CASE("pabi-strongly-convex refusals", "[at][pabi][refusal]") {
  auto base = run_of(0.2, 0.02, 2.0, std::nullopt, 5000, 5000, 500, BatchSampling::FullBatch, {10});
  base.lambda = base.beta = 1.0;
  REQUIRE(pabi_strongly_convex(base).applies);  // no diameter needed
  auto r = base;
  r.sampling = BatchSampling::PerStep;
  r.batch_size = 50;
  CHECK_THAT(pabi_strongly_convex(r).reason, Catch::Contains("sampling = per-step"));
  r = base;
  r.lambda = 0.0;
  CHECK_THAT(pabi_strongly_convex(r).reason, Catch::Contains("lambda = 0"));
  r = base;
  r.beta = 100.0;  // eta = 0.02 = 2/beta: c = 1
  CHECK_THAT(pabi_strongly_convex(r).reason, Catch::Contains("is not < 1"));
  CHECK(pabi_strongly_convex(r).name == "pabi-strongly-convex");
  CHECK(pabi_strongly_convex(r).R.empty());
}

TEST_CASE("Sampling amplification needs norm-bounded per-record gradients, declared", "[at][sgm]") {
  // With S_g bounding only gradient differences, three records can exceed the sampled-Gaussian
  // value (analyses/composition.cpp), so without the declaration these analyses refuse.
  TrainingRun run = run_of(4.0, 0.05, 1.0, 0.1, 1000, 100, 2000, BatchSampling::PerStep, {2, 8});
  run.gradients_norm_bounded = false;
  for (const AnalysisResult& r : {composition_sgm(run), altschuler_talwar_b2(run)}) {
    CHECK_FALSE(r.applies);
    CHECK_THAT(r.reason, Catch::Contains("lipschitz_loss = true"));
  }
  run.gradients_norm_bounded = true;
  CHECK(composition_sgm(run).applies);
  CHECK(altschuler_talwar_b2(run).applies);
  // Full batch needs no sampling argument: (B.2) at b = n stays available.
  TrainingRun whole = run_of(4.0, 0.05, 1.0, 0.1, 1000, 1000, 20, BatchSampling::PerStep, {2});
  whole.gradients_norm_bounded = false;
  CHECK(altschuler_talwar_b2(whole).applies);
}

// ----------------------------------------------------------------------------------------------
// Thm 5.6 (cyclic batches)

namespace {

// The proof of Thm 5.6 step by step (A&T Sec. 5.2): the record i* in batch j (1-based) of N, the
// window t = tau+1..T, the printed a_t, the shifts s_t = (2 eta L/b) 1[i* in B_t] (cyclic batches
// from step 0); z_t = z0 + sum (s - a) must stay >= 0 and end at 0 (Prop. 3.2), then (5.6).
double thm56_by_steps(double alpha, double sigma, double eta, double L, double n, double b, std::int64_t T,
                      std::int64_t j, std::int64_t W, double z0) {
  const auto N = static_cast<std::int64_t>(n / b);
  const std::int64_t tau = T - W;
  const double x = z0 / static_cast<double>(W);
  const double last_share = 2 * eta * L / (b * static_cast<double>(N - j + 1));
  double z = z0, sum = 0;
  for (std::int64_t t = tau + 1; t <= T; ++t) {
    const std::int64_t k = t - tau;  // 1..W
    const double a = k <= j - 1 ? x : k <= j - 1 + (W - N) ? x + 2 * eta * L / n : x + last_share;
    const bool uses = (t - 1) % N == j - 1;  // step t updates with batch B_{t-1}
    z += (uses ? 2 * eta * L / b : 0.0) - a;
    CHECK(z >= -1e-12);
    sum += a * a;
  }
  CHECK(std::abs(z) <= 1e-12);
  return alpha / (2 * eta * eta * sigma * sigma) * sum;
}

}  // namespace

TEST_CASE("Thm 5.6: the proof's (5.6) with its a_t, step by step, at stated numbers", "[at][thm56]") {
  // sigma_AT = 1, eta = 0.05, L = 1, D = 0.1, n = 1000, b = 100 (N = 10), alpha = 2.
  // T-bar = ceil(D n/(L eta)) = 2000; D~ = D + 2 eta L/b = 0.101.
  const auto st = setting(1, 0.05, 1, 0.1, 1000, 100, 20000);
  for (std::int64_t j : {1, 4, 10}) {
    INFO("j = " << j);
    CHECK(at::thm56_window(st, 2.0, j, 2000, 0.101) ==
          Approx(thm56_by_steps(2.0, 1, 0.05, 1, 1000, 100, 20000, j, 2000, 0.101)).epsilon(1e-10));
    CHECK(at::thm56_window(st, 2.0, j, 20000, 0.0) ==
          Approx(thm56_by_steps(2.0, 1, 0.05, 1, 1000, 100, 20000, j, 20000, 0.0)).epsilon(1e-10));
    CHECK(at::thm56_window(st, 2.0, j, 2000, 0.101) <= at::thm56_window(st, 2.0, 10, 2000, 0.101));
  }
  // By hand (python3): x = 0.101/2000, s = 1e-4, u = 1e-3:
  // (9 x^2 + 1990 (x + s)^2 + (x + u)^2) / (2 * 0.05^2) * 2 = 0.0184802 (window T-bar),
  // ((20000 - 10) s^2 + u^2) / 0.005 * 2 = 0.08036 (the whole run).
  const at::CyclicBound b = at::bound_thm56(st, 2.0);
  CHECK_FALSE(b.whole_run);
  CHECK(b.window == 2000);
  CHECK(b.value == Approx(0.0184802).epsilon(1e-12));
  CHECK(at::thm56_window(st, 2.0, 10, 20000, 0.0) == Approx(0.08036).epsilon(1e-12));
  // Short runs (T <= T-bar): the whole run, no diameter term; the (5.4) shape 1/b^2 + T/n^2.
  const auto short_run = setting(1, 0.05, 1, 0.1, 1000, 100, 500);
  const at::CyclicBound s = at::bound_thm56(short_run, 2.0);
  CHECK(s.whole_run);
  CHECK(s.value == Approx(2.0 / (2 * 0.05 * 0.05) * (490 * 1e-8 + 1e-6)).epsilon(1e-12));
  CHECK(at::bound_thm56(setting(1, 0.05, 1, 0.1, 1000, 100, 0), 2.0).value == 0.0);
}

TEST_CASE("Thm 5.6: the entry in C21 units, and its refusals", "[at][thm56][refusal]") {
  auto run = run_of(1, 0.05, 1, 0.1, 1000, 100, 20000, BatchSampling::Partition, {2.0});
  const AnalysisResult r = altschuler_talwar_thm56(run);
  REQUIRE(r.applies);
  CHECK(r.R[0] == Approx(0.0184802).epsilon(1e-10));
  CHECK_THAT(r.reason, Catch::Contains("window T-bar = 2000"));
  run.sampling = BatchSampling::ShuffleOnce;
  CHECK(altschuler_talwar_thm56(run).applies);
  run.sampling = BatchSampling::PerStep;
  CHECK_THAT(altschuler_talwar_thm56(run).reason,
             Catch::Contains("sampling = per-step: Thm 5.6 is for cyclic batches"));
  run = run_of(1, 0.05, 1, 0.1, 1000, 100, 20005, BatchSampling::Partition, {2.0});
  CHECK_THAT(altschuler_talwar_thm56(run).reason, Catch::Contains("needs whole epochs"));
  run = run_of(1, 0.05, 1, std::nullopt, 1000, 100, 20000, BatchSampling::Partition, {2.0});
  CHECK_THAT(altschuler_talwar_thm56(run).reason, Catch::Contains("needs projection onto a convex set of finite "
                                                                  "diameter D > 0 (A&T Thm 5.6"));
  run = run_of(1, 0.05, 1, 0.1, 1000, 300, 20000, BatchSampling::Partition, {2.0});
  CHECK_THAT(altschuler_talwar_thm56(run).reason, Catch::Contains("needs b to divide n"));
  run = run_of(1, 0.05, 1, 0.1, 1000, 100, 20000, BatchSampling::Partition, {2.0});
  run.beta = 50.0;
  CHECK_THAT(altschuler_talwar_thm56(run).reason, Catch::Contains("eta = 0.05 > 2/beta = 0.04"));
  run.beta = 20.0;
  run.adjacency = Adjacency::AddRemove;
  CHECK_THAT(altschuler_talwar_thm56(run).reason, Catch::Contains("adjacency = add-remove"));
}
