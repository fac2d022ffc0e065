// Ye & Shokri 2022 (appendix = seeds/002; digest docs/digests/seed-002-digest.md, "D" + section
// below) against values computed here from the paper's formulas and the digest's s.5.4 targets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "models/noise_units.hpp"
#include "analyses/ye_shokri_2022.hpp"

using namespace rdpdyn;
namespace ys = rdpdyn::ye_shokri;

namespace {

// Digest s.5.4 V2-V4 setting: alpha = 8, eta = 0.05, sigma = 1, S_g = 1, b = 10, n = 1000.
constexpr double kEta = 0.05, kSigma = 1.0, kSg = 1.0, kB = 10.0, kN = 1000.0, kAlpha = 8.0;
constexpr std::int64_t kBatches = 100;
const double kW = kEta * kSg * kSg / (4 * kSigma * kSigma * kB * kB);  // Lemma 3.2 (70): 1.25e-4

// sum_{s<m} q^s by explicit summation (Lemma D.3, eq. (76)).
double sum_q(std::int64_t m, double q) {
  double s = 0, p = 1;
  for (std::int64_t i = 0; i < m; ++i) s += p, p *= q;
  return s;
}

// eps_0^j / (alpha w) by the product (98): prod_{j'=1}^{j-1} q S_{j'} / S_{j'+1}.
double eps0_product(std::int64_t j, double q) {
  double p = 1;
  for (std::int64_t jp = 1; jp < j; ++jp) p *= q * sum_q(jp, q) / sum_q(jp + 1, q);
  return p;
}

// Lemma 3.2 (56) over the actual steps with the LSI recursion (72)/(77) run alongside.
double recursion_by_lsi(std::int64_t N, std::int64_t steps, std::int64_t j0, double eta, double sigma,
                        double lambda) {
  const double L = 1 - eta * lambda;
  double inv_c = 0, u = 0;  // 1/c_0 = 0: point initialisation
  for (std::int64_t m = 0; m < steps; ++m) {
    if (m % N == j0)
      u += 1;
    else
      u *= 1 / (1 + 2 * eta * sigma * sigma / (inv_c * L * L));  // (1 + c 2 eta sigma^2 / L^2)^{-1}
    inv_c = L * L * inv_c + 2 * eta * sigma * sigma;              // (77)
  }
  return u;
}

TrainingRun base_run() {
  TrainingRun r;
  r.n = kN;
  r.batch_size = 10;
  r.sampling = BatchSampling::Partition;
  r.steps = 1000;
  r.eta = kEta;
  r.sigma = kSigma;
  r.sensitivity = kSg;
  r.lambda = 1.0;
  r.beta = 10.0;  // eta < 2/(1 + 10) = 0.18
  r.orders = {2.0, 8.0, 32.0};
  return r;
}

std::vector<double> fine_orders() {
  std::vector<double> a;
  for (double x = 1.01; x < 300; x *= 1.15) a.push_back(x);
  return a;
}

void require_non_decreasing(const std::vector<double>& R) {
  for (std::size_t i = 1; i < R.size(); ++i) REQUIRE(R[i] >= R[i - 1] * (1 - 1e-12));
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const double kGridRatio = std::pow(10.0, 1.0 / ys::kGridPointsPerDecade);
// Chord error of (alpha-1) k alpha between nodes of ratio r in alpha-1: k (x-x0)(x1-x) relative to
// k x (x+1) is below (r-1)^2/4 (digest s.5.3 grid; header of ye_shokri.hpp).
const double kChordTol = (kGridRatio - 1) * (kGridRatio - 1) / 4;

}  // namespace

// --------------------------------------------------------------------------------------------
// Units
// --------------------------------------------------------------------------------------------

TEST_CASE("Lemma 3.2's step cost is the Gaussian mechanism of one step", "[ye-shokri][units]") {
  // Lemma 3.2, eq. (70) [FIX alpha, L359]: alpha Delta^2 / (2 s^2), Delta = eta S_g / b, s^2 = 2 eta sigma^2.
  for (double eta : {0.01, 0.05, 0.75})
    for (double sigma : {0.02, 1.0})
      for (double b : {1.0, 10.0, 2048.0}) {
        const double delta = eta * 3.0 / b, s2 = 2 * eta * sigma * sigma;
        CHECK(ys::gaussian_step_cost(eta, sigma, 3.0, b) == Approx(delta * delta / (2 * s2)).epsilon(1e-14));
      }
  CHECK(ys::gaussian_step_cost(kEta, kSigma, kSg, kB) == Approx(1.25e-4).epsilon(1e-14));  // D s.5.4 V2, j = 1
  // Sec. F, L840 [FIX sqrt(eta/2)]: the step cost becomes 2 / sigma_mul^2 (D s.2.15).
  for (double smul : {1.0, 3.08}) {
    const double sigma = noise_units::c21_sigma_from_dpsgd_multiplier(smul, 0.75, 6.32, 2048);
    CHECK(ys::gaussian_step_cost(0.75, sigma, 6.32, 2048) == Approx(2 / (smul * smul)).epsilon(1e-13));
    // The Algorithm 2 noise eta sigma_mul (S_g/2)/b equals Algorithm 1's sqrt(2 eta sigma^2).
    CHECK(std::sqrt(2 * 0.75 * sigma * sigma) == Approx(0.75 * smul * 3.16 / 2048).epsilon(1e-14));
  }
}

// --------------------------------------------------------------------------------------------
// LSI sequences
// --------------------------------------------------------------------------------------------

TEST_CASE("Lemmas D.2/D.3: closed forms follow the LSI recursions (72)/(77)", "[ye-shokri][lsi]") {
  CHECK(std::isinf(ys::lsi_constant_convex(0, 0.1, 1)));
  CHECK(std::isinf(ys::lsi_constant_strongly_convex(0, 0.1, 1, 1)));
  for (double lambda : {0.0, 0.01, 1.0, 5.0}) {
    const double eta = 0.05, sigma = 0.7, L = 1 - eta * lambda;
    double inv_c = 0;
    for (std::int64_t m = 1; m <= 400; ++m) {
      inv_c = L * L * inv_c + 2 * eta * sigma * sigma;  // (77); lambda = 0: (72)
      REQUIRE(ys::lsi_constant_strongly_convex(m, eta, sigma, lambda) == Approx(1 / inv_c).epsilon(1e-12));
      if (lambda == 0) REQUIRE(ys::lsi_constant_convex(m, eta, sigma) == Approx(1 / inv_c).epsilon(1e-12));
    }
  }
}

TEST_CASE("rho_m is Lemma 3.2's factor at the Lemma D.2/D.3 constant", "[ye-shokri][lsi]") {
  // D s.2.6 [DERIVED]: rho_m = (1 + 2 c_m eta sigma^2 / L^2)^{-1} = q S_m / S_{m+1}; convex m/(m+1).
  const double eta = 0.05, sigma = 1.3;
  for (std::int64_t m = 0; m < 300; m += 7) {
    const double c = ys::lsi_constant_convex(m, eta, sigma);
    CHECK(ys::contraction_factor(m, 1.0) == Approx(double(m) / (m + 1)).margin(1e-15));
    CHECK(ys::lemma32_contraction(c, eta, sigma, 1.0) == Approx(ys::contraction_factor(m, 1.0)).margin(1e-15));
  }
  for (double lambda : {0.1, 1.0, 10.0}) {
    const double L = 1 - eta * lambda, q = L * L;
    double prev = -1;
    for (std::int64_t m = 0; m < 2000; ++m) {
      const double rho = ys::contraction_factor(m, q);
      const double c = ys::lsi_constant_strongly_convex(m, eta, sigma, lambda);
      REQUIRE(rho == Approx(ys::lemma32_contraction(c, eta, sigma, L)).margin(1e-14));
      REQUIRE(rho == Approx(q * sum_q(m, q) / sum_q(m + 1, q)).margin(1e-14));
      REQUIRE(rho <= q * (1 + 1e-15));  // contraction at least the Lipschitz bound's (strictly, until rounding)
      REQUIRE(rho >= prev - 1e-15);  // and weakening as the LSI constant decreases
      if (m < 20) REQUIRE((rho < q && rho > prev));
      prev = rho;
    }
    CHECK(ys::contraction_factor(0, q) == 0.0);  // a point mass forgets everything
    // D s.2.6 [DERIVED]: c_m -> lambda (2 - eta lambda) / (2 sigma^2).
    CHECK(ys::lsi_constant_strongly_convex(100000, eta, sigma, lambda) ==
          Approx(lambda * (2 - eta * lambda) / (2 * sigma * sigma)).epsilon(1e-10));
  }
}

// --------------------------------------------------------------------------------------------
// Lemma 3.2 on a grid
// --------------------------------------------------------------------------------------------

TEST_CASE("transport grid holds the user's orders and reaches alpha close to 1", "[ye-shokri][grid]") {
  const std::vector<double> orders{32.0, 1.5, 8.0};
  const auto g = ys::transport_grid(orders);
  CHECK(g.front() == Approx(1 + ys::kGridMinExcess).epsilon(1e-15));
  CHECK(g.back() == 32.0);
  for (double a : orders) CHECK(std::find(g.begin(), g.end(), a) != g.end());
  for (std::size_t i = 1; i < g.size(); ++i) {
    REQUIRE(g[i] > g[i - 1]);
    REQUIRE((g[i] - 1) / (g[i - 1] - 1) <= kGridRatio * (1 + 1e-9));
  }
}

TEST_CASE("grid step on alpha-linear data: exact at nodes, else above by at most the chord error", "[ye-shokri][grid]") {
  // D s.5.4 V1 / s.5.2: R_old = k alpha gives R_new = rho k alpha exactly (u = R/alpha is constant).
  const double k = 3e-3;
  // A pure log grid alpha - 1 = 10^(-2 + i/256): rho = r^-m maps node i onto node i - m.
  std::vector<double> g;
  for (int i = 0; i <= 3 * ys::kGridPointsPerDecade; ++i) g.push_back(1 + std::pow(10.0, -2.0 + double(i) / ys::kGridPointsPerDecade));
  std::vector<double> R;
  for (double a : g) R.push_back(k * a);
  for (int m : {1, 17, 300}) {
    const double rho = std::pow(kGridRatio, -m);
    const auto out = ys::lemma32_step_on_grid(g, R, {0.0, rho});
    for (std::size_t i = std::size_t(m); i < g.size(); ++i) REQUIRE(out[i] == Approx(rho * k * g[i]).epsilon(1e-11));
  }
  // Arbitrary rho on the transport grid of user orders: sound and within the chord bound.
  const std::vector<double> orders{1.5, 2.0, 8.0, 64.0};
  const auto tg = ys::transport_grid(orders);
  std::vector<double> Rt;
  for (double a : tg) Rt.push_back(k * a);
  for (double rho : {0.013, 0.3, 0.77, 0.999}) {
    const auto out = ys::lemma32_step_on_grid(tg, Rt, {0.0, rho});
    for (std::size_t i = 0; i < tg.size(); ++i) {
      REQUIRE(out[i] >= rho * k * tg[i] * (1 - 1e-13));
      REQUIRE(out[i] <= rho * k * tg[i] * (1 + kChordTol + 1e-13));
    }
  }
  // Gaussian case of (56): + alpha w, exact.
  const auto jump = ys::lemma32_step_on_grid(tg, Rt, {2e-4, 1.0});
  for (std::size_t i = 0; i < tg.size(); ++i) CHECK(jump[i] == Approx((k + 2e-4) * tg[i]).epsilon(1e-14));
}

TEST_CASE("grid step below the smallest order uses the smallest value (R non-decreasing)", "[ye-shokri][grid]") {
  const std::vector<double> g{2.0, 4.0, 8.0};
  const std::vector<double> R{0.5, 0.4, 2.0};  // non-monotone input: 0.4 also bounds R at alpha = 2
  const double rho = 0.1;                      // alpha' = 1.1, 1.3, 1.7: all below 2
  const auto out = ys::lemma32_step_on_grid(g, R, {0.0, rho});
  for (std::size_t i = 0; i < g.size(); ++i) {
    const double ap = 1 + (g[i] - 1) * rho;
    CHECK(out[i] == Approx(g[i] * rho * 0.4 / ap).epsilon(1e-14));
  }
  // rho = 0 (c = +infinity) annihilates a finite bound.
  for (double v : ys::lemma32_step_on_grid(g, R, {0.0, 0.0})) CHECK(v == 0.0);
  CHECK_THROWS(ys::lemma32_step_on_grid(g, R, {0.0, 1.5}));
  CHECK_THROWS(ys::lemma32_step_on_grid(std::vector<double>{2.0, 1.5}, std::vector<double>{1, 1}, {0.0, 0.5}));
}

TEST_CASE("grid recursion on nonlinear data agrees with the composed characteristic maps", "[ye-shokri][grid]") {
  // R_0 = kappa alpha^2 ((alpha-1) R convex, R non-decreasing: an admissible curve; D s.5.2).
  // Each step u <- rho (u(alpha') + c), alpha' = 1 + (alpha-1) rho, maps u = P kappa (1 + (alpha-1) P) + W
  // to P <- rho P, W <- rho (W + c): the exact composition of (56)'s two cases.
  const double kappa = 0.02, q = 0.9;
  std::vector<ys::Lemma32Step> steps;
  double P = 1, W = 0;
  for (std::int64_t m = 0; m < 150; ++m) {
    ys::Lemma32Step s;
    if (m % 10 == 3)
      s = {1e-3, 1.0};  // batch with the record
    else if (m % 10 == 7)
      s = {2e-3, 0.8};  // a D.6-type split step
    else
      s = {0.0, 1 - 0.3 * (1 - q) / (1 + 0.01 * m)};  // data-independent step
    steps.push_back(s);
    P *= s.rho;
    W = s.rho * (W + s.gaussian_cost);
  }
  const std::vector<double> orders{1.25, 2.0, 5.0, 16.0, 64.0};
  const auto curve = ys::lemma32_recursion_from_curve(orders, [&](double a) { return kappa * a * a; }, steps);
  std::vector<double> R0;
  for (double a : orders) R0.push_back(kappa * a * a);
  const auto values = ys::lemma32_recursion_from_values(orders, R0, steps);
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double a = orders[i];
    const double exact = a * (P * kappa * (1 + (a - 1) * P) + W);
    CHECK(curve[i] >= exact * (1 - 1e-12));                                       // sound
    CHECK(curve[i] <= exact * std::pow(1 + 2 * kChordTol, double(steps.size())));  // and tight
    CHECK(values[i] >= curve[i] * (1 - 1e-12));  // less initial information, larger bound
  }
  // With transport switched off (alpha' = alpha) the answer would be visibly different:
  const double wrong = 64.0 * (P * kappa * 64.0 + W);
  CHECK(std::abs(curve.back() - wrong) > 1e-3 * wrong);
}

