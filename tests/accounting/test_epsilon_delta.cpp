// RDP -> (epsilon, delta) conversions and calibration.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "accounting/epsilon_delta.hpp"

using namespace rdpdyn;

namespace {

const double kInf = std::numeric_limits<double>::infinity();

/// A grid like the usual accountant grids: dense near 1, sparse far out.
std::vector<double> order_grid() {
  std::vector<double> a{1.25, 1.5,  1.75, 2.0,  2.5,  3.0,  4.0,  5.0,  6.0,   8.0,
                        10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 48.0, 64.0, 128.0, 256.0};
  return a;
}

/// T compositions of the Gaussian mechanism with noise multiplier z: R = T alpha / (2 z^2)
/// (Mironov 2017, Prop. 7 and Prop. 1).
std::vector<double> gaussian_rdp(const std::vector<double>& orders, double z, double T) {
  std::vector<double> R;
  for (double a : orders) R.push_back(T * a / (2.0 * z * z));
  return R;
}

/// epsilon(alpha) = R + b(alpha) for both conversions: the order-only part b.
double offset(RdpConversion c, double alpha, double delta) {
  if (c == RdpConversion::Mironov) return -std::log(delta) / (alpha - 1.0);
  return std::log((alpha - 1.0) / alpha) - (std::log(delta) + std::log(alpha)) / (alpha - 1.0);
}

/// Closed-form calibration for the Gaussian mechanism: at order alpha_j the target holds iff
/// T alpha_j / (2 z^2) <= eps - b_j, i.e. z >= sqrt(T alpha_j / (2 (eps - b_j))); the grid
/// certificate is the best order, so z* = min_j of that.
double gaussian_min_noise(RdpConversion c, const std::vector<double>& orders, double T, double eps, double delta) {
  double z = kInf;
  for (double a : orders) {
    const double room = eps - offset(c, a, delta);
    if (room > 0) z = std::min(z, std::sqrt(T * a / (2.0 * room)));
  }
  return z;
}

}  // namespace

// The conversions are rounded outward (accounting/epsilon_delta.cpp: 8 u times the terms'
// magnitudes, then one double), so hand values are matched to 1e-14 rather than 1e-15.
TEST_CASE("Single-order conversions match the formulas evaluated by hand", "[epsilon-delta]") {
  // Mironov 2017 Prop. 3, alpha = 2, R = 1, delta = 1e-5: 1 + ln(1e5).
  CHECK(epsilon_mironov(2.0, 1.0, 1e-5) == Approx(12.512925464970229).epsilon(1e-14));
  // Balle et al. 2020 Thm 21, same point: 1 + ln(1/2) - (ln 1e-5 + ln 2) = 1 - 2 ln 2 + 5 ln 10.
  CHECK(epsilon_improved(2.0, 1.0, 1e-5) == Approx(11.12663110385034).epsilon(1e-14));
  // alpha = 10, R = 0.5, delta = 1e-6: Mironov 0.5 + 6 ln 10 / 9; improved 0.5 + ln 0.9 + 5 ln 10 / 9.
  CHECK(epsilon_mironov(10.0, 0.5, 1e-6) == Approx(2.0350567286626973).epsilon(1e-14));
  CHECK(epsilon_improved(10.0, 0.5, 1e-6) == Approx(1.6738534248944215).epsilon(1e-14));
  // Inverses at alpha = 2, R = 1, epsilon = 3: Mironov e^{-2}; improved
  // log delta = (1 - 3 + ln(1/2)) - ln 2, i.e. e^{-2} / 4.
  CHECK(delta_mironov(2.0, 1.0, 3.0) == Approx(0.1353352832366127).epsilon(1e-14));
  CHECK(delta_improved(2.0, 1.0, 3.0) == Approx(0.033833820809153176).epsilon(1e-14));
  CHECK(rdp_to_epsilon(RdpConversion::Mironov, 2.0, 1.0, 1e-5) == epsilon_mironov(2.0, 1.0, 1e-5));
  CHECK(rdp_to_delta(RdpConversion::Improved, 2.0, 1.0, 3.0) == delta_improved(2.0, 1.0, 3.0));
}

