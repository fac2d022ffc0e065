#pragma once
// Calibration: the smallest noise (C21 sigma or DP-SGD noise multiplier), or the largest number of
// steps, for which the configured run meets a target (epsilon, delta) under one analysis of
// `compare` or the tightest of them.
//
// The parameter is a family of runs built from the configuration:
//  - Sigma: every phase's C21 sigma is multiplied by one factor so that the first phase's sigma
//    equals the candidate (the ratios of a schedule are kept; a single-phase run simply gets the
//    candidate sigma; a Langevin run gets algorithm.sigma = candidate). The LSI models that derive
//    c from sigma (strongly-convex, recursion, squared-loss) follow the candidate; a configured
//    constant or function c is a property of the run and is kept.
//  - NoiseMultiplier (noisy-sgd only): the DP-SGD noise multiplier m (noise std / clipping norm)
//    becomes the candidate. A run configured for accounting alone (no C21 units) gets
//    algorithm.noise_multiplier = m, which the accountants read (composition-sgm is then opacus'
//    get_noise_multiplier with a tight tolerance); a run with C21 units gets the C21 sigma of m
//    (C = S_g under add-remove, S_g / 2 under replace; models/noise_units.hpp).
//  - Steps: the run's number of steps becomes the candidate (single-phase noisy GD / SGD without
//    events after step 0; anything else is refused with a SpecError).
// epsilon is that of `compare`: the smallest of the RDP conversions (Mironov, improved, Asoodeh et
// al.; the zCDP route for bounds linear in alpha; commands/compare.hpp assign_epsilon), minimised
// over every order in [1.001, 10^4] where the analysis can be evaluated there (else over the
// configured orders), of the named analysis, or for "best" the smallest over the eligible
// analyses that apply. Each conversion is non-decreasing in R, so their minimum is monotone in the
// parameter whenever R is. The search assumes epsilon is monotone in the parameter: non-increasing in
// sigma holds for every registered analysis (tests/analyses/test_conformance.cpp); non-decreasing
// in steps does not for those that declare monotone_in_steps = false (analyses/analysis.hpp), and
// the outcome then names them: the count returned meets the target and the next one does not, but
// a smaller count may miss it. The search never returns a parameter whose evaluated epsilon
// exceeds the target (accounting/epsilon_delta.hpp).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "accounting/epsilon_delta.hpp"
#include "commands/run_terms.hpp"
#include "models/run_config.hpp"
#include "solver/engine.hpp"

namespace rdpdyn {

enum class CalibrationTarget { Sigma, Steps, NoiseMultiplier };

/// What `calibrate` tunes when not told: the noise key the configuration uses, noise_multiplier for a
/// DP-SGD run configured by its multiplier alone (no C21 sigma), sigma otherwise.
CalibrationTarget default_calibration_target(const RunConfig& config);

struct CalibrationRequest {
  double epsilon = 0.0;  ///< > 0
  double delta = 0.0;    ///< in (0, 1)
  CalibrationTarget target = CalibrationTarget::Sigma;
  /// "best" = pointwise minimum over the valid analyses of compare, or one analysis name such
  /// as "pdi", "chourasia-cor1" or "ye-shokri-thm4.2".
  std::string analysis = "best";
  /// Steps: the upper end of the search. Every candidate is solved step by step (the "pdi" entry
  /// of compare), with time and memory linear in the count (about 250 MB at the default 2^20).
  std::int64_t max_steps = std::int64_t{1} << 20;
  /// epsilon minimised over the configured orders only, as opacus' get_privacy_spent and
  /// dp_accounting do (python/dpsgd_accounting.hpp), instead of `compare`'s epsilon.
  bool configured_orders_only = false;
  /// Best: the smallest of the conversions, as `compare`; Improved: the improved conversion alone,
  /// as opacus and dp_accounting (python/dpsgd_accounting.hpp).
  RdpConversion conversion = RdpConversion::Best;
  /// Called after each distinct candidate is evaluated (the count so far, "sigma = 0.41", its
  /// epsilon): the command line's word while it works. Optional.
  std::function<void(int, const std::string&, double)> on_evaluation{};
};

struct CalibrationOutcome {
  CalibrationTarget target = CalibrationTarget::Sigma;
  double target_epsilon = 0.0;
  double target_delta = 0.0;
  double sigma = 0.0;                      ///< C21 sigma of the first phase (Langevin: algorithm.sigma);
                                           ///< 0 for a run configured for accounting alone (no C21 units)
  std::optional<double> sigma_at;          ///< the same noise in Altschuler & Talwar units (not Langevin)
  std::optional<double> noise_multiplier;  ///< DP-SGD noise multiplier (noisy-sgd only; NoiseMultiplier: the result)
  std::int64_t steps = 0;                  ///< total steps of the calibrated run
  double epsilon = 0.0;                    ///< achieved, <= target_epsilon
  double best_order = 0.0;                 ///< the order attaining it
  std::string conversion;                  ///< the conversion attaining it (ComparisonEntry::conversion)
  int evaluations = 0;                     ///< runs of compare (distinct candidates)
  std::string analysis_used;               ///< "best" or the requested analysis
  std::string tightest;                    ///< "best": the valid analysis with the smallest epsilon at the result
  bool include_disputed = false;           ///< "best" included disputed analyses ([report] include_disputed)
  /// Steps: the analyses used that are not monotone in the number of steps (empty: the returned
  /// count is the largest, and every smaller count meets the target too).
  std::vector<std::string> not_monotone_in_steps;
  /// "best" on a run sampled at every step where no analysis used amplifies by sampling: the loud
  /// line of unamplified_sampling_warning (commands/compare.hpp); empty otherwise.
  std::string amplification_warning;
  /// The neighbouring relation, sampling and user level the noise is calibrated for.
  RunTerms terms;
};

/// Calibrates the configured run (see the top of this file). Throws SpecError for invalid input
/// (key "--epsilon", "--delta", "--for", "--analysis", "--max-steps" or the configuration key at fault),
/// for an analysis that does not apply at a candidate, and for a target no parameter in the
/// searched range meets. Evaluates with run_comparison and `engines`.
CalibrationOutcome calibrate_run(const RunConfig& config, const CalibrationRequest& request,
                                 const EngineRegistry& engines);

}  // namespace rdpdyn
