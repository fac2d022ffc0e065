// The sampled Gaussian mechanism S_alpha(q, sigma) (accounting/sampled_gaussian.hpp) against its
// defining integral, integrated here in 50-digit arithmetic, and against the exact finite binomial
// sum for integer orders; identities, monotonicity, input validation.
// Boost 1.74's tanh_sinh falls through from its left-endpoint branch and can then trip its own
// "position != a" assertion in builds without NDEBUG (the integrand is finite there, so the value is
// unaffected): keep Boost's internal asserts out of this test.
#define BOOST_DISABLE_ASSERTS
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/quadrature/tanh_sinh.hpp>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "accounting/sampled_gaussian.hpp"

using namespace rdpdyn;
using mp = boost::multiprecision::cpp_bin_float_50;

namespace {

// (alpha - 1) D_alpha of the SGM pair by quadrature of its defining integral (MTZ19 Sec. 3):
//   A-direction (MTZ19 A_alpha):  int N(0,s^2)(x) ((1-q) + q exp((2x-1)/(2 s^2)))^alpha dx,
//   B-direction (A&T Def. 2.10):  int N(0,s^2)(x) ((1-q) + q exp((2x-1)/(2 s^2)))^(1-alpha) dx,
// i.e. E_{N0}[(mix/N0)^alpha] and E_{N0}[(mix/N0)^(1-alpha)] = int N0^alpha mix^(1-alpha).
// tanh-sinh on pieces cut at the features of the integrand (0, 1, alpha, z0) and
// extended 20 sigma beyond them, where the integrand is below e^{-200} of its peak.
template <class Real>
Real log_moment_quadrature(double q_in, double s_in, double alpha_in, bool a_direction, Real tol) {
  using std::exp;
  using std::log;
  using std::sqrt;
  const Real q = q_in, s = s_in, alpha = alpha_in;
  const Real expo = a_direction ? alpha : Real(1) - alpha;
  const Real norm = Real(1) / (s * sqrt(2 * boost::math::constants::pi<Real>()));
  auto f = [&](Real x) {
    const Real mix_ratio = (1 - q) + q * exp((2 * x - 1) / (2 * s * s));
    return Real(norm * exp(-x * x / (2 * s * s) + expo * log(mix_ratio)));
  };
  const double z0 = s_in * s_in * std::log(1.0 / q_in - 1.0) + 0.5;
  std::vector<double> cuts = {0.0, 1.0, alpha_in, std::isfinite(z0) ? z0 : 0.0};
  std::sort(cuts.begin(), cuts.end());
  cuts.insert(cuts.begin(), cuts.front() - 20.0 * s_in);
  cuts.push_back(cuts.back() + 20.0 * s_in);
  boost::math::quadrature::tanh_sinh<Real> integrator(20);
  Real total = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    if (cuts[i + 1] > cuts[i] + 1e-6) total += integrator.integrate(f, Real(cuts[i]), Real(cuts[i + 1]), tol);
  return log(total);
}

// 50 digits for the accuracy checks; long double for the direction comparison.
double S_quadrature(double q, double s, double alpha) {
  return static_cast<double>(log_moment_quadrature<mp>(q, s, alpha, true, mp(1e-30)) / (alpha - 1.0));
}
double S_quadrature_fast(double q, double s, double alpha, bool a_direction) {
  return static_cast<double>(log_moment_quadrature<long double>(q, s, alpha, a_direction, 1e-15L) / (alpha - 1.0));
}

// Integer order: the finite binomial sum A = sum_k C(a,k)(1-q)^{a-k} q^k exp((k^2-k)/(2 s^2))
// (MTZ19 Sec. 3.3), evaluated directly in 50 digits (no log-space, no cancellation trick).
double S_binomial_exact(double q_in, double s_in, int a) {
  const mp q = q_in, s = s_in;
  mp total = 0, binom = 1;
  for (int k = 0; k <= a; ++k) {
    total += binom * pow(1 - q, a - k) * pow(q, k) * exp(mp(k * k - k) / (2 * s * s));
    binom = binom * (a - k) / (k + 1);
  }
  return static_cast<double>(log(total) / (a - 1));
}

// D_alpha(P || P') for P = (1-q) N(a, z^2 I) + q N(c, z^2 I), P' = (1-q) N(a, z^2 I) + q N(c', z^2 I)
// in R^2 (the pair one step of fixed-size sampling without replacement reduces to under replace
// adjacency, analyses/composition.cpp): int P^alpha P'^(1-alpha), product Gauss-Legendre
// on a box that holds the tilted mass (around alpha c + (1 - alpha) a).
using Point = std::array<double, 2>;
double three_point_rdp(double q, double z, double alpha, Point a, Point c, Point cp) {
  const auto& X = boost::math::quadrature::gauss<double, 20>::abscissa();
  const auto& W = boost::math::quadrature::gauss<double, 20>::weights();
  const double half = 12.0 * z + 1.5 * alpha + 1.0;
  const int cells = 40;
  const double h = 2.0 * half / cells;
  std::vector<double> x, w;
  for (int i = 0; i < cells; ++i) {
    const double m = -half + (i + 0.5) * h;
    for (std::size_t j = 0; j < X.size(); ++j) {
      x.push_back(m + X[j] * h / 2);
      w.push_back(W[j] * h / 2);
      if (X[j] != 0) {
        x.push_back(m - X[j] * h / 2);
        w.push_back(W[j] * h / 2);
      }
    }
  }
  auto g = [&](double u, double v, const Point& p) {
    return std::exp(-((u - p[0]) * (u - p[0]) + (v - p[1]) * (v - p[1])) / (2 * z * z));
  };
  double total = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double na = g(x[i], x[j], a);
      const double P = (1 - q) * na + q * g(x[i], x[j], c), Pp = (1 - q) * na + q * g(x[i], x[j], cp);
      if (P > 0 && Pp > 0) total += w[i] * w[j] * std::exp(alpha * std::log(P) + (1 - alpha) * std::log(Pp));
    }
  return std::log(total / (2 * boost::math::constants::pi<double>() * z * z)) / (alpha - 1);
}

