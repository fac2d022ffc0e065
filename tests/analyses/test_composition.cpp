// The composition accountants on configured runs (analyses/composition.hpp): what is counted per
// sampling scheme, phase-by-phase composition with released Gaussian events and R_0 (Mironov 2017,
// arXiv:1702.07476, Prop. 1 and 7), Poisson sampling and add/remove adjacency, accounting-only runs
// and the refusals of the analyses that need what such a run leaves out.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "analyses/analysis.hpp"
#include "analyses/composition.hpp"
#include "accounting/sampled_gaussian.hpp"
#include "models/noise_units.hpp"
#include "models/privacy_model.hpp"
#include "numerics/numerical_failure.hpp"
#include "numerics/spec_error.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {

/// The registry's value is the function's, rounded outward (docs/analyses.md, "Outward rounding"):
/// never below it and within 1e-12 relative.
void check_rounded_up(const std::vector<double>& registry, const std::vector<double>& raw) {
  REQUIRE(registry.size() == raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    CHECK(registry[i] >= raw[i]);
    CHECK(registry[i] <= raw[i] * (1 + 1e-12));
  }
}

/// Noisy SGD, n = 1000, b = 100 (N = 10 batches per epoch), eta = 0.05, sigma = 0.1, S_g = 1.
RunConfig sgd(BatchSampling sampling, std::int64_t steps) {
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = AlgorithmKind::NoisySgd;
  s.algorithm.sampling = sampling;
  s.algorithm.batch_size = 100;
  if (sampling == BatchSampling::Poisson) s.algorithm.sampling_rate = 0.1;
  s.algorithm.n = 1000;
  s.algorithm.sensitivity = 1.0;
  s.algorithm.phases = {Phase::of(steps, 0.05, 0.1)};
  s.lsi = LsiSpec::recursion(0.0, 4.0);
  s.gradients_norm_bounded = true;
  s.orders = {1.5, 2.0, 8.0};
  s.gamma = GammaChoice::optimal();
  return c;
}

/// Per use: alpha Delta^2 / (2 s^2) with Delta = eta S_g / b, s^2 = 2 eta sigma^2 (Mironov 2017 Prop. 7).
double per_use(double alpha, double eta, double sigma, double sg, double b) {
  const double delta = eta * sg / b;
  return alpha * delta * delta / (2.0 * 2.0 * eta * sigma * sigma);
}

AnalysisResult assess(const RunConfig& c, const std::string& name) {
  EngineRegistry engines;
  engines.add(make_characteristics_engine());
  const TrainingRun run = training_run_of(c.spec);
  return find_analysis(name)->assess({c, run, engines}, c.spec.orders);
}

}  // namespace

TEST_CASE("composition-gaussian counts the uses of the record per sampling scheme", "[composition]") {
  // 205 steps, N = 10: partition-type schemes use the record ceil(205 / 10) = 21 times (the worst
  // position j = 0..4 is in 21 batches), every-step schemes 205 times.
  const struct {
    BatchSampling s;
    double uses;
  } expected[] = {
      {BatchSampling::Partition, 21}, {BatchSampling::ShuffleOnce, 21}, {BatchSampling::Shuffle, 21},
      {BatchSampling::PerStep, 205},  {BatchSampling::Poisson, 205},
  };
  for (const auto& e : expected) {
    INFO(batch_sampling_name(e.s));
    const RunConfig c = sgd(e.s, 205);
    const AnalysisResult r = composition_gaussian(c.spec, training_run_of(c.spec));
    REQUIRE(r.applies);
    for (std::size_t i = 0; i < c.spec.orders.size(); ++i)
      CHECK(r.R[i] == Approx(e.uses * per_use(c.spec.orders[i], 0.05, 0.1, 1.0, 100.0)).epsilon(1e-13));
    // The registry entry is the same (no paper-setting gate in between).
    check_rounded_up(assess(c, "composition-gaussian").R, r.R);
  }
}

