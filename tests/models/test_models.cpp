// Models: privacy programs and their assumption checks.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "models/known_constants.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

using namespace rdpdyn;

namespace {
RunSpec base(LsiSpec lsi, double eta = 0.02) {
  RunSpec spec;
  spec.algorithm.phases = {Phase::of(10, eta, 0.02)};
  spec.algorithm.n = 5000;
  spec.algorithm.sensitivity = 4.0;
  spec.lsi = lsi;
  spec.orders = {2.0};
  return spec;
}
}  // namespace

TEST_CASE("Strongly convex model refuses eta >= 1/beta (C21 Lemma 5)", "[models]") {
  const RunSpec bad = base(LsiSpec::strongly_convex(1.0, 4.0), 0.25);
  try {
    build_program(bad);
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.eta");
    CHECK(e.value() == "0.25");
    CHECK_THAT(e.rule(), Catch::Contains("1/beta") && Catch::Contains("Lemma 5"));
  }
  CHECK_NOTHROW(build_program(base(LsiSpec::strongly_convex(1.0, 4.0), 0.2499)));
}

TEST_CASE("Strongly convex model: c = lambda / (2 sigma^2) from a Gaussian initialisation", "[models]") {
  const PrivacyProgram p = build_program(base(LsiSpec::strongly_convex(2.0, 4.0)));
  REQUIRE(p.step_count() == 10);
  CHECK(std::get<ConstantLsi>(p.step(3).diffusion.lsi).c == Approx(2.0 / (2 * 0.0004)));
  CHECK(p.initial_inverse_lsi == Approx(2 * 0.0004 / 2.0));
  CHECK(p.step(0).diffusion.sensitivity == Approx(4.0 / 5000));  // S_v = S_g / n (C21 Lemma 4)
}

TEST_CASE("Recursion model: Lipschitz map 1 - eta lambda before each Gaussian-convolution step", "[models]") {
  const PrivacyProgram p = build_program(base(LsiSpec::recursion(1.0, 4.0)));
  REQUIRE(p.step(0).before.size() == 1);
  CHECK(std::get<LipschitzMap>(p.step(0).before[0]).lipschitz == Approx(0.98));
  CHECK(std::holds_alternative<GaussianConvolutionLsi>(p.step(0).diffusion.lsi));
  CHECK(p.initial_inverse_lsi == 0.0);  // point initialisation
  LsiSpec given = LsiSpec::recursion(0.0, 0.0);
  given.lipschitz = 1.0;
  given.c0 = 50.0;
  const PrivacyProgram q = build_program(base(given, 0.9));  // no eta check with a given L
  CHECK(std::get<LipschitzMap>(q.step(0).before[0]).lipschitz == 1.0);
  CHECK(q.initial_inverse_lsi == Approx(0.02));
}

TEST_CASE("Phases run in order with their own eta, sigma and gamma", "[models]") {
  RunSpec spec = base(LsiSpec::constant(3.0));
  spec.algorithm.phases = {Phase::of(2, 0.1, 1.0), Phase::of(3, 0.2, 2.0)};
  spec.algorithm.phases[0].gamma = 0.9;
  const PrivacyProgram p = build_program(spec);
  REQUIRE(p.step_count() == 5);
  REQUIRE(p.phases().size() == 2);  // one program phase per configured phase
  CHECK(p.phases()[0].count == 2);
  CHECK(p.step(1).diffusion.sigma == 1.0);
  CHECK(p.step(1).gamma.value == 0.9);
  CHECK(p.step(2).diffusion.duration == 0.2);
  CHECK(p.step(4).gamma.value == 0.5);
}

