#pragma once
// A configured training run as every analysis of `rdpdyn compare` sees it, in C21 units
// (docs/math.md section 1).
//
// Why beside RunSpec (models/run_spec.hpp): RunSpec is the run as declared (phases, per-step values,
// events, the LSI model, the solver's choices); the published analyses take a few scalars of one
// homogeneous run (K, eta, sigma, S_g, lambda, beta, b, q). TrainingRun is that projection, made
// once by training_run_of (models/privacy_model.hpp) after validate_run, so no analysis re-derives
// it. What a run leaves undeclared is said by the declares_* flags, not by a zero alone.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "numerics/name_table.hpp"

namespace rdpdyn {

/// How the mini-batches are formed (Ye & Shokri 2022): the whole dataset each step; a fixed
/// partition into n/b batches cycled in order every epoch (any partition, so the differing record
/// may sit in any batch); a uniformly random partition drawn once and then cycled (Ye & Shokri
/// Algorithm 1, line 3); a fresh random partition every epoch; b records drawn afresh (without
/// replacement) at every step; or Poisson sampling, each record independently with probability q
/// at every step (DP-SGD as in Abadi et al. 2016, arXiv:1607.00133, and Mironov, Talwar & Zhang
/// 2019, arXiv:1908.10530), the clipped sum divided by the expected batch size b = q n.
enum class BatchSampling { FullBatch, Partition, ShuffleOnce, Shuffle, PerStep, Poisson };

/// The configuration's names of algorithm.sampling ("full-batch" is never configured: noisy-gd is).
inline constexpr NameTable<BatchSampling, 6> kBatchSamplingNames{{{BatchSampling::FullBatch, "full-batch"},
                                                                  {BatchSampling::Partition, "partition"},
                                                                  {BatchSampling::ShuffleOnce, "shuffle-once"},
                                                                  {BatchSampling::Shuffle, "shuffle"},
                                                                  {BatchSampling::PerStep, "per-step"},
                                                                  {BatchSampling::Poisson, "poisson"}}};
inline std::string batch_sampling_name(BatchSampling s) { return name_of(kBatchSamplingNames, s); }

/// Neighbouring datasets: one record replaced (same size), or one record added or removed (the
/// default of DP-SGD libraries), or one record replaced by a null record whose gradient is zero
/// ("zero-out": Kairouz et al. 2021, arXiv:2103.00039; dp_accounting's REPLACE_SPECIAL; the relation
/// of Chua et al. 2024): the dataset keeps its size and a fixed-size batch keeps its slots, so the
/// batch loses the record's gradient instead of taking another record's, and one clip bounds the
/// difference. `Remove` is the older name of AddRemove (the configuration still accepts "remove"):
/// both datasets are neighbours in either direction, so removing one record and adding one are the
/// same relation.
enum class Adjacency { Replace, AddRemove, ZeroOut, Remove = AddRemove };

/// Whether one record's clipped gradient bounds the neighbours' difference (add/remove, zero-out),
/// rather than two records' (replace): the DP-SGD multiplier m is then z itself (models/noise_units.hpp).
constexpr bool one_record_apart(Adjacency a) { return a != Adjacency::Replace; }

/// The configuration's names of domain.adjacency; "remove", the older spelling, is read as add-remove
/// and printed as "add-remove" (name_of finds the first entry of a value).
inline constexpr NameTable<Adjacency, 4> kAdjacencyNames{{{Adjacency::Replace, "replace"},
                                                          {Adjacency::AddRemove, "add-remove"},
                                                          {Adjacency::ZeroOut, "zero-out"},
                                                          {Adjacency::Remove, "remove"}}};
inline std::string adjacency_name(Adjacency a) { return name_of(kAdjacencyNames, a); }

struct TrainingRun {
  double n = 0.0;               ///< dataset size
  std::int64_t batch_size = 0;  ///< b (b = n for full batch)
  BatchSampling sampling = BatchSampling::FullBatch;
  std::int64_t steps = 0;    ///< gradient steps (iterations) in total; epochs = steps b / n
  double eta = 0.0;          ///< step size
  double sigma = 0.0;        ///< C21 noise: each step adds N(0, 2 eta sigma^2 I)
  double sensitivity = 0.0;  ///< S_g: l2 bound on the difference of one record's gradient
                             ///< between neighbouring datasets (S_g <= 2L for L-Lipschitz losses)
  double lambda = 0.0;       ///< strong convexity of the loss (0: convex only; < 0: weakly convex)
  /// The loss is not declared convex: algorithm.loss = "nonconvex", or lambda < 0. Every analysis
  /// that needs convexity refuses the run (convexity_refusal below).
  bool nonconvex = false;
  double beta = 0.0;               ///< smoothness of the loss (0: unknown)
  std::optional<double> diameter;  ///< D, diameter of the constraint set (projected algorithms)
  /// Declared by the user: every per-record gradient has norm <= S_g / 2 (an L-Lipschitz loss with
  /// S_g = 2L). Amplification by sampling for fixed-size batches (composition-sgm, A&T (B.2)/(B.3)
  /// with b < n) is evaluated only then: with S_g bounding only gradient differences the Poisson
  /// value is not an upper bound (analyses/composition.cpp).
  bool gradients_norm_bounded = false;
  Adjacency adjacency = Adjacency::Replace;
  /// Neighbours differ in one user's records, at most this many (1: one record). Entries that do not
  /// take groups themselves are made user-level by the registry (analyses/group_privacy.hpp).
  std::int64_t records_per_user = 1;
  std::vector<double> orders;  ///< Rényi orders alpha > 1
  /// Poisson sampling: the probability q with which each record is in a step's batch.
  double sampling_rate = 0.0;
  /// A run configured for accounting alone (docs/config.md) may leave these out; eta, sigma and
  /// sensitivity are then 0 and every analysis that needs one refuses (undeclared() below).
  bool declares_eta = true;          ///< algorithm.eta given
  bool declares_sensitivity = true;  ///< algorithm.sensitivity given
  bool declares_lsi = true;          ///< [lsi] given (the LSI model, lambda and beta)
  /// The effective noise multiplier z = noise std / sensitivity of one update, when the run's noise
  /// is not in C21 units (no eta or no S_g, noise given as noise_multiplier): the DP-SGD multiplier
  /// m under add-remove adjacency, m / 2 under replace (models/noise_units.hpp). In C21 units z is
  /// sqrt(2 eta) sigma / (eta S_g / b) instead (step_noise_multiplier in analyses/composition.hpp).
  std::optional<double> noise_multiplier;