TEST_CASE("The improved delta is CKS 2020 Prop. 12 in its own form", "[epsilon-delta]") {
  // CKS 2020 Prop. 12: delta = exp((alpha-1)(R-eps)) / (alpha-1) * (1 - 1/alpha)^alpha.
  for (double a : {1.5, 2.0, 7.0, 100.0})
    for (double R : {0.01, 0.3, 2.0}) {
      const double eps = R + 0.5;
      const double cks = std::exp((a - 1) * (R - eps)) / (a - 1) * std::pow(1 - 1 / a, a);
      CHECK(delta_improved(a, R, eps) == Approx(cks).epsilon(1e-12));
    }
}

TEST_CASE("The improved conversion is never larger than Mironov's", "[epsilon-delta]") {
  // The difference is log(1 - 1/alpha) - log(alpha)/(alpha - 1) < 0 for alpha > 1.
  for (double a : order_grid())
    for (double R : {0.0, 1e-4, 0.1, 1.0, 10.0})
      for (double d : {1e-12, 1e-5, 0.1, 0.9}) {
        const double m = epsilon_mironov(a, R, d), i = epsilon_improved(a, R, d);
        REQUIRE(i <= m);
        if (i > 0) REQUIRE(i - m == Approx(std::log1p(-1 / a) - std::log(a) / (a - 1)).margin(1e-12));
        REQUIRE(delta_improved(a, R, 1.0) <= delta_mironov(a, R, 1.0));
      }
}

TEST_CASE("Round trips epsilon -> delta -> epsilon, per order and over the grid", "[epsilon-delta]") {
  const auto orders = order_grid();
  for (RdpConversion c : {RdpConversion::Mironov, RdpConversion::Improved}) {
    for (double a : {1.5, 4.0, 64.0})
      for (double eps : {0.5, 2.0, 8.0}) {
        const double R = 0.1;
        const double d = rdp_to_delta(c, a, R, eps);
        REQUIRE(d < 1.0);
        CHECK(rdp_to_epsilon(c, a, R, d) == Approx(eps).epsilon(1e-12));
      }
    for (double z : {0.8, 2.0, 10.0})
      for (double eps : {0.5, 1.0, 4.0}) {
        const auto R = gaussian_rdp(orders, z, 50.0);
        const DeltaAtOrder d = best_delta(orders, R, eps, c);
        if (!(d.delta > 0.0 && d.delta < 1.0)) continue;
        // Every other order has a larger delta at eps, hence a larger eps at d.delta.
        const EpsilonAtOrder e = best_epsilon(orders, R, d.delta, c);
        CHECK(e.epsilon == Approx(eps).epsilon(1e-11));
        CHECK(e.order == d.order);
      }
  }
}

TEST_CASE("Grid optimum: the best order, clamped at zero, infinite orders skipped", "[epsilon-delta]") {
  const std::vector<double> orders{2.0, 10.0, 100.0};
  const std::vector<double> R{1.0, 0.5, 20.0};
  const EpsilonAtOrder m = best_epsilon(orders, R, 1e-6, RdpConversion::Mironov);
  CHECK(m.order == 10.0);
  CHECK(m.epsilon == Approx(2.0350567286626973).epsilon(1e-14));  // computed above by hand
  const EpsilonAtOrder i = best_epsilon(orders, R, 1e-6);
  CHECK(i.order == 10.0);
  CHECK(i.epsilon == Approx(1.6738534248944215).epsilon(1e-14));
  // alpha = 64, R = 1e-6, delta = 0.5: 1e-6 + ln(63/64) - (ln 0.5 + ln 64)/63 = -0.0708 -> 0.
  CHECK(epsilon_improved(64.0, 1e-6, 0.5) == 0.0);
  CHECK(best_epsilon(std::vector<double>{64.0}, std::vector<double>{1e-6}, 0.5).epsilon == 0.0);
  // Infinite divergence at an order: that order certifies nothing.
  const std::vector<double> Rinf{kInf, 0.5, kInf};
  CHECK(best_epsilon(orders, Rinf, 1e-6).order == 10.0);
  const EpsilonAtOrder none = best_epsilon(orders, std::vector<double>(3, kInf), 1e-6);
  CHECK(std::isinf(none.epsilon));
  CHECK(std::isnan(none.order));
  CHECK(best_delta(orders, std::vector<double>(3, kInf), 1.0).delta == 1.0);
}

