// Poisson-sampled DP-SGD whose expected batch size doubles halfway (docs/config.md, "Rates that
// change along the run"): composed phase by phase by the accountants that take changing rates,
// refused by name by every other entry, and checked against the phases accounted one by one and
// against dp_accounting on the same events.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "commands/calibrate.hpp"
#include "commands/compare.hpp"
#include "io/config.hpp"
#include "numerics/spec_error.hpp"
#include "solver/engine_registry.hpp"

using namespace rdpdyn;

namespace {

const std::string kHead = R"([orders]
values = [2, 4, 8, 16, 32, 64]
[domain]
adjacency = "add-remove"
[report]
delta = 1e-5
[algorithm]
kind = "noisy-sgd"
sampling = "poisson"
n = 50000
noise_multiplier = 1.1
)";

// 5000 steps at expected batch 256, then 5000 at 512.
const std::string kDoubling = kHead + R"(batch_size = 256
[[algorithm.schedule]]
steps = 5000
[[algorithm.schedule]]
steps = 5000
batch_size = 512
)";

std::map<std::string, ComparisonEntry> compare_text(const std::string& text) {
  const RunConfig config = parse_config_text(text, "<test>");
  std::map<std::string, ComparisonEntry> out;
  for (auto& e : run_comparison(config, engine_registry(MPI_COMM_SELF)).entries) out[e.result.name] = e;
  return out;
}

}  // namespace

TEST_CASE("A Poisson run whose batch size doubles halfway: the phases composed", "[compare][changing-rates]") {
  const auto doubling = compare_text(kDoubling);
  const auto first = compare_text(kHead + "batch_size = 256\nsteps = 5000\n");
  const auto second = compare_text(kHead + "batch_size = 512\nsteps = 5000\n");
  for (const char* name : {"composition-sgm", "composition-pld", "composition-gaussian"}) {
    INFO(name);
    const ComparisonEntry& e = doubling.at(name);
    REQUIRE(e.result.applies);
    // R composes by addition (Mironov 2017 Prop. 1): the two halves' R summed, each rounded up on its
    // own (a margin of 5000 steps), against the whole rounded up once (10000 steps: about 2e-12).
    for (std::size_t j = 0; j < e.result.R.size(); ++j) {
      const double sum = first.at(name).result.R[j] + second.at(name).result.R[j];
      CHECK(e.result.R[j] == Approx(sum).epsilon(1e-11));
    }
    // More steps than either half, at either rate: epsilon above each half's.
    CHECK(e.epsilon > first.at(name).epsilon);
    CHECK(e.epsilon > second.at(name).epsilon);
  }
  // dp_accounting b5b0286 (0.6.0) on ComposedDpEvent([SelfComposed(PoissonSampled(256/50000,
  // Gaussian(1.1)), 5000), SelfComposed(PoissonSampled(512/50000, Gaussian(1.1)), 5000)]):
  //  - RdpAccountant at orders 2..64: R; ours is the same up to the outward rounding, never below;
  //  - PLDAccountant(value_discretization_interval = 1e-4).get_epsilon(1e-5) = 4.085595708923414.
  const double dp_rdp[] = {0.8422095540227643, 1.7429423793835261, 3.7891395724840695,
                           13556.531070932608, 81361.44626382696,  214400.31087328424};
  for (std::size_t j = 0; j < 6; ++j) {
    CHECK(doubling.at("composition-sgm").result.R[j] >= dp_rdp[j]);
    CHECK(doubling.at("composition-sgm").result.R[j] == Approx(dp_rdp[j]).epsilon(1e-10));
  }
  const double pld = doubling.at("composition-pld").epsilon;
  CHECK(pld >= 4.085595708923414 * (1.0 - 1e-4));
  CHECK(pld <= 4.085595708923414 * 1.005);
  // Every other entry refuses the run by name.
  for (const auto& [name, e] : doubling)
    if (name != "composition-sgm" && name != "composition-pld" && name != "composition-gaussian" && e.result.applies)
      FAIL(name << " applies to a run whose rate changes");
  CHECK(doubling.at("gdp-composition").result.reason.find("algorithm.schedule[1].sampling_rate = 0.01024") !=
        std::string::npos);
}

