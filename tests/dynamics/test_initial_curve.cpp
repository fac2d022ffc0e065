// Initial curves, and the soundness of the tabulated interpolation.
#include <catch2/catch.hpp>
#include <cmath>

#include "dynamics/initial_curve.hpp"

using namespace rdpdyn;

namespace {
/// RDP of the Gaussian mechanism with sensitivity 1 and noise 1, mixed with kappa alpha^2, both
/// valid shapes ((alpha-1) R convex, R non-decreasing).
double true_curve(double a) { return 0.5 * a + 0.01 * a * a; }
}  // namespace

TEST_CASE("Table: exact at the nodes, above the true curve between them, below the next node", "[initial]") {
  TableCurve t;
  for (double a : {1.25, 2.0, 3.0, 6.0, 12.0, 40.0}) {
    t.alpha.push_back(a);
    t.values.push_back(true_curve(a));
  }
  const InitialCurve curve = t;
  for (std::size_t i = 0; i < t.alpha.size(); ++i) CHECK(initial_rdp(curve, t.alpha[i]) == t.values[i]);
  for (double a = 1.26; a < 40.0; a *= 1.07) {
    const double v = initial_rdp(curve, a);
    REQUIRE(v >= true_curve(a));
    const auto hi = std::upper_bound(t.alpha.begin(), t.alpha.end(), a) - t.alpha.begin();
    REQUIRE(v <= t.values[static_cast<std::size_t>(hi)]);
  }
}

TEST_CASE("Table: the chord of (alpha - 1) R is exact for linear curves", "[initial]") {
  // (alpha - 1) * s * alpha is a parabola, so the chord is not exact; but for R = s (constant),
  // (alpha - 1) s is linear and the chord reproduces it.
  const InitialCurve curve = TableCurve{{2.0, 10.0}, {0.3, 0.3}};
  CHECK(initial_rdp(curve, 5.0) == Approx(0.3).epsilon(1e-15));
}

TEST_CASE("Table: closure below the first node and +infinity above the last", "[initial]") {
  const InitialCurve curve = TableCurve{{2.0, 4.0}, {0.1, 0.4}};
  CHECK(initial_rdp(curve, 1.001) == 0.1);
  CHECK(std::isinf(initial_rdp(curve, 4.5)));
}

TEST_CASE("Linear curves are recognised; others are not", "[initial]") {
  CHECK(is_linear_in_alpha(ZeroCurve{}));
  CHECK(linear_initial_slope(LinearCurve{0.25}) == 0.25);
  CHECK(is_linear_in_alpha(PowerCurve{2.0, 1.0}));
  CHECK_FALSE(is_linear_in_alpha(PowerCurve{2.0, 2.0}));
  CHECK_FALSE(is_linear_in_alpha(TableCurve{{2.0}, {1.0}}));
  CHECK(initial_rdp(PowerCurve{0.5, 2.0}, 3.0) == Approx(4.5));
}