// The same on the line (a = 0), adaptive Gauss-Kronrod in long double.
double three_point_rdp_1d(double q, double z, double alpha, double c, double cp) {
  auto g = [&](long double u, long double m) { return std::exp(-(u - m) * (u - m) / (2.0L * z * z)); };
  auto f = [&](long double u) {
    const long double P = (1 - q) * g(u, 0) + q * g(u, c), Pp = (1 - q) * g(u, 0) + q * g(u, cp);
    return (P > 0 && Pp > 0) ? std::exp(alpha * std::log(P) + (1 - alpha) * std::log(Pp)) : 0.0L;
  };
  const long double half = 14.0L * z + 1.5L * alpha + 1.0L;
  long double total = 0;
  const int pieces = 16;
  for (int i = 0; i < pieces; ++i) {
    const long double lo = -half + 2 * half * i / pieces, hi = -half + 2 * half * (i + 1) / pieces;
    total += boost::math::quadrature::gauss_kronrod<long double, 31>::integrate(f, lo, hi, 8, 1e-16L);
  }
  return static_cast<double>(std::log(total / (std::sqrt(2 * boost::math::constants::pi<long double>()) * z)) /
                             (alpha - 1));
}

}  // namespace

TEST_CASE("S_alpha matches 50-digit quadrature of its defining integral", "[sgm]") {
  // (q, sigma, alpha): integer and fractional orders, tiny q (A - 1 ~ 1e-13), q above and at 1/2
  // (the other stabilised series / none), large orders, orders close to 1.
  struct Case {
    double q, s, a;
  };
  const Case cases[] = {
      {0.01, 1.0, 2.0}, {0.01, 1.0, 8.0},  {0.1, 2.0, 10.0},  {0.05, 0.8, 3.7},   {0.2, 1.5, 1.5},  {1e-5, 1.0, 2.5},
      {1e-6, 0.8, 3.0}, {1e-7, 2.0, 7.25}, {0.6, 1.2, 5.25},  {0.5, 1.0, 2.5},    {0.9, 3.0, 1.75}, {0.01, 2.0, 100.5},
      {0.3, 0.7, 64.0}, {0.1, 1.0, 1.01},  {0.001, 0.5, 1.1}, {0.02, 5.0, 256.0},
  };
  for (const auto& c : cases) {
    INFO("q = " << c.q << ", sigma = " << c.s << ", alpha = " << c.a);
    const double expected = S_quadrature(c.q, c.s, c.a);
    CHECK(sampled_gaussian_rdp(c.q, c.s, c.a) == Approx(expected).epsilon(1e-12).margin(0));
  }
}

