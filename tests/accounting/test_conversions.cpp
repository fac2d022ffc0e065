// The conversions added to Mironov's and the improved one: Asoodeh et al. 2021, the smallest of the
// single-order conversions (Best), and the zCDP route (Bun & Steinke 2016 Prop. 1.3; CKS 2020
// Cor. 13). Reference values: 60-digit mpmath evaluations of the formulas, rounded up to the next
// double (the reported value must be at least the exact one), and the exact mu-GDP profile
// (accounting/gaussian_dp.hpp) as the floor every conversion of a Gaussian RDP curve must respect.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/epsilon_over_orders.hpp"
#include "accounting/gaussian_dp.hpp"
#include "accounting/zcdp.hpp"

using namespace rdpdyn;

namespace {

struct Point {
  double alpha, rdp, x, exact_up;  // x: delta (epsilon form) or epsilon (delta form)
};

/// epsilon = ln(1 + expm1((alpha-1) R)/(alpha delta))/(alpha - 1), 60 digits, rounded up to a double.
const Point kAsoodehEpsilon[] = {
    {1.001, 3.0, 1e-05, 5707.609475796128},
    {1.01, 50.0, 1e-05, 1107.02385735189},
    {1.5, 1e-09, 1e-05, 6.666555559691242e-05},
    {2.0, 1.0, 1e-05, 11.3611147784896},
    {3.7, 0.02, 1e-10, 6.972543845032821},
    {10.0, 0.5, 1e-06, 1.7779727127822058},
    {64.0, 0.25, 1e-12, 0.6225736172709658},
    {1000.0, 0.01, 1e-05, 0.014609734521834847},
    {10000.0, 2e-06, 1e-05, 1.839994092991679e-05},
    {5.0, 300.0, 1e-05, 302.47587188813407},
    {2.0, 0.001, 0.5, 0.001},
    {200.0, 0.0001, 0.9, 5.610888582494172e-07},
};

/// delta = expm1((alpha-1) R) / (alpha expm1((alpha-1) epsilon)), 60 digits, rounded up.
const Point kAsoodehDelta[] = {
    {2.0, 1.0, 3.0, 0.04501528658519023},    {1.5, 0.3, 0.8, 0.21936575302056455},
    {10.0, 0.5, 2.0, 1.355729127287099e-07}, {100.0, 0.01, 1.5, 5.438426452146936e-67},
    {1.01, 5.0, 20.0, 0.22928107210713125},
};

const std::vector<double> kOrders{1.001, 1.01, 1.1,  1.25, 1.5,   2.0,   3.0,    5.0, 8.0,
                                  12.0,  20.0, 32.0, 64.0, 128.0, 256.0, 1024.0, 1e4};
const std::vector<double> kRdp{0.0, 1e-8, 1e-4, 0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 50.0, 300.0};
const std::vector<double> kDeltas{1e-12, 1e-8, 1e-5, 1e-3, 0.1, 0.5};

}  // namespace

TEST_CASE("Asoodeh et al.: epsilon and delta against 60-digit values, never below them", "[conversions]") {
  for (const Point& p : kAsoodehEpsilon) {
    const double e = epsilon_asoodeh(p.alpha, p.rdp, p.x);
    INFO("alpha " << p.alpha << " R " << p.rdp << " delta " << p.x);
    CHECK(e >= p.exact_up);
    CHECK(e <= p.exact_up * (1.0 + 1e-13));
  }
  for (const Point& p : kAsoodehDelta) {
    const double d = delta_asoodeh(p.alpha, p.rdp, p.x);
    INFO("alpha " << p.alpha << " R " << p.rdp << " epsilon " << p.x);
    CHECK(d >= p.exact_up);
    // ln delta is rounded up by 8 u times its terms' magnitudes: a relative 1e-13 of delta at most here.
    CHECK(d <= p.exact_up * (1.0 + 1e-12));
  }
  // The worked example: alpha = 2, R = 1, delta = 1e-5 gives ln(1 + (e - 1)/(2e-5)) = 11.3611,
  // above the improved 11.1266 (test_epsilon_delta.cpp) and below Mironov's 12.5129.
  CHECK(epsilon_asoodeh(2.0, 1.0, 1e-5) < epsilon_mironov(2.0, 1.0, 1e-5));
  CHECK(epsilon_asoodeh(2.0, 1.0, 1e-5) > epsilon_improved(2.0, 1.0, 1e-5));
  // Edges: R = 0 is delta = 0 at epsilon = 0; R infinite gives nothing; epsilon = 0 needs delta 1.
  CHECK(epsilon_asoodeh(3.0, 0.0, 1e-5) == 0.0);
  CHECK(delta_asoodeh(3.0, 0.0, 0.0) == 0.0);
  CHECK(delta_asoodeh(3.0, 0.5, 0.0) == 1.0);
  CHECK(std::isinf(epsilon_asoodeh(3.0, std::numeric_limits<double>::infinity(), 1e-5)));
  CHECK_THROWS_AS(epsilon_asoodeh(1.0, 0.5, 1e-5), std::invalid_argument);
  CHECK_THROWS_AS(epsilon_asoodeh(2.0, -0.5, 1e-5), std::invalid_argument);
  CHECK_THROWS_AS(epsilon_asoodeh(2.0, 0.5, 1.0), std::invalid_argument);
}

