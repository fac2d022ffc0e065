#pragma once
// A pair of laws (P, Q) on finitely many outcomes, each probability known with an absolute error
// bound: the privacy loss of outcome i is L_i = log(p_i / q_i) and the profile is exact,
//   delta(epsilon) = H_{e^epsilon}(P || Q) = sum_i (p_i - e^epsilon q_i)_+,
// with no assumption on the order of the losses (no monotone likelihood ratio is needed).
//
// What it is for: a post-processing of a mechanism's output into finitely many cells (e.g. the
// largest batch sum of a shuffled epoch, binned: accounting/shuffled_batch_max.hpp). The pair of the
// cells' laws is then a pair of the mechanism's outputs seen through a fixed map, so its profile is
// a LOWER bound of the mechanism's on the same two datasets (data processing), and the composition of
// such pairs bounds the composed mechanism from below (PldAccountant's lower estimate).
#include <string>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

/// One outcome: its probability under P and under Q, each with an absolute error bound.
struct DiscreteOutcome {
  double p = 0.0;
  double q = 0.0;
  double p_error = 0.0;
  double q_error = 0.0;
};

class DiscretePair final : public DominatingPair {
 public:
  /// Probabilities in [0, 1], errors >= 0, finite; at least one outcome with p > 0. Throws
  /// std::invalid_argument otherwise.
  DiscretePair(std::vector<DiscreteOutcome> outcomes, std::string label);

  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  double infinite_loss_mass() const override { return infinite_mass_; }
  std::string describe() const override { return label_; }

  /// A certified lower bound of D_alpha(P || Q) = log(sum_i p_i^alpha q_i^(1-alpha)) / (alpha - 1),
  /// alpha > 1 (each p_i at its lower end, each q_i at its upper end, the sum rounded down).
  /// +infinity when some outcome has q = 0 < p - p_error.
  double renyi_lower(double alpha) const;
  std::size_t outcomes() const { return outcomes_.size(); }

  /// The profile is evaluated at every point of a PLD grid, and one pass over the outcomes each time
  /// was quadratic (27 s on examples/ye_shokri_fmnist.toml). hockey_stick() answers the outcomes whose
  /// probabilities are known to a small relative error ("narrow") and whose loss is clearly above
  /// epsilon by suffix sums (each contributes p - e^eps q), and evaluates term by term only those
  /// near epsilon and the "wide" ones whose error bounds leave their loss uncertain. This is the
  /// same profile summed over every outcome, for tests and for epsilons beyond the fast path.
  Approx hockey_stick_term_by_term(double epsilon) const;

 private:
  std::vector<DiscreteOutcome> outcomes_;  ///< sorted by increasing loss; q = 0 outcomes last
  std::vector<double> losses_;             ///< L_i = log p_i - log q_i (+infinity where q_i = 0)
  std::vector<bool> wide_;                 ///< the loss within the error bounds spans more than kNarrowLoss
  std::vector<std::size_t> wide_indices_;
  /// Over the narrow outcomes i >= k (compensated sums): p, q, p_error, q_error.
  std::vector<double> suffix_p_, suffix_q_, suffix_p_error_, suffix_q_error_;
  double infinite_mass_ = 0.0;
  std::string label_;
};

}  // namespace rdpdyn::pld
