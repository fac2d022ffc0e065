#pragma once
// A dominating pair (P, Q) of one mechanism, as the PLD accountant needs it (docs/pld.md): its
// privacy profile (the hockey-stick divergence at every real epsilon, with an error bound) and where
// its privacy loss L = log dP/dQ lives under P.
//
// The privacy profile delta(epsilon) = H_{e^epsilon}(P || Q) = sup_S P(S) - e^epsilon Q(S) is
// needed at negative epsilon too: composing dominating pairs needs domination of the whole trade-off
// curve (Zhu, Dong & Wang 2022, "Optimal Accounting of Differential Privacy via Characteristic
// Function", arXiv:2106.08567, Def. 7 and Thm 10), i.e. of H_t for every t >= 0.
#include <string>

namespace rdpdyn::pld {

/// A value and a bound on its absolute error.
struct Approx {
  double value = 0.0;
  double error = 0.0;
  double upper() const { return value + error; }
  double lower() const { return value - error; }
};

class DominatingPair {
 public:
  virtual ~DominatingPair() = default;
  /// delta(epsilon) = H_{e^epsilon}(P || Q), any real epsilon, with an absolute error bound.
  virtual Approx hockey_stick(double epsilon) const = 0;
  /// [lo, hi] with P(L < lo) <= tail and P(hi < L < infinity) <= tail (hi may be the loss's supremum
  /// when the loss is bounded). tail in (0, 1/2).
  virtual void loss_range(double tail, double& lo, double& hi) const = 0;
  /// P(L = +infinity): the mass of P where Q has none (0 for the Gaussian pairs).
  virtual double infinite_loss_mass() const { return 0.0; }
  /// For messages and outputs, e.g. "Poisson-subsampled Gaussian (remove), q = 0.01, mu = 0.909".
  virtual std::string describe() const = 0;
};

}  // namespace rdpdyn::pld