TEST_CASE("grid recursion from R = 0 reproduces the scalar Lemma 3.2 recursion", "[ye-shokri][grid]") {
  const std::int64_t N = 10, T = 400, j0 = 3;
  const double q = std::pow(1 - kEta * 1.0, 2);
  std::vector<ys::Lemma32Step> steps;
  for (std::int64_t m = 0; m < T; ++m)
    steps.push_back(m % N == j0 ? ys::Lemma32Step{kW, 1.0} : ys::Lemma32Step{0.0, ys::contraction_factor(m, q)});
  const std::vector<double> orders{1.1, 4.0, 8.0, 100.0};
  const auto R = ys::lemma32_recursion_from_curve(orders, [](double) { return 0.0; }, steps);
  const double u = recursion_by_lsi(N, T, j0, kEta, kSigma, 1.0);
  CHECK(ys::plain_recursion_units(N, T, j0, q) == Approx(u).epsilon(1e-12));
  for (std::size_t i = 0; i < orders.size(); ++i) {
    CHECK(R[i] >= orders[i] * kW * u * (1 - 1e-12));
    CHECK(R[i] <= orders[i] * kW * u * std::pow(1 + kChordTol, double(T)));
  }
}

// --------------------------------------------------------------------------------------------
// Validation targets, digest s.5.4
// --------------------------------------------------------------------------------------------

