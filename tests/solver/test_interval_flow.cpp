// One diffusion interval: closed forms against brute-force integration of the same ODEs.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>

#include "dynamics/pdi.hpp"
#include "solver/flow_composition.hpp"
#include "solver/interval_flow.hpp"

using namespace rdpdyn;

namespace {

/// Classical RK4 with n steps for a scalar ODE x' = f(s, x) (independent reference integrator).
double rk4(const std::function<double(double, double)>& f, double x, double tau, int n) {
  const double h = tau / n;
  for (int i = 0; i < n; ++i) {
    const double s = i * h;
    const double k1 = f(s, x), k2 = f(s + h / 2, x + h / 2 * k1), k3 = f(s + h / 2, x + h / 2 * k2),
                 k4 = f(s + h, x + h * k3);
    x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return x;
}

DiffusionInterval interval(LsiSchedule lsi) { return {0.05, 0.3, 0.7, std::move(lsi)}; }

}  // namespace

TEST_CASE("Constant LSI flow is the exact solution of dw/dt = a2 - a1 w", "[flow]") {
  const auto iv = interval(ConstantLsi{4.0});
  for (double g : {0.2, 0.5, 1.0}) {
    const IntervalFlow f = fixed_gamma_flow(iv, g, 0.0, 0.0, {});
    const double a1 = 2 * (1 - g) * 0.09 * 4.0, a2 = 0.49 / (4 * g * 0.09);
    CHECK(f.transport == Approx(a1 * 0.05).epsilon(1e-15));
    const double ref = rk4([&](double, double w) { return a2 - a1 * w; }, 0.0, 0.05, 2000);
    CHECK(f.source == Approx(ref).epsilon(1e-12));
  }
}

TEST_CASE("Gaussian-convolution flow matches RK4 on c(s) = 1/(A + 2 s sigma^2)", "[flow]") {
  const auto iv = interval(GaussianConvolutionLsi{});
  for (double A : {1e-3, 0.05, 2.0})
    for (double g : {0.1, 0.5, 0.9}) {
      const IntervalFlow f = fixed_gamma_flow(iv, g, A, 0.0, {});
      auto c = [&](double s) { return 1.0 / (A + 2 * 0.09 * s); };
      const double transport =
          rk4([&](double s, double) { return pdi::transport_speed(g, 0.3, c(s)); }, 0.0, 0.05, 4000);
      const double source = rk4(
          [&](double s, double w) { return pdi::source_rate(g, 0.3, 0.7) - pdi::transport_speed(g, 0.3, c(s)) * w; },
          0.0, 0.05, 4000);
      CHECK(f.transport == Approx(transport).epsilon(1e-10));
      CHECK(f.source == Approx(source).epsilon(1e-10));
    }
}

TEST_CASE("Point-mass start: infinite transport, source a2 tau / (2 - gamma)", "[flow]") {
  const auto iv = interval(GaussianConvolutionLsi{});
  const IntervalFlow f = fixed_gamma_flow(iv, 0.4, 0.0, 0.0, {});
  CHECK(std::isinf(f.transport));
  CHECK(f.source == Approx(pdi::source_rate(0.4, 0.3, 0.7) * 0.05 / 1.6).epsilon(1e-15));
}

TEST_CASE("Infinite inverse LSI constant (c = 0): no transport, the whole source", "[flow]") {
  // Found by tests/analyses/test_conformance.cpp: the recursion model with eta > 2/beta has
  // Lipschitz constant |1 - eta beta| > 1, 1/c grows like L^(2k) and overflows after some hundred
  // steps; the closed forms then gave NaN (inf * 0) and `pdi` reported NaN as a bound.
  const auto iv = interval(GaussianConvolutionLsi{});
  const double inf = std::numeric_limits<double>::infinity();
  for (double g : {0.1, 0.5, 1.0}) {
    const IntervalFlow f = fixed_gamma_flow(iv, g, inf, 0.0, {});
    CHECK(f.transport == 0.0);
    CHECK(f.source == Approx(pdi::source_rate(g, 0.3, 0.7) * 0.05).epsilon(1e-15));
    // The limit of large finite 1/c, from below.
    const IntervalFlow near = fixed_gamma_flow(iv, g, 1e300, 0.0, {});
    CHECK(near.source <= f.source);
    CHECK(near.source == Approx(f.source).epsilon(1e-12));
  }
  const double P = pdi::source_scale(0.3, 0.7);
  CHECK(optimal_gamma_flow(iv, 0.2, inf, 0.0, {}) == Approx(0.2 + P * 0.05).epsilon(1e-15));
  // A data-independent step (S_v = 0, noisy SGD) keeps w: no decay without an LSI constant.
  const DiffusionInterval quiet{0.05, 0.3, 0.0, GaussianConvolutionLsi{}};
  CHECK(optimal_gamma_flow(quiet, 0.2, inf, 0.0, {}) == 0.2);
  CHECK(fixed_gamma_flow(quiet, 0.5, inf, 0.0, {}).source == 0.0);
  CHECK(std::isinf(end_inverse_lsi(iv, inf, 0.0)));
}

TEST_CASE("Tiny intervals lose no precision (no cancellation in 1 - (A/V)^(kappa+1))", "[flow]") {
  DiffusionInterval iv{1e-13, 0.3, 0.7, GaussianConvolutionLsi{}};
  const IntervalFlow f = fixed_gamma_flow(iv, 0.5, 1.0, 0.0, {});
  CHECK(f.source == Approx(pdi::source_rate(0.5, 0.3, 0.7) * 1e-13).epsilon(1e-10));
}

TEST_CASE("Optimal-gamma flows match RK4 on the minimised right-hand side", "[flow][optimal]") {
  const double P = pdi::source_scale(0.3, 0.7);
  for (double w0 : {0.0, 0.01, 0.5, 5.0}) {
    {
      const auto iv = interval(ConstantLsi{4.0});
      const double Q = pdi::decay_scale(0.3, 4.0);
      const double ref = rk4([&](double, double w) { return pdi::optimal_rate(P, Q, w); }, w0, 0.05, 20000);
      CHECK(optimal_gamma_flow(iv, w0, 0.0, 0.0, {}) == Approx(ref).epsilon(1e-10));
    }
    for (double A : {0.01, 0.3}) {
      const auto iv = interval(GaussianConvolutionLsi{});
      const double ref =
          rk4([&](double s, double w) { return pdi::optimal_rate(P, pdi::decay_scale(0.3, 1.0 / (A + 0.18 * s)), w); },
              w0, 0.05, 20000);
      CHECK(optimal_gamma_flow(iv, w0, A, 0.0, {}) == Approx(ref).epsilon(1e-10));
    }
  }
}

TEST_CASE("The optimal gamma is never worse than any fixed gamma on linear data", "[flow][optimal]") {
  for (double A : {0.0, 0.01, 1.0})
    for (double w0 : {0.0, 0.1, 3.0}) {
      const auto iv = interval(GaussianConvolutionLsi{});
      const double best = optimal_gamma_flow(iv, w0, A, 0.0, {});
      for (double g = 0.05; g <= 1.0; g += 0.05) {
        const IntervalFlow f = fixed_gamma_flow(iv, g, A, 0.0, {});
        const double fixed = (std::isinf(f.transport) ? 0.0 : std::exp(-f.transport) * w0) + f.source;
        CHECK(best <= fixed * (1 + 1e-12));
      }
    }
}

TEST_CASE("Function schedules through Odeint agree with the closed forms and err upwards", "[flow][odeint]") {
  const double A = 0.02;
  const auto exact_iv = interval(GaussianConvolutionLsi{});
  const auto fn_iv = interval(FunctionLsi{[A](double s, double, double) { return 1.0 / (A + 0.18 * s); }, "test"});
  for (double g : {0.3, 0.7}) {
    const IntervalFlow exact = fixed_gamma_flow(exact_iv, g, A, 0.0, {});
    const IntervalFlow numeric = fixed_gamma_flow(fn_iv, g, A, 0.0, {});
    CHECK(numeric.transport == Approx(exact.transport).epsilon(1e-9));
    CHECK(numeric.source == Approx(exact.source).epsilon(1e-9));
    CHECK(numeric.transport <= exact.transport);  // conservative: less contraction
    CHECK(numeric.source >= exact.source);        // conservative: more source
  }
  const double w_exact = optimal_gamma_flow(exact_iv, 0.2, A, 0.0, {});
  const double w_numeric = optimal_gamma_flow(fn_iv, 0.2, A, 0.0, {});
  CHECK(w_numeric == Approx(w_exact).epsilon(1e-9));
  CHECK(w_numeric >= w_exact);
}

TEST_CASE("A schedule that leaves its domain is refused with its value", "[flow][odeint]") {
  const auto iv = interval(FunctionLsi{[](double s, double, double) { return 1.0 - 100 * s; }, "1 - 100*s"});
  REQUIRE_THROWS_WITH(fixed_gamma_flow(iv, 0.5, 0.0, 0.0, {}), Catch::Contains("1 - 100*s"));
}

TEST_CASE("End-of-interval LSI: Gaussian convolution adds 2 tau sigma^2 to 1/c (C21 Lemma 9)", "[flow]") {
  CHECK(end_inverse_lsi(interval(GaussianConvolutionLsi{}), 0.5, 0.0) == Approx(0.5 + 2 * 0.05 * 0.09));
  CHECK(end_inverse_lsi(interval(ConstantLsi{4.0}), 123.0, 0.0) == 0.25);
}

TEST_CASE("Pieces of a Gaussian-convolution interval compose to the whole interval", "[flow][composition]") {
  // The flow over [0, tau] equals the composition of the flows over [0, s] and [s, tau] (the family
  // restarts at s with 1/c = A0 + 2 sigma^2 s, C21 Lemma 9); the composed bounds contain it.
  const DiffusionInterval iv = interval(GaussianConvolutionLsi{});
  const double A0 = 0.02, gamma = 0.3;
  const IntervalFlow whole = fixed_gamma_flow(iv, gamma, A0, 0.0, {});
  BoundedFlow composed;
  const double cuts[] = {0.0, 0.013, 0.02, 0.041, iv.duration};
  for (int i = 0; i < 4; ++i) {
    const IntervalFlow p = fixed_gamma_piece(iv, gamma, A0, cuts[i], cuts[i + 1]);
    composed = compose(composed, bounded(p.transport, p.source, p.transport_error));
  }
  CHECK(composed.transport == Approx(whole.transport).epsilon(1e-14));
  CHECK(std::abs(composed.transport - whole.transport) <= composed.transport_error);
  CHECK(composed.source >= whole.source);
  CHECK(composed.source == Approx(whole.source).epsilon(1e-13));
  // Applying it: e^{-A} w + psi, above the exact value.
  CHECK(apply(composed, 0.7) >= std::exp(-whole.transport) * 0.7 + whole.source);
}

TEST_CASE("Composed flows of many steps stay above the exact long-double composition", "[flow][composition]") {
  // 5000 constant-LSI steps, each (A, psi) composed with outward rounding, against the same
  // recursion in long double (64-bit mantissa: 2^11 times finer than double).
  const DiffusionInterval iv = interval(ConstantLsi{3.0});
  const IntervalFlow one = fixed_gamma_flow(iv, 0.4, 0.0, 0.0, {});
  BoundedFlow composed = jump(0.0);
  long double A = 0, psi = 0;
  const long double a1 = (1.0L - 0.4L) * 2.0L * 0.3L * 0.3L * 3.0L;
  const long double a2 = 0.7L * 0.7L / (4.0L * 0.3L * 0.3L) / 0.4L;
  const long double A1 = a1 * 0.05L, psi1 = a2 * (1.0L - std::exp(-A1)) / a1;
  for (int k = 0; k < 5000; ++k) {
    composed = compose(composed, bounded(one.transport, one.source));
    if (k == 2500) composed = compose(composed, jump(0.01));
    A += A1;
    psi = std::exp(-A1) * psi + psi1 + (k == 2500 ? 0.01L : 0.0L);
  }
  CHECK(static_cast<long double>(composed.source) >= psi);
  CHECK(static_cast<long double>(composed.source) <= psi * (1 + 1e-11L));
  CHECK(std::abs(static_cast<long double>(composed.transport) - A) <= composed.transport_error);
  CHECK(composed.transport_error < 1e-10 * composed.transport);
}

TEST_CASE("An erased flow forgets the start and keeps the transport since the erasure", "[flow][composition]") {
  const BoundedFlow before = bounded(0.3, 0.2);
  const BoundedFlow erase = bounded(std::numeric_limits<double>::infinity(), 0.5);
  const BoundedFlow after = bounded(0.1, 0.05);
  const BoundedFlow all = compose(compose(before, erase), after);
  CHECK(all.erased);
  CHECK(all.transport == Approx(0.1));
  CHECK(apply(all, 1e6) == apply(all, 0.0));
  CHECK(apply(all, 0.0) >= std::exp(-0.1) * 0.5 + 0.05);
}
