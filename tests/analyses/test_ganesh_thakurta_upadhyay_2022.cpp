// Ganesh, Thakurta & Upadhyay 2022 (arXiv:2204.01585) Lemma C.1 on Langevin runs: the lemma at stated
// numbers in its own units, the unit conversion against C21 Thm 1 (C21 arXiv:2102.05855, the same
// bound in C21 units), and the entry's refusals.
#include <catch2/catch.hpp>

#include "analyses/analysis.hpp"
#include "analyses/chourasia_2021_closed_forms.hpp"
#include "analyses/ganesh_thakurta_upadhyay_2022.hpp"
#include "models/noise_units.hpp"
#include "models/privacy_model.hpp"

using namespace rdpdyn;

namespace {

/// examples/schedule_langevin.toml: t = 10, sigma = 0.1, n = 1000, S_g = 2.
RunConfig langevin_run() {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = AlgorithmKind::Langevin;
  s.algorithm.time = 10.0;
  s.algorithm.sigma = 0.1;
  s.algorithm.n = 1000;
  s.algorithm.sensitivity = 2.0;
  s.algorithm.intervals = 200;
  s.lsi = LsiSpec::constant(5.0);
  s.orders = {2.0, 8.0};
  return c;
}

AnalysisResult assess(const RunConfig& c) {
  static const EngineRegistry no_engines;
  const TrainingRun run = training_run_of(c.spec);
  return find_analysis("ganesh-lemma-c1")->assess({c, run, no_engines}, c.spec.orders);
}

}  // namespace

TEST_CASE("GTU Lemma C.1 at stated numbers, in GTU units", "[gtu]") {
  // alpha Delta^2 beta^2 T / 4 with alpha = 8, Delta = 0.002, beta = 100, T = 0.1:
  // 8 * 4e-6 * 1e4 * 0.1 / 4 = 0.008.
  CHECK(gtu::lemma_c1(8.0, 0.002, 100.0, 0.1) == Approx(0.008).epsilon(1e-14));
  CHECK_THROWS(gtu::lemma_c1(1.0, 0.002, 100.0, 0.1));
}

TEST_CASE("GTU units: beta = 1/sigma^2, T = sigma^2 t, Delta = S_g/n; Lemma C.1 is then C21 Thm 1", "[gtu][units]") {
  namespace nu = noise_units;
  CHECK(nu::gtu_beta_from_c21_sigma(0.1) == Approx(100.0).epsilon(1e-15));
  CHECK(nu::gtu_time_from_c21(10.0, 0.1) == Approx(0.1).epsilon(1e-15));
  CHECK(nu::gtu_delta_from_c21(2.0, 1000.0) == Approx(0.002).epsilon(1e-15));
  // Same laws: the drift times the time (beta t = s) and the noise variance per unit of C21 time
  // (2 per unit of GTU time, 2 sigma^2 per unit of s) agree.
  for (double sigma : {0.05, 0.3, 2.0}) {
    const double beta = nu::gtu_beta_from_c21_sigma(sigma), T = nu::gtu_time_from_c21(7.0, sigma);
    CHECK(beta * T == Approx(7.0).epsilon(1e-15));
    CHECK(2.0 * T == Approx(2.0 * sigma * sigma * 7.0).epsilon(1e-15));
    // C21 Thm 1: alpha S_v^2 t / (4 sigma^2), S_v = S_g / n.
    CHECK(gtu::lemma_c1(3.0, nu::gtu_delta_from_c21(2.0, 500.0), beta, T) ==
          Approx(closed_forms::thm1(3.0, 2.0 / 500.0, sigma, 7.0)).epsilon(1e-14));
  }
}

TEST_CASE("ganesh-lemma-c1 on the Langevin example, and its refusals", "[gtu][registry][refusal]") {
  const AnalysisResult r = assess(langevin_run());
  REQUIRE(r.applies);
  CHECK(r.R[0] == Approx(0.002).epsilon(1e-13));  // alpha = 2: 0.008 / 4
  CHECK(r.R[1] == Approx(0.008).epsilon(1e-13));
  CHECK(r.R[1] >= gtu::lemma_c1(8.0, 0.002, 100.0, 0.1));  // rounded outward
  CHECK(find_analysis("ganesh-lemma-c1")->status == AnalysisStatus::Published);
  RunConfig c = langevin_run();
  c.spec.diameter = 1.0;  // with or without projection
  CHECK(assess(c).applies);
  c = langevin_run();
  c.spec.adjacency = Adjacency::AddRemove;
  CHECK_THAT(assess(c).reason, Catch::Contains("needs adjacency = replace"));
  c = langevin_run();
  c.spec.initial = LinearCurve{0.5};
  CHECK_THAT(assess(c).reason, Catch::Contains("identical initial laws"));
  c = langevin_run();
  c.spec.algorithm.kind = AlgorithmKind::NoisyGd;
  c.spec.algorithm.phases = {Phase::of(100, 0.1, 0.1)};
  CHECK_THAT(assess(c).reason, Catch::Contains("stated for the Langevin diffusion"));
  CHECK_FALSE(assess(c).applies);
}