TEST_CASE("Asoodeh et al.: round trip epsilon -> delta -> epsilon", "[conversions]") {
  for (double a : {1.01, 1.5, 4.0, 64.0})
    for (double R : {0.01, 0.1, 2.0})
      for (double eps : {0.5, 2.0, 8.0}) {
        const double d = delta_asoodeh(a, R, eps);
        if (!(d > 1e-300 && d < 1.0)) continue;
        CHECK(epsilon_asoodeh(a, R, d) == Approx(eps).epsilon(1e-11));
      }
}

TEST_CASE(
    "Asoodeh et al. is never above Mironov's; against the improved conversion it wins exactly "
    "where e^{(alpha-1)R} (1 - (1-1/alpha)^{alpha-1}) < 1 - alpha delta",
    "[conversions]") {
  // Measured on a grid of orders, R and delta (not assumed): Mironov's bound ln(e^t/delta)/(alpha-1)
  // exceeds ln(1 + (e^t - 1)/(alpha delta))/(alpha-1) whenever e^t >= 1 (docs/math.md section 4.2).
  // The comparison with the improved conversion is e^t c/(alpha delta) against
  // 1 + (e^t - 1)/(alpha delta), c = (1 - 1/alpha)^{alpha-1}: Asoodeh wins iff e^t (1 - c) < 1 - alpha delta.
  int asoodeh_wins = 0, improved_wins = 0;
  for (double a : kOrders)
    for (double R : kRdp)
      for (double d : kDeltas) {
        const double as = epsilon_asoodeh(a, R, d), mi = epsilon_mironov(a, R, d), im = epsilon_improved(a, R, d);
        INFO("alpha " << a << " R " << R << " delta " << d);
        REQUIRE(as <= mi);
        const double t = (a - 1.0) * R, c = std::pow(1.0 - 1.0 / a, a - 1.0);
        const double lhs = std::exp(t) * (1.0 - c), rhs = 1.0 - a * d;
        if (im == 0.0) continue;  // the improved conversion clamped at 0: nothing to compare
        if (lhs < rhs * (1.0 - 1e-6)) {
          CHECK(as < im);
          ++asoodeh_wins;
        } else if (lhs > rhs * (1.0 + 1e-6)) {
          CHECK(as > im);
          ++improved_wins;
        }
      }
  // Both regions are populated on this grid (measured: Asoodeh wins at small alpha or small R).
  CHECK(asoodeh_wins > 50);
  CHECK(improved_wins > 50);
  // Near the order minimising epsilon the improved conversion wins: Gaussian curve, mu = 1, delta = 1e-5.
  const double delta = 1e-5, rho = 0.5;
  const EpsilonAtOrder im = minimise_epsilon([&](double a) { return a * rho; }, delta);
  const EpsilonAtOrder as =
      minimise_epsilon([&](double a) { return a * rho; }, delta, kDefaultMaxOrder, RdpConversion::Asoodeh);
  CHECK(im.epsilon < as.epsilon);
}

TEST_CASE("Best: the smallest single-order conversion, labelled with the one that attained it", "[conversions]") {
  // alpha = 1.01, R = 50, delta = 1e-5: Asoodeh 1107.02 against the improved 1195.68 (60 digits).
  const ConvertedEpsilon small_order = epsilon_best_conversion(1.01, 50.0, 1e-5);
  CHECK(small_order.conversion == RdpConversion::Asoodeh);
  CHECK(small_order.epsilon == epsilon_asoodeh(1.01, 50.0, 1e-5));
  const ConvertedEpsilon usual = epsilon_best_conversion(10.0, 0.5, 1e-6);
  CHECK(usual.conversion == RdpConversion::Improved);
  CHECK(usual.epsilon == epsilon_improved(10.0, 0.5, 1e-6));
  CHECK(rdp_to_epsilon(RdpConversion::Best, 1.01, 50.0, 1e-5) == small_order.epsilon);
  CHECK(rdp_to_delta(RdpConversion::Best, 2.0, 1.0, 3.0) ==
        std::min(delta_improved(2.0, 1.0, 3.0), delta_asoodeh(2.0, 1.0, 3.0)));
  // On a grid the label follows the winning order's conversion.
  const std::vector<double> orders{1.01, 10.0}, R{50.0, 0.5};
  const EpsilonAtOrder g = best_epsilon(orders, R, 1e-6, RdpConversion::Best);
  CHECK(g.order == 10.0);
  CHECK(g.conversion == RdpConversion::Improved);
  const EpsilonAtOrder only_small =
      best_epsilon(std::vector<double>{1.01}, std::vector<double>{50.0}, 1e-5, RdpConversion::Best);
  CHECK(only_small.conversion == RdpConversion::Asoodeh);
  CHECK(std::string(conversion_name(RdpConversion::Asoodeh)) == "asoodeh");
  CHECK(std::string(conversion_name(RdpConversion::Zcdp)) == "zcdp");
  CHECK_THROWS_AS(rdp_to_epsilon(RdpConversion::Zcdp, 2.0, 1.0, 1e-5), std::invalid_argument);
}

