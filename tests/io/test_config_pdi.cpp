// algorithm.kind = "pdi" (docs/config.md): the PDI of C21 eq. (13) by its coefficients, on the
// characteristics engine. C21 Thm 1 and Thm 2 reproduced, the equivalent noisy-gd and Langevin
// runs matched, time-dependent S_v(t) and sigma(t) against closed-form integrals of the PDI, and
// the rejections naming key, value and rule.
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <string>

#include "analyses/chourasia_2021_closed_forms.hpp"
#include "io/config.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {

const std::string kOrders = "[orders]\nvalues = [1.5, 2, 10, 30]\n";

/// A pdi run on [0, T] with the given [algorithm] coefficient lines, [lsi] and gamma.
std::string pdi_run(const std::string& coefficients, const std::string& lsi, const std::string& gamma,
                    double time = 2.0, int intervals = 100) {
  return kOrders + "[algorithm]\nkind = \"pdi\"\ntime = " + std::to_string(time) +
         "\nintervals = " + std::to_string(intervals) + "\n" + coefficients + "[lsi]\n" + lsi +
         "[analysis]\ngamma = " + gamma + "\n";
}

Solution solve(const std::string& text) {
  const RunConfig cfg = parse_config_text(text, "test.toml");
  return solve_by_characteristics(build_program(cfg.spec), cfg.spec.initial, cfg.spec.orders, {cfg.spec.record, {}});
}

double rel(double a, double b) { return std::abs(a - b) / std::abs(b); }

SpecError error_of(const std::string& text) {
  try {
    (void)parse_config_text(text, "test.toml");
  } catch (const SpecError& e) {
    return e;
  }
  FAIL("no SpecError for:\n" << text);
  return SpecError("", "", "");
}

const std::string kConstantLsi = "kind = \"constant\"\nc = 5\n";

}  // namespace

TEST_CASE("kind = \"pdi\" reproduces C21 Thm 1 (gamma = 1, no LSI) to 1e-12", "[config][pdi]") {
  // C21 Thm 1: R <= alpha S_v^2 T / (4 sigma^2). gamma = 1 removes the LSI term of eq. (13), and
  // c = 0 (a function schedule) states no LSI at all.
  const double sigma = 0.1, Sv = 0.002, T = 2.0;
  for (const std::string& coefficients :
       {std::string("sigma = 0.1\nsensitivity = 0.002\n"),
        // the same numbers as expressions in t: the Odeint path, every coefficient evaluated
        std::string("sigma = \"0.1 + 0 * t\"\nsensitivity = \"0.002 + 0 * t\"\n")}) {
    const Solution s = solve(pdi_run(coefficients, "kind = \"function\"\nc = \"0\"\n", "1"));
    for (std::size_t j = 0; j < s.orders.size(); ++j) {
      const double thm1 = closed_forms::thm1(s.orders[j], Sv, sigma, T);
      CHECK(rel(s.final_row()[j], thm1) < 1e-12);
      // Raw engine values: within rounding either way; `solve` adds the outward margin 4 (K + 16) u
      // (docs/math.md §6), which covers it.
      CHECK(s.final_row()[j] >= thm1 * (1.0 - 4.0 * (100 + 16) * 1.11e-16));
    }
    CHECK(s.times.back() == Approx(T).epsilon(1e-15));
  }
}

TEST_CASE("kind = \"pdi\" reproduces C21 Thm 2 (constant c, gamma = 1/2) to 1e-12", "[config][pdi]") {
  // C21 Thm 2, eq. (68): alpha S^2 / (8 gamma (1-gamma) c sigma^4) (1 - exp(-2 (1-gamma) sigma^2 c T)),
  // with S = S_v (n = 1), at every record.
  const double sigma = 0.1, Sv = 0.002, c = 5.0;
  const Solution s = solve(pdi_run("sigma = 0.1\nsensitivity = 0.002\n", kConstantLsi, "0.5", 20.0, 200));
  REQUIRE(s.record_count() == 201);
  double worst = 0.0;
  for (std::size_t r = 1; r < s.record_count(); ++r)
    for (std::size_t j = 0; j < s.orders.size(); ++j) {
      const double thm2 = closed_forms::thm2(s.orders[j], Sv, 1.0, sigma, c, 0.5, s.times[r]);
      worst = std::max(worst, rel(s.row(r)[j], thm2));
      CHECK(s.row(r)[j] >= thm2 * (1.0 - 4.0 * (200 + 16) * 1.11e-16));  // rounding; solve's margin covers it
    }
  CHECK(worst < 1e-12);
  // The expression path (Odeint, biased outward) stays above Thm 2 and within its tolerance.
  const Solution e =
      solve(pdi_run("sigma = \"0.1 * (1 + 0 * t)\"\nsensitivity = 0.002\n", kConstantLsi, "0.5", 20.0, 200));
  for (std::size_t j = 0; j < e.orders.size(); ++j) {
    const double thm2 = closed_forms::thm2(e.orders[j], Sv, 1.0, sigma, c, 0.5, 20.0);
    CHECK(e.final_row()[j] >= thm2 * (1.0 - 4.0 * (200 + 16) * 1.11e-16));
    CHECK(rel(e.final_row()[j], thm2) < 1e-9);
  }
}

