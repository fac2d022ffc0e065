// Closed forms of C21 against independent derivations of the same quantities.
#include <catch2/catch.hpp>
#include <cmath>

#include "analyses/chourasia_2021_closed_forms.hpp"
#include "analyses/closed_form_curves.hpp"
#include "analyses/analysis.hpp"
#include "commands/compare.hpp"
#include "models/privacy_model.hpp"
#include "numerics/outward_rounding.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {
// C21 Figure 1/2 setting.
constexpr double Sg = 4.0, n = 5000.0, eta = 0.02, sigma = 0.02;
}  // namespace

TEST_CASE("Thm 2 at gamma = 1/2 is the form stated in C21 Thm 2", "[closed-form]") {
  // C21 Thm 2, gamma = 1/2: alpha S_g^2 / (2 c sigma^4 n^2) (1 - e^{-sigma^2 c eta K}).
  for (double c : {10.0, 1250.0, 1e5})
    for (double K : {1.0, 100.0, 1e4}) {
      const double stated =
          7.0 * Sg * Sg / (2.0 * c * std::pow(sigma, 4) * n * n) * -std::expm1(-sigma * sigma * c * eta * K);
      CHECK(closed_forms::thm2(7.0, Sg, n, sigma, c, 0.5, eta * K) == Approx(stated).epsilon(1e-13));
    }
}

TEST_CASE("Cor 1 and Cor 2 are Thm 2 with their LSI constants", "[closed-form]") {
  // C21 Cor 1 proof: c = lambda / (2 sigma^2); Cor 2 proof: c = (2 - eta) / (2 sigma^2).
  for (double lambda : {1.0, 2.0, 4.0}) {
    const double c = lambda / (2 * sigma * sigma);
    CHECK(closed_forms::cor1(20, Sg, n, sigma, lambda, eta, 300) ==
          Approx(closed_forms::thm2(20, Sg, n, sigma, c, 0.5, eta * 300)).epsilon(1e-13));
  }
  const double c2 = (2 - eta) / (2 * sigma * sigma);
  CHECK(closed_forms::cor2(30, Sg, n, sigma, eta, 77) ==
        Approx(closed_forms::thm2(30, Sg, n, sigma, c2, 0.5, eta * 77)).epsilon(1e-13));
}

TEST_CASE("Thm 3 exact divergence equals the Gaussian divergence computed from the iterates", "[closed-form]") {
  // Squared loss, theta_0 = 0, neighbouring data differ by S_g in one record (d = 1):
  // mean gap m_{k+1} = (1-eta) m_k + eta S_g / n, variance v_{k+1} = (1-eta)^2 v_k + 2 eta sigma^2,
  // and R_alpha(N(m, v) || N(0, v)) = alpha m^2 / (2 v) (Gil et al. 2013, Gaussian case).
  double m = 0.0, v = 0.0;
  for (int K = 1; K <= 2000; ++K) {
    m = (1 - eta) * m + eta * Sg / n;
    v = (1 - eta) * (1 - eta) * v + 2 * eta * sigma * sigma;
    if (K % 97 == 1 || K == 2000) {
      const double exact = 10.0 * m * m / (2 * v);
      REQUIRE(closed_forms::thm3_exact(10.0, Sg, n, sigma, eta, K) == Approx(exact).epsilon(1e-11));
    }
  }
}

TEST_CASE("Thm 3 sandwich: lower bound <= exact <= Cor 2, and one step is the Gaussian mechanism", "[closed-form]") {
  for (double e : {0.001, 0.02, 0.3, 0.9})
    for (double K : {1.0, 5.0, 50.0, 5000.0}) {
      const double lower = closed_forms::thm3_lower(4, Sg, n, sigma, e, K);
      const double exact = closed_forms::thm3_exact(4, Sg, n, sigma, e, K);
      const double cor2 = closed_forms::cor2(4, Sg, n, sigma, e, K);
      CHECK(lower <= exact * (1 + 1e-14));
      CHECK(exact <= cor2);
    }
  // K = 1: Gaussian mechanism with Delta = eta S_g / n and variance 2 eta sigma^2:
  // alpha Delta^2 / (2 * 2 eta sigma^2) = alpha eta S_g^2 / (4 sigma^2 n^2) = composition of 1 step.
  CHECK(closed_forms::thm3_exact(3, Sg, n, sigma, eta, 1) ==
        Approx(closed_forms::composition(3, Sg, n, sigma, eta, 1)).epsilon(1e-13));
  // K -> infinity: alpha S_g^2 (2 - eta) / (4 sigma^2 n^2).
  CHECK(closed_forms::thm3_exact(3, Sg, n, sigma, eta, 1e6) ==
        Approx(3 * Sg * Sg * (2 - eta) / (4 * sigma * sigma * n * n)).epsilon(1e-13));
}

