// Gaussian-DP accounting (accounting/gaussian_dp.hpp) against 50-digit references. Every reference
// value below was computed with mpmath 1.3.0 at mp.dps = 50:
//   delta(mu, eps) = ncdf(-eps/mu + mu/2) - exp(eps) ncdf(-eps/mu - mu/2)       (DRS Cor 2.13)
//   epsilon(mu, delta): bisection (300 halvings) of delta(mu, .) = delta on [0, hi]
//   mills(x) = ncdf(-x) / npdf(x)
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "accounting/gaussian_dp.hpp"

using namespace rdpdyn;

namespace {
double rel(double x, double ref) { return ref == 0.0 ? std::fabs(x) : std::fabs(x - ref) / std::fabs(ref); }
}  // namespace

TEST_CASE("GDP: the Mills ratio on both sides of the erfc / continued-fraction switch", "[gdp][accounting]") {
  struct Ref {
    double x, m;
  };
  const Ref refs[] = {{-2.0, 18.100247711126152662},
                      {0.0, 1.2533141373155002512},
                      {1.0, 0.65567954241879847154},
                      {2.9, 0.31344865828623178174},
                      {3.1, 0.2961912479915270135},
                      {3.0, 0.30459029871010329573},
                      {4.0, 0.23665238291356067062},
                      {5.5, 0.17632298575710270488},
                      {6.9, 0.14205765169111067932},
                      {7.1, 0.13820281600096622029},
                      {10.0, 0.099028596471731921395},
                      {35.0, 0.028548161843509268901},
                      {1000.0, 0.000999999000002999985},
                      // the Taylor table's midpoints and its end (mpmath 30 digits, 2026-12-08)
                      {3.0078125, 0.3039180319276788981378},
                      {7.8753, 0.1250237485451013549008},
                      {11.9921875, 0.08281948108497679261535},
                      {11.999, 0.08277309161916920195872},
                      {12.0, 0.08276628650136917725227}};
  for (const auto& r : refs) {
    INFO("x = " << r.x);
    CHECK(rel(normal_mills_ratio(r.x), r.m) < 4e-15);
  }
}

TEST_CASE("Mills ratio: the Taylor table from 3 to 12 within 1.2 u of a long double continued fraction",
          "[gdp][accounting]") {
  // 700 terms of Laplace's fraction in long double are converged to the long double at x >= 3
  // (the same value as 4000 terms); the table claims 1.0 u (accounting/gaussian_dp.cpp).
  auto fraction = [](long double x) {
    long double t = x;
    for (int k = 700; k >= 1; --k) t = x + k / t;
    return 1.0L / t;
  };
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {
    const double x = 3.0 + 9.0 * i / 100000.0 + 1e-9 * (i % 7);
    const long double truth = fraction(x);
    worst = std::max(worst, static_cast<double>(fabsl((normal_mills_ratio(x) - truth) / truth)));
  }
  CHECK(worst <= 1.2 * 0x1p-53);
}