TEST_CASE("composition-gaussian with phases of mini-batches: the worst position / the worst step per epoch",
          "[composition]") {
  // N = 10; phases {15 steps, sigma .2}, {10 steps, sigma .1}: per use w1 (first) and w2 = 4 w1.
  // partition: position j < 5 is used at j, j + 10 (first phase), j + 20 (second): 2 w1 + w2 = 6 w1;
  // j >= 5 at j (first), j + 10 (second): 5 w1. shuffle: epochs [0,10) w1, [10,20) max = w2,
  // [20,25) w2: 9 w1.
  for (auto [sampling, units] : {std::pair{BatchSampling::Partition, 6.0}, std::pair{BatchSampling::Shuffle, 9.0}}) {
    RunConfig c = sgd(sampling, 0);
    c.spec.algorithm.phases = {Phase::of(15, 0.05, 0.2), Phase::of(10, 0.05, 0.1)};
    const AnalysisResult r = composition_gaussian(c.spec, training_run_of(c.spec));
    REQUIRE(r.applies);
    CHECK(r.R[1] == Approx(units * per_use(2.0, 0.05, 0.2, 1.0, 100.0)).epsilon(1e-13));
  }
}

TEST_CASE("composition-gaussian on Ye & Shokri's FMNIST run: 1200 uses (epochs), not 34800 (steps)", "[composition]") {
  // examples/ye_shokri_fmnist.toml: b = 2048, n = 59392 (N = 29), 34800 steps, eta = 1.92, S_g = 4,
  // DP-SGD multiplier 3.01 (C = S_g / 2, replace adjacency): z = 1.505, per use alpha / (2 z^2).
  RunConfig c = sgd(BatchSampling::ShuffleOnce, 34800);
  RunSpec& s = c.spec;
  s.algorithm.batch_size = 2048;
  s.algorithm.n = 59392;
  s.algorithm.sensitivity = 4.0;
  s.algorithm.phases = {Phase::of(34800, 1.92, noise_units::c21_sigma_from_dpsgd_multiplier(3.01, 1.92, 4.0, 2048))};
  const AnalysisResult r = composition_gaussian(s, training_run_of(s));
  REQUIRE(r.applies);
  CHECK_THAT(r.reason, Catch::Contains("1200 uses"));
  for (std::size_t i = 0; i < s.orders.size(); ++i)
    CHECK(r.R[i] == Approx(1200 * s.orders[i] / (2 * 1.505 * 1.505)).epsilon(1e-12));
}