TEST_CASE("V2: eps_0^j of (99) against the product (98) and the digest table", "[ye-shokri][validation]") {
  const double q = std::pow(1 - kEta * 1.0, 2);  // lambda = 1
  for (std::int64_t j = 1; j <= 100; ++j) REQUIRE(ys::epoch_start_units(j, q) == Approx(eps0_product(j, q)).epsilon(1e-13));
  // D s.5.4 V2: eps_0^j / alpha for j = 1, 2, 5, 10.
  CHECK(kW * ys::epoch_start_units(1, q) == Approx(1.25e-4).epsilon(1e-4));
  CHECK(kW * ys::epoch_start_units(2, q) == Approx(5.9297e-5).epsilon(1e-4));
  CHECK(kW * ys::epoch_start_units(5, q) == Approx(2.0150e-5).epsilon(1e-4));
  CHECK(kW * ys::epoch_start_units(10, q) == Approx(7.5463e-6).epsilon(1e-4));
  // lambda -> 0 recovers Thm D.4's 1/j, eq. (90) (D s.2.8).
  for (std::int64_t j : {1, 3, 50}) {
    CHECK(ys::epoch_start_units(j, 1.0) == Approx(1.0 / j).epsilon(1e-15));
    CHECK(ys::epoch_start_units(j, std::pow(1 - 1e-9, 2)) == Approx(1.0 / j).epsilon(1e-6));
  }
}