TEST_CASE("Bun & Steinke Prop. 1.3 by hand; the zCDP route never above it nor the windowed minimum", "[conversions]") {
  // rho = 0.5, delta = 1e-5: 0.5 + 2 sqrt(0.5 ln 1e5) = 5.29852591218808 (60 digits).
  CHECK(epsilon_zcdp_bun_steinke(0.5, 1e-5) >= 5.2985259121880812);
  CHECK(epsilon_zcdp_bun_steinke(0.5, 1e-5) == Approx(5.2985259121880812).epsilon(1e-14));
  CHECK(epsilon_zcdp_bun_steinke(0.0, 1e-5) == 0.0);
  CHECK(epsilon_zcdp(0.0, 1e-5).epsilon == 0.0);
  CHECK_THROWS_AS(epsilon_zcdp(-1.0, 1e-5), std::invalid_argument);
  for (double rho : {1e-14, 1e-10, 1e-6, 1e-3, 0.05, 0.5, 5.0, 100.0})
    for (double delta : {1e-10, 1e-5, 1e-2}) {
      INFO("rho " << rho << " delta " << delta);
      const EpsilonAtOrder z = epsilon_zcdp(rho, delta);
      const EpsilonAtOrder windowed =
          minimise_epsilon([&](double a) { return a * rho; }, delta, kDefaultMaxOrder, RdpConversion::Best);
      CHECK(z.conversion == RdpConversion::Zcdp);
      CHECK(z.epsilon <= epsilon_zcdp_bun_steinke(rho, delta));
      // The zCDP route searches a range containing [1.001, 1e4]; Brent's tolerance (2e-6 in ln(alpha - 1))
      // lets two searches of the same minimum differ by a relative 1e-9 at most.
      CHECK(z.epsilon <= windowed.epsilon * (1.0 + 1e-9));
      // Bun & Steinke = Mironov at its best order: never below the improved minimum over all orders.
      CHECK(epsilon_zcdp_bun_steinke(rho, delta) >= z.epsilon);
    }
  // Where the best order leaves the window (rho = 1e-12, delta = 1e-5: Bun & Steinke's order is
  // 1 + sqrt(ln(1e5)/1e-12) = 3.4e6), the route is tighter than the minimisation over [1.001, 1e4].
  const double rho = 1e-12, delta = 1e-5;
  const EpsilonAtOrder z = epsilon_zcdp(rho, delta);
  const EpsilonAtOrder windowed =
      minimise_epsilon([&](double a) { return a * rho; }, delta, kDefaultMaxOrder, RdpConversion::Best);
  CHECK(z.order > 1e4);
  CHECK(z.epsilon < 0.5 * windowed.epsilon);
}

TEST_CASE("Every conversion of a Gaussian RDP curve is at least the exact mu-GDP epsilon", "[conversions]") {
  // A mu-GDP mechanism (the Gaussian mechanism of sensitivity mu at unit noise) has R = alpha mu^2/2
  // exactly; the exact profile (Dong, Roth & Su 2022 Cor. 2.13) is the smallest valid epsilon, so a
  // conversion below it would certify a false guarantee. gdp_epsilon is rounded up: the check is
  // stricter than needed by its (tiny) error bound.
  for (double mu : {0.05, 0.3, 1.0, 2.0, 5.0})
    for (double delta : {1e-10, 1e-5, 1e-3, 0.1}) {
      const double exact = gdp_epsilon(mu, delta), rho = mu * mu / 2.0;
      INFO("mu " << mu << " delta " << delta << " exact " << exact);
      for (double a : kOrders) {
        const double R = a * rho;
        CHECK(epsilon_mironov(a, R, delta) >= exact);
        CHECK(epsilon_improved(a, R, delta) >= exact);
        CHECK(epsilon_asoodeh(a, R, delta) >= exact);
      }
      CHECK(epsilon_zcdp_bun_steinke(rho, delta) >= exact);
      const EpsilonAtOrder z = epsilon_zcdp(rho, delta);
      CHECK(z.epsilon >= exact);
      for (RdpConversion c :
           {RdpConversion::Mironov, RdpConversion::Improved, RdpConversion::Asoodeh, RdpConversion::Best})
        CHECK(minimise_epsilon([&](double a) { return a * rho; }, delta, kDefaultMaxOrder, c).epsilon >= exact);
    }
  // The gap the f-DP entries close (docs/analyses.md section 4): mu = 1, delta = 1e-5.
  const double exact = gdp_epsilon(1.0, 1e-5);
  const double renyi = epsilon_zcdp(0.5, 1e-5).epsilon;
  CHECK(renyi / exact > 1.05);
}
