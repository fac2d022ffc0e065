// DP-SGD accounting in the configuration (docs/config.md): Poisson sampling (sampling_rate or
// batch_size), add-remove adjacency ("remove" its older spelling), and noisy-sgd runs configured for
// accounting alone (no eta, sensitivity or [lsi]); every rejection names key, value and rule.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "io/config.hpp"
#include "models/noise_units.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"

using namespace rdpdyn;

namespace {

// examples/dpsgd_accounting.toml
const std::string kAccounting = R"(
[orders]
values = [1.5, 2, 3, 4, 8, 16, 32, 64]
[algorithm]
kind = "noisy-sgd"
sampling = "poisson"
sampling_rate = 0.01
steps = 10000
noise_multiplier = 1.1
n = 60000
[domain]
adjacency = "add-remove"
[report]
delta = 1e-5
)";

std::string with(std::string text, const std::string& prefix, const std::string& line) {
  const auto pos = text.find("\n" + prefix);
  if (pos == std::string::npos) return text + line + "\n";
  const auto end = text.find('\n', pos + 1);
  return text.replace(pos + 1, end - pos - 1, line);
}

std::string without(const std::string& text, const std::string& prefix) { return with(text, prefix, ""); }

void check_error(const std::string& text, const std::string& key, const std::string& value,
                 const std::string& rule_part) {
  try {
    parse_config_text(text, "t");
  } catch (const SpecError& e) {
    INFO(e.what());
    CHECK(e.key() == key);
    CHECK(e.value() == value);
    CHECK_THAT(e.rule(), Catch::Contains(rule_part));
    return;
  }
  FAIL("accepted: " << text);
}

}  // namespace

TEST_CASE("An accounting-only DP-SGD configuration parses; the PDI refuses it", "[config][accounting]") {
  const RunConfig cfg = parse_config_text(kAccounting, "t");
  const RunSpec& s = cfg.spec;
  CHECK(s.algorithm.sampling == BatchSampling::Poisson);
  CHECK(s.algorithm.sampling_rate == 0.01);
  CHECK(s.algorithm.batch_size == 600);  // q n, for messages
  CHECK(s.adjacency == Adjacency::AddRemove);
  CHECK_FALSE(s.algorithm.declares_eta);
  CHECK_FALSE(s.algorithm.declares_sensitivity);
  CHECK_FALSE(s.declares_lsi);
  REQUIRE(s.algorithm.noise_multiplier);
  CHECK(*s.algorithm.noise_multiplier == 1.1);
  REQUIRE(s.algorithm.phases.size() == 1);
  CHECK(s.algorithm.phases[0].steps == 10000);
  const TrainingRun run = training_run_of(s);
  CHECK(run.normaliser() == 600.0);
  CHECK(*run.noise_multiplier == 1.1);  // add-remove: z = noise_multiplier
  CHECK_THAT(undeclared(run, {RunConstant::StepSize}).value_or(""),
             Catch::Equals("needs a step size (algorithm.eta); the run declares none"));
  // The PDI names every missing constant.
  try {
    build_program(s);
    FAIL("the PDI accepted an accounting-only run");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.eta");
    CHECK(e.value() == "missing");
    CHECK_THAT(e.rule(), Catch::Contains("algorithm.eta, algorithm.sensitivity, [lsi]"));
  }
  // "remove" is the older spelling of the same adjacency.
  CHECK(parse_config_text(with(kAccounting, "adjacency", "adjacency = \"remove\""), "t").spec.adjacency ==
        Adjacency::AddRemove);
  // Replace adjacency: z = m / 2 (the clipped sum's sensitivity is 2C).
  CHECK(*training_run_of(parse_config_text(without(kAccounting, "adjacency"), "t").spec).noise_multiplier == 0.55);
}