TEST_CASE("V3: Thm D.4 and the plain recursion, convex", "[ye-shokri][validation]") {
  const double aw = kAlpha * kW;
  struct Row { std::int64_t K; double d4_0, plain_0, d4_99, plain_99; };
  for (const Row& r : {Row{1, 1e-5, 1e-5, 1e-3, 1e-3}, Row{2, 2e-5, 5.1005e-4, 1.01e-3, 1.5025e-3},
                       Row{10, 1e-4, 4.5282e-3, 1.09e-3, 5.5226e-3}, Row{100, 1e-3, 4.9754e-2, 1.99e-3, 5.0749e-2}}) {
    const std::int64_t T = r.K * kBatches;
    CHECK(aw * ys::thmD4_units(kBatches, r.K, 0) == Approx(r.d4_0).epsilon(1e-4));
    CHECK(aw * ys::thmD4_units(kBatches, r.K, 99) == Approx(r.d4_99).epsilon(1e-4));
    CHECK(aw * ys::plain_recursion_units(kBatches, T, 0, 1.0) == Approx(r.plain_0).epsilon(1e-4));
    CHECK(aw * ys::plain_recursion_units(kBatches, T, 99, 1.0) == Approx(r.plain_99).epsilon(1e-4));
    // The shifted recursion (first use at step 0, (82)) is the same run shortened, and never larger.
    const auto shifted = ys::shifted_recursion_units(kBatches, T, 1.0);
    for (std::int64_t j0 : {0, 1, 50, 99}) {
      REQUIRE(shifted[std::size_t(j0)] == Approx(recursion_by_lsi(kBatches, T - j0, 0, kEta, kSigma, 0.0)).epsilon(1e-12));
      REQUIRE(shifted[std::size_t(j0)] <= ys::plain_recursion_units(kBatches, T, j0, 1.0) * (1 + 1e-12));
    }
  }
}

TEST_CASE("V4: Thm 3.3, plain recursion, Thm 4.2 and Thm 4.3 at lambda = 1 and 0.01", "[ye-shokri][validation]") {
  const double aw = kAlpha * kW;
  struct Row { double lambda; std::int64_t K; double t33_0, t33_99, plain_0, t42, t43; };
  for (const Row& r : {Row{1, 1, 3.7870e-9, 1.0e-3, 3.7870e-9, 3.0374e-5, 1.0396e-4},
                       Row{1, 10, 6.5104e-7, 1.000647e-3, 3.8841e-8, 3.1022e-5, 1.0397e-4},
                       Row{0.01, 10, 1.5450e-4, 1.1450e-3, 3.7161e-3, 1.9644e-4, 6.3724e-3},
                       Row{0.01, 100, 4.0670e-4, 1.3972e-3, 9.6020e-3, 4.4864e-4, 1.01388e-2},
                       Row{0.01, 1000, 4.0953e-4, 1.4000e-3, 9.6067e-3, 4.5147e-4, 1.01393e-2}}) {
    const double q = std::pow(1 - kEta * r.lambda, 2);
    const std::int64_t T = r.K * kBatches;
    CHECK(aw * ys::thm33_units(kBatches, r.K, 0, q) == Approx(r.t33_0).epsilon(1e-4));
    CHECK(aw * ys::thm33_units(kBatches, r.K, 99, q) == Approx(r.t33_99).epsilon(1e-4));
    CHECK(aw * ys::plain_recursion_units(kBatches, T, 0, q) == Approx(r.plain_0).epsilon(1e-4));
    CHECK(ys::thm42(kAlpha, kBatches, r.K, q, kW) == Approx(r.t42).epsilon(1e-4));
    CHECK(ys::thm43(kAlpha, T, kB / kN, q, kW) == Approx(r.t43).epsilon(1e-4));
    // (91) recomputed from the statement with explicit sums.
    const std::int64_t h = kBatches / 2;
    const double Q = std::pow(q, double(kBatches - h));
    const double first = eps0_product(h, q) * (1 - std::pow(Q, double(r.K - 1))) / (1 - Q);
    CHECK(ys::thm33_units(kBatches, r.K, 37, q) == Approx(first + eps0_product(kBatches - 37, q)).epsilon(1e-10));
    // Lemma 4.1: an average of the batches is at most the worst batch.
    CHECK(ys::thm42(kAlpha, kBatches, r.K, q, kW) <= aw * ys::thm33_units(kBatches, r.K, kBatches - 1, q));
  }
}

