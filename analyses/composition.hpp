#pragma once
// Composition accountants: every iterate of the run is released and the per-step Rényi
// divergences add up (Mironov 2017, "Rényi Differential Privacy", Prop. 1; A&T 2022 Lemma 2.9).
// The last iterate is a post-processing of the released sequence, so these bound it too. They grow
// linearly in the number of steps: the baselines that the last-iterate analyses improve on.
//
// Units are C21's (docs/math.md section 1.1): one step
// theta <- theta - (eta/b) sum_{i in B} grad l + N(0, s^2 I)
// with s = sqrt(2 eta) sigma; the differing record moves the update by at most
// Delta = eta S_g / b (b = n for full batch). Conversions in models/noise_units.hpp.
#include <optional>
#include <string>

#include "analyses/analysis.hpp"

namespace rdpdyn {

/// The first basic input check of `run` that fails (n >= 1, 1 <= b <= n for mini-batches,
/// steps >= 0, eta > 0, sigma > 0, S_g > 0, every order finite and > 1), as a reason naming the
/// value; nullopt if all pass. Shared by the analyses here and in analyses/altschuler_talwar_2022.hpp.
std::optional<std::string> training_run_problem(const TrainingRun& run);

/// "composition-gaussian": R_alpha = K alpha Delta^2 / (2 s^2) = K alpha eta S_g^2 / (4 b^2 sigma^2)
/// (Gaussian mechanism, Mironov 2017 Prop. 7, composed over K steps). For full batch this is C21's
/// composition baseline alpha S_g^2 eta K / (4 n^2 sigma^2) (C21 App. E). Any batch sampling under
/// replace adjacency; remove adjacency only for full batch (see the reason for mini-batches).
AnalysisResult composition_gaussian(const TrainingRun& run);

/// Why amplification by sampling cannot be evaluated for this run, if it cannot: fixed-size
/// batches need per-record gradient norms <= S_g / 2, declared with [domain] lipschitz_loss = true.
std::optional<std::string> sampling_amplification_problem(const TrainingRun& run);

/// "composition-sgm": R_alpha = K S_alpha(q, z) with q = b/n and z = s / Delta (the sampled Gaussian
/// mechanism of Mironov, Talwar & Zhang 2019, accounting/sampled_gaussian.hpp). Needs sampling =
/// per-step and replace adjacency. The run draws b records without replacement, not Poisson: the
/// Poisson value is used under the stated assumption that per-record gradient norms are <= S_g/2
/// (L-Lipschitz losses, S_g = 2L; with S_g only a bound on gradient differences it can be
/// exceeded). The argument and its limits are in the .cpp and in the result's citation.
AnalysisResult composition_sgm(const TrainingRun& run);

}  // namespace rdpdyn