TEST_CASE("kind = \"pdi\" equals the equivalent noisy-gd and Langevin runs to 1e-12", "[config][pdi]") {
  // noisy GD with K steps of eta is the PDI on [0, K eta] with S_v = S_g / n (C21 Lemma 4) and
  // intervals of length eta; Langevin is the same PDI with S_v = S_g / n.
  const std::string gd = kOrders +
                         "[algorithm]\nkind = \"noisy-gd\"\nsteps = 100\neta = 0.02\nsigma = 0.02\nn = 5000\n"
                         "sensitivity = 4\n";
  const std::string langevin = kOrders +
                               "[algorithm]\nkind = \"langevin\"\ntime = 2\nintervals = 100\nsigma = 0.02\nn = 5000\n"
                               "sensitivity = 4\n";
  const std::string pdi =
      kOrders + "[algorithm]\nkind = \"pdi\"\ntime = 2\nintervals = 100\nsigma = 0.02\nsensitivity = 0.0008\n";
  for (const std::string& lsi : {std::string("[lsi]\nkind = \"constant\"\nc = 2.5\n"),
                                 std::string("[lsi]\nkind = \"function\"\nc = \"2 + sin(t)\"\n")})
    for (const char* gamma : {"0.5", "0.9", "\"optimal\""}) {
      const std::string tail = lsi + "[analysis]\ngamma = " + gamma + "\n";
      const Solution a = solve(gd + tail), b = solve(langevin + tail), p = solve(pdi + tail);
      REQUIRE(a.record_count() == p.record_count());
      REQUIRE(b.record_count() == p.record_count());
      double worst = 0.0;
      for (std::size_t i = 0; i < p.R.size(); ++i)
        if (p.R[i] > 0.0) worst = std::max({worst, rel(p.R[i], a.R[i]), rel(p.R[i], b.R[i])});
      INFO(lsi << "gamma = " << gamma);
      CHECK(worst < 1e-12);
      CHECK(p.final_row()[0] > 0.0);
    }
}

TEST_CASE("kind = \"pdi\": a decaying S_v(t) against the exact integral of the PDI", "[config][pdi]") {
  // S_v(t) = S0 e^{-t/tau}, constant sigma and c, fixed gamma, R_0 = 0: along characteristics
  // (straight: a1 = 2 (1-gamma) sigma^2 c does not depend on alpha) w' = a2(t) - a1 w, so
  //   w(T) = S0^2 / (4 gamma sigma^2) (e^{-2T/tau} - e^{-a1 T}) / (a1 - 2/tau),   R = alpha w,
  // and at gamma = 1 (a1 = 0): w(T) = S0^2 tau (1 - e^{-2T/tau}) / (8 sigma^2) (C21 Thm 1's proof
  // with S_v(t)).
  const double S0 = 0.002, tau = 2.0, sigma = 0.1, c = 5.0, T = 10.0;
  for (double gamma : {1.0, 0.5, 0.25}) {
    const Solution s = solve(
        pdi_run("sigma = 0.1\nsensitivity = \"0.002 * exp(-t / 2)\"\n", kConstantLsi, std::to_string(gamma), T, 200));
    const double a1 = 2.0 * (1.0 - gamma) * sigma * sigma * c;
    const double w = gamma == 1.0 ? S0 * S0 * tau * -std::expm1(-2.0 * T / tau) / (8.0 * sigma * sigma)
                                  : S0 * S0 / (4.0 * gamma * sigma * sigma) *
                                        (std::exp(-2.0 * T / tau) - std::exp(-a1 * T)) / (a1 - 2.0 / tau);
    for (std::size_t j = 0; j < s.orders.size(); ++j) {
      INFO("gamma = " << gamma << ", alpha = " << s.orders[j]);
      CHECK(s.final_row()[j] >= s.orders[j] * w);  // an upper bound: Odeint's error is biased outward
      CHECK(rel(s.final_row()[j], s.orders[j] * w) < 1e-9);
    }
  }
}

TEST_CASE("kind = \"pdi\": a growing sigma(t) against the exact integral of the PDI", "[config][pdi]") {
  // sigma(t)^2 = sigma0^2 (1 + t), gamma = 1: R(T) = alpha S^2 / (4 sigma0^2) ln(1 + T).
  const double sigma0 = 0.1, Sv = 0.002, T = 3.0;
  const Solution s = solve(pdi_run("sigma = \"0.1 * sqrt(1 + t)\"\nsensitivity = 0.002\n", kConstantLsi, "1", T, 30));
  for (std::size_t j = 0; j < s.orders.size(); ++j) {
    const double exact = s.orders[j] * Sv * Sv / (4.0 * sigma0 * sigma0) * std::log1p(T);
    CHECK(s.final_row()[j] >= exact);
    CHECK(rel(s.final_row()[j], exact) < 1e-9);
  }
}