TEST_CASE("Poisson sampling: sampling_rate or batch_size, the noise multiplier with b = q n", "[config][accounting]") {
  // batch_size = 600 of n = 60000 means q = 0.01 (need not divide n for Poisson).
  const std::string by_batch = with(kAccounting, "sampling_rate", "batch_size = 700");
  CHECK(parse_config_text(by_batch, "t").spec.algorithm.sampling_rate == Approx(700.0 / 60000).epsilon(1e-15));
  // With eta and sensitivity the noise is in C21 units: sqrt(2 eta) sigma = eta m C / b, C = S_g
  // (add-remove), b = q n.
  const std::string full = with(with(kAccounting, "n = 60000", "n = 60000\neta = 0.5\nsensitivity = 2"), "[report]",
                                "[lsi]\nkind = \"recursion\"\nlambda = 0\nbeta = 1\n[report]");
  const RunSpec s = parse_config_text(full, "t").spec;
  CHECK(s.algorithm.declares_eta);
  CHECK(s.declares_lsi);
  const double sigma = s.algorithm.phases[0].sigma;
  CHECK(sigma == Approx(std::sqrt(0.25) * 1.1 * 2 / 600).epsilon(1e-15));
  CHECK(noise_units::effective_noise_multiplier(sigma, 0.5, 2.0, 600.0) == Approx(1.1).epsilon(1e-15));
  CHECK(noise_units::dpsgd_multiplier_add_remove_from_c21_sigma(sigma, 0.5, 2.0, 600.0) == Approx(1.1).epsilon(1e-15));
  CHECK_FALSE(training_run_of(s).noise_multiplier);  // C21 units: z from eta, sigma, S_g

  check_error(with(kAccounting, "sampling_rate", "sampling_rate = 0"), "algorithm.sampling_rate", "0",
              "must be in (0, 1]");
  check_error(with(kAccounting, "sampling_rate", "sampling_rate = 1.5"), "algorithm.sampling_rate", "1.5",
              "must be in (0, 1]");
  check_error(with(kAccounting, "sampling_rate", "sampling_rate = 0.01\nbatch_size = 600"), "algorithm.batch_size",
              "600", "not both");
  check_error(without(kAccounting, "sampling_rate"), "algorithm.sampling_rate", "missing",
              "needs sampling_rate (q), or batch_size");
  check_error(with(kAccounting, "sampling_rate", "batch_size = 60001"), "algorithm.batch_size", "60001",
              "must be in [1, n = 60000]");
  check_error(with(kAccounting, "sampling =", "sampling = \"per-step\""), "algorithm.sampling_rate", "0.01",
              "only with sampling = \"poisson\"");
  check_error(with(kAccounting, "adjacency", "adjacency = \"add\""), "domain.adjacency", "\"add\"", "must be one of");
}

TEST_CASE("What may be left out, and when", "[config][accounting]") {
  // Without the noise as a multiplier, eta and sensitivity stay required.
  const std::string sigma_at = with(kAccounting, "noise_multiplier", "sigma_at = 2");
  check_error(sigma_at, "algorithm.sensitivity", "missing", "this key is required");
  check_error(with(sigma_at, "n = 60000", "n = 60000\nsensitivity = 1"), "algorithm.eta", "missing",
              "needed to convert");
  // noisy-gd: unchanged (eta, sensitivity, [lsi] required).
  const std::string gd =
      "[orders]\nvalues = [2]\n[algorithm]\nkind = \"noisy-gd\"\nsteps = 10\nnoise_multiplier = 1\nn = 100\n";
  check_error(gd, "algorithm.sensitivity", "missing", "this key is required");
  check_error(gd + "sensitivity = 1\neta = 0.1\n", "lsi", "missing", "this key is required");
  // noisy-sgd with sigma needs [lsi]? No: [lsi] is optional for every noisy-sgd run.
  const std::string sgd_sigma = with(with(kAccounting, "noise_multiplier", "sigma = 0.1\neta = 0.1\nsensitivity = 1"),
                                     "adjacency", "adjacency = \"replace\"");
  CHECK_FALSE(parse_config_text(sgd_sigma, "t").spec.declares_lsi);
  // A quadratic loss checks its pair against the sensitivity, which must then be given.
  check_error(with(kAccounting, "kind = \"noisy-sgd\"", "kind = \"noisy-sgd\"\nloss = \"quadratic\"") +
                  "[quadratic]\nhessian = [[1]]\n",
              "algorithm.sensitivity", "missing", "quadratic");
}

