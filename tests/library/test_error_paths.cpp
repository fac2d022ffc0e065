// The same bad run reaches the rules of models/run_validation.hpp by four paths (a TOML file, the
// file with `--set`, RunBuilder, and the Python dict: tests/python/test_module.py
// test_bad_run_same_message_on_every_path holds the same messages) and gets the same message,
// byte for byte: the reader only reads, and every rule is applied once, after it.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/config.hpp"
#include "library/rdpdyn.hpp"
#include "numerics/spec_error.hpp"

using namespace rdpdyn;

namespace {

// C21 Figure 1 (examples/figure1_lambda1.toml), a valid run.
const std::string kBaseText = R"([orders]
values = [10, 20, 30]

[algorithm]
kind = "noisy-gd"
steps = 1000
eta = 0.02
sigma = 0.02
n = 5000
sensitivity = 4.0

[lsi]
kind = "strongly-convex"
lambda = 1
beta = 4

[analysis]
gamma = 0.5
)";

RunBuilder base_builder() {
  RunBuilder b;
  b.set_toml("orders.values", "[10, 20, 30]")
      .set_toml("algorithm.kind", "\"noisy-gd\"")
      .set_toml("algorithm.steps", "1000")
      .set_toml("algorithm.eta", "0.02")
      .set_toml("algorithm.sigma", "0.02")
      .set_toml("algorithm.n", "5000")
      .set_toml("algorithm.sensitivity", "4.0")
      .set_toml("lsi.kind", "\"strongly-convex\"")
      .set_toml("lsi.lambda", "1")
      .set_toml("lsi.beta", "4")
      .set_toml("analysis.gamma", "0.5");
  return b;
}

struct BadRun {
  std::vector<std::pair<std::string, std::string>> assignments;  ///< KEY, TOML value
  std::string message;                                           ///< the expected what()
};

/// The base text with each assignment written into its table (replacing the key's line if any).
std::string text_with(const std::vector<std::pair<std::string, std::string>>& assignments) {
  std::string text = kBaseText;
  for (const auto& [key, value] : assignments) {
    const std::string table = key.substr(0, key.find('.')), name = key.substr(key.find('.') + 1);
    const std::string header = "[" + table + "]\n";
    auto at = text.find(header);
    if (at == std::string::npos) {
      text += "\n" + header;
      at = text.find(header);
    }
    const auto body = at + header.size();
    const auto line = text.find("\n" + name + " = ", body - 1);
    const auto next_table = text.find("\n[", body);
    if (line != std::string::npos && line < next_table) {
      const auto end = text.find('\n', line + 1);
      text.replace(line + 1, end - line - 1, name + " = " + value);
    } else {
      text.insert(body, name + " = " + value + "\n");
    }
  }
  return text;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(accepted)";
}

}  // namespace

TEST_CASE("A bad run gets the same message from a file, --set and RunBuilder", "[config][errors]") {
  const std::vector<BadRun> cases = {
      // A value's own rule (the section reader).
      {{{"algorithm.sigma", "-1.0"}}, "'algorithm.sigma' = -1: must be > 0"},
      // A model assumption (check_model_assumptions, once, in validate_run).
      {{{"algorithm.eta", "0.5"}}, "'algorithm.eta' = 0.5: must be < 1/beta = 0.25 (C21 Lemma 5)"},
      // The engine's dry run (Engine::admit).
      {{{"analysis.engine", "\"reference\""}, {"analysis.gamma", "\"optimal\""}},
       "'analysis.gamma' = \"optimal\": the reference engine integrates a given gamma (a number or a field in alpha "
       "and t), not the pointwise-optimal one"},
      // A rule between tables (the quadratic pair against the sensitivity).
      {{{"algorithm.loss", "\"quadratic\""}, {"quadratic.hessian", "[[1.0]]"}, {"quadratic.pair", "[5.0]"}},
       "'quadratic.pair' = with |H pair| = 5.000000000000007 (rounded up): must satisfy |H (x - x')| <= "
       "algorithm.sensitivity = 4"},
  };
  REQUIRE(message_of([] { parse_config_text(kBaseText, "<text>"); }) == "(accepted)");
  REQUIRE(message_of([] { base_builder().build(); }) == "(accepted)");
  for (const BadRun& bad : cases) {
    CAPTURE(bad.message);
    std::vector<std::string> overrides;
    RunBuilder builder = base_builder();
    for (const auto& [key, value] : bad.assignments) {
      overrides.push_back(key + "=" + value);
      builder.set_toml(key, value);
    }
    const std::string text = text_with(bad.assignments);
    CAPTURE(text);
    CHECK(message_of([&] { parse_config_text(text, "<text>"); }) == bad.message);
    CHECK(message_of([&] { parse_config_text(kBaseText, "<text>", overrides); }) == bad.message);
    CHECK(message_of([&] { builder.build(); }) == bad.message);
  }
}