TEST_CASE("V5: Thm D.6, its recursion (122), and C21 Cor 1 at full batch", "[ye-shokri][validation]") {
  // C21 Fig. 1 setting: S_g = 4, n = 5000, eta = sigma = 0.02, alpha = 10.
  const double Sg = 4, n = 5000, eta = 0.02, sigma = 0.02, alpha = 10;
  const double aw = alpha * ys::gaussian_step_cost(eta, sigma, Sg, n);
  const auto cor1 = [&](double lambda, double K) {  // C21 Cor 1 = Ye & Shokri Thm D.7, eq. (127)
    return alpha * Sg * Sg / (lambda * sigma * sigma * n * n) * (1 - std::exp(-lambda * eta * K / 2));
  };
  struct Row { double lambda; std::int64_t K; double d6, rec, c1; };
  for (const Row& r : {Row{1, 10, 1.51459e-3, 9.80212e-4, 1.52260e-3}, Row{1, 100, 1.00420e-2, 6.36955e-3, 1.01139e-2},
                       Row{1, 1000, 1.58393e-2, 7.92081e-3, 1.59993e-2}, Row{1, 10000, 1.58400e-2, 7.92081e-3, 1.6e-2},
                       Row{2, 1000, 7.84e-3, 3.92163e-3, 8.0e-3}, Row{4, 1000, 3.84e-3, 1.92333e-3, 4.0e-3}}) {
    const double q = std::pow(1 - eta * r.lambda, 2);
    const double d6 = aw * ys::d6_units(r.K, eta * r.lambda, 0.5), rec = aw * ys::d6_recursion_units(r.K, q, 0.5);
    CHECK(d6 == Approx(r.d6).epsilon(1e-4));
    CHECK(rec == Approx(r.rec).epsilon(1e-4));
    CHECK(cor1(r.lambda, double(r.K)) == Approx(r.c1).epsilon(1e-4));
    // (112) with explicit sum: alpha eta S_g^2 / (2 sigma^2 n^2) sum_{k=1}^K (1 - eta lambda/2)^k.
    double s = 0;
    for (std::int64_t k = 1; k <= r.K; ++k) s += std::pow(1 - eta * r.lambda / 2, double(k));
    CHECK(d6 == Approx(alpha * eta * Sg * Sg / (2 * sigma * sigma * n * n) * s).epsilon(1e-10));
    // L666-686 [FIX e^{-lambda eta K/2}]: (112) < Cor 1; the relaxations (123)-(125) only loosen (122).
    CHECK(d6 < cor1(r.lambda, double(r.K)));
    CHECK(rec <= d6 * (1 + 1e-12));
  }
}

TEST_CASE("D.6 recursion with split gamma is Lemma 3.2 at the split LSI constant", "[ye-shokri][d6]") {
  // (117)-(121) with the Gaussian mechanism on gamma of the noise and Lemma 3.2 (L = 1, noise
  // variance 2 (1-gamma) eta sigma^2) on the rest; c_k^0 from Lemma D.3 (116).
  const double eta = 0.02, sigma = 0.5, lambda = 2;
  const double q = std::pow(1 - eta * lambda, 2);
  for (double gamma : {0.1, 0.5, 0.83}) {
    double u = 0;
    for (std::int64_t k = 0; k < 300; ++k) {
      const double c0 = ys::lsi_constant_strongly_convex(k, eta, sigma, lambda);
      const double c_half = 1 / (q / c0 + 2 * gamma * eta * sigma * sigma);  // (117) generalised
      u = (u + 1 / gamma) * ys::lemma32_contraction(c_half, eta, sigma * std::sqrt(1 - gamma), 1.0);
      if (k % 37 == 0 || k == 299) REQUIRE(ys::d6_recursion_units(k + 1, q, gamma) == Approx(u).epsilon(1e-12));
    }
  }
  // gamma = 1: no noise left to contract, plain composition (C21 App. E).
  CHECK(ys::d6_recursion_units(250, q, 1.0) == Approx(250.0).epsilon(1e-14));
  CHECK(ys::d6_units(250, eta * lambda, 1.0) == Approx(250.0).epsilon(1e-14));
  // Long runs take the converged closed form; it must agree with stepping (lambda large: fast).
  const double q4 = std::pow(1 - 0.2 * 4, 2);
  double u = 0, S = 0;
  for (int k = 0; k < 5000; ++k) u = (u + 1 / 0.3) * (q4 * S + 0.3) / (q4 * S + 1), S = q4 * S + 1;
  CHECK(ys::d6_recursion_units(5000, q4, 0.3) == Approx(u).epsilon(1e-12));
}

TEST_CASE("optimise_split finds the minimum over the open-closed unit interval", "[ye-shokri][d6]") {
  const auto opt = ys::optimise_split([](double g) { return (g - 0.3137) * (g - 0.3137) + 1; });
  CHECK(opt.gamma == Approx(0.3137).margin(1e-6));
  CHECK(opt.value == Approx(1.0).epsilon(1e-12));
  CHECK(ys::optimise_split([](double g) { return -g; }).gamma == 1.0);
  const double q = std::pow(1 - 0.02, 2);
  for (std::int64_t K : {10, 100, 1000}) {
    const auto o = ys::optimise_split([&](double g) { return ys::d6_recursion_units(K, q, g); });
    CHECK(o.value == Approx(ys::d6_recursion_units(K, q, o.gamma)).epsilon(1e-15));
    CHECK(o.value <= ys::d6_recursion_units(K, q, 0.5));
    CHECK(o.value <= double(K));  // never worse than composition (gamma = 1)
    for (double g = 0.01; g < 1; g += 0.01) REQUIRE(o.value <= ys::d6_recursion_units(K, q, g) * (1 + 1e-12));
  }
}

