#include <optional>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "io/step_function.hpp"
#include "models/noise_units.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

// Poisson-sampled noisy-sgd runs whose rate, expected batch size or noise changes along the run:
// [[algorithm.schedule]] phases that set sampling_rate (or batch_size) and sigma (or
// noise_multiplier) of their own (docs/config.md, "Rates that change along the run").
namespace rdpdyn::config_reader {

std::optional<double> poisson_rate(const Section& s, double n) {
  if (s.has("sampling_rate") && s.has("batch_size"))
    throw SpecError(s.key("batch_size"), describe(s.at("batch_size")),
                    "give sampling_rate or batch_size for sampling = \"poisson\", not both (q = batch_size / n)");
  if (s.has("sampling_rate")) {
    const double q = s.number("sampling_rate");
    if (!(q > 0.0 && q <= 1.0))
      throw SpecError(s.key("sampling_rate"), format_number(q),
                      "must be in (0, 1] (the probability that a record is in a step's batch)");
    return q;
  }
  if (s.has("batch_size")) {
    const std::int64_t b = s.integer("batch_size");
    if (b < 1 || static_cast<double>(b) > n)
      throw SpecError(s.key("batch_size"), std::to_string(b),
                      "must be in [1, n = " + format_number(n) + "] (the expected batch size; q = batch_size / n)");
    return static_cast<double>(b) / n;
  }
  return std::nullopt;
}

bool poisson_rate_varies(const Section& s) {
  return StepFunction::varies(s, "sampling_rate") || StepFunction::varies(s, "batch_size");
}

namespace {

// The rate at step k: sampling_rate(k), or batch_size(k) / n; checked to lie in (0, 1].
double rate_at(const StepFunction& f, bool is_batch, double n, std::int64_t k, std::int64_t K) {
  const double v = f.at(k, K);
  const double q = is_batch ? v / n : v;
  if (!(q > 0.0 && q <= 1.0))
    throw SpecError(f.key(),
                    format_number(v) + " at step k = " + std::to_string(k) + " (K = " + std::to_string(K) + ", " +
                        f.key() + " = \"" + f.expression() + "\")",
                    is_batch ? "must be in (0, n = " + format_number(n) + "] (the expected batch size)"
                             : std::string("must be in (0, 1] (the probability that a record is in a step's batch)"));
  return q;
}

StepFunction rate_function(const Section& s) {
  if (s.has("sampling_rate") && s.has("batch_size"))
    throw SpecError(s.key("batch_size"), describe(s.at("batch_size")),
                    "give sampling_rate or batch_size for sampling = \"poisson\", not both (q = batch_size / n)");
  return StepFunction::read(s, s.has("sampling_rate") ? "sampling_rate" : "batch_size");
}

}  // namespace

double first_poisson_rate(const Section& s, double n, std::int64_t K) {
  return rate_at(rate_function(s), !s.has("sampling_rate"), n, 0, K);
}

void expand_poisson_rates(const Section& s, AlgorithmSpec& a, Adjacency adjacency, std::optional<double> eta,
                          std::optional<double> sigma, std::int64_t K) {
  if (s.has("schedule"))
    throw SpecError(s.key("schedule"), "phases",
                    "a sampling rate that changes with the step is given for the whole run; give phases with their "
                    "own rates instead, or one expression");
  check_size(s.key("steps"), "steps evaluated one by one", K, limits::kMaxPhases,
             "a rate that changes with the step is evaluated at every step (a phase each where it differs)");
  const StepFunction f = rate_function(s);
  const bool is_batch = !s.has("sampling_rate");
  const bool accounting_alone = !eta || !a.declares_sensitivity;
  for (std::int64_t k = 0; k < K; ++k) {
    const double q = rate_at(f, is_batch, a.n, k, K);
    if (!a.phases.empty() && a.phases.back().sampling_rate.value_or(a.sampling_rate) == q) {
      ++a.phases.back().steps;
      continue;
    }
    Phase phase = Phase::of(1, eta.value_or(0.0), 0.0);
    phase.origin = s.path();
    phase.first_step = k;
    if (q != a.sampling_rate) phase.sampling_rate = q;
    if (accounting_alone) {
      phase.sigma = 0.0;  // the accountants read the run's multiplier
    } else if (a.noise_multiplier) {
      // The DP-SGD multiplier in C21 units with this phase's b = q n.
      phase.sigma = one_record_apart(adjacency) ? noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(
                                                      *a.noise_multiplier, *eta, a.sensitivity, q * a.n)
                                                : noise_units::c21_sigma_from_dpsgd_multiplier(
                                                      *a.noise_multiplier, *eta, a.sensitivity, q * a.n);
    } else {
      phase.sigma = *sigma;
    }
    a.phases.push_back(phase);
  }
}

void read_poisson_phase(const Section& p, const AlgorithmSpec& a, Adjacency adjacency, std::optional<double> eta,
                        std::optional<double> sigma, Phase& phase) {
  p.allow_only({"steps", "eta", "sigma", "noise_multiplier", "sensitivity", "sampling_rate", "batch_size"});
  if (p.has("sigma") && p.has("noise_multiplier"))
    throw SpecError(p.key("sigma"), "given with noise_multiplier",
                    "give the noise in one convention only (sigma or noise_multiplier)");
  const std::optional<double> own_rate = poisson_rate(p, a.n);
  const double q = own_rate.value_or(a.sampling_rate);
  if (own_rate && *own_rate != a.sampling_rate) phase.sampling_rate = own_rate;
  if (p.has("sensitivity")) phase.sensitivity = non_negative(p, "sensitivity");
  const std::optional<double> phase_eta = p.has("eta") ? std::optional(positive(p, "eta")) : eta;
  phase.eta = phase_eta.value_or(0.0);  // 0: undeclared (accounting alone)
  if (p.has("sigma")) {
    // C21 units need the step size and S_g; without them the accountants read the run's multiplier,
    // and a phase's own sigma would be silently ignored.
    if (!phase_eta || !a.declares_sensitivity)
      throw SpecError(p.key("sigma"), describe(p.at("sigma")),
                      "is in C21 units, which need algorithm.eta and algorithm.sensitivity; a run configured for "
                      "accounting alone gives a phase's noise as noise_multiplier");
    phase.sigma = positive(p, "sigma");
    return;
  }
  // A DP-SGD multiplier, the phase's own or the run's, in C21 units with this phase's b = q n (the
  // run's sigma was converted with the run's rate).
  const std::optional<double> multiplier =
      p.has("noise_multiplier") ? std::optional(positive(p, "noise_multiplier")) : a.noise_multiplier;
  if (!multiplier) {
    if (!sigma) throw SpecError(p.key("sigma"), "missing", "give it here or as algorithm.sigma");
    phase.sigma = *sigma;
    return;
  }
  const double S = phase.sensitivity.value_or(a.sensitivity);
  if (!phase_eta || !a.declares_sensitivity) {  // accounting alone: the accountants take the multiplier
    phase.sigma = 0.0;
    if (p.has("noise_multiplier")) phase.noise_multiplier = multiplier;  // else the run's, read from the run
    return;
  }
  const double batch = q * a.n;
  phase.sigma = adjacency == Adjacency::Replace
                    ? noise_units::c21_sigma_from_dpsgd_multiplier(*multiplier, *phase_eta, S, batch)
                    : noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(*multiplier, *phase_eta, S, batch);
}

}  // namespace rdpdyn::config_reader