TEST_CASE("A 10^6-step run is a handful of phases: events and batches split only where they act", "[models][phases]") {
  RunSpec spec = base(LsiSpec::recursion(1.0, 4.0));
  spec.algorithm.phases = {Phase::of(600000, 0.02, 0.02), Phase::of(400000, 0.01, 0.03)};
  spec.events = {{0, GaussianRelease{0.1, 1.0}}, {500000, LipschitzMap{0.9}}, {1000000, GaussianRelease{0.2, 1.0}}};
  const PrivacyProgram p = build_program(spec);
  REQUIRE(p.step_count() == 1000000);
  // [0], [1, 499999), [499999], [500000, 600000), [600000, 999999), [999999]
  REQUIRE(p.phases().size() == 6);
  CHECK(p.phases()[1].count == 499998);
  CHECK(p.step(0).before.size() == 2);  // the release, then the gradient map (C21 Lemma 8)
  CHECK(std::holds_alternative<GaussianRelease>(p.step(0).before[0]));
  CHECK(std::get<LipschitzMap>(p.step(499999).after[0]).lipschitz == 0.9);
  CHECK(p.step(500000).after.empty());
  CHECK(p.step(600000).diffusion.duration == 0.01);
  CHECK(p.step(999999).after.size() == 1);

  // Noisy SGD, the record in batch 1 of 4 in every epoch: record-free runs between single
  // releasing steps; with the record in every batch, one phase per configured phase.
  RunSpec sgd = base(LsiSpec::recursion(1.0, 4.0));
  sgd.algorithm.kind = AlgorithmKind::NoisySgd;
  sgd.algorithm.phases = {Phase::of(10, 0.02, 0.02)};
  sgd.algorithm.batch_size = 1250;  // 4 batches per epoch
  sgd.algorithm.sampling = BatchSampling::Partition;
  const PrivacyProgram one = build_noisy_sgd_program(sgd, 1);
  REQUIRE(one.step_count() == 10);
  std::vector<std::int64_t> counts;
  for (const auto& phase : one.phases()) counts.push_back(phase.count);
  CHECK(counts == std::vector<std::int64_t>{1, 1, 3, 1, 3, 1});  // steps 1, 5, 9 hold the record
  for (std::int64_t k = 0; k < 10; ++k) {
    INFO("step " << k);
    CHECK(one.step(k).gamma.value == (k % 4 == 1 ? 1.0 : 0.5));
    CHECK(one.step(k).before.size() == (k % 4 == 1 ? 2u : 1u));
    CHECK(one.step(k).diffusion.sensitivity == 0.0);
  }
  sgd.algorithm.phases = {Phase::of(1000000, 0.02, 0.02)};
  CHECK(build_noisy_sgd_program(sgd, std::nullopt).phases().size() == 1);
}

TEST_CASE("Squared loss refuses eta >= 1 and Langevin refuses step-based LSI models", "[models]") {
  RunSpec sq = base(LsiSpec::squared_loss(), 1.0);
  sq.algorithm.loss = LossKind::Squared;
  CHECK_THROWS_AS(build_program(sq), SpecError);
  RunSpec lg = base(LsiSpec::recursion(1.0, 4.0));
  lg.algorithm.kind = AlgorithmKind::Langevin;
  lg.algorithm.time = 1.0;
  lg.algorithm.sigma = 1.0;
  CHECK_THROWS_AS(build_program(lg), SpecError);
}

TEST_CASE("Spectrum enclosure: each computed eigenvalue within its radius of an exact one", "[models][constants]") {
  // [[2, 1], [1, 2]] has eigenvalues 1 and 3 exactly; a rotated diag(0.3, 1, 2.5) has 0.3, 1, 2.5
  // up to the rounding of the rotation.
  Eigen::MatrixXd A(2, 2);
  A << 2, 1, 1, 2;
  const SpectrumEnclosure a = enclose_symmetric_spectrum(A);
  REQUIRE(a.eigenvalues.size() == 2);
  CHECK(std::abs(a.eigenvalues[0] - 1.0) <= a.radius[0]);
  CHECK(std::abs(a.eigenvalues[1] - 3.0) <= a.radius[1]);
  CHECK(a.min_upper() >= 1.0);
  CHECK(a.max_lower() <= 3.0);
  CHECK(a.radius[0] < 1e-14);
}