TEST_CASE("V6: the authors' accountant, Thm 4.2 at their experiment settings", "[ye-shokri][validation]") {
  // D s.3 (EXT README) and s.5.4 V6: K = 1200, n/b = trainsize // batchsize, unit 2 alpha / sigma_mul^2,
  // BN cost 2 alpha / (2 bn^2), eps = min_alpha RDP + log(1/delta)/(alpha-1), delta = 1e-5.
  std::vector<double> orders;
  for (int i = 1; i <= 99; ++i) orders.push_back(1 + i / 10.0);
  for (int a = 12; a <= 63; ++a) orders.push_back(a);
  struct Cfg { std::int64_t N; double eta, lambda, smul, bn, eps, best_alpha; };
  for (const Cfg& c : {Cfg{29, 0.75, 0.08, 3.08, 8, 2.9951, 7.0}, Cfg{29, 1.92, 0.02, 3.01, 0, 2.9966, 7.0},
                       Cfg{24, 0.75, 0.08, 3.23, 6, 2.9964, 7.1}}) {
    const double q = std::pow(1 - c.eta * c.lambda, 2);
    const double w = ys::gaussian_step_cost(c.eta, noise_units::c21_sigma_from_dpsgd_multiplier(c.smul, c.eta, 3.0, 2048), 3.0, 2048);
    double best = std::numeric_limits<double>::infinity(), at = 0;
    for (double a : orders) {
      const double rdp = ys::thm42(a, c.N, 1200, q, w) + (c.bn > 0 ? 2 * a / (2 * c.bn * c.bn) : 0.0);
      const double eps = rdp + std::log(1e5) / (a - 1);
      if (eps < best) best = eps, at = a;
    }
    CHECK(best == Approx(c.eps).epsilon(1e-4));
    CHECK(at == Approx(c.best_alpha));
  }
  // MNIST, alpha = 10 (no BN term): 1.7341 at K = 1, 1.8049 from K = 10 on.
  const double q = std::pow(1 - 0.75 * 0.08, 2), w = 2 / (3.08 * 3.08);
  CHECK(ys::thm42(10, 29, 1, q, w) == Approx(1.7341).epsilon(1e-4));
  CHECK(ys::thm42(10, 29, 10, q, w) == Approx(1.8049).epsilon(1e-4));
  CHECK(ys::thm42(10, 29, 1200, q, w) == Approx(1.8049).epsilon(1e-4));
}

TEST_CASE("full batch (b = n): the mini-batch results reduce to composition", "[ye-shokri][full-batch]") {
  // Every step holds the record: Thm 4.3 with P(i0 in B) = 1 and the plain recursion with n/b = 1
  // are K Gaussian mechanisms, C21 App. E's alpha S_g^2 eta K / (4 n^2 sigma^2).
  const double Sg = 4, n = 5000, eta = 0.02, sigma = 0.02;
  const double w = ys::gaussian_step_cost(eta, sigma, Sg, n);
  for (double alpha : {1.5, 10.0, 30.0})
    for (std::int64_t K : {1, 10, 1000}) {
      const double composition = alpha * Sg * Sg * eta * double(K) / (4 * n * n * sigma * sigma);
      CHECK(ys::thm43(alpha, K, 1.0, std::pow(1 - eta, 2), w) == Approx(composition).epsilon(1e-9));
      CHECK(alpha * w * ys::plain_recursion_units(1, K, 0, std::pow(1 - eta, 2)) == Approx(composition).epsilon(1e-13));
    }
  // The optimised D.6 bound never exceeds composition, and beats C21 Cor 1 at convergence.
  TrainingRun run = base_run();
  run.n = n, run.batch_size = 5000, run.sampling = BatchSampling::FullBatch, run.eta = eta, run.sigma = sigma;
  run.sensitivity = Sg, run.lambda = 1, run.beta = 4, run.orders = {10.0};
  for (std::int64_t K : {1, 10, 1000}) {
    run.steps = K;
    const auto r = ys::d6(run);
    REQUIRE(r.applies);
    CHECK(r.R[0] <= 10 * w * double(K) * (1 + 1e-12));
    CHECK(r.R[0] <= 10 * w * ys::d6_recursion_units(K, std::pow(1 - eta, 2), 0.5));
  }
  CHECK(ys::d6(run).R[0] < 10 * Sg * Sg / (sigma * sigma * n * n) * (1 - std::exp(-eta * 1000 / 2.0)));
}

// --------------------------------------------------------------------------------------------
// Analyses of a TrainingRun
// --------------------------------------------------------------------------------------------