TEST_CASE("Integer orders: binomial expansion equals the exact finite sum and the two-series form", "[sgm]") {
  for (double q : {1e-6, 0.003, 0.2, 0.5, 0.77})
    for (double s : {0.6, 1.0, 4.0})
      for (int a : {2, 3, 5, 16, 40}) {
        INFO("q = " << q << ", sigma = " << s << ", alpha = " << a);
        const double exact = S_binomial_exact(q, s, a);
        CHECK(sampled_gaussian_rdp(q, s, a, SgmExpansion::Binomial) == Approx(exact).epsilon(1e-11));
        CHECK(sampled_gaussian_rdp(q, s, a, SgmExpansion::TwoSeries) == Approx(exact).epsilon(1e-11));
      }
}

TEST_CASE("Fractional orders are continuous across integers", "[sgm]") {
  // The two-series value at alpha = k +- 1e-9 must agree with the binomial value at k.
  for (int a : {2, 3, 9})
    for (double q : {0.01, 0.4}) {
      const double at = sampled_gaussian_rdp(q, 1.3, a);
      CHECK(sampled_gaussian_rdp(q, 1.3, a + 1e-9) == Approx(at).epsilon(1e-7));
      CHECK(sampled_gaussian_rdp(q, 1.3, a - 1e-9) == Approx(at).epsilon(1e-7));
    }
}

TEST_CASE("Regression values computed independently of this code", "[sgm]") {
  // S_alpha (A-direction), computed independently of this code (the fractional order also by
  // quadrature).
  CHECK(sampled_gaussian_rdp(0.01, 1.0, 2.0) == Approx(1.7181342207e-4).epsilon(1e-9));
  CHECK(sampled_gaussian_rdp(0.01, 1.0, 8.0) == Approx(8.9364390761e-4).epsilon(1e-9));
  CHECK(sampled_gaussian_rdp(0.1, 2.0, 10.0) == Approx(1.8624254258e-2).epsilon(1e-9));
  CHECK(sampled_gaussian_rdp(0.05, 0.8, 3.7) == Approx(3.7505227116e-2).epsilon(1e-9));
  CHECK(sampled_gaussian_rdp(1.0, 2.0, 4.0) == Approx(0.5).epsilon(1e-15));
}

TEST_CASE("q = 1 is the Gaussian mechanism, q = 0 is nothing", "[sgm]") {
  // D_alpha(N(1, s^2) || N(0, s^2)) = alpha / (2 s^2) (Gil et al. 2013; Mironov 2017 Prop. 7).
  for (double a : {1.5, 2.0, 7.3, 64.0})
    for (double s : {0.3, 1.0, 9.0}) {
      CHECK(sampled_gaussian_rdp(1.0, s, a) == Approx(a / (2 * s * s)).epsilon(1e-15));
      CHECK(sampled_gaussian_rdp(0.0, s, a) == 0.0);
    }
  // And the limit q -> 1 from below is continuous (series path at q = 1 - 1e-12).
  CHECK(sampled_gaussian_rdp(1.0 - 1e-12, 1.2, 3.5) == Approx(3.5 / (2 * 1.44)).epsilon(1e-9));
  CHECK(sampled_gaussian_rdp(1.0 - 1e-12, 1.2, 4.0) == Approx(4.0 / (2 * 1.44)).epsilon(1e-9));
}

TEST_CASE("Tiny q keeps full relative accuracy: S ~ C(alpha,2) q^2 (e^{1/s^2} - 1) / (alpha - 1)", "[sgm]") {
  // Leading term of A - 1 as q -> 0 (the k = 2 term of the binomial series; its generalised-
  // binomial analogue for fractional alpha); next terms are O(q^3).
  for (double a : {2.0, 2.5, 6.0})
    for (double s : {0.7, 1.0, 3.0}) {
      const double q = 1e-9;
      const double lead = a * (a - 1) / 2 * q * q * std::expm1(1 / (s * s)) / (a - 1);
      CHECK(sampled_gaussian_rdp(q, s, a) == Approx(lead).epsilon(1e-6));
    }
}

