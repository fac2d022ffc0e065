#pragma once
// The assumptions of YS22 (arXiv:2203.05363) checked on a TrainingRun. Each check returns nullopt
// when it holds, else the reason, naming the assumption and the run's values.
#include <optional>
#include <string>

#include "models/training_run.hpp"

namespace rdpdyn::ye_shokri {

/// Common to every YS22 analysis: orders > 1, adjacency = replace (neighbouring datasets of the
/// same size), integer n, 1 <= b <= n, steps >= 1, eta, sigma > 0, S_g >= 0, beta > 0 known,
/// 0 <= lambda <= beta. A diameter is ignored: projecting onto a convex set is 1-Lipschitz
/// post-processing, which keeps both the LSI constant and the bound.
std::optional<std::string> common_violation(const TrainingRun& run);

/// b | n and n/b >= 2: the mini-batch structure of Thms D.4, 3.3 and 4.2 (Algorithm 1).
/// `theorem` names the theorem in the message.
std::optional<std::string> partition_violation(const TrainingRun& run, const char* theorem);

/// steps a whole number K >= 1 of epochs of n/b steps (Thms D.4, 3.3, 4.2 count epochs).
/// `alternative` names an entry that does not need it ("" for none).
std::optional<std::string> whole_epochs_violation(const TrainingRun& run, const char* theorem, const char* alternative);

/// Step sizes: YS22 Lemma D.2 (eta < 2/beta) for lambda = 0, Lemma D.3 (eta < 2/(lambda + beta),
/// the [FIX] reading of Thm 4.2's condition, see docs/analyses.md) for lambda > 0.
std::optional<std::string> gradient_step_size_violation(double eta, double lambda, double beta);
/// YS22 Thm D.6: eta < 1/beta.
std::optional<std::string> full_batch_step_size_violation(double eta, double beta);

/// The setting of YS22 Thm 3.3 (lambda > 0) / Thm D.4 (lambda = 0): common_violation, sampling =
/// partition or shuffle-once (a partition drawn once is, given the draw, a fixed partition),
/// partition_violation, gradient_step_size_violation. Any number of steps.
std::optional<std::string> fixed_partition_setting_violation(const TrainingRun& run);

/// The setting of YS22 Thm 4.2: common_violation, sampling = shuffle-once (one random partition,
/// Algorithm 1 line 3, proof (137)-(140)) or shuffle for a single epoch (a fresh partition each
/// epoch agrees with it only then), partition_violation, gradient_step_size_violation, whole epochs.
std::optional<std::string> random_partition_setting_violation(const TrainingRun& run);

/// The setting of YS22 Thm D.6: common_violation, full batch b = n, eta < 1/beta.
std::optional<std::string> full_batch_setting_violation(const TrainingRun& run);

}  // namespace rdpdyn::ye_shokri
