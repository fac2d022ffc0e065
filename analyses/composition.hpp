#pragma once
// Composition accountants: every iterate of the run is released and the per-step Rényi
// divergences add up (Mironov 2017, "Rényi Differential Privacy", arXiv:1702.07476, Prop. 1;
// A&T 2022 Lemma 2.9). The last iterate is a post-processing of the released sequence, so these
// bound it too. They grow linearly in the number of uses of the differing record: the baselines
// that the last-iterate analyses improve on.
//
// Units are C21's (docs/math.md section 1.1): one step
// theta <- theta - (eta/b) sum_{i in B} grad l + N(0, s^2 I)
// with s = sqrt(2 eta) sigma; the differing record moves the update by at most
// Delta = eta S_g / b (b = n for full batch, the expected batch size q n for Poisson sampling). Only
// the effective noise multiplier z = s / Delta enters, so a run configured for accounting alone
// (noise_multiplier without eta or S_g, docs/config.md) is accounted too. Conversions in
// models/noise_units.hpp.
//
// What is counted (docs/analyses.md, "composition-gaussian"): a step costs something only when the
// record may be in its batch. Full batch, per-step and Poisson: every step. Partition and
// shuffle-once: the steps of the record's batch position, one per epoch (the worst position);
// shuffle: one step per epoch (the worst step of the epoch). The spec overloads compose phase by
// phase, add every released Gaussian event and the initial divergence R_0 (composition with the
// release of the initial iterate).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// A stretch of steps with one update: `steps` steps from step `start`, effective noise multiplier
/// z = s / Delta (+infinity: the steps do not depend on the record).
struct CompositionStretch {
  std::int64_t start = 0;
  std::int64_t steps = 0;
  double z = std::numeric_limits<double>::infinity();
  double q = 1.0;  ///< Poisson sampling: these steps' rate (a phase may set its own); else unused
};

/// What a composition accountant composes: the stretches (phases), the released Gaussian events
/// (their slope alpha Delta^2/(2 s^2) / alpha summed, and each one's mu = Delta / s), and the
/// initial divergence R_0 (nullptr: identical initial laws).
struct CompositionPlan {
  std::vector<CompositionStretch> stretches;
  double event_slope = 0.0;
  std::vector<double> event_mus;
  std::size_t events = 0;
  const InitialCurve* initial = nullptr;
};

/// The plan of a TrainingRun's own constants (one stretch), or why z cannot be formed.
std::variant<CompositionPlan, std::string> composition_plan(const TrainingRun& run);
/// The plan of the configured run: one stretch per phase (its own eta, sigma, S_g), the released
/// Gaussians of [[events]] (applied only when the run has steps, as in the solver), R_0. Refuses
/// Langevin and coefficient-level runs.
std::variant<CompositionPlan, std::string> composition_plan(const RunSpec& spec, const TrainingRun& run);
/// Whether the stretches' sampling rates differ (Poisson phases that set their own).
bool changing_rate(const CompositionPlan& plan);
/// Sum over the uses of the differing record of the per-use Gaussian slope 1/(2 z^2) (R = alpha
/// times it): every step for full batch, per-step and Poisson; for partition and shuffle-once the
/// steps of the worst batch position; for shuffle one step per epoch, the worst of each epoch.
double record_uses_slope(const TrainingRun& run, const std::vector<CompositionStretch>& stretches);
/// The plan's steps in total.
std::int64_t total_steps(const CompositionPlan& plan);

/// The first basic input check of `run` that fails (n >= 1, 1 <= b <= n for mini-batches,
/// steps >= 0, eta and S_g declared, eta > 0, sigma > 0, S_g > 0, lambda and beta declared, every
/// order finite and > 1), as a reason naming the value; nullopt if all pass. The checks of an
/// analysis in C21 units; used by analyses/altschuler_talwar_2022.hpp.
std::optional<std::string> training_run_problem(const TrainingRun& run);

/// The checks every accountant needs, in C21 units or not (n an integer >= 1, q in (0, 1] or
/// 1 <= b <= n, steps >= 0, every order finite and > 1), as a reason naming the value.
std::optional<std::string> accountant_input_problem(const TrainingRun& run);

/// "composition-gaussian" for one phase without events and R_0 = 0:
/// R_alpha = U alpha Delta^2 / (2 s^2) = U alpha / (2 z^2), U the uses of the record (above) (Gaussian
/// mechanism, Mironov 2017 Prop. 7, composed, Prop. 1). For full batch this is C21's composition
/// baseline alpha S_g^2 eta K / (4 n^2 sigma^2) (C21 App. E). Add-remove adjacency only for full
/// batch and Poisson sampling (see the reason for fixed-size mini-batches).
AnalysisResult composition_gaussian(const TrainingRun& run);

/// "composition-gaussian" for the configured run: the sum over phases of each phase's per-use cost
/// times its uses, plus alpha Delta^2/(2 s^2) per configured gaussian-release event, plus R_0(alpha).
/// Refuses Langevin runs.
AnalysisResult composition_gaussian(const RunSpec& spec, const TrainingRun& run);

/// Why amplification by sampling cannot be evaluated for this run, if it cannot: under replace
/// adjacency with sampled batches (fixed-size or Poisson) it needs per-record gradient norms
/// <= S_g / 2, declared with [domain] lipschitz_loss = true. Poisson sampling under add-remove
/// adjacency needs nothing (S_g is then itself the norm bound).
std::optional<std::string> sampling_amplification_problem(const TrainingRun& run);

/// "composition-sgm" for one phase without events and R_0 = 0: R_alpha = K S_alpha(q, z), the
/// sampled Gaussian mechanism of Mironov, Talwar & Zhang 2019 (arXiv:1908.10530, Sec. 3;
/// accounting/sampled_gaussian.hpp) composed over the K steps (Mironov 2017 Prop. 1).
///  - sampling = poisson, add-remove adjacency: q = sampling_rate, z = noise std / C; exactly the
///    accountant of opacus (compute_rdp) and dp_accounting at integer orders.
///  - sampling = per-step (b of n without replacement) or poisson under replace adjacency: q = b/n
///    (or the rate) with z = s / Delta, under the declared assumption that per-record gradient norms
///    are <= S_g/2 (L-Lipschitz losses, S_g = 2L; with S_g only a bound on gradient differences it
///    can be exceeded). The argument and its limits are in the .cpp and in the result's citation.
AnalysisResult composition_sgm(const TrainingRun& run);

/// "composition-sgm" for the configured run: per phase, events and R_0 as for composition_gaussian.
AnalysisResult composition_sgm(const RunSpec& spec, const TrainingRun& run);

/// The effective noise multiplier z = s / Delta of one update of `run` (its first phase): from the
/// C21 units (z = sqrt(2 eta) sigma b / (eta S_g)) or, for a run configured for accounting alone,
/// run.noise_multiplier. A reason naming the value when it cannot be formed.
std::optional<std::string> step_noise_multiplier_problem(const TrainingRun& run);

}  // namespace rdpdyn
