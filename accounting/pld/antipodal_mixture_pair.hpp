#pragma once
// One Poisson-sampled Gaussian step under replace-one adjacency when every per-record gradient has
// norm <= S_g/2 ([domain] lipschitz_loss): in units of the noise standard deviation, with c = S_g/(2 sigma),
//
//   P = (1-q) N(0, 1) + q N(c, 1)   against   Q = (1-q) N(0, 1) + q N(-c, 1).
//
// It dominates the step for every pair of neighbouring datasets, on the whole trade-off curve, and is
// attained (docs/derivations/replace_one_poisson_antipodal.md: a Neyman-Pearson argument; the pair
// dp_accounting uses for NeighboringRelation.REPLACE_ONE, google/differential-privacy
// python/dp_accounting/pld/privacy_loss_mechanism.py, GaussianPrivacyLoss, adjacency REPLACE). It is
// *not* a bound for fixed-size batches, nor when S_g bounds only the gradients' difference.
//
// The loss L(x) = log((1-q) + q e^{cx - c^2/2}) - log((1-q) + q e^{-cx - c^2/2}) is increasing and odd,
// so the optimal set of H_{e^eps} is a half-line {x > t}, t >= 0 for eps >= 0 in closed form, and the
// reflection x -> -x swaps P and Q: delta(eps) = 1 - e^eps + e^eps delta(-eps) for eps < 0. Dividing
// P(x > t) - e^{L(t)} Q(x > t) by the density of Q at t leaves a sum of three nonnegative terms (each
// a difference of Mills ratios, M(x) = Phi(-x)/phi(x), decreasing; docs/pld.md "The profiles"),
// bracketed as GaussianMixturePair brackets its profile.
#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

class AntipodalMixturePair final : public DominatingPair {
 public:
  /// q in (0, 1); c > 0 finite (the shift of each record's component, in noise standard deviations).
  AntipodalMixturePair(double q, double c);

  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  std::string describe() const override;

  /// L(x) and a bound on its evaluation error.
  Approx loss(double x) const;

 private:
  /// A threshold t >= 0 whose exact loss is <= epsilon (epsilon >= 0), near the root of L(t) = epsilon.
  double threshold_below(double epsilon) const;
  /// delta(L(t)) for t >= 0, its error bound and P(x > t).
  double value_at(double t, double& error, double& p_tail) const;
  Approx profile_nonnegative(double epsilon) const;

  double q_, c_;
  double log_k_;  ///< log(q e^{-c^2/2} / (1-q)): e^{L(x)} = a (1 + k a) / (a + k) with a = e^{c x}
};

}  // namespace rdpdyn::pld
