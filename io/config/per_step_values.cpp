#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/step_function.hpp"
#include "models/noise_units.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

/// Whether [algorithm] or one of its [[algorithm.schedule]] phases gives a value that changes with
/// the step (an expression in k and K, or a preset table).
bool has_per_step_values(const Section& s) {
  for (const char* k : {"eta", "sigma", "sigma_at", "noise_multiplier", "sensitivity"})
    if (StepFunction::varies(s, k)) return true;
  if (s.has("schedule") && s.at("schedule").is_array())
    for (const Section& p : s.tables("schedule"))
      for (const char* k : {"eta", "sigma", "gamma", "sensitivity"})
        if (StepFunction::varies(p, k)) return true;
  return false;
}

namespace {

/// A value at step k checked against its rule: the error names the key, the value, the step.
double checked_at(const StepFunction& f, std::int64_t k, std::int64_t K, bool zero_allowed, double upper = 0.0) {
  const double v = f.at(k, K);
  const bool ok = std::isfinite(v) && (zero_allowed ? v >= 0.0 : v > 0.0) && (upper == 0.0 || v <= upper);
  if (!ok)
    throw SpecError(f.key(),
                    format_number(v) + " at step k = " + std::to_string(k) + " (K = " + std::to_string(K) + ", " +
                        f.key() + " = \"" + f.expression() + "\")",
                    upper != 0.0   ? "must be in (0, " + format_number(upper) + "]"
                    : zero_allowed ? "must be a finite number >= 0"
                                   : "must be a finite number > 0");
  return v;
}

}  // namespace

/// Runs of steps with the same parameters, from values given per step (docs/config.md, "Values that
/// change with the step"): every step is evaluated and checked, equal neighbours share one phase.
void expand_per_step_values(const Section& s, AlgorithmSpec& a, Adjacency adjacency, double batch,
                            std::optional<std::int64_t> steps) {
  std::string noise_key;
  for (const char* k : {"sigma", "sigma_at", "noise_multiplier"})
    if (s.has(k)) {
      if (!noise_key.empty())
        throw SpecError(s.key("sigma"), "given with sigma_at or noise_multiplier",
                        "give the noise in one convention only (sigma, sigma_at or noise_multiplier)");
      noise_key = k;
    }
  const auto scalar = [&](const char* k) { return s.has(k) ? std::optional(StepFunction::read(s, k)) : std::nullopt; };
  const std::optional<StepFunction> eta = scalar("eta"), sensitivity = scalar("sensitivity");
  const std::optional<StepFunction> noise = noise_key.empty() ? std::nullopt : scalar(noise_key.c_str());
  if (!sensitivity)
    throw SpecError(s.key("sensitivity"), "missing",
                    "values that change with the step need C21 units (eta, sensitivity)");

  struct Segment {
    std::int64_t steps;
    std::optional<StepFunction> eta, noise, gamma, sensitivity;
    std::string origin;
  };
  std::vector<Segment> segments;
  std::int64_t scheduled = 0;
  if (s.has("schedule")) {
    check_list_size(s, "schedule", limits::kMaxPhases, "each phase is kept in the privacy program");
    for (const Section& p : s.tables("schedule")) {
      p.allow_only({"steps", "eta", "sigma", "gamma", "sensitivity"});
      Segment g{non_negative_integer(p, "steps"), {}, {}, {}, {}, p.path()};
      check_size(p.key("steps"), g.steps, limits::kMaxSteps, kStepsWhy);
      if (p.has("eta")) g.eta = StepFunction::read(p, "eta");
      if (p.has("sigma")) g.noise = StepFunction::read(p, "sigma");
      if (p.has("gamma")) g.gamma = StepFunction::read(p, "gamma");
      if (p.has("sensitivity")) g.sensitivity = StepFunction::read(p, "sensitivity");
      scheduled += g.steps;
      segments.push_back(std::move(g));
    }
  }
  std::int64_t K = scheduled;
  if (steps) {
    K = *steps;
    if (K < scheduled)
      throw SpecError(s.key("steps"), std::to_string(K),
                      "must be >= the " + std::to_string(scheduled) + " steps of algorithm.schedule");
    if (K > scheduled) segments.push_back({K - scheduled, {}, {}, {}, {}, s.path()});
  } else if (segments.empty()) {
    throw SpecError(s.key("steps"), "missing", "give steps or [[algorithm.schedule]] phases");
  }
  check_size(s.key("steps"), "steps evaluated one by one", K, limits::kMaxPhases,
             "values that change with the step are evaluated at every step (a phase each where they differ)");

  a.sensitivity = 0.0;
  std::int64_t k = 0;
  for (const Segment& g : segments) {
    const StepFunction* eta_f = g.eta ? &*g.eta : eta ? &*eta : nullptr;
    const StepFunction* noise_f = g.noise ? &*g.noise : noise ? &*noise : nullptr;
    const StepFunction& sens_f = g.sensitivity ? *g.sensitivity : *sensitivity;
    const std::string origin = g.origin;
    if (!eta_f)
      throw SpecError(g.origin == s.path() ? s.key("eta") : g.origin + ".eta", "missing",
                      "give it here or as algorithm.eta");
    if (!noise_f)
      throw SpecError(g.origin == s.path() ? s.key("sigma") : g.origin + ".sigma", "missing",
                      "give it here or as algorithm.sigma");
    const std::string convention = g.noise ? "sigma" : noise_key;
    for (std::int64_t end = k + g.steps; k < end; ++k) {
      Phase phase;
      phase.steps = 1;
      phase.first_step = k;
      phase.origin = origin;
      phase.eta = checked_at(*eta_f, k, K, false);
      const double S = checked_at(sens_f, k, K, true);
      const double value = checked_at(*noise_f, k, K, false);
      phase.sigma = convention == "sigma"      ? value
                    : convention == "sigma_at" ? noise_units::c21_sigma_from_at(value, phase.eta)
                    : adjacency == Adjacency::Replace
                        ? noise_units::c21_sigma_from_dpsgd_multiplier(value, phase.eta, S, batch)
                        : noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(value, phase.eta, S, batch);
      if (g.gamma) phase.gamma = checked_at(*g.gamma, k, K, false, 1.0);
      if (!sens_f.is_constant()) phase.sensitivity = S;
      a.sensitivity = std::max(a.sensitivity, S);
      Phase* last = a.phases.empty() ? nullptr : &a.phases.back();
      if (last && last->origin == phase.origin && last->eta == phase.eta && last->sigma == phase.sigma &&
          last->gamma == phase.gamma && last->sensitivity == phase.sensitivity) {
        ++last->steps;
      } else {
        a.phases.push_back(std::move(phase));
      }
    }
  }
  a.phases.shrink_to_fit();
  if (noise_key == "noise_multiplier" && noise->is_constant()) a.noise_multiplier = noise->at(0, K);
}

}  // namespace rdpdyn::config_reader
