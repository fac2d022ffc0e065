#pragma once
// Models: turn a RunSpec into the privacy program of its algorithm, after checking every
// assumption of the lemmas used (throws SpecError naming the key, value and rule). Programs are
// built by phases of identical steps (dynamics/privacy_program.hpp), never step by step, except
// the exact quadratic schedule whose steps all differ.
#include <optional>
#include <string>
#include <vector>

#include "dynamics/privacy_program.hpp"
#include "models/quadratic_exact.hpp"
#include "models/run_spec.hpp"

namespace rdpdyn {

/// Noisy GD (C21 Algorithm 1) under the configured LSI model:
///  - constant:        c throughout (C21 Thm 2 assumption);
///  - strongly-convex: c = lambda / (2 sigma^2), Gaussian initialisation, eta < 1/beta (C21 Lemma 5);
///  - recursion:       per step c_{k+1}^{-1} = L^2 c_k^{-1} + 2 eta sigma^2 with the within-step
///                     family c(s) = 1 / (L^2/c_k + 2 s sigma^2) (C21 Lemmas 8, 9), with the gradient
///                     map's L = max(|1 - eta lambda|, |1 - eta beta|) or a given Lipschitz constant;
///  - squared-loss:    c = (2 - eta) / (2 sigma^2) for l = |theta - x|^2 / 2 (C21 Cor 2 proof);
///  - function:        a user schedule c(s, t, k).
/// The vector-field sensitivity is S_v = S_g / n (C21 Lemma 4).
PrivacyProgram build_noisy_gd_program(const RunSpec& spec);

/// Noisy mini-batch GD (Ye & Shokri 2022, Algorithm 1) with the differing record in the batch at
/// position `release_position` of every epoch (0-based, < n/b), or in every step (nullopt). A step whose batch holds it
/// releases a Gaussian mechanism of sensitivity eta S_g / b and noise sqrt(2 eta) sigma (Ye &
/// Shokri 2022 Lemma 3.2, case i0 in B, eq. (70)) and spends its noise on it: gamma = 1, no
/// contraction; every other step is a data-independent diffusion (S_v = 0) that contracts
/// (Lemma 3.1). The LSI state follows the recursion of C21 Lemmas 8, 9 either way.
PrivacyProgram build_noisy_sgd_program(const RunSpec& spec, std::optional<std::int64_t> release_position);

/// The quadratic problem of a run with algorithm.loss = "quadratic" (models/quadratic_exact.hpp).
quadratic::QuadraticProblem quadratic_problem_of(const RunSpec& spec);
/// Whether quadratic_problem_of(spec) describes this run's iterates exactly, so that its exact
/// divergence is the run's: a single-phase noisy-GD quadratic run from identical initial laws,
/// without events, whose start is the one the problem encodes (a point, or [quadratic]
/// initial_std). Not for the strongly-convex model's Gaussian start, nor for a declared c0 alone
/// (an LSI constant, not a law).
bool quadratic_exact_applies(const RunSpec& spec);

/// The training run as the analyses of `compare` see it.
TrainingRun training_run_of(const RunSpec& spec);

/// Continuous-time Langevin diffusion of duration `time` (C21 Thm 1/2 with eta K -> time), split
/// into `intervals` equal pieces for recording; LSI constant or function schedule.
PrivacyProgram build_langevin_program(const RunSpec& spec);

/// A coefficient-level run (algorithm.kind = "pdi"): the PDI of C21 eq. (13) on [0, time], split
/// into `intervals` equal diffusion intervals, with sigma(t) and S_v(t) (C21 App. B Def. B.9,
/// eq. (37)) numbers or functions of t evaluated by the engines at every time they integrate at,
/// the configured LSI schedule (constant or function) and gamma, and events at interval boundaries.
PrivacyProgram build_pdi_program(const RunSpec& spec);

/// Dispatches on spec.algorithm.kind.
PrivacyProgram build_program(const RunSpec& spec);

/// Throws SpecError if a model assumption fails (also called by build_program).
void check_model_assumptions(const RunSpec& spec);

/// Throws SpecError naming the first missing key when the run leaves out a constant the PDI needs
/// (algorithm.eta, algorithm.sensitivity, [lsi]: a noisy-sgd run configured for accounting alone).
void require_pdi_constants(const RunSpec& spec);
/// The keys require_pdi_constants misses ("algorithm.eta", "algorithm.sensitivity", "lsi"), in order.
std::vector<std::string> missing_pdi_constants(const RunSpec& spec);

/// The configuration's name of an LSI model kind ("strongly-convex", ...), as errors and the
/// output's metadata write it.
std::string lsi_kind_name(LsiKind kind);

}  // namespace rdpdyn
