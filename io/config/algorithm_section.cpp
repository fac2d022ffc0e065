#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "io/config/section_rules.hpp"
#include "io/config/sections.hpp"
#include "models/noise_units.hpp"
#include "models/size_limits.hpp"
#include "numerics/format_number.hpp"
#include "numerics/spec_error.hpp"

namespace rdpdyn::config_reader {

namespace {

/// The noise in C21 units from whichever convention the configuration uses (docs/math.md section 1.4):
/// `sigma` (C21), `sigma_at` (Altschuler & Talwar) or `noise_multiplier` (DP-SGD: noise std on the
/// clipped sum in units of the clipping norm C, with C = S_g / 2 under replace adjacency and C = S_g
/// under add-remove; the sum is divided by `batch`, the update's b). Exactly one may be given.
/// nullopt when none is given, and for a noisy-sgd run that gives noise_multiplier without eta or
/// without sensitivity (accounting alone: no C21 units; a.noise_multiplier keeps the value).
std::optional<double> c21_sigma(const Section& s, std::optional<double> eta, AlgorithmSpec& a, Adjacency adjacency,
                                double batch) {
  const int given = (s.has("sigma") ? 1 : 0) + (s.has("sigma_at") ? 1 : 0) + (s.has("noise_multiplier") ? 1 : 0);
  if (given > 1)
    throw SpecError(s.key("sigma"), "given with sigma_at or noise_multiplier",
                    "give the noise in one convention only (sigma, sigma_at or noise_multiplier)");
  if (s.has("sigma")) return positive(s, "sigma");
  if (given == 0) return std::nullopt;
  const std::string key = s.has("sigma_at") ? "sigma_at" : "noise_multiplier";
  const bool accounting = key == "noise_multiplier" && a.kind == AlgorithmKind::NoisySgd;
  if (!eta && !accounting)
    throw SpecError(s.key("eta"), "missing", "needed to convert " + s.key(key) + " to C21 units");
  const double value = positive(s, key);
  if (key == "sigma_at") return noise_units::c21_sigma_from_at(value, *eta);
  a.noise_multiplier = value;
  if (!eta || !a.declares_sensitivity) return std::nullopt;
  return adjacency == Adjacency::Replace
             ? noise_units::c21_sigma_from_dpsgd_multiplier(value, *eta, a.sensitivity, batch)
             : noise_units::c21_sigma_from_dpsgd_multiplier_add_remove(value, *eta, a.sensitivity, batch);
}

/// The number of steps: `steps`, or `epochs` passes over the data (docs/config.md, "Epochs"): n / b
/// steps an epoch for fixed-size batches (b dividing n), 1/q for Poisson sampling (b = q n the
/// expected batch size), 1 for full batches. epochs x (n / b) is rounded to the nearest integer when
/// within 1e-9 relative and 1e-6 absolute of it (a decimal q such as 0.01 is not exact in binary), else up: a count
/// that is not whole is one more step, never one less. The derivation is kept for the outputs.
std::optional<std::int64_t> read_steps(const Section& s, AlgorithmSpec& a, double batch) {
  if (s.has("epochs")) {
    if (s.has("steps")) throw SpecError(s.key("epochs"), describe(s.at("epochs")), "give steps or epochs, not both");
    if (a.kind == AlgorithmKind::NoisySgd && s.has("schedule"))
      throw SpecError(s.key("epochs"), describe(s.at("epochs")),
                      "with [[algorithm.schedule]] phases (whose rates may differ) give steps: an epoch's steps "
                      "depend on the rate");
    const double epochs = positive(s, "epochs");
    const double per_epoch = a.n / batch;
    const double exact = epochs * per_epoch;
    if (!(exact <= static_cast<double>(limits::kMaxSteps)))
      throw SpecError(s.key("epochs"), format_number(epochs),
                      "gives " + format_number(exact) + " steps; must give <= " + limit_text(limits::kMaxSteps) + ": " +
                          kStepsWhy + " (docs/config.md, Limits)");
    const double nearest = std::nearbyint(exact);
    // Within 1e-9 relative and 1e-6 absolute: never half a step, so a count is never rounded down by one.
    const bool whole = std::abs(exact - nearest) <= std::min(1e-9 * std::max(1.0, exact), 1e-6);
    const auto steps = static_cast<std::int64_t>(whole ? nearest : std::ceil(exact));
    const std::string per = a.sampling == BatchSampling::Poisson ? "1 / sampling_rate"
                            : a.kind == AlgorithmKind::NoisySgd  ? "n / batch_size"
                                                                 : "1 (full batch)";
    a.steps_derivation = "algorithm.steps = " + std::to_string(steps) + " (epochs x " + per + " = " +
                         format_number(epochs) + " x " + format_number(per_epoch) +
                         (whole ? "" : " = " + format_number(exact) + ", rounded up") + ")";
    return steps;
  }
  if (!s.has("steps")) return std::nullopt;
  const std::int64_t steps = non_negative_integer(s, "steps");
  check_size(s.key("steps"), steps, limits::kMaxSteps, kStepsWhy);
  return steps;
}

}  // namespace

void parse_algorithm(const Section& s, AlgorithmSpec& a, Adjacency adjacency) {
  if (!s.has("kind"))  // a misspelt kind ("kidn") is named before kind is called missing
    s.allow_only({"kind", "loss", "steps", "epochs", "eta", "sigma", "sigma_at", "noise_multiplier", "n", "sensitivity",
                  "batch_size", "sampling", "sampling_rate", "schedule", "drop_last", "time", "intervals"});
  const AlgorithmKind kind = enum_value(s, "kind", kAlgorithmKindNames);
  if (kind == AlgorithmKind::Pdi) return parse_pdi_algorithm(s, a);
  // Unknown keys first: a misspelt key is named as such (with the key meant), not as the required
  // key it left missing (issue 37: noise_multipler used to read "'algorithm.sensitivity' = missing").
  const bool sgd = kind == AlgorithmKind::NoisySgd;
  if (kind == AlgorithmKind::Langevin)
    s.allow_only({"kind", "time", "sigma", "n", "sensitivity", "intervals"});
  else if (sgd)
    s.allow_only({"kind", "loss", "steps", "epochs", "eta", "sigma", "sigma_at", "noise_multiplier", "n", "sensitivity",
                  "batch_size", "sampling", "sampling_rate", "schedule", "drop_last"});
  else
    s.allow_only({"kind", "loss", "steps", "epochs", "eta", "sigma", "sigma_at", "noise_multiplier", "n", "sensitivity",
                  "schedule"});
  a.n = s.number("n");
  if (!(a.n >= 1.0)) throw SpecError(s.key("n"), format_number(a.n), "the dataset size must be >= 1");
  if (a.n > limits::kMaxDatasetSize)
    throw SpecError(s.key("n"), format_number(a.n),
                    "must be <= 2^53 = 9007199254740992: counts of records beyond it are not exact in a double "
                    "(docs/config.md, Limits)");
  // Accounting alone (docs/config.md): a noisy-sgd run whose noise is a DP-SGD noise multiplier may
  // leave out the sensitivity and the step size; the accountants need neither, the PDI refuses.
  const bool per_step = kind != AlgorithmKind::Langevin && has_per_step_values(s);
  const bool accounting_only_allowed = kind == AlgorithmKind::NoisySgd && s.has("noise_multiplier") && !per_step;
  // Values per step are read (and S_g checked at every step) by expand_per_step_values below.
  if (!per_step) {
    if (s.has("sensitivity") || !accounting_only_allowed)
      a.sensitivity = non_negative(s, "sensitivity");
    else
      a.declares_sensitivity = false;
  }
  if (kind == AlgorithmKind::Langevin) {
    a.kind = AlgorithmKind::Langevin;
    a.time = non_negative(s, "time");
    a.sigma = positive(s, "sigma");
    if (s.has("intervals")) {
      a.intervals = s.integer("intervals");
      if (a.intervals < 1) throw SpecError(s.key("intervals"), std::to_string(a.intervals), "must be >= 1");
      check_size(s.key("intervals"), a.intervals, limits::kMaxSteps, kStepsWhy);
    }
    return;
  }
  a.kind = kind;
  a.loss = enum_value(s, "loss", kLossKindNames, LossKind::Generic);
  double batch = a.n;  // the b of the update (eta/b) sum_{i in B}
  if (sgd) {
    // "full-batch" is noisy-gd's own scheme, not a noisy-sgd setting.
    a.sampling = enum_value(s, "sampling", kBatchSamplingNames, std::nullopt, {BatchSampling::FullBatch});
    if (a.sampling == BatchSampling::Poisson) {
      // Each record independently with probability q at every step; the clipped sum is divided by
      // the expected batch size b = q n, a constant of the algorithm (as DP-SGD libraries do).
      if (s.has("drop_last") && boolean(s, "drop_last"))
        throw SpecError(s.key("drop_last"), describe(s.at("drop_last")),
                        "is used only with batches formed per epoch (partition, shuffle-once, shuffle)");
      const bool varying = poisson_rate_varies(s);
      if (varying && !s.has("steps"))
        throw SpecError(s.key(s.has("epochs") ? "epochs" : "steps"),
                        s.has("epochs") ? describe(s.at("epochs")) : "missing",
                        "a rate that changes with the step needs steps (an epoch's steps depend on the rate)");
      const std::optional<double> q =
          varying ? std::optional(first_poisson_rate(s, a.n, non_negative_integer(s, "steps"))) : poisson_rate(s, a.n);
      if (!q)
        throw SpecError(s.key("sampling_rate"), "missing",
                        "sampling = \"poisson\" needs sampling_rate (q), or batch_size (the expected batch size, q = "
                        "batch_size / n)");
      a.sampling_rate = *q;
      batch = a.sampling_rate * a.n;
      a.batch_size = std::max<std::int64_t>(1, std::llround(batch));
    } else {
      if (s.has("sampling_rate"))
        throw SpecError(s.key("sampling_rate"), describe(s.at("sampling_rate")),
                        "is used only with sampling = \"poisson\" (fixed-size batches take batch_size)");
      a.batch_size = s.integer("batch_size");
      const auto n_int = static_cast<std::int64_t>(a.n);
      const bool epochs_of_batches = a.sampling != BatchSampling::PerStep;
      const bool drop_last = s.has("drop_last") && boolean(s, "drop_last");
      if (drop_last && !epochs_of_batches)
        throw SpecError(s.key("drop_last"), "true",
                        "is used only with batches formed per epoch (partition, shuffle-once, shuffle)");
      if (a.batch_size < 1 || a.batch_size > n_int || static_cast<double>(n_int) != a.n ||
          (n_int % a.batch_size != 0 && !drop_last))
        throw SpecError(s.key("batch_size"), std::to_string(a.batch_size),
                        "must divide n = " + format_number(a.n) +
                            " (n/b batches per epoch, Ye & Shokri 2022 Alg. 1); or set drop_last = true if the "
                            "loader drops each epoch's last partial batch");
      if (drop_last && n_int % a.batch_size != 0 && n_int / a.batch_size < 2)
        throw SpecError(s.key("batch_size"), std::to_string(a.batch_size),
                        "with drop_last needs at least two batches an epoch (b <= n/2 = " + std::to_string(n_int / 2) +
                            "): one batch an epoch would be analysed as a full batch of records that change");
      if (drop_last && n_int % a.batch_size != 0) {
        // The records an epoch leaves out take no step with the data in that epoch: every record is
        // bounded by the run on the b floor(n/b) records used (docs/config.md, "drop_last").
        a.dropped_records = n_int % a.batch_size;
        a.n = static_cast<double>(n_int - a.dropped_records);
      }
      batch = static_cast<double>(a.batch_size);
    }
  } else {
    a.batch_size = static_cast<std::int64_t>(a.n);
  }
  const bool varying_rate = sgd && a.sampling == BatchSampling::Poisson && poisson_rate_varies(s);
  if (varying_rate && per_step)
    throw SpecError(s.key(s.has("sampling_rate") ? "sampling_rate" : "batch_size"),
                    "with a step size or noise that changes with the step",
                    "a rate that changes with the step takes a constant step size and noise");
  const std::optional<std::int64_t> steps = read_steps(s, a, batch);
  if (per_step) return expand_per_step_values(s, a, adjacency, batch, steps);
  std::optional<double> eta, sigma;
  if (s.has("eta"))
    eta = positive(s, "eta");
  else if (accounting_only_allowed)
    a.declares_eta = false;
  sigma = c21_sigma(s, eta, a, adjacency, batch);
  if (varying_rate) {
    if (!steps) throw SpecError(s.key("steps"), "missing", "a rate that changes with the step needs steps");
    return expand_poisson_rates(s, a, adjacency, eta, sigma, *steps);
  }
  std::int64_t scheduled = 0;
  if (s.has("schedule")) {
    check_list_size(s, "schedule", limits::kMaxPhases, "each phase is kept in the privacy program");
    if (sgd && a.sampling != BatchSampling::Poisson)
      throw SpecError(s.key("schedule"), "phases",
                      "noisy-sgd takes [[algorithm.schedule]] phases with sampling = \"poisson\" only (fixed-size "
                      "batches keep one batch size for their epochs)");
    for (const Section& p : s.tables("schedule")) {
      Phase phase;
      phase.origin = p.path();
      if (sgd) {
        phase.steps = non_negative_integer(p, "steps");
        check_size(p.key("steps"), phase.steps, limits::kMaxSteps, kStepsWhy);
        read_poisson_phase(p, a, adjacency, eta, sigma, phase);
        scheduled += phase.steps;
        a.phases.push_back(phase);
        continue;
      }
      p.allow_only({"steps", "eta", "sigma", "gamma", "sensitivity"});
      phase.steps = non_negative_integer(p, "steps");
      check_size(p.key("steps"), phase.steps, limits::kMaxSteps, kStepsWhy);
      if (!p.has("eta") && !eta) throw SpecError(p.key("eta"), "missing", "give it here or as algorithm.eta");
      if (!p.has("sigma") && !sigma) throw SpecError(p.key("sigma"), "missing", "give it here or as algorithm.sigma");
      phase.eta = p.has("eta") ? positive(p, "eta") : *eta;
      phase.sigma = p.has("sigma") ? positive(p, "sigma") : *sigma;
      if (p.has("gamma")) {
        const double g = p.number("gamma");
        if (!(g > 0.0 && g <= 1.0)) throw SpecError(p.key("gamma"), format_number(g), "must be in (0, 1]");
        phase.gamma = g;
      }
      if (p.has("sensitivity")) phase.sensitivity = non_negative(p, "sensitivity");
      scheduled += phase.steps;  // <= 2^20 phases of <= 2^40 steps: no overflow
      a.phases.push_back(phase);
    }
    check_size(s.key("schedule"), "phases of " + std::to_string(scheduled) + " steps in all", scheduled,
               limits::kMaxSteps, "the total of the phases' steps; " + std::string(kStepsWhy));
  }
  if (!steps && a.phases.empty())
    throw SpecError(s.key("steps"), "missing", "give steps or [[algorithm.schedule]] phases");
  if (steps && *steps < scheduled)
    throw SpecError(s.key("steps"), std::to_string(*steps),
                    "must be >= the " + std::to_string(scheduled) + " steps of algorithm.schedule");
  if (a.noise_multiplier && !sigma && sgd) {
    // Accounting alone: no C21 units (eta or S_g missing). eta = 0 and sigma = 0 mark them unknown;
    // the accountants use the noise multiplier, the PDI refuses (declares_eta/declares_sensitivity).
    if (steps && (*steps > scheduled || a.phases.empty()))
      a.phases.push_back(Phase::of(*steps - scheduled, eta.value_or(0.0), 0.0));
    return;
  }
  if (steps && (*steps > scheduled || a.phases.empty())) {  // the scalars cover the steps after the phases
    if (!eta) throw SpecError(s.key("eta"), "missing", "needed for the steps not covered by a schedule");
    if (!sigma) throw SpecError(s.key("sigma"), "missing", "needed for the steps not covered by a schedule");
    a.phases.push_back(Phase::of(*steps - scheduled, *eta, *sigma));
  }
}

}  // namespace rdpdyn::config_reader
