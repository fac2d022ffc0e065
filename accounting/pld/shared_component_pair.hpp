#pragma once
// A pair with a common part: P = (1-q) A + q P1, Q = (1-q) A + q Q1, with A supported apart from P1
// and Q1 (its privacy loss is 0). Its profile is (1-q) (1 - e^eps)_+ + q H_{e^eps}(P1 || Q1).
//
// Why it is here: Poisson sampling under replace-one adjacency when S_g bounds only the difference
// of the two records' clipped gradients g, g'. One step is (1-q) N(a, s^2) + q N(a + g, s^2) against
// the same with g'; since P - t Q = (1-q)(1-t) N(a, s^2) + q (N(a+g) - t N(a+g')), for every t >= 0
//   H_t(P || Q) <= (1-q)(1-t)_+ + q H_t(N(g, s^2) || N(g', s^2)),
// with equality when |g| and |g'| grow (the components separate). So the pair with A apart and
// (P1, Q1) the Gaussian pair of shift |g - g'|/s <= S_g/s dominates one step for every t (the whole
// trade-off curve, as composition needs), with no bound on the gradients' norms (docs/pld.md,
// "Replace-one adjacency").
#include <memory>

#include "accounting/pld/dominating_pair.hpp"

namespace rdpdyn::pld {

class SharedComponentPair final : public DominatingPair {
 public:
  /// q in (0, 1]; inner: the pair (P1, Q1).
  SharedComponentPair(double q, std::shared_ptr<const DominatingPair> inner);
  Approx hockey_stick(double epsilon) const override;
  void loss_range(double tail, double& lo, double& hi) const override;
  double infinite_loss_mass() const override { return q_ * inner_->infinite_loss_mass(); }
  std::string describe() const override;

 private:
  double q_;
  std::shared_ptr<const DominatingPair> inner_;
};

/// The Rényi divergence of order alpha > 1 of the pair with a Gaussian inside, (1-q) A + q N(mu, 1)
/// against (1-q) A + q N(0, 1), A apart: log(1 - q + q e^{alpha (alpha-1) mu^2/2}) / (alpha - 1)
/// (the components apart add their Rényi sums), rounded up.
double shared_component_gaussian_rdp(double q, double mu, double alpha);

}  // namespace rdpdyn::pld