TEST_CASE("Thm 1 equals composition for noisy GD (S_v = S_g / n, T = eta K)", "[closed-form]") {
  CHECK(closed_forms::thm1(12, Sg / n, sigma, eta * 345) ==
        Approx(closed_forms::composition(12, Sg, n, sigma, eta, 345)).epsilon(1e-14));
  // A value from the formula of C21 App. E: alpha S_g^2 eta K / (4 n^2 sigma^2) at alpha = 10, K = 100.
  CHECK(closed_forms::composition(10, Sg, n, sigma, eta, 100) == Approx(0.008).epsilon(1e-14));
}

TEST_CASE("Closed-form rows of solve, one record at a time: the catalogue at K and eta K", "[closed-form]") {
  RunSpec spec;
  spec.algorithm.loss = LossKind::Squared;
  spec.algorithm.phases = {Phase::of(1000, eta, sigma)};
  spec.algorithm.n = n;
  spec.algorithm.sensitivity = Sg;
  spec.lsi = LsiSpec::squared_loss();
  spec.orders = {2.0, 10.0};
  ClosedFormRows rows(spec);
  std::vector<std::string> names;
  for (const auto& label : rows.labels()) names.push_back(label.name);
  REQUIRE(names == std::vector<std::string>{"thm1", "composition", "thm2", "cor2", "thm3-exact", "thm3-lower"});
  for (const std::int64_t K : {0, 1, 250, 1000}) {
    const double k = static_cast<double>(K);
    const auto& r = rows.evaluate(K, eta * k);
    // Upper bounds are raised, lower bounds lowered by the margin of K steps; exact values as
    // computed (numerics/outward_rounding.hpp).
    const double margin = outward::recursion_margin(K);
    for (std::size_t j = 0; j < 2; ++j) {
      const double alpha = spec.orders[j];
      CHECK(r[0][j] == Approx(closed_forms::thm1(alpha, Sg / n, sigma, eta * k)).epsilon(1e-12));
      CHECK(r[0][j] >= closed_forms::thm1(alpha, Sg / n, sigma, eta * k));
      CHECK(r[1][j] == Approx(closed_forms::composition(alpha, Sg, n, sigma, eta, k)).epsilon(1e-12));
      CHECK(r[3][j] == outward::round_up(closed_forms::cor2(alpha, Sg, n, sigma, eta, k), margin));
      CHECK(r[4][j] == closed_forms::thm3_exact(alpha, Sg, n, sigma, eta, k));
      CHECK(r[5][j] == outward::round_down(closed_forms::thm3_lower(alpha, Sg, n, sigma, eta, k), margin));
    }
  }
  CHECK(rows.rows()[4][1] == closed_forms::thm3_exact(10.0, Sg, n, sigma, eta, 1000.0));
  CHECK_THROWS_AS(rows.evaluate(999, eta * 999), std::invalid_argument);  // records come in step order
}

// ----------------------------------------------------------------------------------------------
// The registry entries chourasia-thm3-exact and chourasia-thm3-lower.

namespace {

/// Squared loss, theta_0 = 0: n = 100, S_g = 2, K = 50 steps of eta = 0.1, sigma = 0.5.
RunConfig squared_run() {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = AlgorithmKind::NoisyGd;
  s.algorithm.loss = LossKind::Squared;
  s.algorithm.n = 100;
  s.algorithm.sensitivity = 2.0;
  s.algorithm.phases = {Phase::of(50, 0.1, 0.5)};
  s.lsi = LsiSpec::squared_loss();
  s.orders = {2.0, 8.0};
  return c;
}

AnalysisResult assess_entry(const RunConfig& c, const std::string& name) {
  static const EngineRegistry no_engines;
  const TrainingRun run = training_run_of(c.spec);
  return find_analysis(name)->assess({c, run, no_engines}, c.spec.orders);
}

}  // namespace