TEST_CASE("kind = \"pdi\": the optimal gamma with S_v(t) is never above a fixed gamma", "[config][pdi]") {
  // The pointwise-optimal gamma minimises the right-hand side of eq. (13) (docs/math.md §3.4).
  const std::string coefficients = "sigma = 0.1\nsensitivity = \"0.002 * exp(-t / 2)\"\n";
  const Solution opt = solve(pdi_run(coefficients, kConstantLsi, "\"optimal\"", 10.0, 200));
  for (const char* gamma : {"0.25", "0.5", "0.75", "1"}) {
    const Solution fixed = solve(pdi_run(coefficients, kConstantLsi, gamma, 10.0, 200));
    for (std::size_t j = 0; j < opt.orders.size(); ++j) CHECK(opt.final_row()[j] <= fixed.final_row()[j]);
  }
  CHECK(opt.final_row()[0] > 0.0);
}

TEST_CASE("kind = \"pdi\": events at given times", "[config][pdi]") {
  // A Gaussian release at t = 1 under gamma = 1 (no contraction): Thm 1 plus alpha Delta^2 / (2 s^2)
  // (Mironov 2017 Prop. 7), at every order.
  const std::string text = pdi_run("sigma = 0.1\nsensitivity = 0.002\n", kConstantLsi, "1", 2.0, 100) +
                           "[[events]]\ntime = 1.0\nkind = \"gaussian-release\"\nsensitivity = 0.3\nnoise_std = 2\n";
  const RunConfig cfg = parse_config_text(text, "test.toml");
  REQUIRE(cfg.spec.events.size() == 1);
  CHECK(cfg.spec.events[0].after_step == 50);
  const Solution s = solve(text);
  for (std::size_t j = 0; j < s.orders.size(); ++j) {
    const double expected = closed_forms::thm1(s.orders[j], 0.002, 0.1, 2.0) + s.orders[j] * 0.09 / 8.0;
    CHECK(rel(s.final_row()[j], expected) < 1e-12);
  }
  // Before the release (t = 0.98) only the diffusion has acted.
  CHECK(rel(s.row(49)[1], closed_forms::thm1(2.0, 0.002, 0.1, 0.98)) < 1e-12);
}

TEST_CASE("kind = \"pdi\": rejections name the key, the value and the rule", "[config][pdi]") {
  const std::string good = pdi_run("sigma = 0.1\nsensitivity = 0.002\n", kConstantLsi, "0.5");
  CHECK_NOTHROW(parse_config_text(good, "test.toml"));

  SpecError e = error_of(pdi_run("sigma = \"0.1 - t\"\nsensitivity = 0.002\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sigma");
  CHECK(e.value() == "\"0.1 - t\"");
  CHECK_THAT(e.rule(), Catch::Contains("must be finite and > 0 at every t in [0, algorithm.time]") &&
                           Catch::Contains("it gives 0 at t = 0.1"));

  e = error_of(pdi_run("sigma = 0.1\nsensitivity = \"0.002 * (1 - t)\"\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sensitivity");
  CHECK_THAT(e.rule(), Catch::Contains(">= 0"));

  e = error_of(pdi_run("sigma = \"0.1 * s\"\nsensitivity = 0.002\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sigma");
  CHECK(e.value() == "\"0.1 * s\"");

  e = error_of(pdi_run("sigma = \"0.1 * (\"\nsensitivity = 0.002\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sigma");

  e = error_of(pdi_run("sigma = 0\nsensitivity = 0.002\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sigma");
  CHECK(e.rule() == "must be > 0");

  e = error_of(pdi_run("sigma = \"-1\"\nsensitivity = 0.002\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.sigma");
  CHECK_THAT(e.rule(), Catch::Contains("evaluates to -1"));

  e = error_of(pdi_run("sigma = 0.1\nsensitivity = 0.002\nn = 10\n", kConstantLsi, "0.5"));
  CHECK(e.key() == "algorithm.n");

  e = error_of(
      pdi_run("sigma = 0.1\nsensitivity = 0.002\n", "kind = \"strongly-convex\"\nlambda = 1\nbeta = 2\n", "0.5"));
  CHECK(e.key() == "lsi.kind");
  CHECK_THAT(e.rule(), Catch::Contains("\"pdi\" accepts only \"constant\" or \"function\""));

  e = error_of(good + "[[events]]\ntime = 0.013\nkind = \"lipschitz\"\nlipschitz = 1\n");
  CHECK(e.key() == "events[0].time");
  CHECK(e.value() == "0.013");
  CHECK_THAT(e.rule(), Catch::Contains("multiple of algorithm.time / algorithm.intervals = 0.02"));

  e = error_of(good + "[[events]]\ntime = 3\nkind = \"lipschitz\"\nlipschitz = 1\n");
  CHECK(e.key() == "events[0].time");

  e = error_of(good + "[[events]]\nafter_step = 3\nkind = \"lipschitz\"\nlipschitz = 1\n");
  CHECK(e.key() == "events[0].time");  // a pdi run places events by time
}