TEST_CASE("ye-shokri-thm3.3: worst batch of the smallest of (91), (80) and the recursion", "[ye-shokri][analysis]") {
  for (double lambda : {1.0, 0.01, 0.0}) {
    TrainingRun run = base_run();
    run.lambda = lambda;
    const double q = std::pow(1 - kEta * lambda, 2);
    for (std::int64_t K : {1, 2, 10}) {
      run.steps = K * kBatches;
      const auto r = ys::thm3_3(run);
      REQUIRE(r.applies);
      CHECK(r.name == "ye-shokri-thm3.3");
      CHECK(contains(r.citation, lambda > 0 ? "Thm 3.3 eq. (91)" : "Thm D.4 eq. (80)"));
      double worst = 0;
      for (std::int64_t j0 = 0; j0 < kBatches; ++j0) {
        double best = std::min((K - 1) / 100.0 + 1.0 / double(kBatches - j0),          // (80)
                               recursion_by_lsi(kBatches, run.steps - j0, 0, kEta, kSigma, lambda));
        if (lambda > 0) {
          const double Q = std::pow(q, 50.0);
          best = std::min(best, eps0_product(50, q) * (1 - std::pow(Q, double(K - 1))) / (1 - Q) +
                                    eps0_product(kBatches - j0, q));  // (91)
        }
        worst = std::max(worst, best);
      }
      for (std::size_t i = 0; i < run.orders.size(); ++i) CHECK(r.R[i] == Approx(run.orders[i] * kW * worst).epsilon(1e-10));
    }
  }
  // V4(a) K = 10: the worst batch j0 = 99 gets Thm 3.3's 1.000647e-3 at alpha = 8 unless beaten.
  TrainingRun run = base_run();
  run.orders = {8.0};
  const auto r = ys::thm3_3(run);
  CHECK(r.R[0] <= 1.000647e-3 * (1 + 1e-6));
  // A partial last epoch: only the recursion, and it says so.
  run.steps = 1050;
  const auto p = ys::thm3_3(run);
  REQUIRE(p.applies);
  CHECK(contains(p.reason, "not a whole number of epochs"));
  const auto shifted = ys::shifted_recursion_units(kBatches, 1050, std::pow(1 - kEta, 2));
  CHECK(p.R[0] == Approx(8 * kW * *std::max_element(shifted.begin(), shifted.end())).epsilon(1e-12));
}

TEST_CASE("ye-shokri-thm4.2: one epoch of a random partition", "[ye-shokri][analysis]") {
  TrainingRun run = base_run();
  run.sampling = BatchSampling::Shuffle;
  run.steps = kBatches;
  run.orders = {2.0, 8.0, 32.0};
  const auto r = ys::thm4_2(run);
  REQUIRE(r.applies);
  const double q = std::pow(1 - kEta, 2);
  for (std::size_t i = 0; i < run.orders.size(); ++i) {
    // K = 1: (135) is Lemma 4.1 over eps_0^{n/b - j0}, computed here with explicit products.
    const double a = run.orders[i];
    double s = 0;
    for (std::int64_t j0 = 0; j0 < kBatches; ++j0) s += std::exp((a - 1) * a * kW * eps0_product(kBatches - j0, q));
    CHECK(r.R[i] == Approx(std::log(s / kBatches) / (a - 1)).epsilon(1e-10));
  }
  CHECK(r.R[1] == Approx(3.0374e-5).epsilon(1e-4));  // D s.5.4 V4(a), K = 1
}

TEST_CASE("ye-shokri-thm4.3 and ye-shokri-d6 on runs", "[ye-shokri][analysis]") {
  TrainingRun run = base_run();
  run.sampling = BatchSampling::PerStep;
  run.orders = {8.0};
  const auto r = ys::thm4_3(run);
  REQUIRE(r.applies);
  CHECK(r.R[0] == Approx(1.0397e-4).epsilon(1e-4));  // D s.5.4 V4(a), K = 10
  // (149) stepped directly on S = E_alpha.
  double S = 1;
  const double q = std::pow(1 - kEta, 2);
  for (int t = 0; t < 1000; ++t) S = 0.01 * std::exp(7 * 8 * kW) * S + 0.99 * std::pow(S, q);
  CHECK(r.R[0] == Approx(std::log(S) / 7).epsilon(1e-9));
  CHECK(r.R[0] >= std::log(S) / 7);  // the converged shortcut bounds the remaining steps from above
  // The same against a long direct iteration, in log space, several orders and rates.
  // (Orders 40 and 300 at p = 0.2 have p e^jump > 1: S diverges and the other shortcut applies.)
  for (double lambda : {0.3, 1.0, 4.0})
    for (double a : {1.5, 8.0, 40.0, 300.0})
      for (double p : {0.01, 0.2, 1.0}) {
        const double ql = std::pow(1 - kEta * lambda, 2), jump = (a - 1) * a * kW;
        long double sl = 0;  // (149) in log space, long double, max factored out against overflow
        for (int t = 0; t < 20000; ++t) {
          const long double x = jump + sl, y = ql * sl, m = std::max(x, y);
          sl = m < 1 ? std::log1p(p * std::expm1(x) + (1 - p) * std::expm1(y))
                     : m + std::log(p * std::exp(x - m) + (1 - p) * std::exp(y - m));
        }
        const double s = static_cast<double>(sl);
        const double fast = ys::thm43(a, 20000, p, ql, kW);
        REQUIRE(fast >= s / (a - 1) * (1 - 1e-12));
        REQUIRE(fast == Approx(s / (a - 1)).epsilon(1e-8));
      }
  // q = 1 (lambda = 0): each step multiplies S by p e^jump + 1 - p.
  CHECK(ys::thm43(8, 500, 0.01, 1.0, kW) == Approx(500 * std::log(0.01 * std::exp(56 * kW) + 0.99) / 7).epsilon(1e-12));

  TrainingRun fb = base_run();
  fb.n = 5000, fb.batch_size = 5000, fb.sampling = BatchSampling::FullBatch, fb.eta = 0.02, fb.sigma = 0.02;
  fb.sensitivity = 4, fb.lambda = 1, fb.beta = 4, fb.steps = 1000, fb.orders = {10.0, 20.0};
  const auto d = ys::d6(fb);
  REQUIRE(d.applies);
  CHECK(d.R[0] <= 7.92081e-3);                   // (122) at gamma = 1/2 (V5)
  CHECK(d.R[0] == Approx(7.9200e-3).epsilon(1e-4));  // the optimised split gains a little
  CHECK(d.R[1] == Approx(2 * d.R[0]).epsilon(1e-14));
  CHECK(contains(d.reason, "gamma = "));
}

