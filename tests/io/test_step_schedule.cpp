// Values that change with the step (io/step_function.hpp): presets equal their expressions, a
// cosine schedule over 10^4 steps equals the same run written as 10^4 explicit phases, equal steps
// share a phase, and every step is checked (the error names the key, the step and the value).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>

#include "io/config.hpp"
#include "models/privacy_model.hpp"
#include "numerics/spec_error.hpp"
#include "solver/characteristics_engine.hpp"

using namespace rdpdyn;

namespace {

std::string run_text(const std::string& eta_line, std::int64_t steps, const std::string& extra = "") {
  return "[orders]\nvalues = [2, 8, 32]\n[algorithm]\nkind = \"noisy-gd\"\nsteps = " + std::to_string(steps) + "\n" +
         eta_line + "\nsigma = 0.02\nn = 5000\nsensitivity = 4\n" + extra +
         "[lsi]\nkind = \"recursion\"\nlambda = 1\nbeta = 2\n[analysis]\ngamma = \"optimal\"\n";
}

std::vector<double> final_R(const RunConfig& c) {
  const Solution s =
      solve_by_characteristics(build_program(c.spec), c.spec.initial, c.spec.orders, {RecordPlan{0, {}}});
  const auto row = s.final_row();
  return {row.begin(), row.end()};
}

std::string error_text(const std::string& text) {
  try {
    parse_config_text(text, "test.toml");
  } catch (const SpecError& e) {
    return e.what();
  }
  FAIL("configuration was accepted");
  return "";
}

}  // namespace

TEST_CASE("Step schedules: each preset equals the expression it expands to", "[schedule]") {
  const std::int64_t K = 300;
  const std::pair<const char*, const char*> cases[] = {
      {"eta = { schedule = \"cosine\", start = 0.05, end = 0.001 }",
       "eta = \"0.001 + (0.05 - 0.001) * (1 + cos(_pi * k / K)) / 2\""},
      {"eta = { schedule = \"step\", start = 0.05, factor = 0.1, milestones = [100, 200] }",
       "eta = \"0.05 * 0.1^((k >= 100) + (k >= 200))\""},
      {"eta = { schedule = \"exponential\", start = 0.05, factor = 0.99 }", "eta = \"0.05 * 0.99^k\""},
      {"eta = { schedule = \"linear-warmup\", peak = 0.05, warmup = 10, end = 0.01 }",
       "eta = \"k < 10 ? 0.05 * (k + 1) / 10 : 0.05 + (0.01 - 0.05) * (k - 10 + 1) / max(K - 10, 1)\""},
  };
  for (const auto& [preset, expression] : cases) {
    INFO(preset);
    const RunConfig a = parse_config_text(run_text(preset, K), "preset.toml");
    const RunConfig b = parse_config_text(run_text(expression, K), "expression.toml");
    REQUIRE(a.spec.algorithm.phases.size() == b.spec.algorithm.phases.size());
    for (std::size_t i = 0; i < a.spec.algorithm.phases.size(); ++i) {
      CHECK(a.spec.algorithm.phases[i].eta == b.spec.algorithm.phases[i].eta);
      CHECK(a.spec.algorithm.phases[i].steps == b.spec.algorithm.phases[i].steps);
    }
  }
  // Hand values: cosine at k = 0 is start, at k = K/2 the midpoint; the step preset has three phases.
  const RunConfig cosine = parse_config_text(run_text(cases[0].first, K), "c.toml");
  CHECK(cosine.spec.algorithm.phases.front().eta == Approx(0.05).epsilon(1e-15));
  CHECK(cosine.spec.algorithm.phases[150].eta == Approx(0.0255).epsilon(1e-12));
  const RunConfig step = parse_config_text(run_text(cases[1].first, K), "s.toml");
  REQUIRE(step.spec.algorithm.phases.size() == 3);  // equal steps share a phase
  CHECK(step.spec.algorithm.phases[1].steps == 100);
  CHECK(step.spec.algorithm.phases[2].eta == Approx(0.0005).epsilon(1e-14));
  const RunConfig warm = parse_config_text(run_text(cases[3].first, K), "w.toml");
  CHECK(warm.spec.algorithm.phases[0].eta == Approx(0.005).epsilon(1e-15));     // peak (k + 1) / warmup at k = 0
  CHECK(warm.spec.algorithm.phases.back().eta == Approx(0.01).epsilon(1e-14));  // end at the last step
}

TEST_CASE("Step schedules: a cosine over 10^4 steps equals the same run as explicit phases", "[schedule]") {
  const std::int64_t K = 10000;
  const RunConfig expression =
      parse_config_text(run_text("eta = { schedule = \"cosine\", start = 0.05, end = 0.001 }", K), "cosine.toml");
  std::string phases;
  char line[96];
  for (std::int64_t k = 0; k < K; ++k) {
    const double eta = 0.001 + (0.05 - 0.001) * (1.0 + std::cos(M_PI * static_cast<double>(k) / K)) / 2.0;
    std::snprintf(line, sizeof line, "[[algorithm.schedule]]\nsteps = 1\neta = %.17g\n", eta);
    phases += line;
  }
  std::string text = run_text("", K, phases);
  text.replace(text.find("steps = 10000\n"), 14, "");
  const RunConfig explicit_phases = parse_config_text(text, "phases.toml");
  REQUIRE(explicit_phases.spec.algorithm.phases.size() == static_cast<std::size_t>(K));
  const auto a = final_R(expression), b = final_R(explicit_phases);
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).epsilon(1e-12));
}

TEST_CASE("Step schedules: every step is checked, the error names the key, the step and the value", "[schedule]") {
  const std::string zero = error_text(run_text("eta = \"0.1 - 0.001 * k\"", 200));
  CHECK_THAT(zero,
             Catch::Contains("algorithm.eta") && Catch::Contains("at step k = 100") && Catch::Contains("must be"));
  // eta < 1/beta (C21 Lemma 5) for the strongly-convex model, checked on the phase of the step.
  std::string text = run_text("eta = \"0.1 + 0.001 * k\"", 500);
  text.replace(text.find("kind = \"recursion\""), 18, "kind = \"strongly-convex\"");
  const std::string smooth = error_text(text);
  CHECK_THAT(smooth,
             Catch::Contains("algorithm.eta") && Catch::Contains("at step k = 400") && Catch::Contains("1/beta"));
  const std::string gamma =
      error_text(run_text("eta = 0.02", 10, "[[algorithm.schedule]]\nsteps = 10\ngamma = \"1.5 - 0.1 * k\"\n"));
  CHECK_THAT(gamma, Catch::Contains("algorithm.schedule[0].gamma") && Catch::Contains("at step k = 0") &&
                        Catch::Contains("(0, 1]"));
  const std::string unknown = error_text(run_text("eta = \"0.1 * j\"", 10));
  CHECK_THAT(unknown, Catch::Contains("algorithm.eta") && Catch::Contains("not a valid expression in (k, K)"));
  const std::string preset = error_text(run_text("eta = { schedule = \"polynomial\", start = 0.1 }", 10));
  CHECK_THAT(preset, Catch::Contains("algorithm.eta.schedule") && Catch::Contains("must be one of"));
}