TEST_CASE("composition composes phase by phase, adds released Gaussians and R_0", "[composition]") {
  // examples/schedule_phases.toml: phases {100, eta .01, sigma .1}, {900}, {500, eta .02}, tail of 500 at
  // eta = sigma = .05, n = 10000, S_g = 2, one released Gaussian (Delta 2e-4, s 0.01).
  RunConfig c;
  RunSpec& s = c.spec;
  s.algorithm.kind = AlgorithmKind::NoisyGd;
  s.algorithm.n = 10000;
  s.algorithm.batch_size = 10000;
  s.algorithm.sensitivity = 2.0;
  s.algorithm.phases = {Phase::of(100, 0.01, 0.1), Phase::of(900, 0.05, 0.05), Phase::of(500, 0.02, 0.05),
                        Phase::of(500, 0.05, 0.05)};
  s.lsi = LsiSpec::recursion(0.5, 10.0);
  s.orders = {1.1, 2.0, 64.0};
  s.events = {{500, GaussianRelease{0.0002, 0.01}}};
  double per_alpha = 0.0;
  for (const auto& p : s.algorithm.phases)
    per_alpha += static_cast<double>(p.steps) * per_use(1.0, p.eta, p.sigma, 2.0, 1e4);
  per_alpha += 0.0002 * 0.0002 / (2 * 0.01 * 0.01);
  const TrainingRun run = training_run_of(s);
  const AnalysisResult r = composition_gaussian(s, run);
  REQUIRE(r.applies);
  CHECK_THAT(r.reason, Catch::Contains("4 phases") && Catch::Contains("1 released Gaussian"));
  for (std::size_t i = 0; i < 3; ++i) CHECK(r.R[i] == Approx(per_alpha * s.orders[i]).epsilon(1e-13));
  CHECK(r.R[0] == Approx(1.1 * (3.21e-4 + 2e-4)).epsilon(1e-12));  // alpha S_g^2/(4 n^2) sum eta_k/sigma_k^2 + event
  // The paper analyses still refuse the schedule; the accountant, through the registry, does not.
  CHECK_FALSE(assess(c, "ye-shokri-d6").applies);
  check_rounded_up(assess(c, "composition-gaussian").R, r.R);

  // A phase with S_g = 0 costs nothing.
  RunSpec z = s;
  z.events.clear();
  z.algorithm.phases[1].sensitivity = 0.0;
  const AnalysisResult rz = composition_gaussian(z, training_run_of(z));
  REQUIRE(rz.applies);
  CHECK(rz.R[1] == Approx(2.0 * (per_alpha - 2e-4 - 900 * per_use(1.0, 0.05, 0.05, 2.0, 1e4))).epsilon(1e-12));

  // R_0 (composition with the release of the initial iterate): linear, power, table.
  for (const InitialCurve& init : {InitialCurve{LinearCurve{0.01}}, InitialCurve{PowerCurve{0.001, 2.0}},
                                   InitialCurve{TableCurve{{1.05, 2.0, 100.0}, {0.001, 0.01, 0.5}}}}) {
    RunSpec w = s;
    w.initial = init;
    const AnalysisResult ri = composition_gaussian(w, training_run_of(w));
    REQUIRE(ri.applies);
    CHECK_THAT(ri.reason, Catch::Contains("R_0 added"));
    for (std::size_t i = 0; i < 3; ++i)
      CHECK(ri.R[i] == Approx(r.R[i] + initial_rdp(init, s.orders[i])).epsilon(1e-13));
  }
  RunSpec bad = s;
  bad.initial = FunctionCurve{[](double a) { return 1.0 - a; }, "1 - alpha"};
  CHECK_THAT(composition_gaussian(bad, training_run_of(bad)).reason, Catch::Contains("is not a bound >= 0"));

  // Zero steps: events are not applied (as in the solver); R = R_0.
  RunSpec none = s;
  for (auto& p : none.algorithm.phases) p.steps = 0;
  none.initial = LinearCurve{0.01};
  const AnalysisResult r0 = composition_gaussian(none, training_run_of(none));
  REQUIRE(r0.applies);
  CHECK(r0.R[1] == Approx(0.02).epsilon(1e-15));

  // Langevin: no released iterates.
  RunSpec lv = s;
  lv.algorithm.kind = AlgorithmKind::Langevin;
  CHECK_THAT(composition_gaussian(lv, training_run_of(lv)).reason, Catch::Contains("Langevin"));
  CHECK_THAT(composition_sgm(lv, training_run_of(lv)).reason, Catch::Contains("sampling = full-batch"));
}

TEST_CASE("composition-sgm with events and R_0; Poisson under replace needs the declared norm bound",
          "[composition][sgm]") {
  RunConfig c = sgd(BatchSampling::Poisson, 300);
  RunSpec& s = c.spec;
  s.events = {{0, GaussianRelease{0.001, 0.1}}};
  s.initial = LinearCurve{0.002};
  const double z = noise_units::effective_noise_multiplier(0.1, 0.05, 1.0, 100.0);  // b = q n = 100
  const AnalysisResult r = composition_sgm(s, training_run_of(s));
  REQUIRE(r.applies);
  CHECK_THAT(r.reason, Catch::Contains("Poisson, q = 0.1") && Catch::Contains("as declared"));
  for (std::size_t i = 0; i < s.orders.size(); ++i) {
    const double a = s.orders[i];
    CHECK(r.R[i] ==
          Approx(300 * sampled_gaussian_rdp(0.1, z, a) + a * (0.001 * 0.001 / (2 * 0.01)) + 0.002 * a).epsilon(1e-11));
  }
  s.gradients_norm_bounded = false;
  const AnalysisResult refused = composition_sgm(s, training_run_of(s));
  CHECK_FALSE(refused.applies);
  CHECK_THAT(refused.reason, Catch::Contains("under replace adjacency") && Catch::Contains("lipschitz_loss = true"));
  CHECK(composition_gaussian(s, training_run_of(s)).applies);  // no amplification: no assumption
  // Add/remove: MTZ19's own setting, no declaration needed.
  s.adjacency = Adjacency::AddRemove;
  CHECK(composition_sgm(s, training_run_of(s)).applies);
  CHECK_THAT(composition_sgm(s, training_run_of(s)).reason, Catch::Contains("MTZ19's setting"));
  // Fixed-size batches under add/remove stay refused (the slot is refilled).
  RunConfig fixed = sgd(BatchSampling::PerStep, 300);
  fixed.spec.adjacency = Adjacency::AddRemove;
  for (const char* name : {"composition-sgm", "composition-gaussian"})
    CHECK_THAT(assess(fixed, name).reason, Catch::Contains("adjacency = add-remove with fixed-size batches"));
}