// ---- epochs (docs/config.md, "Epochs") ---------------------------------------------------------

TEST_CASE("epochs give the steps: n / b a pass for fixed-size batches, 1 / q for Poisson, 1 for full batches",
          "[config][epochs]") {
  const auto steps_of = [](const std::string& text) {
    const RunConfig c = parse_config_text(text, "<test>");
    return std::pair{c.spec.total_steps(), c.spec.algorithm.steps_derivation};
  };
  // The CIFAR-10 run of the issue: 50,000 examples, expected batch 256, 100 epochs: 100 x 50000 / 256
  // = 19531.25 steps, one more rather than one less (tensorflow/privacy's compute_dp_sgd_privacy takes
  // ceil(epochs n / batch_size) = 19532 as well).
  const std::string cifar =
      with(with(with(kAccounting, "sampling_rate", "batch_size = 256"), "steps", "epochs = 100"), "n =", "n = 50000");
  const auto [cifar_steps, cifar_why] = steps_of(cifar);
  CHECK(cifar_steps == 19532);
  CHECK(cifar_why == "algorithm.steps = 19532 (epochs x 1 / sampling_rate = 100 x 195.3125 = 19531.25, rounded up)");
  // The same run with its steps given: the same privacy program.
  const RunConfig by_steps =
      parse_config_text(with(with(cifar, "epochs", "steps = 19532"), "n =", "n = 50000"), "<test>");
  const RunConfig by_epochs = parse_config_text(cifar, "<test>");
  CHECK(by_steps.spec.algorithm.sampling_rate == by_epochs.spec.algorithm.sampling_rate);
  CHECK(by_steps.spec.algorithm.phases.size() == by_epochs.spec.algorithm.phases.size());
  CHECK(by_steps.spec.algorithm.steps_derivation.empty());
  // q = 0.01 is not exact in binary: 3 / 0.01 = 300.00000000000006, within 1e-9 of 300 steps.
  const auto [q_steps, q_why] = steps_of(with(kAccounting, "steps", "epochs = 3"));
  CHECK(q_steps == 300);
  CHECK(q_why == "algorithm.steps = 300 (epochs x 1 / sampling_rate = 3 x 100)");
  // Fixed-size batches: n / b steps an epoch (b divides n).
  const std::string partition =
      with(with(with(with(kAccounting, "sampling =", "sampling = \"shuffle\""), "sampling_rate", "batch_size = 600"),
                "steps", "epochs = 10"),
           "noise_multiplier", "noise_multiplier = 1.1");
  const auto [p_steps, p_why] = steps_of(partition);
  CHECK(p_steps == 1000);
  CHECK(p_why == "algorithm.steps = 1000 (epochs x n / batch_size = 10 x 100)");
  // Half an epoch of 100 batches: 50 steps.
  CHECK(steps_of(with(partition, "epochs", "epochs = 0.5")).first == 50);
}