TEST_CASE("Mironov on a dense grid approaches the continuous optimum for the Gaussian", "[epsilon-delta]") {
  // R = rho alpha: min_alpha rho alpha + log(1/delta)/(alpha - 1) = rho + 2 sqrt(rho log(1/delta)),
  // at alpha = 1 + sqrt(log(1/delta)/rho) (Mironov 2017 Prop. 3 minimised).
  const double rho = 0.01, delta = 1e-5;
  std::vector<double> orders;
  for (double a = 1.01; a < 200; a += 0.01) orders.push_back(a);
  std::vector<double> R;
  for (double a : orders) R.push_back(rho * a);
  const EpsilonAtOrder e = best_epsilon(orders, R, delta, RdpConversion::Mironov);
  const double exact = rho + 2 * std::sqrt(rho * std::log(1 / delta));
  CHECK(e.epsilon >= exact);
  CHECK(e.epsilon == Approx(exact).epsilon(1e-6));
  CHECK(e.order == Approx(1 + std::sqrt(std::log(1 / delta) / rho)).margin(0.01));
}

TEST_CASE("Invalid conversion inputs are rejected with the value named", "[epsilon-delta]") {
  CHECK_THROWS_WITH(epsilon_mironov(1.0, 1.0, 1e-5), Catch::Contains("alpha = 1"));
  CHECK_THROWS_WITH(epsilon_improved(2.0, -0.1, 1e-5), Catch::Contains("R = -0.1"));
  CHECK_THROWS_WITH(epsilon_improved(2.0, 0.1, 1.0), Catch::Contains("delta = 1"));
  CHECK_THROWS_WITH(epsilon_improved(2.0, 0.1, 0.0), Catch::Contains("delta = 0"));
  CHECK_THROWS_WITH(delta_improved(2.0, 0.1, -1.0), Catch::Contains("epsilon = -1"));
  CHECK_THROWS_AS(epsilon_mironov(2.0, std::nan(""), 1e-5), std::invalid_argument);
  const std::vector<double> two{2.0, 3.0}, one{1.0};
  CHECK_THROWS_WITH(best_epsilon(two, one, 1e-5), Catch::Contains("2 orders but 1"));
  CHECK_THROWS_WITH(best_epsilon(std::vector<double>{}, std::vector<double>{}, 1e-5), Catch::Contains("empty"));
}

TEST_CASE("Calibrating the noise of composed Gaussian mechanisms (closed form)", "[epsilon-delta][calibration]") {
  const auto orders = order_grid();
  const double T = 1000.0;
  for (RdpConversion c : {RdpConversion::Mironov, RdpConversion::Improved})
    for (double eps : {0.5, 1.0, 3.0, 8.0})
      for (double delta : {1e-5, 1e-8}) {
        const PrivacyTarget target{eps, delta, c};
        const double z_star = gaussian_min_noise(c, orders, T, eps, delta);
        CalibrationOptions opt;
        opt.relative_tolerance = 1e-10;
        const CalibrationResult r =
            calibrate_smallest([&](double z) { return gaussian_rdp(orders, z, T); }, orders, target, 0.1, 1000.0, opt);
        REQUIRE(r.converged);
        // Meets the target, never overshoots, and lies within tolerance above the threshold.
        CHECK(r.achieved.epsilon <= eps);
        CHECK(best_epsilon(orders, gaussian_rdp(orders, r.parameter, T), delta, c).epsilon <= eps);
        CHECK(r.parameter >= z_star * (1 - 1e-14));
        CHECK(r.parameter <= z_star * (1 + 2e-10));
        CHECK(r.other_end < r.parameter);
        // Slightly less noise does not meet it.
        CHECK(best_epsilon(orders, gaussian_rdp(orders, z_star * (1 - 1e-8), T), delta, c).epsilon > eps);
      }
}