  std::int64_t batches_per_epoch() const { return static_cast<std::int64_t>(n) / batch_size; }
  /// The b of the update (eta/b) sum_{i in B} grad l: n for full batch, the batch size for fixed-size
  /// batches, the expected batch size q n for Poisson sampling (a constant of the algorithm, the
  /// same on both neighbouring datasets).
  double normaliser() const {
    if (sampling == BatchSampling::FullBatch) return n;
    if (sampling == BatchSampling::Poisson) return sampling_rate * n;
    return static_cast<double>(batch_size);
  }
};

/// The reason an analysis whose proof needs a convex loss (`what`: e.g. "A&T's contraction") refuses
/// a run that does not declare one; nullopt for a convex run.
inline std::optional<std::string> convexity_refusal(const TrainingRun& run, const std::string& what) {
  if (!run.nonconvex) return std::nullopt;
  return "needs a convex loss (" + what + "); the run declares " +
         (run.lambda < 0.0 ? std::string("a weakly convex one (lambda < 0)")
                           : std::string("a non-convex one (algorithm.loss = \"nonconvex\")"));
}

/// A constant of the run that a configuration for accounting alone may leave out.
enum class RunConstant { StepSize, Sensitivity, LsiModel, Smoothness };

/// The reason an analysis that needs `needs` refuses the run, e.g. "needs a step size
/// (algorithm.eta); the run declares none"; nullopt when the run declares all of them.
inline std::optional<std::string> undeclared(const TrainingRun& run, std::initializer_list<RunConstant> needs) {
  for (RunConstant c : needs) switch (c) {
      case RunConstant::StepSize:
        if (!run.declares_eta) return std::string("needs a step size (algorithm.eta); the run declares none");
        break;
      case RunConstant::Sensitivity:
        if (!run.declares_sensitivity)
          return std::string("needs the gradient sensitivity S_g (algorithm.sensitivity); the run declares none");
        break;
      case RunConstant::LsiModel:
        if (!run.declares_lsi) return std::string("needs an LSI model of the iterates ([lsi]); the run declares none");
        break;
      case RunConstant::Smoothness:
        if (!run.declares_lsi)
          return std::string(
              "needs the loss's smoothness beta and strong convexity lambda ([lsi] lambda, beta); "
              "the run declares no [lsi]");
        break;
    }
  return std::nullopt;
}

}  // namespace rdpdyn
