#pragma once
// A pair drawn at random and revealed: P = law of (J, P_J), Q = law of (J, Q_J), J ~ weights on the
// same components on both sides, plus an atom on which P and Q are apart. Its profile is the average
// of the components' profiles, delta(eps) = sum_j w_j H_{e^eps}(P_j || Q_j) + w_apart, and a trade-off
// lower bound of every component holds for it too (Dong, Roth & Su 2022, arXiv:1905.02383, the
// mixture argument of their Thm 4.2's proof), so it dominates the mixture of the components' runs
// with common weights, J forgotten.
//
// Uses: a last-iterate bound that pays a random, data-independent Gaussian shift at its last step
// (E_Y[delta_{h (x) G(s Y)}] is the profile of h composed with the revealed pair of the N(s y_j)
// shifts; docs/derivations/noisysgd_window.md), and one Poisson-sampled step under replace-one
// adjacency given its batch size (the size is the same on both datasets and revealed by nothing
// but can be: the pair of each size, weighted by the size's law).
#include <memory>
#include <vector>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

struct RevealedComponent {
  double weight = 0.0;                         ///< w_j >= 0
  std::shared_ptr<const DominatingPair> pair;  ///< nullptr: P_j = Q_j (no privacy loss)
};

class RevealedMixturePair final : public DominatingPair {
 public:
  /// Weights and the apart atom's weight sum to 1 within 1e-12. Throws std::invalid_argument otherwise.
  RevealedMixturePair(std::vector<RevealedComponent> components, double apart_weight, std::string label);

  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  double infinite_loss_mass() const override;
  std::string describe() const override { return label_; }

 private:
  std::vector<RevealedComponent> components_;  ///< with a pair
  double identical_weight_ = 0.0;              ///< components without one
  double apart_weight_ = 0.0;
  std::string label_;
};

}  // namespace rdpdyn::pld