TEST_CASE("every analysis is non-decreasing in alpha", "[ye-shokri][analysis]") {
  TrainingRun run = base_run();
  run.orders = fine_orders();
  for (double lambda : {0.0, 0.01, 1.0}) {
    run.lambda = lambda;
    run.sampling = BatchSampling::Partition, run.steps = 1000;
    auto r = ys::thm3_3(run);
    REQUIRE(r.applies);
    require_non_decreasing(r.R);
    run.sampling = BatchSampling::Shuffle, run.steps = kBatches;
    r = ys::thm4_2(run);
    REQUIRE(r.applies);
    require_non_decreasing(r.R);
    run.sampling = BatchSampling::PerStep, run.steps = 700;
    r = ys::thm4_3(run);
    REQUIRE(r.applies);
    require_non_decreasing(r.R);
    TrainingRun fb = run;
    fb.batch_size = 1000, fb.sampling = BatchSampling::FullBatch, fb.steps = 300;
    r = ys::d6(fb);
    REQUIRE(r.applies);
    require_non_decreasing(r.R);
  }
  // Thm 4.2 at several epochs too (the pure form; its log-mean-exp is non-linear in alpha).
  std::vector<double> R;
  for (double a : fine_orders()) R.push_back(ys::thm42(a, kBatches, 30, std::pow(1 - kEta * 0.01, 2), kW));
  require_non_decreasing(R);
}

TEST_CASE("refusals name the failing assumption and the run's values", "[ye-shokri][refusal]") {
  const auto refused = [](const AnalysisResult& r, std::initializer_list<const char*> parts) {
    CHECK_FALSE(r.applies);
    CHECK(r.R.empty());
    for (const char* p : parts) {
      INFO(r.reason);
      CHECK(contains(r.reason, p));
    }
  };
  TrainingRun run = base_run();
  {
    TrainingRun x = run;
    x.sampling = BatchSampling::Shuffle;
    refused(ys::thm3_3(x), {"needs sampling = partition", "the run uses shuffle"});
    x.sampling = BatchSampling::Partition;
    refused(ys::thm4_2(x), {"needs sampling = shuffle", "the run uses partition"});
    refused(ys::thm4_3(x), {"needs sampling = per-step", "the run uses partition"});
  }
  {
    TrainingRun x = run;
    x.batch_size = 30;
    refused(ys::thm3_3(x), {"needs b dividing n", "n = 1000, b = 30"});
    x.batch_size = 1000;
    refused(ys::thm3_3(x), {"needs n/b >= 2", "n/b = 1"});
    x.batch_size = 10;
    x.eta = 0.5, x.lambda = 0.5, x.beta = 4.5;
    refused(ys::thm3_3(x), {"needs eta < 2/(lambda+beta) = 0.4", "eta = 0.5"});
    x.lambda = 0.0, x.beta = 4.0, x.eta = 0.6;
    refused(ys::thm3_3(x), {"needs eta < 2/beta = 0.5", "eta = 0.6"});
    x.sampling = BatchSampling::PerStep;
    refused(ys::thm4_3(x), {"needs eta < 2/beta = 0.5", "eta = 0.6"});
  }
  {
    TrainingRun x = run;
    x.beta = 0.0;
    refused(ys::thm3_3(x), {"needs the smoothness beta > 0", "(unknown)"});
    x.beta = 0.5;
    refused(ys::thm3_3(x), {"needs lambda <= beta", "lambda = 1, beta = 0.5"});
    x.beta = 10, x.lambda = -0.1;
    refused(ys::thm3_3(x), {"needs strong convexity lambda >= 0", "lambda = -0.1"});
    x.lambda = 1, x.adjacency = Adjacency::Remove;
    refused(ys::thm4_3(x), {"needs adjacency = replace", "the run uses add-remove"});
    x.adjacency = Adjacency::Replace, x.orders = {2.0, 1.0};
    refused(ys::thm3_3(x), {"alpha > 1", "alpha = 1"});
    x.orders = {};
    refused(ys::thm3_3(x), {"needs at least one Renyi order"});
    x.orders = {2.0}, x.n = 1000.5;
    refused(ys::thm3_3(x), {"integer dataset size", "n = 1000.5"});
    x.n = 1000, x.sigma = 0;
    refused(ys::thm3_3(x), {"noise sigma > 0", "sigma = 0"});
  }
  {
    TrainingRun x = run;
    x.sampling = BatchSampling::Shuffle;
    x.steps = 150;
    refused(ys::thm4_2(x), {"needs whole epochs", "steps = 150", "n/b = 100"});
    x.steps = 1000;
    refused(ys::thm4_2(x), {"fresh partition", "K = 10 epochs"});
  }
  {
    TrainingRun x = run;
    x.sampling = BatchSampling::FullBatch;
    refused(ys::d6(x), {"needs full batch b = n", "b = 10, n = 1000"});
    x.batch_size = 1000, x.beta = 25.0, x.lambda = 1;
    refused(ys::d6(x), {"needs eta < 1/beta = 0.04", "eta = 0.05"});
  }
  // Pure functions reject arguments outside their theorems.
  CHECK_THROWS(ys::thm33_units(1, 1, 0, 0.9));
  CHECK_THROWS(ys::epoch_start_units(0, 0.9));
  CHECK_THROWS(ys::d6_recursion_units(10, 0.9, 0.0));
}