TEST_CASE("The PDI treats Poisson sampling as a release at every step (b = q n): composition-gaussian",
          "[composition][pdi]") {
  RunConfig c = sgd(BatchSampling::Poisson, 200);
  const AnalysisResult pdi = assess(c, "pdi"), g = assess(c, "composition-gaussian");
  REQUIRE(pdi.applies);
  REQUIRE(g.applies);
  // The floor, independent of this code: a linear loss (lambda = 0 declared), the record's gradient
  // +S_g/2 against -S_g/2 (norms <= S_g/2 declared), the others 0: the last iterates are
  // sum_j Bin(j; 200, 0.1) N(-+ j d/2, V), d = eta S_g / b = 5e-4, V = 200 (2 eta sigma^2) = 0.2; their
  // R at orders 1.5, 2, 8 by quadrature (tests/soundness/floors/values.py, "pdi_poisson_linear").
  const double floor[] = {0.000374997853258, 0.00049999713761, 0.0019999885543};
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("order " << c.spec.orders[i] << ": pdi " << pdi.R[i] << ", floor " << floor[i]);
    CHECK(pdi.R[i] >= floor[i]);
  }
  // The release at every step: 200 Gaussian mechanisms of shift d over the noise sqrt(2 eta) sigma,
  // alpha 200 d^2 / (2 (2 eta sigma^2)) (Mironov 2017 Prop. 7; the bound pdi claims here, by hand).
  for (std::size_t i = 0; i < 3; ++i)
    CHECK(pdi.R[i] == Approx(c.spec.orders[i] * 200 * 5e-4 * 5e-4 / (2 * 2 * 0.05 * 0.1 * 0.1)).epsilon(1e-12));
  // Consistency check (two routes of this code, not a floor): composition-gaussian's value.
  for (std::size_t i = 0; i < g.R.size(); ++i) CHECK(pdi.R[i] == Approx(g.R[i]).epsilon(1e-12));
  // The expected batch size is the normaliser: q = 0.05 doubles Delta, quadruples the cost.
  RunConfig half = c;
  half.spec.algorithm.sampling_rate = 0.05;
  const AnalysisResult pdi2 = assess(half, "pdi");
  REQUIRE(pdi2.applies);
  CHECK(pdi2.R[1] == Approx(4 * pdi.R[1]).epsilon(1e-12));
  // Add/remove: the PDI refuses, with its reason.
  c.spec.adjacency = Adjacency::AddRemove;
  CHECK_THAT(assess(c, "pdi").reason, Catch::Contains("replace-one neighbours"));
}