TEST_CASE("Calibration never overshoots epsilon over a sweep of targets", "[epsilon-delta][calibration]") {
  // The property test of opacus (test_get_noise_multiplier_overshoot), on coarse tolerances.
  const auto orders = order_grid();
  CalibrationOptions loose;
  loose.relative_tolerance = 1e-2;
  for (double eps = 0.2; eps < 10; eps *= 1.37) {
    const PrivacyTarget target{eps, 1e-6};
    const auto r =
        calibrate_smallest([&](double z) { return gaussian_rdp(orders, z, 100.0); }, orders, target, 0.01, 1e4, loose);
    REQUIRE(best_epsilon(orders, gaussian_rdp(orders, r.parameter, 100.0), 1e-6).epsilon <= eps);
    REQUIRE(r.parameter <= gaussian_min_noise(RdpConversion::Improved, orders, 100.0, eps, 1e-6) * 1.0100001);
  }
}

TEST_CASE("Calibrating the number of steps and a continuous training time", "[epsilon-delta][calibration]") {
  const auto orders = order_grid();
  const double z = 10.0;
  for (RdpConversion c : {RdpConversion::Mironov, RdpConversion::Improved})
    for (double eps : {1.0, 2.0, 5.0}) {
      const PrivacyTarget target{eps, 1e-5, c};
      // Closed form: T alpha_j / (2 z^2) <= eps - b_j  <=>  T <= 2 z^2 (eps - b_j) / alpha_j.
      double t_star = 0.0;
      for (double a : orders) t_star = std::max(t_star, 2 * z * z * (eps - offset(c, a, 1e-5)) / a);
      const auto count =
          calibrate_largest_count([&](std::int64_t T) { return gaussian_rdp(orders, z, static_cast<double>(T)); },
                                  orders, target, 1, 1'000'000);
      CHECK(count.count == static_cast<std::int64_t>(std::floor(t_star)));
      CHECK(count.achieved.epsilon <= eps);
      CHECK(best_epsilon(orders, gaussian_rdp(orders, z, static_cast<double>(count.count + 1)), 1e-5, c).epsilon > eps);

      const auto time =
          calibrate_largest([&](double T) { return gaussian_rdp(orders, z, T); }, orders, target, 0.01, 1e6);
      CHECK(time.parameter <= t_star * (1 + 1e-14));  // t_star itself is rounded; achieved <= eps below is exact
      CHECK(time.parameter == Approx(t_star).epsilon(1e-8));
      CHECK(time.achieved.epsilon <= eps);
    }
}

TEST_CASE("Calibration: bracket and input errors are explicit", "[epsilon-delta][calibration]") {
  const auto orders = order_grid();
  auto curve = [&](double z) { return gaussian_rdp(orders, z, 100.0); };
  const PrivacyTarget target{1.0, 1e-5};
  CHECK_THROWS_WITH(calibrate_smallest(curve, orders, target, 0.1, 1.0), Catch::Contains("raise the upper end"));
  CHECK_THROWS_WITH(calibrate_smallest(curve, orders, target, 100.0, 1000.0), Catch::Contains("lower the lower end"));
  CHECK_THROWS_AS(calibrate_smallest(curve, orders, target, 100.0, 100.0), std::invalid_argument);
  CHECK_THROWS_AS(calibrate_smallest(curve, orders, PrivacyTarget{1.0, 2.0}, 0.1, 1000.0), std::invalid_argument);
  CHECK_THROWS_AS(calibrate_smallest({}, orders, target, 0.1, 1000.0), std::invalid_argument);
  CHECK_THROWS_WITH(calibrate_smallest([](double) { return std::vector<double>{std::nan("")}; },
                                       std::vector<double>{2.0}, target, 0.1, 1.0),
                    Catch::Contains("NaN"));
  auto steps = [&](std::int64_t T) { return gaussian_rdp(orders, 10.0, static_cast<double>(T)); };
  CHECK_THROWS_WITH(calibrate_largest_count(steps, orders, target, 1, 2), Catch::Contains("raise the upper end"));
  CHECK_THROWS_WITH(calibrate_largest_count(steps, orders, target, 10'000, 20'000),
                    Catch::Contains("lower the lower end"));
}