TEST_CASE("GDP: delta(epsilon) of DRS Cor 2.13 against mpmath, also where it cancels or underflows",
          "[gdp][accounting]") {
  struct Ref {
    double mu, eps, delta;
  };
  const Ref refs[] = {{0.5, 0.0, 0.19741265136584744848},
                      {0.5, 1.0, 0.0068295949831145753842},
                      {1.0, 0.5, 0.23842170813487662832},
                      {1.0, 3.0, 0.0015371853694009548469},
                      {2.0, 1.0, 0.50986166005467015308},
                      {0.1, 0.5, 6.8565824558387371436e-9},
                      {0.01, 0.05, 5.4814402007468725614e-10},
                      {3.0, 10.0, 0.018589514315857806058},
                      {0.2, 5.0, 2.9548333577107147769e-139},
                      {0.001, 0.004, 7.1595624349382469315e-9},
                      {50.0, 100.0, 1.0}};
  for (const auto& r : refs) {
    INFO("mu = " << r.mu << ", epsilon = " << r.eps);
    // The header's error bound: about u (a/mu + a^2), a = epsilon/mu - mu/2 (the difference m(a) - m(b)
    // cancels for small mu; ln delta ~ -a^2/2 is exponentiated).
    const double a = std::max(1.0, r.eps / r.mu - r.mu / 2);
    CHECK(rel(gdp_delta(r.mu, r.eps), r.delta) < 64 * 0x1p-53 * (a / r.mu + a * a));
  }
  // ln delta where delta underflows: the Mills-ratio form in log space.
  struct LogRef {
    double mu, eps, log_delta;
  };
  const LogRef logs[] = {
      {0.1, 5.0, -1258.5480169642432778}, {0.5, 40.0, -3190.4078477220197751}, {1.0, 800.0, -319614.41316628539409}};
  for (const auto& r : logs) {
    INFO("mu = " << r.mu << ", epsilon = " << r.eps);
    CHECK(rel(gdp_log_delta(r.mu, r.eps), r.log_delta) < 1e-14);
  }
  CHECK(gdp_delta(0.0, 1.0) == 0.0);
  CHECK(gdp_delta(std::numeric_limits<double>::infinity(), 1.0) == 1.0);
  CHECK_THROWS_AS(gdp_delta(-1.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(gdp_delta(1.0, -1.0), std::invalid_argument);
}

TEST_CASE("GDP: delta(epsilon) rounded outward is an upper bound, a tight one", "[gdp][accounting]") {
  // 50-digit mpmath values of Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (the references above).
  struct Ref {
    double mu, eps, delta;
  };
  const Ref refs[] = {{0.5, 0.0, 0.19741265136584744848},      {0.5, 1.0, 0.0068295949831145753842},
                      {1.0, 0.5, 0.23842170813487662832},      {1.0, 3.0, 0.0015371853694009548469},
                      {2.0, 1.0, 0.50986166005467015308},      {0.1, 0.5, 6.8565824558387371436e-9},
                      {0.01, 0.05, 5.4814402007468725614e-10}, {3.0, 10.0, 0.018589514315857806058},
                      {0.2, 5.0, 2.9548333577107147769e-139},  {0.001, 0.004, 7.1595624349382469315e-9}};
  for (const auto& r : refs) {
    INFO("mu = " << r.mu << ", epsilon = " << r.eps);
    const double d = gdp_delta_upper(r.mu, r.eps);
    CHECK(d >= r.delta);
    CHECK(d >= gdp_delta(r.mu, r.eps));
    CHECK(d <= r.delta * (1.0 + 1e-9));
    CHECK(d <= 1.0);
  }
  CHECK(gdp_delta_upper(0.0, 1.0) == 0.0);
  CHECK(gdp_delta_upper(std::numeric_limits<double>::infinity(), 1.0) == 1.0);
  // A mu too small to evaluate the profile's difference: delta(0) <= mu / sqrt(2 pi) answers.
  CHECK(gdp_delta_upper(1e-300, 0.0) <= 1e-300);
  CHECK(gdp_delta_upper(1e-300, 0.0) > 0.0);
  // Consistent with the inverse: at gdp_epsilon(mu, delta) the certified delta is at most delta.
  CHECK(gdp_delta_upper(1.0, gdp_epsilon(1.0, 1e-5)) <= 1e-5 * (1.0 + 1e-9));
  CHECK_THROWS_AS(gdp_delta_upper(-1.0, 1.0), std::invalid_argument);
  CHECK_THROWS_AS(gdp_delta_upper(1.0, -1.0), std::invalid_argument);
}

TEST_CASE("GDP: epsilon(delta) inverts the profile, rounded outward", "[gdp][accounting]") {
  struct Ref {
    double mu, delta, eps;
  };
  const Ref refs[] = {{0.5, 1e-05, 1.9930914044151196213},        {1.0, 1e-05, 4.3771780956812246086},
                      {0.0397995, 1e-05, 0.12473465588106645163}, {2.0, 1e-06, 10.997151214220651134},
                      {0.1, 1e-10, 0.57464030752631768323},       {5.0, 1e-05, 33.103732335922465162},
                      {0.01, 0.001, 0.0090480725930387980177},    {1.0, 0.5, 0.0}};
  for (const auto& r : refs) {
    INFO("mu = " << r.mu << ", delta = " << r.delta);
    const double eps = gdp_epsilon(r.mu, r.delta);
    CHECK(eps >= r.eps);                          // an upper bound of the exact value
    CHECK(eps - r.eps <= 1e-12 * (1.0 + r.eps));  // and a tight one
    if (eps > 0.0) CHECK(gdp_delta(r.mu, eps) <= r.delta);
  }
  CHECK(gdp_epsilon(0.0, 1e-5) == 0.0);
  CHECK(std::isinf(gdp_epsilon(std::numeric_limits<double>::infinity(), 1e-5)));
  // Extremes the CLI mutation run reached (algorithm.sensitivity = 1e-300 or 1.8e308): they hung.
  // A tiny mu needs no epsilon (delta(0) <= mu / sqrt(2 pi)); a mu whose epsilon overflows gets
  // the empty bound +inf; in between, the result is finite and certified.
  CHECK(gdp_epsilon(1e-300, 1e-5) == 0.0);
  CHECK(gdp_epsilon(2.5e-5, 1e-5) == 0.0);  // 2.5e-5 / sqrt(2 pi) = 9.97e-6
  const double small = gdp_epsilon(1e-7, 1e-12);
  CHECK(small > 0.0);
  CHECK(small < 1e-5);
  CHECK(gdp_delta(1e-7, small) <= 1e-12);
  CHECK(std::isinf(gdp_epsilon(1e200, 1e-5)));
  CHECK(std::isinf(gdp_epsilon(1.7976931348623157e308, 1e-5)));
  const double large = gdp_epsilon(1e150, 1e-5);
  CHECK(std::isfinite(large));
  CHECK(large >= 0.5e300);
  CHECK_THROWS_AS(gdp_epsilon(1.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(gdp_epsilon(1.0, 1.0), std::invalid_argument);
}

TEST_CASE("GDP: Rényi implication and composition; the exact profile beats every RDP conversion", "[gdp][accounting]") {
  CHECK(gdp_rdp(0.3, 4.0) == Approx(0.5 * 4.0 * 0.09).epsilon(1e-15));
  CHECK(gdp_compose(3.0, 4.0) == 5.0);
  // On the RDP curve alpha mu^2/2 of the same mechanism, the improved conversion minimised over a
  // fine grid of orders stays above the exact profile (it is a valid but lossy route).
  for (double mu : {0.05, 0.3, 1.0, 3.0}) {
    std::vector<double> orders, R;
    for (double a = 1.01; a < 2000.0; a *= 1.01) orders.push_back(a), R.push_back(gdp_rdp(mu, a));
    const double rdp_eps = best_epsilon(orders, R, 1e-5).epsilon;
    INFO("mu = " << mu);
    CHECK(gdp_epsilon(mu, 1e-5) < rdp_eps);
  }
}

TEST_CASE("GDP: epsilon of a uniform mixture of mu-GDP pairs (joint convexity), against mpmath", "[gdp][accounting]") {
  // mpmath (50 digits): the root of (delta_0.5(e) + delta_1(e) + delta_2(e))/3 = 1e-5 is
  // 9.48031906399364576337..., of delta_2(e) = 1e-5 alone 9.99725614643430039654...
  const std::vector<double> mus{0.5, 1.0, 2.0};
  const double eps = gdp_mixture_epsilon(mus, 1e-5);
  CHECK(eps >= 9.4803190639936457);
  CHECK(eps <= 9.4803190639936457 * (1.0 + 1e-12));
  CHECK(eps < gdp_epsilon(2.0, 1e-5));  // averaging beats the worst pair
  // One pair: the same as gdp_epsilon (both certified, both tight).
  for (double mu : {0.01, 0.3, 1.0, 5.0}) {
    const std::vector<double> one{mu};
    CHECK(gdp_mixture_epsilon(one, 1e-6) >= gdp_epsilon(mu, 1e-6) * (1.0 - 1e-12));
    CHECK(gdp_mixture_epsilon(one, 1e-6) <= gdp_epsilon(mu, 1e-6) * (1.0 + 1e-12));
  }
  // Pairs with mu = 0 (a record in no batch) count with delta = 0.
  const std::vector<double> with_zero{0.0, 2.0};
  const double half = gdp_mixture_epsilon(with_zero, 1e-5);
  CHECK(gdp_delta(2.0, half) / 2.0 <= 1e-5);
  CHECK(gdp_delta(2.0, half * (1.0 - 1e-9)) / 2.0 > 1e-5);
  const std::vector<double> none;
  CHECK(gdp_mixture_epsilon(none, 1e-5) == 0.0);
  const std::vector<double> negative{-1.0};
  CHECK_THROWS_AS(gdp_mixture_epsilon(negative, 1e-5), std::invalid_argument);
}