TEST_CASE("Exact LSI infimum: 1/max lambda_max of the covariance, as quadratic_exact computes it",
          "[models][constants]") {
  // A non-diagonal H and an isotropic start: the eigen-direction recursion of known_constants
  // against the full covariance recursion of models/quadratic_exact.
  Eigen::MatrixXd H(3, 3);
  H << 1.2, 0.4, 0.0, 0.4, 0.8, 0.3, 0.0, 0.3, 2.0;
  KnownDynamics k;
  k.source = "quadratic.hessian";
  k.spectrum = enclose_symmetric_spectrum(H);
  for (double s0 : {0.0, 0.05, 2.0}) {
    k.initial_std = s0 > 0 ? std::optional<double>(s0) : std::nullopt;
    quadratic::QuadraticProblem p;
    p.hessian = H;
    p.n = 100;
    p.eta = 0.2;
    p.sigma = 0.5;
    p.sensitivity = 1;
    if (s0 > 0) p.initial_covariance = s0 * s0 * Eigen::MatrixXd::Identity(3, 3);
    double worst = s0 * s0;
    for (const auto& laws : quadratic::step_laws(p, 60)) {
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> e(laws.covariance);
      worst = std::max(worst, e.eigenvalues().maxCoeff());
    }
    const LsiInfimum c = exact_lsi_infimum(k, {Phase::of(60, 0.2, 0.5)});
    CHECK(c.nominal == Approx(1.0 / worst).epsilon(1e-12));
    CHECK(c.upper >= c.nominal);
    CHECK(c.upper <= c.nominal * (1 + 1e-12));
    if (s0 == 2.0) CHECK(c.step == 0);  // the start is the widest law
  }
}

TEST_CASE("Declared constants are checked when the program is built, too", "[models][constants]") {
  // The squared-loss case built directly (check_model_assumptions runs in build_program).
  LsiSpec lsi = LsiSpec::recursion(0.0, 0.0);
  lsi.lipschitz = 0.5;
  RunSpec sq = base(lsi, 0.02);
  sq.algorithm.loss = LossKind::Squared;
  try {
    build_program(sq);
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.key() == "lsi.lipschitz");
    CHECK(e.value() == "0.5");
    CHECK_THAT(e.rule(), Catch::Contains("0.98"));
  }
  // A generic loss: not checkable, accepted (and listed as declared).
  RunSpec generic = base(lsi, 0.02);
  CHECK_NOTHROW(build_program(generic));
  const ConstantProvenance p = constant_provenance(generic);
  CHECK(std::any_of(p.declared.begin(), p.declared.end(),
                    [](const std::string& e) { return e.rfind("lsi.lipschitz = 0.5 (", 0) == 0; }));
}

TEST_CASE("The exact quadratic divergence is reported only for the start the run states", "[models][quadratic]") {
  // compare's "exact" line and solve's quadratic-exact curve claim the run's own divergence: the
  // problem encodes a point start or [quadratic] initial_std, nothing else.
  RunSpec s = base(LsiSpec::recursion(0.5, 2.0));
  s.algorithm.loss = LossKind::Quadratic;
  s.quadratic = QuadraticLoss{{{1.0}}, std::nullopt, std::nullopt};
  CHECK(quadratic_exact_applies(s));  // point start
  s.lsi.c0 = 4.0;
  CHECK_FALSE(quadratic_exact_applies(s));  // a declared LSI constant is not a law
  s.quadratic->initial_std = 0.5;
  CHECK(quadratic_exact_applies(s));  // the stated N(mu, 0.25 I)
  RunSpec sc = base(LsiSpec::strongly_convex(0.5, 2.0));
  sc.algorithm.loss = LossKind::Quadratic;
  sc.quadratic = QuadraticLoss{{{1.0}}, std::nullopt, std::nullopt};
  CHECK_FALSE(quadratic_exact_applies(sc));  // C21 Lemma 5's Gaussian start, not encoded
  RunSpec two = base(LsiSpec::recursion(0.5, 2.0));
  two.algorithm.loss = LossKind::Quadratic;
  two.quadratic = QuadraticLoss{{{1.0}}, std::nullopt, std::nullopt};
  two.algorithm.phases.push_back(Phase::of(5, 0.02, 0.02));
  CHECK_FALSE(quadratic_exact_applies(two));  // one phase only
}
