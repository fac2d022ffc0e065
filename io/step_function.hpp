#pragma once
// A run parameter that may change from step to step (eta, sigma, sensitivity, a phase's gamma): a
// number, an expression in k (the 0-based step index) and K (the run's step count) compiled once by
// muparser, or a preset learning-rate schedule that expands to such an expression
// (docs/config.md, "Values that change with the step").
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/toml_section.hpp"

namespace rdpdyn {

class StepFunction {
 public:
  /// s[name] as a number, a string (expression in k and K) or a preset table
  /// { schedule = "cosine" | "step" | "exponential" | "linear-warmup", ... }. SpecError names the
  /// key, the value and the rule when it is none of them or does not parse.
  static StepFunction read(const Section& s, const std::string& name);
  static StepFunction constant(double value, std::string key);

  /// True when s[name] is given as an expression or a preset (not as a number).
  static bool varies(const Section& s, const std::string& name);

  bool is_constant() const { return !function_; }
  /// The value at step k of K (for a constant, the number).
  double at(std::int64_t k, std::int64_t K) const { return function_ ? function_({double(k), double(K)}) : value_; }
  const std::string& key() const { return key_; }
  /// The expression evaluated (a preset's expansion), or the number as text.
  const std::string& expression() const { return expression_; }

 private:
  double value_ = 0.0;
  std::function<double(const std::vector<double>&)> function_;
  std::string key_, expression_;
};

/// The expression a preset schedule table expands to, e.g. cosine from start to end:
/// "end + (start - end) * (1 + cos(_pi * k / K)) / 2" with the numbers written out.
std::string preset_schedule_expression(const Section& preset);

}  // namespace rdpdyn