TEST_CASE("Phases that keep the run's rate are the single-phase run", "[compare][changing-rates]") {
  const auto phased = compare_text(kHead + R"(batch_size = 256
[[algorithm.schedule]]
steps = 5000
[[algorithm.schedule]]
steps = 5000
batch_size = 256
)");
  const auto single = compare_text(kHead + "batch_size = 256\nsteps = 10000\n");
  CHECK(phased.at("composition-pld").epsilon == Approx(single.at("composition-pld").epsilon).epsilon(1e-9));
  CHECK(phased.at("composition-sgm").epsilon == Approx(single.at("composition-sgm").epsilon).epsilon(1e-9));
  CHECK(phased.at("gdp-composition").result.applies == single.at("gdp-composition").result.applies);
}

TEST_CASE("Changing rates: the PDI refuses them by key, fixed-size batches take no phases",
          "[config][changing-rates]") {
  const RunConfig config = parse_config_text(kDoubling, "<test>");
  CHECK(config.spec.algorithm.phases.at(1).sampling_rate == 512.0 / 50000.0);
  CHECK_FALSE(config.spec.algorithm.phases.at(0).sampling_rate.has_value());
  // A phase's C21 sigma in a run without C21 units would be ignored by the accountants: refused.
  try {
    parse_config_text(kDoubling + "sigma = 0.001\n", "<test>");
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.schedule[1].sigma");
  }
  try {
    std::string shuffled = kDoubling;
    shuffled.replace(shuffled.find("\"poisson\""), 9, "\"shuffle\"");
    shuffled.replace(shuffled.find("batch_size = 256"), 16, "batch_size = 250");
    parse_config_text(shuffled, "<test>");
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.schedule");
  }
}

TEST_CASE("Changing rates: calibrate refuses them (one noise level, one rate)", "[calibrate][changing-rates]") {
  // A candidate scales one multiplier of one rate; a phase with its own would keep its own (found by
  // review: calibrate reported m = 0.7916 for epsilon <= 12 where the run with it gives 19.39).
  const RunConfig config = parse_config_text(kDoubling, "<test>");
  for (const CalibrationTarget target :
       {CalibrationTarget::NoiseMultiplier, CalibrationTarget::Steps, CalibrationTarget::Sigma}) {
    CalibrationRequest request;
    request.epsilon = 12.0;
    request.delta = 1e-5;
    request.target = target;
    try {
      calibrate_run(config, request, engine_registry(MPI_COMM_SELF));
      FAIL("calibrated");
    } catch (const SpecError& e) {
      CHECK(e.key() == "algorithm.schedule[1].sampling_rate");
    }
  }
}

TEST_CASE("A rate given as an expression in the step: the same run as its phases", "[compare][changing-rates]") {
  // batch_size = "256 * (1 + (k >= K / 2))": 256 for the first 5000 steps, 512 after.
  const auto expression = compare_text(kHead + "batch_size = \"256 * (1 + (k >= K / 2))\"\nsteps = 10000\n");
  const auto phases = compare_text(kDoubling);
  for (const char* name : {"composition-sgm", "composition-pld", "composition-gaussian"}) {
    INFO(name);
    REQUIRE(expression.at(name).result.applies);
    CHECK(expression.at(name).epsilon == phases.at(name).epsilon);
    CHECK(expression.at(name).result.R == phases.at(name).result.R);
  }
  const RunConfig config =
      parse_config_text(kHead + "sampling_rate = \"0.01 + 0.01 * (k >= 3)\"\nsteps = 5\n", "<test>");
  REQUIRE(config.spec.algorithm.phases.size() == 2);
  CHECK(config.spec.algorithm.phases[0].steps == 3);
  CHECK_FALSE(config.spec.algorithm.phases[0].sampling_rate.has_value());
  CHECK(config.spec.algorithm.phases[1].sampling_rate == 0.02);
  // A rate outside (0, 1] at some step names the key, the value and the step; epochs need one rate.
  const auto key_of = [](const std::string& text) {
    try {
      parse_config_text(text, "<test>");
    } catch (const SpecError& e) {
      return e.key() + " | " + e.value();
    }
    return std::string("(accepted)");
  };
  CHECK(key_of(kHead + "sampling_rate = \"0.5 * k\"\nsteps = 5\n") ==
        "algorithm.sampling_rate | 0 at step k = 0 (K = 5, algorithm.sampling_rate = \"0.5 * k\")");
  CHECK(key_of(kHead + "sampling_rate = \"0.01 * (1 + k / K)\"\nepochs = 3\n") == "algorithm.epochs | 3");
}