TEST_CASE("epochs: refused with steps, when not positive, and beyond the step limit", "[config][epochs]") {
  const auto message = [](const std::string& text) {
    try {
      parse_config_text(text, "<test>");
    } catch (const SpecError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(message(with(kAccounting, "noise_multiplier", "noise_multiplier = 1.1\nepochs = 3")) ==
        "'algorithm.epochs' = 3: give steps or epochs, not both");
  CHECK(message(with(kAccounting, "steps", "epochs = 0")) == "'algorithm.epochs' = 0: must be > 0");
  CHECK(message(with(kAccounting, "steps", "epochs = 1e12"))
            .rfind("'algorithm.epochs' = 1000000000000: gives 100000000000000 steps; "
                   "must give <= 1099511627776 (2^40)",
                   0) == 0);
}

// ---- drop_last (docs/config.md, "drop_last") ----------------------------------------------------

TEST_CASE("drop_last: batches of b from n not divisible by b, the run on the b floor(n/b) records used",
          "[config][drop-last]") {
  // The issue's CIFAR-10 run with shuffled fixed-size batches: 50,000 examples, batch 256, 100 epochs:
  // 195 batches an epoch (the last 80 records of each epoch's order dropped), 19500 steps.
  const std::string shuffled = with(with(with(with(kAccounting, "sampling =", "sampling = \"shuffle\""),
                                              "sampling_rate", "batch_size = 256\ndrop_last = true"),
                                         "steps", "epochs = 100"),
                                    "n =", "n = 50000");
  const RunConfig c = parse_config_text(shuffled, "<test>");
  CHECK(c.spec.algorithm.n == 49920.0);
  CHECK(c.spec.algorithm.dropped_records == 80);
  CHECK(c.spec.total_steps() == 19500);
  // Without drop_last the partial batch is refused, naming the key that allows it.
  try {
    parse_config_text(with(shuffled, "drop_last", "drop_last = false"), "<test>");
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.batch_size");
    CHECK(std::string(e.what()).find("drop_last = true") != std::string::npos);
  }
  // A divisible run is unchanged by drop_last.
  const RunConfig whole = parse_config_text(with(shuffled, "n =", "n = 51200"), "<test>");
  CHECK(whole.spec.algorithm.n == 51200.0);
  CHECK(whole.spec.algorithm.dropped_records == 0);
  // Poisson and per-step batches have no epochs to drop from.
  CHECK_THROWS_AS(
      parse_config_text(with(kAccounting, "noise_multiplier", "noise_multiplier = 1.1\ndrop_last = true"), "<test>"),
      SpecError);
}

TEST_CASE("epochs and drop_last: never a step less, refusals found by review", "[config][epochs][drop-last]") {
  // 2 x 10^9 steps and 0.4 more: the count is not whole, so it is one step more. A relative
  // tolerance alone (1e-9 x 2e9 = 2 steps) would have rounded it down to 2000000000, one use of the
  // record less on this partition run.
  const std::string big =
      with(with(with(with(kAccounting, "sampling =", "sampling = \"partition\""), "sampling_rate", "batch_size = 1"),
                "steps", "epochs = 2.0000000004"),
           "n =", "n = 1000000000");
  CHECK(parse_config_text(big, "<test>").spec.total_steps() == 2000000001);
  // epochs with Poisson phases (whose rates may differ) is refused: an epoch's steps depend on the rate.
  CHECK_THROWS_AS(
      parse_config_text(
          with(kAccounting, "steps", "epochs = 10\n[[algorithm.schedule]]\nsteps = 5\nsampling_rate = 0.02"), "<test>"),
      SpecError);
  // drop_last with one batch an epoch (b > n/2) is refused; drop_last = false with Poisson is accepted.
  const std::string one_batch = with(with(with(with(kAccounting, "sampling =", "sampling = \"shuffle\""),
                                               "sampling_rate", "batch_size = 60\ndrop_last = true"),
                                          "steps", "steps = 10"),
                                     "n =", "n = 100");
  try {
    parse_config_text(one_batch, "<test>");
    FAIL("accepted");
  } catch (const SpecError& e) {
    CHECK(e.key() == "algorithm.batch_size");
  }
  CHECK_NOTHROW(
      parse_config_text(with(kAccounting, "noise_multiplier", "noise_multiplier = 1.1\ndrop_last = false"), "<test>"));
}