TEST_CASE("chourasia-thm3-exact and -lower: C21 Thm 3 at stated numbers, statuses, rounding",
          "[closed-form][registry]") {
  // C21 Thm 3 with alpha = 2, S_g = 2, n = 100, sigma = 0.5, eta = 0.1, K = 50 (python3, the
  // formulas as printed): exact alpha S_g^2/(4 sigma^2 n^2) (2-eta)(1-(1-eta)^K)/(1+(1-eta)^K)
  // = 0.0015044128560060162; lower alpha S_g^2/(4 sigma^2 n^2)(1 - e^{-eta K}) = 0.0007946096424007316.
  const RunConfig c = squared_run();
  const AnalysisResult ex = assess_entry(c, "chourasia-thm3-exact");
  const AnalysisResult lo = assess_entry(c, "chourasia-thm3-lower");
  REQUIRE(ex.applies);
  REQUIRE(lo.applies);
  CHECK(ex.R[0] == Approx(0.0015044128560060162).epsilon(1e-13));
  CHECK(lo.R[0] == Approx(0.0007946096424007316).epsilon(1e-13));
  CHECK(ex.R[1] == Approx(4 * 0.0015044128560060162).epsilon(1e-13));  // linear in alpha
  // Outward: the exact value rounded up, the lower bound rounded down.
  CHECK(ex.R[0] >= closed_forms::thm3_exact(2.0, 2.0, 100, 0.5, 0.1, 50));
  CHECK(lo.R[0] < closed_forms::thm3_lower(2.0, 2.0, 100, 0.5, 0.1, 50));
  CHECK(find_analysis("chourasia-thm3-exact")->status == AnalysisStatus::Exact);
  CHECK(find_analysis("chourasia-thm3-lower")->status == AnalysisStatus::LowerBound);
  CHECK(std::string(status_name(AnalysisStatus::LowerBound)) == "lower-bound");
  CHECK_FALSE(bounds_the_run(AnalysisStatus::LowerBound));
  CHECK_FALSE(eligible_for_best(AnalysisStatus::LowerBound, true));
}

TEST_CASE("chourasia-thm3-lower is never best and lies below every bound compare reports", "[closed-form][registry]") {
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  const Comparison cmp = run_comparison(squared_run(), engines);
  const ComparisonEntry* lower = nullptr;
  for (const auto& e : cmp.entries)
    if (e.result.name == "chourasia-thm3-lower") lower = &e;
  REQUIRE(lower);
  REQUIRE(lower->result.applies);
  CHECK(lower->status == AnalysisStatus::LowerBound);
  REQUIRE(!cmp.best_name.empty());
  CHECK(cmp.best_name != "chourasia-thm3-lower");
  CHECK(cmp.best_name != "chourasia-thm3-exact");
  for (std::size_t j = 0; j < cmp.best_R.size(); ++j) CHECK(lower->result.R[j] < cmp.best_R[j]);
}

TEST_CASE("chourasia-thm3-exact and -lower refusals name the failing assumption", "[closed-form][registry][refusal]") {
  for (const char* name : {"chourasia-thm3-exact", "chourasia-thm3-lower"}) {
    INFO(name);
    RunConfig c = squared_run();
    c.spec.algorithm.loss = LossKind::Generic;
    c.spec.lsi = LsiSpec::constant(1.0);
    CHECK_THAT(assess_entry(c, name).reason, Catch::Contains("needs the squared loss"));
    c = squared_run();
    c.spec.diameter = 3.0;
    CHECK_THAT(assess_entry(c, name).reason, Catch::Contains("needs unconstrained iterates"));
    c = squared_run();
    c.spec.adjacency = Adjacency::AddRemove;
    CHECK_THAT(assess_entry(c, name).reason, Catch::Contains("needs adjacency = replace"));
    c = squared_run();
    c.spec.lsi = LsiSpec::recursion(1.0, 1.0, 4.0);  // a Gaussian start N(0, 1/4)
    CHECK_THAT(assess_entry(c, name).reason, Catch::Contains("point initialisation theta_0 = 0"));
    c = squared_run();
    c.spec.initial = LinearCurve{0.1};
    CHECK_THAT(assess_entry(c, name).reason, Catch::Contains("identical initial laws"));
    CHECK_FALSE(assess_entry(c, name).applies);
  }
}