TEST_CASE("S_alpha is non-decreasing in alpha and in q", "[sgm]") {
  // Rényi divergences are non-decreasing in the order (van Erven & Harremoës 2014, Thm 3); the
  // SGM divergence grows with the sampling probability (MTZ19).
  const std::vector<double> orders = {1.01, 1.1, 1.25, 1.5, 1.75, 2,  2.5, 3,  3.5,    4,   5,
                                      6.5,  8,   12,   16,  24.5, 32, 48,  64, 100.25, 128, 256};
  for (double q : {1e-4, 0.01, 0.1, 0.5, 0.8})
    for (double s : {0.5, 1.0, 2.0, 8.0}) {
      double prev = 0.0;
      for (double a : orders) {
        const double v = sampled_gaussian_rdp(q, s, a);
        INFO("q = " << q << ", sigma = " << s << ", alpha = " << a);
        CHECK(v >= prev * (1 - 1e-13));
        prev = v;
      }
    }
  for (double a : {1.5, 2.0, 5.5, 32.0})
    for (double s : {0.5, 1.0, 4.0}) {
      double prev = 0.0;
      for (double q : {0.0, 1e-8, 1e-5, 1e-3, 0.01, 0.05, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0}) {
        const double v = sampled_gaussian_rdp(q, s, a);
        INFO("q = " << q << ", sigma = " << s << ", alpha = " << a);
        CHECK(v >= prev);
        prev = v;
      }
    }
}

TEST_CASE("The computed A-direction bounds A&T's Def. 2.10 (B-direction)", "[sgm]") {
  // A&T Def. 2.10 is D_alpha(N(0,s^2) || mix) (MTZ19's B_alpha); MTZ19 Sec. 3: A_alpha >= B_alpha.
  // Reference value (quadrature): at (0.1, 2, 10) the B-direction is 0.011120.
  CHECK(S_quadrature_fast(0.1, 2.0, 10.0, false) == Approx(0.011120).epsilon(1e-4));
  for (double q : {0.01, 0.1, 0.4, 0.7})
    for (double s : {0.7, 2.0})
      for (double a : {1.5, 2.0, 4.5, 10.0}) {
        INFO("q = " << q << ", sigma = " << s << ", alpha = " << a);
        CHECK(sampled_gaussian_rdp(q, s, a) >= S_quadrature_fast(q, s, a, false));
        // The long-double quadrature of the A-direction agrees with the library (sanity of the
        // comparison itself).
        CHECK(S_quadrature_fast(q, s, a, true) == Approx(sampled_gaussian_rdp(q, s, a)).epsilon(1e-9));
      }
}

TEST_CASE("Invalid inputs are rejected with the offending value", "[sgm]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(sampled_gaussian_rdp(-0.1, 1, 2), Catch::Contains("q = -0.1"));
  CHECK_THROWS_WITH(sampled_gaussian_rdp(1.5, 1, 2), Catch::Contains("[0, 1]"));
  CHECK_THROWS_AS(sampled_gaussian_rdp(nan, 1, 2), std::invalid_argument);
  CHECK_THROWS_WITH(sampled_gaussian_rdp(0.1, 0, 2), Catch::Contains("sigma = 0"));
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.1, -1, 2), std::invalid_argument);
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.1, inf, 2), std::invalid_argument);
  CHECK_THROWS_WITH(sampled_gaussian_rdp(0.1, 1, 1), Catch::Contains("alpha = 1"));
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.1, 1, 0.5), std::invalid_argument);
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.1, 1, inf), std::invalid_argument);
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.1, 1, nan), std::invalid_argument);
  CHECK_THROWS_WITH(sampled_gaussian_rdp(0.1, 1, 2.5, SgmExpansion::Binomial), Catch::Contains("integer order"));
}