TEST_CASE("An accounting-only run: the analyses that need eta, S_g or [lsi] say so", "[composition][refusal]") {
  // examples/dpsgd_accounting.toml without the parser: noise multiplier only.
  RunConfig c = sgd(BatchSampling::Poisson, 10000);
  RunSpec& s = c.spec;
  s.algorithm.sampling_rate = 0.01;
  s.algorithm.n = 60000;
  s.algorithm.batch_size = 600;
  s.algorithm.noise_multiplier = 1.1;
  s.algorithm.declares_eta = s.algorithm.declares_sensitivity = s.declares_lsi = false;
  s.algorithm.sensitivity = 0.0;
  s.algorithm.phases = {Phase::of(10000, 0.0, 0.0)};
  s.lsi = LsiSpec{};
  s.gradients_norm_bounded = false;
  s.adjacency = Adjacency::Replace;  // so that the step-size refusal, not the adjacency, is reported
  s.orders = {2.0, 4.0};
  const TrainingRun run = training_run_of(s);
  REQUIRE(run.noise_multiplier);
  CHECK(*run.noise_multiplier == 0.55);  // replace: z = m / 2
  for (const char* name : {"altschuler-talwar-b1", "altschuler-talwar-b2", "pabi-strongly-convex", "ye-shokri-thm4.3"})
    CHECK_THAT(assess(c, name).reason, Catch::Equals("needs a step size (algorithm.eta); the run declares none"));
  CHECK_THAT(assess(c, "pdi").reason, Catch::Contains("'algorithm.eta' = missing") && Catch::Contains("[lsi]"));
  const AnalysisResult g = assess(c, "composition-gaussian");
  REQUIRE(g.applies);
  CHECK(g.R[0] == Approx(10000 * 2.0 / (2 * 0.55 * 0.55)).epsilon(1e-11));
  // Add/remove: z = m = 1.1, and composition-sgm applies without any declaration.
  s.adjacency = Adjacency::AddRemove;
  const TrainingRun ar = training_run_of(s);
  CHECK(*ar.noise_multiplier == 1.1);
  const AnalysisResult sgm = assess(c, "composition-sgm");
  REQUIRE(sgm.applies);
  CHECK(sgm.R[0] == Approx(10000 * sampled_gaussian_rdp(0.01, 1.1, 2.0)).epsilon(1e-11));
  // eta given, S_g not: the next missing constant is named.
  s.algorithm.declares_eta = true;
  s.algorithm.phases = {Phase::of(10000, 0.1, 0.0)};
  s.adjacency = Adjacency::Replace;
  CHECK_THAT(assess(c, "ye-shokri-thm4.3").reason,
             Catch::Equals("needs the gradient sensitivity S_g (algorithm.sensitivity); the run declares none"));
  s.algorithm.declares_sensitivity = true;
  s.algorithm.sensitivity = 1.0;
  CHECK_THAT(assess(c, "altschuler-talwar-b2").reason,
             Catch::Contains("([lsi] lambda, beta); the run declares no [lsi]"));
}

// Issue 36: "the numerics failed" is NumericalFailure and nothing else; bad input (SpecError) is
// not a std::runtime_error, so the analyses' catch sites (composition-sgm, composition-pld,
// steinke-last-iterate, altschuler-talwar-b1/b2/b3's splits, compare's any-order curve) cannot turn it
// into a refusal or a NaN. scripts/check_layering.py forbids catching std::runtime_error there.
static_assert(!std::is_base_of_v<std::runtime_error, SpecError>, "bad input must not pass as a numerical failure");
static_assert(!std::is_base_of_v<std::invalid_argument, SpecError>, "bad input is not a broken precondition");
static_assert(std::is_base_of_v<std::runtime_error, NumericalFailure>);

TEST_CASE("A numerical failure refuses its route with the reason; bad input is another type",
          "[composition][refusal]") {
  CHECK_THROWS_AS(sampled_gaussian_rdp(0.01, 1.0, 2.5e6 + 0.5), NumericalFailure);
  RunConfig c = sgd(BatchSampling::Poisson, 10);
  c.spec.adjacency = Adjacency::AddRemove;
  c.spec.orders = {2.0, 3e6 + 0.5};  // beyond the sampled Gaussian's expansions (alpha > 1e6)
  for (const char* name : {"composition-sgm", "composition-pld", "steinke-last-iterate"}) {
    INFO(name);
    const AnalysisResult r = assess(c, name);
    CHECK_FALSE(r.applies);
    CHECK_THAT(r.reason, Catch::Contains("numerical evaluation failed") && Catch::Contains("3000000.5"));
  }
  bool caught_as_numerical = false;
  try {
    try {
      throw SpecError("algorithm.sampling_rate", "2", "must lie in (0, 1]");
    } catch (const NumericalFailure&) {
      caught_as_numerical = true;
    }
  } catch (const SpecError& e) {
    CHECK(std::string(e.what()) == "'algorithm.sampling_rate' = 2: must lie in (0, 1]");
  }
  CHECK_FALSE(caught_as_numerical);
}
