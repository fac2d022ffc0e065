#pragma once
// A configured training run as every analysis of `rdpdyn compare` sees it, in C21 units
// (docs/math.md section 1).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdpdyn {

/// How the mini-batches are formed (Ye & Shokri 2022): the whole dataset each step; a fixed
/// partition into n/b batches cycled in order every epoch (any partition, so the differing record
/// may sit in any batch); a uniformly random partition drawn once and then cycled (Ye & Shokri
/// Algorithm 1, line 3); a fresh random partition every epoch; or b records drawn afresh (without
/// replacement) at every step.
enum class BatchSampling { FullBatch, Partition, ShuffleOnce, Shuffle, PerStep };

/// The configuration's name of a sampling scheme ("partition", "shuffle-once", ...).
inline const char* batch_sampling_name(BatchSampling s) {
  switch (s) {
    case BatchSampling::FullBatch: return "full-batch";
    case BatchSampling::Partition: return "partition";
    case BatchSampling::ShuffleOnce: return "shuffle-once";
    case BatchSampling::Shuffle: return "shuffle";
    case BatchSampling::PerStep: return "per-step";
  }
  return "unknown";
}

/// Neighbouring datasets: one record replaced (same size) or one record removed/added.
enum class Adjacency { Replace, Remove };

/// The configuration's name of an adjacency ("replace", "remove").
inline const char* adjacency_name(Adjacency a) { return a == Adjacency::Replace ? "replace" : "remove"; }

struct TrainingRun {
  double n = 0.0;                  ///< dataset size
  std::int64_t batch_size = 0;     ///< b (b = n for full batch)
  BatchSampling sampling = BatchSampling::FullBatch;
  std::int64_t steps = 0;          ///< gradient steps (iterations) in total; epochs = steps b / n
  double eta = 0.0;                ///< step size
  double sigma = 0.0;              ///< C21 noise: each step adds N(0, 2 eta sigma^2 I)
  double sensitivity = 0.0;        ///< S_g: l2 bound on the difference of one record's gradient
                                   ///< between neighbouring datasets (S_g <= 2L for L-Lipschitz losses)
  double lambda = 0.0;             ///< strong convexity of the loss (0: convex only)
  double beta = 0.0;               ///< smoothness of the loss (0: unknown)
  std::optional<double> diameter;  ///< D, diameter of the constraint set (projected algorithms)
  /// Declared by the user: every per-record gradient has norm <= S_g / 2 (an L-Lipschitz loss with
  /// S_g = 2L). Amplification by sampling for fixed-size batches (composition-sgm, A&T (B.2)/(B.3)
  /// with b < n) is evaluated only then: with S_g bounding only gradient differences the Poisson
  /// value is not an upper bound (analyses/composition.cpp).
  bool gradients_norm_bounded = false;
  Adjacency adjacency = Adjacency::Replace;
  std::vector<double> orders;      ///< Rényi orders alpha > 1

  std::int64_t batches_per_epoch() const { return static_cast<std::int64_t>(n) / batch_size; }
};


}  // namespace rdpdyn
