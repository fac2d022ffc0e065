#pragma once
// The pair whose privacy profile is the larger of two pairs' profiles at every epsilon: its trade-off
// curve is the convex hull of the lower of the two curves, min(f_1, f_2)** (a trade-off function;
// its conjugate is max(f_1*, f_2*), so delta = 1 + h*(-e^eps) = max(delta_1, delta_2): Dong, Roth &
// Su 2022, arXiv:1905.02383, Prop. 2.12). It dominates both pairs, so it can stand in for a step that
// either may describe.
//
// Its main use: one step of a Gaussian mechanism on a batch of b records drawn uniformly without
// replacement from n, under replace-one adjacency, with S_g bounding the difference of any two
// records' gradients: DRS 2022 Thm 4.2 give C_q(G(mu)) = min(f_q, f_q^{-1})**, q = b/n, f_q = q G(mu)
// + (1-q) Id, and f_q is the trade-off of N(0,1) against (1-q) N(0,1) + q N(mu,1) (the "add" pair of
// gaussian_mixture_pair.hpp), f_q^{-1} that of the "remove" pair: so C_q(G(mu)) is the worse of the
// two, with no bound on the gradients' norms (the batch with the record and the batch without it
// differ by one swapped record).
#include <memory>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

class WorseOfPairs final : public DominatingPair {
 public:
  WorseOfPairs(std::shared_ptr<const DominatingPair> first, std::shared_ptr<const DominatingPair> second,
               std::string label);
  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  double infinite_loss_mass() const override;
  std::string describe() const override { return label_; }

 private:
  std::shared_ptr<const DominatingPair> first_, second_;
  std::string label_;
};

/// DRS's C_q(G(mu)): one Gaussian step of noise multiplier 1/mu on b of n records drawn without
/// replacement (q = b/n in (0, 1]), replace-one adjacency.
std::shared_ptr<const DominatingPair> fixed_size_subsampled_gaussian_pair(double q, double mu);

}  // namespace rdpdyn::pld