TEST_CASE("Fixed-size sampling, replace adjacency: the three-mean configurations vs S_alpha", "[sgm][composition]") {
  // One step reduces to P = (1-q) N(a) + q N(c), P' = (1-q) N(a) + q N(c') with the three means
  // pairwise within Delta = 1 (analyses/composition.cpp). S_alpha(q, z) is the case
  // c' = a, |c - a| = 1 (checked: the quadrature reproduces it).
  for (double q : {0.05, 0.3})
    for (double z : {0.7, 2.0})
      for (double alpha : {2.0, 5.5}) {
        const double S = sampled_gaussian_rdp(q, z, alpha);
        INFO("q = " << q << ", z = " << z << ", alpha = " << alpha);
        CHECK(three_point_rdp_1d(q, z, alpha, 1.0, 0.0) == Approx(S).epsilon(1e-9));
        // On a line, pairwise within 1 is the norm model (an interval of length 1): no
        // configuration exceeds S_alpha.
        double worst = 0;
        for (int i = -4; i <= 4; ++i)
          for (int j = -4; j <= 4; ++j) {
            const double c = i / 4.0, cp = j / 4.0;
            if (std::fabs(c - cp) > 1.0 + 1e-12) continue;
            worst = std::max(worst, three_point_rdp_1d(q, z, alpha, c, cp));
          }
        CHECK(worst <= S * (1 + 1e-9));
      }
  // In the plane, if S_g only bounds gradient DIFFERENCES, an equilateral triangle of side 1 is
  // admissible and exceeds S_alpha (q = 0.05, z = 1, alpha = 2: about 4.59e-3 vs 4.29e-3): why
  // composition-sgm states the norm assumption. Small-q, order-2 ratio 2 e^{x/2}/(e^{x/2}+1), x = 1/z^2.
  const double S2 = sampled_gaussian_rdp(0.05, 1.0, 2.0);
  const double equilateral = three_point_rdp(0.05, 1.0, 2.0, {0, 0}, {1, 0}, {0.5, std::sqrt(3.0) / 2});
  CHECK(S2 == Approx(4.2865e-3).epsilon(1e-4));
  CHECK(equilateral > 1.05 * S2);
  // With gradient norms <= S_g/2 the means lie in a disk of radius 1/2; the inscribed equilateral
  // triangle, a right angle and the SGM configuration itself stay at or below S_alpha.
  const double r = 0.5;
  const Point A{r, 0}, B{r * std::cos(2.0944), r * std::sin(2.0944)}, C{r * std::cos(4.18879), r * std::sin(4.18879)};
  for (double alpha : {2.0, 4.0}) {
    const double S = sampled_gaussian_rdp(0.05, 1.0, alpha);
    CHECK(three_point_rdp(0.05, 1.0, alpha, A, B, C) <= S);
    CHECK(three_point_rdp(0.05, 1.0, alpha, {0, r}, {r, 0}, {-r, 0}) <= S);
    CHECK(three_point_rdp(0.05, 1.0, alpha, {-r, 0}, {r, 0}, {-r, 0}) == Approx(S).epsilon(1e-8));
  }
}

TEST_CASE("S_alpha's accuracy bound covers its error, and the upper value is never below the truth", "[sgm]") {
  // sampled_gaussian_relative_error_bound(alpha) = 4e-13/(alpha - 1) + 64 u is the margin of the
  // outward rounding of every analysis that uses S_alpha (composition-sgm, altschuler-talwar-b2/b3).
  // The error grows as alpha -> 1 (slow tails of the series); measured at most 0.08 of the bound.
  double worst = 0.0;
  for (double a : {1.0001, 1.001, 1.01, 1.1, 1.5, 2.5})
    for (double q : {0.01, 0.5})
      for (double s : {0.5, 4.0}) {
        INFO("q = " << q << ", sigma = " << s << ", alpha = " << a);
        const double exact = S_quadrature(q, s, a);
        const double error = std::fabs(sampled_gaussian_rdp(q, s, a) - exact) / exact;
        worst = std::max(worst, error / sampled_gaussian_relative_error_bound(a));
        CHECK(error <= 0.25 * sampled_gaussian_relative_error_bound(a));
        CHECK(sampled_gaussian_rdp_upper(q, s, a) >= exact);
      }
  WARN("largest S_alpha error / its accuracy bound: " << worst);
}

TEST_CASE("Orders above 10^6 are refused, not summed term by term (a mutation run hung at 4.6e18)", "[sgm]") {
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.01, 1.0, 4611686018427387904.0), std::runtime_error);
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.01, 1.0, 2.5e6 + 0.5), std::runtime_error);
  CHECK(std::isfinite(sampled_gaussian_rdp(0.01, 1.0, kMaxSeriesOrder)));
  // q = 0 and q = 1 are closed forms at any order.
  CHECK(sampled_gaussian_rdp(0.0, 1.0, 1e12) == 0.0);
  CHECK(sampled_gaussian_rdp(1.0, 1.0, 1e12) == Approx(0.5e12));
}
