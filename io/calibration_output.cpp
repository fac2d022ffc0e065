#include "io/calibration_output.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "io/json_output.hpp"
#include "numerics/format_number.hpp"

namespace rdpdyn {
namespace {
const char* target_name(CalibrationTarget t) {
  return t == CalibrationTarget::Steps             ? "steps"
         : t == CalibrationTarget::NoiseMultiplier ? "noise_multiplier"
                                                   : "sigma";
}
}  // namespace

std::string calibration_to_json(const CalibrationOutcome& o) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json j = {{"target", target_name(o.target)},
                      {"epsilon_target", o.target_epsilon},
                      {"delta", o.target_delta},
                      {"analysis", o.analysis_used},
                      {"tightest", o.tightest.empty() ? nlohmann::json() : nlohmann::json(o.tightest)},
                      {"sigma", o.sigma > 0.0 ? nlohmann::json(o.sigma) : nlohmann::json()},  // none: accounting alone
                      {"sigma_at", opt(o.sigma_at)},
                      {"noise_multiplier", opt(o.noise_multiplier)},
                      {"steps", o.steps},
                      {"epsilon", o.epsilon},
                      {"best_order", std::isfinite(o.best_order) ? nlohmann::json(o.best_order) : nlohmann::json()},
                      {"conversion", o.conversion.empty() ? nlohmann::json() : nlohmann::json(o.conversion)},
                      {"evaluations", o.evaluations},
                      {"include_disputed", o.include_disputed},
                      {"not_monotone_in_steps", o.not_monotone_in_steps},
                      {"amplification_warning",
                       o.amplification_warning.empty() ? nlohmann::json() : nlohmann::json(o.amplification_warning)},
                      {"terms", run_terms_json(o.terms)}};
  return j.dump();
}

namespace {
std::string monotone_note(const CalibrationOutcome& o) {
  if (o.not_monotone_in_steps.empty()) return "";
  std::string names;
  for (const auto& n : o.not_monotone_in_steps) names += (names.empty() ? "" : ", ") + n;
  return "; note: epsilon of " + names + " is not monotone in the number of steps, so " + std::to_string(o.steps) +
         " steps meet the target and " + std::to_string(o.steps + 1) +
         " do not, but a smaller count may not meet it (docs/analyses.md, Calibration)";
}
/// An order for people: four significant digits (which order attains epsilon is informative; the
/// bound is at the exact order, in the JSON).
std::string order_text(double order) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", order);
  return text;
}

}  // namespace

// Text for people: the noise found and epsilon to six significant digits, rounded up (a rounded
// bound must still hold); --json keeps every digit.
std::string calibration_summary(const CalibrationOutcome& o) {
  std::string s;
  if (o.target == CalibrationTarget::Steps) {
    s = "steps = " + std::to_string(o.steps) + " (the largest count, " +
        (o.sigma > 0.0 || !o.noise_multiplier ? "sigma = " + format_rounded_up(o.sigma)
                                              : "DP-SGD noise multiplier = " + format_rounded_up(*o.noise_multiplier)) +
        ")";
  } else if (o.target == CalibrationTarget::NoiseMultiplier) {
    s = "DP-SGD noise multiplier = " + format_rounded_up(o.noise_multiplier.value_or(0.0)) + " (the smallest";
    if (o.sigma > 0.0) s += "; sigma = " + format_rounded_up(o.sigma) + " in C21 units";
    if (o.sigma_at) s += "; sigma_at = " + format_rounded_up(*o.sigma_at);
    s += ")";
  } else {
    s = "sigma = " + format_rounded_up(o.sigma) + " (the smallest, C21 units";
    if (o.sigma_at) s += "; sigma_at = " + format_rounded_up(*o.sigma_at);
    if (o.noise_multiplier) s += "; DP-SGD noise multiplier = " + format_rounded_up(*o.noise_multiplier);
    s += ")";
  }
  return s + " meets epsilon = " + format_rounded_up(o.epsilon) + " <= " + format_number(o.target_epsilon) +
         " at delta = " + format_number(o.target_delta) +
         // A Gaussian-DP analysis converts by its exact profile, the PLD accountant by its own: no order.
         (o.conversion == "gdp-mixture" ? std::string(" (Gaussian-DP profiles of the placements averaged, gdp-mixture")
          : o.conversion == "pld"       ? std::string(" (privacy loss distribution's profile, pld conversion")
          : std::isnan(o.best_order) || o.conversion == "gdp"
              ? std::string(" (exact GDP conversion")
              : " (order " + order_text(o.best_order) + ", " + o.conversion + " conversion") +
         ", analysis " + o.analysis_used + (o.tightest.empty() ? "" : ", tightest " + o.tightest) + ", " +
         std::to_string(o.evaluations) + " evaluations)" +
         (o.include_disputed ? "; disputed analyses were included ([report] include_disputed)" : "") +
         monotone_note(o) + (o.terms.adjacency.empty() ? "" : "\n" + run_terms_line(o.terms)) +
         (o.terms.ecosystem_hint.empty() ? "" : "\n" + o.terms.ecosystem_hint) +
         (o.amplification_warning.empty() ? "" : "\n" + o.amplification_warning);
}

}  // namespace rdpdyn
