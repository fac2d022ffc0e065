#include "io/step_function.hpp"

#include <cstdio>
#include <string>

#include "io/expression.hpp"
#include "numerics/near_miss.hpp"

namespace rdpdyn {
namespace {

/// A number written back exactly (17 significant digits) for an expression.
std::string exact(double x) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return std::string("(") + buffer + ")";
}

}  // namespace

std::string preset_schedule_expression(const Section& p) {
  // An unknown key is named before a missing `schedule` ("kind" is the likely slip).
  if (p.has("kind") && !p.has("schedule"))
    throw SpecError(p.key("kind"), describe(p.at("kind")),
                    "unknown key of an inline schedule: the preset is named by `schedule` (schedule = \"cosine\", "
                    "\"exponential\", \"linear-warmup\" or \"step\"; docs/config.md)");
  p.allow_only({"schedule", "start", "end", "factor", "milestones", "peak", "warmup"});
  const std::string kind = p.string("schedule");
  if (kind == "cosine") {
    // Cosine annealing (Loshchilov & Hutter 2017, arXiv:1608.03983, eq. (5)) over the run, no restarts.
    p.allow_only({"schedule", "start", "end"});
    const double start = p.number("start"), end = p.number("end");
    return exact(end) + " + (" + exact(start) + " - " + exact(end) + ") * (1 + cos(_pi * k / K)) / 2";
  }
  if (kind == "step") {
    // Multiplied by `factor` at each milestone step (the value at step k counts the milestones <= k).
    p.allow_only({"schedule", "start", "factor", "milestones"});
    const double start = p.number("start"), factor = p.number("factor");
    const std::vector<double> milestones = p.numbers("milestones");
    std::string count = "0";
    for (std::size_t i = 0; i < milestones.size(); ++i) {
      if (i > 0 && !(milestones[i] > milestones[i - 1]))
        throw SpecError(p.key("milestones") + "[" + std::to_string(i) + "]", format_number(milestones[i]),
                        "milestones must be strictly increasing step indices");
      count += " + (k >= " + exact(milestones[i]) + ")";
    }
    return exact(start) + " * " + exact(factor) + "^(" + count + ")";
  }
  if (kind == "exponential") {
    p.allow_only({"schedule", "start", "factor"});
    return exact(p.number("start")) + " * " + exact(p.number("factor")) + "^k";
  }
  if (kind == "linear-warmup") {
    // Linear from peak / warmup (step 0) to peak (step warmup - 1), then constant, or linear to `end`
    // at the last step when `end` is given.
    p.allow_only({"schedule", "peak", "warmup", "end"});
    const double peak = p.number("peak");
    const std::int64_t warmup = p.integer("warmup");
    if (warmup < 1) throw SpecError(p.key("warmup"), std::to_string(warmup), "must be >= 1 (steps of the warm-up)");
    const std::string W = exact(static_cast<double>(warmup));
    const std::string after = p.has("end") ? exact(peak) + " + (" + exact(p.number("end")) + " - " + exact(peak) +
                                                 ") * (k - " + W + " + 1) / max(K - " + W + ", 1)"
                                           : exact(peak);
    return "k < " + W + " ? " + exact(peak) + " * (k + 1) / " + W + " : " + after;
  }
  const std::string near = closest_name(kind, {"cosine", "exponential", "linear-warmup", "step"});
  throw SpecError(p.key("schedule"), "\"" + kind + "\"",
                  "must be one of \"cosine\", \"exponential\", \"linear-warmup\", \"step\"" +
                      (near.empty() ? std::string() : " (did you mean \"" + near + "\"?)"));
}

bool StepFunction::varies(const Section& s, const std::string& name) {
  return s.has(name) && (s.at(name).is_string() || s.at(name).is_table());
}

StepFunction StepFunction::constant(double value, std::string key) {
  StepFunction f;
  f.value_ = value;
  f.key_ = std::move(key);
  f.expression_ = format_number(value);
  return f;
}

StepFunction StepFunction::read(const Section& s, const std::string& name) {
  const toml::value& v = s.at(name);
  if (!v.is_string() && !v.is_table()) return constant(s.number(name), s.key(name));
  StepFunction f;
  f.key_ = s.key(name);
  f.expression_ = v.is_string() ? v.as_string().str : preset_schedule_expression(s.table(name));
  try {
    f.function_ = compile_expression(f.key_, f.expression_, {"k", "K"});
  } catch (const SpecError& e) {
    throw SpecError(e.key(), e.value(), "must be a number, or an expression in k and K or a preset table; " + e.rule());
  }
  return f;
}

}  // namespace rdpdyn
