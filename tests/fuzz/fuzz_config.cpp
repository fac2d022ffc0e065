// libFuzzer target over the configuration loader (docs/development.md, "Fuzzing"; scripts/fuzz.sh).
// The bytes are a configuration text for `solve`/`compare`/`calibrate` (parse_config_text) and for
// `sweep` (SweepConfiguration::parse, then its first and last points), an expression in
// (s, t, alpha) as the LSI schedules and initial curves are, and its first line is a `--set`
// assignment over a valid configuration. Bad input must end in SpecError:
// any other exception, a crash, a hang or a sanitizer report is a finding.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "io/config.hpp"
#include "io/expression.hpp"
#include "io/sweep_config.hpp"
#include "numerics/spec_error.hpp"

namespace {

// A valid run with a phase schedule, so that --set keys such as algorithm.schedule[0].eta exist.
const std::string kBase = R"(
[orders]
values = [2, 8]
[algorithm]
kind = "noisy-gd"
n = 1000
sensitivity = 1
[[algorithm.schedule]]
steps = 5
eta = 0.05
sigma = 0.2
[lsi]
kind = "strongly-convex"
lambda = 1
beta = 4
)";

template <class F>
void expect_spec_errors_only(const char* what, F&& f) {
  try {
    f();
  } catch (const rdpdyn::SpecError&) {
    // bad input, refused with key, value and rule: the expected outcome
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_config: %s let a non-SpecError exception escape: %s\n", what, e.what());
    std::abort();
  }
}

void load_sweep(const std::string& text) {
  const auto sweep = rdpdyn::SweepConfiguration::parse(text, "fuzz.toml");
  const auto& spec = sweep.spec();
  const std::size_t points = spec.point_count();
  if (points == 0) return;
  for (const std::size_t index : {std::size_t{0}, points - 1}) {
    const auto values = spec.point(index);
    (void)sweep.estimated_cost(values);
    (void)sweep.point(values);
  }
}

void evaluate_expression(const std::string& text) {
  const auto f = rdpdyn::compile_expression("fuzz", text, {"s", "t", "alpha"});
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (const double x : {0.0, 1.0, -1.0, 1e300, inf, nan}) (void)f({x, x, x});
  (void)rdpdyn::expression_uses(text, "alpha");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  expect_spec_errors_only("parse_config_text", [&] { (void)rdpdyn::parse_config_text(text, "fuzz.toml"); });
  expect_spec_errors_only("SweepConfiguration::parse", [&] { load_sweep(text); });
  // Expressions are one line of a configuration; long inputs only slow the TOML paths down.
  if (size <= 256) expect_spec_errors_only("compile_expression", [&] { evaluate_expression(text); });
  const std::string assignment = text.substr(0, text.find('\n'));
  if (assignment.size() <= 256)
    expect_spec_errors_only("--set", [&] { (void)rdpdyn::parse_config_text(kBase, "base.toml", {assignment}); });
  return 0;
}
